#!/usr/bin/env python3
"""python3 bench/render_results.py RESULTS_DIR [--check]: every generated number of the course's pages
(the same as python3 -m bench.render; see bench/render/pages.py)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from render.pages import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
