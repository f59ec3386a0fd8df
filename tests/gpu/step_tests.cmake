# reduction_add_step_tests(<step_dir_name> <step_source_dir> [PREFIX <prefix>])
#
# The GPU tests of ONE step, compiled against that step alone (no other step, no CUB), so that a
# folder holding only common/, cmake/, course/steps.csv, tests/gpu/, tests/catch*.h and one step
# can build and run them.
#
#   <step_dir_name>    the step's folder name, a row of course/steps.csv, e.g. step04_first_add.
#                      Its first six characters are the tag (step04), also the C++ namespace.
#   <step_source_dir>  the folder holding the step's reduce.cuh (the step contract: see
#                      common/step_api.h).
#   PREFIX <prefix>    put in front of the executable's and the tests' names, which then carry the
#                      label `mutant` instead of the tag: tests/mutants/ builds many copies of one
#                      step this way. The tag and the C++ namespace stay the step's.
#
# Needs, before the call: the CUDA language enabled, the target reduction::common (common/), and
# Catch2 found or fetched (the target Catch2::Catch2; v2 or v3). Optional: the cache variable
# REDUCTION_COMPUTE_SANITIZER (searched for here when unset).
#
# Creates the executable gpu_tests_<tag> and registers, each with SKIP_RETURN_CODE 77 (without a
# GPU, or when a case lacks device memory, ctest says Skipped, never passed):
#   gpu_<tag>          labels gpu;<tag>            every case but the large ones (minutes)
#   gpu_<tag>_large    labels gpu;<tag>;large      n = 2^32 + 17 bytes (5 GiB), 2^31 + 17 int32 and
#                                                  float32 (8 GiB each, skipped when memory is short);
#                                                  its reference from the fixture large_reference
#   sanitize_<tag>     labels gpu;sanitizer;<tag>  memcheck, racecheck, synccheck and initcheck over
#                                                  the small cases; Skipped, with the reason, where
#                                                  compute-sanitizer or a GPU is missing
# so that `ctest -L step04` runs everything that checks step 04.
include_guard(GLOBAL)

set(REDUCTION_STEP_TESTS_DIR ${CMAKE_CURRENT_LIST_DIR})
include(${REDUCTION_STEP_TESTS_DIR}/../../cmake/steps.cmake)  # each step's api, from course/steps.csv

# catch.h and catch_main.h pick Catch2's headers from this definition, not from whichever Catch2
# headers happen to be on the include path. A fetched Catch2 (no Catch2_VERSION here) is v3.
if(NOT TARGET reduction_catch2 AND TARGET Catch2::Catch2)
  add_library(reduction_catch2 INTERFACE)
  target_link_libraries(reduction_catch2 INTERFACE Catch2::Catch2)
  if(Catch2_VERSION AND Catch2_VERSION VERSION_LESS 3)
    target_compile_definitions(reduction_catch2 INTERFACE REDUCTION_CATCH2_V2)
  endif()
endif()

# The large tests (8 GiB inputs) that may run at once under `ctest -j`: one per 20 GiB of the first
# GPU's memory, at most 4 (an H100 or H200: 4; a 24 GiB card: 1), so that none finds too little
# free memory and reports Skipped; one where nvidia-smi cannot say (no GPU: they are Skipped anyway).
# Each large test holds one of the locks gpu_memory_0 .. gpu_memory_<slots - 1>.
if(NOT DEFINED REDUCTION_LARGE_TEST_SLOTS)
  set(slots 1)
  find_program(REDUCTION_NVIDIA_SMI nvidia-smi)
  if(REDUCTION_NVIDIA_SMI)
    execute_process(COMMAND ${REDUCTION_NVIDIA_SMI} --query-gpu=memory.total --format=csv,noheader,nounits -i 0
                    OUTPUT_VARIABLE mib RESULT_VARIABLE failed OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET TIMEOUT 20)
    if(NOT failed AND mib MATCHES "^[0-9]+$")
      math(EXPR slots "${mib} / 20480")
      if(slots LESS 1)
        set(slots 1)
      elseif(slots GREATER 4)
        set(slots 4)
      endif()
    endif()
  endif()
  set(REDUCTION_LARGE_TEST_SLOTS ${slots} CACHE STRING "Large GPU tests (8 GiB inputs) run at once by ctest -j")
