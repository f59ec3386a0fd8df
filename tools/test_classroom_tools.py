#!/usr/bin/env python3
"""Host tests of the classroom tools: markers and stubs, step discovery, the speed-threshold rule,
and make_exercise's refusals. No GPU, no build: ctest runs them (classroom_tools, label host)."""

import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
sys.path[:0] = [str(TOOLS), str(TOOLS.parent / "bench")]
import classroom  # noqa: E402
import exercise_markers  # noqa: E402
import grade_thresholds  # noqa: E402
import stamped_csv  # noqa: E402

SAMPLE = """\
__global__ void k(const int* in, int* out) {
    // solution-begin: add the two halves
    int sum = in[threadIdx.x] + in[threadIdx.x + blockDim.x];
    // solution-end
    out[threadIdx.x] = sum;
    // solution-begin: a barrier
    __syncthreads();
    // solution-end
}
"""
SAMPLE_STUBS = """\
// solution-begin: a barrier
// TODO: a barrier
// solution-end

// solution-begin: add the two halves
// TODO: add the two halves
int sum = 0;  // placeholder
// solution-end
"""
LONGEST_HINT = 60  # a marker is one short line: the task itself is in the stub's TODO lines


class Markers(unittest.TestCase):
    def test_regions_hold_hint_and_code(self):
        found = exercise_markers.regions(SAMPLE)
        self.assertEqual(len(found), 2)
        hint, line, indent, code = found[0]
        self.assertEqual((hint, line, indent), ("add the two halves", 2, "    "))
        self.assertEqual([c.strip() for c in code], ["int sum = in[threadIdx.x] + in[threadIdx.x + blockDim.x];"])

    def test_stub_replaces_code_with_todo_and_placeholder(self):
        stub = exercise_markers.make_stub(SAMPLE, SAMPLE_STUBS)
        self.assertIn("    // TODO: add the two halves\n    int sum = 0;  // placeholder\n", stub)
        self.assertIn("    // TODO: a barrier\n", stub)
        self.assertNotIn("blockDim.x]", stub)
        self.assertNotIn("__syncthreads", stub)
        self.assertNotIn("solution-", stub)
        self.assertIn("out[threadIdx.x] = sum;", stub)

    def test_distinctive_lines_leave_out_shared_code(self):
        lines = exercise_markers.distinctive_solution_lines(SAMPLE + "void g() { __syncthreads(); }\n", SAMPLE_STUBS)
        self.assertIn("int sum = in[threadIdx.x] + in[threadIdx.x + blockDim.x];", lines)

    def test_unpaired_markers_and_unmatched_stubs_are_refused(self):
        for text, stubs in (("// solution-begin: a\n", ""), ("// solution-end\n", ""),
                            ("// solution-begin: a\n// solution-begin: b\n// solution-end\n", ""),
                            (SAMPLE, ""), (SAMPLE, SAMPLE_STUBS + "// solution-begin: c\n// solution-end\n"),
                            (SAMPLE + "// solution-begin: a barrier\n// solution-end\n", SAMPLE_STUBS)):
            with self.assertRaises(exercise_markers.MarkerError):
                exercise_markers.make_stub(text, stubs)

    def test_every_step_of_the_course_has_short_markers_and_matching_stubs(self):
        steps = classroom.steps(TOOLS.parent)
        self.assertTrue(steps)
        for step in steps.values():
            with self.subTest(step=step):
                text = (TOOLS.parent / step / "reduce.cuh").read_text()
                stubs = exercise_markers.stub_text(step)
                self.assertTrue(exercise_markers.regions(text), "no solution markers")
                self.assertNotIn("solution-stub", text, "the stubs belong in tools/stubs/")
                for hint, line, _, _ in exercise_markers.regions(text):
                    self.assertLessEqual(len(hint), LONGEST_HINT, f"line {line}: a long solution-begin text")
                for hint, code in exercise_markers.replacements(text, stubs).items():
                    self.assertTrue(any(c.startswith("// TODO: ") for c in code), f"no TODO line in the stub of '{hint}'")
                self.assertTrue(exercise_markers.distinctive_solution_lines(text, stubs))

    def test_every_stubs_file_belongs_to_a_step(self):
        steps = set(classroom.steps(TOOLS.parent).values())
        for path in exercise_markers.STUBS.glob("*.cuh"):
            self.assertIn(path.stem, steps, f"{path} names no step folder")


class Steps(unittest.TestCase):
    def test_names_and_previous_step(self):
        found = {1: "step01_a", 4: "step04_first_add", 7: "step07_b"}
        self.assertEqual(classroom.find("4", found), ("step04_first_add", "step01_a"))
        self.assertEqual(classroom.find("step07", found), ("step07_b", "step04_first_add"))
        self.assertEqual(classroom.find("step01_a", found), ("step01_a", None))
        for bad in ("step04_wrong", "5", "banana", "step4x"):
            self.assertIsNone(classroom.find(bad, found))


