#!/usr/bin/env python3
"""Writes every measured number of the course's READMEs from the CSVs in a results folder.

    python3 bench/render_results.py results/h100           # rewrite the READMEs, headline.md, charts
    python3 bench/render_results.py results/h100 --check   # exit 1 if any README differs from the results

The files rewritten are the top README.md and every stepNN_*/README.md (found by glob, so new
steps are picked up). Only what lies between markers changes; the prose around them is the
author's. Two kinds of marker:

Blocks, on lines of their own:

    <!-- results:KIND ARGS -->
    (generated; replaced on every run)
    <!-- results:end -->

    course-table          the course table: headline.csv (and headline_cold.csv if present), every row
    step-table STEP       STEP beside the previous step and CUB at the headline size, int32 and
                          float32, L2 warm and (if measured) flushed
    ncu STEP [PREV]       Nsight Compute counters of STEP beside PREV (ncu.csv), one line of meaning each
    csv FILE [cols=A,B]   any results CSV as a table (an ablation, for example), optionally some columns
    sweep-claims          sentences computed from sweep.csv: where each step beats the one before it,
                          the last step against CUB at large n (level: within the run-to-run spread
                          measured in spread.csv; a fixed 1 % until that file exists, and it says so)
    issue-floor STEP      the least time STEP's profiled launch needs to issue its instructions, at the
                          SM clock ncu measured (ncu.csv), beside the time ncu measured
    littles-law           Little's law with the latency under load (loaded_latency.csv) beside step 07's
                          2/4/8-load ablation (step07_loads.csv)
    littles-law-need B    the bytes in flight per thread that law needs, beside B bytes per thread
    (The last two say "not measured yet", and give the idle latency, while loaded_latency.csv does not
    exist: a README can be written before the measurement and --check still passes.)
    sweep-table STEP... [upto=N]  median us per call of each STEP and CUB at every size of sweep.csv
                          up to N, with CUB's time / the first STEP's
    step-diffs            lines added and removed between consecutive steps' reduce.cuh (no results file:
                          tools/step_diffs.py reads the code)
    multigpu-step13 DIR   step13_multi_gpu at K = 1 and 2 from DIR/step13.csv (DIR beside the results
                          folder: h200x2), with the scaling and the smallest n at which 2 GPUs win
    multigpu-allreduce DIR   NCCL against the naive all-reduce (DIR/allreduce.csv), sizes of powers of 4
    multigpu-combine DIR  the three ways of combining one partial per GPU (DIR/combine.csv)
    alternatives-verdict FILE STEP   each other row of FILE against STEP: faster, level or slower per
                          size and type (level: within the run-to-run spread)
    quote FILE            a text file from the results folder, verbatim, in a code block
    peers                 torch, CuPy and JAX (peers.csv, bench/peers.py) beside the last step and CUB
                          (sweep.csv of the same GPU) at a few sizes, with the type each sums into

Other GPUs: the READMEs show results/h100; where results/h200 exists beside it, the course table and
the step tables gain that GPU's median and GB/s columns. Given results/h200, the READMEs come out the
same (only headline.md and the charts are that folder's own).

Inline values, inside a sentence:

    <!--v FILE key=value ... col=COLUMN-->X<!--/v-->
    <!--r FILE col=COLUMN key=value ... / key=value ...-->X<!--/r-->

'v' is the COLUMN of the one row that every key=value matches (a value of max or min picks the row
with the largest or smallest value of that key among the others' matches). 'r' is a ratio: the
first row's value divided by the second's; the second selector names only what differs from the
first. For time columns (names ending in _ms) the ratio is reversed, second / first, so that it
always reads "the first row is X times faster". Formats follow the column (GB/s one decimal, ms
four, ratios two...); fmt=.3f overrides, and scale=X multiplies a 'v' value first (scale=1e-6 for
millions; the default format is then .4g). Selecting no row or several rows is an error naming the
selector, and so is an empty value: nothing is ever rendered blank.

Exit codes: 0 done (or, with --check, everything current), 1 (--check) a README differs (the
message names the file and the block or value), 2 a results file is missing or malformed, or a
marker is malformed or selects no single row, 3 matplotlib is missing (after the READMEs are written).
"""

import argparse
import math
import re
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent

# The columns of headline.csv, headline_cold.csv and sweep.csv: csv_header() in common/report.cpp, the
# one header that compare (bench/compare.cpp) and every step's --csv print.
COMPARE_COLUMNS = [
    "type", "op", "n", "block", "step", "change", "time_median_ms", "time_min_ms", "gbps", "percent_of_peak",
    "batch_ms", "batch_gbps", "idle_ms", "peak_gbps", "x_previous", "x_step01", "x_cub", "l2", "status",
]
# ncu.csv (tools/profile_steps.sh): stamp lines, then this header, like every other results CSV.
NCU_COLUMNS = ["step", "metric", "value"]
# Columns where an empty value means "nothing to compare with" (step01 has no previous step, CUB and
# the read probe are not steps): shown as "-". Anywhere else an empty value is an error.
OPTIONAL_COLUMNS = {"x_previous", "x_step01", "x_cub"}

CUB_STEP = "cub"
READ_PROBE = "read_probe"  # a plain read of the input: the ceiling, not a step and not verified
NOT_STEPS = {CUB_STEP, READ_PROBE}

# Default number formats per column; any other column is printed as the file has it.
COLUMN_FORMATS = {
    "time_median_ms": ".4f", "time_min_ms": ".4f", "batch_ms": ".4f", "idle_ms": ".4f",
    "gbps": ".1f", "batch_gbps": ".1f", "peak_gbps": ".0f", "percent_of_peak": ".1f",
    "x_previous": ".2f", "x_step01": ".2f", "x_cub": ".2f", "latency_ns": ".0f",
}
RATIO_FORMAT = ".2f"


# ---------------------------------------------------------------------------------------------
# Reading results: bench/stamped_csv.py, the one reader of the course's CSV files (ResultsError:
# a results file is missing or malformed, or a marker cannot be rendered from it: exit 2).

sys.path.insert(0, str(Path(__file__).resolve().parent))
from stamped_csv import ResultsError, Table, describe, parse as parse_table  # noqa: E402,F401


class Results:
    """The results folder; each file is read once."""

    def __init__(self, directory):
        self.directory = Path(directory)
        self._tables = {}

    def has(self, name):
        return (self.directory / name).is_file()

    def table(self, name):
        if name not in self._tables:
            path = self.directory / name
            if not path.is_file():
                raise ResultsError(f"{path} not found")
            self._tables[name] = parse_table(path.read_text(encoding="utf-8"), str(path))
        return self._tables[name]

    def compare(self, name):
        """A file written by compare (headline, headline_cold, sweep): all of its columns are required."""
        table = self.table(name)
        missing = [c for c in COMPARE_COLUMNS if c not in table.columns]
        if missing:
            raise ResultsError(f"{table.name}: expected the CSV header that compare writes; missing "
                               f"{','.join(missing)}")
        return table

    def ncu(self):
        """ncu.csv: its step,metric,value header is required."""
        table = self.table("ncu.csv")
        missing = [c for c in NCU_COLUMNS if c not in table.columns]
        if missing:
            raise ResultsError(f"{table.name}: expected the header {','.join(NCU_COLUMNS)} that "
                               f"tools/profile_steps.sh writes; missing {','.join(missing)}")
        return table

    def text(self, name):
        path = self.directory / name
        if not path.is_file():
            raise ResultsError(f"{path} not found")
        return path.read_text(encoding="utf-8")


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
    if fmt:
        return format(table.number(row, column), fmt)
    return value


def markdown_cell(text):
    """A '|' inside a cell would end it."""
    return str(text).replace("|", "\\|")


def markdown_table(headers, right_aligned, rows):
    def line(cells):
        return "|" + "".join(f" {markdown_cell(cell)} |" for cell in cells) + "\n"

    alignment = "|" + "".join(" ---: |" if right else " :--- |" for right in right_aligned) + "\n"
    return line(headers) + alignment + "".join(line(cells) for cells in rows)


