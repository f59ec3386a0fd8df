#!/usr/bin/env bash
# Step 10 beside its alternatives: step 09 (two launches), step 10 (the last block waits for the
# slots), step 10's kernel as a cooperative launch, the last-ticket block after __threadfence, and
# step 09's two launches with programmatic dependent launch and as a replayed CUDA graph; at
# n = 2^20, 2^24 and 2^28, int32 and float32, in one CSV on stdout (step 10's lesson, its default).
# usage: bench/variants/step10_alternatives.sh [BUILD_BIN_DIR]
set -uo pipefail
bin=${1:-build/bin}
commands=()
for type in int32 float32; do
  for n in 2^20 2^24 2^28; do
    for exe in step09_vector_loads step10_single_pass step10_cooperative step10_threadfence step09_pdl step09_graph; do
      commands+=("$bin/$exe --n $n --type $type --iters 200 --csv")
    done
  done
done
exec python3 "$(dirname "${BASH_SOURCE[0]}")/../collect_rows.py" "${commands[@]}"
