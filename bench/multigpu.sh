#!/usr/bin/env bash
# Measures step15_multi_gpu and the benchmarks for results/h200x2/ (h200x4/, h200x8/ on a host of 4 or 8 GPUs):
# step15.csv (K = 1 and each K of 2, 4, 8 the host has; n = 2^20 .. 2^32; int32, float32; --gpus K, one MPI rank per
# GPU where mpirun is, --from-one-gpu; one stamp, a row a run), combine.csv, allreduce.csv (every GPU of the host),
# exact_bits.csv (step 14's bit table, with step 15 at every K: bench/exact_bits.py), nvlink.txt and topology.txt
# (the link limit in their stamps). About 5 minutes on two H200s; NCCL_NVLS_ENABLE is
# passed on to every rank as it is set. Run from the repo root; BUILD_DIR is build-gpu unless given.
# --sizes "24 28 32" times only those exponents of 2; --forms "process mpi" only those launch forms
# (process: --gpus K; mpi: one rank per GPU; one-gpu: --from-one-gpu): on 4 or 8 GPUs the whole set
# takes longer than one 10-minute run.
set -uo pipefail
usage="usage: bench/multigpu.sh [--sizes \"E ...\"] [--forms \"process mpi one-gpu\"] OUTDIR [BUILD_DIR]"
exponents="20 22 24 26 28 30 32" forms="process mpi one-gpu"
while [ $# -gt 0 ]; do
  case $1 in
    --sizes) [ $# -ge 2 ] && [[ $2 =~ ^[0-9]+( [0-9]+)*$ ]] || { echo "$usage" >&2; exit 2; }; exponents=$2; shift 2 ;;
    --forms) [ $# -ge 2 ] && [[ $2 =~ ^(process|mpi|one-gpu)( (process|mpi|one-gpu))*$ ]] || { echo "$usage" >&2; exit 2; }
             forms=$2; shift 2 ;;
    -*) echo "$usage" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "$usage" >&2; exit 2; }
out=$1 bin=${2:-build-gpu}/bin
form() { [[ " $forms " == *" $1 "* ]]; }  # form NAME: whether NAME was asked for
for p in step15_multi_gpu combine_bench allreduce_bench; do
  [ -x "$bin/$p" ] || { echo "multigpu.sh: $bin/$p is missing; build the tree first (NCCL needed)" >&2; exit 2; }
done
mkdir -p "$out" && [ -w "$out" ] || { echo "multigpu.sh: cannot write to '$out'" >&2; exit 2; }
command -v nvidia-smi >/dev/null 2>&1 || { echo "multigpu.sh: nvidia-smi not found: no NVIDIA GPU here" >&2; exit 3; }
gpus=$(nvidia-smi -L | grep -c '^GPU')
[ "$gpus" -ge 2 ] || echo "multigpu.sh: only $gpus GPU here: the K = 2 rows and the benchmarks' comparisons need two" >&2

export REDUCTION_COMMIT=${REDUCTION_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
REDUCTION_NVIDIA_DRIVER=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n 1)
# The link limit: the per-direction GB/s of GPU 0's NVLinks, summed, as `nvidia-smi nvlink -s` lists them.
nvidia-smi nvlink -s >"$out/nvlink.txt" 2>&1
nvidia-smi topo -m >"$out/topology.txt" 2>&1
REDUCTION_NVLINK_GBPS=$(awk '/^GPU /{gpu++} gpu==1 && /Link [0-9]+:.*GB\/s/{for(i=1;i<=NF;i++) if($(i+1)=="GB/s") s+=$i} END{if(s>0) printf "%.1f", s}' "$out/nvlink.txt")
REDUCTION_TOPOLOGY=$(awk 'NR==2{print; exit}' "$out/topology.txt" | tr -s ' \t' ' ')  # GPU0's row: how it reaches GPU1
export REDUCTION_NVIDIA_DRIVER REDUCTION_NVLINK_GBPS REDUCTION_TOPOLOGY
echo "NVLink per direction, GPU 0: ${REDUCTION_NVLINK_GBPS:-unknown} GB/s" >&2

mpi_flags=()  # mpirun's, after -np K
[ "$(id -u)" = 0 ] && mpi_flags+=(--allow-run-as-root)
[ -n "${NCCL_NVLS_ENABLE+set}" ] && mpi_flags+=(-x NCCL_NVLS_ENABLE)
command -v mpirun >/dev/null 2>&1 || echo "multigpu.sh: no mpirun: the one-rank-per-GPU rows are left out" >&2

status=0 count=0
rows=$(mktemp -d)
trap 'rm -rf "$rows"' EXIT
step() {  # step RUN_NAME COMMAND...: one CSV run, kept for step15.csv
  echo "step15: $1" >&2
  shift
  count=$((count + 1))
  local file=$rows/$(printf %03d $count).csv
  if ! "$@" --csv >"$file" 2>"$rows/err"; then
    echo "multigpu.sh: '$*' failed: $(tail -n 3 "$rows/err")" >&2
    rm -f "$file"
    status=1
  fi
}
for type in int32 float32; do
  for exponent in $exponents; do
    args=(--type "$type" --n "2^$exponent" --iters "$([ "$exponent" -ge 30 ] && echo 20 || echo 100)" --seed 42)
    step "K=1 $type 2^$exponent" "$bin/step15_multi_gpu" --gpus 1 "${args[@]}"
    for k in 2 4 8; do  # every K this host has GPUs for
      [ "$gpus" -ge "$k" ] || continue
      form process && step "K=$k one process $type 2^$exponent" "$bin/step15_multi_gpu" --gpus "$k" "${args[@]}"
      form one-gpu && step "K=$k from GPU 0 $type 2^$exponent" "$bin/step15_multi_gpu" --gpus "$k" --from-one-gpu "${args[@]}"
      form mpi && command -v mpirun >/dev/null 2>&1 &&
        step "K=$k MPI $type 2^$exponent" mpirun -np "$k" "${mpi_flags[@]}" "$bin/step15_multi_gpu" "${args[@]}"
    done
  done
done
# One stamp (the first run's, its command replaced by this script's), one header, every row.
first=$(ls "$rows"/[0-9]*.csv 2>/dev/null | head -n 1)
if [ -n "$first" ]; then
  grep '^#' "$first" | sed 's|^# command: .*|# command: bench/multigpu.sh (step15_multi_gpu at K = 1 .. '"$gpus"', launch forms: '"$forms"')|' >"$out/step15.csv"
  grep -v '^#' "$first" | head -n 1 >>"$out/step15.csv"
  for file in "$rows"/[0-9]*.csv; do grep -v '^#' "$file" | tail -n +2; done >>"$out/step15.csv"
fi

if [ "$gpus" -ge 2 ]; then
  echo "combine: $gpus GPUs" >&2
  "$bin/combine_bench" --gpus "$gpus" --iters 200 >"$out/combine.csv" || status=1
  echo "allreduce: $gpus GPUs, 4 B .. 1 GiB" >&2
  "$bin/allreduce_bench" --gpus "$gpus" --iters 20 >"$out/allreduce.csv" || status=1
  echo "exact_bits: one float sum's bits per block size, step 15 at K = 1 .. $gpus" >&2
  python3 -m bench.exact_bits "$bin" >"$out/exact_bits.csv" || status=1
fi
echo "multigpu.sh: results in $out ($([ $status = 0 ] && echo all verified || echo SOME RUNS FAILED))" >&2
exit $status
