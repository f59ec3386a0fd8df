"""The blocks many pages use; each render_KIND takes (results, ARGS..., context) and returns Markdown."""

import collections
import difflib
import itertools

from course import steps
from . import REPO_ROOT, charts
from .tables import (CUB_STEP, READ_PROBE, Results, Sweep, cells_of, distinct, format_value, gpu_label, is_number,
                     markdown_table, parse_selector, read_table, require, rows_where, select_row, short_stamp,
                     size_text, stamp_paragraph, stamped_table, steps_of, tie_rule, versus_text)

CUB_TILE_THREADS, CUB_TILE_ITEMS = 256, 16  # CUB's int32 tile on sm_90, CUDA 13.0 (Policy600: README.md here)
CUB_GRID = "cub_grid.csv"  # bench/cub_grid.sh: the grid of each of CUB's launches, from Nsight Compute
NCU_METRICS = REPO_ROOT / "bench" / "ncu_metrics.csv"  # the metrics the lessons quote: label, format, meaning
PEERS_SIZES = [1 << e for e in (16, 20, 24, 28, 30, 32)]
PEERS_NEEDS = ["library", "type", "n", "output_type", "batch_ms", "batch_gbps", "iters", "timing", "check"]
COURSE_OUTPUT_TYPE = {"int32": "int32 (modulo 2^32)", "float32": "float32"}  # int32 sums wrap (step_api.h), as CUB's do
MUTANT_NEEDS = ["step", "id", "kind", "mistake", "symptom", "status", "killed_by"]
MUTANT_VERDICTS = {"survived": "nothing: every test passes", "equivalent": "nothing can: the same program in effect",
                   "untested": "not run: every test was skipped", "build-error": "not run: it did not compile"}


def headline_names(results):
    return ["headline.csv"] + (["headline_cold.csv"] if results.has("headline_cold.csv") else [])


def beside_tables(results, name):
    return {r.directory.name.upper(): r.compare(name) for r in results.beside if r.has(name)}


def beside_headers(beside):
    return [h for label in beside for h in (f"{label} median ms", f"{label} GB/s")]


def beside_cells(beside, row):
    keys, cells = ("type", "op", "n", "block", "l2", "step"), []
    for other in beside.values():
        rows = [] if other is None else rows_where(other, **{k: row[k] for k in keys})
        cells += cells_of(other, rows[0], ("time_median_ms", "gbps")) if len(rows) == 1 else ["-", "-"]
    return cells


def batch_cell(table, row):
    return "-" if row["l2"] == "flushed" else format_value(table, row, "batch_gbps")


def render_course_table(results, context=""):
    parts = []
    for name in headline_names(results):
        table, beside = results.compare(name), beside_tables(results, name)
        headers = ["step", "what changed", "median ms", "GB/s", "% of peak", "batch GB/s", "x previous", "x step01",
                   "x CUB", "check"] + beside_headers(beside)
        out = [stamp_paragraph(table.stamp)] + [f"\n{label} columns: " + stamp_paragraph(o.stamp)
                                                for label, o in beside.items()]
        for (type_name, op, n, block, l2), rows in itertools.groupby(
                table.rows, lambda r: (r["type"], r["op"], r["n"], r["block"], r["l2"])):
            cells = [[row["step"], "read ceiling: one pass over the input, no reduction" if probe else row["change"]]
                     + cells_of(table, row, ("time_median_ms", "gbps", "percent_of_peak")) + [batch_cell(table, row)]
                     + (["-"] * 3 if probe else cells_of(table, row, ("x_previous", "x_step01", "x_cub")))
                     + [row["status"]] + beside_cells(beside, row)
                     for row in rows for probe in [row["step"] == READ_PROBE]]
            out.append(f"\n**{type_name}** {op}, n = {n} ({size_text(n)}), block {block}, L2 {l2}:\n\n"
                       + markdown_table(headers, "ll" + "r" * 7 + "l" + "rr" * len(beside), cells))
        parts.append("".join(out) + "\nmedian ms: per call, each call timed alone behind a GPU-side wait. batch GB/s: "
                     "many calls back to back between one pair of events (none with the L2 flushed: the flush would "
                     "sit between the calls). x previous, x step01, x CUB: that row's median time divided by this "
                     "row's (above 1: this row is faster).\n")
    return "\nThe same with the L2 flushed before every call (inputs read from DRAM):\n\n".join(parts)


