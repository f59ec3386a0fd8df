#!/usr/bin/env python3
"""Lines added and removed between consecutive steps' reduce.cuh: the size of each step's one idea.

    python3 tools/step_diffs.py          # a Markdown table, one row per consecutive pair

The steps are the stepNN_* folders of the repository (in order); a step without reduce.cuh is
skipped. bench/render_results.py writes the same table into the README's course map.
"""

import difflib
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


def step_folders(root=REPO_ROOT):
    return sorted(p for p in root.glob("step[0-9][0-9]_*") if (p / "reduce.cuh").is_file())


def diff_counts(before, after):
    """(lines added, lines removed) from before to after, as `diff -u` counts them."""
    added = removed = 0
    for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0):
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


def step_diffs(root=REPO_ROOT):
    """[(previous folder name, folder name, added, removed, lines of the new reduce.cuh)]."""
    folders = step_folders(root)
    rows = []
    for previous, step in zip(folders, folders[1:]):
        after = (step / "reduce.cuh").read_text()
        added, removed = diff_counts((previous / "reduce.cuh").read_text(), after)
        rows.append((previous.name, step.name, added, removed, len(after.splitlines())))
    return rows


def markdown(rows):
    lines = ["| diff | lines added | lines removed | lines in the new reduce.cuh |",
             "| :--- | ---: | ---: | ---: |"]
    lines += [f"| `{a}` → `{b}` | {added} | {removed} | {total} |" for a, b, added, removed, total in rows]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(markdown(step_diffs()))
