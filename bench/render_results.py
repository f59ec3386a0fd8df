#!/usr/bin/env python3
"""Writes every measured number of the course's READMEs from the CSVs in a results folder.

    python3 bench/render_results.py results/h100           # rewrite the READMEs, headline.md, the charts
    python3 bench/render_results.py results/h100 --check   # exit 1 if any README differs from the results

Only what lies between markers changes, in README.md, the core lessons step*/README.md, their lab
notes step*/NOTES.md, docs/*.md and the results pages results/<gpu>/README.md: a block on lines of its own
(<!-- results:KIND ARGS -->, generated lines, <!-- results:end -->; the kinds: BLOCK_KINDS, here and
in bench/render_analyses.py), or a value:

    <!--v FILE key=value ... col=COLUMN-->X<!--/v-->
    <!--r FILE col=COLUMN key=value ... / key=value ...-->X<!--/r-->

'v': COLUMN of the one row every key=value matches (key=max or min: that column's extreme). 'r': the
first row's value over the second's, whose selector names only what differs; reversed for _ms columns
("X times faster"). fmt=.3f overrides the column's format; scale=X multiplies a 'v' first (then .4g).
No row, several rows or an empty value is an error naming the selector: nothing is rendered blank.

The READMEs and lab notes show results/h100 with results/h200's median and GB/s beside it; given
results/h200 or results/h200x2 they come out the same. A results page results/<gpu>/README.md shows its
own folder (results/h100's with the other GPUs' columns beside it, as the READMEs do). headline.md and
the charts (headline.svg, sweep_<type>.svg, drawn by bench/figures.py, which --check compares) are each
folder's own. A core lesson carries whole blocks only: an inline value, or a marker that is not alone
on its line, in step*/README.md is an error (--check exits 1 naming it).
Exit codes: 0 done (or current), 1 (--check) a README differs, naming file and block or value, or a core
lesson holds an inline marker, 2 a results file or marker is missing or malformed.
"""

import argparse
import itertools
import math
import re
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT / "course"))
from stamped_csv import ResultsError, describe, parse as parse_table, read as read_table  # noqa: E402,F401

# compare's header (csv_header() in common/report.cpp): headline.csv, headline_cold.csv, sweep.csv.
COMPARE_COLUMNS = [
    "type", "op", "n", "block", "step", "change", "time_median_ms", "time_min_ms", "gbps", "percent_of_peak",
    "batch_ms", "batch_gbps", "idle_ms", "peak_gbps", "x_previous", "x_step01", "x_cub", "l2", "status",
]
# Empty means "nothing to compare with" (step01 has no previous step; CUB is no step): shown as "-".
OPTIONAL_COLUMNS = {"x_previous", "x_step01", "x_cub"}
CUB_STEP, READ_PROBE = "cub", "read_probe"  # the read probe: one pass over the input, the ceiling
COLUMN_FORMATS = {
    "time_median_ms": ".4f", "time_min_ms": ".4f", "batch_ms": ".4f", "idle_ms": ".4f",
    "gbps": ".1f", "batch_gbps": ".1f", "peak_gbps": ".0f", "percent_of_peak": ".1f",
    "x_previous": ".2f", "x_step01": ".2f", "x_cub": ".2f", "latency_ns": ".0f",
}
PRIMARY_GPU, BESIDE_GPUS = "h100", ("h200",)  # the READMEs' GPU, and those shown beside it


class Results:
    """A results folder (each file read once) and the folders of the GPUs shown beside it."""

    def __init__(self, directory, beside=()):
        self.directory, self.beside, self._tables = Path(directory), list(beside), {}

    def has(self, name):
        return (self.directory / name).is_file()

    def table(self, name, columns=(), writer=""):
        """The Table of file `name`; columns: those it must have, written by `writer`."""
        if name not in self._tables:
            self._tables[name] = read_table(self.directory / name)
        table = self._tables[name]
        missing = [c for c in columns if c not in table.columns]
        if missing:
            raise ResultsError(f"{table.name}: expected the header {','.join(columns)} that {writer} writes; "
                               f"missing {','.join(missing)}")
        return table

    def compare(self, name):
        return self.table(name, COMPARE_COLUMNS, "compare")

    def ncu(self):
        return self.table("ncu.csv", ["step", "metric", "value"], "tools/profile_steps.sh")



# ---------------------------------------------------------------------------------------------
# Formatting


def size_text(n):
    """"2^24" for powers of two, the decimal count otherwise."""
    n = int(n)
    return f"2^{n.bit_length() - 1}" if n > 0 and n & (n - 1) == 0 else str(n)