def render_step_table(results, step, context):
    beside, first = beside_tables(results, "headline.csv"), results.compare("headline.csv")
    cells, statuses = [], set()
    for name in headline_names(results):
        table, others = results.compare(name), beside_tables(results, name)
        course = steps_of(table.rows)
        require(step in course, f"{context}: {table.name} has no rows for step '{step}'")
        shown = course[max(0, course.index(step) - 1):course.index(step) + 1] + [CUB_STEP]
        for type_name, shown_step in itertools.product(("int32", "float32"), shown):
            row = select_row(table, {"type": type_name, "step": shown_step}, context)
            statuses.add(row["status"])
            cells.append([type_name, row["l2"], f"**{shown_step}**" if shown_step == step else shown_step]
                         + cells_of(table, row, ("time_median_ms", "gbps", "percent_of_peak")) + [batch_cell(table, row)]
                         + cells_of(table, row, ("x_previous", "x_cub"))
                         + beside_cells({label: others.get(label) for label in beside}, row))
    checked = ("every row verified" if statuses == {"PASS"} else
               "every row verified but where the check column of the course table says otherwise "
               "('-': timed, not verified)" if "FAIL" not in statuses else "SOME ROWS FAILED verification")
    headers = ["type", "L2", "step", "median ms", "GB/s", "% of peak", "batch GB/s", "x previous", "x CUB"]
    return (f"n = {size_text(first.rows[0]['n'])}, block {first.rows[0]['block']}, {checked}. "
            f"{short_stamp(first.stamp)}"
            + "".join(f" {label} columns: {short_stamp(other.stamp)}" for label, other in beside.items()) + "\n\n"
            + markdown_table(headers + beside_headers(beside), "lll" + "r" * (6 + 2 * len(beside)), cells))


def gpu_rows(cells, stamps, headers, note):
    return (markdown_table(["GPU", "n", "median µs", *headers], "llr" + "r" * len(headers), cells) + note
            + "".join(f"\n{stamp}\n" for stamp in stamps))


def render_headline(results, step, context):
    cells, stamps, statuses = [], [], set()
    for gpu in results.gpus("headline.csv"):
        table = gpu.compare("headline.csv")
        row, label = select_row(table, {"type": "int32", "l2": "warm", "step": step}, context), gpu_label(gpu)
        statuses.add(row["status"])
        cells.append([label, size_text(row["n"]), format(table.number(row, "time_median_ms") * 1000, ".1f")]
                     + cells_of(table, row, ("gbps", "x_previous", "x_cub")))
        stamps.append(f"{label}: {short_stamp(table.stamp)}")
    checked = "Every row verified." if statuses == {"PASS"} else f"Verification: {', '.join(sorted(statuses))}."
    return gpu_rows(cells, stamps, ["GB/s", "× previous step", "× CUB"], "\nint32, L2 warm, per-call median. × "
                    f"previous step, × CUB: their time over this step's (above 1: this step is faster). {checked}\n")


def ncu_values(results, names, context):
    table = results.ncu()
    values = {(row["step"], row["metric"]): table.number(row, "value") for row in table.rows}
    for name in names:
        require(any(s == name for s, _ in values), f"{context}: {table.name} has no counters for '{name}'")
    return values, table


def render_ncu(results, step, previous=None, context=""):
    shown = (previous, step) if previous and previous != step else (step,)
    values, table = ncu_values(results, shown, context)
    cells, metrics = [], read_table(NCU_METRICS)
    for row in metrics.rows:
        have = [(name, row["metric"]) in values for name in shown]
        require(all(have) or not any(have), f"{context}: {table.name} has {row['metric']} for one step but not "
                                            f"for '{shown[have.index(False)] if False in have else ''}'")
        if all(have):
            cells.append([row["label"]] + [format(values[(name, row["metric"])] / metrics.number(row, "divide_by"),
                                                  row["format"]) for name in shown] + [row["meaning"]])
    require(cells, f"{context}: {table.name} has none of the counters this table shows")
    return markdown_table(["counter", *shown, "what it counts"], "l" + "r" * len(shown) + "l", cells)


