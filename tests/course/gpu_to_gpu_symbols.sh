#!/usr/bin/env bash
# compare's library of cub_gpu_to_gpu (course/CMakeLists.txt) is compiled against a newer CCCL than the rest of the
# program. None of that CCCL's functions may be visible outside it, or the dynamic linker could bind the program's
# calls of an inline function to the other CCCL's definition: it exports gpu_to_gpu::sums() and nothing of CCCL.
# usage: tests/course/gpu_to_gpu_symbols.sh NM LIBRARY
set -euo pipefail
nm="$1"
library="$2"
exported="$("$nm" -D --defined-only -C "$library")"
echo "$exported"
if grep -E '(^| )(cub|cuda|thrust|nv)::' <<<"$exported" >&2; then
  echo "gpu_to_gpu_symbols: FAIL: $library exports CCCL's symbols (above): build it with hidden visibility" >&2
  exit 1
fi
grep -q 'reduction::gpu_to_gpu::sums()' <<<"$exported" ||
  { echo "gpu_to_gpu_symbols: FAIL: $library does not export reduction::gpu_to_gpu::sums()" >&2; exit 1; }
echo "gpu_to_gpu_symbols: $library exports reduction::gpu_to_gpu::sums() and nothing of CCCL"
