#!/usr/bin/env bash
# The multi-GPU step's test script, tested without a GPU: a fake nvidia-smi that lists K GPUs, a fake
# step executable that exits 0, a fake cases program that says which K and launch form it was run
# with, and a fake mpirun that drops its own options and passes -np on. Each mode must run the
# cases of every K it owns (K = 1 in `one`, K = 2 and K = 4 in `single` and `mpi`; `one` in one
# process and under MPI): a K that vanishes (a function called before it is defined, a mode that
# ends early) fails here. That the cases program runs every case is step15_case_list's business;
# whether the real program passes them is the GPU tests'.
#
# usage: multi_gpu_script_test.sh STEP_SCRIPT
set -uo pipefail
script=$1
fakes=$(mktemp -d)
trap 'rm -rf "$fakes"' EXIT

cat >"$fakes/nvidia-smi" <<'FAKE'
#!/usr/bin/env bash
for ((i = 0; i < FAKE_GPUS; ++i)); do echo "GPU $i: fake GPU (UUID: GPU-$i)"; done
FAKE
cat >"$fakes/step" <<'FAKE'
#!/usr/bin/env bash
exit 0
FAKE
cat >"$fakes/cases" <<'FAKE'
#!/usr/bin/env bash
if [ -n "${FAKE_NP:-}" ]; then echo "cases K=$FAKE_NP mpi"; exit 0; fi
[ "${1:-}" = --gpus ] && for k in ${2//,/ }; do echo "cases K=$k process"; done
exit 0
FAKE
cat >"$fakes/mpirun" <<'FAKE'
#!/usr/bin/env bash
while [ $# -gt 0 ]; do
  case $1 in
    --allow-run-as-root | --oversubscribe) shift ;;
    -x) shift 2 ;;
    -np) export FAKE_NP=$2; shift 2 ;;
    *) break ;;
  esac
done
exec "$@"
FAKE
chmod +x "$fakes/nvidia-smi" "$fakes/step" "$fakes/cases" "$fakes/mpirun"

status=0
# listed GPUS MODE FORM K...: with GPUS fake GPUs, MODE must run the cases of each K in launch FORM
listed() {
  local gpus=$1 mode=$2 form=$3 out missing=0 k
  shift 3
  out=$(FAKE_GPUS=$gpus PATH="$fakes:$PATH" bash "$script" "$mode" "$fakes/step" "$fakes/mpirun" "$fakes/cases" 2>&1)
  for k in "$@"; do
    grep -q "^cases K=$k $form\$" <<<"$out" || { echo "FAIL  $mode with $gpus GPU(s): the cases of K=$k ($form) not run"; missing=1; }
  done
  if [ "$missing" = 0 ]; then
    echo "ok    $mode with $gpus GPU(s) runs the cases of K=$* ($form)"
  else
    echo "$out" | tail -n 15
    status=1
  fi
}

listed 1 one process 1
listed 1 one mpi 1
listed 2 single process 2
listed 4 single process 2 4
listed 2 mpi mpi 2
listed 4 mpi mpi 2 4

# and a mode that cannot run says Skipped (77), never passes
FAKE_GPUS=0 PATH="$fakes:$PATH" bash "$script" one "$fakes/step" >/dev/null 2>&1
got=$?
if [ "$got" = 77 ]; then echo "ok    one without a GPU: skipped"; else echo "FAIL  one without a GPU: exit $got, expected 77"; status=1; fi
FAKE_GPUS=1 PATH="$fakes:$PATH" bash "$script" single "$fakes/step" >/dev/null 2>&1
got=$?
if [ "$got" = 77 ]; then echo "ok    single with one GPU: skipped"; else echo "FAIL  single with one GPU: exit $got, expected 77"; status=1; fi
exit $status
