#!/usr/bin/env python3
"""Turns compare's CSV results into the course table in Markdown, charts, and README's table.

    python3 bench/render_results.py results/h100           # writes the files below
    python3 bench/render_results.py results/h100 --check   # exit 1 if README's table is stale

Reads DIR/headline.csv (compare --type all --csv, n = 2^24), DIR/headline_cold.csv if present
(the same with --flush-l2) and DIR/sweep.csv (compare --sweep).
Their '#' lines are the stamp (GPU, versions, date, commit, command) and are carried over.
Writes DIR/headline.md, DIR/headline.png, DIR/sweep_<type>.png, and README.md's block between
the course-table markers (nothing outside them). Charts need matplotlib; the Markdown does not.

Exit codes: 0 done, 1 README lacks the markers or (--check) is out of date, 2 a results file is
missing or malformed, 3 matplotlib is missing (after the Markdown and README are written).
"""

import argparse
import csv
import sys
from pathlib import Path

BEGIN_MARKER = "<!-- course-table:begin -->"
END_MARKER = "<!-- course-table:end -->"

# The columns compare writes (bench/course_table.cpp, csv_header).
CSV_COLUMNS = [
    "type", "n", "block", "step", "change", "time_median_ms", "time_min_ms", "gbps", "percent_of_peak",
    "peak_gbps", "x_previous", "x_step01", "x_cub", "l2", "status",
]
INT_COLUMNS = ["n", "block"]
FLOAT_COLUMNS = ["time_median_ms", "time_min_ms", "gbps", "percent_of_peak", "peak_gbps"]
RATIO_COLUMNS = ["x_previous", "x_step01", "x_cub"]  # blank when there is nothing to compare with

# The readable table: the same headers, formats and alignment as compare's text table.
TABLE_HEADERS = ["step", "what changed", "median ms", "GB/s", "% of peak", "x previous", "x step01", "x CUB",
                 "check"]
RIGHT_ALIGNED = [False, False, True, True, True, True, True, True, False]

CUB_STEP = "cub"


class ResultsError(Exception):
    """A results file is missing or is not what compare writes."""


class MarkerError(Exception):
    """README.md does not have one begin marker followed by one end marker."""


def parse_results(text, source="results"):
    """Splits compare's CSV output into its stamp ({key: value}, from '# key: value' lines) and rows
    (dicts with numbers converted; blank ratios become None)."""
    stamp = {}
    data_lines = []
    for line in text.splitlines():
        if line.startswith("#"):
            key, sep, value = line[1:].partition(":")
            if sep:
                stamp[key.strip()] = value.strip()
        elif line.strip():
            data_lines.append(line)
    reader = csv.DictReader(data_lines)
    if reader.fieldnames is None or any(c not in reader.fieldnames for c in CSV_COLUMNS):
        raise ResultsError(f"{source}: expected the CSV header that compare writes: {','.join(CSV_COLUMNS)}")
    rows = []
    for number, record in enumerate(reader, start=2):
        try:
            row = dict(record)
            for column in INT_COLUMNS:
                row[column] = int(record[column])
            for column in FLOAT_COLUMNS:
                row[column] = float(record[column])
            for column in RATIO_COLUMNS:
                row[column] = float(record[column]) if record[column] else None
        except (TypeError, ValueError) as error:
            raise ResultsError(f"{source}: data line {number - 1} is malformed ({error})") from None
        rows.append(row)
    if not rows:
        raise ResultsError(f"{source}: no measurements after the header")
    return stamp, rows


def read_results(path):
    path = Path(path)
    if not path.is_file():
        raise ResultsError(f"{path} not found")
    return parse_results(path.read_text(encoding="utf-8"), str(path))


def group_tables(rows):
    """Consecutive rows of the same type, size, block and L2 mode: one table each, as compare prints."""
    tables = []
    for row in rows:
        key = (row["type"], row["n"], row["block"], row["l2"])
        if tables and tables[-1][0] == key:
            tables[-1][1].append(row)
        else:
            tables.append((key, [row]))
    return [table for _, table in tables]


def size_text(n):
    """"2^24" for powers of two, the decimal count otherwise."""
    return f"2^{n.bit_length() - 1}" if n > 0 and n & (n - 1) == 0 else str(n)


