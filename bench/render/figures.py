"""Draws the course's figures as SVG: each lesson's from its step's own code, the charts from results/.

    python3 bench/figures.py           # write every figure
    python3 bench/figures.py --check   # write nothing; exit 1 naming each figure that differs

A lesson figure (stepNN_*/figures/NAME.svg) is computed, never drawn by hand: the script finds the
lines of the step's reduce.cuh that decide the indexing (the tree loop, the shuffle offsets, the
vector width, the grid stride, the slot constants ...) with a regular expression, evaluates them for
a small block, and draws what they do. Each SVG carries the sha256 of the source lines it was drawn
from, so a change to those lines makes the figure stale (--check reports it); a change that the
expressions no longer match stops the script, naming the file and the expression it expected.
The charts (step12's small_n.svg, results/<gpu>/headline.svg and sweep_<type>.svg) are drawn from
the CSVs in results/. Standard library only; the same inputs give byte-identical files.

Exit codes: 0 done (or current), 1 (--check) a figure differs or is missing, 2 an input is missing
or a source line does not match the expression expected.
"""

import argparse
import math
import re
import sys
from pathlib import Path

from . import REPO_ROOT
from .charts import CUB_STYLE, PROBE_STYLE, SERIES_STYLE, compare_table, csv_fingerprint, points_of, results_charts
from .charts import stamp_line, step_label
from .source import Evidence, FigureError, evaluate, loop_values
from .svg import (BLACK, BLUE, GREEN, GREY, LIGHT, ORANGE, PALE_BLUE, PALE_GREEN, PALE_ORANGE, PURPLE, VERMILLION,
                  LogChart, Svg, cell, wrap)

# ---------------------------------------------------------------------------------------------
# Lesson figures from the steps' code

TREE_LOOP = (r"for \(unsigned int (?P<var>\w+) = (?P<init>[^;]+); (?P<cond>[^;]+); (?P<step>[^)]+)\) \{[^\n]*\n"
             r"(?:\s*const unsigned int (?P<name>\w+) = (?P<value>[^;]+);[^\n]*\n)?"
             r"\s*if \((?P<guard>.+?)\) sdata\[(?P<dst>[^\]]+)\] \+= sdata\[(?P<src>[^\]]+)\];")
TREE_EXPECTED = ("the block's tree loop 'for (unsigned int s = ...; ...; ...) { [const unsigned int index = ...;] "
                 "if (...) sdata[...] += sdata[...]; }'")
EXAMPLE = [3, 1, 7, 0, 4, 1, 6, 3, 2, 5, 1, 4, 0, 2, 8, 1]  # the values every tree figure adds


def tree_rounds(evidence, relpath, block):
    """[(s, [(thread, dst, src), ...]), ...]: each round of the step's tree loop for one block."""
    m = evidence.find(relpath, TREE_LOOP, TREE_EXPECTED)
    context = f"{relpath}, the tree loop"
    rounds = []
    for s in loop_values(m["var"], m["init"], m["cond"], m["step"], {"blockDim_x": block}, context):
        work = []
        for tid in range(block):
            names = {"blockDim_x": block, "tid": tid, m["var"]: s}
            if m["name"]:
                names[m["name"]] = evaluate(m["value"], names, context)
            if evaluate(m["guard"], names, context):
                work.append((tid, evaluate(m["dst"], names, context), evaluate(m["src"], names, context)))
        rounds.append((s, work))
    return m, rounds


def tree_figure(evidence, relpath, title):
    block = len(EXAMPLE)
    m, rounds = tree_rounds(evidence, relpath, block)
    cw, ch, gap, left, top = 40, 26, 64, 64, 78
    width, height = left + block * cw + 250, top + len(rounds) * (ch + gap) + ch + 92
    guard = f"if ({m['guard']})" + (f", {m['name']} = {m['value']}" if m["name"] else "")
    svg = Svg(width, height, title, f"for ({m['var']} = {m['init']}; {m['cond']}; {m['step']}): {guard}: "
                                    f"sdata[{m['dst']}] += sdata[{m['src']}]")
    values = list(EXAMPLE)
    y = top
    for i, v in enumerate(values):
        cell(svg, left + i * cw, y, cw, ch, v)
        svg.text(left + i * cw + cw / 2, y - 6, i, size=9, anchor="middle", fill=GREY)
    svg.text(left - 10, y + 17, "sdata", size=11, anchor="end", fill=GREY)
    for s, work in rounds:
        written = {dst for _, dst, _ in work}
        if len(written) != len(work) or written & {src for *_, src in work}:
            raise FigureError(f"{relpath}: a round of the tree loop writes a slot twice or reads a slot it writes")
        for _, dst, src in work:
            if not (0 <= dst < block and 0 <= src < block):
                raise FigureError(f"{relpath}: the tree loop reaches sdata[{max(dst, src)}] in a block of {block}")
        new = list(values)
        for _, dst, src in work:
            new[dst] = values[dst] + values[src]
        y_next = y + ch + gap
        for tid, dst, src in work:
            x_dst, x_src = left + dst * cw + cw / 2, left + src * cw + cw / 2
            svg.line(x_dst, y + ch, x_dst, y_next - 2, stroke="#444444", width=1.2, arrow=True)
            svg.line(x_src, y + ch, x_dst + (4 if src > dst else -4), y_next - 2, stroke="#444444", width=1.2,
                     arrow=True)
            svg.text(x_dst - 4, y_next - 8, f"t{tid}", size=10, anchor="end", fill=VERMILLION, weight="bold")
        for i, v in enumerate(new):
            active = i in written
            cell(svg, left + i * cw, y_next, cw, ch, v, fill=PALE_BLUE if active else "#ffffff",
                 stroke=BLACK if active else LIGHT, colour=BLACK if active else GREY)
        svg.text(left - 10, y_next + 17, f"{m['var']} = {s}", size=12, anchor="end")
        threads = [tid for tid, *_ in work]
        svg.text(left + block * cw + 14, y_next + 11, f"{len(threads)} thread{'s' if len(threads) != 1 else ''} add:",
                 size=11, fill=VERMILLION)
        svg.text(left + block * cw + 14, y_next + 25, " ".join(str(t) for t in threads), size=11, fill=VERMILLION)
        values, y = new, y_next
    if values[0] != sum(EXAMPLE):
        raise FigureError(f"{relpath}: the tree loop does not leave the block's sum in sdata[0]")
    wrap(svg, 16, y + ch + 30,
         f"One block of blockDim.x = {block} threads. Each row is the shared array after one round; blue: the "
         f"slots written in that round; red tN: the thread that adds. The sum, {values[0]}, ends in sdata[0]. "
         f"Each round ends with __syncthreads().", size=12, width=120)
    return svg