endif()
set_property(GLOBAL PROPERTY reduction_large_tests_added 0)

find_program(REDUCTION_COMPUTE_SANITIZER compute-sanitizer HINTS ${CUDAToolkit_BIN_DIR} ${CMAKE_CUDA_COMPILER_TOOLKIT_ROOT}/bin)
if(NOT REDUCTION_COMPUTE_SANITIZER)
  message(STATUS "compute-sanitizer not found: the sanitize_* tests will report Skipped")
endif()

# The support library of the GPU tests and the GPU probe (does this machine have a usable GPU?
# exit 77 if not), which the sanitizer tests and grade ask: built once. And the large tests' fixture,
# large_reference: the reference of their 2^31 + 17 generated values (seconds of every core), computed
# once per ctest run instead of once per step, into the file REDUCTION_LARGE_REFERENCE names
# (large_reference.h), build/large_reference.bin. Skipped without a GPU; a large test run by hand computes its own.
function(reduction_add_gpu_probe)
  if(NOT TARGET reduction_gpu_test_support)
    add_library(reduction_gpu_test_support STATIC ${REDUCTION_STEP_TESTS_DIR}/gpu_test_support.cpp
                ${REDUCTION_STEP_TESTS_DIR}/hang_guard.cpp ${REDUCTION_STEP_TESTS_DIR}/dirty_shared_memory.cu
                ${REDUCTION_STEP_TESTS_DIR}/large_reference.cpp)
    target_link_libraries(reduction_gpu_test_support PUBLIC reduction::common)
    add_executable(reduction_gpu_probe ${REDUCTION_STEP_TESTS_DIR}/gpu_probe.cpp)
    target_link_libraries(reduction_gpu_probe PRIVATE reduction_gpu_test_support)
    add_executable(reduction_large_reference ${REDUCTION_STEP_TESTS_DIR}/large_reference_main.cpp)
    target_link_libraries(reduction_large_reference PRIVATE reduction_gpu_test_support)
    add_test(NAME large_reference COMMAND reduction_large_reference ${CMAKE_BINARY_DIR}/large_reference.bin)
    set_tests_properties(large_reference PROPERTIES LABELS "gpu;large" FIXTURES_SETUP large_reference
                         SKIP_RETURN_CODE 77 TIMEOUT 300)
  endif()
endfunction()

# Catch2's runner, unoptimized: it only parses the command line and reports, and at -O0 it compiles in half
# the time of -O3 (seconds that every fresh build and the add-a-step check wait for).
function(reduction_unoptimized_test_runner target)
  target_compile_options(${target} PRIVATE $<$<CXX_COMPILER_ID:GNU,Clang,AppleClang>:-O0>)
endfunction()

# reduction_gpu_tests_main(): the object library reduction_gpu_tests_main, tests/gpu/main.cpp (Catch2's
# runner and the Skipped exit without a GPU), compiled once and linked into every GPU test program.
function(reduction_gpu_tests_main)
  if(NOT TARGET reduction_gpu_tests_main)
    reduction_add_gpu_probe()
    add_library(reduction_gpu_tests_main OBJECT ${REDUCTION_STEP_TESTS_DIR}/main.cpp)
    target_link_libraries(reduction_gpu_tests_main PRIVATE reduction_gpu_test_support reduction_catch2)
    reduction_unoptimized_test_runner(reduction_gpu_tests_main)
  endif()
endfunction()

