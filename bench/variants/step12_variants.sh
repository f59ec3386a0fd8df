#!/usr/bin/env bash
# Step 12 beside step 11 and beside itself without the warp instruction (step12_shuffle_warps), at
# one tile (2^12) and at sizes of the multi-block path, int32 and float32, in one CSV on stdout
# (step 12's lesson: how much of the gain the instruction for 32-bit integers gives).
# usage: bench/variants/step12_variants.sh [BUILD_BIN_DIR]
set -uo pipefail
bin=${1:-build/bin}
commands=()
for type in int32 float32; do
  for n in 2^12 2^13 2^16 2^20 2^24; do
    for exe in step11_any_operator step12_small_n step12_shuffle_warps; do
      commands+=("$bin/$exe --n $n --type $type --iters 1000 --csv")
    done
  done
done
exec python3 "$(dirname "${BASH_SOURCE[0]}")/../collect_rows.py" "${commands[@]}"
