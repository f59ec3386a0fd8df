"""Tests of the renderer's pages (render/: pages, blocks, lessons, tables) on the fixture in
tests/data/render (made-up numbers).

    python3 -m tests.render.test_render_results

The fixture holds every kind of results file (compare's headline, headline_cold and sweep CSVs,
ncu.csv, an ablation CSV, the idle and the loaded latency CSVs, the run-to-run spread, a quoted text
file), two READMEs and a lab notes page that use every kind of block and inline value; the charts
are written as SVG."""

import contextlib
import io
import shutil
import sys
import tempfile
import unittest
from pathlib import Path

from course import stamped_csv
from render import blocks, lessons, pages, tables

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "data" / "render"
RESULT_FILES = ["headline.csv", "headline_cold.csv", "sweep.csv", "ncu.csv", "step07_loads.csv", "dram_latency.csv",
                "loaded_latency.csv", "spread.csv", "race_demo.txt"]
LESSON = Path("step02_fixture") / "README.md"
NOTES = LESSON.parent / "NOTES.md"  # the lesson's lab notes: inline values live there


def write_manifest(root, *folders):
    """A course/steps.csv under root naming `folders` (the steps whose pages are rendered)."""
    (root / "course").mkdir(parents=True, exist_ok=True)
    (root / "course" / "steps.csv").write_text(
        "folder,kind,previous,api,speed_at,change\n" + "".join(f"{f},single,,sum,,x\n" for f in folders),
        encoding="utf-8")


def copy_readme_tree(root):
    """The fixture's tree of READMEs under root: its README.md, the lesson and its lab notes, and the
    course/steps.csv that names the lesson's step."""
    (root / LESSON.parent).mkdir(parents=True)
    for page in ("README.md", LESSON, NOTES):
        shutil.copy(FIXTURE / page, root / page)
    write_manifest(root, LESSON.parent.name)


