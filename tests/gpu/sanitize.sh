#!/usr/bin/env bash
# Runs one step's GPU test cases for compute-sanitizer ("[sanitize]": small odd sizes, the extreme
# block sizes, every type) under memcheck, racecheck, synccheck and initcheck.
#
# Exit 77 (ctest: Skipped), with the reason, only when compute-sanitizer is missing or the probe
# finds no usable GPU. Anything else that goes wrong (a CUDA fault, a hazard, a wrong or
# unrepeatable result, a crash) is a failure.
#
# usage: sanitize.sh COMPUTE_SANITIZER GPU_PROBE TEST_EXECUTABLE
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/start_logged.sh"
sanitizer=$1
probe=$2
tests=$3
name=$(basename "$tests")

if [ ! -x "$sanitizer" ]; then
  echo "SKIPPED: compute-sanitizer not found (it comes with the CUDA Toolkit; pass" \
       "-DREDUCTION_COMPUTE_SANITIZER=/path/to/compute-sanitizer to CMake)"
  exit 77
fi
probe_output=$("$probe" 2>&1)
case $? in
  0) ;;
  77) echo "SKIPPED: $probe_output; $name under compute-sanitizer needs an NVIDIA GPU"; exit 77 ;;
  *) echo "FAILED: the GPU probe itself failed: $probe_output"; exit 1 ;;
esac

# compute-sanitizer runs kernels many times slower: the tests' hang bound (hang_guard.h) grows with it
export REDUCTION_TEST_TIME_SCALE=${REDUCTION_TEST_TIME_SCALE:-20}
# The four tools at once, each in its own process and log: they share the GPU as any concurrent
# tests do, and the test takes as long as the slowest tool instead of all four in turn.
tools=(memcheck racecheck synccheck initcheck)
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
for tool in "${tools[@]}"; do
  start_logged "$logs/$tool" "$sanitizer" --tool "$tool" --error-exitcode 99 "$tests" "[sanitize]"
done
wait
status=0
for tool in "${tools[@]}"; do
  code=$(cat "$logs/$tool.status")
  if [ "$code" = 0 ]; then
    echo "ok    $tool ($(cat "$logs/$tool.seconds") s)"
  else
    echo "FAIL  $tool (exit $code after $(cat "$logs/$tool.seconds") s)"; tail -n 40 "$logs/$tool.log"; status=1
  fi
done
exit $status
