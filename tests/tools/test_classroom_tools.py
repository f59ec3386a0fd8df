"""Host tests of the classroom tools (tools/): markers and stubs, the steps from course/steps.csv,
the speed-threshold rule, make_exercise's refusals and its GitHub Classroom workflow, grade's
Gradescope results.json and its compiled-code table. No GPU, no build: ctest runs them
(classroom_tools, label host)."""

import argparse
import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from unittest import mock

from course import new_step, stamped_csv, steps as manifest
from tools import classroom, compiled_code, exercise_markers, grade, grade_thresholds

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT / "tools"

FOLDERS = [step.folder for step in manifest.load()]

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
        self.assertTrue(FOLDERS)
        for step in FOLDERS:
            with self.subTest(step=step):
                text = (ROOT / step / "reduce.cuh").read_text()
                stubs = exercise_markers.stub_text(step)
                self.assertTrue(exercise_markers.regions(text), "no solution markers")
                self.assertNotIn("solution-stub", text, "the stubs belong in tools/stubs/")
                for hint, line, _, _ in exercise_markers.regions(text):
                    self.assertLessEqual(len(hint), LONGEST_HINT, f"line {line}: a long solution-begin text")
                for hint, code in exercise_markers.replacements(text, stubs).items():
                    self.assertTrue(any(c.startswith("// TODO: ") for c in code), f"no TODO line in the stub of '{hint}'")
                self.assertTrue(exercise_markers.distinctive_solution_lines(text, stubs))

    def test_some_regions_can_be_replaced_and_the_others_kept(self):
        text = exercise_markers.replace_regions(SAMPLE, "// solution-begin: a barrier\n// solution-end\n")
        self.assertNotIn("__syncthreads", text)
        self.assertIn("int sum = in[threadIdx.x] + in[threadIdx.x + blockDim.x];", text)
        with self.assertRaises(exercise_markers.MarkerError):
            exercise_markers.replace_regions(SAMPLE, "// solution-begin: no such region\n// solution-end\n")

    def test_every_solution_without_its_idea_replaces_regions_of_its_step(self):  # tests/tools/wrong_kernels.sh's (c)
        found = list((ROOT / "tests" / "tools" / "without_idea").glob("*.cuh"))
        self.assertTrue(found)
        for path in found:
            with self.subTest(step=path.stem):
                self.assertIn(path.stem, FOLDERS)
                text = (ROOT / path.stem / "reduce.cuh").read_text()
                self.assertNotEqual(exercise_markers.replace_regions(text, path.read_text()), text)

    def test_every_stubs_file_belongs_to_a_step(self):
        for path in exercise_markers.STUBS.glob("*.cuh"):
            self.assertIn(path.stem, FOLDERS, f"{path} names no step of course/steps.csv")


def write_tree(root, rows):
    """A course tree with a course/steps.csv of `rows` (folder, kind, previous) and a reduce.cuh in
    each step's folder."""
    (root / "course").mkdir(parents=True)
    lines = ["# a test's course", "folder,kind,previous,api,speed_at,change"]
    for folder, kind, previous in rows:
        (root / folder).mkdir()
        (root / folder / "reduce.cuh").write_text("// a step\n")
        lines.append(f"{folder},{kind},{previous},sum,,the idea of {folder}")
    (root / "course" / "steps.csv").write_text("\n".join(lines) + "\n")


class Steps(unittest.TestCase):
    ROWS = [("step01_a", "single", ""), ("step04_first_add", "single", "step01_a"),
            ("step12_small_n", "single", "step04_first_add"), ("step14_multi_gpu", "multi_gpu", "step12_small_n"),
            ("step15_copy", "single", "step12_small_n")]

    def test_names_and_the_previous_step_from_the_manifest(self):
        parser = classroom.Parser(prog="test")
        with tempfile.TemporaryDirectory() as work:
            write_tree(Path(work), self.ROWS)
            found = {name: classroom.find_step(parser, name, work) for name in ("4", "step01_a", "step15", "15")}
            self.assertEqual(found["4"].previous, "step01_a")  # its row's, not the next-lower number
            self.assertEqual(found["step01_a"].previous, "")
            self.assertEqual(found["15"], found["step15"])
            self.assertEqual(found["15"].previous, "step12_small_n")  # not step14_multi_gpu
            for bad in ("step04_wrong", "5", "banana", "step4x"):
                with self.assertRaises(SystemExit) as exit, contextlib.redirect_stderr(io.StringIO()) as err:
                    classroom.find_step(parser, bad, work)
                self.assertEqual(exit.exception.code, 2)
                self.assertIn("the steps are: step01_a, step04_first_add,", err.getvalue())

    def test_grade_grades_a_step_against_its_rows_previous(self):
        with tempfile.TemporaryDirectory() as work:
            tree = Path(work)
            write_tree(tree, self.ROWS)
            saved, grade.HERE = grade.HERE, tree / "tools"
            try:
                target = grade.find_target(argparse.Namespace(step="15"), classroom.Parser(prog="grade"))
                self.assertEqual((target.step, target.previous, target.tag), ("step15_copy", "step12_small_n", "step15"))
                (tree / "assignment.cfg").write_text("step=step14_multi_gpu\nprevious=step12_small_n\n")
                target = grade.find_target(argparse.Namespace(step=None), classroom.Parser(prog="grade"))
                self.assertEqual((target.step, target.previous, target.assignment), ("step14_multi_gpu", "step12_small_n", True))
            finally:
                grade.HERE = saved

    def test_a_multi_gpu_steps_default_previous_step_is_its_rows(self):
        # The build passes the row's previous (cmake/steps.cmake); the default, what the file says to its
        # reader and what the figure draws, must name the same step.
        for step in manifest.load():
            if step.kind == "multi_gpu":
                text = (ROOT / step.folder / "reduce.cuh").read_text()
                self.assertIn(f'#define REDUCTION_PREVIOUS_STEP_HEADER "{step.previous}/reduce.cuh"', text)
                self.assertIn(f"#define REDUCTION_PREVIOUS_STEP_NS {manifest.previous(step).tag}\n", text)
                self.assertIn("namespace previous = REDUCTION_PREVIOUS_STEP_NS;", text)


