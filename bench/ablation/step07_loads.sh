#!/usr/bin/env bash
# Step 07 with 2, 4 and 8 independent loads per loop iteration, at n = 2^24, 2^26 and 2^28, int32
# and float32: one CSV on stdout, the first run's stamp lines ('# key: value') then
#   type,n,loads,time_median_ms,gbps,percent_of_peak,batch_gbps,status
# usage: bench/ablation/step07_loads.sh BUILD_BIN_DIR > results/h100/step07_loads.csv
# Exit: 0 every run verified, 1 a run failed or did not verify, 2 bad usage, 3 no GPU.
set -uo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: step07_loads.sh BUILD_BIN_DIR   (the directory holding step07_loads2, step07_loads4, step07_loads8)" >&2
  exit 2
fi
bin=$1
bench="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../course" && pwd)"  # stamped_csv.py, the CSV reader
for loads in 2 4 8; do
  if [[ ! -x $bin/step07_loads$loads ]]; then
    echo "step07_loads.sh: $bin/step07_loads$loads not found; build it: cmake --build build --target step07_loads$loads" >&2
    exit 2
  fi
done
command -v python3 >/dev/null || { echo "step07_loads.sh: python3 is needed to read the steps' CSV" >&2; exit 2; }

# Reads one step's --csv output on stdin and prints the ablation's row; the stamp lines too when
# asked. Columns are found by name in the header, so their order does not matter.
extract_row() {
  python3 -c '
import sys
sys.path.insert(0, sys.argv[3])
import stamped_csv
loads, with_stamp = sys.argv[1], sys.argv[2] == "1"
try:
    table = stamped_csv.parse(sys.stdin.read(), "the step")
except stamped_csv.ResultsError as error:
    sys.exit(str(error))
if len(table.rows) != 1:
    sys.exit("expected one CSV row after the header, found %d" % len(table.rows))
wanted = ["type", "n", "time_median_ms", "gbps", "percent_of_peak", "batch_gbps", "status"]
missing = [name for name in wanted if name not in table.columns]
if missing:
    sys.exit("the CSV has no column " + ", ".join(missing))
row = table.rows[0]
if with_stamp:
    print("\n".join(table.stamp_lines))
print(",".join([row["type"], row["n"], loads] + [row[name] for name in wanted[2:]]))
' "$@" "$bench"
}

status=0
first=1
for type in int32 float32; do
  for n in 16777216 67108864 268435456; do
    for loads in 2 4 8; do
      exe=$bin/step07_loads$loads
      output=$("$exe" --csv --type "$type" --n "$n")
      rc=$?
      if [[ $rc -eq 3 && $first -eq 1 ]]; then
        echo "step07_loads.sh: $(basename "$exe") found no usable GPU (exit 3); nothing measured" >&2
        exit 3
      fi
      if [[ $rc -ne 0 && $rc -ne 1 ]]; then  # 1: ran but did not verify; its row says FAIL
        echo "step07_loads.sh: $(basename "$exe") --type $type --n $n failed (exit $rc)" >&2
        status=1
        continue
      fi
      (( rc == 1 )) && status=1
      if ! row=$(extract_row "$loads" "$first" <<<"$output"); then
        echo "step07_loads.sh: could not read the CSV of $(basename "$exe") --type $type --n $n" >&2
        status=1
        continue
      fi
      if (( first )); then
        # the stamp, then what this table is, then the header
        printf '%s\n' "$row" | grep '^#'
        echo "# ablation: step07_multi_level built with STEP07_LOADS_PER_ITERATION = 2, 4, 8"
        echo "type,n,loads,time_median_ms,gbps,percent_of_peak,batch_gbps,status"
        row=$(printf '%s\n' "$row" | grep -v '^#')
        first=0
      fi
      echo "$row"
    done
  done
done
exit $status
