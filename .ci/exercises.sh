#!/usr/bin/env bash
# CI for the classroom tools: generates the assignments for two steps into a temporary folder
# outside the tree, builds each from there as a student would (no compiler warning), checks that
# the stub really is one (no line of the solution left in it), that the grader's host part
# (./grade --host-only, what GitHub Classroom's workflow runs) scores the stub below full and the
# solution (make_exercise --solution) full, with exit 4 and the verdict "host part: PASS; GPU part: not run"
# in the terminal, JUnit and results.json alike, and that without a GPU the GPU part scores 0 in
# Gradescope's results.json and the grader never passes, while its JUnit report (--junit) holds the
# host part and every GPU test skipped with the reason; and that a graded folder moved elsewhere is
# graded afresh, and that the course tree's grade of the step scores its host part alike (the first
# step only: each rebuilds). The tools' host tests and the thresholds check
# are ctest's (label host); tests/tools/wrong_kernels.sh fails empty and previous-step kernels and steps
# without their idea.
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
  set +e; (cd "$tree" && python3 -m tools.make_exercise $bad) 2>"$work/err"; code=$?; set -e
  [ "$code" -eq 2 ] || fail "make_exercise $bad exited $code, expected 2"
done
mkdir -p "$work/not-empty" && touch "$work/not-empty/file"
set +e; (cd "$tree" && python3 -m tools.make_exercise step04 "$work/not-empty") 2>"$work/err"; code=$?; set -e
[ "$code" -eq 2 ] || fail "make_exercise into a non-empty folder exited $code, expected 2"

for step in "${steps[@]}"; do
  out="$work/$step"
  (cd "$tree" && python3 -m tools.make_exercise "$step" "$out")
  folder="$(sed -n 's/^step=//p' "$out/assignment.cfg")"  # the step's folder, from its row of course/steps.csv
  stub="$out/$folder/reduce.cuh"
  solution="$tree/$folder/reduce.cuh"

  # The stub: TODO lines, no markers, and no line that only the solution has.
  grep -q "// TODO: " "$stub" || fail "$stub has no TODO"
  ! grep -q "solution-begin\|solution-end\|solution-stub" "$stub" || fail "$stub still has markers"
  (cd "$tree" && python3 - "$solution" "$stub") <<'EOF' || fail "$stub still holds solution code"
import sys
from pathlib import Path
from tools import exercise_markers
solution, stub = (Path(path).read_text() for path in sys.argv[1:3])
stubs = exercise_markers.stub_text(Path(sys.argv[1]).parent.name)
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
  ! grep -i "warning" "$work/$step.build.log" || fail "the $step assignment builds with warnings"
  [ -f "$out/.github/workflows/classroom.yml" ] || fail "$step assignment has no GitHub Classroom workflow"

  # The host part, as GitHub Classroom runs it: the stub must not score full.
  set +e
  (cd "$out" && ./grade --host-only) >"$work/$step.host.log" 2>&1
  code=$?
  set -e
  [ "$code" -eq 1 ] || { cat "$work/$step.host.log"; fail "grade --host-only exited $code on the stub of $step, expected 1"; }
  full="$(sed -n 's/^host part: \([0-9]*\) of \([0-9]*\) points$/\1 of \2/p' "$work/$step.host.log")"
  [ -n "$full" ] && [ "${full%% *}" -lt "${full##* }" ] || fail "the stub of $step scored '$full' in the host part"

  # The whole grade, reusing the student's build/: it must fail the stub (its TODO lines).
  set +e
  (cd "$out" && ./grade --gradescope "$work/$step.json" --junit "$work/$step.xml") >"$work/$step.grade.log" 2>&1
  code=$?
  set -e
  [ "$code" -eq 1 ] || { cat "$work/$step.grade.log"; fail "grade exited $code on the stub of $step, expected 1"; }
  gpu=yes
  nvidia-smi -L 2>/dev/null | grep -q "^GPU [0-9]*:" || gpu=no
  python3 - "$work/$step.json" "$gpu" <<'EOF' || fail "the Gradescope results of the $step stub"
import json, sys
results, gpu = json.load(open(sys.argv[1])), sys.argv[2] == "yes"
gpu_tests = [t for t in results["tests"] if t["name"].startswith("GPU part: ")]
assert gpu_tests, "no GPU test in results.json"
assert results["score"] < sum(t["max_score"] for t in results["tests"]), "the stub scored full"
if not gpu:
    for test in gpu_tests:
        assert test["score"] == 0 and test["status"] == "failed", test
        assert "not graded: no GPU on this machine" in test["output"], test
