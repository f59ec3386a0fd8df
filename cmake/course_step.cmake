# What every one-GPU step's CMakeLists.txt does, in one place:
#   include(${CMAKE_CURRENT_LIST_DIR}/../cmake/course_step.cmake)   # before project()
#   if(NOT TARGET reduction::common)  # configured on its own, e.g. cmake -S step04_first_add -B b
#     project(reduction_step LANGUAGES CXX CUDA)
#   endif()
#   reduction_add_step(step04_first_add)
# In the course (or an assignment) the harness, reduction::common, is there already. A step configured on its
# own needs the GPU targets before its project() (included here), then, in reduction_add_step, the course's
# settings, the harness and the step's tests (standalone_step.cmake).
include_guard(DIRECTORY)
if(NOT TARGET reduction::common)
  include(${CMAKE_CURRENT_LIST_DIR}/cuda_architectures.cmake)
endif()
set(REDUCTION_CMAKE_DIR ${CMAKE_CURRENT_LIST_DIR})

# The step's executable `name` from main.cu, linked to the harness. A macro, not a function: on its own the step's
# settings (Release by default, bin/) must hold in its folder, where the standalone include sets them.
macro(reduction_add_step name)
  if(NOT TARGET reduction::common)
    include(${REDUCTION_CMAKE_DIR}/standalone_step.cmake)
  endif()
  add_executable(${name} main.cu)
  target_link_libraries(${name} PRIVATE reduction::common)
endmacro()
