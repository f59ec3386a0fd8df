"""What make_exercise and grade share: the steps of a course tree, found by their folders so that
no tool lists them (a step is a folder stepNN_<name> holding reduce.cuh; the previous step is the
one with the next-lower number), and one-line command-line errors."""

import argparse
import re
from pathlib import Path

STEP_FOLDER = re.compile(r"step(\d\d)_\w+")
STEP_ARGUMENT = re.compile(r"(?:step)?(\d{1,2})(?:_\w+)?")


def steps(tree):
    """{number: folder name} of every step folder in `tree`."""
    found = {}
    for path in Path(tree).glob("step[0-9][0-9]_*"):
        match = STEP_FOLDER.fullmatch(path.name)
        if match and (path / "reduce.cuh").is_file():
            found[int(match.group(1))] = path.name
    return found


def find(argument, found):
    """(folder, previous folder or None) of the step named like step04_first_add, step04, 04 or 4;
    None when no step of `found` has that name."""
    match = STEP_ARGUMENT.fullmatch(argument)
    number = int(match.group(1)) if match else None
    if number not in found or ("_" in argument and found[number] != argument):
        return None
    lower = [k for k in found if k < number]
    return found[number], (found[max(lower)] if lower else None)


def tag(folder):
    """The step's label, test and namespace prefix: step04_first_add -> step04."""
    return folder[:6]


def known(found):
    return ", ".join(found[k] for k in sorted(found))


class Parser(argparse.ArgumentParser):
    """Bad command lines get one line on stderr (what was wrong, and where --help is) and exit 2."""

    def error(self, message):
        self.fail(f"{message} (--help lists the options)")

    def fail(self, message):
        """A bad request found after parsing: one line, exit 2."""
        self.exit(2, f"{self.prog}: {message}\n")


# The points of each check of tools/grade (Gradescope's max_score, GitHub Classroom's max-score).
# The host part (any machine): --check names its parts for GitHub Classroom's command graders.
HOST_POINTS = {"build": 10, "host-tests": 5, "todo": 5, "compiled-code": 10}


def gpu_points(test_name):
    """The points of one GPU test of CTest: gpu_stepNN (every size, type, block and pattern) weighs most."""
    if test_name.startswith("sanitize_") or test_name.startswith("speed_") or test_name.endswith("_large"):
        return 10
    return 30
