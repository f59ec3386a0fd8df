#!/usr/bin/env python3
"""Host tests of the classroom tools: marker parsing and stubs, the speed-threshold rule, and
make_exercise's refusals. No GPU, no build: run by .ci/exercises.sh (python3 tools/test_classroom_tools.py)."""

import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
sys.path.insert(0, str(TOOLS))
import exercise_markers  # noqa: E402
import grade_thresholds  # noqa: E402

SAMPLE = """\
__global__ void k(const int* in, int* out) {
    // solution-begin: add the two halves
    // solution-stub: int sum = 0;  // placeholder
    int sum = in[threadIdx.x] + in[threadIdx.x + blockDim.x];
    // solution-end
    out[threadIdx.x] = sum;
    // solution-begin: a barrier
    __syncthreads();
    // solution-end
}
"""


class Markers(unittest.TestCase):
    def test_regions_hold_hint_stub_and_code(self):
        found = exercise_markers.regions(SAMPLE)
        self.assertEqual(len(found), 2)
        hint, line, stub, code = found[0]
        self.assertEqual((hint, line), ("add the two halves", 2))
        self.assertEqual(stub, ["int sum = 0;  // placeholder"])
        self.assertEqual([c.strip() for c in code], ["int sum = in[threadIdx.x] + in[threadIdx.x + blockDim.x];"])

    def test_stub_replaces_code_with_todo_and_placeholder(self):
        stub = exercise_markers.make_stub(SAMPLE)
        self.assertIn("    // TODO: add the two halves\n    int sum = 0;  // placeholder\n", stub)
        self.assertIn("    // TODO: a barrier\n", stub)
        self.assertNotIn("blockDim.x]", stub)
        self.assertNotIn("__syncthreads", stub)
        self.assertNotIn("solution-", stub)
        self.assertIn("out[threadIdx.x] = sum;", stub)

    def test_distinctive_lines_leave_out_shared_code(self):
        lines = exercise_markers.distinctive_solution_lines(SAMPLE + "void g() { __syncthreads(); }\n")
        self.assertIn("int sum = in[threadIdx.x] + in[threadIdx.x + blockDim.x];", lines)

    def test_unpaired_markers_are_refused(self):
        for text in ("// solution-begin: a\n", "// solution-end\n",
                     "// solution-begin: a\n// solution-begin: b\n// solution-end\n"):
            with self.assertRaises(exercise_markers.MarkerError):
                exercise_markers.make_stub(text)

    def test_every_step_of_the_course_has_markers_that_pair(self):
        steps = sorted(TOOLS.parent.glob("step[0-9][0-9]_*/reduce.cuh"))
        self.assertTrue(steps)
        for path in steps:
            with self.subTest(step=path.parent.name):
                text = path.read_text()
                self.assertTrue(exercise_markers.regions(text), "no solution markers")
                self.assertTrue(exercise_markers.distinctive_solution_lines(text))


class Thresholds(unittest.TestCase):
    def test_rule(self):
        self.assertAlmostEqual(grade_thresholds.threshold_for(1.7), 1.35)
        self.assertAlmostEqual(grade_thresholds.threshold_for(1.15), 1.075)
        self.assertEqual(grade_thresholds.threshold_for(1.09), 0.97)
        self.assertEqual(grade_thresholds.threshold_for(0.95), 0.97)

    def test_the_previous_steps_approach_never_passes_a_large_gain(self):
        for gain in (1.15, 1.3, 2.0):
            self.assertGreater(grade_thresholds.threshold_for(gain), 1.0)


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