def format_value(table, row, column, fmt=None):
    """One cell: the column's default format (or fmt), '-' where a comparison does not apply."""
    value = row[column]
    if value.strip() == "":
        if column in OPTIONAL_COLUMNS:
            return "-"
        raise ResultsError(f"{table.name}: column '{column}' is empty in row {describe(row)}")
    fmt = fmt or COLUMN_FORMATS.get(column)
    return format(table.number(row, column), fmt) if fmt else value


def cells_of(table, row, columns):
    return [format_value(table, row, c) for c in columns]


def markdown_table(headers, align, rows):
    """align: one letter per column, 'l' or 'r'. A '|' inside a cell would end it."""
    def line(cells):
        return "|" + "".join(" " + str(cell).replace("|", "\\|") + " |" for cell in cells) + "\n"
    return line(headers) + "|" + "".join(" ---: |" if a == "r" else " :--- |" for a in align) + "\n" + \
        "".join(line(cells) for cells in rows)


def stamp_paragraph(stamp):
    """Where, with what and when: GPU, driver, CUDA, date, commit, L2 mode, command."""
    details = [f"{label.format(stamp[key])}" for key, label in (
        ("compute_capability", "compute capability {}"), ("sms", "{} SMs"), ("l2_mib", "{} MiB L2")) if key in stamp]
    if "peak_gbps" in stamp:
        details.append(f"{float(stamp['peak_gbps']):.0f} GB/s theoretical peak")
    parts = [f"**{stamp.get('gpu', 'GPU not recorded')}**" + (f" ({', '.join(details)})" if details else ""),
             f"NVIDIA driver {stamp.get('nvidia_driver', 'not recorded')}",
             f"CUDA {stamp.get('cuda_runtime', '?')} runtime on driver API {stamp.get('cuda_driver_api', '?')}",
             f"measured {stamp.get('date_utc', 'on an unrecorded date')}", f"commit `{stamp.get('commit', 'unknown')}`"]
    parts += [f"{label} {stamp[key]}" for key, label in (("l2", "L2"), ("timing", "timing:")) if key in stamp]
    return "; ".join(parts) + "." + (f" Command: `{stamp['command']}`." if "command" in stamp else "") + "\n"


def short_stamp(stamp):
    """One line for the tables inside lessons: GPU, date, commit, command."""
    text = (f"{stamp.get('gpu', 'GPU not recorded')}; measured {stamp.get('date_utc', 'on an unrecorded date')}; "
            f"commit `{stamp.get('commit', 'unknown')}`")
    return text + (f"; `{stamp['command']}`" if "command" in stamp else "") + "."


# ---------------------------------------------------------------------------------------------
# Selecting rows


def parse_selector(words, context):
    """key=value words into an ordered dict; words without '=' are an error naming them."""
    selector = {}
    for word in words:
        key, sep, value = word.partition("=")
        if not sep or not key or not value:
            raise ResultsError(f"{context}: '{word}' is not key=value")
        if key in selector:
            raise ResultsError(f"{context}: '{key}' is given twice")
        selector[key] = value
    return selector


def select_row(table, selector, context):
    """The one row matching every key=value of selector (max/min: the extreme of that column)."""
    text = " ".join(f"{k}={v}" for k, v in selector.items())
    for key in selector:
        if key not in table.columns:
            raise ResultsError(f"{context}: selector '{text}': {table.name} has no column '{key}' "
                               f"(columns: {','.join(table.columns)})")
    rows = [row for row in table.rows if all(row[k] == v for k, v in selector.items() if v not in ("max", "min"))]
    for key, value in selector.items():
        if value in ("max", "min") and rows:
            best = (max if value == "max" else min)(table.number(row, key) for row in rows)
            rows = [row for row in rows if table.number(row, key) == best]
    if len(rows) != 1:
        raise ResultsError(f"{context}: selector '{text}' matches {len(rows)} rows of {table.name}, "
                           f"not exactly one")
    return rows[0]


def rows_where(table, **match):
    return [row for row in table.rows if all(row[k] == v for k, v in match.items())]


def distinct(rows, column):
    return list(dict.fromkeys(row[column] for row in rows))


def steps_of(rows):
    """The course's steps among rows, in order (not CUB, not the read probe)."""
    return [s for s in distinct(rows, "step") if s not in (CUB_STEP, READ_PROBE)]


# ---------------------------------------------------------------------------------------------
# The course table and the lessons' step tables, with other GPUs' columns beside them


def readme_folders(results_dir):
    """(the folder whose results fill the READMEs, [folders of other GPUs shown beside it])."""
    primary = Path(results_dir)
    several_gpus = (primary / "step13.csv").is_file() and not (primary / "headline.csv").is_file()
    if (primary.name in BESIDE_GPUS or several_gpus) and (primary.parent / PRIMARY_GPU).is_dir():
        primary = primary.parent / PRIMARY_GPU
    if primary.name != PRIMARY_GPU:
        return primary, []  # another GPU's results, or a fixture, rendered on their own
    return primary, [primary.parent / name for name in BESIDE_GPUS if (primary.parent / name).is_dir()]