def table_cells(row):
    def ratio(value):
        return "-" if value is None else f"{value:.2f}"

    return [row["step"], row["change"], f"{row['time_median_ms']:.4f}", f"{row['gbps']:.1f}",
            f"{row['percent_of_peak']:.1f}", ratio(row["x_previous"]), ratio(row["x_step01"]), ratio(row["x_cub"]),
            row["status"]]


def markdown_cell(text):
    """A '|' inside a cell would end it."""
    return text.replace("|", "\\|")


def markdown_table(rows):
    """One table: header, alignment line, one line per row."""
    def line(cells):
        return "|" + "".join(f" {markdown_cell(cell)} |" for cell in cells) + "\n"

    alignment = "|" + "".join(" ---: |" if right else " :--- |" for right in RIGHT_ALIGNED) + "\n"
    return line(TABLE_HEADERS) + alignment + "".join(line(table_cells(row)) for row in rows)


def l2_text(stamp, rows):
    mode = stamp.get("l2") or rows[0]["l2"]
    return f"L2 {mode}"


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
    parts.append(f"L2 {stamp.get('l2', 'mode not recorded')}")
    text = "; ".join(parts) + "."
    if "command" in stamp:
        text += f" Command: `{stamp['command']}`."
    return text + "\n"


def headline_markdown(stamp, rows):
    """headline.md, and README's course-table block: the stamp, then one table per type."""
    out = [stamp_paragraph(stamp)]
    for table in group_tables(rows):
        first = table[0]
        out.append(f"\n**{first['type']}**, n = {first['n']} ({size_text(first['n'])}), block {first['block']}, "
                   f"L2 {first['l2']}:\n\n")
        out.append(markdown_table(table))
    out.append("\nx previous, x step01, x CUB: that row's median time divided by this row's "
               "(above 1: this row is faster; x CUB below 1: slower than CUB).\n")
    return "".join(out)


def _marker_positions(text):
    if text.count(BEGIN_MARKER) != 1 or text.count(END_MARKER) != 1:
        raise MarkerError(f"README.md needs exactly one '{BEGIN_MARKER}' and one '{END_MARKER}' line "
                          f"around the course table")
    begin = text.index(BEGIN_MARKER) + len(BEGIN_MARKER)
    end = text.index(END_MARKER)
    if end < begin:
        raise MarkerError(f"README.md: '{END_MARKER}' comes before '{BEGIN_MARKER}'")
    return begin, end


def replace_block(text, content):
    """text with everything between the markers replaced by content; the rest is left byte for byte."""
    begin, end = _marker_positions(text)
    body = content if content.endswith("\n") else content + "\n"
    return text[:begin] + "\n" + body + text[end:]


def block_is_current(text, content):
    return replace_block(text, content) == text


def load_pyplot():
    """matplotlib.pyplot on a file-only backend, or None when matplotlib is not installed."""
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _steps_in_order(rows):
    steps = []
    for row in rows:
        if row["step"] not in steps:
            steps.append(row["step"])
    return steps


def _chart_size(n):
    """2^k as a superscript on charts (matplotlib mathtext), the decimal count otherwise."""
    text = size_text(n)
    return f"$2^{{{text[2:]}}}$" if text.startswith("2^") else text


def _peak(rows):
    return max(row["peak_gbps"] for row in rows)


