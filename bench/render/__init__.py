"""The course's renderer: every generated number, table and figure of its pages.

    python3 -m bench.render RESULTS_DIR [--check]   # the pages' blocks and values (also bench/render_results.py)
    python3 -m bench.render.figures [--check]       # the lessons' figures and the charts (also bench/figures.py)

Modules, each importing only those above it: tables (results files, formats, selectors, the sweep),
blocks (the blocks many pages use), lessons (each lesson's own analyses), source (reading the steps'
code), svg (the SVG writer), charts (results charts), figures (lesson figures), pages (markers, main).
Outside the package only course/stamped_csv.py and course/steps.py (the manifest) are imported.
"""

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "course"))