def stamp_paragraph(stamp):
    """Where, with what and when: GPU, driver, CUDA, date, commit, L2 mode, command."""
    gpu = stamp.get("gpu", "GPU not recorded")
    details = []
    if "compute_capability" in stamp:
        details.append(f"compute capability {stamp['compute_capability']}")
    if "sms" in stamp:
        details.append(f"{stamp['sms']} SMs")
    if "l2_mib" in stamp:
        details.append(f"{stamp['l2_mib']} MiB L2")
    if "peak_gbps" in stamp:
        details.append(f"{float(stamp['peak_gbps']):.0f} GB/s theoretical peak")
    parts = [f"**{gpu}**" + (f" ({', '.join(details)})" if details else "")]
    parts.append(f"NVIDIA driver {stamp.get('nvidia_driver', 'not recorded')}")
    parts.append(f"CUDA {stamp.get('cuda_runtime', '?')} runtime on driver API {stamp.get('cuda_driver_api', '?')}")
    parts.append(f"measured {stamp.get('date_utc', 'on an unrecorded date')}")
    parts.append(f"commit `{stamp.get('commit', 'unknown')}`")
    if "l2" in stamp:
        parts.append(f"L2 {stamp['l2']}")
    if "timing" in stamp:
        parts.append(f"timing: {stamp['timing']}")
    text = "; ".join(parts) + "."
    if "command" in stamp:
        text += f" Command: `{stamp['command']}`."
    return text + "\n"


def short_stamp(stamp):
    """One line for the tables inside lessons: GPU, date, commit, command."""
    parts = [stamp.get("gpu", "GPU not recorded"), f"measured {stamp.get('date_utc', 'on an unrecorded date')}",
             f"commit `{stamp.get('commit', 'unknown')}`"]
    text = "; ".join(parts)
    if "command" in stamp:
        text += f"; `{stamp['command']}`"
    return text + "."


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
    exact = {k: v for k, v in selector.items() if v not in ("max", "min")}
    rows = [row for row in table.rows if all(row[k] == v for k, v in exact.items())]
    for key, value in selector.items():
        if value in ("max", "min") and rows:
            pick = max if value == "max" else min
            best = pick(table.number(row, key) for row in rows)
            rows = [row for row in rows if table.number(row, key) == best]
    if len(rows) != 1:
        raise ResultsError(f"{context}: selector '{text}' matches {len(rows)} rows of {table.name}, "
                           f"not exactly one")
    return rows[0]


# ---------------------------------------------------------------------------------------------
# Blocks


def batch_cell(table, row):
    """The batch figure, or '-' for an L2-flushed row: compare measures none there, since the flush
    would sit between the calls it times."""
    return "-" if row["l2"] == "flushed" else format_value(table, row, "batch_gbps")


def compare_rows(table, **match):
    return [row for row in table.rows if all(row[k] == v for k, v in match.items())]


def course_table_markdown(table, beside=()):
    """headline.md and the top README's course table: the stamp, then one table per type (every row,
    the read probe marked as the ceiling it is). beside: [(label, table)] of other GPUs, shown as
    extra columns (beside_columns)."""
    headers = ["step", "what changed", "median ms", "GB/s", "% of peak", "batch GB/s", "x previous", "x step01",
               "x CUB", "check"] + beside_headers(beside)
    right = [False, False, True, True, True, True, True, True, True, False] + [True] * (2 * len(beside))
    out = [stamp_paragraph(table.stamp)] + beside_stamps(beside)
    groups = []
    for row in table.rows:
        key = (row["type"], row["op"], row["n"], row["block"], row["l2"])
        if groups and groups[-1][0] == key:
            groups[-1][1].append(row)
        else:
            groups.append((key, [row]))
    for (type_name, op, n, block, l2), rows in groups:
        out.append(f"\n**{type_name}** {op}, n = {n} ({size_text(n)}), block {block}, L2 {l2}:\n\n")
        cells = []
        for row in rows:
            probe = row["step"] == READ_PROBE
            cells.append([row["step"], "read ceiling: one pass over the input, no reduction" if probe else row["change"]]
                         + [format_value(table, row, c) for c in ("time_median_ms", "gbps", "percent_of_peak")]
                         + [batch_cell(table, row)]
                         + (["-", "-", "-"] if probe else
                            [format_value(table, row, c) for c in ("x_previous", "x_step01", "x_cub")])
                         + [row["status"]] + beside_cells(beside, row))
        out.append(markdown_table(headers, right, cells))
    out.append("\nmedian ms: per call, each call timed alone behind a GPU-side wait. batch GB/s: many calls "
               "back to back between one pair of events (none with the L2 flushed: the flush would sit between "
               "the calls). x previous, x step01, x CUB: that row's median time divided by this row's (above 1: "
               "this row is faster).\n")
    return "".join(out)


def render_course_table(results, args, context):
    if args:
        raise ResultsError(f"{context}: course-table takes no arguments")
    content = course_table_markdown(results.compare("headline.csv"), beside_tables(results, "headline.csv"))
    if results.has("headline_cold.csv"):
        content += "\nThe same with the L2 flushed before every call (inputs read from DRAM):\n\n"
        content += course_table_markdown(results.compare("headline_cold.csv"),
                                         beside_tables(results, "headline_cold.csv"))
    return content


def previous_step(table, step, context):
    steps = [s for s in dict.fromkeys(row["step"] for row in table.rows) if s not in NOT_STEPS]
    if step not in steps:
        raise ResultsError(f"{context}: {table.name} has no rows for step '{step}'")
    index = steps.index(step)
    return steps[index - 1] if index > 0 else None


def render_step_table(results, args, context):
    if len(args) != 1:
        raise ResultsError(f"{context}: step-table takes one step name")
    step = args[0]
    names = ["headline.csv"] + (["headline_cold.csv"] if results.has("headline_cold.csv") else [])
    beside = beside_tables(results, "headline.csv")
    headers = ["type", "L2", "step", "median ms", "GB/s", "% of peak", "batch GB/s", "x previous", "x CUB"]
    headers += beside_headers(beside)
    right = [False, False, False, True, True, True, True, True, True] + [True] * (2 * len(beside))
    cells = []
    first = None
    statuses = set()
    for name in names:
        table = results.compare(name)
        first = first or table
        previous = previous_step(table, step, context)
        for type_name in ("int32", "float32"):
            shown = [s for s in (previous, step, CUB_STEP) if s]
            for shown_step in shown:
                rows = compare_rows(table, type=type_name, step=shown_step)
                if len(rows) != 1:
                    raise ResultsError(f"{context}: {table.name} has {len(rows)} rows for type={type_name} "
                                       f"step={shown_step}, not exactly one")
                row = rows[0]
                statuses.add(row["status"])
                label = f"**{shown_step}**" if shown_step == step else shown_step
                cells.append([type_name, row["l2"], label]
                             + [format_value(table, row, c) for c in ("time_median_ms", "gbps", "percent_of_peak")]
                             + [batch_cell(table, row)]
                             + [format_value(table, row, c) for c in ("x_previous", "x_cub")]
                             + beside_cells(beside_or_none(beside, beside_tables(results, name)), row))
    n = first.rows[0]["n"]
    checked = ("every row verified" if statuses == {"PASS"} else
               "every row verified but where the check column of the course table says otherwise "
               "('-': timed, not verified)" if "FAIL" not in statuses else "SOME ROWS FAILED verification")
    head = (f"n = {size_text(n)}, block {first.rows[0]['block']}, {checked}. "
            f"{short_stamp(first.stamp)}"
            + "".join(f" {label} columns: {short_stamp(other.stamp)}" for label, other in beside) + "\n\n")
    return head + markdown_table(headers, right, cells)


