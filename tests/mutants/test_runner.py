"""run_mutants.py's build and test plumbing, without a GPU or a compiler:

    python3 -m tests.mutants.test_runner

- the course's executables (step 01 for the CSV's stamp, each speed check's baseline) are asked of
  Ninja by their files, bin/<step>: a mutant's executable carries its step's name, and Ninja may
  give that name to the mutant's file instead of the step's;
- a test that ctest does not run at all stops the run (a broken test tree), rather than counting
  as a kill of the mutant.
"""

import subprocess
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from tests.mutants import run_mutants


def mutant(step):
    return next(m for m in run_mutants.load_catalogue() if m.step == step and not m.multi_gpu)


class CourseTargets(unittest.TestCase):
    def ninja_targets(self, stage, mutants):
        commands = []

        def record(command, log_file, **options):
            commands.append([str(part) for part in command])
            return 0

        with tempfile.TemporaryDirectory() as build_dir, mock.patch.object(run_mutants, "run_logged", record):
            (Path(build_dir) / "CMakeCache.txt").write_text("")
            run_mutants.build(mutants, Path(build_dir), 2, [], Path(build_dir) / "log.txt", stage)
        ninja = [c for c in commands if c[0] == "ninja"]
        self.assertEqual(len(ninja), 1)
        return ninja[0]

    def test_the_stamp_program_by_its_file(self):
        targets = self.ninja_targets("tests", [mutant("step01_interleaved")])
        self.assertIn("bin/step01_interleaved", targets)
        self.assertNotIn("step01_interleaved", targets)

    def test_the_speed_baseline_by_its_file(self):
        targets = self.ninja_targets("exe", [mutant("step04_first_add")])
        self.assertIn("bin/step03_sequential", targets)
        self.assertNotIn("step03_sequential", targets)


class NoTestRun(unittest.TestCase):
    def test_ctest_running_nothing_stops_the_run(self):
        output = 'Error: a cycle exists in the test dependency graph for the test "speed_hold_gpu".\n'
        fake = mock.Mock(returncode=8, pid=0)
        fake.communicate.return_value = (output + "No tests were found!!!\n", None)
        with mock.patch.object(subprocess, "Popen", return_value=fake):
            with self.assertRaises(SystemExit) as stopped:
                run_mutants.run_test(Path("build"), "mut_x_speed_step01", 10)
        self.assertIn("cycle", str(stopped.exception))


if __name__ == "__main__":
    unittest.main()
