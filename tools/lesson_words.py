"""Counts the prose words of each core lesson (the README.md of each step of course/steps.csv) and
prints a table: step, words.
usage: python3 -m tools.lesson_words [--max 1000]   (exit 1 naming each lesson above it; a word: tools/README.md)"""

import argparse
import re
import sys
from pathlib import Path

from course import steps

ROOT = Path(__file__).resolve().parent.parent

BLOCK = re.compile(r"<!-- results:(?!end -->).*?<!-- results:end -->", re.S)
COMMENT = re.compile(r"<!--.*?-->", re.S)
LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")  # [text](target) and ![alt](target): the text stays
WORD = re.compile(r"\S*[A-Za-z0-9]\S*")


def prose(text):  # the text a reader reads as prose: no code fences, table lines, comments, generated blocks
    lines, fence = [], None
    for line in COMMENT.sub(" ", BLOCK.sub("\n", text)).splitlines():
        stripped = line.lstrip()
        if fence is None and stripped[:3] in ("```", "~~~"):
            fence = stripped[:3]
        elif fence is not None:
            fence = None if stripped.startswith(fence) else fence
        elif not stripped.startswith("|"):
            lines.append(line)
    return LINK.sub(r"\1", "\n".join(lines))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\nusage")[0])
    parser.add_argument("--max", type=int, help="exit 1 naming each lesson with more words than this")
    parser.add_argument("--root", type=Path, default=ROOT, help="the course tree (its course/steps.csv)")
    args = parser.parse_args(argv)
    manifest = args.root / "course" / "steps.csv"
    lessons = [args.root / s.folder / "README.md" for s in steps.load(manifest)] if manifest.is_file() else []
    if not (lessons := [path for path in lessons if path.is_file()]):
        print(f"error: no lesson of {manifest}", file=sys.stderr)
        return 2
    counts = [(path.parent.name, len(WORD.findall(prose(path.read_text(encoding="utf-8"))))) for path in lessons]
    width = max(len(name) for name, _ in counts)
    print("\n".join([f"{'step':<{width}}  words"] + [f"{name:<{width}}  {words:5d}" for name, words in counts]))
    over = [(name, words) for name, words in counts if args.max is not None and words > args.max]
    for name, words in over:
        print(f"error: {name}/README.md has {words} words of prose, more than {args.max}", file=sys.stderr)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
