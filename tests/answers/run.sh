#!/bin/bash
# The exercise answers that running code can check, one patch each (this folder), tried in turn.
#
#   cd <the course's repository root>       # a clean checkout, configured and built in build-gpu/
#   bash tests/answers/run.sh [BUILD_DIR]    # default build-gpu
#
# For each answer: apply its patch (git apply), build the step(s) it touches and their GPU tests,
# run the step as the answer's exercise asks, run `ctest -L stepNN`, print one line, revert the
# patch. At the end the touched steps are built again from the unpatched tree.
# By default ctest leaves out the large, sanitizer and speed tests (minutes each); set
# ANSWERS_CTEST_EXCLUDE= (empty) to run them too. ANSWERS_ONLY=REGEX tries only the answers whose
# names match (e.g. '^1[34]_'), so that the whole list can be split over several runs.
#
# A line: answer, PASS or FAIL (PASS: the tests did what the answer predicts: pass, fail, or the
# build stops), what happened, then the run's line(s) the answer's prediction is about.
#   bash tests/answers/run.sh --check       # only: does every patch still apply? (CTest's answers_apply)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
if [ "${1:-}" = --check ]; then  # no build, no GPU: the patches against the tree as it is
  cd "$HERE/../.."
  git rev-parse --git-dir >/dev/null 2>&1 || { echo "SKIPPED: not a git checkout: the patches are applied with git"; exit 77; }
  status=0
  for patch in "$HERE"/*.patch; do
    if git apply --check "$patch" 2>/dev/null; then echo "ok    $(basename "$patch")"
    else echo "FAIL  $(basename "$patch") no longer applies: write it again against the step as it is now"; status=1; fi
  done
  exit $status
fi
BUILD=${1:-build-gpu}
EXCLUDE=${ANSWERS_CTEST_EXCLUDE-large|sanitizer|speed}
ONLY=${ANSWERS_ONLY:-.}
LOG=${ANSWERS_LOG:-/tmp/answers-logs}
mkdir -p "$LOG"

[ -d .git ] || [ -f .git ] || { echo "run from the repository root" >&2; exit 2; }
[ -d "$BUILD" ] || { echo "no $BUILD/: configure and build it first (cmake --preset ...)" >&2; exit 2; }
git diff --quiet HEAD -- || { echo "the tree has uncommitted changes: commit or stash them first" >&2; exit 2; }

# what the lines below were measured on: kept with them (results/<gpu>/answers.txt)
echo "# gpu: $(nvidia-smi --query-gpu=name --format=csv,noheader -i 0 2>/dev/null || echo unknown)"
echo "# date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "# commit: ${REDUCTION_COMMIT:-$(git describe --always --exclude='*' --dirty=+uncommitted 2>/dev/null || echo unknown)}"
echo "# command: ${ANSWERS_ONLY:+ANSWERS_ONLY='$ONLY' }bash tests/answers/run.sh $BUILD (ctest -LE '${EXCLUDE}')"

current=""
revert() { [ -n "$current" ] && git apply -R "$HERE/$current.patch" && current=""; }
trap 'revert' EXIT INT TERM

# answer | patch's steps (targets) | ctest labels | expected: pass, fail or nobuild | runs (';'-separated) | lines to keep (grep -E)
ANSWERS=(
  "08_4|step08_warp_shuffle|step08|pass|step08_warp_shuffle --n 2^24|per call|result"
  "09_1|step09_vector_loads|step09|pass|step09_vector_loads --n 2^20|^head:"
  "09_2|step08_warp_shuffle step09_vector_loads|step08 step09|pass|step08_warp_shuffle --n 2^28;step09_vector_loads --n 2^28|per call"
  "09_3|step09_vector_loads|step09|fail|step09_vector_loads --n 2^20|per call|result"
  "09_4|step09_vector_loads|step09|pass|step09_vector_loads --n 2^24;step09_vector_loads --n 2^28;step09_vector_loads --n 2^24 --flush-l2;step09_vector_loads --n 2^28 --flush-l2|per call"
  "10_1|step10_single_pass|step10|fail|step10_single_pass --n 2^20|per call|result"
  "10_4|step10_single_pass|step10|pass|step10_single_pass --n 2^20;step10_single_pass --n 2^24|per call"
  "12_3|step12_small_n|step12|pass|step12_small_n --n 2^10;step12_small_n --n 2^12|per call"
  "13_1_two_stages|step13_bulk_copies|step13|pass|step13_bulk_copies --n 2^31|per call"
  "13_1_five_stages|step13_bulk_copies|step13|pass|step13_bulk_copies --n 2^31|per call"
  "13_1_eight_stages|step13_bulk_copies|step13|nobuild||"
  "13_4_16k_two_stages|step13_bulk_copies|step13|pass|step13_bulk_copies --n 2^31|per call"
  "13_4_4k_eight_stages|step13_bulk_copies|step13|pass|step13_bulk_copies --n 2^31|per call"
  "14_2|step14_exact_sum|step14|fail|step14_exact_sum --n 2^20 --type float32|per call|result"
  "14_3|step14_exact_sum|step14|fail|step14_exact_sum --n 2^20 --type float32|per call|result"
  "14_6|step14_exact_sum|step14|fail|step14_exact_sum --n 2^20 --type float64|per call|result"
)

touched=()
for row in "${ANSWERS[@]}"; do
  IFS='|' read -r name steps labels expected runs keep <<<"$row"
  [[ $name =~ $ONLY ]] || continue
  patch="$HERE/$name.patch"
  if ! git apply --check "$patch" 2>"$LOG/$name.apply"; then
    echo "$name FAIL the patch does not apply ($LOG/$name.apply)"; continue
  fi
  git apply "$patch" && current=$name
  targets=""
  for s in $steps; do targets="$targets $s gpu_tests_${s:0:6}"; touched+=("$s"); done
  if ! cmake --build "$BUILD" --target $targets >"$LOG/$name.build" 2>&1; then
    if [ "$expected" = nobuild ]; then
      echo "$name PASS the build stops, as predicted: $(grep -m1 -iE 'error|shared' "$LOG/$name.build" | cut -c1-160)"
    else
      echo "$name FAIL the build stopped ($LOG/$name.build)"
    fi
    revert; continue
  fi
  [ "$expected" = nobuild ] && { echo "$name FAIL it built; the answer says the build stops"; revert; continue; }
  lines=""
  IFS=';' read -ra commands <<<"$runs"
  for c in "${commands[@]}"; do
    out=$("$BUILD/bin/"$c 2>&1)
    lines="$lines [$c: $(echo "$out" | grep -E "${keep:-.}" | sed 's/  */ /g' | paste -sd ' ' -)]"
  done
  regex=$(echo $labels | sed 's/ /|/g')
  if ctest --test-dir "$BUILD" -L "$regex" ${EXCLUDE:+-LE "$EXCLUDE"} >"$LOG/$name.ctest" 2>&1; then tests=pass; else tests=fail; fi
  verdict=$([ "$tests" = "$expected" ] && echo PASS || echo FAIL)
  echo "$name $verdict tests $tests (predicted $expected)$lines"
  revert
done
trap - EXIT INT TERM

# the touched steps built again from the unpatched tree
if [ ${#touched[@]} -gt 0 ]; then
  targets=$(printf '%s\n' "${touched[@]}" | sort -u | while read -r s; do echo "$s gpu_tests_${s:0:6}"; done)
  cmake --build "$BUILD" --target $targets >"$LOG/rebuild" 2>&1 || echo "rebuilding the unpatched steps failed ($LOG/rebuild)"
fi