# Nsight Compute metrics the lessons quote: a short name, how to show the value, what it means.
NCU_METRICS = [
    ("gpu__time_duration.sum", "duration, us", lambda v: f"{v / 1000:.1f}",
     "time of this one launch, under the profiler's locked clocks and flushed caches"),
    ("dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM throughput, % of peak", lambda v: f"{v:.1f}",
     "how busy the memory was over the launch's whole duration"),
    ("smsp__inst_executed.sum", "warp instructions, millions", lambda v: f"{v / 1e6:.2f}",
     "instructions issued, counted once per warp (32 threads)"),
    ("smsp__thread_inst_executed_per_inst_executed.ratio", "active threads per warp instruction",
     lambda v: f"{v:.2f}", "32 when every lane of every instruction works; lower means idle lanes"),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "shared-memory load bank conflicts",
     lambda v: f"{v:,.0f}", "extra shared-memory cycles because lanes of one load hit the same bank"),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "shared-memory store bank conflicts",
     lambda v: f"{v:,.0f}", "the same for stores"),
    ("sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occupancy, %", lambda v: f"{v:.1f}",
     "resident warps as % of the SM's maximum (64), averaged over the cycles the SM was busy"),
    ("smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio", "warps waiting at a barrier, per issue",
     lambda v: f"{v:.2f}",
     "warp-cycles spent waiting at __syncthreads(), divided by the cycles in which the scheduler issued"),
    ("smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
     "warps waiting for a global load, per issue", lambda v: f"{v:.2f}",
     "warp-cycles spent waiting for global memory, divided by the cycles in which the scheduler issued"),
]


def render_ncu(results, args, context):
    if len(args) not in (1, 2):
        raise ResultsError(f"{context}: ncu takes a step and, optionally, the step to compare it with")
    step, previous = args[0], args[-1]
    table = results.ncu()
    values = {}
    for row in table.rows:
        values[(row["step"], row["metric"])] = row
    for name in (step, previous):
        if not any(s == name for s, _ in values):
            raise ResultsError(f"{context}: {table.name} has no counters for '{name}'")
    cells = []
    for metric, label, show, meaning in NCU_METRICS:
        shown_steps = (previous, step) if previous != step else (step,)
        have = [(name, metric) in values for name in shown_steps]
        if not any(have):
            continue
        if not all(have):
            missing = previous if not have[0] else step
            raise ResultsError(f"{context}: {table.name} has {metric} for one step but not for '{missing}'")
        shown = [show(table.number(values[(name, metric)], "value")) for name in shown_steps]
        cells.append([label] + shown + [meaning])
    if not cells:
        raise ResultsError(f"{context}: {table.name} has none of the counters this table shows")
    return markdown_table(["counter", *shown_steps, "what it counts"],
                          [False] + [True] * len(shown_steps) + [False], cells)


# Warp schedulers per SM: four on compute capability 7.0 to 9.0 (the CUDA C++ Programming Guide's
# description of each architecture's SM), each issuing at most one warp instruction per cycle.
SCHEDULERS_PER_SM = 4
SM_CLOCK_METRIC = "sm__cycles_elapsed.avg.per_second"  # the SM clock during the profiled launch, Hz


def stamp_sms(results, table):
    """The SM count from a table's stamp, else from headline.csv's."""
    for stamp in (table.stamp, results.table("headline.csv").stamp if results.has("headline.csv") else {}):
        if "sms" in stamp:
            try:
                return int(stamp["sms"])
            except ValueError:
                raise ResultsError(f"{table.name}: the stamp's sms is not a number") from None
    raise ResultsError(f"{table.name}: no 'sms' in its stamp or in headline.csv's")


def render_issue_floor(results, args, context):
    """The least time STEP's profiled launch could take if issuing instructions were all it did, at the
    clock ncu ran it at, beside the time ncu measured."""
    if len(args) != 1:
        raise ResultsError(f"{context}: issue-floor takes one step name")
    step = args[0]
    table = results.ncu()
    values = {row["metric"]: row for row in table.rows if row["step"] == step}
    for metric in ("smsp__inst_executed.sum", "gpu__time_duration.sum"):
        if metric not in values:
            raise ResultsError(f"{context}: {table.name} has no {metric} for '{step}'")
    schedulers = stamp_sms(results, table) * SCHEDULERS_PER_SM
    cycles = table.number(values["smsp__inst_executed.sum"], "value") / schedulers
    duration_us = table.number(values["gpu__time_duration.sum"], "value") / 1000
    text = f"at least {cycles:,.0f} cycles (instructions / {schedulers})"
    if SM_CLOCK_METRIC not in values:
        return (text + f". The profiler measured {duration_us:.0f} us for that launch, at a clock this ncu.csv does "
                f"not record (tools/profile_steps.sh now collects it, `{SM_CLOCK_METRIC}`), so the floor is not "
                f"turned into microseconds here.\n")
    clock = table.number(values[SM_CLOCK_METRIC], "value")
    if not 1e8 <= clock <= 1e10:  # cycles per second; a value in other units would give a wrong floor
        raise ResultsError(f"{context}: {table.name}: {SM_CLOCK_METRIC} of '{step}' is {clock:g}, not a clock "
                           f"in Hz (tools/profile_steps.sh asks ncu for base units)")
    floor_us = cycles / clock * 1e6
    return (text + f", or {floor_us:.0f} us at the {clock / 1e9:.2f} GHz SM clock ncu ran that launch at "
            f"(`{SM_CLOCK_METRIC}`): {floor_us / duration_us * 100:.0f} % of the {duration_us:.0f} us the "
            f"profiler measured for it.\n")


# Little's law with the latency measured under load (loaded_latency.csv): the model lessons 07-09 use.
LOADED_LATENCY = "loaded_latency.csv"


def loaded_rows(results):
    """loaded_latency.csv's rows at the most blocks per SM it measured (the whole GPU, as the course's
    kernels run), by loads; the idle row (loads 0); the table."""
    table = results.table(LOADED_LATENCY)
    for column in ("loads", "blocks_per_sm", "streaming_threads", "bytes_in_flight", "gbps", "latency_ns", "status"):
        if column not in table.columns:
            raise ResultsError(f"{table.name}: no column '{column}' (bench/ablation/loaded_latency.cu writes it)")
    bad = [describe(row) for row in table.rows if row["status"] != "ok"]
    if bad:
        raise ResultsError(f"{table.name}: rows not measured under load: {', '.join(bad)}")
    idle = [row for row in table.rows if row["loads"] == "0"]
    loaded = [row for row in table.rows if row["loads"] != "0"]
    if len(idle) != 1 or not loaded:
        raise ResultsError(f"{table.name}: expected one idle row (loads 0) and rows under load")
    full = max(int(row["blocks_per_sm"]) for row in loaded)
    by_loads = {int(row["loads"]): row for row in loaded if int(row["blocks_per_sm"]) == full}
    return by_loads, idle[0], table


def littles_law_model(results):
    """(rows, facts): per loads at the whole GPU, the bytes in flight, the loaded latency and what
    Little's law allows; facts: the best streaming bandwidth and the bytes in flight it needs."""
    by_loads, idle, table = loaded_rows(results)
    best = max(by_loads.values(), key=lambda row: table.number(row, "gbps"))
    best_gbps, best_ns = table.number(best, "gbps"), table.number(best, "latency_ns")
    rows = []
    for loads, row in sorted(by_loads.items()):
        in_flight = table.number(row, "bytes_in_flight")
        latency = table.number(row, "latency_ns")
        allowed = in_flight / latency  # bytes per ns = GB/s
        rows.append({"loads": loads, "in_flight": in_flight, "latency": latency, "gbps": table.number(row, "gbps"),
                     "predicted": min(allowed, best_gbps), "allowed": allowed})
    facts = {"best_gbps": best_gbps, "best_ns": best_ns, "best_loads": int(best["loads"]),
             "needed": best_gbps * best_ns, "idle_ns": table.number(idle, "latency_ns"),
             "threads": int(best["streaming_threads"]), "stamp": table.stamp}
    return rows, facts


