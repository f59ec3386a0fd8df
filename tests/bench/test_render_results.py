#!/usr/bin/env python3
"""Tests of bench/render_results.py on the fixture in tests/data/bench (made-up numbers).

    python3 tests/bench/test_render_results.py

The Markdown, the README block and --check run everywhere; the charts only where matplotlib is
installed (otherwise that part says it is skipped)."""

import contextlib
import importlib.util
import io
import shutil
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "data" / "bench"


def load_renderer():
    spec = importlib.util.spec_from_file_location("render_results", ROOT / "bench" / "render_results.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


render = load_renderer()


def run_main(*args):
    """main()'s exit code, its stdout and stderr captured."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = render.main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


class ReadResults(unittest.TestCase):
    def test_stamp_lines_become_the_stamp_and_rows_are_typed(self):
        stamp, rows = render.read_results(FIXTURE / "headline.csv")
        self.assertEqual(stamp["gpu"], "Fixture GPU")
        self.assertEqual(stamp["commit"], "0123abc")
        self.assertEqual(stamp["l2"], "warm")
        self.assertEqual(len(rows), 8)
        self.assertEqual(rows[0]["n"], 1 << 20)
        self.assertIsNone(rows[0]["x_previous"])          # the first row has no previous one
        self.assertIsNone(rows[3]["x_previous"])          # nor has CUB
        self.assertAlmostEqual(rows[1]["x_previous"], 2.0)
        self.assertEqual(rows[0]["change"], "interleaved addressing, divergent branch")  # quoted comma

    def test_a_file_without_compare_header_is_rejected(self):
        with self.assertRaises(render.ResultsError):
            render.parse_results("# gpu: x\na,b,c\n1,2,3\n")
        with self.assertRaises(render.ResultsError):
            render.parse_results("# gpu: x\n" + ",".join(render.CSV_COLUMNS) + "\n")  # no rows

    def test_size_text(self):
        self.assertEqual(render.size_text(1 << 24), "2^24")
        self.assertEqual(render.size_text(1000), "1000")


class Markdown(unittest.TestCase):
    def setUp(self):
        self.stamp, self.rows = render.read_results(FIXTURE / "headline.csv")
        self.text = render.headline_markdown(self.stamp, self.rows)

    def table_lines(self):
        return [line for line in self.text.splitlines() if line.startswith("|")]

    def test_one_table_per_type_with_every_column(self):
        self.assertEqual(len(render.group_tables(self.rows)), 2)
        self.assertIn("**int32**, n = 1048576 (2^20), block 256, L2 warm", self.text)
        self.assertIn("**float32**", self.text)
        lines = self.table_lines()
        self.assertEqual(len(lines), 2 * (2 + 4))  # header, alignment and 4 rows, twice
        for line in lines:
            self.assertEqual(line.count("|"), len(render.TABLE_HEADERS) + 1, line)
        self.assertEqual(lines[0], "| step | what changed | median ms | GB/s | % of peak | x previous | x step01 "
                                   "| x CUB | check |")

    def test_cells_are_formatted_like_compare_text_table(self):
        lines = self.table_lines()
        self.assertEqual(lines[2], "| step01_interleaved | interleaved addressing, divergent branch | 0.0800 | 52.4 "
                                   "| 5.2 | - | 1.00 | 0.07 | PASS |")
        self.assertTrue(lines[5].startswith("| cub | cub::DeviceReduce::Sum (CUDA Toolkit) |"))
        self.assertIn("| - | 13.33 | 1.00 | PASS |", lines[5])  # CUB: no "x previous"

    def test_stamp_names_gpu_driver_cuda_date_commit_and_l2(self):
        paragraph = self.text.split("\n\n")[0]
        for part in ("Fixture GPU", "580.00.00", "CUDA 13.0", "2025-01-01T00:00:00Z", "0123abc", "L2 warm"):
            self.assertIn(part, paragraph)

    def test_a_pipe_in_a_cell_is_escaped(self):
        row = dict(self.rows[0], change="a | b")
        self.assertIn("a \\| b", render.markdown_table([row]))


class ReadmeBlock(unittest.TestCase):
    def setUp(self):
        self.readme = (FIXTURE / "README.md").read_text(encoding="utf-8")

    def test_only_the_marked_block_changes(self):
        updated = render.replace_block(self.readme, "new table\n")
        before, _, rest = self.readme.partition(render.BEGIN_MARKER)
        _, _, after = rest.partition(render.END_MARKER)
        self.assertTrue(updated.startswith(before + render.BEGIN_MARKER + "\nnew table\n" + render.END_MARKER))
        self.assertTrue(updated.endswith(render.END_MARKER + after))
        self.assertNotIn("stale", updated)

    def test_replacing_twice_changes_nothing(self):
        once = render.replace_block(self.readme, "table\n")
        self.assertEqual(render.replace_block(once, "table\n"), once)
        self.assertTrue(render.block_is_current(once, "table\n"))
        self.assertFalse(render.block_is_current(once, "other table\n"))

    def test_missing_or_misordered_markers_are_errors(self):
        with self.assertRaises(render.MarkerError):
            render.replace_block("# no markers\n", "table\n")
        with self.assertRaises(render.MarkerError):
            render.replace_block(render.END_MARKER + "\n" + render.BEGIN_MARKER + "\n", "table\n")
        with self.assertRaises(render.MarkerError):
            render.replace_block(self.readme + self.readme, "table\n")  # two blocks: which one?


class CommandLine(unittest.TestCase):
    """main() on a temporary copy of the fixture: results folder and README."""

    def setUp(self):
        self.temp = tempfile.TemporaryDirectory()
        self.dir = Path(self.temp.name)
        self.results = self.dir / "results"
        self.results.mkdir()
        for name in ("headline.csv", "sweep.csv"):
            shutil.copy(FIXTURE / name, self.results / name)
        self.readme = self.dir / "README.md"
        shutil.copy(FIXTURE / "README.md", self.readme)

    def tearDown(self):
        self.temp.cleanup()

    def test_writes_headline_md_and_readme_then_check_passes(self):
        self.assertEqual(run_main(self.results, "--readme", self.readme, "--check")[0], 1)  # stale block
        code, _, err = run_main(self.results, "--readme", self.readme)
        self.assertIn(code, (0, 3), err)  # 3: matplotlib missing, after the Markdown was written
        headline = (self.results / "headline.md").read_text(encoding="utf-8")
        readme = self.readme.read_text(encoding="utf-8")
        self.assertIn(render.BEGIN_MARKER + "\n" + headline + render.END_MARKER, readme)
        self.assertEqual(run_main(self.results, "--readme", self.readme, "--check")[0], 0)

    def test_check_writes_nothing(self):
        before = self.readme.read_text(encoding="utf-8")
        run_main(self.results, "--readme", self.readme, "--check")
        self.assertEqual(self.readme.read_text(encoding="utf-8"), before)
        self.assertFalse((self.results / "headline.md").exists())

    def test_readme_without_markers_exits_1_untouched(self):
        self.readme.write_text("# README without markers\n", encoding="utf-8")
        code, _, err = run_main(self.results, "--readme", self.readme)
        self.assertEqual(code, 1)
        self.assertIn("course-table:begin", err)
        self.assertEqual(self.readme.read_text(encoding="utf-8"), "# README without markers\n")
        self.assertFalse((self.results / "headline.md").exists())

    def test_missing_headline_csv_exits_2(self):
        (self.results / "headline.csv").unlink()
        code, _, err = run_main(self.results, "--readme", self.readme)
        self.assertEqual(code, 2)
        self.assertIn("headline.csv not found", err)


class Charts(unittest.TestCase):
    def test_charts_are_png_files(self):
        plt = render.load_pyplot()
        if plt is None:
            print("matplotlib is not installed: chart tests skipped (the Markdown tests ran)")
            self.skipTest("matplotlib is not installed")
        with tempfile.TemporaryDirectory() as temp:
            results = Path(temp)
            shutil.copy(FIXTURE / "sweep.csv", results / "sweep.csv")
            stamp, rows = render.read_results(FIXTURE / "headline.csv")
            written = render.render_charts(plt, results, stamp, rows)
            self.assertEqual(sorted(p.name for p in written),
                             ["headline.png", "sweep_float32.png", "sweep_int32.png"])
            for path in written:
                self.assertEqual(path.read_bytes()[:8], b"\x89PNG\r\n\x1a\n", path.name)


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=2).result
    sys.exit(0 if result.wasSuccessful() else 1)