class NewStep(unittest.TestCase):
    """python3 -m course.new_step's refusals: one line, exit 2, nothing written (tests/course/add_step.sh runs it
    in a copy of the course and builds and checks what it writes)."""

    def test_refusals_exit_2_with_one_line(self):
        before = (ROOT / "course" / "steps.csv").read_text()
        for args in (["step16_x"], ["Step16_x", "--from", "4"], ["step16", "--from", "4"], ["step04_x", "--from", "3"],
                     ["step16_x", "--from", "step99"], ["step16_x", "--from", "step15_multi_gpu"],
                     [FOLDERS[0], "--from", "4"], ["step16_x", "--from", "4", "--change", "two\nlines"]):
            with self.subTest(args=args):
                result = subprocess.run([sys.executable, "-m", "course.new_step", *args], cwd=ROOT,
                                        capture_output=True, text=True)
                self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
                self.assertEqual(len(result.stderr.splitlines()), 1, result.stderr)
                self.assertTrue(result.stderr.startswith("new_step: error: "), result.stderr)
        self.assertEqual((ROOT / "course" / "steps.csv").read_text(), before)
        self.assertFalse((ROOT / "step16_x").exists())

    def test_a_copy_is_its_previous_step_under_new_names(self):
        previous, new = manifest.find("step04_first_add"), manifest.Step("step15_x", "single", "step04_first_add",
                                                                          "sum", "", "")
        text = 'namespace step04 { name = "step04_first_add"; } // step04_first_add_more, step045\nid = "s04-a"'
        self.assertEqual(new_step.renamed(text, previous, new),
                         'namespace step15 { name = "step15_x"; } // step04_first_add_more, step045\nid = "s15-a"')


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
        return subprocess.run([sys.executable, "-m", "tools.speed_test", str(thresholds), *exes], cwd=ROOT,
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
                     ((step01, step03), 77, "SKIPPED: not checked: step01_interleaved has no speed_at"),
                     ((step03,), 0, "not checked: no previous step"))
            for exes, code, last in cases:
                with self.subTest(exes=exes):
                    result = self.run_speed(*exes)
                    self.assertEqual(result.returncode, code, result.stdout + result.stderr)
                    self.assertIn(last, result.stdout.strip().splitlines()[-1])

    def test_each_step_is_timed_at_its_size_in_the_manifest_and_the_thresholds(self):
        rows = {row["step"]: row["n"] for row in stamped_csv.read(TOOLS / "grade_thresholds.csv").rows}
        with tempfile.TemporaryDirectory() as work:
            previous = self.fake_step(work, "step11_any_operator", 1.0)
            step = self.fake_step(work, "step12_small_n", 1.0)  # no faster than step 11: what it adds is missing
            result = self.run_speed(step, previous)
            self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
            for exe in (step, previous):
                self.assertEqual(Path(exe + ".args").read_text(), f"--n {rows['step12_small_n']} --type int32 --csv\n")
        self.assertEqual(rows["step12_small_n"], "2^12")  # where the one-tile path pays (the sweep)
        self.assertEqual(manifest.find("step12_small_n").speed_at, "12")


