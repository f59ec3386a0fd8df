"""Writes every measured number of the course's pages from the CSVs in a results folder (see README.md here)."""

import argparse
import inspect
import math
import re
import sys
from pathlib import Path

from course import steps
from . import REPO_ROOT, blocks, charts, lessons
from .tables import (ResultsError, Results, format_value, is_number, parse_selector, readme_folders, require,
                     select_row, size_text)

BLOCK_KINDS = {name[7:].replace("_", "-"): function for module in (blocks, lessons)  # each module's render_KIND
               for name, function in vars(module).items() if name.startswith("render_")}
BLOCK = re.compile(r"<!-- results:(?!end -->)(?P<spec>[^\n]*?) -->\n(?P<body>.*?)<!-- results:end -->", re.S)
INLINE = re.compile(r"<!--(?P<form>[vr]) (?P<spec>[^\n]*?)-->(?P<value>[^\n]*?)<!--/(?P=form)-->")
ANY_MARKER = re.compile(r"<!--(?:[vr] |/[vr]-->| results:)")  # in a core lesson, whole-block lines only
BLOCK_LINE = re.compile(r"<!-- results:[^\n]*? -->")


def render_block(results, words, context):
    function = BLOCK_KINDS.get(words[0] if words else None)
    require(function, f"{context}: unknown kind (known: {', '.join(BLOCK_KINDS)})")
    signature = inspect.signature(function)
    try:
        signature.bind(results, *words[1:], context=context)
    except TypeError:
        usage = [("[{}]" if p.default is not p.empty else "{}..." if p.kind is p.VAR_POSITIONAL else "{}").format(
            p.name.upper()) for p in list(signature.parameters.values())[1:-1]]
        raise ResultsError(f"{context}: {words[0]} takes {' '.join(usage) or 'no arguments'}") from None
    body = function(results, *words[1:], context=context)
    return body if body is None or body.endswith("\n") else body + "\n"  # None: the block stays as it is


def render_inline(results, form, spec, context):
    words = spec.split()
    require(words, f"{context}: no file named")
    table = results.table(words[0])
    require(form == "v" or words.count("/") == 1, f"{context}: a ratio needs two selectors separated by ' / '")
    split = words.index("/") if form == "r" else len(words)
    first = parse_selector(words[1:split], context)
    column, fmt, scale = first.pop("col", None), first.pop("fmt", None), first.pop("scale", None) if form == "v" else None
    require(column is not None, f"{context}: col=COLUMN is missing")
    require(column in table.columns, f"{context}: {table.name} has no column '{column}'")
    if form == "v":
        row = select_row(table, first, context)
        if scale is not None:
            require(is_number(scale), f"{context}: scale={scale} is not a number")
            return format(table.number(row, column) * float(scale), fmt or ".4g")
        return size_text(row[column]) if column == "n" and not fmt else format_value(table, row, column, fmt)
    second = parse_selector(words[split + 1:], context)
    fmt = second.pop("fmt", None) or fmt or ".2f"  # fmt= may stand on either side of the '/'
    a, b = (table.number(select_row(table, s, context), column) for s in (first, dict(first, **second)))
    if column.endswith("_ms"):
        a, b = b, a  # times: the first row is faster when its time is smaller
    require(b != 0 and math.isfinite(a / b), f"{context}: the ratio divides by zero")
    return format(a / b, fmt)


def with_context(context, function, *args):
    try:
        return function(*args)
    except ResultsError as error:
        raise error if str(error).startswith(context) else ResultsError(f"{context}: {error}") from None