def beside_tables(results, name):
    """{label: table of file `name`} of each other GPU's folder that has it."""
    return {r.directory.name.upper(): r.compare(name) for r in results.beside if r.has(name)}


def beside_headers(beside):
    return [h for label in beside for h in (f"{label} median ms", f"{label} GB/s")]


def beside_cells(beside, row):
    """Per label of beside ({label: table or None}), the median and GB/s of the row that measured the
    same thing ('-' where none did)."""
    keys, cells = ("type", "op", "n", "block", "l2", "step"), []
    for other in beside.values():
        rows = [] if other is None else rows_where(other, **{k: row[k] for k in keys})
        cells += cells_of(other, rows[0], ("time_median_ms", "gbps")) if len(rows) == 1 else ["-", "-"]
    return cells


def batch_cell(table, row):
    """The batch figure, or '-' for an L2-flushed row: the flush would sit between the calls it times."""
    return "-" if row["l2"] == "flushed" else format_value(table, row, "batch_gbps")


def course_table_markdown(table, beside):
    """headline.md and the top README's course table: the stamp, then one table per type (every row,
    the read probe marked as the ceiling it is); beside: {label: table} of other GPUs."""
    headers = ["step", "what changed", "median ms", "GB/s", "% of peak", "batch GB/s", "x previous", "x step01",
               "x CUB", "check"] + beside_headers(beside)
    out = [stamp_paragraph(table.stamp)] + [f"\n{label} columns: " + stamp_paragraph(o.stamp)
                                            for label, o in beside.items()]
    for (type_name, op, n, block, l2), rows in itertools.groupby(
            table.rows, lambda r: (r["type"], r["op"], r["n"], r["block"], r["l2"])):
        out.append(f"\n**{type_name}** {op}, n = {n} ({size_text(n)}), block {block}, L2 {l2}:\n\n")
        cells = []
        for row in rows:
            probe = row["step"] == READ_PROBE
            cells.append([row["step"], "read ceiling: one pass over the input, no reduction" if probe else row["change"]]
                         + cells_of(table, row, ("time_median_ms", "gbps", "percent_of_peak")) + [batch_cell(table, row)]
                         + (["-"] * 3 if probe else cells_of(table, row, ("x_previous", "x_step01", "x_cub")))
                         + [row["status"]] + beside_cells(beside, row))
        out.append(markdown_table(headers, "ll" + "r" * 7 + "l" + "rr" * len(beside), cells))
    out.append("\nmedian ms: per call, each call timed alone behind a GPU-side wait. batch GB/s: many calls "
               "back to back between one pair of events (none with the L2 flushed: the flush would sit between "
               "the calls). x previous, x step01, x CUB: that row's median time divided by this row's (above 1: "
               "this row is faster).\n")
    return "".join(out)


def render_course_table(results, context=""):
    names = ["headline.csv"] + (["headline_cold.csv"] if results.has("headline_cold.csv") else [])
    return "\nThe same with the L2 flushed before every call (inputs read from DRAM):\n\n".join(
        course_table_markdown(results.compare(name), beside_tables(results, name)) for name in names)


def render_step_table(results, step, context):
    """STEP beside the previous step and CUB, int32 and float32, each headline file."""
    names = ["headline.csv"] + (["headline_cold.csv"] if results.has("headline_cold.csv") else [])
    beside = beside_tables(results, "headline.csv")
    cells, statuses = [], set()
    first = results.compare(names[0])
    for name in names:
        table, others = results.compare(name), beside_tables(results, name)
        steps = steps_of(table.rows)
        if step not in steps:
            raise ResultsError(f"{context}: {table.name} has no rows for step '{step}'")
        shown = steps[max(0, steps.index(step) - 1):steps.index(step) + 1] + [CUB_STEP]
        for type_name, shown_step in itertools.product(("int32", "float32"), shown):
            rows = rows_where(table, type=type_name, step=shown_step)
            if len(rows) != 1:
                raise ResultsError(f"{context}: {table.name} has {len(rows)} rows for type={type_name} "
                                   f"step={shown_step}, not exactly one")
            row = rows[0]
            statuses.add(row["status"])
            cells.append([type_name, row["l2"], f"**{shown_step}**" if shown_step == step else shown_step]
                         + cells_of(table, row, ("time_median_ms", "gbps", "percent_of_peak")) + [batch_cell(table, row)]
                         + cells_of(table, row, ("x_previous", "x_cub"))
                         + beside_cells({label: others.get(label) for label in beside}, row))
    checked = ("every row verified" if statuses == {"PASS"} else
               "every row verified but where the check column of the course table says otherwise "
               "('-': timed, not verified)" if "FAIL" not in statuses else "SOME ROWS FAILED verification")
    head = (f"n = {size_text(first.rows[0]['n'])}, block {first.rows[0]['block']}, {checked}. "
            f"{short_stamp(first.stamp)}"
            + "".join(f" {label} columns: {short_stamp(other.stamp)}" for label, other in beside.items()) + "\n\n")
    headers = ["type", "L2", "step", "median ms", "GB/s", "% of peak", "batch GB/s", "x previous", "x CUB"]
    return head + markdown_table(headers + beside_headers(beside), "lll" + "r" * (6 + 2 * len(beside)), cells)


