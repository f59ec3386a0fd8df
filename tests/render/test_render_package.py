"""The renderer package's shape and the columns it reads.

    python3 -m tests.render.test_render_package                  # the import graph, results/*'s headers
    python3 -m tests.render.test_render_package --compare PATH   # compare's own header (exit 77: no GPU)

Its modules' imports form a DAG, none reaches into tools/, bench/ or tests/, and from outside the
standard library only course.stamped_csv and course.steps are imported. The columns it needs from
compare's CSVs (tables.COMPARE_NEEDS) are in the header of every results/*/headline.csv and
sweep.csv, and in the header compare prints now.
"""

import ast
import subprocess
import sys
import unittest
from pathlib import Path

from course import stamped_csv
from render import tables

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "render"
OUTSIDE = {"course.stamped_csv", "course.steps"}  # the only modules imported from outside the standard library
SKIPPED = 77  # ctest's SKIP_RETURN_CODE for the GPU tests


def imports(path):
    """(the package's modules `path` imports, the other top-level modules it imports: course's as course.NAME)."""
    inside, outside = set(), set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            inside.update([node.module] if node.module else [alias.name for alias in node.names])
        elif isinstance(node, ast.ImportFrom) and node.module == "course":  # from course import steps
            outside.update(f"course.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module.startswith("course."):  # from course.steps import x
            outside.add(node.module)
        elif isinstance(node, ast.ImportFrom):
            outside.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            outside.update(alias.name.split(".")[0] for alias in node.names)
    return inside, outside


class Package(unittest.TestCase):
    def test_the_imports_form_a_dag(self):
        modules = {path.stem for path in PACKAGE.glob("*.py")}  # `from . import REPO_ROOT` names no module
        graph = {path.stem: imports(path)[0] & modules for path in PACKAGE.glob("*.py")}
        self.assertFalse(graph["__init__"], "the package's __init__ imports none of its modules")
        done = set()
        while len(done) < len(graph):
            ready = [m for m in graph if m not in done and all(d in done or d == "__init__" for d in graph[m])]
            self.assertTrue(ready, f"an import cycle among {sorted(set(graph) - done)}")
            done.update(ready)

    def test_outside_imports_are_the_standard_library_and_the_manifest_reader(self):
        for path in PACKAGE.glob("*.py"):
            for name in imports(path)[1] - OUTSIDE:
                with self.subTest(module=path.name, imports=name):
                    self.assertIn(name, sys.stdlib_module_names)
                    self.assertFalse((ROOT / name).exists() or (ROOT / f"{name}.py").exists())  # no package of ours


class Schema(unittest.TestCase):
    def test_every_results_header_has_the_columns_the_renderer_needs(self):
        files = sorted(ROOT.glob("results/*/headline.csv")) + sorted(ROOT.glob("results/*/sweep.csv"))
        self.assertTrue(files)
        for path in files:
            with self.subTest(file=str(path.relative_to(ROOT))):
                self.assertEqual([c for c in tables.COMPARE_NEEDS if c not in stamped_csv.read(path).columns], [])

    def test_a_missing_column_is_named(self):
        results = tables.Results(ROOT / "tests" / "data" / "render")
        results._tables["headline.csv"] = stamped_csv.parse("type,n\nint32,1\n", "headline.csv")
        with self.assertRaisesRegex(tables.ResultsError, "headline.csv: expected the header .* that compare writes; "
                                                         "missing op,block,step"):
            results.compare("headline.csv")


def compare_header(compare):
    """Exit code of the check of compare's header: 0, 1 (a needed column missing) or 77 (no GPU)."""
    run = subprocess.run([compare, "--csv", "--steps", "cub", "--n", "1024", "--iters", "1"],
                         capture_output=True, text=True)
    if run.returncode == 3:  # exit_no_gpu (common/exit_codes.h)
        print(f"skipped: {run.stderr.strip() or 'no usable GPU'}")
        return SKIPPED
    if run.returncode != 0:
        print(f"compare failed ({run.returncode}): {run.stderr.strip()}")
        return 1
    columns = stamped_csv.parse(run.stdout, "compare --csv").columns
    missing = [c for c in tables.COMPARE_NEEDS if c not in columns]
    print(f"compare's header lacks {','.join(missing)}" if missing else "compare's header has every needed column")
    return 1 if missing else 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--compare"]:
        sys.exit(compare_header(sys.argv[2]))
    result = unittest.main(exit=False, verbosity=1).result
    sys.exit(0 if result.wasSuccessful() else 1)
