#!/usr/bin/env bash
# CI for the classroom tools: generates the assignments for two steps into a temporary folder
# outside the tree, builds each from there as a student would, checks that the stub really is one
# (no line of the solution left in it), and that the grader refuses to pass without a GPU (exit 3,
# "NOT GRADED"). The tools' host tests and the thresholds check are ctest's (label host).
# usage: .ci/exercises.sh [STEP ...]        (default: step04 step07)
set -euo pipefail
tree="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
steps=("$@")
((${#steps[@]} > 0)) || steps=(step04 step07)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

fail() { echo "exercises: FAIL: $*" >&2; exit 1; }

# The tools must refuse bad requests with exit 2 and one line saying why.
for bad in "step99 $work/x" "banana $work/x"; do
  set +e; "$tree/tools/make_exercise" $bad 2>"$work/err"; code=$?; set -e
  [ "$code" -eq 2 ] || fail "make_exercise $bad exited $code, expected 2"
done
mkdir -p "$work/not-empty" && touch "$work/not-empty/file"
set +e; "$tree/tools/make_exercise" step04 "$work/not-empty" 2>"$work/err"; code=$?; set -e
[ "$code" -eq 2 ] || fail "make_exercise into a non-empty folder exited $code, expected 2"

for step in "${steps[@]}"; do
  out="$work/$step"
  "$tree/tools/make_exercise" "$step" "$out"
  stub="$(ls "$out"/step[0-9][0-9]_*/reduce.cuh)"
  solution="$tree/$(basename "$(dirname "$stub")")/reduce.cuh"

  # The stub: TODO lines, no markers, and no line that only the solution has.
  grep -q "// TODO: " "$stub" || fail "$stub has no TODO"
  ! grep -q "solution-begin\|solution-end\|solution-stub" "$stub" || fail "$stub still has markers"
  python3 - "$tree/tools" "$solution" "$stub" <<'EOF' || fail "$stub still holds solution code"
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import exercise_markers
solution, stub = (Path(path).read_text() for path in sys.argv[2:4])
stubs = exercise_markers.stub_text(Path(sys.argv[2]).parent.name)
stub_lines = {line.strip() for line in stub.splitlines()}
left = [line for line in exercise_markers.distinctive_solution_lines(solution, stubs) if line in stub_lines]
for line in left:
    print(f"solution line left in the stub: {line}", file=sys.stderr)
sys.exit(1 if left else 0)
EOF

  # Built from outside the tree, as a student would (one architecture: CI has two cores).
  cmake -S "$out" -B "$out/build" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 >"$work/$step.configure.log" ||
    { tail -n 30 "$work/$step.configure.log"; fail "$step assignment does not configure"; }
  cmake --build "$out/build" >"$work/$step.build.log" 2>&1 ||
    { tail -n 30 "$work/$step.build.log"; fail "$step assignment does not build"; }

  # No GPU here: the grader must not pass, must say why, and must write the JUnit skips.
  set +e
  (cd "$out" && ./grade --build-dir build --junit "$work/$step.xml") >"$work/$step.grade.log" 2>&1
  code=$?
  set -e
  if nvidia-smi -L >/dev/null 2>&1; then
    echo "exercises: $step: a GPU is present, grade exited $code (the stub is expected to fail)"
    [ "$code" -ne 0 ] || fail "grade passed the stub of $step"
  else
    [ "$code" -eq 3 ] || { cat "$work/$step.grade.log"; fail "grade exited $code without a GPU, expected 3"; }
    grep -q "NOT GRADED: no usable GPU" "$work/$step.grade.log" || fail "grade did not say that no GPU is present"
    grep -q "<skipped" "$work/$step.xml" || fail "the JUnit report of $step shows no skipped test"
  fi
  echo "exercises: $step: generated, stub checked, built outside the tree, grade refused without a GPU"
done
