#!/usr/bin/env python3
"""python3 bench/render_results.py RESULTS_DIR [--check]: every generated number of the pages (see bench/render)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from render.pages import main  # noqa: E402
sys.exit(main())