# reduction_add_multi_gpu_tests(<step_dir_name> [PREFIX <p> SOURCE_DIR <dir> EXECUTABLE <target>]): the
# tests of a multi-GPU step (its executable target has the folder's name), run through
# tests/gpu/<step_dir_name>.sh: `script` (that script run on fakes: every mode runs the cases of each
# K it owns; labels host and the tag), `usage` (labels host and the tag), `one` (K = 1; labels gpu
# and the tag; Skipped without a GPU), `single` and `mpi` (labels gpu and the tag; Skipped with
# fewer than 2 GPUs or no MPI), whose GPU cases run in one process per launch form in the program
# <tag>_cases (tests/gpu/<tag>_cases.cu); `case_list` (labels host and the tag): that program's
# cases against tests/gpu/<tag>_cases.txt; and `shards` (labels host and the tag):
# tests/gpu/<tag>_shards.cu, the split of n over K GPUs checked on the host. REDUCTION_MPIEXEC (common/multi_gpu) names mpirun, empty
# without MPI. PREFIX, SOURCE_DIR and EXECUTABLE test a changed copy of the step instead
# (tests/mutants/): names start with the prefix, the label is `mutant` instead of the tag.
# <tag>_cases and <tag>_shards are targets of their own, not dependencies of the step: a target-level
# dependency would hold back the step's compilation until both are linked (Ninja's order-only rule), and
# each is a long compilation. tools/grade.py and tests/mutants/run_mutants.py build them by name.
function(reduction_add_multi_gpu_tests step_dir_name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "PREFIX;SOURCE_DIR;EXECUTABLE" "")
  reduction_add_gpu_probe()
  string(SUBSTRING "${step_dir_name}" 0 6 tag)
  set(label ${tag})
  if(arg_PREFIX)
    set(label mutant)
  endif()
  if(NOT arg_SOURCE_DIR)
    set(arg_SOURCE_DIR ${PROJECT_SOURCE_DIR}/${step_dir_name})
  endif()
  if(NOT arg_EXECUTABLE)
    set(arg_EXECUTABLE ${step_dir_name})
  endif()
  set(name ${arg_PREFIX}${tag})
  # Every GPU case in one process per launch form: the team made once per K (tests/gpu/<tag>_cases.cu).
  add_executable(${name}_cases ${REDUCTION_STEP_TESTS_DIR}/${tag}_cases.cu ${REDUCTION_STEP_TESTS_DIR}/hang_guard.cpp)
  target_include_directories(${name}_cases PRIVATE ${PROJECT_SOURCE_DIR} ${REDUCTION_STEP_TESTS_DIR})
  target_link_libraries(${name}_cases PRIVATE reduction::team)
  target_compile_definitions(${name}_cases PRIVATE STEP15_HEADER="${arg_SOURCE_DIR}/reduce.cuh")
  reduction_use_previous_step(${name}_cases ${step_dir_name})
  foreach(mode usage one single mpi)
    add_test(NAME ${name}_${mode}
             COMMAND bash ${REDUCTION_STEP_TESTS_DIR}/${step_dir_name}.sh ${mode} $<TARGET_FILE:${arg_EXECUTABLE}>
                     "${REDUCTION_MPIEXEC}" $<TARGET_FILE:${name}_cases>)
  endforeach()
  add_executable(${name}_shards ${REDUCTION_STEP_TESTS_DIR}/${tag}_shards.cu)
  reduction_use_previous_step(${name}_shards ${step_dir_name})
  target_link_libraries(${name}_shards PRIVATE reduction::team)
  target_compile_definitions(${name}_shards PRIVATE STEP15_HEADER="${arg_SOURCE_DIR}/reduce.cuh")
  add_test(NAME ${name}_shards COMMAND ${name}_shards)
  set_tests_properties(${name}_usage ${name}_shards PROPERTIES LABELS "host;${label}")
  if(NOT arg_PREFIX)  # the script itself, with a fake GPU list: every mode reaches every case it owns
    add_test(NAME ${name}_script
             COMMAND bash ${REDUCTION_STEP_TESTS_DIR}/multi_gpu_script_test.sh ${REDUCTION_STEP_TESTS_DIR}/${step_dir_name}.sh)
    set_tests_properties(${name}_script PROPERTIES LABELS "host;${label}")
    # The cases program lists every case of today's catalogue (tests/gpu/<tag>_cases.txt): one that vanishes fails.
    add_test(NAME ${name}_case_list
             COMMAND bash -c "diff -u \"$1\" <(\"$0\" --list)" $<TARGET_FILE:${name}_cases>
                     ${REDUCTION_STEP_TESTS_DIR}/${tag}_cases.txt)
    set_tests_properties(${name}_case_list PROPERTIES LABELS "host;${label}")
  endif()
  # One at a time: on a machine of several GPUs each uses every GPU.
  set_tests_properties(${name}_one ${name}_single ${name}_mpi PROPERTIES LABELS "gpu;${label}" SKIP_RETURN_CODE 77
                       TIMEOUT 900 RESOURCE_LOCK every_gpu)