def render_csv(results, name, *options, context):
    table, options = results.table(name), parse_selector(options, context)
    columns = options.pop("cols").split(",") if "cols" in options else table.columns
    require(not options, f"{context}: csv understands only cols=, not {', '.join(options)}")
    for column in columns:
        require(column in table.columns, f"{context}: {table.name} has no column '{column}'")
    align = "".join("r" if all(is_number(row[c]) for row in table.rows) else "l" for c in columns)
    cells = [[size_text(row[c]) if c == "n" else format_value(table, row, c) for c in columns] for row in table.rows]
    return stamped_table(table.stamp, columns, align, cells)


def render_quote(results, name, context):
    path = results.directory / name
    require(path.is_file(), f"{path} not found")
    text = path.read_text(encoding="utf-8")
    require(text.strip(), f"{context}: {name} is empty")
    return "```\n" + text.rstrip("\n") + "\n```\n"


def sweep_wins(sweep):
    starts = {}  # {step: {type: (previous step, first_win's start, first_win's losses)}}
    for type_name, course in sweep.steps.items():
        for previous, step in zip(course, course[1:]):
            starts.setdefault(step, {})[type_name] = (previous, *sweep.first_win(type_name, previous, step))
    if not starts:
        return ""
    types, sizes = sweep.types, sweep.sizes
    found = [start for per_type in starts.values() for _, start, _ in per_type.values()]
    largest = max(s[-1] for s in sizes.values())
    head = ("Not every step is faster than the one before it at the largest size measured." if None in found else
            f"From n = {size_text(max(found))} up, every step is faster than the one before it at every measured "
            f"size, for {' and '.join(types)}." if max(found) < largest else "Every step is faster than the one before "
            f"it at the largest size measured ({size_text(largest)}), but not every step is at every size below it.")
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


def render_sweep_claims(results, context=""):
    sweep = Sweep(results.compare("sweep.csv"))
    out, last = [sweep_wins(sweep)], sweep.last
    ratios = {t: dict(sweep.ratios(t, CUB_STEP, step)) for t, step in last.items()}  # the last step against CUB
    sizes = [1 << e for e in (16, 20, 24, 26, 28, 30, 32) if all(1 << e in ratio for ratio in ratios.values())]
    if last and sizes:
        name = next(iter(last.values()))
        ties, rule = tie_rule(results, {t: [step, CUB_STEP] for t, step in last.items()})
        verdicts = [f"for {t}, " + versus_text(list(ratios[t].items()), ties[t]) for t in last]
        cells = [[size_text(n)] + [f"{ratios[t][n]:.3f}" for t in last] for n in sizes]
        out.append(f"\n{name} against CUB ({rule}): {'; '.join(verdicts)}. CUB's time divided by {name}'s (above 1: "
                   f"{name} is faster):\n\n" + markdown_table(["n"] + list(last), "l" + "r" * len(last), cells))
    for type_name, step in last.items():  # the smallest size's range of times; the largest's GB/s of the last and CUB
        table, sizes = sweep.table, sweep.sizes[type_name]
        small = [sweep.times[(type_name, s, sizes[0])] * 1000 for s in sweep.steps[type_name] + [CUB_STEP]
                 if (type_name, s, sizes[0]) in sweep.times]
        rows = {row["step"]: row for row in rows_where(table, type=type_name, n=str(sizes[-1]))}
        out.append(f"\n{type_name}: at n = {size_text(sizes[0])} every version takes between {min(small):.1f} and "
                   f"{max(small):.1f} us per call.")
        if step in rows and CUB_STEP in rows:
            out.append(f" At n = {size_text(sizes[-1])}, {step} reaches {format_value(table, rows[step], 'gbps')} GB/s "
                       f"({format_value(table, rows[step], 'percent_of_peak')} % of peak) and CUB "
                       f"{format_value(table, rows[CUB_STEP], 'gbps')} GB/s.")
        out.append("\n")
    return "".join(out)


def overall_check(rows, column="check"):
    words = {r[column] for r in rows}
    return "FAIL" if "FAIL" in words else "PASS" if "PASS" in words else "-"


