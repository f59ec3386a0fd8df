#!/usr/bin/env bash
# Step 10 beside the same kernel with its partials added by atomicAdd (no slots, no combining block),
# at n = 2^20, 2^24 and 2^28, int32 and float32, in one CSV on stdout (step 10's lesson).
# usage: bench/variants/step10_atomic_add.sh [BUILD_BIN_DIR]
set -uo pipefail
bin=${1:-build/bin}
commands=()
for type in int32 float32; do
  for n in 2^20 2^24 2^28; do
    for exe in step10_single_pass step10_atomic_add; do
      commands+=("$bin/$exe --n $n --type $type --iters 200 --csv")
    done
  done
done
exec python3 "$(dirname "${BASH_SOURCE[0]}")/../collect_rows.py" "${commands[@]}"
