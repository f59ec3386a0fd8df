#!/usr/bin/env bash
# Nsight Compute counters that explain each step, at n = 2^24 int32, block 256, as a stamped CSV (tools/README.md).
# usage: tools/profile_steps.sh [BUILD_BIN_DIR]   (default build/bin; needs a GPU, ncu and counter access)
set -uo pipefail
bin=${1:-build/bin}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
kernel_regex=${PROFILE_KERNEL_REGEX:-reduce}  # passes over the harness's own kernels
command -v ncu >/dev/null 2>&1 ||
  { echo "profile_steps.sh: ncu (Nsight Compute) not found on PATH; it comes with the CUDA Toolkit" >&2; exit 3; }
[[ -d $bin ]] || { echo "profile_steps.sh: '$bin' is not a directory; build first or name the bin directory" >&2; exit 2; }

list=$(grep -v "^#" "$root/tools/ncu_metrics.csv" | tail -n +2 | cut -d, -f1 | paste -sd, -)  # what each shows: there
status=0 found=0
log=$(mktemp) || { echo "profile_steps.sh: cannot create a temporary file" >&2; exit 1; }
trap 'rm -f "$log"' EXIT
steps=$(cd "$root" && python3 -m course.steps single) || exit 2
for step in $steps; do
  exe=$bin/$step
  [[ -x $exe ]] || continue
  if (( ! found++ )); then  # the stamp: the GPU and versions as a tiny run prints them, then how counters were taken
    output=$("$exe" --csv --n 1024 --iters 1 --warmup 0 2>/dev/null) ||
      { echo "profile_steps.sh: $step --csv --n 1024 failed; no stamp to print" >&2; exit 1; }
    grep -E '^# (gpu|compute_capability|sms|l2_mib|peak_gbps|cuda_driver_api|cuda_runtime|nvidia_driver|date_utc|commit):' <<<"$output"
    printf '%s\n' "# command: tools/profile_steps.sh $bin" "# profiler: $(ncu --version 2>/dev/null | tail -n 1)" \
      "# clocks: ncu's default --clock-control base (clocks locked to base); caches flushed before the launch" \
      "# launch: the first kernel matching '$kernel_regex' of --n 2^24 --seed 1 --iters 1 --warmup 0, int32, block 256" \
      "step,metric,value"
  fi
  ncu --metrics "$list" --kernel-name "regex:$kernel_regex" --launch-count 1 --csv --print-units base \
      "$exe" --n 2^24 --seed 1 --iters 1 --warmup 0 >"$log" 2>&1
  rc=$?
  rows=$(grep -E '^"[0-9]' "$log" |
         awk -F'","' -v step="$step" '{gsub(/"/, "", $NF); gsub(/,/, "", $NF); print step "," $(NF-2) "," $NF}')
  if [[ $rc -ne 0 || -z $rows ]]; then
    echo "profile_steps.sh: $step: ncu exit $rc, $( [[ -z $rows ]] && echo "no kernel matching '$kernel_regex' profiled" || echo "counters incomplete")" >&2
    grep -E '==ERROR==|==WARNING==|error' "$log" | head -n 5 >&2
    status=1
  fi
  [[ -n $rows ]] && echo "$rows"
done
(( found )) ||
  { echo "profile_steps.sh: no step executable (stepNN_name) in '$bin'; build first: cmake --build build" >&2; exit 2; }
exit $status