class HoldGpu(unittest.TestCase):
    """tools/hold_gpu.py (the speed tests' fixture) with a stand-in for the CUDA driver library: a
    libcuda.so.1 built here whose cuInit returns `init_result`."""

    def fake_driver(self, folder, init_result):
        compiler = shutil.which("cc") or shutil.which("gcc")
        if not compiler:
            self.skipTest("no C compiler for the stand-in driver")
        source = Path(folder) / "cuda.c"
        source.write_text(f"int cuInit(unsigned f) {{ return {init_result}; }}\n"
                          "int cuDeviceGet(int* d, int o) { *d = o; return 0; }\n"
                          "int cuDevicePrimaryCtxRetain(void** c, int d) { *c = (void*)1; return 0; }\n")
        subprocess.run([compiler, "-shared", "-fPIC", "-o", str(Path(folder) / "libcuda.so.1"), str(source)], check=True)
        return dict(os.environ, LD_LIBRARY_PATH=str(folder))

    def run_hold(self, *args, env=None):
        return subprocess.run([sys.executable, "-m", "tools.hold_gpu", *map(str, args)], cwd=ROOT,
                              capture_output=True, text=True, env=env, timeout=60)

    def wait_gone(self, pid):
        for _ in range(100):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return True
            subprocess.run(["sleep", "0.1"])
        return False

    def test_refusals_and_nothing_to_release(self):
        self.assertEqual(self.run_hold().returncode, 2)
        self.assertEqual(self.run_hold("begin", "x").returncode, 2)
        with tempfile.TemporaryDirectory() as work:
            result = self.run_hold("stop", Path(work) / "state")
            self.assertEqual(result.returncode, 77, result.stdout)
            self.assertIn("nothing held", result.stdout)

    def test_without_a_gpu_start_is_skipped(self):
        with tempfile.TemporaryDirectory() as work:
            result = self.run_hold("start", Path(work) / "state", env=self.fake_driver(work, 100))  # no device
            self.assertEqual(result.returncode, 77, result.stdout)
            self.assertIn("no GPU", result.stdout)
            self.assertFalse((Path(work) / "state").exists())

    def test_the_context_is_held_until_stop_or_until_the_process_that_started_it_ends(self):
        with tempfile.TemporaryDirectory() as work:
            env, state = self.fake_driver(work, 0), Path(work) / "state"
            result = self.run_hold("start", state, env=env)
            self.assertEqual(result.returncode, 0, result.stdout)
            pid = int(state.read_text())
            os.kill(pid, 0)  # still there after start returned
            self.assertEqual(self.run_hold("stop", state, env=env).returncode, 0)
            self.assertTrue(self.wait_gone(pid), "the holder outlived stop")
            # started by a process that then ends without stop (ctest killed): the holder ends too
            subprocess.run(["sh", "-c", f"'{sys.executable}' -m tools.hold_gpu start '{state}'"], cwd=ROOT, env=env,
                           capture_output=True, check=True, timeout=60)
            self.assertTrue(self.wait_gone_file(state), "the holder outlived the process that started it")

    def wait_gone_file(self, path):  # the holder removes its state file as it ends
        for _ in range(100):
            if not path.exists():
                return True
            subprocess.run(["sleep", "0.1"])
        return False


class MakeExercise(unittest.TestCase):
    def run_tool(self, *args):
        return subprocess.run([sys.executable, "-m", "tools.make_exercise", *args], cwd=ROOT, capture_output=True,
                              text=True)

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


# CTest's JUnit for one step: one test passed, one skipped, one failed, the speed test passed.
JUNIT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="Linux-c++" tests="5" failures="1" disabled="0" skipped="1" hostname="" time="0" timestamp="">
  <testcase name="large_reference" classname="large_reference" time="2.1" status="run"><system-out>seed 7</system-out></testcase>
  <testcase name="gpu_step04" classname="gpu_step04" time="12.5" status="run"><system-out>All tests passed</system-out></testcase>
  <testcase name="gpu_step04_large" classname="gpu_step04_large" time="0.1" status="notrun">
    <skipped message="SKIP_RETURN_CODE=77"/><system-out>SKIPPED: 8 GiB of device memory needed</system-out></testcase>
  <testcase name="sanitize_step04" classname="sanitize_step04" time="3" status="fail">
    <failure message="Failed"/><system-out>racecheck: 2 hazards</system-out></testcase>
  <testcase name="speed_step04" classname="speed_step04" time="9" status="run"><system-out>step04_first_add: 0.0300 ms, 2236.9 GB/s (median of 3 runs of --n 2^24 --type int32)
