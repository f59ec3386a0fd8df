"""Tests of the figures (render/: figures, charts, source, svg): the reading of C expressions,
the extraction from the steps' code, the SVG writer, and --check on a copy of the repository's inputs
(stale, missing and unreadable cases).

    python3 -m tests.render.test_figures
"""

import contextlib
import io
import re
import shutil
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from course import stamped_csv
from render import charts, figures, source, svg as svg_writer

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "data" / "render"


def run_main(*args):
    """main()'s exit code, its stdout and stderr captured."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = figures.main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


def copy_inputs(destination):
    """What the figures are drawn from, and the figures themselves, copied under `destination`."""
    for step in sorted(ROOT.glob("step*_*")):
        if (step / "reduce.cuh").is_file():
            (destination / step.name).mkdir()
            shutil.copy(step / "reduce.cuh", destination / step.name / "reduce.cuh")
        if (step / "figures").is_dir():
            shutil.copytree(step / "figures", destination / step.name / "figures")
    (destination / "common").mkdir()
    for name in ("operators.h", "exact_sum.h"):
        shutil.copy(ROOT / "common" / name, destination / "common" / name)
    for folder in sorted((ROOT / "results").iterdir()):
        if folder.is_dir():
            (destination / "results" / folder.name).mkdir(parents=True)
            for name in ("headline.csv", "sweep.csv", "step12_variants.csv", "headline.svg", "sweep_int32.svg",
                         "sweep_float32.svg"):
                if (folder / name).is_file():
                    shutil.copy(folder / name, destination / "results" / folder.name / name)


class Expressions(unittest.TestCase):
    def test_c_arithmetic_is_evaluated_with_integer_division(self):
        names = {"tid": 6, "s": 2, "blockDim_x": 16}
        self.assertFalse(source.evaluate("tid % (2 * s) == 0", names))
        self.assertTrue(source.evaluate("tid % (2 * s) == 0", dict(names, tid=8)))
        self.assertEqual(source.evaluate("2 * s * tid", names), 24)
        self.assertEqual(source.evaluate("blockDim.x / 2", names), 8)
        self.assertEqual(source.evaluate("blockDim.x / 3", names), 5)
        self.assertTrue(source.evaluate("tid < s && !(s > 4) || tid == 0", {"tid": 1, "s": 2}))
        self.assertEqual(source.evaluate("static_cast<std::size_t>(tid) + 1u", names), 7)

    def test_anything_but_arithmetic_is_refused(self):
        for expression in ("__import__('os')", "tid.bit_length()", "[tid]", "tid if s else 0", "abs(tid)"):
            with self.subTest(expression=expression), self.assertRaises(source.FigureError):
                source.evaluate(expression, {"tid": 1, "s": 1})

    def test_min_the_conditional_operator_sizeof_and_a_member_constant(self):
        names = {"r": 1, "extra": 2, "base": 4, "sizeof_T": 4, "Vector_T_width": 4}
        self.assertEqual(source.evaluate("r * base + std::min(r, extra)", names), 5)
        self.assertEqual(source.evaluate("base + (r < extra ? 1 : 0)", names), 5)
        self.assertEqual(source.evaluate("16 / sizeof(T) + Vector<T>::width", names), 8)

    def test_a_shape_is_the_code_with_holes(self):
        code = "x;\n    for (unsigned int s = 1; s < n; s *= 2) {  // the tree\n        t = f(a, b);\n"
        m = re.search(source.shape_regex("for (unsigned int $var = $init; $cond; $step) {\n[[u = 1;\n]]t = $call;"),
                      code)
        self.assertEqual((m["var"], m["init"], m["cond"], m["step"], m["call"]), ("s", "1", "s < n", "s *= 2", "f(a, b)"))
        self.assertIsNone(re.search(source.shape_regex("f($a, $a)"), code))  # a name again: the same text
        self.assertEqual(re.search(source.shape_regex("#define X $value"), "#define X 16\n")["value"], "16")

    def test_an_unknown_name_is_named(self):
        with self.assertRaisesRegex(source.FigureError, "uses 'warpSize'"):
            source.evaluate("tid < warpSize", {"tid": 1}, "here")

    def test_loops_and_updates(self):
        self.assertEqual(source.loop_values("s", "1", "s < blockDim.x", "s *= 2", {"blockDim_x": 16}), [1, 2, 4, 8])
        self.assertEqual(source.loop_values("s", "blockDim.x / 2", "s > 0", "s >>= 1", {"blockDim_x": 16}),
                         [8, 4, 2, 1])
        self.assertEqual(source.loop_values("o", "Lanes / 2", "o > 0", "o = o / 2", {"Lanes": 8}), [4, 2, 1])
        with self.assertRaisesRegex(source.FigureError, "does not end"):
            source.loop_values("s", "1", "s > 0", "s += 0", {})
        with self.assertRaisesRegex(source.FigureError, "expected an update of 's'"):
            source.loop_values("s", "1", "s < 4", "t *= 2", {})


class Extraction(unittest.TestCase):
    def rounds(self, step):
        evidence = source.Evidence(ROOT)
        _, rounds = figures.tree_rounds(evidence, f"{step}/reduce.cuh", 16)
        return evidence, [(s, [tuple(w) for w in work]) for s, work in rounds]

    def test_step01_works_on_the_multiples_of_2s(self):
        _, rounds = self.rounds("step01_interleaved")
        self.assertEqual([s for s, _ in rounds], [1, 2, 4, 8])
        self.assertEqual([t for t, *_ in rounds[0][1]], [0, 2, 4, 6, 8, 10, 12, 14])
        self.assertEqual(rounds[1][1][1], (4, 4, 6))  # thread 4 adds sdata[6] into sdata[4]

    def test_step02_packs_the_threads_and_strides_the_slots(self):
        _, rounds = self.rounds("step02_nondivergent")
        self.assertEqual([t for t, *_ in rounds[0][1]], list(range(8)))
        self.assertEqual(rounds[1][1][1], (1, 4, 6))  # thread 1 now does what thread 4 did in step 01

    def test_step03_folds_the_upper_half(self):
        _, rounds = self.rounds("step03_sequential")
        self.assertEqual([s for s, _ in rounds], [8, 4, 2, 1])
        self.assertEqual(rounds[0][1][3], (3, 3, 11))

    def test_the_fingerprint_follows_the_lines_used(self):
        evidence, _ = self.rounds("step03_sequential")
        self.assertEqual([path for path, _ in evidence.used], ["step03_sequential/reduce.cuh"])
        self.assertIn("for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {", evidence.used[0][1])
        self.assertRegex(evidence.fingerprint(), r"^drawn from step03_sequential/reduce.cuh; sha256 of the lines "
                                                 r"used: [0-9a-f]{64}$")

    def test_step14_places_a_float32_from_exact_sums_lines(self):
        evidence = source.Evidence(ROOT)
        place = figures.float32_placement(evidence, 1.5)  # 0xC00000 x 2^126 units of 2^-149
        self.assertEqual((place["unit_exponent"], place["top_bit"], place["digit_count"]), (-149, 340, 12))
        self.assertEqual((place["biased"], place["m"], place["shift"], place["index"], place["offset"]),
                         (127, 0xC00000, 126, 3, 30))
        self.assertEqual(place["parts"], [0, 0x300000, 0])
        smallest = figures.float32_placement(evidence, 2.0 ** -149)  # a subnormal: one unit, in digit 0
        self.assertEqual((smallest["biased"], smallest["m"], smallest["shift"], smallest["parts"]),
                         (0, 1, 0, [1, 0, 0]))
        self.assertEqual(figures.carry([0, 0, -5, 0], 32), ([(2, -1)], [0, 0, 2 ** 32 - 5, -1]))

    def test_a_pattern_not_found_names_the_file_and_the_expression(self):
        with tempfile.TemporaryDirectory() as temp:
            (Path(temp) / "step01_interleaved").mkdir()
            (Path(temp) / "step01_interleaved" / "reduce.cuh").write_text("// no tree here\n", encoding="utf-8")
            with self.assertRaisesRegex(source.FigureError, r"step01_interleaved/reduce.cuh: expected the block's "
                                                             r"tree loop 'for \(unsigned int \$var = \$init;"):
                figures.tree_rounds(source.Evidence(temp), "step01_interleaved/reduce.cuh", 16)


class Writing(unittest.TestCase):
    def test_numbers_and_text(self):
        self.assertEqual([svg_writer.num(v) for v in (1.0, 2.5, 1 / 3, -0.001, 12)], ["1", "2.5", "0.33", "0", "12"])
        svg = svg_writer.Svg(100, 50, "a < b & c")
        svg.text(1, 2, "x -> y", anchor="middle")
        text = svg.render("drawn from a--b")
        self.assertIn("<title>a &lt; b &amp; c</title>", text)
        self.assertIn('<text x="1" y="2" font-size="12" text-anchor="middle" fill="#000000">x -&gt; y</text>', text)
        self.assertIn("<!-- drawn from a- -b -->", text)  # '--' may not appear inside an XML comment
        ElementTree.fromstring(text)

    def test_every_figure_is_well_formed_deterministic_and_fingerprinted(self):
        first, second = figures.every_figure(ROOT), figures.every_figure(ROOT)
        self.assertEqual(first, second)
        names = [path for path, _ in first]
        for expected in ("step01_interleaved/figures/tree.svg", "step02_nondivergent/figures/banks.svg",
                         "step12_small_n/figures/small_n.svg", "step12_small_n/figures/part1_block.svg",
                         "step12_small_n/figures/part5_whole_warp.svg", "step15_multi_gpu/figures/shards.svg",
                         "results/h100/sweep_int32.svg", "results/h100/headline.svg"):
            self.assertIn(expected, names)
        for path, text in first:
            with self.subTest(path=path):
                ElementTree.fromstring(text)
                self.assertRegex(text.splitlines()[1], r"^<!-- drawn from .*sha256 of the (lines used|file): "
                                                       r"[0-9a-f]{64} -->$")

    def test_charts_of_a_results_folder(self):
        with tempfile.TemporaryDirectory() as temp:
            for name in ("headline.csv", "sweep.csv"):
                shutil.copy(FIXTURE / name, Path(temp) / name)
            drawn = charts.results_charts(Path(temp), "fixture")
            self.assertEqual(sorted(p.name for p, _ in drawn), ["headline.svg", "sweep_float32.svg", "sweep_int32.svg"])
            sweep = dict((p.name, t) for p, t in drawn)["sweep_int32.svg"]
            self.assertIn("drawn from fixture/sweep.csv", sweep)
            for label in ("step01_interleaved", "step07_multi_level", "CUB DeviceReduce::Sum", "read probe (ceiling)"):
                self.assertIn(f">{label}</text>", sweep)
            self.assertNotIn(">step02_nondivergent</text>", sweep)  # not one of the steps sweep_steps chooses

    def test_small_n_marks_cubs_tile(self):
        rows = "\n".join(f"int32,sum,{n},256,{step},x,{t:.6f},{t:.6f},1.0,1.0,{t},1.0,{t},3352.3,,,,warm,PASS"
                         for n in (16, 4096, 65536) for step, t in (("step12_small_n", 0.004), ("cub", 0.005),
                                                                    ("read_probe", 0.003)))
        header = ("type,op,n,block,step,change,time_median_ms,time_min_ms,gbps,percent_of_peak,batch_ms,batch_gbps,"
                  "idle_ms,peak_gbps,x_previous,x_step01,x_cub,l2,status")
        table = stamped_csv.parse(f"# gpu: Test GPU\n{header}\n{rows}\n", "test.csv")
        text = figures.small_n_chart(table).render("test")
        self.assertEqual(figures.CUB_TILE_THREADS * figures.CUB_TILE_ITEMS, 4096)
        self.assertIn(">n = 4,096</text>", text)
        self.assertIn("Test GPU", text)


class Check(unittest.TestCase):
    def setUp(self):
        self.temp = tempfile.TemporaryDirectory()
        self.root = Path(self.temp.name)
        copy_inputs(self.root)

    def tearDown(self):
        self.temp.cleanup()

    def edit(self, relpath, old, new):
        path = self.root / relpath
        text = path.read_text(encoding="utf-8")
        self.assertIn(old, text)
        path.write_text(text.replace(old, new, 1), encoding="utf-8")

    def test_the_repository_is_current(self):
        self.assertEqual(run_main("--root", self.root, "--check"), (0, "", ""))

    def test_a_changed_line_makes_its_figure_stale_then_writing_makes_it_current(self):
        # the same rounds (s halves either way), but another line: the fingerprint changes
        self.edit("step03_sequential/reduce.cuh", "s >>= 1) {", "s /= 2) {")
        code, _, err = run_main("--root", self.root, "--check")
        self.assertEqual(code, 1)
        self.assertIn("error: step03_sequential/figures/tree.svg differs from its sources", err)
        self.assertIn("error: step03_sequential/figures/banks.svg differs from its sources", err)
        self.assertNotIn("step02", err)
        self.assertEqual(run_main("--root", self.root)[0], 0)
        self.assertEqual(run_main("--root", self.root, "--check"), (0, "", ""))

    def test_a_changed_constant_changes_the_drawing(self):
        before = (self.root / "step10_single_pass/figures/slots.svg").read_text(encoding="utf-8")
        self.edit("step10_single_pass/reduce.cuh", "partial_loads = 5;", "partial_loads = 4;")
        self.assertEqual(run_main("--root", self.root)[0], 0)
        after = (self.root / "step10_single_pass/figures/slots.svg").read_text(encoding="utf-8")
        self.assertIn("partial_loads = 5", before)
        self.assertIn("partial_loads = 4", after)

    def test_step14s_digits_follow_exact_sum_h(self):
        self.edit("common/exact_sum.h", "digit_count = top_bit / 32 + 2;", "digit_count = top_bit / 32 + 3;")
        code, _, err = run_main("--root", self.root, "--check")
        self.assertEqual(code, 1)
        self.assertIn("error: step14_exact_sum/figures/digits.svg differs from its sources", err)
        self.assertEqual(run_main("--root", self.root)[0], 0)
        after = (self.root / "step14_exact_sum/figures/digits.svg").read_text(encoding="utf-8")
        self.assertIn("digit_count = 13", after)
        self.edit("step14_exact_sum/reduce.cuh", "- 1075 - Layout::unit_exponent;", "- 1074 - Layout::unit_exponent;")
        code, _, err = run_main("--root", self.root, "--check")
        self.assertEqual(code, 2)
        self.assertIn("step14_exact_sum/reduce.cuh: flush puts 1.5 at another place", err)

    def test_a_missing_figure_is_named(self):
        (self.root / "step08_warp_shuffle/figures/shuffle.svg").unlink()
        code, _, err = run_main("--root", self.root, "--check")
        self.assertEqual(code, 1)
        self.assertIn("error: step08_warp_shuffle/figures/shuffle.svg is missing", err)

    def test_an_indexing_the_script_cannot_read_stops_it(self):
        self.edit("step08_warp_shuffle/reduce.cuh", "value += shuffle_down(value, offset);",
                  "value += __shfl_xor_sync(0xffffffffu, value, offset);")
        code, out, err = run_main("--root", self.root, "--check")
        self.assertEqual((code, out), (2, ""))
        self.assertRegex(err, r"^error: step08_warp_shuffle/reduce.cuh: expected the shuffle loop 'for \(unsigned int "
                              r"\$var = \$init; \$cond; \$step\) value \+= shuffle_down\(value, \$var\);'")

    def test_a_missing_results_file_stops_it(self):
        (self.root / "results/h100/sweep.csv").unlink()
        code, _, err = run_main("--root", self.root, "--check")
        self.assertEqual(code, 2)
        self.assertIn("results/h100/sweep.csv: file not found", err)


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=1).result
    sys.exit(0 if result.wasSuccessful() else 1)
