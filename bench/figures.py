#!/usr/bin/env python3
"""python3 bench/figures.py [--check]: every lesson figure and results chart as SVG (bench/render/README.md)."""
import sys
from render.figures import main  # bench/, the script's folder, leads sys.path
sys.exit(main())