def gpu_label(results):
    """'H100' for results/h100 (the course's GPUs by their folder), else the GPU its headline names."""
    name = results.directory.name
    if name in (PRIMARY_GPU, *BESIDE_GPUS):
        return name.upper()
    return results.compare("headline.csv").stamp.get("gpu", name)


def render_headline(results, step, context):
    """A core lesson's Result: STEP at the headline size, int32, L2 warm, one row per GPU (this folder,
    then the GPUs beside it): n, median us, GB/s, x previous step, x CUB; a stamp line per GPU."""
    cells, stamps, statuses = [], [], set()
    for gpu in [results] + [other for other in results.beside if other.has("headline.csv")]:
        table = gpu.compare("headline.csv")
        rows = rows_where(table, type="int32", l2="warm", step=step)
        if len(rows) != 1:
            raise ResultsError(f"{context}: {table.name} has {len(rows)} rows for type=int32 l2=warm step={step}, "
                               f"not exactly one")
        row, label = rows[0], gpu_label(gpu)
        statuses.add(row["status"])
        cells.append([label, size_text(row["n"]), format(table.number(row, "time_median_ms") * 1000, ".1f")]
                     + cells_of(table, row, ("gbps", "x_previous", "x_cub")))
        stamps.append(f"{label}: {short_stamp(table.stamp)}")
    checked = "Every row verified." if statuses == {"PASS"} else f"Verification: {', '.join(sorted(statuses))}."
    return (markdown_table(["GPU", "n", "median µs", "GB/s", "× previous step", "× CUB"], "llrrrr", cells)
            + f"\nint32, L2 warm, per-call median. × previous step, × CUB: their time over this step's (above 1: "
              f"this step is faster). {checked}\n"
            + "".join(f"\n{stamp}\n" for stamp in stamps))


# ---------------------------------------------------------------------------------------------
# Profiler counters (ncu.csv)

NCU_METRICS = REPO_ROOT / "bench" / "ncu_metrics.csv"  # the metrics the lessons quote: label, format, meaning


def ncu_values(results, steps, context):
    """({(step, metric): value}, ncu.csv's table), each of steps required to have counters."""
    table = results.ncu()
    values = {(row["step"], row["metric"]): table.number(row, "value") for row in table.rows}
    for name in steps:
        if not any(s == name for s, _ in values):
            raise ResultsError(f"{context}: {table.name} has no counters for '{name}'")
    return values, table


def render_ncu(results, step, previous=None, context=""):
    shown_steps = (previous, step) if previous and previous != step else (step,)
    values, table = ncu_values(results, shown_steps, context)
    cells = []
    metrics = read_table(NCU_METRICS)
    for row in metrics.rows:
        metric, divisor = row["metric"], metrics.number(row, "divide_by")
        have = [(name, metric) in values for name in shown_steps]
        if any(have) and not all(have):
            missing = shown_steps[have.index(False)]
            raise ResultsError(f"{context}: {table.name} has {metric} for one step but not for '{missing}'")
        if all(have):
            cells.append([row["label"]] + [format(values[(name, metric)] / divisor, row["format"])
                                           for name in shown_steps] + [row["meaning"]])
    if not cells:
        raise ResultsError(f"{context}: {table.name} has none of the counters this table shows")
    return markdown_table(["counter", *shown_steps, "what it counts"], "l" + "r" * len(shown_steps) + "l", cells)


# ---------------------------------------------------------------------------------------------
# Any CSV, a quoted text file, the steps' diff sizes


def is_number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def render_csv(results, name, *options, context):
    table = results.table(name)
    options = parse_selector(options, context)
    columns = options.pop("cols").split(",") if "cols" in options else table.columns
    if options:
        raise ResultsError(f"{context}: csv understands only cols=, not {', '.join(options)}")
    for column in columns:
        if column not in table.columns:
            raise ResultsError(f"{context}: {table.name} has no column '{column}'")
    align = "".join("r" if all(is_number(row[c]) for row in table.rows) else "l" for c in columns)
    cells = [[size_text(row[c]) if c == "n" else format_value(table, row, c) for c in columns] for row in table.rows]
    return short_stamp(table.stamp) + "\n\n" + markdown_table(columns, align, cells)


