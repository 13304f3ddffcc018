# CTest script: installs the memplan build tree into a temporary prefix, then configures,
# builds and runs examples/cmake_consumer against it with find_package(memplan).
# Then, with WITH_ONNX, examples/onnx_consumer (memplan::onnx) on ONNX_MODEL.
# Inputs: MEMPLAN_SOURCE_DIR, MEMPLAN_BUILD_DIR, WORK_DIR, GENERATOR, CXX_COMPILER, WITH_ONNX,
# ONNX_MODEL, VERSION.
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

# With the ONNX front end built: examples/onnx_consumer uses find_package(memplan COMPONENTS
# onnx) and memplan::onnx, and plans ONNX_MODEL.
if(WITH_ONNX)
  run(${CMAKE_COMMAND} -S "${MEMPLAN_SOURCE_DIR}/examples/onnx_consumer" -B "${WORK_DIR}/onnx_build"
      -G "${GENERATOR}" -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=Release
      "-DCMAKE_PREFIX_PATH=${prefix}")
  run(${CMAKE_COMMAND} --build "${WORK_DIR}/onnx_build")
  run("${WORK_DIR}/onnx_build/plan_onnx" "${ONNX_MODEL}")
  if(NOT last_output MATCHES "^memplan ${VERSION}: tensors=([0-9]+) peak=([0-9]+) load=([0-9]+) valid=yes\n")
    message(FATAL_ERROR "unexpected ONNX consumer output:\n${last_output}")
  endif()
  set(tensors ${CMAKE_MATCH_1})
  if(tensors LESS 2 OR CMAKE_MATCH_2 LESS CMAKE_MATCH_3)
    message(FATAL_ERROR "ONNX consumer: expected tensors and peak >= load:\n${last_output}")
  endif()
  # The same model through the installed CLI: the same tensors.
  run("${prefix}/bin/memplan" onnx "${ONNX_MODEL}" --alignment 64)
  string(REGEX MATCHALL "\n" rows "${last_output}")
  list(LENGTH rows csv_lines)
  math(EXPR csv_rows "${csv_lines} - 1")  # minus the header
  if(NOT csv_rows EQUAL tensors)
    message(FATAL_ERROR "ONNX consumer found ${tensors} tensors, memplan onnx ${csv_rows}")
  endif()
  message(STATUS "ONNX consumer: ${tensors} tensors")
endif()
file(REMOVE_RECURSE "${WORK_DIR}")