def render_peers(results, context):
    if not results.has("peers.csv"):
        return ("Not measured on this GPU yet: `bench/reproduce.sh --only sweep,peers` writes peers.csv beside "
                "sweep.csv.\n")
    peers, sweep = results.table("peers.csv", PEERS_NEEDS, "bench/peers.py"), results.compare("sweep.csv")
    require(peers.stamp.get("gpu") == sweep.stamp.get("gpu"), f"{peers.name} was measured on '{peers.stamp.get('gpu')}"
            f"', {sweep.name} on '{sweep.stamp.get('gpu')}': the ratios would not be like for like")
    libraries = distinct(peers.rows, "library")
    out = [f"Batch GB/s (calls back to back, total time / count) at a few sizes of the sweep, "
           f"{peers.stamp.get('gpu')}. {', '.join(libraries)}: {short_stamp(peers.stamp)} The course and CUB: "
           f"{short_stamp(sweep.stamp)}\n"]
    for type_name in distinct(peers.rows, "type"):
        rows = rows_where(sweep, type=type_name, l2="warm")
        last = (steps_of(rows) or [None])[-1]
        sizes = [n for n in PEERS_SIZES if any(int(r["n"]) == n for r in rows_where(peers, type=type_name))
                 and any(int(r["n"]) == n and r["step"] in (last, CUB_STEP) for r in rows)]
        if not sizes:
            continue
        cells = []
        for library in libraries:
            mine = {int(r["n"]): r for r in rows_where(peers, library=library, type=type_name)}
            if mine:
                cells.append([library, "/".join(distinct(mine.values(), "output_type"))]
                             + [format(peers.number(mine[n], "batch_gbps"), ".1f") if n in mine else "-" for n in sizes]
                             + [overall_check(mine.values())])
        for step in (last, CUB_STEP):
            mine = {int(r["n"]): r for r in rows if r["step"] == step}
            if step and mine:
                cells.append([step, COURSE_OUTPUT_TYPE.get(type_name, type_name)]
                             + [batch_cell(sweep, mine[n]) if n in mine else "-" for n in sizes]
                             + [overall_check(mine.values(), column="status")])
        out.append(f"\n**{type_name}** sum, batch GB/s:\n\n")
        out.append(markdown_table(["library", "sums into"] + [size_text(n) for n in sizes] + ["check"],
                                  "ll" + "r" * len(sizes) + "l", cells))
    out.append("\nHow each was timed: " + "; ".join(dict.fromkeys(f"{r['library']}: {r['timing']}"
                                                                   for r in peers.rows)) + ".\n")
    return "".join(out)


def render_mutants(results, folder=None, context=""):
    # FOLDER's mutants.csv (a results folder beside this one, e.g. h200), else this folder's
    if folder is not None:
        results = Results(results.directory.parent / folder)
    if not results.has("mutants.csv"):
        return ("Not run on this GPU yet: `bench/reproduce.sh --only mutants` writes mutants.csv "
                "(tests/mutants/run_mutants.py).\n")
    table = results.table("mutants.csv", MUTANT_NEEDS, "tests/mutants/run_mutants.py")
    for row in table.rows:
        require(row["status"] in ("killed", *MUTANT_VERDICTS), f"{table.name}: status '{row['status']}' of "
                f"{row['id']} is not one of killed, {', '.join(MUTANT_VERDICTS)}")
    # step 15's rows say on how many GPUs its cases ran (K = 1 up to that count)
    cells = [[row["step"][:6] + (f" ({row['gpus']} GPUs)" if row.get("gpus", "1") not in ("", "1") else ""),
              row["mistake"], row["symptom"], MUTANT_VERDICTS.get(row["status"]) or (
        f"`{row['killed_by']}`" if row["killed_by"] else "killed")] for row in table.rows]
    counts = collections.Counter(row["status"] for row in table.rows)
    summary = ", ".join(f"{counts[s]} {s}" for s in ["killed", *MUTANT_VERDICTS] if s in counts)
    return (short_stamp(table.stamp) + f" {len(table.rows)} mistakes: {summary}.\n\n"
            + markdown_table(["step", "mistake", "what a student sees", "caught by"], "llll", cells))


def render_course_map(results, context=""):
    return "| step | the idea | lesson |\n|---|---|---|\n" + "".join(
        f"| {step.tag[4:]} | {step.change} | [{step.folder}]({step.folder}/README.md) |\n" for step in steps.load())


def render_step_diffs(results, context=""):
    lines = ["| diff | lines added | lines removed | lines in the new reduce.cuh |", "| :--- | ---: | ---: | ---: |"]
    for step in steps.load():
        before, after = (REPO_ROOT / folder / "reduce.cuh" for folder in (step.previous or step.folder, step.folder))
        if not step.previous or not before.is_file() or not after.is_file():
            continue
        diff = list(difflib.unified_diff(before.read_text().splitlines(), after.read_text().splitlines(),
                                         lineterm="", n=0))[2:]
        added, removed = (sum(line.startswith(sign) for line in diff if not line.startswith("@@")) for sign in "+-")
        lines.append(f"| `{step.previous}` → `{step.folder}` | {added} | {removed} | "
                     f"{len(after.read_text().splitlines())} |")
    return "\n".join(lines) + "\n"


