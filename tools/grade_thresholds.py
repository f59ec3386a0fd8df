#!/usr/bin/env python3
"""Writes tools/grade_thresholds.csv, the speed each step must reach over the previous one to pass
tools/grade, and the size it is timed at, from the measured gains in results/h100/headline.csv (and
sweep.csv beside it, for the steps of GRADED_ELSEWHERE).

usage: tools/grade_thresholds.py [HEADLINE_CSV] [OUT_CSV]      (defaults: the H100 results, tools/)
       tools/grade_thresholds.py --check                        (exit 1 when the CSV is out of date)

The rule (docs/teaching.md explains it), for a measured gain g = previous step's time / this
step's time (int32, L2 warm, n = 2^24: the x_previous column): half of the gain, 1 + (g - 1) / 2,
when g >= 1.15 (the previous step's approach, gain 1.0, fails; a sound implementation on another
run or GPU passes), else 0.97: not slower than the previous step beyond timing noise. A step
without a measured gain gets no row: its speed test reports Skipped (step01 is only timed).
"""

import csv
import io
import sys
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
sys.path.insert(0, str(TOOLS.parent / "course"))
import stamped_csv  # noqa: E402

DEFAULT_HEADLINE = TOOLS.parent / "results" / "h100" / "headline.csv"
DEFAULT_OUT = TOOLS / "grade_thresholds.csv"
SMALL_GAIN = 1.15
FLOOR = 0.97
# Steps whose idea pays below 2^24 are timed where it does (log2 n), with the gain from sweep.csv:
# one launch instead of two shows at 2^20, the one-tile path only up to one tile (2^12 int32).
GRADED_ELSEWHERE = {"step10_single_pass": 20, "step12_small_n": 12}


def threshold_for(gain):
    return 1 + (gain - 1) / 2 if gain >= SMALL_GAIN else FLOOR


def render(headline_path):
    headline, sweep = stamped_csv.read(headline_path), stamped_csv.read(headline_path.parent / "sweep.csv")
    times = {(r["step"], int(r["n"])): float(r["time_median_ms"]) for r in sweep.rows if r["type"] == "int32"}
    out = io.StringIO()
    out.write("# Speed thresholds of tools/grade: a step passes when previous time / its time >= threshold.\n")
    out.write(f"# Written by tools/grade_thresholds.py from results/h100/headline.csv (int32, n = 2^24, L2 "
              f"{headline.stamp.get('l2', '?')}; {headline.stamp.get('gpu', '?')}, commit {headline.stamp.get('commit', '?')}),\n"
              f"# and at another n from sweep.csv (commit {sweep.stamp.get('commit', '?')}).\n")
    out.write(f"# Rule: measured gain g >= {SMALL_GAIN}: threshold = 1 + (g - 1) / 2; "
              f"g < {SMALL_GAIN}: threshold = {FLOOR} (not slower than the previous step).\n")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["step", "n", "measured_gain", "threshold"])
    steps = [row for row in headline.rows if row.get("type") == "int32" and (row.get("op") or "sum") == "sum"
             and row.get("step", "").startswith("step")]  # the int32 sums of the steps
    for previous, row in zip(steps, steps[1:]):
        step, log2_n = row["step"], GRADED_ELSEWHERE.get(row["step"], 24)
        if log2_n != 24:
            gain = times[(previous["step"], 1 << log2_n)] / times[(step, 1 << log2_n)]
        elif (row.get("x_previous") or "").strip():
            gain = float(row["x_previous"])
        else:
            continue  # no measured gain, no row: the speed test reports Skipped
        writer.writerow([step, f"2^{log2_n}", f"{gain:.4f}", f"{threshold_for(gain):.3f}"])
    return out.getvalue()


def main(argv):
    if argv[:1] == ["--check"]:
        if DEFAULT_OUT.read_text() != render(DEFAULT_HEADLINE):
            print(f"{DEFAULT_OUT} is out of date with {DEFAULT_HEADLINE}: run tools/grade_thresholds.py",
                  file=sys.stderr)
            return 1
        return 0
    headline = Path(argv[0]) if argv else DEFAULT_HEADLINE
    out_path = Path(argv[1]) if len(argv) > 1 else DEFAULT_OUT
    try:
        text = render(headline)
    except (OSError, KeyError, ValueError, stamped_csv.ResultsError) as error:
        print(f"grade_thresholds: cannot read {headline}: {error}", file=sys.stderr)
        return 2
    out_path.write_text(text)
    print(f"wrote {out_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
