#!/usr/bin/env bash
# Runs one GPU test program several times at once, each with one Catch2 test spec, and reports as
# one test: a step's few long test cases (tagged [own_...]) then take as long as the longest of
# them instead of all in turn. Each part's output is printed after it, under its spec.
#
# The first part that fails stops the others: the test has failed, and a part that hung (ended by
# its hang bound, tests/gpu/hang_guard.h) then fails the test at once instead of after the longest
# of the other parts.
#
# Exit: 1 when a part failed; else 77 (ctest: Skipped) when a part was skipped (no GPU, too little
# memory): never passed for a case that did not run; 0 when every part passed.
# usage: run_parts.sh TEST_EXECUTABLE SPEC [SPEC ...]
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/start_logged.sh"
tests=$1
shift
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
parts=$#
i=0
for spec in "$@"; do
  start_logged "$logs/$i" "$tests" "$spec"
  i=$((i + 1))
done

first_failed=""
while [ -z "$first_failed" ]; do
  finished=0
  for ((i = 0; i < parts; ++i)); do
    [ -f "$logs/$i.status" ] || continue
    finished=$((finished + 1))
    case $(cat "$logs/$i.status") in
      0 | 77) ;;
      *) first_failed=$i; break ;;
    esac
  done
  [ "$finished" -eq "$parts" ] && break
  [ -n "$first_failed" ] || sleep 0.2
done
stopped=" "
if [ -n "$first_failed" ]; then
  for ((i = 0; i < parts; ++i)); do
    [ -f "$logs/$i.status" ] && continue
    [ -f "$logs/$i.pid" ] || sleep 0.2  # written just after the part started
    kill "$(cat "$logs/$i.pid")" 2>/dev/null
    stopped+="$i "
  done
fi
wait

skipped=0 failed=0 i=0
for spec in "$@"; do
  code=$(cat "$logs/$i.status")
  if [[ $stopped == *" $i "* ]]; then
    echo "== $(basename "$tests") \"$spec\": stopped after $(cat "$logs/$i.seconds") s, when another part failed"
  else
    echo "== $(basename "$tests") \"$spec\": exit $code after $(cat "$logs/$i.seconds") s"
  fi
  cat "$logs/$i.log"
  case $code in
    0) ;;
    77) skipped=$((skipped + 1)) ;;
    *) failed=$((failed + 1)) ;;
  esac
  i=$((i + 1))
done
if [ "$failed" -gt 0 ]; then exit 1; fi
if [ "$skipped" -gt 0 ]; then exit 77; fi
exit 0
