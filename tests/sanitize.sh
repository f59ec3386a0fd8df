#!/usr/bin/env bash
# Runs one step under compute-sanitizer (memcheck, racecheck, synccheck, initcheck) on small odd
# sizes and the extreme block sizes. Exits 77 (ctest: Skipped) when no GPU can run the step.
# usage: sanitize.sh COMPUTE_SANITIZER STEP_EXECUTABLE
set -uo pipefail
sanitizer=$1
step=$2
"$step" --n 1 --iters 1 --warmup 0 >/dev/null 2>&1
case $? in
  0) ;;
  3) echo "SKIPPED: no usable CUDA device for $(basename "$step")"; exit 77 ;;
  *) echo "FAILED: $(basename "$step") --n 1 did not verify"; exit 1 ;;
esac
status=0
for tool in memcheck racecheck synccheck initcheck; do
  for run in "--n 4097 --block 32" "--n 65537 --block 1024" "--n 1000003 --block 256 --type float64"; do
    # one verified run and one timed repetition: every launch path, nothing more
    if "$sanitizer" --tool "$tool" --error-exitcode 99 "$step" $run --iters 1 --warmup 0 >/tmp/sanitize.$$ 2>&1; then
      echo "ok    $tool $run"
    else
      echo "FAIL  $tool $run"; tail -n 30 /tmp/sanitize.$$; status=1
    fi
  done
done
rm -f /tmp/sanitize.$$
exit $status
