# Chooses the GPU architectures to build for, before project() enables CUDA. The first that is
# set wins:
#   1. -DCMAKE_CUDA_ARCHITECTURES=... on the command line (or an existing cache);
#   2. the CUDAARCHS environment variable (CMake's own convention);
#   3. REDUCTION_CUDA_ARCHITECTURES, which the presets set: "native" in the default preset (the
#      GPUs of this machine), "75-real;80-real;90" in the no-gpu preset;
#   4. otherwise 75-real;80-real;90: Turing and Ampere machine code (sm_80's also runs on sm_86
#      and sm_89), Hopper machine code, and Hopper PTX that newer GPUs compile when a program starts.
# "native" on a machine without a GPU would stop CMake at configure ("no GPU was detected"), so
# it falls back to the no-gpu list there: the build completes, and running needs a GPU anyway.
set(reduction_no_gpu_architectures "75-real;80-real;90")
if(DEFINED CMAKE_CUDA_ARCHITECTURES OR DEFINED ENV{CUDAARCHS})
  # (a value this file cached on an earlier configure is not "given": it is kept without a word)
  if(REDUCTION_CUDA_ARCHITECTURES AND NOT "${CMAKE_CUDA_ARCHITECTURES}" STREQUAL "${REDUCTION_CUDA_ARCHITECTURES_CHOSEN}")
    message(STATUS "CUDA architectures: as given (not the preset's ${REDUCTION_CUDA_ARCHITECTURES})")
  endif()
  return()
endif()
if(NOT REDUCTION_CUDA_ARCHITECTURES)
  set(REDUCTION_CUDA_ARCHITECTURES "${reduction_no_gpu_architectures}")
endif()

# nvidia-smi -L prints one "GPU <i>: <name> (UUID: ...)" line per GPU the driver sees; it is
# missing, fails or prints none on a machine without one. The driver is what nvcc's -arch=native
# asks too, so the two agree.
function(reduction_gpu_present out_var)
  find_program(REDUCTION_NVIDIA_SMI nvidia-smi)
  set(present FALSE)
  if(REDUCTION_NVIDIA_SMI)
    execute_process(COMMAND "${REDUCTION_NVIDIA_SMI}" -L RESULT_VARIABLE rc OUTPUT_VARIABLE listing ERROR_QUIET
                    TIMEOUT 30)
    if(rc EQUAL 0 AND listing MATCHES "GPU [0-9]+:")
      set(present TRUE)
    endif()
  endif()
  set(${out_var} ${present} PARENT_SCOPE)
endfunction()

set(reduction_architectures "${REDUCTION_CUDA_ARCHITECTURES}")
if(reduction_architectures STREQUAL "native")
  reduction_gpu_present(reduction_has_gpu)
  if(NOT reduction_has_gpu)
    set(reduction_architectures "${reduction_no_gpu_architectures}")
    message(STATUS "CUDA architectures: no GPU detected (nvidia-smi -L lists none), building for "
                   "${reduction_architectures} instead of native")
  endif()
endif()
set(CMAKE_CUDA_ARCHITECTURES "${reduction_architectures}" CACHE STRING "CUDA architectures to build for")
set(REDUCTION_CUDA_ARCHITECTURES_CHOSEN "${reduction_architectures}" CACHE INTERNAL "what this file put in the cache")
