# Settings shared by the whole course and by a step configured on its own (standalone_step.cmake).
# Included right after project().

# Release unless asked otherwise: the steps are timed, and an unoptimised build times nothing useful.
if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE Release CACHE STRING "Build type" FORCE)
endif()

# Standard C++17 and CUDA C++17 everywhere (-std=c++17, not gnu++17): what compiles here compiles
# with any conforming compiler. The standard itself is required by the reduction::options target.
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_CUDA_EXTENSIONS OFF)

# Every executable in <build>/bin: ./build/bin/step01_interleaved, ./build/bin/compare
set(CMAKE_RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)
# Libraries found relative to the program ($ORIGIN/...), not by the build folder's absolute path: a build folder
# copied elsewhere (another machine, the same layout) still runs (compare's cub_gpu_to_gpu library sits in bin/).
set(CMAKE_BUILD_RPATH_USE_ORIGIN ON)
