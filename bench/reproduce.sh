#!/usr/bin/env bash
# Measures everything in results/<gpu>/ again, then regenerates the README tables and charts.
# usage: bench/reproduce.sh [--only NAME,...] [BUILD_BIN_DIR] [RESULTS_DIR]
#   BUILD_BIN_DIR  where the executables are (default build/bin)
#   RESULTS_DIR    where the results go (default results/<gpu>, e.g. results/h100)
#   --only         a subset, by the names below
# What it writes, in this order (NAME: file):
#   headline: headline.csv            compare --type all --csv
#   headline_cold: headline_cold.csv  compare --type all --csv --flush-l2
#   sweep: sweep.csv                  compare --sweep
#   peers: peers.csv                  bench/peers.py: torch, CuPy, JAX (skipped without python3 and torch)
#   step07_loads: step07_loads.csv    bench/ablation/step07_loads.sh
#   dram_latency: dram_latency.csv    dram_latency
#   loaded_latency: loaded_latency.csv  loaded_latency (the same latency while the GPU streams)
#   spread: spread.csv                the headline again in SPREAD_RUNS (default 5) separate
#                                     processes, with a run column: the run-to-run spread
#   ncu: ncu.csv                      tools/profile_steps.sh (skipped without ncu)
#   race_demo: race_demo.txt          tests/race_demo.sh (skipped without compute-sanitizer)
#   <script>: <script>.csv            each bench/variants/<script>.sh
# then python3 bench/render_results.py RESULTS_DIR.
#
# Every output is written to a temporary file beside its target and moved into place only when
# its command succeeded and wrote something: a failed or interrupted measurement leaves the
# committed file as it was. Without a GPU nothing runs and nothing is touched (exit 3).
# Exit: 0 all done, 1 something failed (named at the end), 2 bad usage or missing build, 3 no GPU.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
usage="usage: bench/reproduce.sh [--only NAME,...] [BUILD_BIN_DIR] [RESULTS_DIR]"
fail_usage() { echo "reproduce.sh: $1" >&2; echo "$usage" >&2; exit 2; }

# --- arguments ------------------------------------------------------------------------------
only=""
positional=()
while (( $# )); do
  case $1 in
    -h|--help) sed -n '2,25p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --only) [[ $# -ge 2 && -n $2 ]] || fail_usage "--only needs a comma-separated list of names"; only=$2; shift 2 ;;
    --only=*) only=${1#--only=}; [[ -n $only ]] || fail_usage "--only needs a comma-separated list of names"; shift ;;
    -*) fail_usage "unknown option '$1'" ;;
    *) positional+=("$1"); shift ;;
  esac
