#!/usr/bin/env python3
"""Writes tools/grade_thresholds.csv, the speed each step must reach over its previous step of
course/steps.csv to pass tools/grade, at n = 2^speed_at of its row there, from the times measured in
results/h100/headline.csv (n = 2^24) and sweep.csv beside it (other n).

usage: tools/grade_thresholds.py [HEADLINE_CSV] [OUT_CSV]      (defaults: the H100 results, tools/)
       tools/grade_thresholds.py --check                        (exit 1 when the CSV is out of date)

The rule (docs/teaching.md says why), for a measured gain g = previous time / time (int32, L2 warm):
1 + (g - 1) / 2 when g >= 1.15, else 0.97. A step without a speed_at or measured times gets no
row: its speed test reports Skipped (step01 is only timed).
"""

import csv
import io
import sys
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
sys.path.insert(0, str(TOOLS.parent / "course"))
import stamped_csv  # noqa: E402
import steps  # noqa: E402

DEFAULT_HEADLINE = TOOLS.parent / "results" / "h100" / "headline.csv"
DEFAULT_OUT = TOOLS / "grade_thresholds.csv"
SMALL_GAIN = 1.15
FLOOR = 0.97


def threshold_for(gain):
    return 1 + (gain - 1) / 2 if gain >= SMALL_GAIN else FLOOR


def int32_sum_times(table):
    """{(step, n): time_median_ms} of the int32 sums of a compare CSV."""
    return {(r["step"], int(r["n"])): float(r["time_median_ms"]) for r in table.rows
            if r["type"] == "int32" and (r.get("op") or "sum") == "sum"}


def render(headline_path):
    headline, sweep = stamped_csv.read(headline_path), stamped_csv.read(headline_path.parent / "sweep.csv")
    times = int32_sum_times(sweep) | int32_sum_times(headline)  # at 2^24: headline's
    out = io.StringIO()
    out.write("# Speed thresholds of tools/grade: a step passes when previous time / its time >= threshold.\n")
    out.write(f"# Written by tools/grade_thresholds.py from results/h100/headline.csv (int32, n = 2^24, L2 "
              f"{headline.stamp.get('l2', '?')}; {headline.stamp.get('gpu', '?')}, commit {headline.stamp.get('commit', '?')}),\n"
              f"# and at another n from sweep.csv (commit {sweep.stamp.get('commit', '?')}).\n")
    out.write(f"# Rule: measured gain g >= {SMALL_GAIN}: threshold = 1 + (g - 1) / 2; "
              f"g < {SMALL_GAIN}: threshold = {FLOOR} (not slower than the previous step).\n")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["step", "n", "measured_gain", "threshold"])
    for step in steps.load():
        n = 1 << int(step.speed_at or 0)
        if step.speed_at and (step.previous, n) in times and (step.folder, n) in times:
            gain = times[(step.previous, n)] / times[(step.folder, n)]
            writer.writerow([step.folder, f"2^{step.speed_at}", f"{gain:.4f}", f"{threshold_for(gain):.3f}"])
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
    except (OSError, KeyError, ValueError, stamped_csv.ResultsError, steps.ManifestError) as error:
        print(f"grade_thresholds: cannot read {headline}: {error}", file=sys.stderr)
        return 2
    out_path.write_text(text)
    print(f"wrote {out_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