def banks_figure(evidence, relpath, title):
    block, lanes, banks = 256, 32, 32
    m, rounds = tree_rounds(evidence, relpath, block)
    panels = rounds[:2]
    lw, left, panel_h = 24, 70, 200
    width, height = left + lanes * lw + 40, 66 + len(panels) * panel_h + 50
    svg = Svg(width, height, title,
              f"warp 0 of a block of {block} threads, int32 (4-byte words): word w sits in bank w mod {banks}")
    shifted = True
    y = 70
    for s, work in panels:
        lanes_work = [(tid, dst, src) for tid, dst, src in work if tid < lanes]
        shifted &= all(src - dst == s for _, dst, src in lanes_work)
        words_per_bank = {}
        for _, dst, _ in lanes_work:
            words_per_bank.setdefault(dst % banks, set()).add(dst)
        degree = max(len(w) for w in words_per_bank.values())
        verdict = "no conflict: one word per bank" if degree == 1 else \
            f"{degree}-way bank conflict: {degree} words in one bank, served one after another"
        where = f", {m['name']} = {m['value']}" if m["name"] else ""
        svg.text(16, y + 4, f"round {m['var']} = {s}: lane tid reads sdata[{m['dst']}]{where}", size=13, weight="bold")
        svg.text(16, y + 22, verdict, size=12, weight="bold", fill=GREEN if degree == 1 else VERMILLION)
        y_lane, y_bank = y + 36, y + 126
        svg.text(left - 8, y_lane + 15, "lane", size=11, anchor="end", fill=GREY)
        svg.text(left - 8, y_bank + 15, "bank", size=11, anchor="end", fill=GREY)
        active = {tid: dst for tid, dst, _ in lanes_work}
        for lane in range(lanes):
            cell(svg, left + lane * lw, y_lane, lw - 2, 22, lane, size=9,
                 fill=PALE_BLUE if lane in active else "#ffffff", stroke=BLACK if lane in active else LIGHT)
        for bank in range(banks):
            count = len(words_per_bank.get(bank, ()))
            fill = "#ffffff" if count == 0 else (PALE_GREEN if count == 1 else PALE_ORANGE)
            cell(svg, left + bank * lw, y_bank, lw - 2, 22, bank, size=9, fill=fill,
                 stroke=BLACK if count else LIGHT)
            if count > 1:
                svg.text(left + bank * lw + lw / 2 - 1, y_bank + 36, f"{count}x", size=10, anchor="middle",
                         fill=VERMILLION, weight="bold")
        for lane, dst in sorted(active.items()):
            count = len(words_per_bank[dst % banks])
            svg.line(left + lane * lw + lw / 2 - 1, y_lane + 22, left + (dst % banks) * lw + lw / 2 - 1, y_bank,
                     stroke=GREEN if count == 1 else VERMILLION, width=1)
        y += panel_h
    note = (f"sdata[{m['src']}], the second read, is the same pattern {m['var']} words further on. " if shifted else "")
    wrap(svg, 16, y + 4, note + "Green: one lane per bank; orange: a bank that several lanes need in the same "
                                "instruction.", size=12, width=120)
    return svg