def not_measured_yet(results):
    """The paragraph shown while loaded_latency.csv does not exist: only the idle latency, a floor."""
    idle = select_row(results.table("dram_latency.csv"), {"footprint_bytes": "max"}, "dram_latency.csv")
    latency = float(idle["latency_ns"])
    return (f"*Not measured yet*: `{LOADED_LATENCY}` does not exist in this results folder (`bench/reproduce.sh "
            f"--only loaded_latency`). Until it does, the only latency measured is the idle one, "
            f"{latency:.0f} ns (`dram_latency.csv`), a floor for the latency under load.\n")


def render_littles_law(results, args, context):
    """Step 07's model: per loads per iteration, the bytes in flight, the loaded latency, what Little's
    law then allows, and step 07's measured bandwidth with that many loads (step07_loads.csv)."""
    if args:
        raise ResultsError(f"{context}: littles-law takes no arguments")
    if not results.has(LOADED_LATENCY):
        return not_measured_yet(results)
    rows, facts = littles_law_model(results)
    step07 = results.table("step07_loads.csv")
    largest = str(max(int(row["n"]) for row in step07.rows))
    measured = {int(row["loads"]): step07.number(row, "gbps") for row in step07.rows
                if row["type"] == "int32" and row["n"] == largest}
    cells, checks = [], []
    for row in rows:
        seen = measured.get(row["loads"])
        cells.append([row["loads"], f"{row['in_flight'] / 1e6:.1f}", f"{row['latency']:.0f}", f"{row['gbps']:.0f}",
                      f"{row['allowed']:.0f}", f"{row['predicted']:.0f}", "-" if seen is None else f"{seen:.0f}"])
        if seen is not None:
            checks.append(seen / row["predicted"])
    out = [short_stamp(facts["stamp"]) + "\n\n",
           markdown_table(["loads", "MB in flight (at most)", "loaded latency, ns", "stream GB/s",
                           "in flight / latency, GB/s", "model GB/s", f"step 07 GB/s, int32 {size_text(largest)}"],
                          [True] * 7, cells)]
    out.append(f"\nThe most the memory delivered is {facts['best_gbps']:.0f} GB/s (with {facts['best_loads']} loads), "
               f"at a loaded latency of {facts['best_ns']:.0f} ns, {facts['best_ns'] / facts['idle_ns']:.1f} times the "
               f"idle {facts['idle_ns']:.0f} ns: Little's law needs {facts['needed'] / 1e6:.1f} MB in flight for it, "
               f"{facts['needed'] / facts['threads']:.0f} bytes per resident thread. The model is min(that bandwidth, "
               f"bytes in flight / loaded latency).")
    short = [str(row["loads"]) for row in rows if row["loads"] in measured and row["allowed"] < facts["best_gbps"]]
    enough = [str(row["loads"]) for row in rows if row["loads"] in measured and row["allowed"] >= facts["best_gbps"]]
    if short:
        out.append(f" By the model, {' and '.join(short)} loads per iteration keep too few bytes in flight for it")
        out.append(f", and {' and '.join(enough)} enough." if enough else ".")
    elif enough:
        out.append(f" By the model, {' and '.join(enough)} loads per iteration all keep enough bytes in flight for it.")
    if checks:
        out.append(f" Step 07's measured bandwidth is {min(checks) * 100:.0f} to {max(checks) * 100:.0f} % of the "
                   f"model's.")
    return "".join(out) + "\n"


def render_littles_law_need(results, args, context):
    """One paragraph for the lessons after step 07: the bytes in flight Little's law needs, per
    resident thread, beside the BYTES per thread a step can keep in flight."""
    if len(args) != 1 or not args[0].isdigit():
        raise ResultsError(f"{context}: littles-law-need takes the bytes one thread keeps in flight")
    per_thread = int(args[0])
    if not results.has(LOADED_LATENCY):
        return not_measured_yet(results)
    _, facts = littles_law_model(results)
    need = facts["needed"] / facts["threads"]
    verdict = "more than" if per_thread > need * 1.05 else "less than" if per_thread < need * 0.95 else "about"
    return (f"Little's law with the latency measured under load (step 07's lesson, `{LOADED_LATENCY}`): "
            f"{facts['best_gbps']:.0f} GB/s at {facts['best_ns']:.0f} ns needs {facts['needed'] / 1e6:.1f} MB in "
            f"flight, {need:.0f} bytes per resident thread. {per_thread} bytes per thread is {verdict} that.\n")


def render_csv(results, args, context):
    if not args:
        raise ResultsError(f"{context}: csv takes a file name")
    table = results.table(args[0])
    options = parse_selector(args[1:], context)
    columns = table.columns
    if "cols" in options:
        columns = options.pop("cols").split(",")
        for column in columns:
            if column not in table.columns:
                raise ResultsError(f"{context}: {table.name} has no column '{column}'")
    if options:
        raise ResultsError(f"{context}: csv understands only cols=, not {', '.join(options)}")
    right = []
    for column in columns:
        right.append(all(_is_number(row[column]) for row in table.rows))
    cells = [[size_text(row[c]) if c == "n" else format_value(table, row, c) for c in columns] for row in table.rows]
    return short_stamp(table.stamp) + "\n\n" + markdown_table(columns, right, cells)


def _is_number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def render_quote(results, args, context):
    if len(args) != 1:
        raise ResultsError(f"{context}: quote takes one file name")
    text = results.text(args[0])
    if not text.strip():
        raise ResultsError(f"{context}: {args[0]} is empty")
    return "```\n" + text.rstrip("\n") + "\n```\n"


def _steps(rows):
    return [s for s in dict.fromkeys(row["step"] for row in rows) if s not in NOT_STEPS]


def sweep_facts(table):
    """Per type: for each step, the smallest n from which it is faster than the step before it at every
    larger measured size too (None: not even at the largest), and the smaller sizes where it is not."""
    facts = {}
    for type_name in dict.fromkeys(row["type"] for row in table.rows):
        rows = [row for row in table.rows if row["type"] == type_name]
        times = {(row["step"], int(row["n"])): table.number(row, "time_median_ms") for row in rows}
        sizes = sorted({int(row["n"]) for row in rows})
        steps = _steps(rows)
        wins = []
        for previous, step in zip(steps, steps[1:]):
            start = None
            for n in reversed(sizes):
                if (step, n) in times and (previous, n) in times and times[(step, n)] < times[(previous, n)]:
                    start = n
                else:
                    break
            losses = [n for n in sizes if start is not None and n < start and (step, n) in times
                      and (previous, n) in times and times[(step, n)] >= times[(previous, n)]]
            wins.append((previous, step, start, losses))
        facts[type_name] = (sizes, steps, times, wins)
    return facts


# Where spread.csv (the headline measured in several separate processes) does not exist yet, two
# per-call medians closer than this are called level.
TIE_PERCENT = 1.0


def run_spread(table, type_name, step):
    """The run-to-run spread of one row of spread.csv: the slowest run's median over the fastest's,
    minus 1 (0.02: the runs differ by up to 2 %)."""
    times = [table.number(row, "time_median_ms") for row in table.rows
             if row["type"] == type_name and row["step"] == step]
    if len(times) < 2:
        raise ResultsError(f"{table.name}: fewer than two runs of type={type_name} step={step}")
    if min(times) <= 0:
        raise ResultsError(f"{table.name}: a time of type={type_name} step={step} is not positive")
    return max(times) / min(times) - 1


def tie_rule(results, type_steps):
    """How close two medians must be to be called level: {type: fraction} and the sentence that says
    where it comes from. With spread.csv, per type the largest run-to-run spread of the rows compared
    (type_steps: {type: [step, ...]}); without it, TIE_PERCENT, and the sentence says so."""
    if not results.has("spread.csv"):
        ties = {t: TIE_PERCENT / 100 for t in type_steps}
        return ties, (f"{TIE_PERCENT:g} % either way counts as level, a fixed rule until spread.csv, the "
                      f"measured run-to-run spread, exists")
    table = results.table("spread.csv")
    for column in ("run", "type", "step", "n", "time_median_ms"):
        if column not in table.columns:
            raise ResultsError(f"{table.name}: no column '{column}' (bench/reproduce.sh --only spread writes it)")
    ties = {t: max(run_spread(table, t, step) for step in steps) for t, steps in type_steps.items()}
    runs = len({row["run"] for row in table.rows})
    spreads = " and ".join(f"{ties[t] * 100:.1f} % for {t}" for t in ties)
    return ties, (f"a ratio within the larger run-to-run spread of the two rows counts as level: {spreads}, "
                  f"over {runs} separate runs of the headline at n = {size_text(table.rows[0]['n'])} (spread.csv)")


