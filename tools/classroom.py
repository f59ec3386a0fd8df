"""What make_exercise and grade share: the steps of a course tree or an assignment, from its
course/steps.csv (course/steps.py reads it), and one-line command-line errors."""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "course"))
import steps  # noqa: E402


def find_step(parser, argument, tree):
    """The Step of `tree`'s manifest named like step04_first_add, step04, 04 or 4; else exit 2."""
    try:
        course = steps.load(Path(tree) / "course" / "steps.csv")
    except (OSError, steps.ManifestError) as error:
        parser.fail(str(error))
    step = steps.find(argument, course)
    if not step or not (Path(tree) / step.folder / "reduce.cuh").is_file():
        parser.fail(f"no step '{argument}' in {tree}; the steps are: {', '.join(s.folder for s in course)}")
    return step


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