def run_main(*args):
    """main()'s exit code, its stdout and stderr captured."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = pages.main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


def render_fixture(text, name="README.md"):
    return pages.render_text(text, tables.Results(FIXTURE), name)


def rendered_block(spec, results):
    """What the results marker `spec` renders to between its two marker lines, and the number of changes."""
    updated, changes = pages.render_text(f"<!-- results:{spec} -->\n<!-- results:end -->\n", results, "README.md")
    return updated.split("\n", 1)[1].rsplit("<!-- results:end -->", 1)[0], changes


@contextlib.contextmanager
def folder_beside():
    """An empty results folder and one beside it, which a block names (`cub-grid gpu 24`, `exact-bits gpu`):
    (the first as Results, the path of the second, `gpu`)."""
    with tempfile.TemporaryDirectory() as temp:
        (Path(temp) / "here").mkdir()
        (Path(temp) / "gpu").mkdir()
        yield tables.Results(Path(temp) / "here"), Path(temp) / "gpu"


def untouched_until_measured(test, spec, results):
    """A block whose file is not measured yet renders to itself: its old text stays."""
    text = f"<!-- results:{spec} -->\nkept\n<!-- results:end -->\n"
    test.assertEqual(pages.render_text(text, results, "README.md"), (text, []))


class ReadResults(unittest.TestCase):
    def test_stamp_lines_become_the_stamp(self):
        table = tables.Results(FIXTURE).compare("headline.csv")
        self.assertEqual(table.stamp["gpu"], "Fixture GPU")
        self.assertEqual(table.stamp["commit"], "0123abc")
        self.assertEqual(table.stamp["l2"], "warm")
        self.assertEqual(len(table.rows), 10)
        self.assertEqual(table.rows[0]["change"], "interleaved addressing, divergent branch")  # quoted comma

    def test_a_file_without_compare_header_is_rejected_where_compare_output_is_needed(self):
        with self.assertRaises(tables.ResultsError):
            tables.Results(FIXTURE).compare("step07_loads.csv")
        with self.assertRaises(tables.ResultsError):
            stamped_csv.parse("# gpu: x\na,b,c\n", "x.csv")  # no rows
        with self.assertRaises(tables.ResultsError):
            stamped_csv.parse("a,b,c\n1,2\n", "x.csv")  # a short line

    def test_ncu_csv_has_a_stamp_and_its_header_like_any_other(self):
        table = tables.Results(FIXTURE).ncu()
        self.assertEqual(table.columns, ["step", "metric", "value"])
        self.assertEqual(table.rows[0]["step"], "step01_interleaved")
        self.assertEqual(table.stamp["gpu"], "Fixture GPU")

    def test_ncu_csv_without_its_header_is_an_error_not_guessed(self):
        with tempfile.TemporaryDirectory() as temp:
            text = (FIXTURE / "ncu.csv").read_text(encoding="utf-8").replace("step,metric,value\n", "")
            (Path(temp) / "ncu.csv").write_text(text, encoding="utf-8")
            with self.assertRaises(tables.ResultsError) as caught:
                tables.Results(temp).ncu()
            self.assertIn("expected the header step,metric,value", str(caught.exception))

    def test_size_text(self):
        self.assertEqual(tables.size_text(1 << 24), "2^24")
        self.assertEqual(tables.size_text("1000"), "1000")


class Blocks(unittest.TestCase):
    def block(self, spec):
        body, changes = rendered_block(spec, tables.Results(FIXTURE))
        self.assertEqual(len(changes), 1)
        return body

    def assert_block_holds(self, spec, *parts):
        """The block `spec` renders to a text that holds each of `parts`."""
        body = self.block(spec)
        for part in parts:
            self.assertIn(part, body)

    def test_cub_grid_leaves_its_block_alone_until_measured_then_says_the_grid(self):
        with folder_beside() as (results, gpu):
            untouched_until_measured(self, "cub-grid gpu 24", results)  # no cub_grid.csv yet
            (gpu / "cub_grid.csv").write_text(
                "# gpu: G\n# date_utc: D\n# commit: c\ntype,n,kernel,grid_size,block_size,registers_per_thread\n"
                "int32,16777216,DeviceReduceKernel,3960,256,40\nint32,16777216,DeviceReduceSingleTileKernel,1,256,38\n"
                "float32,16777216,DeviceReduceKernel,4096,256,32\n", encoding="utf-8")
            body, changes = rendered_block("cub-grid gpu 24", results)
            self.assertEqual(len(changes), 1)
            self.assertIn("int32, 3,960 blocks of 256 threads, its kernel compiled to 40 registers per thread (fewer "
                          "than the 4,096 tiles: the cap is the grid), then 1 block", body)
            self.assertIn("float32, 4,096 blocks of 256 threads, its kernel compiled to 32 registers per thread (one "
                          "tile each)", body)

    def test_exact_bits_counts_the_different_sums_and_marks_repeats(self):
        with folder_beside() as (results, gpu):
            untouched_until_measured(self, "exact-bits gpu", results)  # no exact_bits.csv yet
            rows = "".join(f"float32,19,{b},{step},1.5,{bits},{status}\n" for b in (32, 64) for step, bits, status in (
                ("step10_single_pass", "0x3FC00000" if b == 32 else "0x3FC00001", "PASS"),
                ("step14_exact_sum", "0x3FC00000", "PASS"), ("cub", "0x3FC00000", "-")))
            (gpu / "exact_bits.csv").write_text(
                "# gpu: G\n# date_utc: D\n# commit: c\ntype,n,block,step,result,bits,status\n" + rows, encoding="utf-8")
            body, changes = rendered_block("exact-bits gpu", results)
            self.assertEqual(len(changes), 1)
            wanted = ("| type | step | block 32 | block 64 | different sums |",
                      "| float32 | `step10_single_pass` | `0x3FC00000` | `0x3FC00001` | 2 |",
                      "| float32 | `step14_exact_sum` | `0x3FC00000` | = | 1 |",
                      "| float32 | `cub` | `0x3FC00000` | = | 1 |")  # CUB's '-' (timed only) is no failure
            self.assertEqual([line for line in wanted if line not in body], [])
            (gpu / "exact_bits.csv").write_text(
                "# gpu: G\n# date_utc: D\n# commit: c\ntype,n,block,step,result,bits,status\n"
                + rows.replace("0x3FC00000,PASS", "0x3FC00000,FAIL", 1), encoding="utf-8")
            with self.assertRaisesRegex(tables.ResultsError, "did not verify"):
                rendered_block("exact-bits gpu", results)
            # with step 15's rows (a gpus column: K, empty for a one-GPU step), one row per K
            rows = "".join(f"float32,19,{b},{step},{gpus},1.5,{bits},PASS\n" for b in (32, 64) for step, gpus, bits in (
                ("step14_exact_sum", "", "0x3FC00000"), ("step15_multi_gpu", "1", "0x3FC00000"),
                ("step15_multi_gpu", "2", "0x3FC00000" if b == 32 else "0x3FC00002")))
            (gpu / "exact_bits.csv").write_text(
                "# gpu: G\n# date_utc: D\n# commit: c\ntype,n,block,step,gpus,result,bits,status\n" + rows,
                encoding="utf-8")
            body, _ = rendered_block("exact-bits gpu", results)
            wanted = ("| float32 | `step14_exact_sum` | `0x3FC00000` | = | 1 |",
                      "| float32 | `step15_multi_gpu`, K = 1 | `0x3FC00000` | = | 1 |",
                      "| float32 | `step15_multi_gpu`, K = 2 | `0x3FC00000` | `0x3FC00002` | 2 |")
            self.assertEqual([line for line in wanted if line not in body], [])

    def test_exact_speed_adds_gpu_to_gpu_where_swept_and_marks_its_wrong_sums(self):
        with folder_beside() as (results, gpu):
            untouched_until_measured(self, "exact-speed gpu", results)  # no exact_sweep_*.csv yet
            for t in ("float32", "float64"):
                rows = ["type,op,n,block,step,time_median_ms,status"]
                for log2 in (10, 16, 20, 24, 28, 30, 32):
                    for step, ms, status in (("step13_bulk_copies", 1.0, "PASS"), ("step14_exact_sum", 2.0, "PASS"),
                                             ("cub", 1.0, "PASS"),
                                             ("cub_gpu_to_gpu", 4.0, "FAIL" if t == "float64" and log2 == 32 else "PASS")):
                        rows.append(f"{t},sum,{1 << log2},256,{step},{ms},{status}")
                (gpu / f"exact_sweep_{t}.csv").write_text(
                    "# gpu: G\n# date_utc: D\n# commit: c\n" + "\n".join(rows) + "\n", encoding="utf-8")
            body, changes = rendered_block("exact-speed gpu", results)
            self.assertEqual(len(changes), 1)
            wanted = ("| CUB gpu_to_gpu µs | step14 speed / step13 | step14 speed / CUB | step14 speed / gpu_to_gpu |",
                      "| float32 | 2^10 | 1,000.0 | 2,000.0 | 1,000.0 | 4,000.0 | 0.50 | 0.50 | 2.00 |",
                      "| float64 | 2^32 | 1,000.0 | 2,000.0 | 1,000.0 | 4,000.0 (wrong sum) | 0.50 | 0.50 | 2.00 |")
            self.assertEqual([line for line in wanted if line not in body], [])

    def test_course_table_has_warm_and_cold_tables_with_every_row(self):
        body = self.block("course-table")
        self.assertIn("**int32** sum, n = 1048576 (2^20), block 256, L2 warm:", body)
        self.assertIn("**float32** sum, n = 1048576 (2^20), block 256, L2 flushed:", body)
        rows = [line for line in body.splitlines() if line.startswith("| step01_interleaved")]
        self.assertEqual(len(rows), 4)
        self.assertEqual(rows[0], "| step01_interleaved | interleaved addressing, divergent branch | 0.0800 | 52.4 "
                                  "| 5.2 | 65.5 | - | 1.00 | 0.07 | PASS |")
        for part in ("Fixture GPU", "580.00.00", "CUDA 13.0", "2025-01-01T00:00:00Z", "0123abc", "L2 warm"):
            self.assertIn(part, body)

    def test_read_probe_is_the_ceiling_not_a_step(self):
        body = self.block("course-table")
        probe = [line for line in body.splitlines() if line.startswith("| read_probe")][0]
        self.assertIn("read ceiling", probe)
        self.assertTrue(probe.endswith("| - | - | - | - |"), probe)

    def test_no_table_cell_is_empty(self):
        for spec in ("course-table", "step-table step02_nondivergent", "ncu step02_nondivergent step01_interleaved",
                     "csv step07_loads.csv"):
            for line in self.block(spec).splitlines():
                if line.startswith("|"):
                    self.assertNotIn("|  |", line, f"{spec}: {line}")

    def test_step_table_shows_previous_step_and_cub_warm_and_cold(self):
        body = self.block("step-table step02_nondivergent")
        lines = [line for line in body.splitlines() if line.startswith("| int32") or line.startswith("| float32")]
        self.assertEqual(len(lines), 12)  # 3 rows x 2 types x 2 L2 modes
        self.assertEqual(lines[1], "| int32 | warm | **step02_nondivergent** | 0.0400 | 104.9 | 10.5 | 131.1 | 2.00 "
                                   "| 0.15 |")

    def test_headline_is_one_int32_warm_row_per_gpu_with_a_stamp(self):
        body = self.block("headline step02_nondivergent")
        self.assertIn("| GPU | n | median µs | GB/s | × previous step | × CUB |", body)
        self.assertIn("| Fixture GPU | 2^20 | 40.0 | 104.9 | 2.00 | 0.15 |", body)
        self.assertIn("Fixture GPU: Fixture GPU; measured 2025-01-01T00:00:00Z; commit `0123abc`", body)
        self.assertIn("Every row verified.", body)
        self.assertEqual(len([line for line in body.splitlines() if line.startswith("| Fixture")]), 1)

    def test_headline_of_the_first_step_has_no_previous(self):
        self.assertIn("| 80.0 | 52.4 | - | 0.07 |", self.block("headline step01_interleaved"))

    def test_headline_of_an_unmeasured_step_is_an_error(self):
        with self.assertRaisesRegex(tables.ResultsError, "'type=int32 l2=warm step=step05_warp_unroll' matches 0 rows"):
            self.block("headline step05_warp_unroll")

    def test_step_table_of_the_first_step_has_no_previous(self):
        body = self.block("step-table step01_interleaved")
        self.assertEqual(len([line for line in body.splitlines() if line.startswith("| int32")]), 4)

    def test_ncu_table_scales_and_explains_each_counter(self):
        self.assert_block_holds("ncu step02_nondivergent step01_interleaved", "| duration, us | 80.0 | 40.0 |",
                                "| warp instructions, millions | 1.23 | 0.65 |",
                                "per issue | 2.50 | 3.12 | warp-cycles")

    def test_ncu_table_of_one_step(self):
        self.assert_block_holds("ncu step01_interleaved", "| counter | step01_interleaved | what it counts |")

    def test_csv_block_takes_any_columns(self):
        self.assert_block_holds("csv step07_loads.csv",
                                "| type | n | loads | time_median_ms | gbps | percent_of_peak |",
                                "| int32 | 2^28 | 4 | 1.1000 | 976.1 | 97.6 |")
        self.assert_block_holds("csv step07_loads.csv cols=loads,gbps", "| loads | gbps |")

    def test_sweep_claims_say_where_each_step_wins(self):
        self.assert_block_holds(
            "sweep-claims",
            "From n = 2^22 up, every step is faster than the one before it",
            "| step02_nondivergent | step01_interleaved | 2^22 (slower or equal at 1 smaller sizes) |",
            "| step07_multi_level | step02_nondivergent | every size | every size |",
            "| 2^24 | 1.016 | 1.016 |", "| 2^28 | 1.017 | 1.017 |",
            "At n = 2^28, step07_multi_level reaches 697.2 GB/s (69.7 % of peak) and CUB 685.8 GB/s.")

    def test_sweep_claims_call_level_what_the_measured_spread_cannot_tell_apart(self):
        body = self.block("sweep-claims")  # int32: step07 varies 2.9 % run to run, so 1.016 is level
        self.assertIn("within the larger run-to-run spread of the two rows counts as level: 2.9 % for int32 and "
                      "0.5 % for float32, over 5 separate runs of the headline at n = 2^20 (spread.csv)", body)
        self.assertIn("for int32, level at 2^20 .. 2^28; for float32, faster at 2^20 .. 2^28", body)

    def test_sweep_claims_fall_back_to_one_percent_and_say_so(self):
        with tempfile.TemporaryDirectory() as temp:
            shutil.copy(FIXTURE / "sweep.csv", Path(temp) / "sweep.csv")
            body = blocks.render_sweep_claims(tables.Results(temp))
        self.assertIn("1 % either way counts as level, a fixed rule until spread.csv", body)
        self.assertIn("for int32, level at 2^20, faster at 2^22 .. 2^28", body)

    def test_versus_cub_level_band_is_symmetric_in_time(self):
        self.assertEqual(tables.versus_text([(1024, 1.02), (2048, 1 / 1.02), (4096, 1.03)], 0.02),
                         "level at 2^10 .. 2^11, faster at 2^12")

    def test_issue_floor_at_the_clock_ncu_measured(self):
        body = self.block("issue-floor step01_interleaved")
        # 1,234,567 instructions / (100 SMs x 4) = 3,086 cycles; at 1.5 GHz, 2 us of the 80 us measured
        self.assertEqual(body, "at least 3,086 cycles (instructions / 400), or 2 us at the 1.50 GHz SM clock ncu ran "
                               "that launch at (`sm__cycles_elapsed.avg.per_second`): 3 % of the 80 us the profiler "
                               "measured for it.\n")

    def test_issue_floor_without_the_clock_gives_cycles_only(self):
        body = self.block("issue-floor step02_nondivergent")
        self.assertIn("at least 1,636 cycles (instructions / 400). The profiler measured 40 us", body)
        self.assertIn("not turned into microseconds", body)

    def test_littles_law_beside_step07_loads(self):
        body = self.block("littles-law")
        self.assertIn("| loads | MB in flight (at most) | loaded latency, ns | stream GB/s |", body)
        # 4 loads: 204,544 threads x 16 B = 3.3 MB; / 3400 ns = 963 GB/s, capped at the best, 955
        self.assertIn("| 4 | 3.3 | 3400 | 950 | 963 | 955 | 976 |", body)
        self.assertIn("| 1 | 0.8 | 1000 | 780 | 818 | 818 | - |", body)
        self.assertIn("The most the memory delivered is 955 GB/s (with 8 loads), at a loaded latency of 6800 ns, "
                      "22.7 times the idle 300 ns: Little's law needs 6.5 MB in flight for it, 32 bytes per "
                      "resident thread.", body)
        self.assertIn("Step 07's measured bandwidth is", body)

    def test_littles_law_need_per_thread(self):
        self.assertIn("needs 6.5 MB in flight, 32 bytes per resident thread. 16 bytes per thread is less than that.",
                      self.block("littles-law-need 16"))
        self.assertIn("64 bytes per thread is more than that.", self.block("littles-law-need 64"))

    def test_littles_law_not_measured_yet_says_so_with_the_idle_latency(self):
        with tempfile.TemporaryDirectory() as temp:
            shutil.copy(FIXTURE / "dram_latency.csv", Path(temp) / "dram_latency.csv")
            results = tables.Results(temp)
            for body in (lessons.render_littles_law(results),
                         lessons.render_littles_law_need(results, "16", "here")):
                self.assertIn("*Not measured yet*: `loaded_latency.csv` does not exist", body)
                self.assertIn("the idle one, 612 ns", body)

    def test_loaded_latency_rows_not_under_load_are_an_error(self):
        text = (FIXTURE / "loaded_latency.csv").read_text(encoding="utf-8")
        results = tables.Results(FIXTURE)
        results._tables["loaded_latency.csv"] = stamped_csv.parse(
            text.replace("1000,ok", "1000,streamers not all resident", 1), "loaded_latency.csv")
        with self.assertRaises(tables.ResultsError) as caught:
            lessons.render_littles_law(results)
        self.assertIn("not measured under load", str(caught.exception))

    def test_sweep_claims_say_when_a_step_never_wins(self):
        text = (FIXTURE / "sweep.csv").read_text(encoding="utf-8")
        table = stamped_csv.parse(text.replace(",1.540000,", ",99.000000,"), "sweep.csv")  # step07 at 2^28, int32
        results = tables.Results(FIXTURE)
        results._tables["sweep.csv"] = table
        body = blocks.render_sweep_claims(results)
        self.assertIn("Not every step is faster", body)
        self.assertIn("| step07_multi_level | step02_nondivergent | not at 2^28 | every size |", body)

    def test_quote_is_verbatim_in_a_code_block(self):
        body = self.block("quote race_demo.txt")
        self.assertEqual(body, "```\n" + (FIXTURE / "race_demo.txt").read_text(encoding="utf-8") + "```\n")

    def test_bad_blocks_are_errors_naming_file_line_and_block(self):
        for spec in ("no-such-kind", "step-table step99_none", "ncu step02_nondivergent step99", "csv missing.csv",
                     "quote missing.txt", "csv step07_loads.csv cols=nope", "issue-floor step99",
                     "littles-law extra", "littles-law-need x"):
            with self.assertRaises(tables.ResultsError, msg=spec) as caught:
                render_fixture(f"text\n<!-- results:{spec} -->\n<!-- results:end -->\n", "lesson.md")
            self.assertTrue(str(caught.exception).startswith("lesson.md line 2, block"), str(caught.exception))

    def test_a_block_without_end_is_an_error(self):
        with self.assertRaises(tables.ResultsError) as caught:
            render_fixture("<!-- results:course-table -->\nno end\n", "lesson.md")
        self.assertIn("lesson.md line 1", str(caught.exception))

    def test_only_the_blocks_change_and_twice_changes_nothing(self):
        text = (FIXTURE / "README.md").read_text(encoding="utf-8")
        once, changes = render_fixture(text)
        self.assertTrue(changes)
        self.assertNotIn("stale", once)
        self.assertTrue(once.startswith("# Fixture README\n\nText above the course table stays exactly as it is.\n"))
        self.assertIn("Text between blocks stays too: | pipes, `code`, trailing spaces   \n", once)
        twice, changes = render_fixture(once)
        self.assertEqual(twice, once)
        self.assertEqual(changes, [])


class InlineValues(unittest.TestCase):
    def value(self, spec, form="v"):
        updated, _ = render_fixture(f"x <!--{form} {spec}-->?<!--/{form}--> y\n", "lesson.md")
        return updated.split("-->", 1)[1].split("<!--", 1)[0]

    def test_value_with_the_column_default_format(self):
        self.assertEqual(self.value("headline.csv type=int32 step=step07_multi_level col=gbps"), "599.2")
        self.assertEqual(self.value("headline.csv type=int32 step=step07_multi_level col=time_median_ms"), "0.0070")
        self.assertEqual(self.value("headline.csv type=int32 step=step07_multi_level col=n"), "2^20")
        self.assertEqual(self.value("ncu.csv step=step01_interleaved metric=smsp__inst_executed.sum col=value"),
                         "1234567")

    def test_fmt_overrides_and_max_picks_the_extreme_row(self):
        self.assertEqual(self.value("headline.csv type=int32 step=cub col=gbps fmt=.0f"), "699")
        self.assertEqual(self.value("dram_latency.csv footprint_bytes=max col=latency_ns"), "612")
        self.assertEqual(self.value("dram_latency.csv footprint_bytes=min col=latency_ns fmt=.1f"), "250.5")

    def test_scale_multiplies_first(self):
        spec = "ncu.csv step=step01_interleaved metric=smsp__inst_executed.sum col=value scale=1e-6 fmt=.1f"
        self.assertEqual(self.value(spec), "1.2")
        with self.assertRaises(tables.ResultsError):
            self.value("ncu.csv step=step01_interleaved metric=smsp__inst_executed.sum col=value scale=x")

    def test_ratio_of_times_reads_as_times_faster(self):
        spec = "headline.csv col=time_median_ms type=int32 step=step07_multi_level / step=step01_interleaved"
        self.assertEqual(self.value(spec, "r"), "11.43")
        spec = "headline.csv col=gbps fmt=.3f type=int32 step=step07_multi_level / step=cub"
        self.assertEqual(self.value(spec, "r"), "0.857")

    def test_selector_errors_name_the_selector(self):
        cases = {
            "headline.csv type=int32 col=gbps": "matches 5 rows",
            "headline.csv type=int64 step=cub col=gbps": "matches 0 rows",
            "headline.csv type=int32 step=cub colour=red col=gbps": "no column 'colour'",
            "headline.csv type=int32 step=cub": "col=COLUMN is missing",
            "headline.csv type=int32 step=cub col=nothing": "no column 'nothing'",
            "headline.csv type=int32 step col=gbps": "'step' is not key=value",
            "missing.csv type=int32 col=gbps": "missing.csv not found",
        }
        for spec, message in cases.items():
            with self.assertRaises(tables.ResultsError, msg=spec) as caught:
                self.value(spec)
            self.assertIn(message, str(caught.exception), spec)
            self.assertIn("lesson.md line 1", str(caught.exception), spec)

    def test_an_empty_value_is_an_error_not_a_blank(self):
        table = stamped_csv.parse("step,gbps,x_cub\nstep01,,\n", "t.csv")
        with self.assertRaises(tables.ResultsError) as caught:
            tables.format_value(table, table.rows[0], "gbps")
        self.assertIn("column 'gbps' is empty", str(caught.exception))
        self.assertEqual(tables.format_value(table, table.rows[0], "x_cub"), "-")  # nothing to compare with

    def test_a_ratio_needs_two_selectors(self):
        with self.assertRaises(tables.ResultsError):
            self.value("headline.csv col=gbps type=int32 step=cub", "r")


class CommandLine(unittest.TestCase):
    """main() on a temporary copy of the fixture: a results folder and a tree of READMEs."""

    def setUp(self):
        self.temp = tempfile.TemporaryDirectory()
        self.dir = Path(self.temp.name)
        self.results = self.dir / "results"
        self.results.mkdir()
        for name in RESULT_FILES:
            shutil.copy(FIXTURE / name, self.results / name)
        self.root = self.dir / "repo"
        copy_readme_tree(self.root)

    def tearDown(self):
        self.temp.cleanup()

    def main(self, *extra):
        return run_main(self.results, "--root", self.root, *extra)

    def test_writes_every_readme_then_check_passes(self):
        self.assertEqual(self.main("--check")[0], 1)  # stale blocks
        code, _, err = self.main()
        self.assertEqual(code, 0, err)
        lesson = (self.root / LESSON).read_text(encoding="utf-8")
        self.assertIn("| int32 | 2^28 | 4 | 1.1000 | 976.1 | 97.6 |", lesson)
        self.assertTrue((self.results / "headline.md").is_file())
        self.assertEqual(self.main("--check"), (0, "", ""))

    def test_check_fails_on_a_hand_edited_number_and_names_file_and_block(self):
        self.main()
        lesson = self.root / LESSON
        text = lesson.read_text(encoding="utf-8")
        lesson.write_text(text.replace("| 976.1 |", "| 977.0 |"), encoding="utf-8")
        code, _, err = self.main("--check")
        self.assertEqual(code, 1)
        self.assertRegex(err, r"step02_fixture/README.md line \d+, block 'csv step07_loads.csv' differs")
        lesson.write_text(text, encoding="utf-8")
        notes = self.root / NOTES
        notes.write_text(notes.read_text(encoding="utf-8").replace("-->612<!--", "-->600<!--"), encoding="utf-8")
        code, _, err = self.main("--check")
        self.assertEqual(code, 1)
        self.assertIn("step02_fixture/NOTES.md line 3, value", err)
        self.assertIn("reads '600', the results give '612'", err)

    def test_check_writes_nothing(self):
        before = (self.root / "README.md").read_text(encoding="utf-8")
        self.main("--check")
        self.assertEqual((self.root / "README.md").read_text(encoding="utf-8"), before)
        self.assertFalse((self.results / "headline.md").exists())

    def test_new_step_lessons_are_found_by_the_manifest(self):
        write_manifest(self.root, LESSON.parent.name, "step99_new")
        extra = self.root / "step99_new" / "README.md"
        extra.parent.mkdir()
        extra.write_text("<!--v headline.csv type=float32 step=cub col=gbps-->1<!--/v-->\n", encoding="utf-8")
        code, _, err = self.main("--check")
        self.assertEqual(code, 1)
        self.assertIn("step99_new/README.md line 1", err)

    def test_lab_notes_are_rendered_and_may_hold_inline_values(self):
        notes = self.root / LESSON.parent / "NOTES.md"
        notes.write_text("Step 02: <!--v headline.csv type=int32 step=step02_nondivergent col=gbps-->1<!--/v--> GB/s\n"
                         "<!-- results:headline step02_nondivergent -->\n<!-- results:end -->\n", encoding="utf-8")
        code, _, err = self.main("--check")
        self.assertEqual(code, 1)
        self.assertIn("step02_fixture/NOTES.md line 1, value", err)
        self.assertIn("step02_fixture/NOTES.md line 2, block 'headline step02_nondivergent' differs", err)
        self.assertNotIn("core lesson", err)
        self.main()
        self.assertIn("-->104.9<!--/v--> GB/s", notes.read_text(encoding="utf-8"))
        self.assertEqual(self.main("--check"), (0, "", ""))

    def test_a_core_lesson_with_an_inline_value_fails_the_check(self):
        self.main()
        write_manifest(self.root, LESSON.parent.name, "step03_core")
        lesson = self.root / "step03_core" / "README.md"
        lesson.parent.mkdir()
        lesson.write_text("# Step 03\n\n<!-- results:headline step02_nondivergent -->\n<!-- results:end -->\n"
                          "It reaches <!--v headline.csv type=int32 step=cub col=gbps-->699.1<!--/v--> GB/s.\n",
                          encoding="utf-8")
        code, _, err = self.main("--check")
        self.assertEqual(code, 1)
        self.assertIn("step03_core/README.md line 5: a core lesson carries whole blocks only", err)
        self.assertNotIn("line 3:", err)  # the whole-block marker is where it belongs

    def test_results_pages_show_their_own_folder(self):
        page = self.root / "results" / "other" / "README.md"
        page.parent.mkdir(parents=True)
        for name in ("headline.csv", "step07_loads.csv"):
            shutil.copy(FIXTURE / "h200" / name if name == "headline.csv" else FIXTURE / name, page.parent / name)
        page.write_text("<!-- results:headline step02_nondivergent -->\n<!-- results:end -->\n"
                        "<!--v headline.csv type=int32 step=cub col=gbps-->1<!--/v-->\n", encoding="utf-8")
        code, _, err = self.main("--check")
        self.assertEqual(code, 1)
        self.assertIn("results/other/README.md line 1, block 'headline step02_nondivergent' differs", err)
        self.main()
        text = page.read_text(encoding="utf-8")
        self.assertIn("| Fixture GPU H200 | 2^20 | 20.0 | 209.7 |", text)  # the folder's own headline.csv
        self.assertIn("-->1398.1<!--/v-->", text)
        self.assertEqual(self.main("--check"), (0, "", ""))

    def test_missing_csv_exits_2_and_writes_nothing(self):
        (self.results / "step07_loads.csv").unlink()
        before = (self.root / "README.md").read_text(encoding="utf-8")
        code, _, err = self.main()
        self.assertEqual(code, 2)
        self.assertIn("step07_loads.csv not found", err)
        self.assertEqual((self.root / "README.md").read_text(encoding="utf-8"), before)

    def test_bad_selector_exits_2(self):
        (self.root / LESSON).write_text("<!--v headline.csv type=int32 col=gbps-->1<!--/v-->\n", encoding="utf-8")
        code, _, err = self.main("--check")
        self.assertEqual(code, 2)
        self.assertIn("selector 'type=int32' matches 5 rows", err)



class Peers(unittest.TestCase):
    """The 'peers' block: torch and CuPy (peers.csv) beside the course's last step and CUB (sweep.csv)."""

    def block(self, results):
        return rendered_block("peers", results)[0]

    def test_each_library_beside_the_last_step_and_cub_at_the_sizes_both_measured(self):
        body = self.block(tables.Results(FIXTURE))
        self.assertIn("| library | sums into | 2^20 | 2^24 | 2^28 | check |", body)  # int32: three sizes
        self.assertIn("| torch | int64 | 419.4 | 671.1 | 894.8 | PASS |", body)
        self.assertIn("| step07_multi_level | int32 (modulo 2^32) |", body)
        self.assertIn("| library | sums into | 2^20 | 2^24 | check |", body)  # float32: peers.csv stops at 2^24
        self.assertIn("| torch | float32 | 381.3 | 610.1 | PASS |", body)  # a '-' beside a PASS is still PASS
        self.assertIn("| cupy | float32 | 199.7 | 319.6 | FAIL |", body)
        self.assertIn("torch: torch.cuda.Event pair per chunk", body)
        for line in body.splitlines():
            if line.startswith("|"):
                self.assertNotIn("|  |", line)

    def test_without_peers_csv_the_block_says_how_to_measure(self):
        with tempfile.TemporaryDirectory() as temp:
            shutil.copy(FIXTURE / "sweep.csv", Path(temp) / "sweep.csv")
            self.assertIn("bench/reproduce.sh --only sweep,peers", self.block(tables.Results(temp)))

    def test_peers_from_another_gpu_than_the_sweep_is_an_error(self):
        with tempfile.TemporaryDirectory() as temp:
            shutil.copy(FIXTURE / "sweep.csv", Path(temp) / "sweep.csv")
            text = (FIXTURE / "peers.csv").read_text(encoding="utf-8").replace("# gpu: Fixture GPU", "# gpu: Other")
            (Path(temp) / "peers.csv").write_text(text, encoding="utf-8")
            with self.assertRaisesRegex(tables.ResultsError, "not be like for like"):
                self.block(tables.Results(temp))


