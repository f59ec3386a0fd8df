"""The classroom tools, each run from the repository root as `python3 -m tools.NAME` (README.md here)."""
