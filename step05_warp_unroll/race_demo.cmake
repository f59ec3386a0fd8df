# The classic `volatile` last-warp unroll, which races since Volta: a demonstration beside step 05,
# not a step. tests/race_demo.sh shows racecheck finding its hazards.
add_executable(step05_volatile_race_demo ${CMAKE_CURRENT_LIST_DIR}/volatile_race_demo.cu)
target_include_directories(step05_volatile_race_demo PRIVATE ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(step05_volatile_race_demo PRIVATE reduction::common)
