"""The one reader of the course's stamped CSV: the files in results/<gpu>/, what a step or compare
prints with --csv, tools/grade_thresholds.csv.

A stamped CSV is '# key: value' lines (the stamp: GPU, driver, date, commit, command; a '#' line
without a colon is a comment), then a header line, then rows. Blank lines are skipped.

    table = stamped_csv.read("results/h100/headline.csv")
    table.stamp["gpu"], table.columns, table.rows[0]["time_median_ms"]   # rows: dicts of strings
"""

import csv
from pathlib import Path

class ResultsError(Exception):
    """A stamped CSV that is missing or malformed (bench/render_results.py also raises it for a
    results marker that cannot be rendered)."""


class Table:
    """One stamped CSV: name, stamp ({key: value}), stamp_lines (every '#' line, as written),
    columns and rows (dicts of strings, as in the file)."""

    def __init__(self, name, stamp_lines, columns, rows):
        self.name, self.stamp_lines, self.columns, self.rows = name, stamp_lines, columns, rows
        self.stamp = {}
        for line in stamp_lines:
            key, sep, value = line[1:].partition(":")
            if sep:
                self.stamp[key.strip()] = value.strip()

    def number(self, row, column):
        try:
            return float(row[column])
        except (TypeError, ValueError):
            raise ResultsError(f"{self.name}: column '{column}' is not a number in row {describe(row)}") from None


def describe(row):
    """A row in an error message: its identifying columns."""
    keys = [k for k in ("type", "n", "l2", "step", "metric", "loads", "footprint_bytes") if k in row]
    return "{" + ", ".join(f"{k}={row[k]}" for k in keys) + "}" if keys else str(row)


def split(text):
    """(the '#' lines, the other non-blank lines) of a stamped CSV, each in order."""
    lines = text.splitlines()
    return ([line for line in lines if line.startswith("#")],
            [line for line in lines if line.strip() and not line.startswith("#")])


def parse(text, name="CSV"):
    """The Table in `text`; `name` (a path or a program) names it in errors. Raises ResultsError
    on anything malformed."""
    stamp_lines, lines = split(text)
    if not lines:
        raise ResultsError(f"{name}: no header and no rows")
    reader = csv.DictReader(lines)
    columns = list(reader.fieldnames)
    if len(set(columns)) != len(columns) or any(not c for c in columns):
        raise ResultsError(f"{name}: the header has empty or repeated column names")
    rows = []
    for number, record in enumerate(reader, start=1):
        if None in record or any(v is None for v in record.values()):
            raise ResultsError(f"{name}: data line {number} does not have {len(columns)} fields")
        rows.append(record)
    if not rows:
        raise ResultsError(f"{name}: no rows after the header")
    return Table(name, stamp_lines, columns, rows)


def read(path):
    """The Table in the file at `path`."""
    path = Path(path)
    if not path.is_file():
        raise ResultsError(f"{path} not found")
    return parse(path.read_text(encoding="utf-8"), str(path))
