#!/usr/bin/env python3
"""python3 bench/render_results.py RESULTS_DIR [--check]: every generated number of the pages (see bench/render)."""
import sys
from render.pages import main  # bench/, the script's folder, leads sys.path
sys.exit(main())