step03_sequential: 0.0500 ms, 1342.2 GB/s (median of 3 runs of --n 2^24 --type int32)
speed: gain over step03_sequential 1.667, threshold 1.349: PASS</system-out></testcase>
</testsuite>
"""
VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}


class Gradescope(unittest.TestCase):
    """grade's results.json against Gradescope's documented keys and types."""

    def check_document(self, results):
        self.assertIsInstance(results["score"], (int, float))
        self.assertIsInstance(results["execution_time"], (int, float))
        self.assertIsInstance(results["output"], str)
        self.assertIn(results["visibility"], VISIBILITY)
        self.assertIn(results["stdout_visibility"], VISIBILITY)
        self.assertEqual(results["score"], sum(test["score"] for test in results["tests"]))
        for test in results["tests"]:
            self.assertLessEqual(set(test), {"score", "max_score", "status", "name", "output", "visibility",
                                             "number", "tags", "name_format", "output_format", "extra_data"})
            self.assertIsInstance(test["score"], (int, float))
            self.assertIsInstance(test["max_score"], (int, float))
            self.assertLessEqual(test["score"], test["max_score"])
            self.assertIsInstance(test["name"], str)
            self.assertIsInstance(test["output"], str)
            self.assertIn(test["status"], {"passed", "failed"})
            self.assertIn(test["visibility"], VISIBILITY)
        for entry in results.get("leaderboard", []):
            self.assertIsInstance(entry["name"], str)
            self.assertIsInstance(entry["value"], (int, float, str))
            self.assertIn(entry.get("order", "desc"), {"asc", "desc"})
        json.dumps(results)  # plain JSON

    def host_checks(self):
        return [grade.Check("build", "build", "pass", "built", "", 10), grade.Check("todo", "no TODO left", "pass", "", "", 5)]

    def test_results_from_ctest_junit(self):
        with tempfile.TemporaryDirectory() as work:
            junit = Path(work) / "ctest.xml"
            junit.write_text(JUNIT)
            named = ["gpu_step04", "gpu_step04_large", "sanitize_step04", "speed_step04"]
            checks = self.host_checks() + grade.checks_from_junit(junit, named)
        results = grade.gradescope_results("step04_first_add", checks, 61.4, "FAIL")
        self.check_document(results)
        tests = {test["name"]: test for test in results["tests"]}
        self.assertNotIn("GPU part: large_reference", tests)  # the fixture ctest adds is not graded
        self.assertEqual(tests["GPU part: gpu_step04"]["score"], tests["GPU part: gpu_step04"]["max_score"])
        self.assertEqual(tests["GPU part: gpu_step04_large"]["score"], 0)  # a skip is never a pass
        self.assertEqual(tests["GPU part: gpu_step04_large"]["status"], "failed")
        self.assertEqual(tests["GPU part: sanitize_step04"]["score"], 0)
        self.assertEqual(tests["host part: build"]["score"], 10)
        self.assertEqual(results["leaderboard"], [{"name": "GB/s (int32, n = 2^24)", "value": 2236.9, "order": "desc"}])
        self.assertEqual(results["execution_time"], 61)

    def test_the_gpu_part_scores_zero_without_a_gpu(self):
        names = ["gpu_step04", "gpu_step04_large", "sanitize_step04", "speed_step04"]
        results = grade.gradescope_results("step04_first_add", self.host_checks() + grade.not_graded(names, "no driver"),
                                           5, "NOT GRADED")
        self.check_document(results)
        gpu = [test for test in results["tests"] if test["name"].startswith("GPU part: ")]
        self.assertEqual(len(gpu), len(names))
        for test in gpu:
            self.assertEqual(test["score"], 0)
            self.assertGreater(test["max_score"], 0)
            self.assertEqual(test["status"], "failed")
            self.assertIn("not graded: no GPU on this machine", test["output"])
        self.assertEqual(results["score"], 15)
        self.assertNotIn("leaderboard", results)


class BuildFolder(unittest.TestCase):
    def test_the_students_build_is_reused_only_when_configured_for_this_folder(self):
        with tempfile.TemporaryDirectory() as work:
            root, other = Path(work) / "assignment", Path(work) / "other"
            (root / "build").mkdir(parents=True)
            target = grade.Target(root, "step04_first_add", "step03_sequential", True)
            args = argparse.Namespace(build_dir=None)
            host_dir = root / "build-grade"
            self.assertEqual(grade.gpu_build_dir(args, target, host_dir), host_dir)  # not configured
            cache = root / "build" / "CMakeCache.txt"
            cache.write_text(f"CMAKE_HOME_DIRECTORY:INTERNAL={other}\n")
            self.assertEqual(grade.gpu_build_dir(args, target, host_dir), host_dir)  # another project's
            cache.write_text(f"CMAKE_HOME_DIRECTORY:INTERNAL={root}\n")
            self.assertEqual(grade.gpu_build_dir(args, target, host_dir), (root / "build").resolve())
            args.build_dir = Path(work) / "chosen"
            self.assertEqual(grade.gpu_build_dir(args, target, host_dir), args.build_dir.resolve())

    def configure_command(self, root, build_dir):  # the cmake command grade's configure runs
        commands, saved = [], grade.run
        grade.run = lambda command, log, **options: commands.append(command) or (0, "")
        try:
            with contextlib.redirect_stdout(io.StringIO()) as said:
                grade.configure(root, build_dir, io.StringIO())
        finally:
            grade.run = saved
        return [str(word) for word in commands[0]], said.getvalue()

    def test_a_copied_or_moved_assignment_is_configured_afresh(self):
        with tempfile.TemporaryDirectory() as work:
            old, root = Path(work) / "old", Path(work) / "assignment"
            build_dir = root / "build-grade"
            build_dir.mkdir(parents=True)
            command, said = self.configure_command(root, build_dir)  # no cache yet: a plain configure
            self.assertNotIn("--fresh", command)
            cache = build_dir / "CMakeCache.txt"
            cache.write_text(f"CMAKE_CACHEFILE_DIR:INTERNAL={build_dir}\nCMAKE_HOME_DIRECTORY:INTERNAL={root}\n")
            self.assertIsNone(grade.configured_elsewhere(root, build_dir))
            command, said = self.configure_command(root, build_dir)  # its own cache: kept
            self.assertNotIn("--fresh", command)
            self.assertEqual(said, "")
            for home, cache_dir in ((old, old / "build-grade"), (root, old / "build-grade"), (old, build_dir)):
                with self.subTest(home=home, cache_dir=cache_dir):
                    cache.write_text(f"CMAKE_CACHEFILE_DIR:INTERNAL={cache_dir}\nCMAKE_HOME_DIRECTORY:INTERNAL={home}\n")
                    self.assertEqual(grade.configured_elsewhere(root, build_dir), (str(home), str(cache_dir)))
                    command, said = self.configure_command(root, build_dir)
                    self.assertIn("--fresh", command)
                    self.assertIn("copied or moved", said)


class AssignmentConfig(unittest.TestCase):
    def test_an_assignment_holds_no_path_of_the_instructors_machine(self):
        with tempfile.TemporaryDirectory() as work:
            out = Path(work) / "assignment"
            subprocess.run([str(TOOLS / "make_exercise"), "step04", str(out)], check=True,  # the command as documented
                           capture_output=True)
            config = (out / "assignment.cfg").read_text()
            self.assertNotIn("source_tree", config)
            for path in (p for p in out.rglob("*") if p.is_file()):
                self.assertNotIn(str(ROOT), path.read_text(errors="replace"), f"{path} names the course tree")

    def test_the_reference_in_an_assignment_needs_the_course_tree_given(self):
        with tempfile.TemporaryDirectory() as work:
            target = grade.Target(Path(work), "step04_first_add", "step03_sequential", True)
            for tree, words in ((None, "needs --reference-tree DIR"), (Path(work), "is not the course tree")):
                args = argparse.Namespace(reference_tree=tree)
                exe, why = grade.reference_build(target, args, Path(work), io.StringIO(), 1)
                self.assertIsNone(exe)
                self.assertIn(words, why)

    def test_a_reference_that_cannot_be_timed_is_refused_before_anything_is_built(self):
        with tempfile.TemporaryDirectory() as work:
            out = Path(work) / "assignment"
            subprocess.run([str(TOOLS / "make_exercise"), "step04", str(out)], check=True, capture_output=True)
            for args, words in ((["--reference"], "needs --reference-tree DIR"),
                                (["--reference", "--reference-tree", work], "is not the course tree"),
                                (["--reference", "--reference-tree", str(ROOT), "--host-only"], "not with --host-only")):
                with self.subTest(args=args):
                    result = subprocess.run([str(out / "grade"), *args], cwd=out, capture_output=True, text=True)
                    self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
                    self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
                    self.assertIn(words, result.stderr)
                    self.assertFalse((out / "build-grade").exists())

    def test_architectures_without_sm_90_code_are_refused_before_anything_is_built(self):
        with tempfile.TemporaryDirectory() as work:
            out = Path(work) / "assignment"
            subprocess.run([str(TOOLS / "make_exercise"), "step04", str(out)], check=True, capture_output=True)
            for value in ("80", "90-virtual", "75-real;80-real", "sm_90", "90;", ""):
                with self.subTest(value=value):
                    result = subprocess.run([str(out / "grade"), "--host-only", "--architectures", value], cwd=out,
                                            capture_output=True, text=True)
                    self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
                    self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
                    self.assertIn("that holds 90", result.stderr)
                    self.assertFalse((out / "build-grade").exists())
        self.assertEqual(grade.built_for(grade.HOST_ARCHITECTURES), "sm_75, sm_80 and sm_90")
        self.assertEqual(grade.built_for("90"), "sm_90")


class Verdict(unittest.TestCase):
    """The last line of grade's report, its exit code, and the same verdict in JUnit and results.json."""

    HOST = [grade.Check("build", "build", "pass", "built", "", 10), grade.Check("todo", "no TODO left", "pass", "", "", 5)]

    def verdict(self, checks, gpu_why="", host_only=False, only=()):
        with contextlib.redirect_stdout(io.StringIO()) as printed:
            code, verdict = grade.report(grade.Target(ROOT, "step04_first_add", "step03_sequential", True), checks,
                                         gpu_why, host_only, only)
        return code, verdict, printed.getvalue().strip().splitlines()[-1]

    def test_the_host_part_alone_is_never_a_full_pass(self):
        code, verdict, last = self.verdict(self.HOST, host_only=True)
        self.assertEqual((code, last), (4, "overall: host part: PASS; GPU part: not run"))
        code, verdict, last = self.verdict(self.HOST[:1], host_only=True, only=["build"])
        self.assertEqual((code, last), (4, "overall: host part (build only): PASS; GPU part: not run"))
        root = ElementTree.fromstring(grade.junit_report("step04_first_add", self.HOST, verdict))
        self.assertEqual(root.find("properties/property[@name='verdict']").get("value"), verdict)
        output = grade.gradescope_results("step04_first_add", self.HOST, 1, verdict)["output"]
        self.assertEqual(output.splitlines()[-1], f"overall: {verdict}")

    def test_exit_codes(self):
        gpu = [grade.gpu_check("gpu_step04", "pass", "")]
        self.assertEqual(self.verdict(self.HOST + gpu)[::2], (0, "overall: PASS"))  # only a graded GPU part passes
        failed = [grade.Check("todo", "no TODO left", "fail", "1 TODO line(s) left", "", 5)]
        for host_only in (True, False):
            self.assertEqual(self.verdict(self.HOST[:1] + failed, host_only=host_only)[0], 1)
        self.assertEqual(self.verdict(self.HOST + grade.not_graded(["gpu_step04"], "no driver"), "no driver")[0], 3)
        skipped = [grade.Check("compiled-code", "compiled code (sm_90 SASS)", "skip", "not checked", "", 10)]
        self.assertEqual(self.verdict(self.HOST + skipped, host_only=True)[0], 3)


