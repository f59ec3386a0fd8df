"""The lab's Python programs, each run from the repository root as `python3 -m bench.NAME` (README.md here)."""
