"""The course's renderer: every generated number, table and figure of its pages (README.md here)."""
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "course"))
