#!/usr/bin/env bash
# The tests of step14_multi_gpu, run through the program itself: it verifies every GPU's total
# against the harness's reference and exits 1 if one is wrong, so each case here checks an exit code.
#
#   usage    the command-line checks made before any GPU is touched (runs anywhere)
#   single   one process driving K GPUs (--gpus K): unequal shards (n not divisible by K, n < K,
#            n = 1), every type and operator, --from-one-gpu, --input, and --gpus past the GPUs present
#   mpi      one MPI rank per GPU: the same reduction, --gpus under mpirun, more ranks than GPUs
#   one      K = 1 on any machine with a GPU: --gpus 1 (every type and operator, NaN inputs), and
#            one MPI rank where MPI is found
#
# Exit 77 (ctest: Skipped), with the reason, when the machine cannot run the mode: no GPU (one),
# fewer than two GPUs (single, mpi: the multi-GPU cases would prove nothing), or no MPI launcher. Never a pass for that.
#
# usage: step14_multi_gpu.sh MODE STEP13_EXECUTABLE [MPIEXEC]
set -uo pipefail
mode=$1
exe=$2
mpiexec=${3:-}
status=0
ran=0  # cases run: a mode that reaches its end having run none fails (a case must never vanish silently)
small="--iters 3 --warmup 1"

# expect CODE DESCRIPTION COMMAND...: the command must exit with CODE within 5 minutes.
expect() {
  local want=$1 what=$2
  shift 2
  local out got
  out=$(timeout 300 "$@" 2>&1)
  got=$?
  ran=$((ran + 1))
  if [ "$got" = "$want" ]; then
    echo "ok    $what"
  else
    echo "FAIL  $what: exit $got, expected $want"
    echo "$out" | tail -n 20
    status=1
  fi
}

# The cases of one launch form: $@ is the command that starts the program on K GPUs.
cases() {
  local k=$1
  shift
  for type in int32 float32 float64; do
    for op in sum max min; do
      expect 0 "K=$k $type $op n=1 (one shard, $((k - 1)) empty)" "$@" --type "$type" --op "$op" --n 1 $small
      expect 0 "K=$k $type $op n=2^20+3 (unequal shards)" "$@" --type "$type" --op "$op" --n 1048579 $small
    done
  done
  expect 0 "K=$k int32 n=K-1 (the last shard empty)" "$@" --n $((k - 1 > 0 ? k - 1 : 1)) $small
  expect 0 "K=$k int32 n=2^24+1, alternating" "$@" --n 16777217 --pattern alternating $small
  expect 0 "K=$k int32 --from-one-gpu n=2^24+1" "$@" --from-one-gpu --n 16777217 $small
  expect 0 "K=$k float32 --from-one-gpu n=1000003" "$@" --from-one-gpu --type float32 --n 1000003 $small
  expect 0 "K=$k float64 --csv" "$@" --type float64 --n 1000003 --csv $small
  expect 0 "K=$k float32 --json" "$@" --type float32 --n 1000003 --json $small
  local file
  file=$(mktemp)
  # 1000003 int32 values: a raw file read once by rank 0 and split over the GPUs
  head -c $((4 * 1000003)) /dev/urandom >"$file"
  expect 0 "K=$k int32 --input (1000003 random values)" "$@" --input "$file" $small
  # five float32 values with a NaN first, then last: max and min skip it (2 and -1), on every shard split
  printf '\x00\x00\xc0\x7f\x00\x00\x00\x3f\x00\x00\x00\x40\x00\x00\x80\xbf\x00\x00\x80\x3e' >"$file"
  expect 0 "K=$k float32 max, NaN first" "$@" --type float32 --op max --input "$file" $small
  expect 0 "K=$k float32 min, NaN first" "$@" --type float32 --op min --input "$file" $small
  printf '\x00\x00\x00\x3f\x00\x00\x00\x40\x00\x00\x80\xbf\x00\x00\x80\x3e\x00\x00\xc0\x7f' >"$file"
  expect 0 "K=$k float32 max, NaN last" "$@" --type float32 --op max --input "$file" $small
  expect 0 "K=$k float32 min, NaN last" "$@" --type float32 --op min --input "$file" $small
  rm -f "$file"
}

