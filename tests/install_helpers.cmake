# Shared by the CTest scripts that use an installed memplan (cmake_consumer_test.cmake,
# rust_example_test.cmake).

# run(COMMAND...): runs it, fails the test with its output unless it exits 0; its stdout is
# left in `last_output`.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

# Installs the memplan build tree MEMPLAN_BUILD_DIR into `prefix`.
function(install_memplan prefix)
  run(${CMAKE_COMMAND} --install "${MEMPLAN_BUILD_DIR}" --prefix "${prefix}")
endfunction()
