"""Writes tools/grade_thresholds.csv, the gain over its previous step each step needs to pass tools/grade.
usage: python3 -m tools.grade_thresholds [HEADLINE_CSV] [OUT_CSV]   (defaults: results/h100/headline.csv, tools/)
       python3 -m tools.grade_thresholds --check                     (exit 1 when the CSV is out of date)"""

import sys
from pathlib import Path

from course import stamped_csv, steps

TOOLS = Path(__file__).resolve().parent

DEFAULT_HEADLINE, DEFAULT_OUT = TOOLS.parent / "results" / "h100" / "headline.csv", TOOLS / "grade_thresholds.csv"
SMALL_GAIN, FLOOR = 1.15, 0.97


def threshold_for(gain):
    return 1 + (gain - 1) / 2 if gain >= SMALL_GAIN else FLOOR


def int32_sum_times(table):
    return {(r["step"], int(r["n"])): float(r["time_median_ms"]) for r in table.rows
            if r["type"] == "int32" and (r.get("op") or "sum") == "sum"}


def render(headline_path):
    headline, sweep = stamped_csv.read(headline_path), stamped_csv.read(headline_path.parent / "sweep.csv")
    times = int32_sum_times(sweep) | int32_sum_times(headline)  # at 2^24: headline's
    stamp = headline.stamp
    text = ("# Speed thresholds of tools/grade.py: a step passes when previous time / its time >= threshold.\n"
            f"# Written by tools/grade_thresholds.py from results/h100/headline.csv (int32, n = 2^24, L2 "
            f"{stamp.get('l2', '?')}; {stamp.get('gpu', '?')}, commit {stamp.get('commit', '?')}),\n"
            f"# and at another n from sweep.csv (commit {sweep.stamp.get('commit', '?')}).\n"
            f"# Rule: measured gain g >= {SMALL_GAIN}: threshold = 1 + (g - 1) / 2; "
            f"g < {SMALL_GAIN}: threshold = {FLOOR} (not slower than the previous step).\n"
            "step,n,measured_gain,threshold\n")
    for step in steps.load():  # a step without a speed_at or measured times gets no row: its speed test is Skipped
        n = 1 << int(step.speed_at or 0)
        if step.speed_at and (step.previous, n) in times and (step.folder, n) in times:
            gain = times[(step.previous, n)] / times[(step.folder, n)]
            text += f"{step.folder},2^{step.speed_at},{gain:.4f},{threshold_for(gain):.3f}\n"
    return text


def main(argv):
    if argv[:1] == ["--check"]:
        if DEFAULT_OUT.read_text() == render(DEFAULT_HEADLINE):
            return 0
        print(f"{DEFAULT_OUT} is out of date with {DEFAULT_HEADLINE}: run python3 -m tools.grade_thresholds", file=sys.stderr)
        return 1
    headline, out_path = Path(argv[0]) if argv else DEFAULT_HEADLINE, Path(argv[1]) if len(argv) > 1 else DEFAULT_OUT
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
