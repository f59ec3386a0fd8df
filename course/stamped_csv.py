"""The one reader of the course's stamped CSV ('# key: value' lines, a header, rows: course/README.md):
stamped_csv.read(path) -> Table: .stamp["gpu"], .columns, .rows[0]["time_median_ms"] (rows: dicts of strings)."""

import csv
from pathlib import Path


class ResultsError(Exception):
    """A stamped CSV that is missing or malformed (or, from render/, a marker that cannot be rendered)."""


class Table:  # one stamped CSV: name, stamp ({key: value}), stamp_lines (every '#' line), columns, rows

    def __init__(self, name, stamp_lines, columns, rows):
        self.name, self.stamp_lines, self.columns, self.rows = name, stamp_lines, columns, rows
        parts = (line[1:].partition(":") for line in stamp_lines)
        self.stamp = {key.strip(): value.strip() for key, sep, value in parts if sep}

    def number(self, row, column):
        try:
            return float(row[column])
        except (TypeError, ValueError):
            raise ResultsError(f"{self.name}: column '{column}' is not a number in row {describe(row)}") from None


def describe(row):  # a row in an error message: its identifying columns
    keys = [k for k in ("type", "n", "l2", "step", "metric", "loads", "footprint_bytes") if k in row]
    return "{" + ", ".join(f"{k}={row[k]}" for k in keys) + "}" if keys else str(row)


def split(text):  # (the '#' lines, the other non-blank lines) of a stamped CSV, each in order
    lines = text.splitlines()
    return [s for s in lines if s.startswith("#")], [s for s in lines if s.strip() and not s.startswith("#")]


def parse(text, name="CSV"):  # the Table in `text`, `name` in errors; ResultsError if malformed
    stamp_lines, lines = split(text)
    if not lines:
        raise ResultsError(f"{name}: no header and no rows")
    reader = csv.DictReader(lines)
    columns = list(reader.fieldnames)
    if len(set(columns)) != len(columns) or any(not c for c in columns):
        raise ResultsError(f"{name}: the header has empty or repeated column names")
    rows = list(reader)
    for number, record in enumerate(rows, start=1):
        if None in record or any(v is None for v in record.values()):
            raise ResultsError(f"{name}: data line {number} does not have {len(columns)} fields")
    if not rows:
        raise ResultsError(f"{name}: no rows after the header")
    return Table(name, stamp_lines, columns, rows)


def read(path):
    path = Path(path)
    if not path.is_file():
        raise ResultsError(f"{path} not found")
    return parse(path.read_text(encoding="utf-8"), str(path))