def render_text(text, results, name):
    def line_of(source, position):
        return source.count("\n", 0, position) + 1
    for match in re.finditer(r"<!-- results:", text):
        require(BLOCK.match(text, match.start()) or text.startswith("<!-- results:end -->", match.start()),
                f"{name} line {line_of(text, match.start())}: a results block marker without a matching "
                f"'<!-- results:end -->' (or not alone on its line)")
    changes = []
    def block(match):
        context = f"{name} line {line_of(valued, match.start())}, block '{match.group('spec')}'"
        body = with_context(context, render_block, results, match.group("spec").split(), context)
        body = match.group("body") if body is None else body
        if body != match.group("body"):
            changes.append(f"{context} differs from what the results give")
        return f"<!-- results:{match.group('spec')} -->\n{body}<!-- results:end -->"
    def inline(match):
        form, spec = match.group("form"), match.group("spec")
        context = f"{name} line {line_of(text, match.start())}, value '<!--{form} {spec}-->'"
        value = with_context(context, render_inline, results, form, spec, context)
        if value != match.group("value"):
            changes.append(f"{context} reads '{match.group('value')}', the results give '{value}'")
        return f"<!--{form} {spec}-->{value}<!--/{form}-->"
    valued = INLINE.sub(inline, text)  # inline values first: they never span lines, so block lines stay put
    return BLOCK.sub(block, valued), changes


def folder_results(folder):
    primary, beside = readme_folders(folder)
    return Results(primary, [Results(f) for f in beside]) if primary.resolve() == Path(folder).resolve() \
        else Results(folder)


def render_charts(results):
    folder, full = results.directory, results.directory.resolve()  # labelled as figures --check labels it
    drawn = charts.results_charts(folder, full.relative_to(REPO_ROOT).as_posix() if full.is_relative_to(REPO_ROOT)
                                  else folder.as_posix())
    for path, text in drawn:
        path.write_text(text, encoding="utf-8")
    return [path for path, _ in drawn]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results_dir", type=Path, help="the results folder, e.g. results/h100")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 naming every README block or value that differs")
    parser.add_argument("--root", type=Path, default=REPO_ROOT,
                        help="the folder holding README.md and the steps' pages (default: the repository)")
    args = parser.parse_args(argv)
    primary, beside = readme_folders(args.results_dir)
    results, own = Results(primary, [Results(folder) for folder in beside]), Results(args.results_dir)
    try:
        require(args.results_dir.is_dir(), f"{args.results_dir} is not a folder")
        root = args.root  # its pages: the README, each step's lesson and notes, docs/, each results folder's README
        found = [(root / "README.md", "readme")] + [(root / step.folder / page, kind) for step in steps.load(
            root / "course" / "steps.csv") for page, kind in (("README.md", "lesson"), ("NOTES.md", "notes"))]
        found += [(p, "readme") for p in sorted(root.glob("docs/*.md"))] + [
            (p, "results") for p in sorted(root.glob("results/*/README.md"))]
        files = [(path, kind, path.read_text(encoding="utf-8"), str(path.relative_to(root)))
                 for path, kind in found if path.is_file()]
        require(files, f"no README.md under {args.root}")
        folders = {}  # a results page shows its own folder
        updates = [(path, text, *render_text(text, results if kind != "results" else folders.setdefault(
            path.parent.resolve(), folder_results(path.parent.resolve())), name)) for path, kind, text, name in files]
        misplaced = [f"{name} line {number}: a core lesson carries whole blocks only (a marker alone on its line); "
                     f"move this value to NOTES.md or into a block: {line.strip()[:80]}"
                     for _, kind, text, name in files if kind == "lesson"
                     for number, line in enumerate(text.splitlines(), 1)
                     if ANY_MARKER.search(line) and not BLOCK_LINE.fullmatch(line.strip())]
        headline = blocks.render_course_table(own) if own.has("headline.csv") else None  # without other GPUs
    except (ResultsError, steps.ManifestError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    stale = [change for *_, changes in updates for change in changes] if args.check else []
    for problem in misplaced + stale:
        print(f"error: {problem}", file=sys.stderr)
    if args.check:
        if stale:
            print(f"run: python3 -m render {args.results_dir}", file=sys.stderr)
        return 1 if stale or misplaced else 0
    written = [(path, updated) for path, text, updated, _ in updates if updated != text]
    for path, text in written + ([(args.results_dir / "headline.md", headline)] if headline is not None else []):
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    try:
        for path in render_charts(own):
            print(f"wrote {path}")
    except ResultsError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0
