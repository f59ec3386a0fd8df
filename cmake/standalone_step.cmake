# A step configured on its own, outside the course's top level:
#   cmake -S step04_first_add -B b && cmake --build b && ./b/bin/step04_first_add
# Included by reduction_add_step (course_step.cmake) after the step's project(). Same settings as the whole
# course (Release by default, standard C++17, executables in bin/, the same warnings through
# reduction::options), the harness in common/, and the step's GPU tests when Catch2 is available.
include(${CMAKE_CURRENT_LIST_DIR}/project_settings.cmake)
add_subdirectory(${CMAKE_CURRENT_LIST_DIR}/../common ${CMAKE_BINARY_DIR}/common)

option(REDUCTION_BUILD_TESTS "Build the step's GPU tests (needs Catch2: installed, or fetched)" ON)
set(_step_tests ${CMAKE_CURRENT_LIST_DIR}/../tests/gpu/step_tests.cmake)
if(REDUCTION_BUILD_TESTS AND EXISTS ${_step_tests})
  include(${CMAKE_CURRENT_LIST_DIR}/catch2.cmake)
  enable_testing()
  if(REDUCTION_CATCH2_MISSING)
    add_test(NAME tests_need_catch2
             COMMAND ${CMAKE_COMMAND} "-DREASON=${REDUCTION_CATCH2_MISSING}" -P ${CMAKE_CURRENT_LIST_DIR}/tests_unavailable.cmake)
  else()
    include(${_step_tests})
    get_filename_component(_step_dir_name ${CMAKE_CURRENT_SOURCE_DIR} NAME)
    reduction_add_step_tests(${_step_dir_name} ${CMAKE_CURRENT_SOURCE_DIR})
  endif()
endif()