def render_quote(results, name, context):
    path = results.directory / name
    if not path.is_file():
        raise ResultsError(f"{path} not found")
    text = path.read_text(encoding="utf-8")
    if not text.strip():
        raise ResultsError(f"{context}: {name} is empty")
    return "```\n" + text.rstrip("\n") + "\n```\n"


# ---------------------------------------------------------------------------------------------
# The sweep (sweep.csv): where each step wins, the last step against CUB, level within the spread

# Where spread.csv (the headline measured in several separate processes) does not exist yet, two
# per-call medians closer than this are called level.
TIE_PERCENT = 1.0


class Sweep:
    """A compare CSV (sweep.csv, or a variants file) read once: times {(type, step, n): median ms per
    call}, its types, and per type the sizes measured (in order), the course's steps (in order) and
    the last of them."""

    def __init__(self, table):
        self.table, self.types = table, distinct(table.rows, "type")
        self.times = {(r["type"], r["step"], int(r["n"])): table.number(r, "time_median_ms") for r in table.rows}
        self.sizes = {t: sorted({n for (u, _, n) in self.times if u == t}) for t in self.types}
        self.steps = {t: steps_of(rows_where(table, type=t)) for t in self.types}
        self.last = {t: steps[-1] for t, steps in self.steps.items() if steps}

    def ratios(self, type_name, slower, step):
        """[(n, slower's time / step's time)] at every size both were measured (above 1: step is faster)."""
        times = self.times
        return [(n, times[(type_name, slower, n)] / times[(type_name, step, n)]) for n in self.sizes[type_name]
                if (type_name, slower, n) in times and (type_name, step, n) in times]

    def first_win(self, type_name, previous, step):
        """The smallest n from which step is faster than previous at every larger size too (None: not even
        at the largest), and the smaller sizes measured for both where it is not."""
        faster = {n: ratio > 1 for n, ratio in self.ratios(type_name, previous, step)}
        won = list(itertools.takewhile(faster.get, reversed(self.sizes[type_name])))
        start = won[-1] if won else None
        return start, [n for n, wins in faster.items() if start is not None and n < start and not wins]


def run_spread(table, type_name, step):
    """The run-to-run spread of one row of spread.csv: the slowest run's median over the fastest's,
    minus 1 (0.02: the runs differ by up to 2 %)."""
    times = [table.number(row, "time_median_ms") for row in rows_where(table, type=type_name, step=step)]
    if len(times) < 2 or min(times) <= 0:
        raise ResultsError(f"{table.name}: type={type_name} step={step} needs two runs or more, each with a "
                           f"positive time")
    return max(times) / min(times) - 1


def tie_rule(results, type_steps):
    """How close two medians must be to be called level: {type: fraction} and the sentence that says
    where it comes from. With spread.csv, per type the largest run-to-run spread of the rows compared
    (type_steps: {type: [step, ...]}); without it, TIE_PERCENT, and the sentence says so."""
    if not results.has("spread.csv"):
        return ({t: TIE_PERCENT / 100 for t in type_steps},
                f"{TIE_PERCENT:g} % either way counts as level, a fixed rule until spread.csv, the measured "
                f"run-to-run spread, exists")
    table = results.table("spread.csv", ["run", "type", "step", "n", "time_median_ms"],
                          "bench/reproduce.sh --only spread")
    ties = {t: max(run_spread(table, t, step) for step in steps) for t, steps in type_steps.items()}
    spreads = " and ".join(f"{ties[t] * 100:.1f} % for {t}" for t in ties)
    return ties, (f"a ratio within the larger run-to-run spread of the two rows counts as level: {spreads}, "
                  f"over {len(distinct(table.rows, 'run'))} separate runs of the headline at n = "
                  f"{size_text(table.rows[0]['n'])} (spread.csv)")


def versus_cub_text(ratios, tie=TIE_PERCENT / 100):
    """'faster at 2^13 .. 2^26, level at 2^27 .. 2^30, slower at 2^10 .. 2^12' from (n, CUB time /
    step time) pairs in size order, runs of one verdict joined; within a factor 1 + tie is level."""
    def verdict(pair):
        return "faster" if pair[1] > 1 + tie else "slower" if pair[1] < 1 / (1 + tie) else "level"
    parts = []
    for word, run in itertools.groupby(ratios, verdict):
        sizes = [n for n, _ in run]
        parts.append(f"{word} at {size_text(sizes[0])}" + (f" .. {size_text(sizes[-1])}" if len(sizes) > 1 else ""))
    return ", ".join(parts) if parts else "not measured"


