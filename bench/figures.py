#!/usr/bin/env python3
"""python3 bench/figures.py [--check]: every lesson figure and results chart as SVG (bench/render/README.md)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from render.figures import main  # noqa: E402
sys.exit(main())
