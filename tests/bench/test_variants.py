"""bench/variants.py's run: a variant marked wrong_sums is timed only, so its failed check (exit 1) does
not fail the run; any other program's does, and so does a wrong_sums program that fails another way.
And every variant of the catalogue is made from its step as it is now: each edit finds its text once.

    python3 -m tests.bench.test_variants

The programs are stand-ins (small Python scripts) that print a stamped CSV row and exit as told.
"""

import contextlib
import io
import os
import stat
import sys
import tempfile
import unittest
from pathlib import Path

from bench import variants

STAND_IN = """#!{python}
import sys
print("# gpu: stand-in")
print("step,n,status")
print("{name},1,{status}")
sys.exit({code})
"""


class WrongSums(unittest.TestCase):
    def setUp(self):
        self.bin = tempfile.TemporaryDirectory()
        self.addCleanup(self.bin.cleanup)

    def program(self, name, code):
        path = Path(self.bin.name) / name
        path.write_text(STAND_IN.format(python=sys.executable, name=name, status="FAIL" if code else "PASS", code=code))
        path.chmod(path.stat().st_mode | stat.S_IXUSR)

    def run_table(self, programs, timed_only):
        table = {"types": ["float32"], "sizes": ["2^4"], "programs": programs, "command": "--n {n} --type {type}"}
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = variants.run(table, self.bin.name, frozenset(timed_only))
        return status, out.getvalue()

    def test_a_timed_only_failure_counts_as_done(self):
        self.program("step", 0)
        self.program("left_out", 1)
        status, out = self.run_table(["step", "left_out"], {"left_out"})
        self.assertEqual(status, 0)
        self.assertIn("left_out,1,FAIL", out)  # its row is kept, saying FAIL

    def test_any_other_failure_fails_the_run(self):
        self.program("step", 1)
        self.program("left_out", 1)
        self.assertEqual(self.run_table(["step", "left_out"], {"left_out"})[0], 1)
        self.assertEqual(self.run_table(["left_out"], set())[0], 1)  # not marked: a failure

    def test_a_timed_only_program_that_crashes_fails_the_run(self):
        self.program("left_out", 2)
        self.assertEqual(self.run_table(["left_out"], {"left_out"})[0], 1)

    def test_the_catalogue_marks_only_time_only_variants(self):
        import tomllib
        catalogue = tomllib.loads(variants.CATALOGUE.read_text())
        for variant in catalogue["variant"]:
            if variant.get("wrong_sums"):
                self.assertTrue(variant["measures"].startswith("time only, wrong sums"), variant["name"])


class Catalogue(unittest.TestCase):
    def test_every_variant_is_made_from_its_step_as_it_is(self):  # a step edited under a variant's edit fails here
        import tomllib
        for variant in tomllib.loads(variants.CATALOGUE.read_text())["variant"]:
            with self.subTest(variant["name"]):
                try:
                    files = variants.sources(variant)
                except variants.Refused as error:
                    self.fail(str(error))
                self.assertEqual(set(files), {"reduce.cuh", "main.cu"})


if __name__ == "__main__":
    unittest.main()