def versus_cub_text(ratios, tie=TIE_PERCENT / 100):
    """'faster at 2^13 .. 2^26, level at 2^27 .. 2^30, slower at 2^10 .. 2^12' from (n, CUB time /
    step time) pairs in size order; runs of consecutive sizes with the same verdict are joined. A
    ratio within a factor 1 + tie of 1 either way is level."""
    def verdict(ratio):
        return "faster" if ratio > 1 + tie else "slower" if ratio < 1 / (1 + tie) else "level"
    runs = []
    for n, ratio in ratios:
        word = verdict(ratio)
        if runs and runs[-1][0] == word:
            runs[-1][2] = n
        else:
            runs.append([word, n, n])
    parts = [f"{word} at {size_text(lo)}" + ("" if lo == hi else f" .. {size_text(hi)}") for word, lo, hi in runs]
    return ", ".join(parts) if parts else "not measured"


def render_sweep_claims(results, args, context):
    if args:
        raise ResultsError(f"{context}: sweep-claims takes no arguments")
    table = results.compare("sweep.csv")
    facts = sweep_facts(table)
    types = list(facts)
    out = []
    # Where each step overtakes the one before it for good.
    starts = {}
    for type_name in types:
        for previous, step, start, losses in facts[type_name][3]:
            starts.setdefault(step, {})[type_name] = (previous, start, losses)
    if starts:
        found = [start for per_type in starts.values() for _, start, _ in per_type.values()]
        largest = max(n for type_name in types for n in facts[type_name][0])
        if all(start is not None for start in found) and max(found) < largest:
            out.append(f"From n = {size_text(max(found))} up, every step is faster than the one before it at "
                       f"every measured size, for {' and '.join(types)}. Where each step becomes faster for "
                       f"good:\n\n")
        elif all(start is not None for start in found):
            out.append(f"Every step is faster than the one before it at the largest size measured "
                       f"({size_text(largest)}), but not every step is at every size below it. Where each step "
                       f"becomes faster for good:\n\n")
        else:
            out.append("Not every step is faster than the one before it at the largest size measured. Where "
                       "each step becomes faster for good:\n\n")
        cells = []
        for step, per_type in starts.items():
            row = [step, next(iter(per_type.values()))[0]]
            for type_name in types:
                if type_name not in per_type:
                    row.append("not measured")
                    continue
                _, start, losses = per_type[type_name]
                if start is None:
                    row.append(f"not at {size_text(facts[type_name][0][-1])}")
                elif start == facts[type_name][0][0]:
                    row.append("every size")
                else:
                    row.append(f"{size_text(start)} (slower or equal at {len(losses)} smaller sizes)")
            cells.append(row)
        out.append(markdown_table(["step", "faster than"] + [f"{t}: from n =" for t in types],
                                  [False, False] + [True] * len(types), cells))
    # The last step against CUB: from which size it is faster for good, and by how much.
    last = {t: facts[t][1][-1] for t in types if facts[t][1]}
    sizes = [n for n in (1 << 16, 1 << 20, 1 << 24, 1 << 26, 1 << 28, 1 << 30, 1 << 32)
             if all((last[t], n) in facts[t][2] and (CUB_STEP, n) in facts[t][2] for t in last)]
    if last and sizes:
        name = next(iter(last.values()))
        ties, rule = tie_rule(results, {t: [last[t], CUB_STEP] for t in last})
        verdicts = []
        for type_name in last:
            sizes_t, _, times, _ = facts[type_name]
            measured = [n for n in sizes_t if (last[type_name], n) in times and (CUB_STEP, n) in times]
            verdicts.append(f"for {type_name}, " + versus_cub_text(
                [(n, times[(CUB_STEP, n)] / times[(last[type_name], n)]) for n in measured], ties[type_name]))
        out.append(f"\n{name} against CUB ({rule}): "
                   f"{'; '.join(verdicts)}. CUB's time divided by {name}'s (above 1: {name} is faster):\n\n")
        cells = [[size_text(n)] + [f"{facts[t][2][(CUB_STEP, n)] / facts[t][2][(last[t], n)]:.3f}" for t in last]
                 for n in sizes]
        out.append(markdown_table(["n"] + list(last), [False] + [True] * len(last), cells))
    # The smallest and the largest size.
    for type_name in last:
        sizes_t, steps, times, _ = facts[type_name]
        small = [times[(s, sizes_t[0])] * 1000 for s in steps + [CUB_STEP] if (s, sizes_t[0]) in times]
        top = sizes_t[-1]
        rows = {row["step"]: row for row in table.rows if row["type"] == type_name and int(row["n"]) == top}
        text = (f"\n{type_name}: at n = {size_text(sizes_t[0])} every version takes between {min(small):.1f} and "
                f"{max(small):.1f} us per call.")
        if last[type_name] in rows and CUB_STEP in rows:
            text += (f" At n = {size_text(top)}, {last[type_name]} reaches "
                     f"{format_value(table, rows[last[type_name]], 'gbps')} GB/s "
                     f"({format_value(table, rows[last[type_name]], 'percent_of_peak')} % of peak) and CUB "
                     f"{format_value(table, rows[CUB_STEP], 'gbps')} GB/s.")
        out.append(text + "\n")
    return "".join(out)


def render_sweep_table(results, args, context):
    """sweep-table STEP... [upto=N]: the median time per call (us) of each STEP and CUB at every
    size of sweep.csv up to N, int32 and float32, with CUB's time / the first STEP's."""
    options = parse_selector([a for a in args if "=" in a], context)
    steps = [a for a in args if "=" not in a]
    if not steps:
        raise ResultsError(f"{context}: sweep-table takes one step name or more")
    upto = options.pop("upto", None)
    if options:
        raise ResultsError(f"{context}: sweep-table understands only upto=, not {', '.join(options)}")
    table = results.compare("sweep.csv")
    limit = int(upto) if upto else None
    times = {}
    for row in table.rows:
        times[(row["type"], row["step"], int(row["n"]))] = table.number(row, "time_median_ms") * 1000
    types = list(dict.fromkeys(row["type"] for row in table.rows))
    sizes = sorted({n for (_, _, n) in times if limit is None or n <= limit})
    shown = steps + [CUB_STEP]
    headers, cells = ["n"], []
    for type_name in types:
        headers += [f"{type_name} {s}, us" for s in shown] + [f"{type_name} CUB / {steps[0]}"]
    for n in sizes:
        row = [size_text(n)]
        for type_name in types:
            for step in shown:
                if (type_name, step, n) not in times:
                    raise ResultsError(f"{context}: sweep.csv has no row for {step}, {type_name}, n = {n}")
                row.append(f"{times[(type_name, step, n)]:.2f}")
            row.append(f"{times[(type_name, CUB_STEP, n)] / times[(type_name, steps[0], n)]:.3f}")
        cells.append(row)
    return (short_stamp(table.stamp) + "\n\n" +
            markdown_table(headers, [False] + [True] * (len(headers) - 1), cells))


def render_step_diffs(results, args, context):
    """step-diffs: lines added and removed between consecutive steps' reduce.cuh (tools/step_diffs.py)."""
    if args:
        raise ResultsError(f"{context}: step-diffs takes no arguments")
    sys.path.insert(0, str(REPO_ROOT / "tools"))
    import step_diffs  # noqa: E402
    return step_diffs.markdown(step_diffs.step_diffs(REPO_ROOT))


# ---------------------------------------------------------------------------------------------
# Other GPUs beside the course's own (results/h200 beside results/h100)