class JUnit(unittest.TestCase):
    def test_without_a_gpu_the_report_holds_the_host_part_and_every_gpu_test_skipped(self):
        host = [grade.Check("build", "build", "pass", "built", "", 10),
                grade.Check("todo", "no TODO left", "fail", "1 TODO line(s) left", "step04_first_add/reduce.cuh:3: // TODO: x", 5)]
        names = ["gpu_step04", "gpu_step04_large", "sanitize_step04", "speed_step04"]
        checks = host + grade.not_graded(names, "the NVIDIA driver sees no GPU")
        root = ElementTree.fromstring(grade.junit_report("step04_first_add", checks, "FAIL"))
        cases = {case.get("name"): case for case in root.iter("testcase")}
        self.assertEqual(set(cases), {"build", "no TODO left", *names})
        self.assertEqual((root.get("tests"), root.get("failures"), root.get("skipped")), ("6", "1", "4"))
        self.assertEqual([child.tag for child in cases["build"] if child.tag != "system-out"], [])
        self.assertEqual(cases["no TODO left"].find("failure").get("message"), "1 TODO line(s) left")
        for name in names:
            skipped = cases[name].find("skipped")
            self.assertIsNotNone(skipped, name)
            self.assertIn("not graded: no GPU on this machine", skipped.get("message"))
            self.assertIn("the NVIDIA driver sees no GPU", skipped.get("message"))
            self.assertEqual(cases[name].get("status"), "notrun")


