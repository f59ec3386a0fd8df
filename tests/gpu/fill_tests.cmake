# The generated input's GPU fill (common/fill.cu) against the host formula, element by element:
# gpu_fill, labels gpu;fill, Skipped (SKIP_RETURN_CODE 77) without a GPU. No step is compiled in.
#
# Needs, before the include: the target reduction::common and reduction_catch2 (step_tests.cmake).
include_guard(GLOBAL)

add_executable(gpu_tests_fill
  ${CMAKE_CURRENT_LIST_DIR}/main.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fill_tests.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gpu_test_support.cpp)
target_link_libraries(gpu_tests_fill PRIVATE reduction::common reduction_catch2)
target_compile_definitions(gpu_tests_fill PRIVATE REDUCTION_STEP_TAG="fill")  # names the binary in its skip line
add_test(NAME gpu_fill COMMAND gpu_tests_fill)
set_tests_properties(gpu_fill PROPERTIES LABELS "gpu;fill" SKIP_RETURN_CODE 77 TIMEOUT 300)
if(TARGET gpu_tests)
  add_dependencies(gpu_tests gpu_tests_fill)
endif()
