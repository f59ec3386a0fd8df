#!/usr/bin/env bash
# Adding a step is one folder and one row of course/steps.csv: in a temporary copy of the course,
# step15_copy is step12_small_n under a new name (namespace step15), with the row
# "previous step12_small_n, api op". Checks that the copy configures; that the step's tests are
# listed under its label and run (Skipped without a GPU); that compare lists it (its usage error
# names every step it knows, without a GPU); and that make_exercise makes its assignment, whose
# host part (./grade --host-only) passes on the solution. The copy's course/steps.csv keeps only
# what the new step needs, its previous step (the speed test's rival), and step 05 (tests/ runs its
# race demonstration), each kept row without a previous (as make_exercise's manifest): so compare
# and the tests are configured and built for three steps, not the whole course. Builds only the new
# step, its GPU tests, the previous step and compare, for one architecture.
# Without Catch2 it stops after the configure and says so.
# usage: tests/course/add_step.sh [WORK_DIR [CMAKE_ARG ...]]
#        WORK_DIR: default (or ""): a temporary folder, removed at the end; CMAKE_ARGs go to the configure
set -euo pipefail
tree="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="${1:-}"
configure_args=("${@:2}")
if [ -z "$work" ]; then
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
fi
fail() { echo "add_step: FAIL: $*" >&2; exit 1; }
say() { echo "add_step: [${SECONDS} s] $*"; }  # progress: the builds below take minutes on a small machine

copy="$work/course"
mkdir -p "$copy"
(cd "$tree" && cp -r CMakeLists.txt cmake common course bench tests tools step[0-9][0-9]_* "$copy/")
rm -rf "$copy"/step15_copy
cp -r "$tree/step12_small_n" "$copy/step15_copy"
rm -rf "$copy/step15_copy/README.md" "$copy/step15_copy/NOTES.md" "$copy/step15_copy/figures"
sed -i 's/\bstep12_small_n\b/step15_copy/g; s/\bstep12\b/step15/g' "$copy"/step15_copy/{CMakeLists.txt,main.cu,reduce.cuh}
cp "$tree/tools/stubs/step12_small_n.cuh" "$copy/tools/stubs/step15_copy.cuh"
python3 - "$copy/course/steps.csv" <<'EOF'  # the comments, the header, and the kept rows without a previous
import sys
path, kept = sys.argv[1], ("step05_warp_unroll", "step12_small_n")
rows = [line.split(",", 3) for line in open(path).read().splitlines(keepends=True)]
text = "".join(",".join(row[:2] + [""] + row[3:]) if row[0] in kept else ",".join(row)
               for row in rows if row[0].startswith("#") or row[0] == "folder" or row[0] in kept)
open(path, "w").write(text + 'step15_copy,single,step12_small_n,op,12,"step 12 under another name"\n')
EOF

build="$work/build"
say "configuring a copy of the course with step15_copy (log: $work/configure.log)"
cmake -S "$copy" -B "$build" -G Ninja -DREDUCTION_CUDA_ARCHITECTURES=90 "${configure_args[@]}" >"$work/configure.log" 2>&1 ||
  { tail -n 30 "$work/configure.log"; fail "the course with step15_copy does not configure"; }
# Without Catch2 the course configures with its tests off (cmake/catch2.cmake says why): nothing
# below could list or run step15's tests.
if missing="$(grep -m 1 "Tests are off: " "$work/configure.log")"; then
  fail "Catch2 is missing, and this check lists and runs the new step's tests: ${missing#*Tests are off: }"
fi
listed="$(ctest --test-dir "$build" -N -L '^step15$')"
for test in gpu_step15 gpu_step15_large sanitize_step15 speed_step15; do
  grep -q " $test\$" <<<"$listed" || { echo "$listed"; fail "ctest -L step15 does not list $test"; }
done
speed="$(ctest --test-dir "$build" -N -V -R '^speed_step15$')"  # whole, then grep: grep -q may stop reading early
grep -Eq 'bin/step15_copy[" ]+.*bin/step12_small_n' <<<"$speed" ||
  fail "speed_step15 does not time step15_copy against step12_small_n, its row's previous"
grep -q '#include "step15_copy/reduce.cuh"' "$build/course/course_step_list.h" &&
  grep -q 'REDUCTION_STEP_OPS(step15)' "$build/course/course_step_list.h" ||
  fail "the generated registry (course_step_list.h) does not hold step15 and its operators"

say "building step15_copy, its GPU tests, step12_small_n and compare for sm_90 (log: $work/build.log)"
cmake --build "$build" --target step15_copy gpu_tests_step15 step12_small_n compare reduction_gpu_probe \
  >"$work/build.log" 2>&1 || { tail -n 30 "$work/build.log"; fail "step15_copy, its tests or compare do not build"; }
say "running ctest -L step15"
ctest --test-dir "$build" -L '^step15$' -LE large --output-on-failure >"$work/ctest.log" 2>&1 ||
  { cat "$work/ctest.log"; fail "a test of step15 failed"; }

set +e
"$build/bin/compare" --steps 99 >/dev/null 2>"$work/compare.err"
code=$?
set -e
[ "$code" -eq 2 ] && grep -q "12, 15, cub" "$work/compare.err" ||
  { cat "$work/compare.err"; fail "compare's list of steps (its usage error) does not name 15 (exit $code)"; }

say "making step15's assignment and grading its host part (./grade --host-only, log: $work/grade.log)"
"$copy/tools/make_exercise" --solution step15 "$work/assignment" >"$work/make_exercise.log" 2>&1 ||
  { cat "$work/make_exercise.log"; fail "make_exercise step15 failed"; }
grep -q "^previous=step12_small_n$" "$work/assignment/assignment.cfg" || fail "the assignment's previous is not step12_small_n"
set +e
(cd "$work/assignment" && ./grade --host-only) >"$work/grade.log" 2>&1
code=$?  # 4: the host part passed, the GPU part not run
set -e
[ "$code" -eq 4 ] || { cat "$work/grade.log"; fail "grade --host-only exited $code on the solution of step15, expected 4"; }
echo "add_step: step15_copy configures, builds, is listed by ctest -L step15 and by compare, and its" \
     "assignment's host part passes"
