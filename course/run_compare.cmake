# The last step of `cmake --workflow --preset course` (the target course_table): compare over every
# step and CUB. Without a usable GPU compare prints one line on stderr saying why and exits 3; that
# is not a broken build, so the target succeeds and the build tool reports no failure. Any other
# non-zero exit (a wrong result, a CUDA error) fails the target.
# usage: cmake -DCOMPARE=path/to/compare -P course/run_compare.cmake      (runs compare --type all)
if(NOT COMPARE)
  message(FATAL_ERROR "run_compare.cmake: give -DCOMPARE=path/to/compare")
endif()
execute_process(COMMAND ${COMPARE} --type all RESULT_VARIABLE code)
if(code EQUAL 3)
  return()  # compare has said why (no usable GPU, or not enough device memory)
elseif(NOT code EQUAL 0)
  message(FATAL_ERROR "compare exited ${code}")
endif()