endfunction()

function(reduction_add_step_tests step_dir_name step_source_dir)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "PREFIX" "")
  set(prefix "${arg_PREFIX}")
  if(NOT TARGET reduction::common)
    message(FATAL_ERROR "reduction_add_step_tests(${step_dir_name}): add common/ (target reduction::common) first")
  endif()
  if(NOT TARGET reduction_catch2)
    message(FATAL_ERROR "reduction_add_step_tests(${step_dir_name}): find or fetch Catch2 (target Catch2::Catch2) first")
  endif()
  if(NOT EXISTS ${step_source_dir}/reduce.cuh)
    message(FATAL_ERROR "reduction_add_step_tests(${step_dir_name}): no reduce.cuh in ${step_source_dir}")
  endif()
  string(SUBSTRING "${step_dir_name}" 0 6 tag)  # step04_first_add -> step04
  set(label ${tag})
  if(prefix)
    set(label mutant)
  endif()

  reduction_add_gpu_probe()  # shared by every step's tests
  reduction_gpu_tests_main()

  # Tests of one step only: tests/gpu/<tag>_*.cpp and <tag>_*.cu. A step whose operator is a
  # template parameter (api op in course/steps.csv: it defines reduce_op) also gets the max/min tests.
  # The host-side test sources (.cpp) see the step only through step_under_test.h: they are compiled
  # once per tag, into an object library every copy of the step shares (tests/mutants/ builds many);
  # what includes the step's reduce.cuh (.cu) is compiled for each copy.
  file(GLOB step_specific CONFIGURE_DEPENDS ${REDUCTION_STEP_TESTS_DIR}/${tag}_*.cu)
  # The step's kernels are templates, compiled again in every file that instantiates them: so
  # step_under_test.cu and the step's own .cu tests, which instantiate the same ones, are compiled as one
  # translation unit, a file generated here that includes them. ops_under_test.cu (max and min only)
  # compiles apart, beside it.
  set(under_test ${REDUCTION_STEP_TESTS_DIR}/step_under_test.cu)
  if(step_specific)
    set(under_test ${CMAKE_CURRENT_BINARY_DIR}/${prefix}${tag}_under_test.cu)
    set(includes "// Written by tests/gpu/step_tests.cmake: ${tag}'s kernels compiled once for all of these.\n")
    foreach(source IN ITEMS ${REDUCTION_STEP_TESTS_DIR}/step_under_test.cu ${step_specific})
      string(APPEND includes "#include \"${source}\"\n")
    endforeach()
    file(CONFIGURE OUTPUT ${under_test} CONTENT "${includes}")
  endif()
  reduction_step_field(${step_dir_name} API api)
  set(ops_under_test "")
  if(api STREQUAL "op")
    set(ops_under_test ${REDUCTION_STEP_TESTS_DIR}/ops_under_test.cu)
    list(APPEND step_specific ${ops_under_test})
  endif()
  set(host_part gpu_tests_host_${tag})
  if(NOT TARGET ${host_part})
    file(GLOB host_specific CONFIGURE_DEPENDS ${REDUCTION_STEP_TESTS_DIR}/${tag}_*.cpp)
    if(api STREQUAL "op")
      list(APPEND host_specific ${REDUCTION_STEP_TESTS_DIR}/ops_tests.cpp)
    endif()
    add_library(${host_part} OBJECT ${REDUCTION_STEP_TESTS_DIR}/step_tests.cpp ${host_specific})
    target_link_libraries(${host_part} PRIVATE reduction_gpu_test_support reduction_catch2)
    target_compile_definitions(${host_part} PRIVATE REDUCTION_STEP_TAG="${tag}")
  endif()

  set(exe ${prefix}gpu_tests_${tag})
  add_executable(${exe} ${under_test} ${ops_under_test})
  target_link_libraries(${exe} PRIVATE reduction_gpu_tests_main ${host_part} reduction_gpu_test_support
                        reduction_catch2)
  add_dependencies(${exe} reduction_gpu_probe reduction_large_reference)  # sanitize_<tag> asks the probe for a GPU
  target_compile_definitions(${exe} PRIVATE
    REDUCTION_STEP_HEADER="${step_source_dir}/reduce.cuh"
    REDUCTION_STEP_NS=${tag}
    REDUCTION_STEP_TAG="${tag}")

  # A step's long test cases, tagged [own_NAME] in its sources, run beside the rest: gpu_<tag> starts the
  # program once per such tag and once for the rest, all at once (run_parts.sh), and passes when all pass.
  set(own_tags "")
  foreach(source IN LISTS step_specific)
    file(STRINGS ${source} tagged REGEX "\\[own_[a-z0-9_]+\\]")
    string(REGEX MATCHALL "\\[own_[a-z0-9_]+\\]" found "${tagged}")
    string(REGEX REPLACE "\\[(own_[a-z0-9_]+)\\]" "\\1" found "${found}")  # the names: CMake lists and brackets do not mix
    list(APPEND own_tags ${found})
  endforeach()
  list(REMOVE_DUPLICATES own_tags)
  if(own_tags)
    set(rest "~[large]~[sanitize]")
    set(parts "")
    foreach(own IN LISTS own_tags)
      string(APPEND rest "~[${own}]")
      list(APPEND parts "[${own}]~[large]~[sanitize]")
    endforeach()
    add_test(NAME ${prefix}gpu_${tag} COMMAND bash ${REDUCTION_STEP_TESTS_DIR}/run_parts.sh $<TARGET_FILE:${exe}> "${rest}" ${parts})
  else()
    add_test(NAME ${prefix}gpu_${tag} COMMAND ${exe} "~[large]~[sanitize]")
  endif()
  set_tests_properties(${prefix}gpu_${tag} PROPERTIES LABELS "gpu;${label}" SKIP_RETURN_CODE 77 TIMEOUT 900)
  add_test(NAME ${prefix}gpu_${tag}_large COMMAND ${exe} "[large]")
  get_property(added GLOBAL PROPERTY reduction_large_tests_added)  # the locks taken in turn
  math(EXPR slot "${added} % ${REDUCTION_LARGE_TEST_SLOTS}")
  math(EXPR added "${added} + 1")
  set_property(GLOBAL PROPERTY reduction_large_tests_added ${added})
  set_tests_properties(${prefix}gpu_${tag}_large PROPERTIES LABELS "gpu;${label};large" SKIP_RETURN_CODE 77 TIMEOUT 900
                       RESOURCE_LOCK gpu_memory_${slot} FIXTURES_REQUIRED large_reference
                       ENVIRONMENT REDUCTION_LARGE_REFERENCE=${CMAKE_BINARY_DIR}/large_reference.bin)
  add_test(NAME ${prefix}sanitize_${tag}
           COMMAND bash ${REDUCTION_STEP_TESTS_DIR}/sanitize.sh "${REDUCTION_COMPUTE_SANITIZER}"
                   $<TARGET_FILE:reduction_gpu_probe> $<TARGET_FILE:${exe}>)
  set_tests_properties(${prefix}sanitize_${tag} PROPERTIES LABELS "gpu;sanitizer;${label}" SKIP_RETURN_CODE 77 TIMEOUT 1800)