done
(( ${#positional[@]} <= 2 )) || fail_usage "at most two arguments, BUILD_BIN_DIR and RESULTS_DIR; got ${#positional[@]}"

# Everything runs from the repository root, with paths relative to it where they are inside it,
# so that the commands recorded in the results' stamps name no machine's directories.
cd "$root" || exit 2
relative() { local p; p=$(realpath -m "$1"); [[ $p == "$root"/* ]] && echo "${p#"$root"/}" || echo "$p"; }
bin=$(relative "${positional[0]:-build/bin}")
results_arg=${positional[1]:-}
[[ -d $bin ]] || fail_usage "'$bin' is not a directory; build first: cmake --preset default && cmake --build build"

variants=()
for script in bench/variants/*.sh; do [[ -f $script ]] && variants+=("$(basename "$script" .sh)"); done
all_names=(headline headline_cold sweep peers step07_loads dram_latency loaded_latency spread ncu race_demo "${variants[@]}")

selected=("${all_names[@]}")
if [[ -n $only ]]; then
  IFS=, read -r -a selected <<<"$only"
  for name in "${selected[@]}"; do
    [[ " ${all_names[*]} " == *" $name "* ]] || fail_usage "--only: '$name' is not known; accepted: ${all_names[*]}"
  done
fi
wanted() { [[ " ${selected[*]} " == *" $1 "* ]]; }

# The executables the selected measurements need, before anything runs.
need() { [[ -x $bin/$1 ]] || fail_usage "$bin/$1 not found; build it: cmake --build build --target $1"; }
need compare  # also the GPU probe below
wanted step07_loads && { need step07_loads2; need step07_loads4; need step07_loads8; }
wanted dram_latency && need dram_latency
wanted loaded_latency && need loaded_latency
spread_runs=${SPREAD_RUNS:-5}
[[ $spread_runs =~ ^[0-9]+$ ]] && (( spread_runs >= 5 )) || fail_usage "SPREAD_RUNS='$spread_runs': a whole number of at least 5"
wanted race_demo && { need step05_volatile_race_demo; need step05_warp_unroll; }

# --- is there a GPU? ------------------------------------------------------------------------
probe=$("$bin/compare" --steps cub --type int32 --n 1024 --iters 1 --warmup 0 --csv 2>&1)
case $? in
  0) ;;
  3) echo "reproduce.sh: no usable GPU ($(grep -m 1 -i error <<<"$probe")); nothing measured, nothing changed" >&2; exit 3 ;;
  *) echo "reproduce.sh: the GPU check failed: $bin/compare --steps cub --n 1024 said:" >&2; echo "$probe" >&2; exit 1 ;;
esac

# results/<gpu>: the model from the GPU's name, e.g. "NVIDIA H100 80GB HBM3" -> h100.
gpu_slug() {
  local word
  for word in $1; do
    case ${word,,} in nvidia|geforce|rtx|tesla|quadro) continue ;; esac
    word=${word%%-*}; word=${word,,}; echo "${word//[^a-z0-9]/}"; return
  done
  echo gpu
}
if [[ -n $results_arg ]]; then
  results=$(relative "$results_arg")
else
  gpu_name=$(sed -n 's/^# gpu: //p' <<<"$probe" | head -n 1)
  results=results/$(gpu_slug "${gpu_name:-gpu}")
fi
mkdir -p "$results" || { echo "reproduce.sh: cannot create $results" >&2; exit 1; }
echo "reproduce.sh: measuring into $results/ with the executables in $bin/"

# The stamps in every CSV: which commit measured it, and the driver nvidia-smi reports.
# A commit passed in the environment is taken as it is (a copy of the tree, without .git or with
# a .git that is not the copy's own, can say what it was copied from); one read here from git is
# marked +uncommitted when the tracked files differ from it.
if [[ -z ${REDUCTION_COMMIT:-} ]]; then
  REDUCTION_COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
  if [[ $REDUCTION_COMMIT != unknown ]] && ! git diff --quiet HEAD -- 2>/dev/null; then
    REDUCTION_COMMIT+="+uncommitted"  # the numbers do not come from that commit alone
  fi
fi
export REDUCTION_COMMIT
if command -v nvidia-smi >/dev/null 2>&1; then
  REDUCTION_NVIDIA_DRIVER=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1)
  export REDUCTION_NVIDIA_DRIVER
fi

# --- measuring ------------------------------------------------------------------------------
# spread_runs_csv RUNS: the headline measured by RUNS separate processes, one after the other, as
# one CSV: the first run's stamp lines, then compare's header and rows with a run column in front.
# Separate processes, so that what differs from run to run (clocks, where the allocations land)
# differs here too.
spread_runs_csv() {
  local runs=$1 run output
  for (( run = 1; run <= runs; run++ )); do
    output=$("$bin/compare" --type all --csv) || return
    if (( run == 1 )); then
      grep '^#' <<<"$output"
      echo "# runs: $runs separate processes of the command above"
      echo "run,$(grep -v '^#' <<<"$output" | grep -m 1 .)"
    fi
    grep -v '^#' <<<"$output" | grep . | tail -n +2 | sed "s/^/$run,/"
  done
}

updated=() skipped=() failed=()
pending=""  # the temporary file in progress, removed if the script is interrupted
trap '[[ -n $pending ]] && rm -f "$pending"' EXIT
trap 'exit 130' INT TERM

# produce NAME FILE COMMAND...: COMMAND's stdout becomes RESULTS/FILE, only if it exits 0 and
# writes something. With SAVE=1, COMMAND writes the file itself, to the path appended to it, and
# its exit 77 means skipped.
produce() {
  local name=$1 file=$2 rc; shift 2
  if [[ -n ${SAVE:-} ]]; then echo "== $name -> $results/$file"; else echo "== $name -> $results/$file: $*"; fi
  pending=$(mktemp "$results/.$file.XXXXXX") || { failed+=("$name (cannot create a temporary file)"); pending=""; return; }
  if [[ -n ${SAVE:-} ]]; then "$@" "$pending"; else "$@" >"$pending"; fi
  rc=$?
  if [[ -n ${SAVE:-} ]] && (( rc == 77 )); then
    skipped+=("$file ($name.sh skipped)"); rm -f "$pending"; pending=""; return
  elif (( rc == 0 )) && [[ -s $pending ]]; then
    chmod 644 "$pending" && mv -f "$pending" "$results/$file" && updated+=("$file") && pending="" && return
    failed+=("$name (could not move the new file into place)")
  elif (( rc == 0 )); then
    failed+=("$name (wrote nothing)")
  else
    failed+=("$name (exit $rc)")
  fi
  echo "   $name FAILED; $results/$file is left as it was" >&2
  rm -f "$pending"; pending=""
}

have_torch() { command -v python3 >/dev/null 2>&1 && python3 -c "import torch" >/dev/null 2>&1; }
sanitizer=$(command -v compute-sanitizer || true)  # else the one beside nvcc
if [[ -z $sanitizer ]] && command -v nvcc >/dev/null 2>&1; then
  candidate=$(dirname "$(command -v nvcc)")/compute-sanitizer
  [[ -x $candidate ]] && sanitizer=$candidate
fi
for name in "${all_names[@]}"; do
  wanted "$name" || continue
  case $name in
    headline)       produce $name $name.csv "$bin/compare" --type all --csv ;;
    headline_cold)  produce $name $name.csv "$bin/compare" --type all --csv --flush-l2 ;;
    sweep)          produce $name $name.csv "$bin/compare" --sweep ;;
    # right after the sweep, on the same GPU: the ratios in the README's "What you would use instead"
    peers)          if have_torch; then produce $name $name.csv python3 bench/peers.py
                    else skipped+=("peers.csv (python3 with torch not found)"); fi ;;
    step07_loads)   produce $name $name.csv bench/ablation/step07_loads.sh "$bin" ;;
    dram_latency)   produce $name $name.csv "$bin/dram_latency" ;;
    loaded_latency) produce $name $name.csv "$bin/loaded_latency" ;;
    spread)         produce $name $name.csv spread_runs_csv "$spread_runs" ;;
    ncu)            if command -v ncu >/dev/null 2>&1; then produce $name $name.csv tools/profile_steps.sh "$bin"
                    else skipped+=("ncu.csv (ncu not found)"); fi ;;
    race_demo)      if [[ -n $sanitizer ]]; then SAVE=1 produce $name $name.txt tests/race_demo.sh "$sanitizer" \
                      "$bin/step05_volatile_race_demo" "$bin/step05_warp_unroll" --save
                    else skipped+=("race_demo.txt (compute-sanitizer not found)"); fi ;;
    *)              produce $name $name.csv "bench/variants/$name.sh" "$bin" ;;  # bench/variants/*.sh
  esac
done

# --- tables and charts ----------------------------------------------------------------------
# The READMEs show results/h100 (which also gives the grader's speed thresholds), with the H200's
# columns beside it where results/h200 exists: measuring either one renders them. Another GPU's
# results stay in their folder; the command to render is printed.
if (( ${#updated[@]} )) && [[ $results == results/h100 || $results == results/h200 ]]; then
  echo "== render: python3 bench/render_results.py $results"
  python3 bench/render_results.py "$results" || failed+=("render_results.py (exit $?)")
  if [[ $results == results/h100 && " ${updated[*]} " == *" headline.csv "* ]]; then
    echo "== thresholds: python3 tools/grade_thresholds.py $results/headline.csv"
    python3 tools/grade_thresholds.py "$results/headline.csv" || failed+=("grade_thresholds.py (exit $?)")
  fi
elif (( ${#updated[@]} )); then
  echo "results in $results/; the READMEs show results/h100. To see these instead:"
  echo "  python3 bench/render_results.py $results    (rewrites the READMEs' generated blocks)"
fi

echo
(( ${#updated[@]} )) && echo "updated: ${updated[*]}"
(( ${#skipped[@]} )) && printf 'skipped: %s\n' "${skipped[@]}"
if (( ${#failed[@]} )); then
  printf 'FAILED:  %s\n' "${failed[@]}" >&2
  echo "The files of failed measurements were not changed." >&2
  exit 1
fi
exit 0
