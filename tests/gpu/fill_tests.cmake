# The generated input's GPU fill (common/fill.cu) against the host formula, element by element:
# gpu_fill, labels gpu;fill, Skipped (SKIP_RETURN_CODE 77) without a GPU. No step is compiled in.
#
# Needs, before the include: step_tests.cmake's functions and the target reduction_catch2.
include_guard(GLOBAL)

reduction_gpu_tests_main()
add_executable(gpu_tests_fill ${CMAKE_CURRENT_LIST_DIR}/fill_tests.cpp)
target_link_libraries(gpu_tests_fill PRIVATE reduction_gpu_tests_main reduction_gpu_test_support reduction_catch2)
add_test(NAME gpu_fill COMMAND gpu_tests_fill)
set_tests_properties(gpu_fill PROPERTIES LABELS "gpu;fill" SKIP_RETURN_CODE 77 TIMEOUT 300)
if(TARGET gpu_tests)
  add_dependencies(gpu_tests gpu_tests_fill)
endif()
