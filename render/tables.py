"""Results folders and their tables: columns, cell formats, row selectors, Markdown tables, stamps, the sweep."""

import itertools
from pathlib import Path

from course import steps
from course.stamped_csv import ResultsError, describe, read as read_table  # noqa: F401 (the package's one reader)

# The columns of a measured row that the renderer reads (common/report.cpp writes them: a step's --csv), and of
# compare's CSVs, which add the speed-ups (course/course_table.cpp); one missing is an error.
ROW_NEEDS = ("type", "op", "n", "block", "step", "change", "time_median_ms", "gbps", "percent_of_peak", "batch_gbps",
             "peak_gbps", "l2", "status")
COMPARE_NEEDS = ROW_NEEDS + ("x_previous", "x_step01", "x_cub")
CUB_STEP, READ_PROBE = "cub", "read_probe"  # the read probe: one pass over the input, the ceiling
READ_PROBE_BULK = "read_probe_bulk"  # its second pattern (step 13's); the probe of a size is the faster
COLUMN_FORMATS = {"time_median_ms": ".4f", "time_min_ms": ".4f", "batch_ms": ".4f", "idle_ms": ".4f", "gbps": ".1f",
                  "batch_gbps": ".1f", "peak_gbps": ".0f", "percent_of_peak": ".1f", "x_previous": ".2f",
                  "x_step01": ".2f", "x_cub": ".2f", "latency_ns": ".0f"}
PRIMARY_GPU, BESIDE_GPUS = "h100", ("h200",)  # the READMEs' GPU, and those shown beside it
COURSE = [step.folder for step in steps.load()]
TIE_PERCENT = 1.0  # two medians closer than this are level, until spread.csv measures the run-to-run spread


def require(condition, message, error=ResultsError):
    if not condition:
        raise error(message)


class Results:
    def __init__(self, directory, beside=()):
        self.directory, self.beside, self._tables = Path(directory), list(beside), {}

    def has(self, name):
        return (self.directory / name).is_file()

    def gpus(self, name):  # this folder, then each folder beside it that has file `name`
        return [self] + [other for other in self.beside if other.has(name)]

    def table(self, name, needs=(), writer=""):
        if name not in self._tables:
            self._tables[name] = read_table(self.directory / name)
        table, missing = self._tables[name], ",".join(c for c in needs if c not in self._tables[name].columns)
        require(not missing, f"{table.name}: expected the header {','.join(needs)} that {writer} writes; "
                             f"missing {missing}")
        return table

    def measured(self, name):  # rows a step or a variant printed with --csv
        return self.table(name, ROW_NEEDS, "a step's --csv")

    def compare(self, name):
        table = self.table(name, COMPARE_NEEDS, "compare")
        key = lambda r: (r["type"], r["op"], r["n"], r["block"], r["l2"])  # noqa: E731
        time = lambda r: table.number(r, "time_median_ms")  # noqa: E731
        bulk = {key(r): r for r in table.rows if r["step"] == READ_PROBE_BULK}
        table.rows = [dict(bulk[key(r)], step=READ_PROBE, change="the read probe's faster pattern here: bulk copies "
                           "(step 13)") if r["step"] == READ_PROBE and key(r) in bulk and time(bulk[key(r)]) < time(r)
                      else r for r in table.rows if r["step"] != READ_PROBE_BULK]
        return table

    def ncu(self):
        return self.table("ncu.csv", ["step", "metric", "value"], "tools/profile_steps.sh")


def readme_folders(results_dir):
    primary = Path(results_dir)
    several_gpus = (primary / "step15.csv").is_file() and not (primary / "headline.csv").is_file()
    if (primary.name in BESIDE_GPUS or several_gpus) and (primary.parent / PRIMARY_GPU).is_dir():
        primary = primary.parent / PRIMARY_GPU
    beside = [primary.parent / name for name in BESIDE_GPUS] if primary.name == PRIMARY_GPU else []  # else: alone
    return primary, [folder for folder in beside if folder.is_dir()]


def gpu_label(results):
    tag = results.directory.name
    return tag.upper() if tag in (PRIMARY_GPU, *BESIDE_GPUS) else results.compare("headline.csv").stamp.get("gpu", tag)


def size_text(n):  # "2^24" for powers of two, the decimal count otherwise
    n = int(n)
    return f"2^{n.bit_length() - 1}" if n > 0 and n & (n - 1) == 0 else str(n)


def is_number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def format_value(table, row, column, fmt=None):
    value, fmt = row[column], fmt or COLUMN_FORMATS.get(column)
    if not value.strip():  # step01 has no previous step, CUB is no step
        require(column.startswith("x_"), f"{table.name}: column '{column}' is empty in row {describe(row)}")
        return "-"
    return format(table.number(row, column), fmt) if fmt else value


def cells_of(table, row, columns):
    return [format_value(table, row, c) for c in columns]


def markdown_table(headers, align, rows):
    def line(cells):
        return "|" + "".join(" " + str(cell).replace("|", "\\|") + " |" for cell in cells) + "\n"
    return line(headers) + "|" + "".join(" ---: |" if a == "r" else " :--- |" for a in align) + "\n" + \
        "".join(line(cells) for cells in rows)


