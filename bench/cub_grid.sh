#!/usr/bin/env bash
# The grid CUB's DeviceReduce::Sum launches for the course's call, as Nsight Compute reports it: for int32 and
# float32 at 2^24 (or the sizes given), each DeviceReduce kernel of one call of `compare --steps cub` with its grid,
# block and registers per thread (ncu's LaunchStats section). Writes OUT_CSV (results/<gpu>/cub_grid.csv): the stamp
# of compare's own CSV (GPU, CUDA, driver, date, commit), then type,n,kernel,grid_size,block_size,registers_per_thread.
# Run from the repo root on a machine with the GPU and ncu (profiling may need the driver's permission: see
# ERR_NVGPUCTRPERM in ncu's documentation); BUILD_DIR holds bin/compare.
#   bench/cub_grid.sh build-gpu results/h200/cub_grid.csv
set -uo pipefail
usage="usage: bench/cub_grid.sh [--sizes \"E ...\"] BUILD_DIR OUT_CSV"
exponents="24"
if [ "${1:-}" = "--sizes" ]; then
  [ $# -ge 2 ] && [[ $2 =~ ^[0-9]+( [0-9]+)*$ ]] || { echo "$usage" >&2; exit 2; }
  exponents=$2; shift 2
fi
[ $# -eq 2 ] || { echo "$usage" >&2; exit 2; }
compare=$1/bin/compare out=$2
[ -x "$compare" ] || { echo "cub_grid.sh: $compare is missing; build the target compare first" >&2; exit 2; }
command -v ncu >/dev/null 2>&1 || { echo "cub_grid.sh: ncu (Nsight Compute) not found on PATH" >&2; exit 3; }
mkdir -p "$(dirname "$out")" && touch "$out.tmp" 2>/dev/null || { echo "cub_grid.sh: cannot write next to '$out'" >&2; exit 2; }
work=$(mktemp -d) || exit 4
trap 'rm -rf "$work" "$out.tmp"' EXIT

# The stamp: compare's own, from one plain run (no profiler), its command line replaced by this script's.
first=${exponents%% *}
"$compare" --steps cub --n "2^$first" --type int32 --iters 1 --warmup 0 --csv >"$work/stamp.csv" ||
  { echo "cub_grid.sh: $compare failed without the profiler" >&2; exit 4; }
{
  grep '^#' "$work/stamp.csv" | grep -Ev '^# (command|iters|timing):'
  echo "# command: bench/cub_grid.sh (ncu --section LaunchStats --csv --print-units base -k regex:DeviceReduce on $compare --steps cub --n 2^E --type T --iters 1 --warmup 0)"
  echo "# ncu: $(ncu --version 2>/dev/null | tail -n 1)"
  echo "# grid_size: blocks of the launch; registers_per_thread: as compiled (ncu's LaunchStats)"
} >"$out.tmp"

for e in $exponents; do
  for type in int32 float32; do
    log="$work/ncu_${type}_$e.csv"
    # One call of CUB (compare verifies it once, before and after timing): its first launches are the call's kernels.
    ncu --section LaunchStats --csv --print-units base -k regex:DeviceReduce --launch-count 2 \
        "$compare" --steps cub --n "2^$e" --type "$type" --iters 1 --warmup 0 >"$log" 2>"$work/ncu.err" ||
      { echo "cub_grid.sh: ncu failed for $type 2^$e:" >&2; tail -n 20 "$work/ncu.err" "$log" >&2; exit 4; }
    python3 - "$log" "$type" "$((1 << e))" >>"$out.tmp" <<'EOF' || exit 4
import csv, re, sys
log, type_name, n = sys.argv[1:]
lines = open(log, encoding="utf-8", errors="replace").read().splitlines()
start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)  # ncu's own lines come first
if start is None:
    sys.exit(f"cub_grid.sh: no CSV table in ncu's output ({log}); is the kernel name right?")
wanted = {"Grid Size": "grid_size", "Block Size": "block_size", "Registers Per Thread": "registers_per_thread"}
launches = {}
for row in csv.DictReader(lines[start:]):
    name = row.get("Kernel Name", "")
    if row.get("Metric Name") in wanted:
        value = re.sub(r"[,\s]", "", row.get("Metric Value", ""))
        short = re.search(r"DeviceReduce\w*Kernel", name)
        key = (row.get("ID", ""), short.group(0) if short else name.split("(")[0].split("<")[0].strip())
        launches.setdefault(key, {})[wanted[row["Metric Name"]]] = value
if not launches:
    sys.exit(f"cub_grid.sh: ncu profiled no DeviceReduce kernel ({log})")
for (_, kernel), values in sorted(launches.items(), key=lambda item: int(item[0][0]) if item[0][0].isdigit() else 0):
    missing = [c for c in wanted.values() if not values.get(c, "").replace(".", "").isdigit()]
    if missing:
        sys.exit(f"cub_grid.sh: {kernel}: no number for {', '.join(missing)} in {log}")
    print(f"{type_name},{n},{kernel}," + ",".join(str(int(float(values[c]))) for c in wanted.values()))
EOF
  done
done
# the header after the stamp, then the rows
{ grep '^#' "$out.tmp"; echo "type,n,kernel,grid_size,block_size,registers_per_thread"; grep -v '^#' "$out.tmp"; } >"$out"
echo "wrote $out"
cat "$out"
