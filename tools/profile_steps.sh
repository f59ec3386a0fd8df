#!/usr/bin/env bash
# Nsight Compute counters that explain each step, for the first (largest) kernel launch of every
# step at n = 2^24 int32, block 256. Prints "step,metric,value" lines.
# usage: tools/profile_steps.sh [build/bin]     (needs a GPU and ncu, and permission to profile)
set -uo pipefail
bin=${1:-build/bin}
metrics=(
  gpu__time_duration.sum                                               # kernel time under the profiler
  dram__throughput.avg.pct_of_peak_sustained_elapsed                   # how busy DRAM was
  smsp__inst_executed.sum                                              # warp instructions executed
  smsp__thread_inst_executed_per_inst_executed.ratio                   # active threads per instruction (divergence)
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum             # shared-memory load bank conflicts
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum             # shared-memory store bank conflicts
  smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio     # waiting at __syncthreads()
  smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio  # waiting on global loads
  sm__warps_active.avg.pct_of_peak_sustained_active                    # achieved occupancy
)
list=$(IFS=,; echo "${metrics[*]}")
for exe in "$bin"/step0*; do
  step=$(basename "$exe")
  ncu --metrics "$list" --launch-count 1 --csv --print-units base "$exe" --n 2^24 --seed 1 --iters 1 --warmup 0 2>/dev/null |
    grep -E '^"[0-9]' | awk -F'","' -v step="$step" '{gsub(/"/, "", $NF); gsub(/,/, "", $NF); print step "," $(NF-2) "," $NF}'
done
