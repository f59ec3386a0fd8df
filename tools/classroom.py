"""What make_exercise and grade share: the steps of a course tree or an assignment, one-line errors, points."""

import argparse
from pathlib import Path

from course import steps


def find_step(parser, argument, tree):  # the Step of `tree` named like step04_first_add, 04 or 4; else exit 2
    try:
        course = steps.load(Path(tree) / "course" / "steps.csv")
    except (OSError, steps.ManifestError) as error:
        parser.fail(str(error))
    step = steps.find(argument, course)
    if not step or not (Path(tree) / step.folder / "reduce.cuh").is_file():
        parser.fail(f"no step '{argument}' in {tree}; the steps are: {', '.join(s.folder for s in course)}")
    return step


class Parser(argparse.ArgumentParser):  # a bad command line or request (fail): one line on stderr, exit 2
    def error(self, message):
        self.fail(f"{message} (--help lists the options)")

    def fail(self, message):
        self.exit(2, f"{self.prog}: {message}\n")


# The points of each check of tools/grade; the host part's are also --check's names for GitHub Classroom.
HOST_POINTS = {"build": 10, "host-tests": 5, "todo": 5, "compiled-code": 10}


def gpu_points(test_name):  # gpu_stepNN (every size, type, block and pattern) weighs most
    return 10 if test_name.startswith(("sanitize_", "speed_")) or test_name.endswith("_large") else 30