class CompiledCode(unittest.TestCase):
    SASS = """
        Function : _ZN6step0826reduce_warp_shuffle_kernelILj256EjEEvPKT0_mPS1_
        /*0090*/                   SHFL.DOWN PT, R5, R2, 0x10, 0x1f ;  /* 0x0000000000057f89 */
        /*00a0*/               @!P0 LDG.E R3, desc[UR4][R2.64] ;          /* 0x0000000000037981 */
        Function : _ZN9reduction11fill_kernelIjEEvPT_m
        /*0010*/                   LDG.E.128.CONSTANT R4, desc[UR4][R2.64] ;
"""

    def test_only_the_steps_kernels_are_read(self):
        found = compiled_code.kernel_opcodes(self.SASS, "step08")
        self.assertEqual({op for ops in found.values() for op in ops}, {"SHFL.DOWN", "LDG.E"})
        self.assertEqual(compiled_code.kernel_opcodes(self.SASS, "step09"), {})

    @staticmethod
    def barriers(function, count):  # cuobjdump's listing of a kernel holding `count` barriers
        return f"Function : {function}\n" + "".join(
            f"        /*{i:04x}*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;\n" for i in range(count))

    def test_a_row_can_ask_for_an_exact_count_in_each_kernel(self):
        sass = (self.barriers("_ZN6step0622reduce_template_kernelILj1024EjEEvPKT0_mPS1_", 5)
                + self.barriers("_ZN6step0622reduce_template_kernelILj64EjEEvPKT0_mPS1_", 1))
        row = {"pattern": r"BAR\.SYNC", "function": "reduce_template_kernelILj1024E", "count": "5", "reason": "r"}
        self.assertEqual(compiled_code.check_rows([row], sass, "step06")[0], 0)
        self.assertEqual(compiled_code.check_rows([dict(row, count="4")], sass, "step06")[0], 1)  # exactly
        self.assertEqual(compiled_code.check_rows([dict(row, function="ILj64E", count="1")], sass, "step06")[0], 0)
        self.assertEqual(compiled_code.check_rows([dict(row, function="ILj32E", count="1")], sass, "step06")[0], 1)
        self.assertEqual(compiled_code.check_rows([dict(row, function="ILj64E", at_least="2")], sass, "step06")[0], 1)

    def test_a_count_of_zero_forbids_the_pattern_in_every_kernel(self):
        row = {"pattern": r"WARPSYNC\.COLLECTIVE", "function": "", "count": "0", "reason": "r"}
        clean = self.SASS  # step 08's one kernel holds no WARPSYNC.COLLECTIVE
        split = self.SASS.replace("SHFL.DOWN PT, R5", "WARPSYNC.COLLECTIVE R4, 0x13e0 ;\n        /*0098*/ SHFL.DOWN PT, R5")
        missing, lines = compiled_code.check_rows([row], clean, "step08")
        self.assertEqual((missing, lines[0].split(":")[0]), (0, "as counted"))
        missing, lines = compiled_code.check_rows([row], split, "step08")
        self.assertEqual((missing, lines[0].split(":")[0]), (1, "WRONG COUNT"))
        self.assertEqual(compiled_code.check_rows([row], clean, "step09")[0], 1)  # no kernel of the step: not a pass

    def test_the_table_names_steps_with_patterns_and_reasons(self):
        rows = stamped_csv.read(TOOLS / "sass_checks.csv").rows
        self.assertTrue(rows)
        for row in rows:
            self.assertIn(row["step"], FOLDERS)
            re.compile(row["pattern"])
            re.compile(row["function"])
            self.assertRegex(row["count"], r"^(\d+\+?)?$")
            self.assertIn(row["stub_passes"], {"yes", "no"})
            self.assertIn(row["previous_passes"], {"yes", "no"})
            self.assertTrue(row["reason"])
        # each step with a row has one that tells its stub from its solution
        for step in {row["step"] for row in rows}:
            self.assertIn("no", [row["stub_passes"] for row in rows if row["step"] == step], step)

    def test_every_step_handed_out_has_rows_that_fail_its_stub_and_its_previous_steps_kernels(self):
        # The host part (GitHub Classroom's whole grade) must fail an empty kernel and the previous
        # step's kernel; tests/tools/wrong_kernels.sh proves each row's stub_passes and previous_passes
        # (each row's stub_passes and previous_passes, on the real SASS). A step whose previous step has
        # another api (sum before op) needs no such row: the previous step's file does not build as it.
        # Nor does a step still a copy of its previous one (python3 -m course.new_step writes it so): no
        # row can tell the two apart before its idea is written.
        # A multi-GPU step's idea is host code: its rows are the calls it imports (tools/host_calls.csv).
        rows = stamped_csv.read(TOOLS / "sass_checks.csv").rows + stamped_csv.read(TOOLS / "host_calls.csv").rows
        for step in manifest.load():
            if not exercise_markers.stub_text(step.folder):
                continue
            with self.subTest(step=step.folder):
                mine = [row for row in rows if row["step"] == step.folder]
                self.assertIn("no", [row["stub_passes"] for row in mine], "no row fails the empty stub")
                if step.previous and manifest.previous(step).api == step.api and not new_step.still_a_copy(step):
                    self.assertIn("no", [row["previous_passes"] for row in mine], "no row fails the previous step's kernels")

    def test_a_host_call_row_holds_only_where_the_executable_imports_it(self):
        exe = shutil.which("ls")  # any dynamically linked program: it imports malloc, not ncclAllReduce
        if not exe or not shutil.which("nm") or not shutil.which("objdump"):
            self.skipTest("needs ls, nm and objdump")
        rows = [{"function": "", "call": "malloc", "reason": "r"}, {"function": "", "call": "ncclAllReduce", "reason": "r"}]
        missing, lines = compiled_code.check_host_calls(rows, exe)
        self.assertEqual(missing, 1)
        self.assertTrue(lines[0].startswith("found: a call of malloc"))
        self.assertTrue(lines[1].startswith("MISSING: a call of ncclAllReduce"))

    def test_a_host_call_row_with_a_function_reads_that_functions_machine_code(self):
        compiler = shutil.which("cc") or shutil.which("gcc")
        if not compiler or not shutil.which("nm") or not shutil.which("objdump"):
            self.skipTest("needs a C compiler, nm and objdump")
        source = ("#include <stdlib.h>\nvoid (*volatile handed)(void);\n"
                  "void __attribute__((noinline)) calls_through(void) { handed(); handed(); }\n"
                  "void __attribute__((noinline)) calls_none(void) { }\n"
                  "int main(void) { calls_through(); calls_none(); exit(0); }\n")
        with tempfile.TemporaryDirectory() as work:
            (Path(work) / "p.c").write_text(source)
            exe = Path(work) / "p"
            subprocess.run([compiler, "-O2", "-o", str(exe), str(Path(work) / "p.c")], check=True)
            row = {"function": "^calls_", "call": "*", "reason": "r"}
            missing, lines = compiled_code.check_host_calls([row], exe)  # calls_none holds none: every one must
            self.assertEqual((missing, lines[0].split(":")[0]), (1, "MISSING"))
            self.assertIn("calls_none", lines[0])
            self.assertNotIn("calls_through", lines[0])
            self.assertEqual(compiled_code.check_host_calls([dict(row, function="^calls_through$")], exe)[0], 0)
            self.assertEqual(compiled_code.check_host_calls([dict(row, function="^main$", call="calls_through")], exe)[0], 0)
            missing, lines = compiled_code.check_host_calls([dict(row, function="^no_such_function")], exe)
            self.assertEqual(missing, 1)
            self.assertIn("no function matching", lines[0])

    def test_the_checks_name_says_what_it_reads(self):
        self.assertEqual(compiled_code.describe("step12_small_n"), f"compiled code ({compiled_code.SASS_ARCH} SASS)")
        self.assertEqual(compiled_code.describe("step15_multi_gpu"), "compiled code (host calls)")

    def test_cuobjdump_is_found_where_the_set_up_puts_it(self):
        with tempfile.TemporaryDirectory() as work:
            cached = Path(work) / compiled_code.CACHED_TOOLS / "cuobjdump"
            with mock.patch.dict(os.environ, XDG_CACHE_HOME=work, PATH=work):  # nothing on PATH
                self.assertIsNone(compiled_code.find_cuobjdump())
                cached.parent.mkdir(parents=True)
                cached.write_text("")
                self.assertEqual(compiled_code.find_cuobjdump(), str(cached))
        script = (ROOT / "tools" / "install_prerequisites.sh").read_text()
        first, *rest = compiled_code.CACHED_TOOLS.parts  # the folder it installs into, and the tools' folder in it
        self.assertIn(f"/{first}\"", script)
        self.assertIn("/".join(rest), script)

    def test_a_count_with_a_plus_is_a_least_count(self):
        sass = (self.barriers("_ZN6step0125reduce_interleaved_kernelIjEEvPKT_mPS1_", 2)
                + self.barriers("_ZN6step0125reduce_interleaved_kernelIfEEvPKT_mPS1_", 1))
        row = {"pattern": r"BAR\.SYNC", "function": "kernelIj", "count": "2+", "reason": "r"}
        self.assertEqual(compiled_code.check_rows([row], sass, "step01")[0], 0)
        self.assertEqual(compiled_code.check_rows([dict(row, count="1+")], sass, "step01")[0], 0)
        self.assertEqual(compiled_code.check_rows([dict(row, count="3+")], sass, "step01")[0], 1)
        missing, lines = compiled_code.check_rows([dict(row, function="")], sass, "step01")  # each kernel
        self.assertEqual(missing, 1)
        self.assertIn("expected at least 2", lines[0])