def first_add_figure(evidence):
    relpath = "step04_first_add/reduce.cuh"
    first = evidence.find(relpath, r"const std::size_t i = static_cast<std::size_t>\(blockIdx\.x\) \* (?P<span>\([^;]*\)|[\w.]+)"
                                   r" \+ tid;", "the index 'const std::size_t i = ... blockIdx.x * (...) + tid;'")
    second = evidence.find(relpath, r"if \(i \+ (?P<off>[\w.]+) < n\) sum \+= in\[i \+ (?P=off)\];",
                           "the guarded second load 'if (i + ... < n) sum += in[i + ...];'")
    grid = evidence.find(relpath, r"const std::size_t blocks = reduction::ceil_div\(n, (?P<per>[^)]+)\);",
                         "the grid 'const std::size_t blocks = reduction::ceil_div(n, ...);'")
    block, n = 8, 30
    context = f"{relpath}, the first add"
    blocks = -(-n // evaluate(grid["per"], {"block": block}, context))
    title = "Step 04: each thread adds two elements while it loads"
    cw, left = 24, 40
    total = blocks * 2 * block
    svg = Svg(left + total * cw + 40, 330, title,
              f"i = blockIdx.x * {first['span']} + tid; sum = in[i] + in[i + {second['off']}] "
                     f"(the second only if i + {second['off']} < n)")
    fills = [PALE_BLUE, PALE_ORANGE, PALE_GREEN]
    strokes = [BLUE, ORANGE, GREEN]
    y_in, y_sh = 100, 220
    for e in range(total):
        inside = e < n
        b = e // (2 * block)
        cell(svg, left + e * cw, y_in, cw, 24, e if inside else "", size=9, fill=fills[b % 3] if inside else "#ffffff",
             stroke=BLACK if inside else LIGHT, dash=None if inside else "3 2")
    svg.text(left - 6, y_in + 16, "in[]", size=11, anchor="end", fill=GREY)
    svg.text(left + n * cw + 4, y_in + 40, f"past n = {n}", size=10, fill=GREY)
    for b in range(blocks):
        x0 = left + b * 2 * block * cw
        svg.rect(x0, y_in - 16, 2 * block * cw, 6, fill=fills[b % 3], stroke=strokes[b % 3])
        svg.text(x0 + block * cw, y_in - 22, f"block {b} covers 2 x {block} elements", size=11, anchor="middle",
                 fill=strokes[b % 3], weight="bold")
        for tid in range(block):
            names = {"blockIdx_x": b, "blockDim_x": block, "tid": tid}
            i = evaluate(first["span"], names, context) * b + tid
            j = i + evaluate(second["off"], names, context)
            xs = left + b * 2 * block * cw + tid * 2 * cw + cw / 2
            for source in (i, j):
                if source < n:
                    svg.line(left + source * cw + cw / 2, y_in + 24, xs + cw / 2, y_sh - 2, stroke=strokes[b % 3],
                             width=1.1, arrow=True)
            cell(svg, xs, y_sh, cw, 24, f"t{tid}", size=9, fill=fills[b % 3])
        svg.text(left + b * 2 * block * cw, y_sh + 42, f"sdata of block {b}: {block} threads, one sum each",
                 size=11, fill=GREY)
    wrap(svg, 16, 300, f"blockDim.x = {block}, n = {n}: ceil(n / (2 x {block})) = {blocks} blocks. Thread t of "
                       f"block b adds in[2*{block}*b + t] and in[2*{block}*b + t + {block}]; the tree then starts "
                       f"from {block} sums instead of {2 * block} elements.", size=12, width=140)
    return svg


def warp_calls(evidence, relpath):
    """The last warp's calls of steps 05 and 06: 'if (tid < 32) { [if (...)] warp_level(sdata, tid, N); ... }'."""
    warp = evidence.find(relpath, r"if \(tid < 32\) \{[^\n]*\n(?:\s*(?:if \([^)]*\) )?warp_level\(sdata, tid, \d+\);\n)+",
                         "the last warp's calls 'if (tid < 32) { warp_level(sdata, tid, 32); ... }'")
    return evidence.find_all(relpath, r"(?:if \((?P<cond>[^)]*)\) )?warp_level\(sdata, tid, (?P<offset>\d+)\);",
                              "warp_level(sdata, tid, N) calls", within=warp)


def warp_offsets(calls, names, context):
    """The offsets of the calls whose condition holds with `names` bound."""
    return [int(c["offset"]) for c in calls if not c["cond"] or evaluate(c["cond"], names, context)]


def warp_unroll_figure(evidence):
    relpath = "step05_warp_unroll/reduce.cuh"
    loop = evidence.find(relpath, r"for \(unsigned int (?P<var>\w+) = (?P<init>[^;]+); (?P<cond>[^;]+); (?P<step>[^)]+)\) "
                                  r"\{[^\n]*\n\s*if \((?P<guard>[^)]+)\) sdata\[tid\] \+= sdata\[tid \+ \w+\];[^\n]*\n"
                                  r"\s*__syncthreads\(\);",
                         "the block loop 'for (unsigned int s = ...; s > 32; ...) { if (tid < s) sdata[tid] += ...; "
                         "__syncthreads(); }'")
    calls = warp_calls(evidence, relpath)
    evidence.find(relpath, r"if \(tid < offset\) sum = sdata\[tid\] \+ sdata\[tid \+ offset\];\n"
                           r"\s*__syncwarp\(\);\n\s*if \(tid < offset\) sdata\[tid\] = sum;\n\s*__syncwarp\(\);",
                  "warp_level's body: read, __syncwarp(), write, __syncwarp()")
    block = 256
    context = f"{relpath}, the tree"
    block_rounds = loop_values(loop["var"], loop["init"], loop["cond"], loop["step"], {"blockDim_x": block}, context)
    offsets = warp_offsets(calls, {"blockDim_x": block}, context)
    title = "Step 05: the last rounds run in warp 0 alone, __syncwarp() between them"
    cw, left, rh, gap = 12, 110, 18, 30
    slots = 2 * offsets[0]
    top = 70 + len(block_rounds) * 34 + 30
    svg = Svg(left + slots * cw + 200, top + len(offsets) * (rh + gap) + 70, title,
              f"blockDim.x = {block}: the loop runs while {loop['cond']}, then warp 0 calls warp_level "
                     f"for offsets {', '.join(map(str, offsets))}")
    y = 70
    for s in block_rounds:
        svg.rect(left, y, slots * cw, 22, fill=LIGHT, stroke=GREY)
        svg.text(left + 8, y + 15, f"{loop['var']} = {s}: threads 0..{s - 1} ({-(-s // 32)} warps) add sdata[tid + {s}]",
                 size=11)
        svg.text(left - 10, y + 15, f"{block // 32} warps wait", size=11, anchor="end", fill=GREY)
        svg.text(left + slots * cw + 10, y + 15, "__syncthreads()", size=11, fill=VERMILLION, weight="bold")
        y += 34
    y = top
    for i in range(slots):
        svg.text(left + i * cw + cw / 2, y - 6, i if i % 8 == 0 else "", size=9, anchor="middle", fill=GREY)
    for index, offset in enumerate(offsets):
        for i in range(slots):
            fill = PALE_BLUE if i < offset else (PALE_ORANGE if i < 2 * offset else "#ffffff")
            svg.rect(left + i * cw, y, cw, rh, fill=fill, stroke=BLACK if i < 2 * offset else LIGHT, width=0.6)
        svg.text(left - 10, y + 13, f"offset {offset}", size=11, anchor="end")
        svg.text(left + slots * cw + 10, y + 13, f"lane{'s 0..' if offset > 1 else ' '}{offset - 1} add{'s' if offset == 1 else ''} slot + {offset}", size=11)
        if index + 1 < len(offsets):
            svg.line(left, y + rh + gap / 2, left + slots * cw, y + rh + gap / 2, stroke=GREEN, width=1.2, dash="5 3")
            svg.text(left + slots * cw + 10, y + rh + gap / 2 + 4, "__syncwarp()", size=11, fill=GREEN, weight="bold")
        y += rh + gap
    wrap(svg, 16, y + 8, f"Warp 0's slots 0..{slots - 1}: blue, the slots the working lanes read and write; orange, "
                         f"the slots offset above that they also read. Only warp 0's 32 lanes wait at a __syncwarp(), twice per level (after the reads, "
                         f"after the writes); the other warps have finished.", size=12, width=130)
    return svg


def unrolled_figure(evidence):
    relpath = "step06_template/reduce.cuh"
    sizes = [int(m[1]) for m in evidence.find_all(relpath, r"case (\d+): return reduce_template_kernel<\1, T>;",
                                                  "the instantiations 'case N: return reduce_template_kernel<N, T>;'")]
    loop = evidence.find(relpath, r"#pragma unroll[^\n]*\n\s*for \(unsigned int (?P<var>\w+) = (?P<init>[^;]+); "
                                  r"(?P<cond>[^;]+); (?P<step>[^)]+)\)",
                         "the unrolled loop '#pragma unroll' 'for (unsigned int s = Block / 2; s > 32; s >>= 1)'")
    calls = warp_calls(evidence, relpath)
    context = f"{relpath}, the tree"
    present = {}
    for size in sizes:
        rounds = {s: "sync" for s in loop_values(loop["var"], loop["init"], loop["cond"], loop["step"],
                                                 {"Block": size}, context)}
        rounds.update((offset, "warp") for offset in warp_offsets(calls, {"Block": size}, context))
        present[size] = rounds
    strides = sorted({s for rounds in present.values() for s in rounds}, reverse=True)
    title = "Step 06: the rounds each instantiation keeps once Block is a constant"
    cw, rh, left, top = 96, 24, 170, 96
    svg = Svg(left + len(sizes) * cw + 30, top + (len(strides) + 2) * rh + 90, title,
              f"for ({loop['var']} = {loop['init']}; {loop['cond']}; {loop['step']}) under #pragma unroll, "
                     f"then warp_level for the last warp")
    svg.text(left + len(sizes) * cw / 2, top - 28, "Block (template argument)", size=12, anchor="middle", weight="bold")
    for c, size in enumerate(sizes):
        svg.text(left + c * cw + cw / 2, top - 8, size, size=12, anchor="middle", weight="bold")
    for r, s in enumerate(strides):
        y = top + r * rh
        svg.text(left - 10, y + 16, f"round, stride {s}", size=11, anchor="end")
        for c, size in enumerate(sizes):
            kind = present[size].get(s)
            fill = {"sync": PALE_BLUE, "warp": PALE_GREEN}.get(kind, "#ffffff")
            label = {"sync": "+ __syncthreads", "warp": "+ __syncwarp"}.get(kind, "")
            cell(svg, left + c * cw, y, cw, rh, label, fill=fill, stroke=BLACK if kind else LIGHT, size=10,
                 colour=BLACK)
    y = top + len(strides) * rh
    svg.text(left - 10, y + 18, "block barriers", size=11, anchor="end", weight="bold")
    for c, size in enumerate(sizes):
        count = sum(1 for kind in present[size].values() if kind == "sync")
        svg.text(left + c * cw + cw / 2, y + 18, count, size=12, anchor="middle", weight="bold")
    wrap(svg, 16, y + 52, "Each column is one compiled kernel: a blank cell is a round it does not have (the "
                          "compiler knows which from Block, so no comparison is left at run time). Blue: a round of the "
                          "block loop, ended by __syncthreads(); green: a level of the last warp.",
         size=12, width=110)
    return svg


def grid_stride_figure(evidence):
    relpath = "step07_multi_level/reduce.cuh"
    define = evidence.find(relpath, r"#define STEP07_LOADS_PER_ITERATION (?P<value>\d+)",
                           "'#define STEP07_LOADS_PER_ITERATION N'")
    evidence.find(relpath, r"constexpr unsigned int loads_per_iteration = STEP07_LOADS_PER_ITERATION;",
                  "'constexpr unsigned int loads_per_iteration = STEP07_LOADS_PER_ITERATION;'")
    tile = evidence.find(relpath, r"const std::size_t tile = (?P<expr>[^;]+);", "'const std::size_t tile = ...;'")
    stride = evidence.find(relpath, r"const std::size_t grid_stride = static_cast<std::size_t>\(gridDim\.x\) \* "
                                    r"(?P<expr>\w+);", "'const std::size_t grid_stride = gridDim.x * tile;'")
    start = evidence.find(relpath, r"std::size_t i = static_cast<std::size_t>\(blockIdx\.x\) \* (?P<expr>\w+) \+ tid;",
                          "'std::size_t i = blockIdx.x * tile + tid;'")
    loop = evidence.find(relpath, r"for \(; (?P<cond>[^;]+); i \+= grid_stride\) \{[^\n]*\n[^\n]*\n"
                                  r"\s*for \(unsigned int k = 0; k < loads_per_iteration; \+\+k\) sum \+= "
                                  r"in\[i \+ (?P<offset>[^\]]+)\];",
                         "the grid-stride loop 'for (; ...; i += grid_stride) { for (k ...) sum += in[i + k * Block]; }'")
    tail = evidence.find(relpath, r"for \(unsigned int k = 0; k < loads_per_iteration; \+\+k\)[^\n]*\n"
                                  r"\s*if \((?P<cond>[^)]+)\) sum \+= in\[i \+ (?P<offset>[^\]]+)\];",
                         "the last tile 'for (k ...) if (i + k * Block < n) sum += in[i + k * Block];'")
    launches = evidence.find(relpath, r"kernel<<<grid, block, [^>]*>>>\(in, n, scratch\);[^\n]*\n"
                                      r"[^\n]*\n\s*kernel<<<(?P<second>\d+), block, [^>]*>>>\(scratch, grid, out\);",
                             "the two launches 'kernel<<<grid, ...>>>(in, n, scratch)' and "
                             "'kernel<<<1, ...>>>(scratch, grid, out)'")
    loads = int(define["value"])
    block, grid, n = 4, 2, 44
    context = f"{relpath}, the grid-stride loop"
    owner = {}
    for b in range(grid):
        for tid in range(block):
            names = {"Block": block, "gridDim_x": grid, "blockIdx_x": b, "tid": tid, "loads_per_iteration": loads, "n": n}
            names["tile"] = evaluate(tile["expr"], names, context)
            names["grid_stride"] = names[stride["expr"]] * grid
            i = evaluate(start["expr"], names, context) * b + tid
            iteration = 0
            while evaluate(loop["cond"], dict(names, i=i), context):
                for k in range(loads):
                    owner[evaluate(f"i + {loop['offset']}", dict(names, i=i, k=k), context)] = (b, tid, iteration, k)
                i += names["grid_stride"]
                iteration += 1
                if iteration > 64:
                    raise FigureError(f"{context}: the loop does not end")
            for k in range(loads):
                names_k = dict(names, i=i, k=k)
                if evaluate(tail["cond"], names_k, context):
                    owner[evaluate(f"i + {tail['offset']}", names_k, context)] = (b, tid, iteration, k)
    if sorted(owner) != list(range(n)):
        raise FigureError(f"{relpath}: the grid-stride loop does not read every element exactly once")
    row_len = grid * block * loads
    rows = -(-n // row_len)
    title = "Step 07: a grid sized to the GPU walks the array, then one block adds the partials"
    cw, left, top, rh = 24, 110, 96, 46
    svg = Svg(left + row_len * cw + 40, top + rows * rh + 130, title,
              f"toy sizes: Block = {block} threads, a GPU that holds {grid} blocks at once, n = {n}; "
                     f"loads_per_iteration = {loads} (from the source)")
    fills, strokes = [PALE_BLUE, PALE_ORANGE], [BLUE, ORANGE]
    for e in range(rows * row_len):
        r, c = divmod(e, row_len)
        x, y = left + c * cw, top + r * rh
        if e in owner:
            b, tid, iteration, k = owner[e]
            cell(svg, x, y, cw, 24, f"t{tid}", size=9, fill=fills[b], stroke=strokes[b])
        else:
            cell(svg, x, y, cw, 24, "", stroke=LIGHT, dash="3 2")
        if c % 4 == 0:
            svg.text(x + 2, y - 4, e, size=8, fill=GREY)
    for r in range(rows):
        last = (r + 1) * row_len > n
        svg.text(left - 10, top + r * rh + 16, f"iteration {r + 1}", size=11, anchor="end",
                 fill=VERMILLION if last else BLACK)
    for b in range(grid):
        x0 = left + b * block * loads * cw
        svg.rect(x0, top - 22, block * loads * cw, 8, fill=fills[b], stroke=strokes[b])
        svg.text(x0 + block * loads * cw / 2, top - 28, f"block {b}: tile = {loads} x Block", size=10,
                 anchor="middle", fill=strokes[b], weight="bold")
    y = top + rows * rh + 14
    y = wrap(svg, 16, y, f"Each row is one trip of the loop: the grid covers grid_stride = {grid} x {loads} x "
                         f"{block} = {row_len} elements, each thread {loads} of them, Block apart (coalesced). The "
                         f"last row crosses n: only there are the loads checked against n.", size=12, width=125)
    y += 10
    bx = left
    for b in range(grid):
        cell(svg, bx + b * 70, y, 60, 26, f"partial {b}", size=10, fill=fills[b], stroke=strokes[b])
    svg.line(bx + grid * 70, y + 13, bx + grid * 70 + 60, y + 13, stroke="#444444", width=1.4, arrow=True)
    cell(svg, bx + grid * 70 + 64, y, 300, 26, f"second launch: <<<{launches['second']}, Block>>> adds the "
                                                 f"{grid} partials", size=10, fill=PALE_GREEN, stroke=GREEN)
    svg.line(bx + grid * 70 + 364, y + 13, bx + grid * 70 + 420, y + 13, stroke="#444444", width=1.4, arrow=True)
    cell(svg, bx + grid * 70 + 424, y, 50, 26, "out", size=11, fill="#ffffff")
    return svg


def shuffle_figure(evidence):
    relpath = "step08_warp_shuffle/reduce.cuh"
    loop = evidence.find(relpath, r"for \(unsigned int (?P<var>\w+) = (?P<init>[^;]+); (?P<cond>[^;]+); (?P<step>[^)]+)\) "
                                  r"value \+= shuffle_down\(value, (?P=var)\);",
                         "the shuffle loop 'for (unsigned int offset = Lanes / 2; offset > 0; offset /= 2) "
                         "value += shuffle_down(value, offset);'")
    lanes = int(evidence.find(relpath, r"sum = STEP08_WARP_SUM<(?P<lanes>\d+)>\(sum\);",
                              "the warp's call 'sum = STEP08_WARP_SUM<32>(sum);'")["lanes"])
    offsets = loop_values(loop["var"], loop["init"], loop["cond"], loop["step"], {"Lanes": lanes}, relpath)
    values = [(3 * lane + 1) % 7 for lane in range(lanes)]
    total = sum(values)
    title = f"Step 08: a warp adds its {lanes} values in {len(offsets)} shuffle rounds, in registers"
    cw, left, top, gap = 24, 90, 84, 56
    svg = Svg(left + lanes * cw + 30, top + (len(offsets) + 1) * (24 + gap) + 20, title,
              f"for ({loop['var']} = {loop['init']}; {loop['cond']}; {loop['step']}) value += "
                     f"__shfl_down_sync(all lanes, value, {loop['var']}), Lanes = {lanes}")
    y = top
    for lane in range(lanes):
        svg.text(left + lane * cw + cw / 2, y - 6, lane, size=8, anchor="middle", fill=GREY)
        cell(svg, left + lane * cw, y, cw - 2, 24, values[lane], size=10, fill=PALE_BLUE)
    svg.text(left - 10, y + 16, "lane", size=11, anchor="end", fill=GREY)
    for offset in offsets:
        new = [values[lane] + (values[lane + offset] if lane + offset < lanes else values[lane]) for lane in range(lanes)]
        y_next = y + 24 + gap
        for lane in range(offset):
            svg.line(left + (lane + offset) * cw + cw / 2 - 1, y + 24, left + lane * cw + cw / 2 + 3, y_next - 2,
                     stroke=BLUE, width=1, arrow=True)
        for lane in range(lanes):
            read = lane < offset
            cell(svg, left + lane * cw, y_next, cw - 2, 24, new[lane] if read else "", size=10,
                 fill=PALE_BLUE if read else "#f2f2f2", stroke=BLACK if read else LIGHT)
        svg.text(left - 10, y_next + 16, f"offset {offset}", size=11, anchor="end")
        values, y = new, y_next
    if values[0] != total:
        raise FigureError(f"{relpath}: the shuffle rounds do not leave the warp's sum in lane 0")
    wrap(svg, 16, y + 46, f"Each lane adds the value of the lane {loop['var']} above it. Lane 0 ends with the "
                          f"warp's sum, {total}. Grey: lanes whose result lane 0 never reads (they compute too, "
                          f"all 32 take part in every shuffle). No shared memory and no __syncwarp().",
         size=12, width=125)
    return svg


def vector_rules(evidence, relpath):
    """The vector width, the head and the tail, from a step's thread loop (steps 09 to 12)."""
    rules = {
        "bytes": int(evidence.find(relpath, r"constexpr std::size_t vector_bytes = (\d+);",
                                   "'constexpr std::size_t vector_bytes = 16;'")[1]),
        "loads": int(evidence.find(relpath, r"constexpr unsigned int loads_per_iteration = (\d+);",
                                   "'constexpr unsigned int loads_per_iteration = N;'")[1]),
        "width": evidence.find(relpath, r"static constexpr unsigned int width = (?P<expr>[^;]+);",
                               "'static constexpr unsigned int width = vector_bytes / sizeof(T);'")["expr"],
        "head": evidence.find(relpath, r"const std::size_t head = misalignment == 0 \? 0 : (?P<expr>[^;]+);",
                              "'const std::size_t head = misalignment == 0 ? 0 : (vector_bytes - misalignment) / "
                              "sizeof(T);'")["expr"],
        "vectors": evidence.find(relpath, r"const std::size_t vectors = (?P<expr>[^;]+);",
                                 "'const std::size_t vectors = (n - head) / Vector<T>::width;'")["expr"],
        "tail_begin": evidence.find(relpath, r"const std::size_t tail_begin = (?P<expr>[^;]+);",
                                    "'const std::size_t tail_begin = head + vectors * Vector<T>::width;'")["expr"],
        "head_if": evidence.find(relpath, r"if \((?P<cond>thread < head)\) sum (?:\+= |= op\(sum, )in\[thread\]",
                                 "the head 'if (thread < head) ... in[thread]'")["cond"],
        "tail_if": evidence.find(relpath, r"if \((?P<cond>thread < n - tail_begin)\) sum (?:\+= |= op\(sum, )"
                                          r"in\[tail_begin \+ thread\]",
                                 "the tail 'if (thread < n - tail_begin) ... in[tail_begin + thread]'")["cond"],
        "load": evidence.find(relpath, r"load_vector\(body \+ (?P<expr>i \+ k \* Block)\)",
                              "the vector load 'load_vector(body + i + k * Block)'")["expr"],
    }
    return rules


def split_input(rules, relpath, n, misalignment, size, block):
    """{element: (kind, thread)} of a one-block, one-warp run: kind 'head', 'tail' or 'vector'."""
    context = f"{relpath}, the thread loop"
    names = {"vector_bytes": rules["bytes"], "misalignment": misalignment, "sizeof_T": size, "n": n}
    width = evaluate(rules["width"].replace("sizeof(T)", "sizeof_T"), names, context)
    head = min(evaluate(rules["head"].replace("sizeof(T)", "sizeof_T"), names, context) if misalignment else 0, n)
    names.update(head=head, Vector_T_width=width)
    vectors_expr = rules["vectors"].replace("Vector<T>::width", "Vector_T_width")
    names["vectors"] = evaluate(vectors_expr, names, context)
    names["tail_begin"] = evaluate(rules["tail_begin"].replace("Vector<T>::width", "Vector_T_width"), names, context)
    owner = {}
    for thread in range(block):
        bound = dict(names, thread=thread)
        if evaluate(rules["head_if"], bound, context):
            owner[thread] = ("head", thread)
        if evaluate(rules["tail_if"], bound, context):
            owner[names["tail_begin"] + thread] = ("tail", thread)
        for k in range(rules["loads"]):
            v = evaluate(rules["load"], dict(bound, i=thread, k=k, Block=block), context)
            if v < names["vectors"]:
                for w in range(width):
                    owner[head + v * width + w] = ("vector", thread, k)
    if sorted(owner) != list(range(n)):
        raise FigureError(f"{relpath}: head, vectors and tail do not cover the input exactly once")
    return owner, width, head, names["vectors"], names["tail_begin"]


def vector_loads_figure(evidence):
    relpath = "step09_vector_loads/reduce.cuh"
    rules = vector_rules(evidence, relpath)
    block, size, misalignment = 32, 4, 8
    width_guess = rules["bytes"] // size
    n = (rules["bytes"] - misalignment) // size + block * width_guess + 3
    owner, width, head, vectors, tail_begin = split_input(rules, relpath, n, misalignment, size, block)
    pad = misalignment // size  # the words before `in` in its first 16-byte segment
    per_row = 8 * width
    cells = pad + n
    rows = -(-cells // per_row)
    title = f"Step 09: a warp's {rules['bytes']}-byte loads, with a scalar head and tail at misaligned edges"
    cw, left, top, rh = 22, 70, 92, 52
    svg = Svg(left + per_row * cw + 30, top + rows * rh + 70, title,
              f"int32, n = {n}, in {misalignment} bytes past a 16-byte boundary; one warp (Block = {block}); "
                     f"width = {rules['width']} = {width}")
    outlines = []
    for c in range(rows * per_row):
        r, col = divmod(c, per_row)
        x, y = left + col * cw, top + r * rh
        e = c - pad
        if 0 <= e < n:
            kind = owner[e][0]
            fill = PALE_BLUE if kind == "vector" else PALE_ORANGE
            cell(svg, x, y, cw, 22, e, size=8, fill=fill, stroke=GREY)
            if kind != "vector":
                svg.text(x + cw / 2, y - 4, f"t{owner[e][1]}", size=9, anchor="middle", fill=VERMILLION, weight="bold")
            elif (e - head) % width == 0:
                outlines.append((x + 1, y + 1))
                svg.text(x + width * cw / 2, y - 4, f"lane {owner[e][1]}", size=9, anchor="middle", fill=BLUE)
        elif e < 0:
            cell(svg, x, y, cw, 22, "", stroke=LIGHT, dash="3 2")
        if col % width == 0 and e < n:
            svg.line(x, y - 2, x, y + 26, stroke=BLACK, width=1.6)
        if r == 0 and col == 0:
            svg.text(left - 8, y + 15, "in[]", size=11, anchor="end", fill=GREY)
    for x, y in outlines:
        svg.rect(x, y, width * cw - 2, 20, fill="none", stroke=BLUE, width=2)
    y = top + rows * rh + 8
    wrap(svg, 16, y, f"Thick ticks: 16-byte boundaries. Orange: the head (elements before the first boundary, "
                     f"{head} here) and the tail (after the last whole vector, {n - tail_begin} here), one element "
                     f"per thread. Blue boxes: {vectors} vectors of {width} int32, one 128-bit load each; lane t "
                     f"loads vector t. With more input each lane issues {rules['loads']} such loads per iteration, "
                     f"Block vectors apart.", size=12, width=125)
    return svg


def slots_figure(evidence):
    relpath = "step10_single_pass/reduce.cuh"
    loads = int(evidence.find(relpath, r"constexpr unsigned int partial_loads = (\d+);",
                              "'constexpr unsigned int partial_loads = N;'")[1])
    full = evidence.find(relpath, r"constexpr Slot full = Slot\{1\} << (?P<bit>\d+);", "'constexpr Slot full = Slot{1} << 32;'")
    last = evidence.find(relpath, r"const bool is_last = (?P<cond>[^;]+);", "'const bool is_last = blockIdx.x == gridDim.x - 1;'")
    rounds = evidence.find(relpath, r"for \(unsigned int first = (?P<init>\w+); (?P<cond>[^;]+); first \+= (?P<step>[^)]+)\)",
                           "the last block's rounds 'for (unsigned int first = tid; first < gridDim.x; "
                           "first += partial_loads * Block)'")
    seen = evidence.find(relpath, r"posted_by_other\((?P<expr>first \+ k \* Block)\)",
                         "the slots of a round 'posted_by_other(first + k * Block)'")
    other = evidence.find(relpath, r"bool posted_by_other\(unsigned int block\) \{ return (?P<cond>[^;]+); \}",
                          "'posted_by_other(unsigned int block) { return block < gridDim.x && block != blockIdx.x; }'")
    context = f"{relpath}, the last block"
    block, grid = 2, 10
    finish = [5, 7, 4, 8, 6, 9, 5, 7, 6, 5]  # when each block has added its share (illustrative units)
    lasts = [b for b in range(grid) if evaluate(last["cond"], {"blockIdx_x": b, "gridDim_x": grid}, context)]
    if len(lasts) != 1:
        raise FigureError(f"{relpath}: 'is_last' is true for {len(lasts)} blocks, the figure expects one")
    the_last = lasts[0]
    threads = []
    for tid in range(block):
        names = {"tid": tid, "gridDim_x": grid, "partial_loads": loads, "Block": block, "blockIdx_x": the_last}
        reads = []
        for first in loop_values("first", rounds["init"], rounds["cond"], f"first += {rounds['step']}", names,
                                 context):
            for k in range(loads):
                b = evaluate(seen["expr"], dict(names, first=first, k=k), context)
                if evaluate(re.sub(r"\bblock\b", "b_", other["cond"]), dict(names, b_=b), context):
                    reads.append(b)
                elif b == the_last:
                    reads.append(f"{b} (own)")
        threads.append(reads)
    title = "Step 10: blocks post partials into slots; the last block adds them in order"
    unit, left, top, rh = 34, 210, 96, 26
    end = max(finish) + 5
    svg = Svg(left + end * unit + 140, top + (grid + block) * rh + 150, title,
              f"a toy grid of {grid} blocks of Block = {block} threads; partial_loads = {loads}; the last "
                     f"block: {last['cond']}")
    svg.text(16, 66, "time runs to the right (the order is an example, not a measurement)", size=12, fill=GREY)
    posted = {}
    for b in range(grid):
        y = top + b * rh
        svg.text(left - 10, y + 16, f"block {b}", size=11, anchor="end", weight="bold" if b == the_last else None)
        svg.rect(left, y + 4, finish[b] * unit, rh - 8, fill=PALE_BLUE, stroke=BLUE)
        if b == the_last:
            svg.text(left + 6, y + 17, "its share, block tree", size=9)
            continue
        posted[b] = finish[b] + 0.5
        svg.marker("diamond", left + posted[b] * unit, y + rh / 2, GREEN, size=5)
        svg.text(left + posted[b] * unit + 9, y + 17, f"posts slot {b}", size=9, fill=GREEN)
    y0 = top + grid * rh
    done = []
    for tid, reads in enumerate(threads):
        y = y0 + tid * rh
        start = finish[the_last] + 0.3
        ready = max(posted[b] for b in reads if isinstance(b, int)) + 0.2
        names = ", ".join(str(b) for b in reads)
        svg.text(left - 10, y + 16, f"thread {tid}: slots {names}", size=11, anchor="end")
        if ready > start:
            svg.rect(left + start * unit, y + 5, (ready - start) * unit, rh - 10, fill="#ffffff", stroke=VERMILLION,
                     dash="3 2")
            svg.text(left + start * unit + 4, y + 17, "spins", size=9, fill=VERMILLION)
        begin = max(start, ready)
        svg.rect(left + begin * unit, y + 5, 2.4 * unit, rh - 10, fill=PALE_GREEN, stroke=GREEN)
        svg.text(left + (begin + 1.2) * unit, y + 17, "add, empty", size=9, anchor="middle")
        done.append(begin + 2.4)
    finish_all = max(done) + 0.3
    svg.rect(left + finish_all * unit, y0 + 3, unit * 1.2, block * rh - 6, fill=PALE_ORANGE, stroke=ORANGE)
    svg.text(left + (finish_all + 1.4) * unit, y0 + rh / 2 + 4, "block tree,", size=10, fill=ORANGE, weight="bold")
    svg.text(left + (finish_all + 1.4) * unit, y0 + rh / 2 + 18, "writes *out", size=10, fill=ORANGE, weight="bold")
    y = y0 + block * rh + 18
    svg.text(left - 10, y + 16, "a slot (64 bits)", size=11, anchor="end", weight="bold")
    svg.rect(left, y, 170, 24, fill=PALE_GREEN, stroke=GREEN)
    svg.text(left + 85, y + 16, f"bits {full['bit']}..63: the mark, 1 << {full['bit']}", size=10, anchor="middle")
    svg.rect(left + 170, y, 170, 24, fill=PALE_BLUE, stroke=BLUE)
    svg.text(left + 255, y + 16, f"bits 0..{int(full['bit']) - 1}: the partial", size=10, anchor="middle")
    wrap(svg, 16, y + 50, f"Mark and partial are written by one 64-bit atomic store, so whoever sees the mark sees "
                          f"the partial. Thread t of the last block reads the slots of blocks t, t + Block, ... (up "
                          f"to partial_loads = {loads} at once), never its own block's ('own'): it has that partial "
                          f"at hand. It spins while a slot it needs is empty, then adds the partials in index order "
                          f"and stores 0 into each slot for the next call.", size=12, width=120)
    return svg


def identity_figure(evidence):
    relpath = "step11_any_operator/reduce.cuh"
    ops_path = "common/operators.h"
    identities = {}
    for name in ("Sum", "Max", "Min"):
        m = evidence.find(ops_path, rf"struct {name} \{{[^{{}}]*?identity\(\) \{{(?P<body>[^{{}}]*)\}}",
                          f"struct {name} with 'identity() {{ ... }}'")
        body = re.sub(r"\s+", " ", m["body"]).strip()
        if name == "Sum":
            if body != "return T(0);":
                raise FigureError(f"{ops_path}: expected Sum's identity 'return T(0);', found '{body}'")
            identities[name] = ("0", 0.0, "0")
        else:
            f = re.fullmatch(r"using L = [^;]+; if constexpr \(L::has_infinity\) return (?P<float>-?)L::infinity\(\); "
                             r"else return L::(?P<int>\w+)\(\);", body)
            if f is None:
                raise FigureError(f"{ops_path}: expected {name}'s identity 'if constexpr (L::has_infinity) return "
                                  f"[-]L::infinity(); else return L::...();', found '{body}'")
            sign = -1 if f["float"] else 1
            identities[name] = ("-inf" if sign < 0 else "+inf", sign * math.inf, f"{f['int']}()")
    evidence.find(relpath, r"T sum = Op::template identity<T>\(\);", "'T sum = Op::template identity<T>();' in thread_reduce")
    rules = vector_rules(evidence, relpath)
    n, block = 26, 32
    owner, *_ = split_input(rules, relpath, n, 0, 4, block)
    data = [float(((7 * e + 3) % 11) - 4) for e in range(n)]
    per_lane = {}
    for e, (kind, thread, *_) in owner.items():
        per_lane.setdefault(thread, []).append(data[e])
    ops = {"Sum": (sum, "sum"), "Max": (max, "max"), "Min": (min, "min")}
    title = "Step 11: lanes without an element hold the operator's identity"
    cw, left, top, rh = 23, 110, 100, 40
    svg = Svg(left + block * cw + 110, top + 3 * rh + 120, title,
              f"float32, n = {n}, aligned input, one warp: thread_reduce starts every lane at "
                     f"Op::identity<T>(), so a lane with no element adds nothing")
    for lane in range(block):
        svg.text(left + lane * cw + cw / 2, top - 8, lane, size=8, anchor="middle", fill=GREY)
    svg.text(left + block * cw + 12, top - 8, "lane 0 after", size=9, fill=GREY)
    svg.text(left + block * cw + 12, top + 2, "the warp tree", size=9, fill=GREY)

    def show(v):
        return "-inf" if v == -math.inf else "+inf" if v == math.inf else f"{v:g}"

    for r, name in enumerate(("Sum", "Max", "Min")):
        y = top + r * rh + 8
        label, ident, integer = identities[name]
        function, word = ops[name]
        svg.text(left - 10, y + 15, f"{word}: {label}", size=12, anchor="end", weight="bold")
        for lane in range(block):
            if lane in per_lane:
                cell(svg, left + lane * cw, y, cw - 1, 22, show(function([ident] + per_lane[lane])), size=8,
                     fill=PALE_BLUE)
            else:
                cell(svg, left + lane * cw, y, cw - 1, 22, label, size=8, fill="#f2f2f2", colour=GREY, stroke=LIGHT)
        result = function([ident] + data)
        cell(svg, left + block * cw + 12, y, 56, 22, show(result), size=11, fill=PALE_GREEN, stroke=GREEN)
    y = top + 3 * rh + 30
    wrap(svg, 16, y, f"Blue: lanes {min(per_lane)}..{max(per_lane)} combine their elements (a vector of 4, some "
                     f"a tail element too); grey: lanes with no element, holding the identity. Sum: 0; max: "
                     f"-infinity; min: +infinity (for integers: {identities['Max'][2]} and "
                     f"{identities['Min'][2]}). The same warp tree then gives the right answer for each.",
         size=12, width=125)
    return svg


def shards_figure(evidence):
    relpath = "step13_multi_gpu/reduce.cuh"
    previous = evidence.find(relpath, r"namespace previous = (?P<step>\w+);", "'namespace previous = stepNN;'")["step"]
    base = evidence.find(relpath, r"const std::size_t base = (?P<base>[^,]+), extra = (?P<extra>[^;]+);",
                         "'const std::size_t base = n / k, extra = n % k;'")
    shard = evidence.find(relpath, r"return Shard\{(?P<begin>[^,(]*(?:\([^)]*\))?[^,]*), (?P<count>[^}]+)\};",
                          "'return Shard{begin, count};'")
    evidence.find(relpath, r"ncclAllReduce\(parts\[i\]\.partial, parts\[i\]\.total, 1,",
                  "the combine 'ncclAllReduce(parts[i].partial, parts[i].total, 1, ...)'")
    context = f"{relpath}, shard_of"
    n, k = 18, 4
    data = [(5 * e + 2) % 9 for e in range(n)]
    shards = []
    for r in range(k):
        names = {"n": n, "k": k, "r": r}
        names["base"] = evaluate(base["base"], names, context)
        names["extra"] = evaluate(base["extra"], names, context)
        begin_expr = shard["begin"].replace("std::min(r, extra)", "min_r_extra")
        names["min_r_extra"] = min(r, names["extra"])
        count_expr = re.sub(r"\(r < extra \? 1 : 0\)", "(r < extra)", shard["count"])
        shards.append((evaluate(begin_expr, names, context), int(evaluate(count_expr, names, context))))
    if [b for b, _ in shards] != [sum(c for _, c in shards[:r]) for r in range(k)] or sum(c for _, c in shards) != n:
        raise FigureError(f"{relpath}: shard_of does not cut the input into consecutive shards")
    colours = [(PALE_BLUE, BLUE), (PALE_ORANGE, ORANGE), (PALE_GREEN, GREEN), ("#f3d9e8", PURPLE)]
    title = f"Step 13: {k} GPUs each reduce a shard, then one all-reduce of {k} partials"
    cw, left, top = 36, 40, 92
    svg = Svg(left + n * cw + 40, 420, title,
              f"n = {n}, K = {k}: shard r holds n / K elements, the first n % K shards one more (shard_of)")
    for e in range(n):
        r = next(i for i, (b, c) in enumerate(shards) if b <= e < b + c)
        cell(svg, left + e * cw, top, cw, 26, data[e], size=11, fill=colours[r][0], stroke=colours[r][1])
        svg.text(left + e * cw + cw / 2, top - 6, e, size=8, anchor="middle", fill=GREY)
    gpu_w = (n * cw) / k
    partials = []
    for r, (b, c) in enumerate(shards):
        x_mid = left + (b + c / 2) * cw
        gx = left + r * gpu_w + 6
        svg.line(x_mid, top + 26, gx + (gpu_w - 12) / 2, top + 76, stroke=colours[r][1], width=1.4, arrow=True)
        partial = sum(data[b:b + c])
        partials.append(partial)
        svg.rect(gx, top + 80, gpu_w - 12, 56, fill=colours[r][0], stroke=colours[r][1], rx=6)
        svg.text(gx + (gpu_w - 12) / 2, top + 100, f"GPU {r}: {c} elements", size=12, anchor="middle", weight="bold")
        svg.text(gx + (gpu_w - 12) / 2, top + 124, f"{previous} -> partial {partial}", size=11, anchor="middle")
    y = top + 170
    svg.rect(left, y, n * cw, 40, fill="#f2f2f2", stroke=BLACK, rx=6)
    svg.text(left + n * cw / 2, y + 25, f"ncclAllReduce of 1 element per GPU: {' + '.join(map(str, partials))} = "
                                        f"{sum(partials)}", size=13, anchor="middle", weight="bold")
    for r in range(k):
        gx = left + r * gpu_w + 6
        svg.line(gx + (gpu_w - 12) / 2, top + 136, gx + (gpu_w - 12) / 2, y - 2, stroke=colours[r][1], width=1.4,
                 arrow=True)
        svg.line(gx + (gpu_w - 12) / 2, y + 40, gx + (gpu_w - 12) / 2, y + 68, stroke=colours[r][1], width=1.4,
                 arrow=True)
        cell(svg, gx + (gpu_w - 12) / 2 - 50, y + 70, 100, 26, f"total {sum(partials)}", size=11,
             fill=colours[r][0], stroke=colours[r][1])
    wrap(svg, 16, y + 124, f"Each GPU runs {previous}'s reduction on its own shard, all GPUs at once; the combine "
                           f"moves one value per GPU and leaves the total on every GPU.", size=12, width=105)
    return svg



# CUB's DeviceReduce for int32 on sm_90 (CUDA 13.0, cub/device/dispatch/tuning/tuning_reduce.cuh): Policy600
# applies below sm_100, 256 threads x 16 items per thread (MemBoundScaling keeps both for 4-byte items), so
# a tile is 4,096 elements. dispatch_reduce.cuh: n <= one tile runs the single-tile kernel, one block;
# agent_reduce.cuh: fewer items than a tile is a partial tile (guarded loads), more runs two launches.
CUB_TILE_THREADS, CUB_TILE_ITEMS = 256, 16


def step12_tile(evidence, block):
    """Step 12's one-tile limit at `block`: the largest n its grid_for gives one block (grid_for(n) ==
    1 takes the OneTile kernel), from tile_elements in its reduce.cuh."""
    relpath = "step12_small_n/reduce.cuh"
    tile = evidence.find(relpath, r"tile_elements\(int block\) \{ return (?P<expr>[^;]+); \}",
                         "'inline constexpr std::size_t tile_elements(int block) { return ...; }'")
    evidence.find(relpath, r"const bool one_tile = grid == 1;", "'const bool one_tile = grid == 1;'")
    rules = vector_rules(evidence, relpath)
    return evaluate(tile["expr"], {"block": block, "loads_per_iteration": rules["loads"],
                                   "vector_bytes": rules["bytes"]}, f"{relpath}, tile_elements")


def small_n_chart(table, step12_limit=None):
    rows = [r for r in table.rows if r["type"] == "int32"]
    wanted = (("step12_small_n", SERIES_STYLE[0]), ("cub", CUB_STYLE), ("read_probe", PROBE_STYLE))
    times = {step: [(x, y * 1000) for x, y in points_of(table, rows, step, "time_median_ms")] for step, _ in wanted}
    for step, points in times.items():
        if not points:
            raise FigureError(f"{table.name}: no int32 rows of {step}")
    all_points = [p for points in times.values() for p in points]
    tile = CUB_TILE_THREADS * CUB_TILE_ITEMS
    chart = LogChart("Step 12: time against n, int32 sum", stamp_line(table), "n (elements, log scale)",
                     "median time per call (µs, log scale)", [x for x, _ in all_points], [y for _, y in all_points])
    chart.svg.rect(chart.left, chart.top, chart.px(tile) - chart.left, chart.bottom - chart.top, fill="#f5f5f5",
                   stroke="none")
    chart.svg.items.insert(0, chart.svg.items.pop())  # the shading under the grid
    for step, style in wanted:
        chart.series(step_label(step), times[step], style, width=2.2 if step != "step12_small_n" else 2)
    chart.vertical(tile, f"n = {tile:,}".replace(",", ","))
    for i, (left_line, right_line) in enumerate(zip(
            (f"CUB, n < {tile:,}: one block,", "a partial tile, one element", "per load, each checked"),
            (f"CUB, n >= {tile:,}: full tiles", f"of {CUB_TILE_THREADS} x {CUB_TILE_ITEMS}; above {tile:,},",
             "two launches"))):
        chart.svg.text(chart.left + 6, chart.bottom - 38 + 14 * i, left_line, size=10)
        chart.svg.text(chart.px(tile) + 6, chart.bottom - 38 + 14 * i, right_line, size=10)
    chart.legend_y += 10
    notes = ["CUB's tile for int32 on sm_90:", f"{CUB_TILE_THREADS} threads x {CUB_TILE_ITEMS} items = {tile:,}",
             "(cub/device/dispatch/tuning/", "tuning_reduce.cuh, Policy600)"]
    if step12_limit:
        notes += ["", "Step 12 runs one block, one tile,",
                  f"up to tile_elements({table.stamp.get('block', '?')}) = {step12_limit:,}"]
    for line in notes:
        chart.svg.text(chart.right + 16, chart.legend_y, line, size=10, fill=GREY)
        chart.legend_y += 14
    return chart.svg


# ---------------------------------------------------------------------------------------------
# The figures and where they go

LESSON_FIGURES = [
    ("step01_interleaved/figures/tree.svg", lambda ev: tree_figure(
        ev, "step01_interleaved/reduce.cuh", "Step 01: interleaved addressing, the working threads scattered")),
    ("step02_nondivergent/figures/tree.svg", lambda ev: tree_figure(
        ev, "step02_nondivergent/reduce.cuh", "Step 02: the same pairs, the working threads packed first")),
    ("step02_nondivergent/figures/banks.svg", lambda ev: banks_figure(
        ev, "step02_nondivergent/reduce.cuh", "Step 02: a warp's shared-memory reads against the 32 banks")),
    ("step03_sequential/figures/tree.svg", lambda ev: tree_figure(
        ev, "step03_sequential/reduce.cuh", "Step 03: sequential addressing, the upper half folded onto the lower")),
    ("step03_sequential/figures/banks.svg", lambda ev: banks_figure(
        ev, "step03_sequential/reduce.cuh", "Step 03: a warp's shared-memory reads against the 32 banks")),
    ("step04_first_add/figures/first_add.svg", first_add_figure),
    ("step05_warp_unroll/figures/warp_unroll.svg", warp_unroll_figure),
    ("step06_template/figures/unrolled.svg", unrolled_figure),
    ("step07_multi_level/figures/grid_stride.svg", grid_stride_figure),
    ("step08_warp_shuffle/figures/shuffle.svg", shuffle_figure),
    ("step09_vector_loads/figures/vector_loads.svg", vector_loads_figure),
    ("step10_single_pass/figures/slots.svg", slots_figure),
    ("step11_any_operator/figures/identity.svg", identity_figure),
    ("step13_multi_gpu/figures/shards.svg", shards_figure),
]



def every_figure(root):
    """[(relpath, svg text)] of every figure: the lessons', step12's small_n, each results folder's charts."""
    root, out = Path(root), []
    for relpath, draw in LESSON_FIGURES:
        evidence = Evidence(root)
        svg = draw(evidence)
        out.append((relpath, svg.render(evidence.fingerprint())))
    sweep = "results/h100/sweep.csv"
    if not (root / sweep).is_file():
        raise FigureError(f"{sweep}: file not found (step12's small_n.svg is drawn from it)")
    table = compare_table(root / sweep)
    evidence = Evidence(root)
    try:
        block = int(table.stamp["block"])
    except (KeyError, ValueError):
        raise FigureError(f"{sweep}: expected a '# block: N' line in its stamp") from None
    limit = step12_tile(evidence, block)
    out.append(("step12_small_n/figures/small_n.svg", small_n_chart(table, limit).render(
        f"{csv_fingerprint(root / sweep, sweep)}; {evidence.fingerprint()}")))
    for folder in sorted(p for p in (root / "results").iterdir() if p.is_dir()):
        label = folder.relative_to(root).as_posix()
        out.extend((path.relative_to(root).as_posix(), text) for path, text in results_charts(folder, label))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 naming each figure that differs from what would be written")
    parser.add_argument("--root", type=Path, default=REPO_ROOT, help="the repository (default: this one)")
    args = parser.parse_args(argv)
    try:
        figures = every_figure(args.root)
    except FigureError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    stale = []
    for relpath, text in figures:
        path = args.root / relpath
        current = path.read_text(encoding="utf-8") if path.is_file() else None
        if current == text:
            continue
        if args.check:
            stale.append(relpath)
            print(f"error: {relpath} {'is missing' if current is None else 'differs from its sources'}",
                  file=sys.stderr)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {relpath}")
    if stale:
        print("run: python3 bench/figures.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
