#!/usr/bin/env bash
# The tests of step15_multi_gpu. The GPU cases run in one process per launch form: step15_cases
# (tests/gpu/step15_cases.cu) makes the team once per K and runs every case on it with the step's
# own harness, naming each case that fails. What only a fresh process shows runs here, one process
# per case, each checked by its exit code.
#
#   usage    the command-line checks made before any GPU is touched (runs anywhere)
#   one      K = 1 on any machine with a GPU: every case with --gpus 1, and under one MPI rank
#            where MPI is found
#   single   one process driving K GPUs: every case for K = 2 and for K = every GPU present, then
#            --gpus past the GPUs present
#   mpi      one MPI rank per GPU: every case for K = 2 and for K = every GPU, then --gpus under
#            mpirun and more ranks than GPUs
#
# Exit 77 (ctest: Skipped), with the reason, when the machine cannot run the mode: no GPU (one),
# fewer than two GPUs (single, mpi: the multi-GPU cases would prove nothing), or no MPI launcher. Never a pass for that.
#
# usage: step15_multi_gpu.sh MODE STEP_EXECUTABLE [MPIEXEC [CASES_EXECUTABLE]]
set -uo pipefail
mode=$1
exe=$2
mpiexec=${3:-}
cases_exe=${4:-}
status=0
ran=0  # checks run: a mode that reaches its end having run none fails (a case must never vanish silently)

# expect CODE DESCRIPTION COMMAND...: the command must exit with CODE within 2 minutes.
expect() {
  local want=$1 what=$2
  shift 2
  local out got
  out=$(timeout 120 "$@" 2>&1)
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

# every_case DESCRIPTION COMMAND...: step15_cases, whose every case prints its own ok or FAIL line
# (a case that hangs ends it within seconds, named); it must exit 0.
every_case() {
  local what=$1 got
  shift
  timeout 600 "$@" 2>&1
  got=$?
  ran=$((ran + 1))
  if [ "$got" = 0 ]; then
    echo "ok    $what"
  else
    echo "FAIL  $what: exit $got, expected 0"
    status=1
  fi
}

# finish: the exit status, after a line that says how many cases ran; none at all is a failure.
finish() {
  echo "$ran check(s) run in mode $mode"
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
need_cases() {
  if [ -z "$cases_exe" ] || [ ! -x "$cases_exe" ]; then
    echo "FAIL  mode $mode needs the cases program (step15_cases), and '$cases_exe' is not one"
    exit 1
  fi
}

mpi_launch() {  # mpi_launch RANKS: the launcher line of RANKS ranks, NCCL's setting passed on
  launch=("$mpiexec")
  [ "$(id -u)" = 0 ] && launch+=(--allow-run-as-root)
  [ -n "${NCCL_NVLS_ENABLE+set}" ] && launch+=(-x NCCL_NVLS_ENABLE)  # passed on, never unset
  launch+=(-np "$1")
}

if [ "$mode" = one ]; then
  # K = 1 is a valid run (--gpus 1, or one MPI rank): the whole input is one shard
  if [ "$gpus" -lt 1 ]; then
    echo "SKIPPED: step15_multi_gpu's one-GPU tests need a GPU; this machine has none"
    exit 77
  fi
  need_cases
  every_case "every case, K=1, one process (--gpus 1)" "$cases_exe" --gpus 1
  if [ -n "$mpiexec" ] && [ -x "$mpiexec" ]; then
    mpi_launch 1
    every_case "every case, K=1, one MPI rank" "${launch[@]}" "$cases_exe"
  fi
  finish
fi
if [ "$gpus" -lt 2 ]; then
  echo "SKIPPED: step15_multi_gpu's $mode tests need at least 2 GPUs; this machine has $gpus" \
       "(with one GPU the program itself runs with K = 1)"
  exit 77
fi

need_cases
case $mode in
  single)
    ks=2
    [ "$gpus" -gt 2 ] && ks="2,$gpus"
    every_case "every case, K=$ks, one process" "$cases_exe" --gpus "$ks"
    expect 2 "--gpus $((gpus + 1)), more than the GPUs present" "$exe" --gpus $((gpus + 1)) --n 1000
    ;;
  mpi)
    if [ -z "$mpiexec" ] || [ ! -x "$mpiexec" ]; then
      echo "SKIPPED: no MPI launcher (CMake found no MPI): step15_multi_gpu was built for one process only"
      exit 77
    fi
    mpi_launch 2
    every_case "every case, K=2, one MPI rank per GPU" "${launch[@]}" "$cases_exe"
    if [ "$gpus" -gt 2 ]; then
      mpi_launch "$gpus"
      every_case "every case, K=$gpus, one MPI rank per GPU" "${launch[@]}" "$cases_exe"
    fi
    mpi_launch 2
    expect 2 "--gpus under mpirun" "${launch[@]}" "$exe" --gpus 2 --n 1000
    mpi_launch $((gpus + 1))
    expect 3 "$((gpus + 1)) ranks on a host with $gpus GPUs" "${launch[@]}" --oversubscribe "$exe" --n 1000
    ;;
  *)
    echo "unknown mode '$mode' (usage, one, single or mpi)"
    exit 2
    ;;
esac
finish