# The READMEs show the results of PRIMARY_GPU; a folder of one of BESIDE_GPUS next to it adds that
# GPU's median and GB/s as columns of the course table and the lessons' step tables. Given either
# folder, the READMEs come out the same, so `render_results.py results/h200 --check` checks them too.
PRIMARY_GPU = "h100"
BESIDE_GPUS = ("h200",)


def readme_folders(results_dir):
    """(the folder whose results fill the READMEs, [folders of other GPUs shown beside it])."""
    results_dir = Path(results_dir)
    primary = results_dir
    several_gpus = (results_dir / "step13.csv").is_file() and not (results_dir / "headline.csv").is_file()
    if (results_dir.name in BESIDE_GPUS or several_gpus) and (results_dir.parent / PRIMARY_GPU).is_dir():
        # another GPU's columns, or several GPUs' results (results/h200x2, read by step 13's blocks):
        # the READMEs are the primary folder's, with these in them
        primary = results_dir.parent / PRIMARY_GPU
    if primary.name != PRIMARY_GPU:
        return primary, []  # another GPU's results, or a fixture, rendered on their own
    return primary, [primary.parent / name for name in BESIDE_GPUS if (primary.parent / name).is_dir()]


def beside_tables(results, name):
    """[(label, table)]: file `name` of each other GPU's folder that has it (results.beside, set by
    main; none when it is not set)."""
    return [(folder.name.upper(), other.compare(name))
            for folder, other in ((r.directory, r) for r in getattr(results, "beside", ())) if other.has(name)]


def beside_or_none(labelled, found):
    """labelled's labels, each with its table from found (None where that GPU lacks the file)."""
    tables = dict(found)
    return [(label, tables.get(label)) for label, _ in labelled]


def beside_headers(beside):
    return [h for label, _ in beside for h in (f"{label} median ms", f"{label} GB/s")]


def beside_stamps(beside):
    return [f"\n{label} columns: " + stamp_paragraph(other.stamp) for label, other in beside]


def beside_cells(beside, row):
    """The other GPUs' median and GB/s of the row that measured the same thing ('-' where none did)."""
    cells = []
    for _, other in beside:
        keys = ("type", "op", "n", "block", "l2", "step")
        match = [] if other is None else compare_rows(other, **{k: row[k] for k in keys})
        cells += ([format_value(other, match[0], c) for c in ("time_median_ms", "gbps")] if len(match) == 1
                  else ["-", "-"])
    return cells


# ---------------------------------------------------------------------------------------------
# What you would use instead: torch, CuPy and JAX (peers.csv) beside the course and CUB (sweep.csv)

PEERS_SIZES = (1 << 16, 1 << 20, 1 << 24, 1 << 28, 1 << 30, 1 << 32)
PEERS_COLUMNS = ["library", "type", "n", "output_type", "batch_ms", "batch_gbps", "iters", "timing", "check"]
# What the course's rows return: int32 sums wrap modulo 2^32 (step_api.h), as CUB's on int32
COURSE_OUTPUT_TYPE = {"int32": "int32 (modulo 2^32)", "float32": "float32"}


def render_peers(results, args, context):
    if args:
        raise ResultsError(f"{context}: peers takes no arguments")
    if not results.has("peers.csv"):
        return ("Not measured on this GPU yet: `bench/reproduce.sh --only sweep,peers` writes peers.csv beside "
                "sweep.csv.\n")
    peers = results.table("peers.csv")
    missing = [c for c in PEERS_COLUMNS if c not in peers.columns]
    if missing:
        raise ResultsError(f"{peers.name}: expected the header that bench/peers.py writes; missing {','.join(missing)}")
    sweep = results.compare("sweep.csv")
    if peers.stamp.get("gpu") != sweep.stamp.get("gpu"):
        raise ResultsError(f"{peers.name} was measured on '{peers.stamp.get('gpu')}', {sweep.name} on "
                           f"'{sweep.stamp.get('gpu')}': the ratios would not be like for like")
    libraries = list(dict.fromkeys(row["library"] for row in peers.rows))
    out = [f"Batch GB/s (calls back to back, total time / count) at a few sizes of the sweep, "
           f"{peers.stamp.get('gpu')}. {', '.join(libraries)}: {short_stamp(peers.stamp)} The course and CUB: "
           f"{short_stamp(sweep.stamp)}\n"]
    for type_name in dict.fromkeys(row["type"] for row in peers.rows):
        rows = [r for r in sweep.rows if r["type"] == type_name and r["l2"] == "warm"]
        last = (_steps(rows) or [None])[-1]
        sizes = [n for n in PEERS_SIZES
                 if any(int(r["n"]) == n and r["type"] == type_name for r in peers.rows)
                 and any(int(r["n"]) == n and r["step"] in (last, CUB_STEP) for r in rows)]
        if not sizes:
            continue
        cells = []
        for library in libraries:
            mine = {int(r["n"]): r for r in peers.rows if r["library"] == library and r["type"] == type_name}
            if not mine:
                continue
            output = "/".join(dict.fromkeys(r["output_type"] for r in mine.values()))
            cells.append([library, output] + [format(peers.number(mine[n], "batch_gbps"), ".1f") if n in mine
                                              else "-" for n in sizes]
                         + [_peers_check(mine.values())])
        for step in (last, CUB_STEP):
            mine = {int(r["n"]): r for r in rows if r["step"] == step}
            if step and mine:
                cells.append([step, COURSE_OUTPUT_TYPE.get(type_name, type_name)]
                             + [batch_cell(sweep, mine[n]) if n in mine else "-" for n in sizes]
                             + [_peers_check(mine.values(), column="status")])
        out.append(f"\n**{type_name}** sum, batch GB/s:\n\n")
        out.append(markdown_table(["library", "sums into"] + [size_text(n) for n in sizes] + ["check"],
                                  [False, False] + [True] * len(sizes) + [False], cells))
    timings = list(dict.fromkeys(f"{r['library']}: {r['timing']}" for r in peers.rows))
    out.append("\nHow each was timed: " + "; ".join(timings) + ".\n")
    return "".join(out)


def _peers_check(rows, column="check"):
    """PASS where every row passed; FAIL if any failed; '-' where none was checked."""
    words = {r[column] for r in rows}
    return "FAIL" if "FAIL" in words else "PASS" if "PASS" in words else "-"


# ---------------------------------------------------------------------------------------------
# Several GPUs (step13_multi_gpu's lesson): the results of bench/multigpu.sh in a sibling folder
# of the results folder (results/h200x2 beside results/h100), named by the block's argument.

def multigpu_table(results, args, context, file_name):
    if len(args) != 1:
        raise ResultsError(f"{context}: takes the folder of the multi-GPU results, e.g. h200x2")
    return Results(results.directory.parent / args[0]).table(file_name)