EOF
  python3 - "$work/$step.xml" "$work/$step.json" "$gpu" <<'EOF' || fail "the JUnit report of the $step stub"
import json, sys, xml.etree.ElementTree as ElementTree
cases = {case.get("name"): case for case in ElementTree.parse(sys.argv[1]).getroot().iter("testcase")}
results, gpu = json.load(open(sys.argv[2])), sys.argv[3] == "yes"
named = {test["name"].split(": ", 1)[1] for test in results["tests"]}
assert set(cases) == named, (sorted(cases), sorted(named))  # the same checks as results.json
assert cases["no TODO left"].find("failure") is not None, "the stub's TODO lines did not fail"
if not gpu:
    for test in results["tests"]:
        if test["name"].startswith("GPU part: "):
            skipped = cases[test["name"].split(": ", 1)[1]].find("skipped")
            assert skipped is not None and "not graded: no GPU on this machine" in skipped.get("message"), test["name"]
EOF
  if [ "$gpu" = no ]; then  # said before anything is built for the GPU
    head -n 1 "$work/$step.grade.log" | grep -q "^grade: no GPU on this machine" || fail "grade did not say first that no GPU is present"
  fi

  # The solution: the host part full, and said to be only that (exit 4, never "overall: PASS");
  # without a GPU the whole grade is NOT GRADED, never a pass.
  (cd "$tree" && python3 -m tools.make_exercise --solution "$step" "$work/$step-solution") >/dev/null
  set +e
  (cd "$work/$step-solution" && ./grade --host-only --junit "$work/$step.solution.xml" \
     --gradescope "$work/$step.solution.json") >"$work/$step.solution.log" 2>&1
  code=$?
  set -e
  [ "$code" -eq 4 ] || { cat "$work/$step.solution.log"; fail "grade --host-only exited $code on the solution of $step, expected 4"; }
  verdict="host part: PASS; GPU part: not run"
  [ "$(tail -n 3 "$work/$step.solution.log" | sed -n 's/^overall: //p')" = "$verdict" ] ||
    { cat "$work/$step.solution.log"; fail "grade --host-only on the solution of $step did not end 'overall: $verdict'"; }
  grep -q "<property name=\"verdict\" value=\"$verdict\"" "$work/$step.solution.xml" &&
    grep -q "overall: $verdict" "$work/$step.solution.json" ||
    fail "the JUnit or Gradescope report of the solution of $step does not say '$verdict'"
  if [ "$gpu" = no ]; then
    set +e
    (cd "$work/$step-solution" && ./grade) >"$work/$step.solution-all.log" 2>&1
    code=$?
    set -e
    [ "$code" -eq 3 ] || { cat "$work/$step.solution-all.log"; fail "grade exited $code on the solution of $step without a GPU, expected 3"; }
    grep -q "NOT GRADED: no usable GPU" "$work/$step.solution-all.log" || fail "grade did not say that no GPU is present"
  fi
  if [ "$step" = "${steps[0]}" ]; then  # the course tree's grade of the same solution scores the same host part
    set +e
    "$tree/tools/grade" --step "$step" --host-only >"$work/$step.tree.log" 2>&1
    code=$?
    set -e
    scored() { sed -n 's/^host part: \([0-9]* of [0-9]*\) points$/\1/p' "$1"; }
    [ "$code" -eq 4 ] && [ "$(scored "$work/$step.tree.log")" = "$(scored "$work/$step.solution.log")" ] ||
      { cat "$work/$step.tree.log"; fail "tools/grade --step $step scored the host part otherwise than the assignment"; }
  fi
  if [ "$step" = "${steps[0]}" ]; then  # moved elsewhere, build-grade/ and all: graded afresh, host tests and all
    mv "$work/$step-solution" "$work/$step-moved"
    set +e
    (cd "$work/$step-moved" && ./grade --host-only) >"$work/$step.moved.log" 2>&1
    code=$?
    set -e
    [ "$code" -eq 4 ] || { cat "$work/$step.moved.log"; fail "grade --host-only exited $code on the solution of $step once moved, expected 4"; }
    grep -q "configuring afresh" "$work/$step.moved.log" && grep -q "host tests: 1 passed" "$work/$step.moved.log" ||
      { cat "$work/$step.moved.log"; fail "the moved solution of $step was not configured afresh with its host tests"; }
  fi
  echo "exercises: $step: generated, stub checked, built outside the tree without warnings;" \
       "host part: stub $full points, solution full; without a GPU the GPU part scores 0 and grade never passes"
done