endfunction()

# reduction_add_speed_test(<step_dir_name> [<previous_step_dir_name>])
#
# speed_<tag>, labels <tag>;speed: tools/speed_test.py times the step's executable (the target
# <step_dir_name>) against the previous step's, int32, at the n of the step's row in
# tools/grade_thresholds.csv, and passes when previous time / its time reaches that row's threshold.
# Skipped (77) without a GPU or without a threshold; with no previous step (step01) it only prints
# the time. Runs alone on the machine (RUN_SERIAL): another test on the GPU would move the times.
# REDUCTION_SPEED_ROUNDS sets the runs of each (default 3).
# Around it, the fixture gpu_held (reduction_hold_gpu_during): speed_hold_gpu keeps an idle CUDA
# context open on GPU 0 until speed_release_gpu, so that each program the speed tests start creates
# its own context faster (tools/hold_gpu.py). Without a GPU the holder reports Skipped, and the tests
# run as they would without it.
find_package(Python3 COMPONENTS Interpreter QUIET)
get_filename_component(REDUCTION_PYTHON_ROOT ${REDUCTION_STEP_TESTS_DIR}/../.. ABSOLUTE)  # holds tools/, course/
set(REDUCTION_CLASSROOM_DIR ${REDUCTION_PYTHON_ROOT}/tools)