def sweep_wins(sweep):
    """Where each step overtakes the one before it for good: a sentence and a table."""
    starts = {}  # {step: {type: (previous step, first_win's start, first_win's losses)}}
    for type_name, steps in sweep.steps.items():
        for previous, step in zip(steps, steps[1:]):
            starts.setdefault(step, {})[type_name] = (previous, *sweep.first_win(type_name, previous, step))
    if not starts:
        return ""
    types, sizes = sweep.types, sweep.sizes
    found = [start for per_type in starts.values() for _, start, _ in per_type.values()]
    largest = max(s[-1] for s in sizes.values())
    if None not in found and max(found) < largest:
        head = (f"From n = {size_text(max(found))} up, every step is faster than the one before it at every "
                f"measured size, for {' and '.join(types)}.")
    elif None not in found:
        head = (f"Every step is faster than the one before it at the largest size measured ({size_text(largest)}), "
                f"but not every step is at every size below it.")
    else:
        head = "Not every step is faster than the one before it at the largest size measured."

    def cell(type_name, per_type):
        if type_name not in per_type:
            return "not measured"
        _, start, losses = per_type[type_name]
        return (f"not at {size_text(sizes[type_name][-1])}" if start is None else
                "every size" if start == sizes[type_name][0] else
                f"{size_text(start)} (slower or equal at {len(losses)} smaller sizes)")
    cells = [[step, next(iter(per_type.values()))[0]] + [cell(t, per_type) for t in types]
             for step, per_type in starts.items()]
    return (head + " Where each step becomes faster for good:\n\n" +
            markdown_table(["step", "faster than"] + [f"{t}: from n =" for t in types], "ll" + "r" * len(types), cells))


def last_step_versus_cub(results, sweep):
    """The last step against CUB at every size (faster, level, slower) and its ratio at a few sizes."""
    last = sweep.last
    ratios = {t: dict(sweep.ratios(t, CUB_STEP, step)) for t, step in last.items()}
    sizes = [n for n in (1 << 16, 1 << 20, 1 << 24, 1 << 26, 1 << 28, 1 << 30, 1 << 32)
             if all(n in ratio for ratio in ratios.values())]
    if not last or not sizes:
        return ""
    name = next(iter(last.values()))
    ties, rule = tie_rule(results, {t: [step, CUB_STEP] for t, step in last.items()})
    verdicts = [f"for {t}, " + versus_cub_text(list(ratios[t].items()), ties[t]) for t in last]
    cells = [[size_text(n)] + [f"{ratios[t][n]:.3f}" for t in last] for n in sizes]
    return (f"\n{name} against CUB ({rule}): {'; '.join(verdicts)}. CUB's time divided by {name}'s (above 1: "
            f"{name} is faster):\n\n" + markdown_table(["n"] + list(last), "l" + "r" * len(last), cells))


def sweep_extremes(sweep, type_name):
    """The smallest size's range of times, and the largest size's bandwidth of the last step and CUB."""
    table, last, sizes = sweep.table, sweep.last[type_name], sweep.sizes[type_name]
    small = [sweep.times[(type_name, s, sizes[0])] * 1000 for s in sweep.steps[type_name] + [CUB_STEP]
             if (type_name, s, sizes[0]) in sweep.times]
    rows = {row["step"]: row for row in rows_where(table, type=type_name, n=str(sizes[-1]))}
    text = (f"\n{type_name}: at n = {size_text(sizes[0])} every version takes between {min(small):.1f} and "
            f"{max(small):.1f} us per call.")
    if last in rows and CUB_STEP in rows:
        text += (f" At n = {size_text(sizes[-1])}, {last} reaches {format_value(table, rows[last], 'gbps')} GB/s "
                 f"({format_value(table, rows[last], 'percent_of_peak')} % of peak) and CUB "
                 f"{format_value(table, rows[CUB_STEP], 'gbps')} GB/s.")
    return text + "\n"


def render_sweep_claims(results, context=""):
    """Sentences computed from sweep.csv: where each step beats the one before it, the last step
    against CUB, the smallest and the largest size."""
    sweep = Sweep(results.compare("sweep.csv"))
    return (sweep_wins(sweep) + last_step_versus_cub(results, sweep)
            + "".join(sweep_extremes(sweep, t) for t in sweep.last))


# ---------------------------------------------------------------------------------------------
# Markers


