"""The course's renderer: every generated number, table and figure of its pages (README.md here)."""
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
