#!/usr/bin/env bash
# Measures everything in results/<gpu>/ again, then regenerates the README tables and charts.
# usage: bench/reproduce.sh [--only NAME,...] [BUILD_BIN_DIR] [RESULTS_DIR]
#   BUILD_BIN_DIR  where the executables are (default build/bin)
#   RESULTS_DIR    where the results go (default results/<gpu>, e.g. results/h100)
#   --only         a subset of these NAMEs; each writes RESULTS_DIR/NAME.csv, in this order, from
#     headline, headline_cold       compare --type all --csv, and the same with --flush-l2
#     sweep                         compare --sweep
#     exact_sweep_float32, _float64 compare --sweep of steps 13, 14, CUB and CUB gpu_to_gpu, a type each (step 14)
#     exact_bits                    python3 -m bench.exact_bits: one sum's bits per block size and K (step 14's lesson
#                                   reads bench/multigpu.sh's, from a host of several GPUs)
#     peers                         python3 -m bench.peers: torch, CuPy, JAX (skipped without python3 and torch)
#     dram_latency, loaded_latency  the executables: the latency alone, and while the GPU streams
#     read_patterns                 the executable: every reading pattern, and the combines (steps 12 and 13's notes)
#     spread                        the headline in SPREAD_RUNS (default 5) processes: run-to-run spread
#     ncu                           tools/profile_steps.sh: the steps of course/steps.csv (skipped without ncu)
#     race_demo                     race_demo.txt: tests/race_demo.sh (skipped without compute-sanitizer)
#     <csv>                         each [[csv]] of bench/variants.toml (python3 -m bench.variants list): its run
#     mutants                       only when named in --only: python3 -m tests.mutants.run_mutants builds each mistake
#                                   in MUTANTS_BUILD_DIR (default build-mutants), runs its tests (an hour or more)
#   then python3 -m render RESULTS_DIR.
# A failed or interrupted measurement leaves the committed file as it was; without a GPU nothing is touched.
# Exit: 0 all done, 1 something failed (named at the end), 2 bad usage or missing build, 3 no GPU.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
print_help() { sed -n '2,/^set /s/^# \{0,1\}//p' "$root/bench/reproduce.sh"; }  # the header above
fail_usage() { echo "reproduce.sh: $1" >&2; print_help | grep -m 1 '^usage:' >&2; exit 2; }
only="" positional=()
while (( $# )); do
  case $1 in
    -h|--help) print_help; exit 0 ;;
    --only=*) set -- --only "${1#--only=}" "${@:2}" ;;  # read as "--only VALUE" next time round
    --only) [[ -n ${2:-} ]] || fail_usage "--only needs a comma-separated list of names"; only=$2; shift 2 ;;
    -*) fail_usage "unknown option '$1'" ;;
    *) positional+=("$1"); shift ;;
  esac
