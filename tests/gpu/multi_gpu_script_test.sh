#!/usr/bin/env bash
# The multi-GPU step's test script, tested without a GPU: a fake nvidia-smi that lists K GPUs, a fake
# step executable that exits 0, and a fake mpirun that drops its own options. Each mode must reach
# and list every case it owns (K = 1 in `one`, K = 2 and K = 4 in `single` and `mpi`): a case that
# vanishes (a function called before it is defined, a mode that ends early) fails here. Whether the
# real program passes those cases is the GPU tests' business, not this one's.
#
# usage: multi_gpu_script_test.sh STEP_SCRIPT
set -uo pipefail
script=$1
fakes=$(mktemp -d)
trap 'rm -rf "$fakes"' EXIT

cat >"$fakes/nvidia-smi" <<'EOF'
#!/usr/bin/env bash
for ((i = 0; i < FAKE_GPUS; ++i)); do echo "GPU $i: fake GPU (UUID: GPU-$i)"; done
EOF
cat >"$fakes/step" <<'EOF'
#!/usr/bin/env bash
exit 0
EOF
cat >"$fakes/mpirun" <<'EOF'
#!/usr/bin/env bash
while [ $# -gt 0 ]; do
  case $1 in
    --allow-run-as-root | --oversubscribe) shift ;;
    -x | -np) shift 2 ;;
    *) break ;;
  esac
done
exec "$@"
EOF
chmod +x "$fakes/nvidia-smi" "$fakes/step" "$fakes/mpirun"

status=0
# listed GPUS MODE K: with GPUS fake GPUs, MODE must report every case of K GPUs as run
listed() {
  local gpus=$1 mode=$2 k=$3 out missing=0
  out=$(FAKE_GPUS=$gpus PATH="$fakes:$PATH" bash "$script" "$mode" "$fakes/step" "$fakes/mpirun" 2>&1)
  for type in int32 float32 float64; do
    for op in sum max min; do
      for n in "n=1 " "n=2^20+3"; do
        grep -q "^ok    K=$k $type $op $n" <<<"$out" || { echo "FAIL  $mode with $gpus GPU(s): no case 'K=$k $type $op $n'"; missing=1; }
      done
    done
  done
  for what in "int32 --input" "float32 min, NaN last" "int32 --from-one-gpu"; do
    grep -q "^ok    K=$k $what" <<<"$out" || { echo "FAIL  $mode with $gpus GPU(s): no case 'K=$k $what'"; missing=1; }
  done
  if [ "$missing" = 0 ]; then
    echo "ok    $mode with $gpus GPU(s) lists the K=$k cases"
  else
    echo "$out" | tail -n 15
    status=1
  fi
}

listed 1 one 1
listed 2 single 2
listed 4 single 4
listed 2 mpi 2
listed 4 mpi 4

# and a mode that cannot run says Skipped (77), never passes
FAKE_GPUS=0 PATH="$fakes:$PATH" bash "$script" one "$fakes/step" >/dev/null 2>&1
got=$?
if [ "$got" = 77 ]; then echo "ok    one without a GPU: skipped"; else echo "FAIL  one without a GPU: exit $got, expected 77"; status=1; fi
FAKE_GPUS=1 PATH="$fakes:$PATH" bash "$script" single "$fakes/step" >/dev/null 2>&1
got=$?
if [ "$got" = 77 ]; then echo "ok    single with one GPU: skipped"; else echo "FAIL  single with one GPU: exit $got, expected 77"; status=1; fi
exit $status