class SecondGpu(unittest.TestCase):
    """results/h200 beside results/h100: extra columns in the course and step tables, the same READMEs
    from either folder, and nothing new without results/h200."""

    def setUp(self):
        self.temp = tempfile.TemporaryDirectory()
        self.dir = Path(self.temp.name)
        self.h100 = self.dir / "results" / "h100"
        self.h100.mkdir(parents=True)
        for name in RESULT_FILES + ["peers.csv"]:
            shutil.copy(FIXTURE / name, self.h100 / name)
        self.root = self.dir / "repo"
        copy_readme_tree(self.root)
        self.h200 = self.dir / "results" / "h200"

    def tearDown(self):
        self.temp.cleanup()

    def add_h200(self):
        self.h200.mkdir()
        shutil.copy(FIXTURE / "h200" / "headline.csv", self.h200 / "headline.csv")

    def readme(self):
        return (self.root / "README.md").read_text(encoding="utf-8")

    def test_without_h200_nothing_is_added(self):
        code, _, err = run_main(self.h100, "--root", self.root)
        self.assertEqual(code, 0, err)
        self.assertNotIn("H200", self.readme())

    def test_h200_columns_beside_the_h100_rows(self):
        self.add_h200()
        code, _, err = run_main(self.h100, "--root", self.root)
        self.assertEqual(code, 0, err)
        text = self.readme()
        self.assertIn("| x CUB | check | H200 median ms | H200 GB/s |", text)
        self.assertIn("H200 columns: **Fixture GPU H200**", text)
        self.assertIn("| 0.07 | PASS | 0.0400 | 104.9 |", text)  # step01 int32, warm: twice as fast
        float_step02 = [line for line in text.splitlines()
                        if line.startswith("| step02_nondivergent") and line.endswith("| - | - |")]
        self.assertTrue(float_step02, "a row the H200 did not measure shows '-'")
        lesson = (self.root / LESSON).read_text(encoding="utf-8")
        self.assertIn("H200 median ms", lesson)
        self.assertNotIn("H200", (self.h100 / "headline.md").read_text(encoding="utf-8"))

    def test_headline_has_a_row_per_gpu(self):
        self.add_h200()
        lesson = self.root / LESSON
        lesson.write_text("<!-- results:headline step02_nondivergent -->\n<!-- results:end -->\n", encoding="utf-8")
        run_main(self.h100, "--root", self.root)
        text = lesson.read_text(encoding="utf-8")
        self.assertIn("| H100 | 2^20 | 40.0 | 104.9 | 2.00 | 0.15 |", text)
        self.assertIn("| H200 | 2^20 | 20.0 | 209.7 | 2.00 | 0.15 |", text)
        self.assertIn("H200: Fixture GPU H200; measured 2025-02-02T00:00:00Z", text)
        self.assertEqual(run_main(self.h200, "--root", self.root, "--check"), (0, "", ""))

    def test_results_pages_of_h100_and_h200(self):
        self.add_h200()
        for gpu in ("h100", "h200"):
            page = self.root / "results" / gpu / "README.md"
            page.parent.mkdir(parents=True)
            page.write_text("<!-- results:course-table -->\n<!-- results:end -->\n", encoding="utf-8")
        # the pages' results folders are those under --root: copy the CSVs there
        for gpu, source in (("h100", self.h100), ("h200", self.h200)):
            for csv in source.iterdir():
                shutil.copy(csv, self.root / "results" / gpu / csv.name)
        run_main(self.h100, "--root", self.root)
        h100 = (self.root / "results" / "h100" / "README.md").read_text(encoding="utf-8")
        h200 = (self.root / "results" / "h200" / "README.md").read_text(encoding="utf-8")
        self.assertIn("H200 median ms", h100)  # the H200 beside the H100, as in the READMEs
        self.assertIn("**Fixture GPU H200**", h200)
        self.assertNotIn("H200 median ms", h200)

    def test_rendering_from_h200_gives_the_same_readmes(self):
        self.add_h200()
        run_main(self.h100, "--root", self.root)
        before = self.readme()
        self.assertEqual(run_main(self.h200, "--root", self.root, "--check"), (0, "", ""))
        code, _, err = run_main(self.h200, "--root", self.root)
        self.assertEqual(code, 0, err)
        self.assertEqual(self.readme(), before)
        own = (self.h200 / "headline.md").read_text(encoding="utf-8")  # the folder's own table
        self.assertIn("**Fixture GPU H200**", own)
        self.assertNotIn("H200 median ms", own)