def stamp_paragraph(stamp):
    details = [label.format(stamp[key]) for key, label in (("compute_capability", "compute capability {}"),
                                                           ("sms", "{} SMs"), ("l2_mib", "{} MiB L2")) if key in stamp]
    details += [f"{float(stamp['peak_gbps']):.0f} GB/s theoretical peak"] if "peak_gbps" in stamp else []
    parts = [f"**{stamp.get('gpu', 'GPU not recorded')}**" + (f" ({', '.join(details)})" if details else ""),
             f"NVIDIA driver {stamp.get('nvidia_driver', 'not recorded')}",
             f"CUDA {stamp.get('cuda_runtime', '?')} runtime on driver API {stamp.get('cuda_driver_api', '?')}",
             f"measured {stamp.get('date_utc', 'on an unrecorded date')}", f"commit `{stamp.get('commit', 'unknown')}`"]
    parts += [f"{label} {stamp[key]}" for key, label in (("l2", "L2"), ("timing", "timing:")) if key in stamp]
    return "; ".join(parts) + "." + (f" Command: `{stamp['command']}`." if "command" in stamp else "") + "\n"


def short_stamp(stamp):
    text = (f"{stamp.get('gpu', 'GPU not recorded')}; measured {stamp.get('date_utc', 'on an unrecorded date')}; "
            f"commit `{stamp.get('commit', 'unknown')}`")
    return text + (f"; `{stamp['command']}`" if "command" in stamp else "") + "."


def stamped_table(stamp, headers, align, cells):
    return short_stamp(stamp) + "\n\n" + markdown_table(headers, align, cells)


def parse_selector(words, context):
    selector = {}
    for word in words:
        key, sep, value = word.partition("=")
        require(sep and key and value, f"{context}: '{word}' is not key=value")
        require(key not in selector, f"{context}: '{key}' is given twice")
        selector[key] = value
    return selector


def select_row(table, selector, context):
    text = " ".join(f"{k}={v}" for k, v in selector.items())
    for key in selector:
        require(key in table.columns, f"{context}: selector '{text}': {table.name} has no column '{key}' "
                                      f"(columns: {','.join(table.columns)})")
    rows = [row for row in table.rows if all(row[k] == v for k, v in selector.items() if v not in ("max", "min"))]
    for key, value in selector.items():
        if value in ("max", "min") and rows:
            best = (max if value == "max" else min)(table.number(row, key) for row in rows)
            rows = [row for row in rows if table.number(row, key) == best]
    require(len(rows) == 1, f"{context}: selector '{text}' matches {len(rows)} rows of {table.name}, not exactly one")
    return rows[0]


def rows_where(table, **match):
    return [row for row in table.rows if all(row[k] == v for k, v in match.items())]


def distinct(rows, column):
    return list(dict.fromkeys(row[column] for row in rows))


def steps_of(rows):
    return [s for s in distinct(rows, "step") if s in COURSE]


class Sweep:
    def __init__(self, table):
        self.table, self.types = table, distinct(table.rows, "type")
        self.times = {(r["type"], r["step"], int(r["n"])): table.number(r, "time_median_ms") for r in table.rows}
        self.sizes = {t: sorted({n for (u, _, n) in self.times if u == t}) for t in self.types}
        self.steps = {t: steps_of(rows_where(table, type=t)) for t in self.types}
        self.last = {t: steps[-1] for t, steps in self.steps.items() if steps}

    def ratios(self, type_name, slower, step):
        times = self.times
        return [(n, times[(type_name, slower, n)] / times[(type_name, step, n)]) for n in self.sizes[type_name]
                if (type_name, slower, n) in times and (type_name, step, n) in times]

    def first_win(self, type_name, previous, step):
        faster = {n: ratio > 1 for n, ratio in self.ratios(type_name, previous, step)}
        won = list(itertools.takewhile(faster.get, reversed(self.sizes[type_name])))
        start = won[-1] if won else None
        return start, [n for n, wins in faster.items() if start is not None and n < start and not wins]


def tie_rule(results, type_steps):
    if not results.has("spread.csv"):
        return ({t: TIE_PERCENT / 100 for t in type_steps},
                f"{TIE_PERCENT:g} % either way counts as level, a fixed rule until spread.csv, the measured "
                f"run-to-run spread, exists")
    table = results.table("spread.csv", ["run", "type", "step", "n", "time_median_ms"],
                          "bench/reproduce.sh --only spread")
    def spread(type_name, step):  # the slowest run's median over the fastest's, minus 1
        times = [table.number(row, "time_median_ms") for row in rows_where(table, type=type_name, step=step)]
        require(len(times) > 1 and min(times) > 0, f"{table.name}: type={type_name} step={step} needs two runs or "
                                                   f"more, each with a positive time")
        return max(times) / min(times) - 1
    measured = set(distinct(table.rows, "step"))
    missing = sorted({step for steps in type_steps.values() for step in steps} - measured)
    ties = {t: max([spread(t, step) for step in steps if step in measured]
                   + ([TIE_PERCENT / 100] if set(steps) - measured else [])) for t, steps in type_steps.items()}
    spreads = " and ".join(f"{ties[t] * 100:.1f} % for {t}" for t in ties)
    absent = (f"; spread.csv has no runs of {', '.join(missing)} (measured before it), for which the fixed rule, "
              f"{TIE_PERCENT:g} % either way, stands in" if missing else "")
    return ties, (f"a ratio within the larger run-to-run spread of the two rows counts as level: {spreads}, "
                  f"over {len(distinct(table.rows, 'run'))} separate runs of the headline at n = "
                  f"{size_text(table.rows[0]['n'])} (spread.csv){absent}")


def versus_text(ratios, tie=TIE_PERCENT / 100):
    def verdict(pair):
        return "faster" if pair[1] > 1 + tie else "slower" if pair[1] < 1 / (1 + tie) else "level"
    parts = [f"{word} at {size_text(sizes[0])}" + (f" .. {size_text(sizes[-1])}" if len(sizes) > 1 else "")
             for word, run in itertools.groupby(ratios, verdict) for sizes in [[n for n, _ in run]]]
    return ", ".join(parts) if parts else "not measured"