function(reduction_hold_gpu_during test)
  if(NOT TEST speed_hold_gpu)
    set(state ${CMAKE_BINARY_DIR}/speed_hold_gpu.pid)
    add_test(NAME speed_hold_gpu COMMAND ${Python3_EXECUTABLE} -m tools.hold_gpu start ${state}
             WORKING_DIRECTORY ${REDUCTION_PYTHON_ROOT})
    add_test(NAME speed_release_gpu COMMAND ${Python3_EXECUTABLE} -m tools.hold_gpu stop ${state}
             WORKING_DIRECTORY ${REDUCTION_PYTHON_ROOT})
    set_tests_properties(speed_hold_gpu PROPERTIES LABELS speed FIXTURES_SETUP gpu_held SKIP_RETURN_CODE 77 TIMEOUT 120)
    set_tests_properties(speed_release_gpu PROPERTIES LABELS speed FIXTURES_CLEANUP gpu_held SKIP_RETURN_CODE 77 TIMEOUT 60)
  endif()
  set_tests_properties(${test} PROPERTIES FIXTURES_REQUIRED gpu_held)
endfunction()

function(reduction_add_speed_test step_dir_name)
  set(script ${REDUCTION_CLASSROOM_DIR}/speed_test.py)
  if(NOT Python3_Interpreter_FOUND OR NOT EXISTS ${script})
    message(STATUS "speed test of ${step_dir_name} off: it needs Python 3 and ${script}")
    return()
  endif()
  string(SUBSTRING "${step_dir_name}" 0 6 tag)
  set(exes $<TARGET_FILE:${step_dir_name}>)
  if(ARGC GREATER 1 AND ARGV1)
    list(APPEND exes $<TARGET_FILE:${ARGV1}>)
  endif()
  add_test(NAME speed_${tag}
           COMMAND ${Python3_EXECUTABLE} -m tools.speed_test ${REDUCTION_CLASSROOM_DIR}/grade_thresholds.csv ${exes}
           WORKING_DIRECTORY ${REDUCTION_PYTHON_ROOT})
  set_tests_properties(speed_${tag} PROPERTIES LABELS "${tag};speed" SKIP_RETURN_CODE 77 TIMEOUT 900 RUN_SERIAL TRUE)
  reduction_hold_gpu_during(speed_${tag})
endfunction()