class Charts(unittest.TestCase):
    def test_charts_are_svg_files(self):
        with tempfile.TemporaryDirectory() as temp:
            results = Path(temp)
            for name in ("headline.csv", "sweep.csv"):
                shutil.copy(FIXTURE / name, results / name)
            written = pages.render_charts(tables.Results(results))
            self.assertEqual(sorted(p.name for p in written),
                             ["headline.svg", "sweep_float32.svg", "sweep_int32.svg"])
            for path in written:
                self.assertTrue(path.read_text(encoding="utf-8").startswith("<svg "), path.name)


class Mutants(unittest.TestCase):
    def block(self, results):
        return rendered_block("mutants", results)[0]

    def test_each_mistake_with_its_symptom_and_the_test_that_caught_it(self):
        body = self.block(tables.Results(FIXTURE))
        self.assertIn("| step | mistake | what a student sees | caught by |", body)
        self.assertIn("| step04 | The step's change was not made: one element per thread, as in step 03. | "
                      "Right sums at step 03's speed; only the speed check sees it. | `speed_step04` |", body)
        self.assertIn("| nothing: every test passes |", body)
        self.assertIn("| nothing can: the same program in effect |", body)
        self.assertIn("| not run: every test was skipped |", body)
        self.assertIn("5 mistakes: 2 killed, 1 survived, 1 equivalent, 1 untested.", body)

    def test_without_the_file_says_how_to_make_it(self):
        with tempfile.TemporaryDirectory() as empty:
            self.assertIn("bench/reproduce.sh --only mutants", self.block(tables.Results(empty)))

    def test_an_unknown_status_is_an_error(self):
        with tempfile.TemporaryDirectory() as folder:
            text = (FIXTURE / "mutants.csv").read_text().replace(",survived,", ",lost,")
            (Path(folder) / "mutants.csv").write_text(text)
            with self.assertRaises(tables.ResultsError):
                blocks.render_mutants(tables.Results(folder), context="here")

    def test_a_folder_named_renders_that_folders_file(self):
        with folder_beside() as (results, gpu):
            (gpu / "mutants.csv").write_text((FIXTURE / "mutants.csv").read_text())
            self.assertIn("bench/reproduce.sh --only mutants", self.block(results))  # here: none
            self.assertIn("5 mistakes: 2 killed, 1 survived, 1 equivalent, 1 untested.",
                          rendered_block("mutants gpu", results)[0])


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=1).result
    sys.exit(0 if result.wasSuccessful() else 1)
