#!/usr/bin/env bash
# Step 08's warp sum three ways (shuffles, cooperative_groups::reduce, __reduce_add_sync for int32)
# beside step 07, at n = 2^24, int32 and float32, in one CSV on stdout (step 08's lesson).
# usage: bench/variants/step08_variants.sh [BUILD_BIN_DIR]
set -uo pipefail
bin=${1:-build/bin}
commands=()
for type in int32 float32; do
  for exe in step07_multi_level step08_warp_shuffle step08_cg_reduce step08_reduce_add_sync; do
    commands+=("$bin/$exe --n 2^24 --type $type --iters 200 --csv")
  done
done
exec python3 "$(dirname "${BASH_SOURCE[0]}")/../collect_rows.py" "${commands[@]}"
