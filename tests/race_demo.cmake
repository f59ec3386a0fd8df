# racecheck must find hazards in the classic `volatile` unroll and none in step 05. Registered
# even without compute-sanitizer: the script then reports Skipped (77) and says why.
find_program(REDUCTION_COMPUTE_SANITIZER compute-sanitizer HINTS ${CUDAToolkit_BIN_DIR})
if(REDUCTION_COMPUTE_SANITIZER)
  set(race_demo_sanitizer ${REDUCTION_COMPUTE_SANITIZER})
else()
  set(race_demo_sanitizer compute-sanitizer)  # not found: the script skips
endif()
add_test(NAME race_demo
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/race_demo.sh ${race_demo_sanitizer}
                 $<TARGET_FILE:step05_volatile_race_demo> $<TARGET_FILE:step05_warp_unroll>)
set_tests_properties(race_demo PROPERTIES LABELS "race_demo;sanitizer;step05" SKIP_RETURN_CODE 77 TIMEOUT 900)
# `ctest -L step05` (and grade) runs this test too: building step05's tests builds what it runs.
if(TARGET gpu_tests_step05)
  add_dependencies(gpu_tests_step05 step05_volatile_race_demo step05_warp_unroll)
endif()
