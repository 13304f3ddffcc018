# MEMPLAN_TORCH_PYTHON: a Python interpreter that imports torch, for the tests of the PyTorch
# front end and of the ONNX sizes against executed torchvision models. A pyenv or venv
# python3 found first on PATH may lack Debian's python3-torch, so the system one is tried
# too. When none has torch, the first one is used and the tests exit 77 (shown as skipped,
# saying why). Set -DMEMPLAN_TORCH_PYTHON=... to choose.
set(MEMPLAN_TORCH_PYTHON "" CACHE FILEPATH "a Python interpreter that imports torch")
if(NOT MEMPLAN_TORCH_PYTHON)
  # find_program, not find_package(Python3): that would shadow the FindPython that
  # pybind11 runs later in python/ (pybind11 then calls python3_add_library, undefined).
  find_program(_memplan_first_python NAMES python3 REQUIRED)
  set(_memplan_torch_python ${_memplan_first_python})
  foreach(py ${_memplan_first_python} /usr/bin/python3)
    execute_process(COMMAND ${py} -c "import torch"
                    RESULT_VARIABLE _torch_rc OUTPUT_QUIET ERROR_QUIET)
    if(_torch_rc EQUAL 0)
      set(_memplan_torch_python ${py})
      break()
    endif()
  endforeach()
  set(MEMPLAN_TORCH_PYTHON ${_memplan_torch_python})
endif()