def plot_sweep(plt, stamp, rows, type_name, path):
    """GB/s against n on a log2 axis: one line per step, CUB dashed, the theoretical peak flat."""
    rows = [row for row in rows if row["type"] == type_name]
    figure, axes = plt.subplots(figsize=(10, 6))
    steps = _steps_in_order(rows)
    colours = plt.get_cmap("viridis")
    course = [step for step in steps if step != CUB_STEP]
    for index, step in enumerate(steps):
        points = sorted((row["n"], row["gbps"]) for row in rows if row["step"] == step)
        xs, ys = zip(*points)
        if step == CUB_STEP:
            axes.plot(xs, ys, "k--", linewidth=2, label="CUB")
        else:
            axes.plot(xs, ys, marker="o", markersize=3, color=colours(index / max(1, len(course) - 1) * 0.9),
                      label=step)
    peak = _peak(rows)
    axes.axhline(peak, color="red", linestyle=":", label=f"theoretical peak {peak:.0f} GB/s")
    sizes = sorted({row["n"] for row in rows})
    axes.set_xscale("log", base=2)
    every = 1 if len(sizes) <= 12 else 2
    axes.set_xticks(sizes)
    axes.set_xticklabels([_chart_size(n) if i % every == 0 else "" for i, n in enumerate(sizes)])
    axes.minorticks_off()
    axes.set_xlabel("n (elements)")
    axes.set_ylabel("GB/s (input bytes / median time)")
    axes.set_ylim(bottom=0)
    axes.set_title(f"{type_name} sum, {stamp.get('gpu', 'GPU')}, {l2_text(stamp, rows)}")
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize="small", loc="upper left")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def plot_headline(plt, stamp, rows, path):
    """Grouped bars: GB/s of every step and CUB, one bar per type, and the theoretical peak."""
    steps = _steps_in_order(rows)
    types = []
    for row in rows:
        if row["type"] not in types:
            types.append(row["type"])
    width = 0.8 / len(types)
    figure, axes = plt.subplots(figsize=(10, 6))
    for t, type_name in enumerate(types):
        by_step = {row["step"]: row["gbps"] for row in rows if row["type"] == type_name}
        xs = [i + (t - (len(types) - 1) / 2) * width for i, step in enumerate(steps) if step in by_step]
        axes.bar(xs, [by_step[step] for step in steps if step in by_step], width, label=type_name)
    peak = _peak(rows)
    axes.axhline(peak, color="red", linestyle=":", label=f"theoretical peak {peak:.0f} GB/s")
    axes.set_xticks(range(len(steps)))
    axes.set_xticklabels(steps, rotation=30, ha="right")
    axes.set_ylabel("GB/s (input bytes / median time)")
    n = rows[0]["n"]
    axes.set_title(f"Sum of n = {_chart_size(n)}, {stamp.get('gpu', 'GPU')}, {l2_text(stamp, rows)}")
    axes.grid(True, axis="y", alpha=0.3)
    axes.legend(fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def render_charts(plt, results_dir, headline_stamp, headline_rows):
    """headline.png and sweep_<type>.png; returns the files written."""
    written = [results_dir / "headline.png"]
    plot_headline(plt, headline_stamp, headline_rows, written[0])
    sweep_stamp, sweep_rows = read_results(results_dir / "sweep.csv")
    for type_name in dict.fromkeys(row["type"] for row in sweep_rows):
        written.append(results_dir / f"sweep_{type_name}.png")
        plot_sweep(plt, sweep_stamp, sweep_rows, type_name, written[-1])
    return written


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results_dir", type=Path, help="folder with headline.csv and sweep.csv, e.g. results/h100")
    parser.add_argument("--check", action="store_true",
                        help="only verify that README's course table matches the results; exit 1 if not")
    parser.add_argument("--readme", type=Path, default=Path(__file__).resolve().parent.parent / "README.md",
                        help="the README whose marked block is rewritten (default: the repository's)")
    args = parser.parse_args(argv)

    try:
        stamp, rows = read_results(args.results_dir / "headline.csv")
        content = headline_markdown(stamp, rows)
        cold = args.results_dir / "headline_cold.csv"  # compare --type all --csv --flush-l2, if measured
        if cold.is_file():
            content += "\nThe same table with the L2 flushed before every repetition (inputs read from DRAM):\n\n"
            content += headline_markdown(*read_results(cold))
        if not args.readme.is_file():
            raise MarkerError(f"{args.readme} not found")
        readme = args.readme.read_text(encoding="utf-8")
        updated = replace_block(readme, content)  # checks the markers before anything is written
    except ResultsError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except MarkerError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1

    if args.check:
        if updated == readme:
            return 0
        print(f"error: {args.readme}'s course table differs from {args.results_dir}/headline.csv; "
              f"run: python3 bench/render_results.py {args.results_dir}", file=sys.stderr)
        return 1

    (args.results_dir / "headline.md").write_text(content, encoding="utf-8")
    if updated != readme:
        args.readme.write_text(updated, encoding="utf-8")
    print(f"wrote {args.results_dir / 'headline.md'} and the course table in {args.readme}")

    plt = load_pyplot()
    if plt is None:
        print("matplotlib is not installed: pip install matplotlib", file=sys.stderr)
        return 3
    try:
        for path in render_charts(plt, args.results_dir, stamp, rows):
            print(f"wrote {path}")
    except ResultsError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
