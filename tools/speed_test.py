"""The speed check of one step, run by ctest as speed_stepNN (tools/README.md says how it times).
usage: python3 -m tools.speed_test THRESHOLDS_CSV STEP_EXE [PREVIOUS_EXE]"""

import os
import statistics
import subprocess
import sys
from pathlib import Path

from course import stamped_csv, steps

SKIPPED = 77


def verdict(code, text):
    print(text)
    sys.exit(code)


def median_time(exe, args):  # (time_median_ms, gbps or None) of one verified run
    try:
        run = subprocess.run([exe, *args, "--csv"], capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as error:
        verdict(1, f"speed: FAIL: {Path(exe).name} did not run: {error}")
    if run.returncode == 3:  # common/exit_codes.h: no usable GPU
        verdict(SKIPPED, f"SKIPPED: no usable GPU: {(run.stderr.strip().splitlines() or ['no CUDA device'])[-1]}")
    if run.returncode != 0:
        last = (run.stderr.strip() or run.stdout.strip()).splitlines()[-3:]
        verdict(1, f"speed: FAIL: {Path(exe).name} exited {run.returncode}: {' / '.join(last)}")
    try:
        row = stamped_csv.parse(run.stdout, Path(exe).name).rows[-1]
        return float(row["time_median_ms"]), float(row["gbps"]) if row.get("gbps") else None
    except (stamped_csv.ResultsError, KeyError, ValueError):
        verdict(1, f"speed: FAIL: {Path(exe).name} printed no time_median_ms column")


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.splitlines()[1], file=sys.stderr)
        return 2
    rounds_text = os.environ.get("REDUCTION_SPEED_ROUNDS", "3")
    if not rounds_text.isdigit() or int(rounds_text) < 1:
        print(f"speed_test.py: REDUCTION_SPEED_ROUNDS={rounds_text} is not a count of at least 1", file=sys.stderr)
        return 2
    rounds, contestants = int(rounds_text), {Path(exe).name: exe for exe in argv[1:]}
    step, previous = Path(argv[1]).name, (Path(argv[2]).name if len(argv) > 2 else None)
    if os.environ.get("REDUCTION_SPEED_REFERENCE"):
        contestants["reference solution"] = os.environ["REDUCTION_SPEED_REFERENCE"]
    threshold, n = None, "2^24"  # where a step without a previous step is timed
    if previous:  # no speed_at or threshold: a setup problem, not the student's: Skipped, never passed
        row = steps.find(step)
        if not row or not row.speed_at:
            verdict(SKIPPED, f"SKIPPED: not checked: {step} has no speed_at in course/steps.csv")
        try:
            threshold = {r["step"]: float(r["threshold"]) for r in stamped_csv.read(argv[0]).rows}.get(step)
        except (stamped_csv.ResultsError, KeyError, ValueError) as error:
            verdict(1, f"speed: FAIL: cannot read the thresholds: {error}")
        if threshold is None:
            verdict(SKIPPED, f"SKIPPED: not checked: no threshold for {step} in {Path(argv[0]).name} "
                    "(run python3 -m tools.grade_thresholds on measured results)")
        n = f"2^{row.speed_at}"
    args = ["--n", n, "--type", "int32"]
    runs = [(label, median_time(exe, args)) for _ in range(rounds) for label, exe in contestants.items()]  # alternating
    times = {label: [run for of, run in runs if of == label] for label in contestants}
    medians = {label: statistics.median(t for t, _ in values) for label, values in times.items()}
    for label, value in medians.items():
        rates = [gbps for _, gbps in times[label] if gbps is not None]
        rate = f", {statistics.median(rates):.1f} GB/s" if len(rates) == rounds else ""
        print(f"{label}: {value:.4f} ms{rate} (median of {rounds} runs of {' '.join(args)})")
    if "reference solution" in medians:
        print(f"{step} / reference time: {medians[step] / medians['reference solution']:.3f}")
    if not previous:  # step01: nothing to be faster than, so nothing to check
        verdict(0, "speed: not checked: no previous step")
    gain = medians[previous] / medians[step]
    verdict(int(gain < threshold), f"speed: gain over {previous} {gain:.3f}, threshold {threshold:.3f}: "
            f"{'PASS' if gain >= threshold else 'FAIL'}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