class Thresholds(unittest.TestCase):
    def test_rule(self):
        self.assertAlmostEqual(grade_thresholds.threshold_for(1.7), 1.35)
        self.assertAlmostEqual(grade_thresholds.threshold_for(1.15), 1.075)
        self.assertEqual(grade_thresholds.threshold_for(1.09), 0.97)
        self.assertEqual(grade_thresholds.threshold_for(0.95), 0.97)

    def test_the_previous_steps_approach_never_passes_a_large_gain(self):
        for gain in (1.15, 1.3, 2.0):
            self.assertGreater(grade_thresholds.threshold_for(gain), 1.0)


class SpeedTest(unittest.TestCase):
    """tools/speed_test.py against stand-ins for the steps: scripts that print a step's CSV."""

    def fake_step(self, folder, name, ms, code=0):
        """A stand-in that prints a CSV row with time `ms` and appends its arguments to NAME.args."""
        path = Path(folder) / name
        path.write_text(f"#!/bin/sh\necho \"$*\" >> '{path}.args'\n"
                        f"echo '# gpu: fake'\necho 'step,time_median_ms,status'\necho '{name},{ms},PASS'\n"
                        f"exit {code}\n")
        path.chmod(0o755)
        return str(path)

    def run_speed(self, *exes):
        thresholds = TOOLS / "grade_thresholds.csv"
        return subprocess.run([sys.executable, str(TOOLS / "speed_test.py"), str(thresholds), *exes],
                              capture_output=True, text=True, env={"REDUCTION_SPEED_ROUNDS": "1", "PATH": "/bin:/usr/bin"})

    def test_verdicts(self):
        with tempfile.TemporaryDirectory() as work:
            for folder in ("fast", "slow", "no_gpu"):
                (Path(work) / folder).mkdir()
            step03 = self.fake_step(work, "step03_sequential", 2.0)
            step01 = self.fake_step(work, "step01_interleaved", 1.0)  # no threshold: nothing before it
            fast = self.fake_step(Path(work) / "fast", "step04_first_add", 1.0)
            slow = self.fake_step(Path(work) / "slow", "step04_first_add", 1.9)
            no_gpu = self.fake_step(Path(work) / "no_gpu", "step04_first_add", 1.0, code=3)
            cases = (((fast, step03), 0, "gain over step03_sequential 2.000, threshold"),
                     ((slow, step03), 1, ": FAIL"), ((no_gpu, step03), 77, "SKIPPED: no usable GPU"),
                     ((step01, step03), 77, "SKIPPED: not checked: no threshold"),
                     ((step03,), 0, "not checked: no previous step"))
            for exes, code, last in cases:
                with self.subTest(exes=exes):
                    result = self.run_speed(*exes)
                    self.assertEqual(result.returncode, code, result.stdout + result.stderr)
                    self.assertIn(last, result.stdout.strip().splitlines()[-1])

    def test_each_step_is_timed_at_its_size_in_the_thresholds(self):
        rows = {row["step"]: row["n"] for row in stamped_csv.read(TOOLS / "grade_thresholds.csv").rows}
        with tempfile.TemporaryDirectory() as work:
            previous = self.fake_step(work, "step11_any_operator", 1.0)
            step = self.fake_step(work, "step12_small_n", 1.0)  # no faster than step 11: what it adds is missing
            result = self.run_speed(step, previous)
            self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
            for exe in (step, previous):
                self.assertEqual(Path(exe + ".args").read_text(), f"--n {rows['step12_small_n']} --type int32 --csv\n")
        self.assertEqual(rows["step12_small_n"], "2^12")  # where the one-tile path pays (the sweep)


class MakeExercise(unittest.TestCase):
    def run_tool(self, *args):
        return subprocess.run([sys.executable, str(TOOLS / "make_exercise"), *args], capture_output=True, text=True)

    def test_refusals_exit_2_with_one_line(self):
        with tempfile.TemporaryDirectory() as work:
            occupied = Path(work) / "occupied"
            occupied.mkdir()
            (occupied / "file").write_text("x")
            for args in (["step99", str(Path(work) / "a")], ["step04_wrong", str(Path(work) / "b")],
                         ["step04", str(occupied)]):
                with self.subTest(args=args):
                    result = self.run_tool(*args)
                    self.assertEqual(result.returncode, 2)
                    self.assertEqual(len(result.stderr.strip().splitlines()), 1)


if __name__ == "__main__":
    unittest.main()
