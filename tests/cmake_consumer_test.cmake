# CTest script: installs the memplan build tree into a temporary prefix, then configures,
# builds and runs examples/cmake_consumer against it with find_package(memplan).
# Inputs: MEMPLAN_SOURCE_DIR, MEMPLAN_BUILD_DIR, WORK_DIR, GENERATOR, CXX_COMPILER.
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/install_helpers.cmake)
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
install_memplan("${prefix}")
run(${CMAKE_COMMAND} -S "${MEMPLAN_SOURCE_DIR}/examples/cmake_consumer" -B "${WORK_DIR}/build"
    -G "${GENERATOR}" -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=Release
    "-DCMAKE_PREFIX_PATH=${prefix}")
run(${CMAKE_COMMAND} --build "${WORK_DIR}/build")
run("${WORK_DIR}/build/plan_example")
if(NOT last_output MATCHES "peak=[0-9]+ load=5120 valid=yes")
  message(FATAL_ERROR "unexpected output:\n${last_output}")
endif()
message(STATUS "consumer output: ${last_output}")
file(REMOVE_RECURSE "${WORK_DIR}")