# The block kinds rendered here: renderer, arguments ([optional], ...: any number), what it shows.
BLOCK_KINDS = {
    "course-table": (render_course_table, "", "headline.csv (and headline_cold.csv), every row"),
    "step-table": (render_step_table, "STEP", "STEP beside the previous step and CUB at the headline size, "
                   "int32 and float32, L2 warm and (if measured) flushed"),
    "headline": (render_headline, "STEP", "a core lesson's Result: STEP at the headline size, int32, L2 warm, one "
                 "row per GPU (median us, GB/s, x previous step, x CUB)"),
    "ncu": (render_ncu, "STEP [PREV]", "Nsight Compute counters of STEP beside PREV (ncu.csv)"),
    "csv": (render_csv, "FILE [cols=A,B]", "any results CSV as a table, optionally some columns"),
    "sweep-claims": (render_sweep_claims, "", "where each step beats the one before it, the last step against "
                     "CUB at large n (level: within the run-to-run spread of spread.csv, else 1 %)"),
    "quote": (render_quote, "FILE", "a text file from the results folder, verbatim, in a code block"),
}


def block_kinds():
    """Every block kind: this module's and bench/render_analyses.py's (imported only now: it imports this one)."""
    import render_analyses
    return {**BLOCK_KINDS, **render_analyses.BLOCK_KINDS}


BLOCK = re.compile(r"<!-- results:(?!end -->)(?P<spec>[^\n]*?) -->\n(?P<body>.*?)<!-- results:end -->", re.S)
INLINE = re.compile(r"<!--(?P<form>[vr]) (?P<spec>[^\n]*?)-->(?P<value>[^\n]*?)<!--/(?P=form)-->")


def render_block(results, words, context):
    """The body of the block `words` (its kind, then its arguments, checked against BLOCK_KINDS)."""
    kinds = block_kinds()
    if not words or words[0] not in kinds:
        raise ResultsError(f"{context}: unknown kind (known: {', '.join(kinds)})")
    function, usage, _ = kinds[words[0]]
    args, usage_words = words[1:], usage.split()
    required = len([w for w in usage_words if not w.startswith("[")])
    if len(args) < required or (len(args) > len(usage_words) and "..." not in usage):
        raise ResultsError(f"{context}: {words[0]} takes {usage or 'no arguments'}")
    body = function(results, *args, context=context)
    return body if body.endswith("\n") else body + "\n"


# A generator marker of either form, opening or closing: in a core lesson only whole-block lines may hold one.
ANY_MARKER = re.compile(r"<!--(?:[vr] |/[vr]-->| results:)")
BLOCK_LINE = re.compile(r"<!-- results:[^\n]*? -->")


def inline_markers(text, name):
    """A core lesson's problems: every line holding an inline value or a marker not alone on its line."""
    return [f"{name} line {number}: a core lesson carries whole blocks only (a marker alone on its line); "
            f"move this value to NOTES.md or into a block: {line.strip()[:80]}"
            for number, line in enumerate(text.splitlines(), 1)
            if ANY_MARKER.search(line) and not BLOCK_LINE.fullmatch(line.strip())]


def pages(root):
    """[(path, kind)] of every page the renderer writes, in order: 'readme' (README.md, docs/*.md), 'lesson'
    (step*/README.md), 'notes' (step*/NOTES.md), 'results' (results/*/README.md), those that exist."""
    found = [(root / "README.md", "readme")]
    for step in sorted(p for p in root.glob("step*") if p.is_dir()):
        found += [(step / "README.md", "lesson"), (step / "NOTES.md", "notes")]
    found += [(p, "readme") for p in sorted(root.glob("docs/*.md"))]
    found += [(p, "results") for p in sorted(root.glob("results/*/README.md"))]
    return [(path, kind) for path, kind in found if path.is_file()]


def page_results(path, kind, results, cache):
    """The Results a page is rendered from: a results page its own folder's (results/h100's with the GPUs
    shown beside it, as the READMEs), every other page `results`."""
    if kind != "results":
        return results
    folder = path.parent.resolve()
    if folder not in cache:
        primary, beside = readme_folders(folder)
        cache[folder] = (Results(folder, [Results(f) for f in beside]) if primary.resolve() == folder
                         else Results(folder))
    return cache[folder]


