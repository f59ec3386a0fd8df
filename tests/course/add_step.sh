#!/usr/bin/env bash
# Adding a step is one command: in a temporary copy of the course, `python3 -m course.new_step`
# makes a step from step04_first_add (api sum: the fewest test sources, the quickest GPU test), and
# nothing else is edited. Checks that the copy configures; that ctest lists the step's gpu_, _large,
# sanitize_ and speed_ tests under its label, the speed test timing it against step04_first_add; that
# the generated registry (course_step_list.h and the step's course_step_stepNN.cu) holds it; that the
# step, its GPU test program and the GPU probe build (those targets only, for sm_90); that gpu_stepNN
# runs (Skipped without a GPU); that every host check of the copy passes (the catalogue of mistakes,
# the classroom tools, the rendered pages for results/h100, h200 and h200x2, the figures, the
# lessons' word limit); and that make_exercise writes the step's assignment. It does not run the
# assignment's ./grade --host-only, which builds for three architectures: .ci/exercises.sh grades
# assignments that way.
# The copy holds what the configure and those checks read: not .git, not build folders.
# Without Catch2 it stops after the configure and says so.
# usage: tests/course/add_step.sh [WORK_DIR [CMAKE_ARG ...]]
#        WORK_DIR: default (or ""): a temporary folder, removed at the end; CMAKE_ARGs go to the configure.
#        CMAKE_BUILD_PARALLEL_LEVEL bounds the build's jobs (default: Ninja's, from the machine's cores).
set -euo pipefail
tree="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="${1:-}"
configure_args=("${@:2}")
temporary=""
if [ -z "$work" ]; then
  work="$(mktemp -d)"
  temporary=yes
fi
host_pid=""
cleanup() {
  if [ -n "$host_pid" ]; then kill "$host_pid" 2>/dev/null || true; wait "$host_pid" 2>/dev/null || true; fi
  if [ -n "$temporary" ]; then rm -rf "$work"; fi
}
trap cleanup EXIT
fail() { echo "add_step: FAIL: $*" >&2; exit 1; }
say() { echo "add_step: [${SECONDS} s] $*"; }

copy="$work/course"
mkdir -p "$copy"
(cd "$tree" && cp -r CMakeLists.txt README.md cmake common course bench docs render results tests tools \
   step[0-9][0-9]_* "$copy/")
last="$(cd "$copy" && python3 -m course.steps | cut -c5-6 | sort -n | tail -n 1)"
tag="$(printf 'step%02d' $((10#$last + 1)))"  # the first number after the course's last
step="${tag}_added"
say "python3 -m course.new_step $step --from step04_first_add (in a copy of the course: $copy)"
(cd "$copy" && python3 -m course.new_step "$step" --from step04_first_add --change "step 04 under another name") \
  >"$work/new_step.log" 2>&1 || { cat "$work/new_step.log"; fail "course.new_step did not add $step"; }

# The copy's host checks read only its sources: they run while the copy configures and builds.
host_checks() {
  local i=0 check
  for check in "tests.mutants.run_mutants --check-catalogue" tests.tools.test_classroom_tools \
               "render results/h100 --check" "render results/h200 --check" "render results/h200x2 --check" \
               "render.figures --check" "tools.lesson_words --max 1000"; do
    i=$((i + 1))
    # shellcheck disable=SC2086  # a module and its arguments, split on purpose
    (cd "$copy" && python3 -m $check) >"$work/host_check_$i.log" 2>&1 ||
      { tail -n 30 "$work/host_check_$i.log"; echo "python3 -m $check failed"; return 1; }
  done
}
say "the copy's host checks, beside the configure and the build (log: $work/host_checks.log)"
host_checks >"$work/host_checks.log" 2>&1 &
host_pid=$!

build="$work/build"
say "configuring the copy (log: $work/configure.log)"
cmake -S "$copy" -B "$build" -G Ninja -DREDUCTION_CUDA_ARCHITECTURES=90 "${configure_args[@]}" >"$work/configure.log" 2>&1 ||
  { tail -n 30 "$work/configure.log"; fail "the course with $step does not configure"; }
# Without Catch2 the course configures with its tests off (cmake/catch2.cmake says why): nothing
# below could list or run the new step's tests.
if missing="$(grep -m 1 "Tests are off: " "$work/configure.log")"; then
  fail "Catch2 is missing, and this check lists and runs the new step's tests: ${missing#*Tests are off: }"
fi
listed="$(ctest --test-dir "$build" -N -L "^$tag\$")"
for test in "gpu_$tag" "gpu_${tag}_large" "sanitize_$tag" "speed_$tag"; do
  grep -q " $test\$" <<<"$listed" || { echo "$listed"; fail "ctest -L $tag does not list $test"; }
done
speed="$(ctest --test-dir "$build" -N -V -R "^speed_$tag\$")"  # whole, then grep: grep -q may stop reading early
grep -Eq "bin/$step[\" ]+.*bin/step04_first_add" <<<"$speed" ||
  fail "speed_$tag does not time $step against step04_first_add, its row's previous"
grep -q "#include \"$step/reduce.cuh\"" "$build/course/course_step_$tag.cu" &&
  grep -q "course_${tag}_api()" "$build/course/course_step_list.h" ||
  fail "the generated registry (course_step_list.h, course_step_$tag.cu) does not hold $step"

say "building $step, gpu_tests_$tag and reduction_gpu_probe for sm_90 (log: $work/build.log)"
cmake --build "$build" --target "$step" "gpu_tests_$tag" reduction_gpu_probe >"$work/build.log" 2>&1 ||
  { tail -n 30 "$work/build.log"; fail "$step or its GPU tests do not build"; }
say "running ctest -R ^gpu_$tag\$"
ctest --test-dir "$build" -R "^gpu_$tag\$" --output-on-failure >"$work/ctest.log" 2>&1 ||
  { cat "$work/ctest.log"; fail "gpu_$tag failed"; }
grep -Eo "gpu_$tag \.+ *[^0-9]*(Passed|Skipped)" "$work/ctest.log" | sed 's/^/add_step:   /' || true

say "waiting for the copy's host checks"
status=0
wait "$host_pid" || status=$?
host_pid=""
if [ "$status" -ne 0 ]; then
  cat "$work/host_checks.log"
  fail "$(tail -n 1 "$work/host_checks.log")"
fi

say "make_exercise $tag (log: $work/make_exercise.log)"
# From $work: python3 -m would import tools/ from the working folder first, were it another course tree.
(cd "$work" && "$copy/tools/make_exercise" "$tag" assignment) >"$work/make_exercise.log" 2>&1 ||
  { cat "$work/make_exercise.log"; fail "make_exercise $tag failed"; }
grep -q "^previous=step04_first_add$" "$work/assignment/assignment.cfg" || fail "the assignment's previous is not step04_first_add"
[ -f "$work/assignment/$step/reduce.cuh" ] && [ -f "$work/assignment/previous/reduce.cuh" ] ||
  fail "the assignment lacks $step/reduce.cuh or previous/reduce.cuh"
say "$step: added by one command; it configures, is listed and timed by ctest -L $tag, builds, runs," \
    "passes the host checks, and is handed out"