def render_multigpu_step13(results, args, context):
    """step13.csv as a table: per type and n, the time on 1 GPU and, for every K > 1 measured, on K
    GPUs (one process, one MPI rank per GPU, input from GPU 0), the scaling and mpi / process."""
    table = multigpu_table(results, args, context, "step13.csv")
    runs = {}
    for row in table.rows:
        k = int(row["gpus"])
        form = "process" if k == 1 else "from GPU 0" if row["from_one_gpu"] == "1" else row["launch"]
        runs[(row["type"], int(row["n"]), k, form)] = table.number(row, "time_median_ms")
        if row["status"] != "PASS":
            raise ResultsError(f"{table.name}: a run did not pass: {describe(row)}")
    counts = sorted({k for (_, _, k, _) in runs if k > 1})
    if not counts or not any(k == 1 for (_, _, k, _) in runs):
        raise ResultsError(f"{table.name}: needs runs on 1 GPU and on more than one")
    forms = ("process", "mpi", "from GPU 0")
    headers = ["type", "n", "1 GPU, ms"] + [f"{k} GPUs, {f}, ms" for k in counts for f in forms]
    for k in counts:
        headers += [f"scaling (1 GPU / {k} GPUs)", "mpi / process" if len(counts) == 1 else f"{k} GPUs: mpi / process"]
    types = list(dict.fromkeys(t for (t, _, _, _) in runs))
    cells, wins = [], {}
    for type_name in types:
        for n in sorted({n for (t, n, _, _) in runs if t == type_name}):
            one = runs.get((type_name, n, 1, "process"))
            if one is None:
                raise ResultsError(f"{table.name}: {type_name} n = {n} lacks the 1-GPU run")
            row = [type_name, size_text(n), f"{one:.4f}"]
            for k in counts:
                row += ["-" if (type_name, n, k, f) not in runs else f"{runs[(type_name, n, k, f)]:.4f}" for f in forms]
            for k in counts:
                process, mpi = runs.get((type_name, n, k, "process")), runs.get((type_name, n, k, "mpi"))
                if process is None:
                    raise ResultsError(f"{table.name}: {type_name} n = {n} lacks the one-process run on {k} GPUs")
                if one / process > 1 and (type_name, k) not in wins:
                    wins[(type_name, k)] = n
                row += [f"{one / process:.3f}", "-" if mpi is None else f"{mpi / process:.3f}"]
            cells.append(row)
    out = short_stamp(table.stamp) + "\n\n" + markdown_table(headers, [False, False] + [True] * (len(headers) - 2), cells)
    largest = max(n for (_, n, _, _) in runs)
    words = {2: "two", 4: "four", 8: "eight"}
    facts = []
    for type_name in types:
        for k in counts:
            scaling = runs[(type_name, largest, 1, "process")] / runs[(type_name, largest, k, "process")]
            win = wins.get((type_name, k))
            facts.append(f"{type_name}: {scaling:.3f}x at {size_text(largest)}, {words.get(k, str(k))} GPUs faster "
                         f"from {size_text(win) if win else 'no measured size'} on" +
                         (" (the smallest measured size where they are)" if win else ""))
    return out + "\nScaling: " + "; ".join(facts) + ".\n"


def render_multigpu_allreduce(results, args, context):
    table = multigpu_table(results, args, context, "allreduce.csv")
    rows = {}
    for row in table.rows:
        rows[(row["method"], int(row["bytes"]))] = row
    sizes = sorted({b for (_, b) in rows if (b & (b - 1)) == 0 and (b.bit_length() - 1) % 2 == 0})  # powers of 4
    headers = ["bytes per GPU", "NCCL us", "NCCL algbw GB/s", "NCCL busbw GB/s", "naive us", "naive algbw GB/s",
               "NCCL / naive"]
    cells = []
    for b in sizes:
        nccl, naive = rows.get(("nccl", b)), rows.get(("naive", b))
        if nccl is None or naive is None:
            continue
        t_nccl, t_naive = table.number(nccl, "time_median_us"), table.number(naive, "time_median_us")
        cells.append([bytes_text(b), f"{t_nccl:.1f}", nccl["algbw_gbps"], nccl["busbw_gbps"], f"{t_naive:.1f}",
                      naive["algbw_gbps"], f"{t_naive / t_nccl:.2f}"])
    limit = next(iter(table.rows))["nvlink_gbps"]
    return (short_stamp(table.stamp) + "\n\n" + markdown_table(headers, [False] + [True] * 6, cells) +
            f"\nThe NVLink limit read from the machine (`nvidia-smi nvlink -s`, GPU 0, per direction): {limit} GB/s. "
            "NCCL / naive: the naive version's time divided by NCCL's (above 1: NCCL is faster).\n")


def bytes_text(b):
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= size and b % size == 0:
            return f"{b // size} {unit}"
    return f"{b} B"


def render_multigpu_combine(results, args, context):
    table = multigpu_table(results, args, context, "combine.csv")
    cells = [[row[c] if row[c] else "-" for c in table.columns] for row in table.rows]
    return short_stamp(table.stamp) + "\n\n" + markdown_table(table.columns, [False, True, False] + [True] * 4 +
                                                                  [False], cells)


def render_alternatives_verdict(results, args, context):
    """alternatives-verdict FILE STEP: each other row of FILE (a variants CSV) against STEP, per type,
    as faster / level / slower at each size, level meaning within the run-to-run spread (tie_rule)."""
    if len(args) != 2:
        raise ResultsError(f"{context}: alternatives-verdict takes a CSV file and the step to compare with")
    table = results.compare(args[0])
    reference = args[1]
    times = {(r["type"], r["step"], int(r["n"])): table.number(r, "time_median_ms") for r in table.rows}
    types = list(dict.fromkeys(r["type"] for r in table.rows))
    others = [s for s in dict.fromkeys(r["step"] for r in table.rows) if s != reference]
    ties, rule = tie_rule(results, {t: [reference, "step09_vector_loads"] for t in types})
    lines = [f"Each against {reference}, by per-call median ({rule}):\n"]
    for step in others:
        verdicts = []
        for type_name in types:
            sizes = sorted(n for (t, s, n) in times if t == type_name and s == step and (t, reference, n) in times)
            ratios = [(n, times[(type_name, reference, n)] / times[(type_name, step, n)]) for n in sizes]
            verdicts.append(f"{type_name} " + versus_cub_text(ratios, ties[type_name]))
        lines.append(f"- `{step}`: " + "; ".join(verdicts) + ".")
    return "\n".join(lines) + "\n"


BLOCK_KINDS = {
    "course-table": render_course_table,
    "step-table": render_step_table,
    "ncu": render_ncu,
    "csv": render_csv,
    "sweep-claims": render_sweep_claims,
    "sweep-table": render_sweep_table,
    "step-diffs": render_step_diffs,
    "quote": render_quote,
    "issue-floor": render_issue_floor,
    "littles-law": render_littles_law,
    "littles-law-need": render_littles_law_need,
    "peers": render_peers,
    "alternatives-verdict": render_alternatives_verdict,
    "multigpu-step13": render_multigpu_step13,
    "multigpu-allreduce": render_multigpu_allreduce,
    "multigpu-combine": render_multigpu_combine,
}

BLOCK = re.compile(r"<!-- results:(?!end -->)(?P<spec>[^\n]*?) -->\n(?P<body>.*?)<!-- results:end -->", re.S)
INLINE = re.compile(r"<!--(?P<form>[vr]) (?P<spec>[^\n]*?)-->(?P<value>[^\n]*?)<!--/(?P=form)-->")


def line_of(text, position):
    return text.count("\n", 0, position) + 1


