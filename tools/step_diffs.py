"""Lines of reduce.cuh added and removed (as `diff -u` counts them) from each step's previous to the step: the
size of each step's one idea, as a Markdown table.      usage: python3 -m tools.step_diffs"""

import difflib
from pathlib import Path

from course import steps

REPO_ROOT = Path(__file__).resolve().parent.parent

if __name__ == "__main__":
    print("| diff | lines added | lines removed | lines in the new reduce.cuh |\n| :--- | ---: | ---: | ---: |")
    for step in (step for step in steps.load(REPO_ROOT / "course" / "steps.csv") if step.previous):
        before, after = ((REPO_ROOT / f / "reduce.cuh").read_text().splitlines() for f in (step.previous, step.folder))
        diff = list(difflib.unified_diff(before, after, lineterm="", n=0))[2:]
        added, removed = (sum(line.startswith(c) for line in diff) for c in "+-")
        print(f"| `{step.previous}` → `{step.folder}` | {added} | {removed} | {len(after)} |")
