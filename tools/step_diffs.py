#!/usr/bin/env python3
"""Lines added and removed from each step's previous (course/steps.csv) to the step, in reduce.cuh:
the size of each step's one idea.

    python3 tools/step_diffs.py          # a Markdown table, one row per step with a previous step
"""

import difflib
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT / "course"))
import steps  # noqa: E402


def diff_counts(before, after):
    """(lines added, lines removed) from before to after, as `diff -u` counts them."""
    lines = list(difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0))[2:]
    return sum(line.startswith("+") for line in lines), sum(line.startswith("-") for line in lines)


def step_diffs(root=REPO_ROOT):
    """[(previous folder name, folder name, added, removed, lines of the new reduce.cuh)]."""
    rows = []
    for step in steps.load(root / "course" / "steps.csv"):
        if step.previous:
            after = (root / step.folder / "reduce.cuh").read_text()
            added, removed = diff_counts((root / step.previous / "reduce.cuh").read_text(), after)
            rows.append((step.previous, step.folder, added, removed, len(after.splitlines())))
    return rows


def markdown(rows):
    lines = ["| diff | lines added | lines removed | lines in the new reduce.cuh |",
             "| :--- | ---: | ---: | ---: |"]
    lines += [f"| `{a}` → `{b}` | {added} | {removed} | {total} |" for a, b, added, removed, total in rows]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(markdown(step_diffs()))