def render_inline(results, form, spec, context):
    words = spec.split()
    if not words:
        raise ResultsError(f"{context}: no file named")
    table = results.table(words[0])
    if form == "r" and words.count("/") != 1:
        raise ResultsError(f"{context}: a ratio needs two selectors separated by ' / '")
    split = words.index("/") if form == "r" else len(words)
    first = parse_selector(words[1:split], context)
    column, fmt, scale = first.pop("col", None), first.pop("fmt", None), first.pop("scale", None) if form == "v" else None
    if column is None:
        raise ResultsError(f"{context}: col=COLUMN is missing")
    if column not in table.columns:
        raise ResultsError(f"{context}: {table.name} has no column '{column}'")
    if form == "v":
        row = select_row(table, first, context)
        if scale is not None:
            if not is_number(scale):
                raise ResultsError(f"{context}: scale={scale} is not a number")
            return format(table.number(row, column) * float(scale), fmt or ".4g")
        return size_text(row[column]) if column == "n" and not fmt else format_value(table, row, column, fmt)
    second = parse_selector(words[split + 1:], context)
    fmt = second.pop("fmt", None) or fmt or ".2f"  # fmt= may stand on either side of the '/'
    a, b = (table.number(select_row(table, s, context), column) for s in (first, dict(first, **second)))
    if column.endswith("_ms"):
        a, b = b, a  # times: the first row is faster when its time is smaller
    if b == 0 or not math.isfinite(a / b):
        raise ResultsError(f"{context}: the ratio divides by zero")
    return format(a / b, fmt)


def with_context(context, function, *args):
    """function(*args), its errors (a missing file, say) prefixed with where the marker is."""
    try:
        return function(*args)
    except ResultsError as error:
        if str(error).startswith(context):
            raise
        raise ResultsError(f"{context}: {error}") from None


def render_text(text, results, name):
    """text with every block and inline value rewritten; also the list of what changed (for --check)."""
    def line_of(source, position):
        return source.count("\n", 0, position) + 1

    for match in re.finditer(r"<!-- results:", text):
        if not BLOCK.match(text, match.start()) and not text.startswith("<!-- results:end -->", match.start()):
            raise ResultsError(f"{name} line {line_of(text, match.start())}: a results block marker without "
                               f"a matching '<!-- results:end -->' (or not alone on its line)")
    changes = []

    def block(match):
        context = f"{name} line {line_of(valued, match.start())}, block '{match.group('spec')}'"
        body = with_context(context, render_block, results, match.group("spec").split(), context)
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


# ---------------------------------------------------------------------------------------------
# Charts


def render_charts(results):
    """headline.svg and sweep_<type>.svg (each where its CSV exists), drawn by bench/figures.py; returns
    the files written."""
    import figures  # bench/figures.py: the charts and the lessons' figures, one SVG writer
    folder = results.directory
    try:
        label = folder.resolve().relative_to(REPO_ROOT).as_posix()  # as figures.py --check names it
    except ValueError:
        label = folder.as_posix()
    try:
        charts = figures.results_charts(folder, label)
    except figures.FigureError as error:
        raise ResultsError(str(error)) from None
    for path, text in charts:
        path.write_text(text, encoding="utf-8")
    return [path for path, _ in charts]


# ---------------------------------------------------------------------------------------------


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results_dir", type=Path, help="the results folder, e.g. results/h100")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 naming every README block or value that differs")
    parser.add_argument("--root", type=Path, default=REPO_ROOT,
                        help="the folder holding README.md and step*/README.md (default: the repository)")
    args = parser.parse_args(argv)

    primary, beside = readme_folders(args.results_dir)
    results = Results(primary, [Results(folder) for folder in beside])
    own = results if primary == args.results_dir else Results(args.results_dir)  # headline.md, charts
    try:
        if not args.results_dir.is_dir():
            raise ResultsError(f"{args.results_dir} is not a folder")
        files = pages(args.root)
        if not files:
            raise ResultsError(f"no README.md under {args.root}")
        texts = [path.read_text(encoding="utf-8") for path, _ in files]
        folders = {}
        updates = [(path, text, *render_text(text, page_results(path, kind, results, folders),
                                             str(path.relative_to(args.root))))
                   for (path, kind), text in zip(files, texts)]
        misplaced = [problem for (path, kind), text in zip(files, texts) if kind == "lesson"
                     for problem in inline_markers(text, str(path.relative_to(args.root)))]
        # the folder's own table, without other GPUs' columns
        headline = render_course_table(Results(args.results_dir)) if own.has("headline.csv") else None
    except ResultsError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2

    for problem in misplaced:
        print(f"error: {problem}", file=sys.stderr)
    if args.check:
        stale = [change for *_, changes in updates for change in changes]
        for change in stale:
            print(f"error: {change}", file=sys.stderr)
        if stale:
            print(f"run: python3 bench/render_results.py {args.results_dir}", file=sys.stderr)
        return 1 if stale or misplaced else 0

    for path, text, updated, _ in updates:
        if updated != text:
            path.write_text(updated, encoding="utf-8")
            print(f"wrote {path}")
    if headline is not None:
        (args.results_dir / "headline.md").write_text(headline, encoding="utf-8")
        print(f"wrote {args.results_dir / 'headline.md'}")
    try:
        for path in render_charts(own):
            print(f"wrote {path}")
    except ResultsError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    import render_results  # one copy of this module: bench/render_analyses.py imports it by that name
    sys.exit(render_results.main())