def parse_yaml(text):
    """The YAML that the workflow uses, parsed strictly: block mappings, block lists, plain or
    double-quoted scalars, '|' blocks. Raises ValueError on anything else."""
    lines = [(len(line) - len(line.lstrip(" ")), line.strip()) for line in text.splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    if any("\t" in line for line in text.splitlines()):
        raise ValueError("a tab")

    def scalar(text):
        if text.startswith('"'):
            if not text.endswith('"') or len(text) < 2:
                raise ValueError(f"an unclosed string: {text}")
            return text[1:-1]
        return text

    def node(i, indent):
        return (sequence if lines[i][1].startswith("- ") else mapping)(i, indent)

    def mapping(i, indent):
        result = {}
        while i < len(lines) and lines[i][0] == indent and not lines[i][1].startswith("- "):
            match = re.fullmatch(r'("[^"]+"|[\w-]+):(?:\s+(.*))?', lines[i][1])
            if not match or scalar(match[1]) in result:
                raise ValueError(f"not a new key: {lines[i][1]}")
            key, rest, i = scalar(match[1]), (match[2] or "").strip(), i + 1
            if rest == "|":
                body = []
                while i < len(lines) and lines[i][0] > indent:
                    body.append(lines[i][1])
                    i += 1
                result[key] = "\n".join(body)
            elif rest:
                result[key] = scalar(rest)
            elif i < len(lines) and (lines[i][0] > indent or lines[i][1].startswith("- ")):
                result[key], i = node(i, lines[i][0])
            else:
                result[key] = None
        return result, i

    def sequence(i, indent):
        items = []
        while i < len(lines) and lines[i][0] == indent and lines[i][1].startswith("- "):
            content = lines[i][1][2:]
            if re.match(r"[\w-]+:(\s|$)", content):  # a mapping: its first key on the dash's line
                lines[i] = (indent + 2, content)
                item, i = mapping(i, indent + 2)
            else:
                item, i = scalar(content), i + 1
            items.append(item)
        return items, i

    document, end = mapping(0, 0)
    if end != len(lines):
        raise ValueError(f"cannot read line: {lines[end][1]}")
    return document


class Workflow(unittest.TestCase):
    def test_parser_refuses_what_it_cannot_read(self):
        self.assertEqual(parse_yaml("a:\n  - b\n  - c: d\n    e: \"f\"\n"), {"a": ["b", {"c": "d", "e": "f"}]})
        for bad in ("a: b\n  c: d\n", "a:\n\tb: c\n", "a: \"b\n", "a: b\na: c\n"):
            with self.assertRaises(ValueError):
                parse_yaml(bad)

    def test_every_assignment_has_a_classroom_workflow_and_a_manifest_of_its_steps(self):
        with tempfile.TemporaryDirectory() as work:
            for step in FOLDERS:
                with self.subTest(step=step):
                    out = Path(work) / step
                    result = subprocess.run([sys.executable, "-m", "tools.make_exercise", step, str(out)], cwd=ROOT,
                                            capture_output=True, text=True)
                    self.assertEqual(result.returncode, 0, result.stderr)
                    self.check_workflow(step, parse_yaml((out / ".github" / "workflows" / "classroom.yml").read_text()))
                    row = manifest.find(step)  # the assignment's manifest: its two steps, for grade
                    course = manifest.load(out / "course" / "steps.csv")
                    self.assertEqual([s.folder for s in course], [f for f in (row.previous, step) if f])
                    self.assertEqual(manifest.find(step, course).previous, row.previous)

    def check_workflow(self, step, workflow):
        self.assertEqual(set(workflow["on"]), {"push", "workflow_dispatch"})
        job = workflow["jobs"]["run-autograding-tests"]
        self.assertEqual(job["runs-on"], "ubuntu-latest")
        steps = job["steps"]
        graders = [s for s in steps if s.get("uses") == "classroom-resources/autograding-command-grader@v1"]
        parts = [g["id"] for g in graders]
        has_rows = any(row["step"] == step for table in ("sass_checks.csv", "host_calls.csv")
                       for row in stamped_csv.read(TOOLS / table).rows)
        self.assertEqual(parts, [p for p in classroom.HOST_POINTS if has_rows or p != "compiled-code"])
        for grader in graders:
            self.assertEqual(grader["with"]["command"], f"bash -c \"./grade --check {grader['id']}; test $? -eq 4\"")
            self.assertEqual(int(grader["with"]["max-score"]), classroom.HOST_POINTS[grader["id"]])
        install = next(s for s in steps if "apt-get install" in s.get("run", ""))
        self.assertLess(steps.index(install), steps.index(graders[0]))
        self.assertIn("cuda-cuobjdump", install["run"])
        reporter = steps[-1]
        self.assertEqual(reporter["uses"], "classroom-resources/autograding-grading-reporter@v1")
        self.assertEqual(reporter["with"]["runners"], ",".join(parts))
        self.assertEqual(reporter["env"], {f"{p.upper()}_RESULTS": f"${{{{steps.{p}.outputs.result}}}}" for p in parts})


if __name__ == "__main__":
    unittest.main()