done
(( ${#positional[@]} <= 2 )) || fail_usage "at most two arguments, BUILD_BIN_DIR and RESULTS_DIR; got ${#positional[@]}"
# Run from the root, paths relative to it: the commands in the results' stamps name no machine's directories.
relative() { local p; p=$(realpath -m "$1"); [[ $p == "$root"/* ]] && echo "${p#"$root"/}" || echo "$p"; }
bin=$(relative "${positional[0]:-$root/build/bin}")  # before the cd: from where it is run
results_arg=${positional[1]:+$(relative "${positional[1]}")}
cd "$root" || exit 2
[[ -d $bin ]] || fail_usage "'$bin' is not a directory; build first: cmake --preset default && cmake --build build"

names=$(python3 -m bench.variants list) ||
  echo "reproduce.sh: python3 -m bench.variants list failed (it needs Python 3.11): the variants' CSVs are left out" >&2
read -r -d '' -a variants <<<"$names"
all_names=(headline headline_cold sweep exact_sweep_float32 exact_sweep_float64 exact_bits peers dram_latency loaded_latency read_patterns spread ncu race_demo "${variants[@]}")
selected=("${all_names[@]}")
all_names+=(mutants)  # never by default: it rebuilds the course once per mistake
[[ -n $only ]] && IFS=, read -r -a selected <<<"$only"
for name in "${selected[@]}"; do
  [[ " ${all_names[*]} " == *" $name "* ]] || fail_usage "--only: '$name' is not known; accepted: ${all_names[*]}"
done
wanted() { [[ " ${selected[*]} " == *" $1 "* ]]; }
need() { local exe; for exe; do [[ -x $bin/$exe ]] || fail_usage "$bin/$exe not found; build it: cmake --build build --target $exe"; done; }
need compare  # also the GPU probe below
for exe in dram_latency loaded_latency read_patterns; do wanted $exe && need $exe; done
wanted ncu && command -v ncu >/dev/null 2>&1 && { read -r -d '' -a steps < <(python3 -m course.steps single); need "${steps[@]}"; }
for name in "${variants[@]}"; do
  wanted "$name" && { python3 -m bench.variants run "$name" "$bin" --dry-run >/dev/null || exit 2; }  # it says which is missing
done
spread_runs=${SPREAD_RUNS:-5}
[[ $spread_runs =~ ^[0-9]+$ ]] && (( spread_runs >= 5 )) || fail_usage "SPREAD_RUNS='$spread_runs': a whole number of at least 5"
wanted race_demo && need step05_volatile_race_demo step05_warp_unroll
probe=$("$bin/compare" --steps cub --type int32 --n 1024 --iters 1 --warmup 0 --csv 2>&1)
case $? in
  0) ;;
  3) echo "reproduce.sh: no usable GPU ($(grep -m 1 -i error <<<"$probe")); nothing measured, nothing changed" >&2; exit 3 ;;
  *) echo "reproduce.sh: the GPU check failed: $bin/compare --steps cub --n 1024 said:" >&2; echo "$probe" >&2; exit 1 ;;
esac
# results/<gpu>: the GPU name's first word that is not a brand, e.g. "NVIDIA H100 80GB HBM3" -> h100.
model=$(sed -n 's/^# gpu: //p' <<<"$probe" | head -n 1 | tr 'A-Z \t' 'a-z\n\n' |
        grep -vxE 'nvidia|geforce|rtx|tesla|quadro' | sed 's/-.*//; s/[^a-z0-9]//g' | grep -m 1 .)
results=${results_arg:-results/${model:-gpu}}
mkdir -p "$results" || { echo "reproduce.sh: cannot create $results" >&2; exit 1; }
echo "reproduce.sh: measuring into $results/ with the executables in $bin/"
export REDUCTION_COMMIT=${REDUCTION_COMMIT:-$(git describe --always --exclude='*' --dirty=+uncommitted 2>/dev/null || echo unknown)}
command -v nvidia-smi >/dev/null 2>&1 && export REDUCTION_NVIDIA_DRIVER &&
  REDUCTION_NVIDIA_DRIVER=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1)
# spread_runs_csv RUNS: the headline by RUNS processes as one CSV: first stamp lines, header once, a run column in front.
spread_runs_csv() {
  local runs=$1 run output
  for (( run = 1; run <= runs; run++ )); do
    output=$("$bin/compare" --type all --csv) || return
    (( run > 1 )) || { grep '^#' <<<"$output"; echo "# runs: $runs separate processes of the command above"; }
    grep -v '^#' <<<"$output" | grep . | sed "1s/^/run,/; 2,\$s/^/$run,/" | tail -n +$(( run == 1 ? 1 : 2 ))
  done
}
updated=() skipped=() failed=() pending=""
trap '[[ -n $pending ]] && rm -f "$pending"' EXIT  # pending: the temporary file in progress
trap 'exit 130' INT TERM
# produce NAME FILE COMMAND...: COMMAND's stdout becomes RESULTS/FILE if it exits 0 and writes something; 77: skipped.
produce() {
  local name=$1 file=$2 rc why=""; shift 2
  echo "== $name -> $results/$file: $*"
  pending=$(mktemp "$results/.$file.XXXXXX") || { failed+=("$name (cannot create a temporary file)"); pending=""; return; }
  "$@" >"$pending"
  rc=$?
  if (( rc == 77 )); then skipped+=("$file (${1##*/} skipped)")
  elif (( rc != 0 )); then why="exit $rc"
  elif [[ ! -s $pending ]]; then why="wrote nothing"
  elif chmod 644 "$pending" && mv -f "$pending" "$results/$file"; then updated+=("$file")
  else why="could not move the new file into place"
  fi
  [[ -n $why ]] && { failed+=("$name ($why)"); echo "   $name FAILED; $results/$file is left as it was" >&2; }
  rm -f "$pending"; pending=""  # already gone if it was moved into place
}
for name in "${all_names[@]}"; do
  wanted "$name" || continue
  case $name in
    headline)       produce $name $name.csv "$bin/compare" --type all --csv ;;
    headline_cold)  produce $name $name.csv "$bin/compare" --type all --csv --flush-l2 ;;
    sweep)          produce $name $name.csv "$bin/compare" --sweep ;;
    exact_sweep_*)  exact_steps=step13,step14,cub  # and CUB's gpu_to_gpu where compare was built with it
                    "$bin/compare" --steps cub_gpu_to_gpu --type float32 --n 1 --iters 1 --warmup 0 >/dev/null 2>&1 &&
                      exact_steps+=,cub_gpu_to_gpu
                    produce $name $name.csv "$bin/compare" --sweep --steps $exact_steps --type "${name#exact_sweep_}" ;;
    exact_bits)     produce $name $name.csv python3 -m bench.exact_bits "$bin" ;;
    # right after the sweep, on the same GPU: the ratios in the README's "What you would use instead"
    peers)          if python3 -c "import torch" >/dev/null 2>&1; then produce $name $name.csv python3 -m bench.peers
                    else skipped+=("peers.csv (python3 with torch not found)"); fi ;;
    dram_latency|loaded_latency|read_patterns) produce $name $name.csv "$bin/$name" ;;
    spread)         produce $name $name.csv spread_runs_csv "$spread_runs" ;;
    ncu)            if command -v ncu >/dev/null 2>&1; then produce $name $name.csv tools/profile_steps.sh "$bin"
                    else skipped+=("ncu.csv (ncu not found)"); fi ;;
    race_demo)      produce $name $name.txt tests/race_demo.sh compute-sanitizer \
                      "$bin/step05_volatile_race_demo" "$bin/step05_warp_unroll" --save - ;;
    mutants)        produce $name $name.csv python3 -m tests.mutants.run_mutants \
                      --build-dir "${MUTANTS_BUILD_DIR:-build-mutants}" --csv - ;;
    *)              produce $name $name.csv python3 -m bench.variants run "$name" "$bin" ;;  # bench/variants.toml
  esac
done
# The READMEs show results/h100 (and the grader's thresholds), the H200's beside it: either renders them.
render_step() { echo "== $1: ${*:2}"; "${@:2}" || failed+=("$1 (exit $?)"); }  # LABEL COMMAND...
if (( ${#updated[@]} )) && [[ $results == results/h100 || $results == results/h200 ]]; then
  render_step render python3 -m render "$results"
  [[ $results == results/h100 && " ${updated[*]} " == *" "@(headline|sweep)".csv "* ]] &&  # the thresholds read both
    render_step thresholds python3 -m tools.grade_thresholds "$results/headline.csv"
elif (( ${#updated[@]} )); then
  echo "results in $results/; the READMEs show results/h100. To see these instead:"
  echo "  python3 -m render $results    (rewrites the READMEs' generated blocks)"
fi
echo
(( ${#updated[@]} )) && echo "updated: ${updated[*]}"
(( ${#skipped[@]} )) && printf 'skipped: %s\n' "${skipped[@]}"
(( ${#failed[@]} )) || exit 0
printf 'FAILED:  %s\n' "${failed[@]}" >&2
echo "The files of failed measurements were not changed." >&2
exit 1
