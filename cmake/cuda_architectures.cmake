# Chooses the GPU architectures to build for, before project() enables CUDA. The first that is
# set wins:
#   1. -DCMAKE_CUDA_ARCHITECTURES=... on the command line (or an existing cache);
#   2. the CUDAARCHS environment variable (CMake's own convention);
#   3. REDUCTION_CUDA_ARCHITECTURES, which the presets set: "native" in the default preset (the
#      GPUs of this machine), "75-real;80-real;90" in the no-gpu preset;
#   4. otherwise 75-real;80-real;90: Turing and Ampere machine code (sm_80's also runs on sm_86
#      and sm_89), Hopper machine code, and Hopper PTX that newer GPUs compile when a program starts.
if(DEFINED CMAKE_CUDA_ARCHITECTURES OR DEFINED ENV{CUDAARCHS})
  if(REDUCTION_CUDA_ARCHITECTURES)
    message(STATUS "CUDA architectures: as given (not the preset's ${REDUCTION_CUDA_ARCHITECTURES})")
  endif()
  return()
endif()
if(NOT REDUCTION_CUDA_ARCHITECTURES)
  set(REDUCTION_CUDA_ARCHITECTURES "75-real;80-real;90")
endif()
set(CMAKE_CUDA_ARCHITECTURES "${REDUCTION_CUDA_ARCHITECTURES}" CACHE STRING "CUDA architectures to build for")
