# core/ never reaches up to the solvers: no include of a solver family, the portfolio or the
# driver, and no call of the registry (find_solver, all_solvers) or of memplan::solve /
# solve_two_ended (the driver's). Run: cmake -DROOT=<repo> -P tests/core_layering.cmake
file(GLOB core_files "${ROOT}/src/core/*.cpp" "${ROOT}/src/core/*.h")
set(bad "")
foreach(f ${core_files})
  file(STRINGS "${f}" lines)
  set(n 0)
  foreach(line IN LISTS lines)
    math(EXPR n "${n} + 1")
    string(REGEX REPLACE "//.*$" "" code "${line}")  # comments may name anything
    if(code MATCHES "#include \"(solvers|portfolio|driver)/|memplan/driver\\.h|memplan/two_ended\\.h|find_solver|all_solvers|solve_two_ended|(^|[^A-Za-z0-9_])solve[ ]*\\(")
      string(APPEND bad "\n  ${f}:${n}: ${line}")
    endif()
  endforeach()
endforeach()
list(LENGTH core_files count)
if(count LESS 5)
  message(FATAL_ERROR "core_layering: found only ${count} files under ${ROOT}/src/core")
endif()
if(bad)
  message(FATAL_ERROR "core_layering: src/core reaches up to the solvers/driver:${bad}")
endif()
message(STATUS "core_layering: ${count} files, none reaches up to the solvers")
