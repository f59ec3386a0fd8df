# NCCL, for the multi-GPU step and its benchmarks: the imported target reduction::nccl and
# REDUCTION_NCCL_FOUND. Looked for, in order, under -DNCCL_ROOT=... (or the NCCL_ROOT environment
# variable), the CUDA Toolkit's own folders (NCCL ships with some toolkits), then the system's
# (a distribution's libnccl-dev). Without it, configure says so in one line and the rest of the
# course is unaffected.
include_guard(GLOBAL)

set(NCCL_ROOT "$ENV{NCCL_ROOT}" CACHE PATH "Where NCCL is installed (include/nccl.h, lib/libnccl.so)")
find_package(CUDAToolkit REQUIRED)

find_path(NCCL_INCLUDE_DIR nccl.h
  HINTS ${NCCL_ROOT} ${CUDAToolkit_INCLUDE_DIRS} ${CUDAToolkit_LIBRARY_ROOT}
  PATH_SUFFIXES include)
find_library(NCCL_LIBRARY nccl
  HINTS ${NCCL_ROOT} ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_LIBRARY_ROOT}
  PATH_SUFFIXES lib lib64 lib/x86_64-linux-gnu lib/aarch64-linux-gnu)
mark_as_advanced(NCCL_INCLUDE_DIR NCCL_LIBRARY)

set(REDUCTION_NCCL_FOUND OFF)
if(NCCL_INCLUDE_DIR AND NCCL_LIBRARY)
  set(REDUCTION_NCCL_FOUND ON)
  file(STRINGS ${NCCL_INCLUDE_DIR}/nccl.h _nccl_version_lines REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) ")
  string(REGEX REPLACE ".*NCCL_MAJOR ([0-9]+).*NCCL_MINOR ([0-9]+).*NCCL_PATCH ([0-9]+).*" "\\1.\\2.\\3"
         REDUCTION_NCCL_VERSION "${_nccl_version_lines}")
  if(NOT TARGET reduction::nccl)
    add_library(reduction::nccl INTERFACE IMPORTED)
    target_include_directories(reduction::nccl INTERFACE ${NCCL_INCLUDE_DIR})
    target_link_libraries(reduction::nccl INTERFACE ${NCCL_LIBRARY} CUDA::cudart)
  endif()
  message(STATUS "NCCL ${REDUCTION_NCCL_VERSION}: ${NCCL_LIBRARY}")
else()
  message(STATUS "NCCL not found (nccl.h and libnccl): step15_multi_gpu and bench/allreduce are not built; "
                 "pass -DNCCL_ROOT=/path/to/nccl to use one")
endif()
