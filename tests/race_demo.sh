#!/usr/bin/env bash
# Runs compute-sanitizer's racecheck on the classic `volatile` last-warp unroll, which must show
# at least one shared-memory hazard, then on step 05, which must show none: the claim that the
# classic form races since Volta is itself tested.
# usage: race_demo.sh COMPUTE_SANITIZER DEMO_EXECUTABLE STEP05_EXECUTABLE [--save FILE]
#   --save FILE  also writes the commands and racecheck's summaries to FILE (-: to stdout, and
#                then everything else goes to stderr)
# Exit: 0 as expected, 1 not as expected (or a crash), 2 bad usage, 77 skipped (no GPU or no
# compute-sanitizer).
set -uo pipefail

die_usage() { echo "race_demo.sh: $1" >&2; echo "usage: race_demo.sh COMPUTE_SANITIZER DEMO STEP05 [--save FILE]" >&2; exit 2; }

[[ $# -eq 3 || $# -eq 5 ]] || die_usage "expected 3 arguments, or 5 with --save FILE; got $#"
sanitizer=$1 demo=$2 step05=$3 save=""
if [[ $# -eq 5 ]]; then
  [[ $4 == --save ]] || die_usage "unknown option '$4'"
  [[ -n $5 ]] || die_usage "--save needs a file name"
  save=$5
fi
[[ $save == - ]] && { exec 3>&1 1>&2; save=/dev/fd/3; }
for exe in "$demo" "$step05"; do
  [[ -x $exe ]] || die_usage "'$exe' is not an executable file (build it first)"
done
if ! command -v "$sanitizer" >/dev/null 2>&1; then
  echo "SKIPPED: compute-sanitizer not found ('$sanitizer'); it comes with the CUDA Toolkit"
  exit 77
fi

# Small and odd: several blocks, a partial last block, and a second launch over the partials.
run_args=(--n 4097 --iters 1 --warmup 0)

# Without a GPU the step itself says so with exit 3: that is a skip, not a failure.
"$step05" "${run_args[@]}" >/dev/null 2>&1
case $? in
  0) ;;
  3) echo "SKIPPED: no usable CUDA device to run $(basename "$step05")"; exit 77 ;;
  *) echo "FAILED: $(basename "$step05") ${run_args[*]} did not verify without the sanitizer"; exit 1 ;;
esac

log=$(mktemp) || { echo "FAILED: cannot create a temporary file"; exit 1; }
trap 'rm -f "$log"' EXIT

# Prints the number of hazards racecheck reported in $log, or nothing when it printed no summary.
hazard_count() {
  sed -n 's/.*RACECHECK SUMMARY: \([0-9][0-9]*\) hazard.*/\1/p' "$log" | tail -n 1
}

report=""  # what --save writes
status=0

# check LABEL EXPECTATION EXECUTABLE: EXPECTATION is "some" (>= 1 hazard) or "none".
check() {
  local label=$1 expect=$2 exe=$3
  local command=("$sanitizer" --tool racecheck "$exe" "${run_args[@]}")
  # shown without directories: the saved summary names no machine's paths
  local shown
  shown="$(basename "$sanitizer") --tool racecheck $(basename "$exe") ${run_args[*]}"
  "${command[@]}" >"$log" 2>&1
  local rc=$?
  local summary count
  summary=$(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$log")
  count=$(hazard_count)
  echo "== $label: $shown"
  echo "   exit status $rc"
  [[ -n $summary ]] && printf '   %s\n' "$summary"
  report+="== $label"$'\n'"command: $shown"$'\n'"exit status: $rc"$'\n'"${summary:-(no racecheck summary printed)}"$'\n'

  # The program's own exit status: 0 verified; 1 a wrong sum, which a race is allowed to cause in
  # the demo; anything else (a crash, a signal, a CUDA error) is a failure.
  if (( rc != 0 )) && ! [[ $expect == some && $rc -eq 1 ]]; then
    echo "FAIL  $label: exited with status $rc"; tail -n 30 "$log"; status=1; return
  fi
  if [[ -z $count ]]; then
    echo "FAIL  $label: racecheck printed no summary line"; tail -n 30 "$log"; status=1; return
  fi
  if [[ $expect == some ]]; then
    if (( count >= 1 )); then
      # The first hazard racecheck describes: what the lesson quotes.
      local first
      first=$(grep -m 1 -A 1 -E 'Error: Race|Warning: Race' "$log")
      [[ -n $first ]] && report+="first report:"$'\n'"$first"$'\n'
      echo "ok    $label: $count hazard(s) reported, as expected for the wrong form"
    else
      echo "FAIL  $label: racecheck reported no hazard in the classic volatile unroll"; status=1
    fi
  else
    if (( count == 0 )); then
      echo "ok    $label: no hazard reported"
    else
      echo "FAIL  $label: racecheck reported $count hazard(s) in the step"; grep -m 10 -E 'Race|hazard' "$log"; status=1
    fi
  fi
  report+=$'\n'
}

check "$(basename "$demo") (the wrong form: hazards expected)" some "$demo"
check "$(basename "$step05") (the course's form: no hazard expected)" none "$step05"

if [[ -n $save ]]; then
  {
    echo "# racecheck on the classic volatile last-warp unroll and on step 05"
    echo "# compute-sanitizer: $("$sanitizer" --version 2>/dev/null | grep -m 1 -i version)"
    echo "# date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# result: $([[ $status -eq 0 ]] && echo 'as expected' || echo 'NOT as expected')"
    echo
    printf '%s' "$report"
  } >"$save" || { echo "FAILED: cannot write $save"; exit 1; }
fi
exit $status