# finish: the exit status, after a line that says how many cases ran; none at all is a failure.
finish() {
  echo "$ran case(s) run in mode $mode"
  if [ "$ran" -eq 0 ]; then
    echo "FAIL  mode $mode ran no case"
    exit 1
  fi
  exit $status
}

gpu_count() {
  command -v nvidia-smi >/dev/null 2>&1 || { echo 0; return; }
  nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true
}

if [ "$mode" = usage ]; then
  expect 2 "--gpus abc" "$exe" --gpus abc
  expect 2 "--gpus 0" "$exe" --gpus 0
  expect 2 "--gpus without a value" "$exe" --gpus
  expect 2 "--flush-l2 (not supported)" "$exe" --flush-l2
  expect 2 "--device 1 (the GPUs are 0 .. K-1)" "$exe" --device 1
  expect 2 "--gpus under an MPI launch" env OMPI_COMM_WORLD_SIZE=2 "$exe" --gpus 2
  expect 2 "an unknown option still reaches the course's parser" "$exe" --gpus 2 --bogus
  expect 0 "--help" "$exe" --help
  finish
fi

gpus=$(gpu_count)
if [ "$mode" = one ]; then
  # K = 1 is a valid run (--gpus 1, or one MPI rank): the whole input is one shard
  if [ "$gpus" -lt 1 ]; then
    echo "SKIPPED: step14_multi_gpu's one-GPU tests need a GPU; this machine has none"
    exit 77
  fi
  cases 1 "$exe" --gpus 1
  if [ -n "$mpiexec" ] && [ -x "$mpiexec" ]; then
    launch=("$mpiexec")
    [ "$(id -u)" = 0 ] && launch+=(--allow-run-as-root)
    [ -n "${NCCL_NVLS_ENABLE+set}" ] && launch+=(-x NCCL_NVLS_ENABLE)
    expect 0 "one MPI rank, float32 max n=1000003" "${launch[@]}" -np 1 "$exe" --type float32 --op max --n 1000003 $small
  fi
  finish
fi
if [ "$gpus" -lt 2 ]; then
  echo "SKIPPED: step14_multi_gpu's $mode tests need at least 2 GPUs; this machine has $gpus" \
       "(with one GPU the program itself runs with K = 1)"
  exit 77
fi

case $mode in
  single)
    cases 2 "$exe" --gpus 2
    [ "$gpus" -gt 2 ] && cases "$gpus" "$exe" --gpus "$gpus"
    expect 2 "--gpus $((gpus + 1)), more than the GPUs present" "$exe" --gpus $((gpus + 1)) --n 1000
    ;;
  mpi)
    if [ -z "$mpiexec" ] || [ ! -x "$mpiexec" ]; then
      echo "SKIPPED: no MPI launcher (CMake found no MPI): step14_multi_gpu was built for one process only"
      exit 77
    fi
    launch=("$mpiexec")
    [ "$(id -u)" = 0 ] && launch+=(--allow-run-as-root)
    [ -n "${NCCL_NVLS_ENABLE+set}" ] && launch+=(-x NCCL_NVLS_ENABLE)  # passed on, never unset
    cases 2 "${launch[@]}" -np 2 "$exe"
    [ "$gpus" -gt 2 ] && cases "$gpus" "${launch[@]}" -np "$gpus" "$exe"
    expect 2 "--gpus under mpirun" "${launch[@]}" -np 2 "$exe" --gpus 2 --n 1000
    expect 3 "$((gpus + 1)) ranks on a host with $gpus GPUs" "${launch[@]}" --oversubscribe -np $((gpus + 1)) "$exe" --n 1000
    ;;
  *)
    echo "unknown mode '$mode' (usage, one, single or mpi)"
    exit 2
    ;;
esac
finish