def render_cub_grid(results, folder, log2, context):
    # The blocks of CUB's launches for one call at 2^LOG2, per type, as ncu measured them (FOLDER's cub_grid.csv).
    # None, and the block stays as it is, while that file does not exist: nothing is claimed before it is measured.
    where = results.directory.parent / folder
    if not (where / CUB_GRID).is_file():
        return None
    table = read_table(where / CUB_GRID)
    n, tiles, parts = 1 << int(log2), (1 << int(log2)) // (CUB_TILE_THREADS * CUB_TILE_ITEMS), []
    for type_name in distinct(table.rows, "type"):
        rows = rows_where(table, type=type_name, n=str(n))
        first = [r for r in rows if r["kernel"] == "DeviceReduceKernel"]
        require(len(first) == 1, f"{context}: {table.name} needs one {type_name} DeviceReduceKernel row at n = {n}")
        grid, regs = int(first[0]["grid_size"]), first[0]["registers_per_thread"]
        parts.append(f"{type_name}, {grid:,} blocks of {first[0]['block_size']} threads, its kernel compiled to "
                     f"{regs} registers per thread (" + ("one tile each" if grid == tiles else
                     f"fewer than the {tiles:,} tiles: the cap is the grid" if grid < tiles else
                     f"more than the {tiles:,} tiles") + ")")
        second = [r for r in rows if r["kernel"] == "DeviceReduceSingleTileKernel"]
        if second:
            count = int(second[0]["grid_size"])
            parts[-1] += f", then {count:,} block{'s' if count != 1 else ''}"
    require(parts, f"{context}: {table.name} has no row at n = {n}")
    stamp = table.stamp
    return (f"Measured with Nsight Compute (`bench/cub_grid.sh`, `{folder}/{CUB_GRID}`), CUB's launches at "
            f"{size_text(n)}: " + "; ".join(parts) + f". {stamp.get('gpu', 'GPU not recorded')}; measured "
            f"{stamp.get('date_utc', '?')}; commit `{stamp.get('commit', 'unknown')}`.\n")


def render_source(results, relpath, region, context):
    # The lines of a step's code between its REGION-th '// solution-begin' marker (from 1) and the next
    # '// solution-end', quoted as they stand (less their common indent), so a lesson's excerpt cannot drift.
    path = REPO_ROOT / relpath
    require(path.is_file(), f"{context}: {relpath} not found")
    require(region.isdigit() and int(region) >= 1, f"{context}: REGION is the number of a solution region, from 1")
    lines = path.read_text(encoding="utf-8").splitlines()
    begins = [i for i, line in enumerate(lines) if line.strip().startswith("// solution-begin")]
    require(int(region) <= len(begins), f"{context}: {relpath} has {len(begins)} solution regions, not {region}")
    first = begins[int(region) - 1] + 1
    last = next((i for i in range(first, len(lines)) if lines[i].strip() == "// solution-end"), None)
    require(last is not None, f"{context}: {relpath}: solution region {region} has no '// solution-end'")
    body = lines[first:last]
    indent = min(len(line) - len(line.lstrip()) for line in body if line.strip() and not line.startswith("#"))
    return (f"From `{relpath}` ({lines[begins[int(region) - 1]].strip()[len('// solution-begin: '):]}):\n\n```cpp\n"
            + "\n".join(line[indent:] if line[:indent].isspace() else line for line in body) + "\n```\n")


def render_sweep_chart(results, type_name, context=""):
    """The README's image of a sweep chart, its alt text naming the steps the chart draws (charts.sweep_steps)."""
    names = [folder[4:6] for folder in charts.sweep_steps(charts.sweep_rows(results.compare("sweep.csv"), type_name))]
    listed = ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else "".join(names)
    path = (results.directory / f"sweep_{type_name}.svg").resolve().relative_to(REPO_ROOT)
    return (f"![GB/s against n on log axes, {type_name}, {gpu_label(results)}: steps {listed}, CUB and the read probe]"
            f"({path.as_posix()})\n")
