"""The reader of course/steps.csv, the course's one list of steps (its header says what each column means):
load() -> the Steps in order (.folder, .tag, .previous, .kind...); find("4") -> step04's Step, or None."""

import csv
import re
import sys
from dataclasses import dataclass
from pathlib import Path

MANIFEST = Path(__file__).resolve().parent / "steps.csv"
FOLDER = re.compile(r"step(\d\d)_[a-z0-9_]+")
ARGUMENT = re.compile(r"(?:step)?(\d{1,2})(?:_\w+)?")


@dataclass(frozen=True)
class Step:
    folder: str      # step04_first_add
    kind: str        # single | multi_gpu
    previous: str    # the folder it builds on, "" for the first
    api: str         # sum | op
    speed_at: str    # log2 n of its speed test, "" for none
    change: str      # its one idea
    number = property(lambda self: int(self.folder[4:6]))
    tag = property(lambda self: self.folder[:6])  # label, test and namespace prefix: step04


class ManifestError(Exception):
    """A steps.csv that does not say what the course is."""


def load(path=MANIFEST):  # the steps, in the course's order; ManifestError if the manifest is malformed
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(line for line in handle if line.strip() and not line.startswith("#")))
    result, seen = [], set()
    for row in rows:
        try:
            step = Step(**{key: (value or "").strip() for key, value in row.items()})
        except TypeError as error:
            raise ManifestError(f"{path}: a row with other columns: {row}") from error
        if not FOLDER.fullmatch(step.folder) or step.kind not in ("single", "multi_gpu") \
                or step.api not in ("sum", "op") or (step.previous and step.previous not in seen) \
                or step.number in {int(f[4:6]) for f in seen}:
            raise ManifestError(f"{path}: bad row for {step.folder!r} (a stepNN_name folder, a new number, "
                                "kind single|multi_gpu, api sum|op, previous an earlier row)")
        seen.add(step.folder)
        result.append(step)
    return result


def find(argument, course=None):  # the Step named step04_first_add, step04, 04 or 4; None if none
    match, course = ARGUMENT.fullmatch(argument), course if course is not None else load()
    return next((step for step in course if match and step.number == int(match.group(1))
                 and ("_" not in argument or argument == step.folder)), None)


def previous(step, course=None):  # the Step that `step` builds on, or None
    return next((s for s in (course if course is not None else load()) if s.folder == step.previous), None)


if __name__ == "__main__":  # python3 -m course.steps [single|multi_gpu]: the folders, one per line
    kinds = sys.argv[1:] or ["single", "multi_gpu"]
    print("\n".join(step.folder for step in load() if step.kind in kinds))
