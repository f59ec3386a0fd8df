#!/usr/bin/env bash
# The host part of ./grade (what GitHub Classroom scores, no GPU) must fail a kernel that does not
# hold the step's idea. For each step: its assignment with the solution (make_exercise --solution)
# scores full (exit 4: the host part passed, the GPU part not run); then, in the same folder (only the step rebuilds), its reduce.cuh replaced by
#   (a) the stub with its `// TODO:` lines deleted and no code written, and
#   (b) the previous step's reduce.cuh (previous/ in the assignment) under this step's namespace,
#   (c) where tests/tools/without_idea/ holds the step, the solution without the code of its idea: the
#       regions there put in place of the solution's regions with the same begin texts (step 12 without
#       its one-tile path, step 15 with a reduce_and_combine that never reduces the shards),
# each of which ./grade --host-only must FAIL (exit 1): the compiled-code check
# (tools/sass_checks.csv, tools/host_calls.csv) tells them from the solution, the build where they do not compile.
# A multi-GPU step (step 15: NCCL calls, no kernel of its own) is told apart by the calls its host code
# makes (tools/host_calls.csv).
# Each grade builds for sm_90 alone (--architectures 90): the compiled-code check reads sm_90's code, and
# a build for sm_75, sm_80 and sm_90 fails wherever the one for sm_90 does, so a kernel failed here fails
# the full grade too. The full grade of a solution is .ci/exercises.sh's; every step's build for the three,
# the no-gpu preset's. The steps are checked side by side, one per core (WRONG_KERNELS_JOBS sets how many):
# each grade builds one step, mostly one file, which alone keeps one core busy.
# usage: tests/tools/wrong_kernels.sh [STEP ... | all]
#        default: step01 step04 step07 step12, a quick sample; all: every step of course/steps.csv (CI, .ci/run)
set -euo pipefail
tree="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
steps=("$@")
((${#steps[@]} > 0)) || steps=(step01 step04 step07 step12)
if [ "${steps[*]}" = all ]; then
  mapfile -t steps < <(sed -n 's/^\(step[0-9][0-9]\)_[a-z0-9_]*,.*/\1/p' "$tree/course/steps.csv")
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "wrong_kernels: FAIL: $*" >&2; exit 1; }
started=$SECONDS

grade() {  # grade --host-only in folder $1; its report in $2; prints the exit code
  set +e
  (cd "$1" && ./grade --host-only --architectures 90) >"$2" 2>&1
  echo $?
  set -e
}

check_step() {  # the three or four grades of one step, in a folder of its own; prints one line
  local step="$1" step_started=$SECONDS
  out="$work/$step"
  "$tree/tools/make_exercise" --solution "$step" "$out" >/dev/null
  "$tree/tools/make_exercise" "$step" "$work/$step-stub" >/dev/null
  folder="$(sed -n 's/^step=//p' "$out/assignment.cfg")"
  previous="$(sed -n 's/^previous=//p' "$out/assignment.cfg")"
  file="$out/$folder/reduce.cuh"

  code="$(grade "$out" "$work/$step.solution.log")"
  [ "$code" -eq 4 ] || { cat "$work/$step.solution.log"; fail "grade --host-only exited $code on the solution of $step, expected 4"; }
  cp "$file" "$work/$step.solution.cuh"

  # (a) the stub, its TODO lines deleted, nothing written
  grep -v '^[[:space:]]*// TODO:' "$work/$step-stub/$folder/reduce.cuh" >"$file"
  ! grep -q "TODO" "$file" || fail "the stub of $step holds a TODO outside a '// TODO:' line"
  code="$(grade "$out" "$work/$step.empty.log")"
  [ "$code" -eq 1 ] || { cat "$work/$step.empty.log"; fail "grade --host-only exited $code on the empty stub of $step, expected 1"; }
  empty="$(sed -n 's/^overall: //p' "$work/$step.empty.log")"

  # (b) the previous step's kernels, renamed into this step's namespace
  if [ -n "$previous" ]; then
    source="$out/previous/reduce.cuh"
    [ -f "$source" ] || source="$out/$previous/reduce.cuh"  # a multi-GPU step keeps its previous under its name
    sed -E "s/\\b${previous:0:6}\\b/${folder:0:6}/g; s/\"$previous\"/\"$folder\"/g" "$source" >"$file"
    code="$(grade "$out" "$work/$step.previous.log")"
    [ "$code" -eq 1 ] || { cat "$work/$step.previous.log"; fail "grade --host-only exited $code on $previous's kernels as $step, expected 1"; }
    pasted="$(sed -n 's/^overall: //p' "$work/$step.previous.log")"
  fi

  # (c) the solution without its idea
  without="$tree/tests/tools/without_idea/$folder.cuh"
  if [ -f "$without" ]; then
    (cd "$tree" && python3 -c 'import sys; from pathlib import Path; from tools import exercise_markers
sys.stdout.write(exercise_markers.replace_regions(*(Path(path).read_text() for path in sys.argv[1:3])))' \
      "$work/$step.solution.cuh" "$without") >"$file"
    code="$(grade "$out" "$work/$step.without.log")"
    [ "$code" -eq 1 ] || { cat "$work/$step.without.log"; fail "grade --host-only exited $code on $step without its idea, expected 1"; }
    stripped="$(sed -n 's/^overall: //p' "$work/$step.without.log")"
  fi
  cp "$work/$step.solution.cuh" "$file"
  said="wrong_kernels: $step: solution full; empty stub: $empty"
  [ -z "$previous" ] || said="$said; the kernels of $previous: $pasted"
  [ ! -f "$without" ] || said="$said; without its idea: $stripped"
  echo "$said" \
       "($((SECONDS - step_started)) s)"
}

if [ "${1:-}" = --one ]; then  # one step, as xargs runs it below
  check_step "$2"
  exit 0
fi
# xargs exits non-zero when any step failed; each step's FAIL line says which
printf '%s\n' "${steps[@]}" | xargs -P "${WRONG_KERNELS_JOBS:-$(nproc)}" -I{} "${BASH_SOURCE[0]}" --one {} ||
  fail "a step above failed"
echo "wrong_kernels: ${#steps[@]} step(s) in $((SECONDS - started)) s"
