#!/usr/bin/env bash
# The last step of `cmake --workflow --preset course` (the build preset `course`, target
# course_table, course/run_compare.cmake): compare's exit 3 (no usable GPU) is not a broken build,
# so the step succeeds and the build tool prints no FAILED line, only compare's own line; any other
# failure of compare fails it. With COMPARE (the built compare) and no GPU, the real one too.
# usage: tests/course/course_table.sh [COMPARE]
set -euo pipefail
tree="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "course_table: FAIL: $*" >&2; exit 1; }

python3 - "$tree/CMakePresets.json" <<'PY' || fail "the build preset 'course' does not build the target course_table"
import json, sys
presets = {p["name"]: p for p in json.load(open(sys.argv[1]))["buildPresets"]}
sys.exit(0 if presets["course"].get("targets") == ["course_table"] else 1)
PY
grep -q "run_compare.cmake" "$tree/course/CMakeLists.txt" || fail "course_table does not run course/run_compare.cmake"

fake() {  # a stand-in compare: prints one line on stderr, exits $1
  printf '#!/bin/sh\necho "compare: the line of exit %s" >&2\nexit %s\n' "$1" "$1" >"$work/compare-$1"
  chmod +x "$work/compare-$1"
}
for code in 0 3 1 2 4; do
  fake "$code"
  set +e
  cmake -DCOMPARE="$work/compare-$code" -P "$tree/course/run_compare.cmake" >"$work/out" 2>&1
  got=$?
  set -e
  case "$code" in
    0 | 3) [ "$got" -eq 0 ] || { cat "$work/out"; fail "compare's exit $code failed the step (exit $got)"; }
           [ "$(cat "$work/out")" = "compare: the line of exit $code" ] ||
             { cat "$work/out"; fail "compare's exit $code: more than compare's own line was printed"; } ;;
    *) [ "$got" -ne 0 ] || fail "compare's exit $code passed the step" ;;
  esac
done

if [ -n "${1:-}" ] && ! nvidia-smi -L 2>/dev/null | grep -q "^GPU [0-9]*:"; then
  cmake -DCOMPARE="$1" -P "$tree/course/run_compare.cmake" >"$work/out" 2>&1 ||
    { cat "$work/out"; fail "without a GPU the course table's step failed"; }
  [ "$(wc -l <"$work/out")" -eq 1 ] && grep -q "GPU" "$work/out" ||
    { cat "$work/out"; fail "without a GPU the step printed more or less than compare's one line"; }
fi
echo "course_table: compare's exit 3 ends the course workflow with its one line, other failures fail it"
