# Chooses CMAKE_CUDA_ARCHITECTURES before project() enables CUDA.
#   1. -DCMAKE_CUDA_ARCHITECTURES=... or the CUDAARCHS environment variable: used as given.
#   2. Otherwise the GPU(s) nvidia-smi reports at configure time: the build runs best there.
#   3. No GPU visible (a laptop, CI): Turing, Ampere (which also runs on sm_86/sm_89 GPUs) and
#      Hopper machine code, plus Hopper PTX that newer GPUs compile when the program starts.
if(DEFINED CMAKE_CUDA_ARCHITECTURES OR DEFINED ENV{CUDAARCHS})
  return()
endif()
set(_reduction_caps "")
find_program(REDUCTION_NVIDIA_SMI nvidia-smi)
if(REDUCTION_NVIDIA_SMI)
  execute_process(COMMAND "${REDUCTION_NVIDIA_SMI}" --query-gpu=compute_cap --format=csv,noheader
                  OUTPUT_VARIABLE _reduction_smi RESULT_VARIABLE _reduction_rc
                  ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(_reduction_rc EQUAL 0)
    string(REGEX MATCHALL "[0-9]+\\.[0-9]+" _reduction_found "${_reduction_smi}")
    foreach(_cap IN LISTS _reduction_found)
      string(REPLACE "." "" _cap "${_cap}")
      list(APPEND _reduction_caps "${_cap}")
    endforeach()
    list(REMOVE_DUPLICATES _reduction_caps)
  endif()
endif()
if(_reduction_caps)
  set(CMAKE_CUDA_ARCHITECTURES "${_reduction_caps}" CACHE STRING "CUDA architectures to build for")
  message(STATUS "CUDA architectures: ${_reduction_caps} (the GPU found at configure time)")
else()
  set(CMAKE_CUDA_ARCHITECTURES "75-real;80-real;90" CACHE STRING "CUDA architectures to build for")
  message(STATUS "CUDA architectures: 75-real;80-real;90 (no GPU found at configure time)")
endif()