def render_inline(results, form, spec, context):
    words = spec.split()
    if not words:
        raise ResultsError(f"{context}: no file named")
    table = results.table(words[0])
    if form == "v":
        selector = parse_selector(words[1:], context)
        column = selector.pop("col", None)
        fmt = selector.pop("fmt", None)
        scale = selector.pop("scale", None)
        if column is None:
            raise ResultsError(f"{context}: col=COLUMN is missing")
        if column not in table.columns:
            raise ResultsError(f"{context}: {table.name} has no column '{column}'")
        row = select_row(table, selector, context)
        if scale is not None:
            try:
                factor = float(scale)
            except ValueError:
                raise ResultsError(f"{context}: scale={scale} is not a number") from None
            return format(table.number(row, column) * factor, fmt or ".4g")
        if column == "n" and not fmt:
            return size_text(row[column])
        return format_value(table, row, column, fmt)
    if words.count("/") != 1:
        raise ResultsError(f"{context}: a ratio needs two selectors separated by ' / '")
    split = words.index("/")
    first = parse_selector(words[1:split], context)
    column = first.pop("col", None)
    fmt = first.pop("fmt", None) or RATIO_FORMAT
    if column is None:
        raise ResultsError(f"{context}: col=COLUMN is missing")
    if column not in table.columns:
        raise ResultsError(f"{context}: {table.name} has no column '{column}'")
    second_words = parse_selector(words[split + 1:], context)
    fmt = second_words.pop("fmt", None) or fmt  # fmt= may stand on either side of the '/'
    second = dict(first, **second_words)
    a = table.number(select_row(table, first, context), column)
    b = table.number(select_row(table, second, context), column)
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
    changes = []
    for match in re.finditer(r"<!-- results:", text):
        if not BLOCK.match(text, match.start()) and not text.startswith("<!-- results:end -->", match.start()):
            raise ResultsError(f"{name} line {line_of(text, match.start())}: a results block marker without "
                               f"a matching '<!-- results:end -->' (or not alone on its line)")

    def block(match):
        spec = match.group("spec").split()
        context = f"{name} line {line_of(valued, match.start())}, block '{match.group('spec')}'"
        if not spec or spec[0] not in BLOCK_KINDS:
            raise ResultsError(f"{context}: unknown kind (known: {', '.join(BLOCK_KINDS)})")
        body = with_context(context, BLOCK_KINDS[spec[0]], results, spec[1:], context)
        body = body if body.endswith("\n") else body + "\n"
        if body != match.group("body"):
            changes.append(f"{context} differs from what the results give")
        return f"<!-- results:{match.group('spec')} -->\n{body}<!-- results:end -->"

    def inline(match):
        context = f"{name} line {line_of(text, match.start())}, value '<!--{match.group('form')} {match.group('spec')}-->'"
        value = with_context(context, render_inline, results, match.group("form"), match.group("spec"), context)
        if value != match.group("value"):
            changes.append(f"{context} reads '{match.group('value')}', the results give '{value}'")
        return f"<!--{match.group('form')} {match.group('spec')}-->{value}<!--/{match.group('form')}-->"

    valued = INLINE.sub(inline, text)  # inline values first: they never span lines, so block lines stay put
    return BLOCK.sub(block, valued), changes


def readme_files(root):
    """The top README and every step's lesson, in order."""
    files = [root / "README.md"] + sorted(root.glob("step*/README.md"))
    return [path for path in files if path.is_file()]


# ---------------------------------------------------------------------------------------------
# Charts


def load_pyplot():
    """matplotlib.pyplot on a file-only backend, or None when matplotlib is not installed."""
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _chart_size(n):
    """2^k as a superscript on charts (matplotlib mathtext), the decimal count otherwise."""
    text = size_text(n)
    return f"$2^{{{text[2:]}}}$" if text.startswith("2^") else text


def plot_sweep(plt, table, type_name, path):
    """GB/s against n on a log2 axis: one line per step, CUB dashed, the read probe and the peak flat-ish."""
    rows = [row for row in table.rows if row["type"] == type_name]
    figure, axes = plt.subplots(figsize=(10, 6))
    steps = _steps(rows)
    colours = plt.get_cmap("viridis")
    for index, step in enumerate(steps + [CUB_STEP, READ_PROBE]):
        points = sorted((int(row["n"]), table.number(row, "gbps")) for row in rows if row["step"] == step)
        if not points:
            continue
        xs, ys = zip(*points)
        if step == CUB_STEP:
            axes.plot(xs, ys, "k--", linewidth=2, label="CUB")
        elif step == READ_PROBE:
            axes.plot(xs, ys, color="grey", linestyle="-.", linewidth=1.5, label="read probe (ceiling)")
        else:
            axes.plot(xs, ys, marker="o", markersize=3, color=colours(index / max(1, len(steps) - 1) * 0.9),
                      label=step)
    peak = max(table.number(row, "peak_gbps") for row in rows)
    axes.axhline(peak, color="red", linestyle=":", label=f"theoretical peak {peak:.0f} GB/s")
    sizes = sorted({int(row["n"]) for row in rows})
    axes.set_xscale("log", base=2)
    every = 1 if len(sizes) <= 12 else 2
    axes.set_xticks(sizes)
    axes.set_xticklabels([_chart_size(n) if i % every == 0 else "" for i, n in enumerate(sizes)])
    axes.minorticks_off()
    axes.set_xlabel("n (elements)")
    axes.set_ylabel("GB/s (input bytes / median time per call)")
    axes.set_ylim(bottom=0)
    axes.set_title(f"{type_name} sum, {table.stamp.get('gpu', 'GPU')}, L2 {rows[0]['l2']}")
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize="small", loc="upper left")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def plot_headline(plt, table, path):
    """Grouped bars: GB/s of every step and CUB, one bar per type; the read probe and the peak as lines."""
    steps = _steps(table.rows) + ([CUB_STEP] if any(r["step"] == CUB_STEP for r in table.rows) else [])
    types = list(dict.fromkeys(row["type"] for row in table.rows))
    width = 0.8 / len(types)
    figure, axes = plt.subplots(figsize=(10, 6))
    for t, type_name in enumerate(types):
        by_step = {row["step"]: table.number(row, "gbps") for row in table.rows if row["type"] == type_name}
        xs = [i + (t - (len(types) - 1) / 2) * width for i, step in enumerate(steps) if step in by_step]
        axes.bar(xs, [by_step[step] for step in steps if step in by_step], width, label=type_name)
    probes = [table.number(row, "gbps") for row in table.rows if row["step"] == READ_PROBE]
    if probes:
        axes.axhline(max(probes), color="grey", linestyle="-.", label=f"read probe {max(probes):.0f} GB/s")
    peak = max(table.number(row, "peak_gbps") for row in table.rows)
    axes.axhline(peak, color="red", linestyle=":", label=f"theoretical peak {peak:.0f} GB/s")
    axes.set_xticks(range(len(steps)))
    axes.set_xticklabels(steps, rotation=30, ha="right")
    axes.set_ylabel("GB/s (input bytes / median time per call)")
    n = int(table.rows[0]["n"])
    axes.set_title(f"Sum of n = {_chart_size(n)}, {table.stamp.get('gpu', 'GPU')}, L2 {table.rows[0]['l2']}")
    axes.grid(True, axis="y", alpha=0.3)
    axes.legend(fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def render_charts(plt, results):
    """headline.png and sweep_<type>.png (each where its CSV exists); returns the files written."""
    written = []
    if results.has("headline.csv"):
        written.append(results.directory / "headline.png")
        plot_headline(plt, results.compare("headline.csv"), written[-1])
    if results.has("sweep.csv"):
        sweep = results.compare("sweep.csv")
        for type_name in dict.fromkeys(row["type"] for row in sweep.rows):
            written.append(results.directory / f"sweep_{type_name}.png")
            plot_sweep(plt, sweep, type_name, written[-1])
    return written


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
    results = Results(primary)
    results.beside = [Results(folder) for folder in beside]  # read by beside_tables
    own = results if primary == args.results_dir else Results(args.results_dir)  # headline.md, charts
    updates = []
    try:
        if not args.results_dir.is_dir():
            raise ResultsError(f"{args.results_dir} is not a folder")
        files = readme_files(args.root)
        if not files:
            raise ResultsError(f"no README.md under {args.root}")
        for path in files:
            name = str(path.relative_to(args.root))
            text = path.read_text(encoding="utf-8")
            updated, changes = render_text(text, results, name)
            updates.append((path, text, updated, changes))
        headline = None
        if own.has("headline.csv"):  # the folder's own table, without other GPUs' columns
            headline = render_course_table(Results(args.results_dir), [], "headline.md")
    except ResultsError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2

    if args.check:
        stale = [change for _, _, _, changes in updates for change in changes]
        for change in stale:
            print(f"error: {change}", file=sys.stderr)
        if stale:
            print(f"run: python3 bench/render_results.py {args.results_dir}", file=sys.stderr)
            return 1
        return 0

    for path, text, updated, _ in updates:
        if updated != text:
            path.write_text(updated, encoding="utf-8")
            print(f"wrote {path}")
    if headline is not None:
        (args.results_dir / "headline.md").write_text(headline, encoding="utf-8")
        print(f"wrote {args.results_dir / 'headline.md'}")

    plt = load_pyplot()
    if plt is None:
        print("matplotlib is not installed: pip install matplotlib", file=sys.stderr)
        return 3
    try:
        for path in render_charts(plt, own):
            print(f"wrote {path}")
    except ResultsError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
