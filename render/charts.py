"""The charts of a results folder: headline.svg (headline.csv) and sweep_<type>.svg (sweep.csv)."""

import hashlib
import math
import re
from pathlib import Path

from course import steps
from .tables import Results, size_text
from .svg import BLACK, BLUE, GREEN, GREY, ORANGE, PURPLE, SKY, VERMILLION, LogChart, Svg, log_ticks, power_label

SERIES_STYLE = [(BLUE, "circle", None), (ORANGE, "square", None), (GREEN, "triangle", None),
                (PURPLE, "diamond", None), (SKY, "down", None), (VERMILLION, "cross", None)]
CUB_STYLE, PROBE_STYLE = (BLACK, "square", "7 4"), (GREY, None, "2 3")
SINGLE_GPU = [s.folder for s in steps.load() if s.kind == "single"]
BIG_MOVES = (1, 3, 4, 7, 10)  # the steps whose jumps a sweep chart shows (step numbers)


def sweep_rows(table, type_name):  # the rows a sweep chart of one type draws: checked or timed-only
    return [r for r in table.rows if r["type"] == type_name and r.get("status") in ("PASS", "-", "")]


def sweep_steps(rows):
    """The steps a sweep chart draws, in course order: the big moves, then the last single-GPU step of the manifest
    that the rows measure (a step added since the sweep was measured has none: it is not drawn, nor named)."""
    measured = [f for f in SINGLE_GPU if any(r["step"] == f for r in rows)]
    chosen = [f for f in measured if int(f[4:6]) in BIG_MOVES]
    return chosen + [f for f in measured[-1:] if f not in chosen]


def stamp_line(table):
    stamp = table.stamp
    return (f"{stamp.get('gpu', 'GPU not recorded')}; L2 {stamp.get('l2', '?')}; block {stamp.get('block', '?')}; "
            f"measured {stamp.get('date_utc', '?')}, commit {stamp.get('commit', '?')}; per-call median")


def points_of(table, rows, step, column):
    return [(int(r["n"]), table.number(r, column)) for r in rows if r["step"] == step]


def step_label(step):
    return {"cub": "CUB DeviceReduce::Sum", "read_probe": "read probe (ceiling)"}.get(step, step)


def sweep_chart(table, type_name):
    rows = sweep_rows(table, type_name)
    steps = sweep_steps(rows)
    peak = max(table.number(r, "peak_gbps") for r in rows)
    values = [table.number(r, "gbps") for r in rows if r["step"] in steps + ["cub", "read_probe"]]
    chart = LogChart(f"{type_name} sum: GB/s against n", stamp_line(table), "n (elements, log scale)",
                     "GB/s (input bytes / median time, log scale)", [int(r["n"]) for r in rows],
                     [v for v in values if v > 0] + [peak])
    for step, style, width in [(step, SERIES_STYLE[i % len(SERIES_STYLE)], 1.8) for i, step in enumerate(steps)] + [
            ("cub", CUB_STYLE, 2.2), ("read_probe", PROBE_STYLE, 2.2)]:
        chart.series(step_label(step), [(x, y) for x, y in points_of(table, rows, step, "gbps") if y > 0], style, width)
    chart.rule(peak, f"theoretical peak {peak:.0f} GB/s", False)
    others = sorted({r["step"] for r in rows} - set(steps) - {"cub", "read_probe"})
    if others:
        chart.legend_y += 10
        chart.svg.text(chart.right + 16, chart.legend_y, "not drawn, in sweep.csv:", size=10, fill=GREY)
        chart.svg.text(chart.right + 16, chart.legend_y + 14, "steps " + ", ".join(
            re.sub(r"^step(\d+).*", r"\1", step) for step in others), size=10, fill=GREY)
    return chart.svg


def headline_chart(table):
    rows = [r for r in table.rows if r["step"] != ""]
    types = sorted({r["type"] for r in rows}, key=lambda t: (t != "int32", t))
    steps = [step for step in dict.fromkeys(r["step"] for r in rows) if step != "read_probe"]
    gbps = {(r["step"], r["type"]): table.number(r, "gbps") for r in rows}
    probe = max((gbps[("read_probe", t)] for t in types if ("read_probe", t) in gbps), default=None)
    peak = max(table.number(r, "peak_gbps") for r in rows)
    left, top, bar, group, plot_w = 200, 70, 10, 10 * len(types) + 10, 560
    bottom = top + len(steps) * group
    svg = Svg(900, bottom + 90, f"GB/s of every step and CUB at n = {size_text(rows[0]['n'])}", stamp_line(table),
              at=46, size=11)
    ticks = log_ticks(min(v for v in gbps.values() if v > 0), peak, 10)
    x0, x1 = math.log10(ticks[0]), math.log10(ticks[-1])
    def px(value):
        return left + (math.log10(value) - x0) / (x1 - x0) * plot_w
    for t, major in ((t * m, m == 1) for t in ticks for m in (1, 2, 5) if m == 1 or t * m < ticks[-1]):
        svg.line(px(t), top, px(t), bottom, stroke="#cccccc" if major else "#eeeeee")
        svg.text(px(t), bottom + 16, power_label(t, 10) if major else f"{t:g}", size=11 if major else 9,
                 anchor="middle", fill=BLACK if major else GREY)
    colours = [BLUE, ORANGE, GREEN, PURPLE]
    for i, step in enumerate(steps):
        y = top + i * group + 5
        svg.text(left - 8, y + group / 2, step_label(step), size=11, anchor="end",
                 weight="bold" if step == "cub" else None)
        for j, value in enumerate(gbps.get((step, type_name)) for type_name in types):
            if value:
                svg.rect(left, y + j * bar, px(value) - left, bar - 1, fill=colours[j % 4], stroke="none")
    svg.rect(left, top, plot_w, bottom - top, stroke=BLACK)
    for value, label, colour, width, dash, dx, anchor in ((probe, "read probe", GREY, 1.6, "2 3", -4, "end"),
                                                          (peak, "peak", VERMILLION, 1.4, "6 3", 4, "start")):
        if value:
            svg.line(px(value), top, px(value), bottom, stroke=colour, width=width, dash=dash)
            svg.text(px(value) + dx, top - 6, f"{label} {value:.0f}", size=10, anchor=anchor, fill=colour)
    svg.text(left + plot_w / 2, bottom + 38, "GB/s (input bytes / median time per call, log scale)", size=12,
             anchor="middle")
    for j, type_name in enumerate(types):
        x, y = left + plot_w + 24, top + 10 + j * 20
        svg.rect(x, y - 9, 14, 10, fill=colours[j % 4], stroke="none")
        svg.text(x + 20, y, type_name, size=11)
    return svg


def csv_fingerprint(path, label):
    return f"drawn from {label}; sha256 of the file: {hashlib.sha256(Path(path).read_bytes()).hexdigest()}"


def results_charts(folder, label=None):
    """[(path, svg)] of a folder's headline.svg and sweep_<type>.svg; `label` names the folder in the fingerprint."""
    results, label, out = Results(folder), label or Path(folder).as_posix(), []
    folder = results.directory
    if results.has("headline.csv"):
        out.append((folder / "headline.svg", headline_chart(results.compare("headline.csv")).render(
            csv_fingerprint(folder / "headline.csv", f"{label}/headline.csv"))))
    if results.has("sweep.csv"):
        table, comment = results.compare("sweep.csv"), csv_fingerprint(folder / "sweep.csv", f"{label}/sweep.csv")
        for type_name in sorted({r["type"] for r in table.rows}):
            out.append((folder / f"sweep_{type_name}.svg", sweep_chart(table, type_name).render(comment)))
    return out
