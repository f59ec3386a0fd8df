"""Draws the course's figures as SVG: each lesson's from its step's own code, the charts from results/ (README.md)."""

import argparse
import math
import re
import struct
import sys
from fractions import Fraction
from pathlib import Path

from . import REPO_ROOT
from .charts import CUB_STYLE, PROBE_STYLE, SERIES_STYLE, csv_fingerprint, points_of, results_charts, stamp_line
from .charts import step_label
from .source import Evidence, FigureError, ResultsError, bind, evaluate, loop_values
from .tables import Results, require
from .blocks import CUB_TILE_ITEMS, CUB_TILE_THREADS
from .svg import BLACK, BLUE, GREEN, GREY, ORANGE, PALE_BLUE, PALE_ORANGE, PURPLE, STRONG, STYLES, VERMILLION
from .svg import Grid, LogChart, Svg, cell

LOOP = "for (unsigned int $var = $init; $cond; $step)"
TREE = LOOP + " {\n[[const unsigned int $name = $value;\n]]if ($guard) sdata[$dst] += sdata[$src];"
EXAMPLE = [3, 1, 7, 0, 4, 1, 6, 3, 2, 5, 1, 4, 0, 2, 8, 1]  # the values every tree figure adds
IDENTITY = re.compile(r"struct (?P<name>Sum|Max|Min) \{[^{}]*?identity\(\) \{(?P<body>[^{}]*)\}")
IDENTITY_BODY = re.compile(r"using L = [^;]+; if constexpr \(L::has_infinity\) return (?P<float>-?)L::infinity\(\); "
                           r"else return L::(?P<int>\w+)\(\);")


def loop_of(m, names, context):
    return loop_values(m["var"], m["init"], m["cond"], m["step"], names, context)


def loop_text(m):
    return f"for ({m['var']} = {m['init']}; {m['cond']}; {m['step']})"


def tree_rounds(evidence, relpath, block):
    m = evidence.find(relpath, TREE, "the block's tree loop")
    context, rounds = f"{relpath}, the tree loop", []
    for s in loop_of(m, {"blockDim_x": block}, context):
        work = []
        for tid in range(block):
            names = {"blockDim_x": block, "tid": tid, m["var"]: s}
            if m["name"]:
                names[m["name"]] = evaluate(m["value"], names, context)
            if evaluate(m["guard"], names, context):
                work.append((tid, evaluate(m["dst"], names, context), evaluate(m["src"], names, context)))
        written = {dst for _, dst, _ in work}
        require(len(written) == len(work) and not written & {src for *_, src in work}, f"{relpath}: a round of the "
                f"tree loop writes a slot twice or reads a slot it writes", FigureError)
        require(all(0 <= i < block for _, dst, src in work for i in (dst, src)), f"{relpath}: the tree loop reaches "
                f"past sdata[{block - 1}] in a block of {block}", FigureError)
        rounds.append((s, work))
    return m, rounds


def tree_figure(evidence, relpath, title):
    block, values = len(EXAMPLE), list(EXAMPLE)
    m, rounds = tree_rounds(evidence, relpath, block)
    where = f"if ({m['guard']})" + (f", {m['name']} = {m['value']}" if m["name"] else "")
    svg = Svg(64 + block * 40 + 250, None, title, f"{loop_text(m)}: {where}: sdata[{m['dst']}] += sdata[{m['src']}]")
    grid = Grid(svg, 64, 78, 40, 26, gap=64, size=11)
    grid.row(values, "sdata", above=range(block), label_fill=GREY)
    for s, work in rounds:
        written = {dst: values[dst] + values[src] for _, dst, src in work}
        new = [written.get(i, v) for i, v in enumerate(values)]
        row = grid.row([(v, "on" if i in written else "off") for i, v in enumerate(new)], f"{m['var']} = {s}",
                       f"{len(work)} thread{'s' if len(work) != 1 else ''} add: {' '.join(str(t) for t, *_ in work)}",
                       note_fill=VERMILLION)
        for tid, dst, src in work:
            grid.join((row - 1, dst), (row, dst))
            grid.join((row - 1, src), (row, dst), shift=4 if src > dst else -4)
            svg.text(grid.x(dst) + 16, grid.ys[row] - 8, f"t{tid}", size=10, anchor="end", fill=VERMILLION,
                     weight="bold")
        values = new
    require(values[0] == sum(EXAMPLE), f"{relpath}: the tree loop does not leave the block's sum in sdata[0]",
            FigureError)
    return svg.caption(grid.y - 30, f"""One block of blockDim.x = {block} threads. Each row is the shared array after
        one round; blue: the slots written in that round; red tN: the thread that adds. The sum, {values[0]}, ends in
        sdata[0]. Each round ends with __syncthreads().""")


def banks_figure(evidence, relpath, title):
    block, lanes = 256, 32
    m, rounds = tree_rounds(evidence, relpath, block)
    svg = Svg(70 + lanes * 24 + 40, None, title,
              f"warp 0 of a block of {block} threads, int32 (4-byte words): word w sits in bank w mod {lanes}")
    grid, shifted, degrees, idle = Grid(svg, 70, 106, 24, 22, size=9), True, [], False
    for s, work in rounds[:2]:
        active = {tid: dst for tid, dst, _ in work if tid < lanes}
        shifted &= all(src - dst == s for tid, dst, src in work if tid < lanes)
        counts = [sum(d % lanes == bank for d in set(active.values())) for bank in range(lanes)]
        degree, where = max(counts), f", {m['name']} = {m['value']}" if m["name"] else ""
        degrees.append(degree)
        idle |= min(counts) == 0
        svg.text(16, grid.y - 32, f"round {m['var']} = {s}: lane tid reads sdata[{m['dst']}]{where}", size=13,
                 weight="bold")
        svg.text(16, grid.y - 14, "no conflict: one word per bank" if degree == 1 else f"{degree}-way bank conflict: "
                 f"{degree} words in one bank, served one after another", size=12, weight="bold",
                 fill=GREEN if degree == 1 else VERMILLION)
        lane_row = grid.row([(lane, "on" if lane in active else "off") for lane in range(lanes)], "lane", gap=68,
                            label_fill=GREY)
        bank_row = grid.row([(bank, ["off", "good"][c] if c < 2 else "warn") for bank, c in enumerate(counts)],
                            "bank", gap=90, label_fill=GREY)
        for bank, count in enumerate(counts):
            if count > 1:
                svg.text(grid.x(bank) + 12, grid.ys[bank_row] + 36, f"{count}x", size=10, anchor="middle",
                         fill=VERMILLION, weight="bold")
        for lane, dst in sorted(active.items()):
            grid.join((lane_row, lane), (bank_row, dst % lanes), GREEN if counts[dst % lanes] == 1 else VERMILLION,
                      arrow=False, width=1)
    note = f"sdata[{m['src']}], the second read, is the same pattern {m['var']} words further on. " if shifted else ""
    colours = ["Blue: the lanes that read in that round" + ("; white: a bank no lane needs." if idle else ".")]
    if min(degrees) == 1:
        colours.append("Green: a bank that one lane needs, so every lane is served at once.")
    if max(degrees) > 1:
        colours.append("Orange: a bank that several lanes need in the same instruction; the bank serves them one "
                       "after another (Nx: how many).")
    return svg.caption(grid.y - 50, note + " ".join(colours))


def first_add_figure(evidence, relpath):
    first = evidence.find(relpath, "const std::size_t i = static_cast<std::size_t>(blockIdx.x) * $span + tid;")
    second = evidence.find(relpath, "if (i + $off < n) sum += in[i + $off];", "the guarded second load")
    grid_m = evidence.find(relpath, "const std::size_t blocks = reduction::ceil_div(n, $per);", "the grid")
    block, n, context = 8, 30, f"{relpath}, the first add"
    blocks = -(-n // evaluate(grid_m["per"], {"block": block}, context))
    total = blocks * 2 * block
    svg = Svg(40 + total * 24 + 40, None, "Step 04: each thread adds two elements while it loads",
              f"i = blockIdx.x * {first['span']} + tid; sum = in[i] + in[i + {second['off']}] "
              f"(the second only if i + {second['off']} < n)")
    grid = Grid(svg, 40, 100, 24, 24, gap=96, size=9)
    grid.row([(e, f"b{e // (2 * block) % 3}") if e < n else ("", "gap") for e in range(total)], "in[]", label_fill=GREY)
    svg.text(grid.x(n) + 4, 140, f"past n = {n}", size=10, fill=GREY)
    for b in range(blocks):
        grid.span(0, b * 2 * block, 2 * block, f"block {b} covers 2 x {block} elements", f"b{b % 3}", size=11)
    grid.row([(f"t{e // 2 % block}", f"b{e // (2 * block) % 3}") if e % 2 == 0 else None for e in range(total)], gap=22)
    for b in range(blocks):
        for tid in range(block):
            names = {"blockIdx_x": b, "blockDim_x": block, "tid": tid}
            i = evaluate(first["span"], names, context) * b + tid
            for source in (i, i + evaluate(second["off"], names, context)):
                if source < n:
                    grid.join((0, source), (1, b * 2 * block + 2 * tid), STRONG[f"b{b % 3}"])
        svg.text(grid.x(b * 2 * block), grid.y, f"sdata of block {b}: {block} threads, one sum each", size=11,
                 fill=GREY)
    return svg.caption(grid.y + 36, f"""blockDim.x = {block}, n = {n}: ceil(n / (2 x {block})) = {blocks} blocks. Thread
        t of block b adds in[2*{block}*b + t] and in[2*{block}*b + t + {block}]; the tree then starts from {block} sums
        instead of {2 * block} elements.""", width=140)


def warp_offsets(evidence, relpath, names, context):
    evidence.find(relpath, "if (tid < 32) {", "the last warp's block")
    calls = evidence.find_all(relpath, "[[if ($cond) ]]warp_level(sdata, tid, $offset);", "the last warp's calls")
    return [int(c["offset"]) for c in calls if not c["cond"] or evaluate(c["cond"], names, context)]


def warp_unroll_figure(evidence, relpath):
    loop = evidence.find(relpath, LOOP + " {\nif ($guard) sdata[tid] += sdata[tid + $var];\n__syncthreads();",
                         "the block loop")
    evidence.find(relpath, "if (tid < offset) sum = sdata[tid] + sdata[tid + offset];\n__syncwarp();\n"
                           "if (tid < offset) sdata[tid] = sum;\n__syncwarp();", "warp_level's body")
    block, context = 256, f"{relpath}, the tree"
    offsets = warp_offsets(evidence, relpath, {"blockDim_x": block}, context)
    slots = 2 * offsets[0]
    svg = Svg(110 + slots * 12 + 200, None, "Step 05: the last rounds run in warp 0 alone, __syncwarp() between them",
              f"blockDim.x = {block}: the loop runs while {loop['cond']}, then warp 0 calls warp_level for offsets "
              f"{', '.join(map(str, offsets))}")
    bars = Grid(svg, 110, 70, slots * 12, 22, gap=12, size=11)
    for s in loop_of(loop, {"blockDim_x": block}, context):
        bars.row([("", "idle")], f"{block // 32} warps wait", "__syncthreads()", note_fill=VERMILLION, label_fill=GREY)
        svg.text(118, bars.ys[-1] + 15, f"{loop['var']} = {s}: threads 0..{s - 1} ({-(-s // 32)} warps) add "
                                        f"sdata[tid + {s}]", size=11)
    grid = Grid(svg, 110, bars.y + 30, 12, 18, gap=46)
    for index, offset in enumerate(offsets):
        row = grid.row([("", "on" if i < offset else "warn" if i < 2 * offset else "off") for i in range(slots)],
                       f"offset {offset}", f"lane{'s 0..' if offset > 1 else ' '}{offset - 1} add{'s' if offset == 1 else ''} "
                       f"slot + {offset}", above=[i if i % 8 == 0 and not index else "" for i in range(slots)])
        for k, what in enumerate(("the reads done", "the writes done")):  # warp_level's two __syncwarp()
            y = grid.ys[row] + 18 + 11 + 13 * k
            svg.line(110, y, grid.x(slots), y, stroke=GREEN, width=1.2, dash="5 3")
            svg.text(grid.x(slots) + 12, y + 4, f"__syncwarp(): {what}", size=10, fill=GREEN, weight="bold")
    return svg.caption(grid.y + 4, f"""Warp 0's slots 0..{slots - 1}: blue, the slots the working lanes read and write;
        orange, the slots offset above that they also read. Only warp 0's 32 lanes wait at a __syncwarp(), twice per
        level (after the reads, after the writes); the other warps have finished.""", width=130)


def unrolled_figure(evidence, relpath):
    context = f"{relpath}, the tree"
    sizes = [int(m["size"]) for m in evidence.find_all(relpath, "case $size: return reduce_template_kernel<$size, T>;",
                                                       "the instantiations")]
    loop, present = evidence.find(relpath, "#pragma unroll\n" + LOOP, "the unrolled loop"), {}
    for size in sizes:
        present[size] = {s: "on" for s in loop_of(loop, {"Block": size}, context)}
        present[size].update((o, "good") for o in warp_offsets(evidence, relpath, {"Block": size}, context))
    strides = sorted({s for rounds in present.values() for s in rounds}, reverse=True)
    svg = Svg(170 + len(sizes) * 96 + 30, None, "Step 06: the rounds each instantiation keeps once Block is a constant",
              f"{loop_text(loop)} under #pragma unroll, then warp_level for the last warp")
    svg.text(170 + len(sizes) * 48, 66, "Block (template argument)", size=12, anchor="middle", weight="bold")
    grid = Grid(svg, 170, 80, 96, 24, gap=0)
    grid.row([(size, "plain") for size in sizes])
    labels = {"on": "+ __syncthreads", "good": "+ __syncwarp"}
    for s in strides:
        grid.row([(labels[present[z][s]], present[z][s]) if s in present[z] else ("", "off") for z in sizes],
                 f"round, stride {s}")
    grid.row([(sum(kind == "on" for kind in present[z].values()), "plain") for z in sizes], "block barriers")
    return svg.caption(grid.y + 24, """Each column is one compiled kernel: a blank cell is a round it does not have
        (the compiler knows which from Block, so no comparison is left at run time). Blue: a round of the block loop,
        ended by __syncthreads(); green: a level of the last warp.""", width=110)


def grid_stride_figure(evidence, relpath):
    loads = evidence.number(relpath, "constexpr unsigned int loads_per_iteration = $value;")
    tile = evidence.find(relpath, "const std::size_t tile = $expr;")
    stride = evidence.find(relpath, "const std::size_t grid_stride = static_cast<std::size_t>(gridDim.x) * $expr;")
    start = evidence.find(relpath, "std::size_t i = static_cast<std::size_t>(blockIdx.x) * $expr + tid;")
    loop = evidence.find(relpath, "for (; $cond; i += grid_stride) {\n#pragma unroll\nfor (unsigned int k = 0; k < "
                                  "loads_per_iteration; ++k) sum += in[i + $offset];", "the grid-stride loop")
    tail = evidence.find(relpath, "for (unsigned int k = 0; k < loads_per_iteration; ++k)\n"
                                  "if ($cond) sum += in[i + $offset];", "the last tile")
    launches = evidence.find(relpath, "kernel<<<grid, block, shared_bytes, stream>>>(in, n, scratch);\n\n"
                                      "kernel<<<$second, block, shared_bytes, stream>>>(scratch, grid, out);",
                             "the two launches")
    block, grid_size, n, context, owner = 4, 2, 70, f"{relpath}, the grid-stride loop", {}  # the lesson's toy n
    looped = set()  # elements loaded inside the loop (the rest: the guarded tail)
    names = {"Block": block, "gridDim_x": grid_size, "loads_per_iteration": loads, "n": n}
    names["tile"] = evaluate(tile["expr"], names, context)
    names["grid_stride"] = names[stride["expr"]] * grid_size
    for b, tid in ((b, tid) for b in range(grid_size) for tid in range(block)):
        bound, init = dict(names, blockIdx_x=b, tid=tid), f"({start['expr']}) * blockIdx_x + tid"
        trips = loop_values("i", init, loop["cond"], "i += grid_stride", bound, context)
        end = evaluate(init, bound, context) + len(trips) * names["grid_stride"]  # i once the loop is done
        for k in range(loads):
            for i in trips:
                element = evaluate(f"i + {loop['offset']}", dict(bound, i=i, k=k), context)
                owner[element] = (b, tid)
                looped.add(element)
            if evaluate(tail["cond"], dict(bound, i=end, k=k), context):
                owner[evaluate(f"i + {tail['offset']}", dict(bound, i=end, k=k), context)] = (b, tid)
    require(sorted(owner) == list(range(n)), f"{relpath}: the grid-stride loop does not read every element exactly "
                                              f"once", FigureError)
    row_len = grid_size * block * loads
    svg = Svg(110 + row_len * 24 + 40, None, "Step 07: a grid sized to the GPU walks the array, then one block "
              "adds the partials", f"toy sizes: Block = {block} threads, a GPU that holds {grid_size} blocks at once, "
                                   f"n = {n}; loads_per_iteration = {loads} (from the source)")
    grid = Grid(svg, 110, 96, 24, 24, gap=22, size=9)
    for r in range(-(-n // row_len)):
        elements = range(r * row_len, (r + 1) * row_len)
        tail = not all(e in looped for e in elements)
        grid.row([(f"t{owner[e][1]}", f"b{owner[e][0]}") if e in owner else ("", "gap") for e in elements],
                 "tail, guarded" if tail else f"iteration {r}", above=[e if e % 4 == 0 else "" for e in elements],
                 label_fill=VERMILLION if tail else "#000000")
    for b in range(grid_size):
        grid.span(0, b * block * loads, block * loads, f"block {b}: tile = {loads} x Block", f"b{b}")
    svg.caption(grid.y + 8, f"""Each row is one trip of the loop: the grid covers grid_stride = {grid_size} x {loads} x
        {block} = {row_len} elements, each thread {loads} of them, Block apart (coalesced). The last row, the tail,
        crosses n: only there are the loads checked against n.""", width=125)
    y, x = svg.height + 6, 110 + grid_size * 70
    for b in range(grid_size):
        cell(svg, 110 + b * 70, y, 60, 26, f"partial {b}", f"b{b}", size=10)
    for width, label, style in ((300, f"second launch: <<<{launches['second']}, Block>>> adds the {grid_size} "
                                      f"partials", "b2"), (50, "out", "white")):
        svg.line(x - 6, y + 13, x + 50, y + 13, stroke="#444444", width=1.4, arrow=True)
        cell(svg, x + 54, y, width, 26, label, style, size=10)
        x += width + 64
    svg.height = y + 40
    return svg


def shuffle_figure(evidence, relpath):
    loop = evidence.find(relpath, LOOP + " value += shuffle_down(value, $var);", "the shuffle loop")
    lanes = evidence.number(relpath, "sum = warp_sum<$lanes>(sum);", "the warp's call")
    offsets, values = loop_of(loop, {"Lanes": lanes}, relpath), [(3 * lane + 1) % 7 for lane in range(lanes)]
    total = sum(values)
    svg = Svg(90 + lanes * 24 + 30, None, f"Step 08: a warp adds its {lanes} values in {len(offsets)} shuffle rounds, "
              f"in registers", f"{loop_text(loop)} value += __shfl_down_sync(all lanes, value, {loop['var']}), "
                               f"Lanes = {lanes}")
    grid = Grid(svg, 90, 84, 24, 24, gap=56)
    grid.row([(v, "on") for v in values], "lane", above=range(lanes), label_fill=GREY)
    for offset in offsets:
        values = [values[lane] + values[lane + offset if lane + offset < lanes else lane] for lane in range(lanes)]
        row = grid.row([(v, "on") if lane < offset else ("", "idle") for lane, v in enumerate(values)],
                       f"offset {offset}")
        for lane in range(offset):
            grid.join((row - 1, lane + offset), (row, lane), BLUE, width=1)
    require(values[0] == total, f"{relpath}: the shuffle rounds do not leave the warp's sum in lane 0", FigureError)
    return svg.caption(grid.y - 10, f"""Each lane adds the value of the lane {loop['var']} above it. Lane 0 ends with
        the warp's sum, {total}. Grey: lanes whose result lane 0 never reads (they compute too, all 32 take part in
        every shuffle). No shared memory and no __syncwarp().""", width=125)


def vector_rules(evidence, relpath):
    hole = {key: evidence.find(relpath, shape)[1] for key, shape in (
        ("width", "static constexpr unsigned int width = $expr;"),
        ("head", "const std::size_t head = misalignment == 0 ? 0 : $expr;"),
        ("vectors", "const std::size_t vectors = $expr;"), ("tail_begin", "const std::size_t tail_begin = $expr;"),
        ("head_if", "if ($cond) sum [[+= ]][[= op(sum, ]]in[thread]"),
        ("tail_if", "if ($cond) sum [[+= ]][[= op(sum, ]]in[tail_begin + thread]"),
        ("load", "= load_vector(body + $expr)"))}
    return dict(hole, bytes=evidence.number(relpath, "constexpr std::size_t vector_bytes = $n;"),
                loads=evidence.number(relpath, "constexpr unsigned int loads_per_iteration = $n;"))


def split_input(rules, relpath, n, misalignment, size, block):
    context = f"{relpath}, the thread loop"
    names = {"vector_bytes": rules["bytes"], "misalignment": misalignment, "sizeof_T": size, "n": n}
    width = evaluate(rules["width"], names, context)
    head = min(evaluate(rules["head"], names, context) if misalignment else 0, n)
    names.update(head=head, Vector_T_width=width)
    names["vectors"] = evaluate(rules["vectors"], names, context)
    names["tail_begin"] = evaluate(rules["tail_begin"], names, context)
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
                owner.update((head + v * width + w, ("vector", thread)) for w in range(width))
    require(sorted(owner) == list(range(n)), f"{relpath}: head, vectors and tail do not cover the input exactly once",
            FigureError)
    return owner, width, head, names["vectors"], names["tail_begin"]


def vector_loads_figure(evidence, relpath):
    rules = vector_rules(evidence, relpath)
    block, size, misalignment = 32, 4, 8
    n = (rules["bytes"] - misalignment) // size + block * (rules["bytes"] // size) + 3
    owner, width, head, vectors, tail_begin = split_input(rules, relpath, n, misalignment, size, block)
    pad, per_row = misalignment // size, 8 * width  # pad: the words before `in` in its first 16-byte segment
    svg = Svg(70 + per_row * 22 + 30, None,
              f"Step 09: a warp's {rules['bytes']}-byte loads, with a scalar head and tail at misaligned edges",
              f"int32, n = {n}, in {misalignment} bytes past a 16-byte boundary; one warp (Block = {block}); "
              f"width = {rules['width']} = {width}")
    grid = Grid(svg, 70, 92, 22, 22, gap=30, size=8)
    for r in range(-(-(pad + n) // per_row)):
        elements = [r * per_row + c - pad for c in range(per_row)]
        row = grid.row([None if e >= n else ("", "gap") if e < 0 else (e, "on" if owner[e][0] == "vector" else "warn")
                        for e in elements], "in[]" if r == 0 else None, label_fill=GREY)
        for c, e in enumerate(elements):
            x, y = grid.x(c), grid.ys[row]
            if 0 <= e < n and owner[e][0] != "vector":
                svg.text(x + 11, y - 4, f"t{owner[e][1]}", size=9, anchor="middle", fill=VERMILLION, weight="bold")
            elif 0 <= e < n and (e - head) % width == 0:
                svg.rect(x + 1, y + 1, width * 22 - 2, 20, stroke=BLUE, width=2)
                svg.text(x + width * 11, y - 4, f"lane {owner[e][1]}", size=9, anchor="middle", fill=BLUE)
            if c % width == 0 and e < n:
                svg.line(x, y - 2, x, y + 26, width=1.6)
    return svg.caption(grid.y, f"""Thick ticks: 16-byte boundaries. Orange: the head (elements before the first
        boundary, {head} here) and the tail (after the last whole vector, {n - tail_begin} here), one element per
        thread. Blue boxes: {vectors} vectors of {width} int32, one 128-bit load each; lane t loads vector t. With more
        input each lane issues {rules['loads']} such loads per iteration, Block vectors apart.""", width=125)


def slots_figure(evidence, relpath):
    loads = evidence.number(relpath, "constexpr unsigned int partial_loads = $n;")
    bit = evidence.number(relpath, "constexpr Slot full = Slot{1} << $bit;", "the mark")
    last = evidence.find(relpath, "const bool is_last = $cond;")
    rounds = evidence.find(relpath, "for (unsigned int first = $init; $cond; first += $step)", "the last block's rounds")
    seen = evidence.find(relpath, "= posted_by_other($expr)", "the slots of a round")
    other = evidence.find(relpath, "bool posted_by_other(unsigned int block) { return $cond; }")
    block, grid_size, context = 2, 10, f"{relpath}, the last block"
    finish = [5, 7, 4, 8, 6, 9, 5, 7, 6, 5]  # when each block has added its share (illustrative units)
    lasts = [b for b in range(grid_size) if evaluate(last["cond"], {"blockIdx_x": b, "gridDim_x": grid_size}, context)]
    require(len(lasts) == 1, f"{relpath}: 'is_last' is true for {len(lasts)} blocks, the figure expects one",
            FigureError)
    the_last, threads, posted = lasts[0], [], re.sub(r"\bblock\b", "b_", other["cond"])
    for tid in range(block):  # the slots each thread of the last block reads: (slot, posted by another block)
        names = {"tid": tid, "gridDim_x": grid_size, "partial_loads": loads, "Block": block, "blockIdx_x": the_last}
        trips = loop_values("first", rounds["init"], rounds["cond"], f"first += {rounds['step']}", names, context)
        reads = [(b, evaluate(posted, dict(names, b_=b), context)) for first in trips
                 for b in (evaluate(seen["expr"], dict(names, first=first, k=k), context) for k in range(loads))]
        threads.append([b if other_block else f"{b} (own)" for b, other_block in reads if other_block or b == the_last])
    unit, left, top, rh = 34, 210, 96, 26
    svg = Svg(left + (max(finish) + 5) * unit + 140, None,
              "Step 10: blocks post partials into slots; the last block adds them in a fixed order",
              f"a toy grid of {grid_size} blocks of Block = {block} threads; partial_loads = {loads}; the last "
              f"block: {last['cond']}")
    svg.text(16, 66, "time runs to the right (the order is an example, not a measurement)", size=12, fill=GREY)
    def bar(row, start, length, label, style, dash=None, middle=False):
        x, y = left + start * unit, top + row * rh
        svg.rect(x, y + 5, length * unit, rh - 10, fill="#ffffff" if dash else STYLES[style][0], stroke=STRONG[style],
                 dash=dash)
        if label:
            svg.text(x + (length * unit / 2 if middle else 4), y + 17, label, size=9,
                     anchor="middle" if middle else "start", fill=VERMILLION if dash else BLACK)
    for b in range(grid_size):
        svg.text(left - 10, top + b * rh + 16, f"block {b}", size=11, anchor="end",
                 weight="bold" if b == the_last else None)
        bar(b, 0, finish[b], "its share, block tree" if b == the_last else "", "b0")
        if b != the_last:
            svg.marker("diamond", left + (finish[b] + 0.5) * unit, top + b * rh + rh / 2, GREEN, size=5)
            svg.text(left + (finish[b] + 0.5) * unit + 9, top + b * rh + 17, f"posts slot {b}", size=9, fill=GREEN)
    done = []
    for tid, reads in enumerate(threads):
        row, start = grid_size + tid, finish[the_last] + 0.3
        ready = max(finish[b] + 0.5 for b in reads if isinstance(b, int)) + 0.2
        svg.text(left - 10, top + row * rh + 16, f"thread {tid}: slots {', '.join(map(str, reads))}", size=11,
                 anchor="end")
        if ready > start:
            bar(row, start, ready - start, "spins", "b1", dash="3 2")
        bar(row, max(start, ready), 2.4, "add, empty", "b2", middle=True)
        done.append(max(start, ready) + 2.4)
    end, y0 = max(done) + 0.3, top + grid_size * rh
    svg.rect(left + end * unit, y0 + 3, unit * 1.2, block * rh - 6, fill=STYLES["b1"][0], stroke=ORANGE)
    for i, word in enumerate(("block tree,", "writes *out")):
        svg.text(left + (end + 1.4) * unit, y0 + rh / 2 + 4 + 14 * i, word, size=10, fill=ORANGE, weight="bold")
    y = y0 + block * rh + 18
    svg.text(left - 10, y + 16, "a slot (64 bits)", size=11, anchor="end", weight="bold")
    cell(svg, left, y, 170, 24, f"bits {bit}..63: the mark, 1 << {bit}", "b2", size=10)
    cell(svg, left + 170, y, 170, 24, f"bits 0..{bit - 1}: the partial", "b0", size=10)
    return svg.caption(y + 50, f"""Mark and partial are written by one 64-bit atomic store, so whoever sees the mark
        sees the partial. Thread t of the last block reads the slots of blocks t, t + Block, ... (up to partial_loads =
        {loads} at once), never its own block's ('own'): it has that partial at hand. It spins while a slot it needs is
        empty, then adds its partials one after another (t, t + Block, ...) and stores 0 into each slot for the next
        call; the block tree then adds the threads' sums. The order depends on n, Block and the grid only.""")


def identity_figure(evidence, relpath):
    ops_path, identities = "common/operators.h", {}
    for m in evidence.find_all(ops_path, IDENTITY, "struct Sum, Max and Min, each with 'identity() { ... }'"):
        body = re.sub(r"\s+", " ", m["body"]).strip()
        zero, f = m["name"] == "Sum" and body == "return T(0);", IDENTITY_BODY.fullmatch(body)
        require(zero or m["name"] != "Sum" and f, f"{ops_path}: {m['name']}'s identity reads '{body}': expected "
                f"'return T(0);' for Sum, 'if constexpr (L::has_infinity) return [-]L::infinity(); else return "
                f"L::...();' else", FigureError)
        identities[m["name"]] = ("0", 0.0, "0") if zero else (
            "-inf" if f["float"] else "+inf", -math.inf if f["float"] else math.inf, f"{f['int']}()")
    evidence.find(relpath, "T sum = Op::template identity<T>();", "thread_reduce's start")
    n, block, per_lane = 26, 32, {}
    owner, *_ = split_input(vector_rules(evidence, relpath), relpath, n, 0, 4, block)
    data = [float(((7 * e + 3) % 11) - 4) for e in range(n)]
    for e, (_, thread) in owner.items():
        per_lane.setdefault(thread, []).append(data[e])
    svg = Svg(110 + block * 23 + 110, None, "Step 11: lanes without an element hold the operator's identity",
              f"float32, n = {n}, aligned input, one warp: thread_reduce starts every lane at Op::identity<T>(), "
              f"so a lane with no element adds nothing")
    svg.text(110 + block * 23 + 35, 88, "lane 0 after", size=9, fill=GREY)
    svg.text(110 + block * 23 + 35, 98, "the warp tree", size=9, fill=GREY)
    def show(v):
        return "-inf" if v == -math.inf else "+inf" if v == math.inf else f"{v:g}"
    grid = Grid(svg, 110, 108, 23, 22, gap=18, size=8)
    for name, function in (("Sum", sum), ("Max", max), ("Min", min)):
        label, identity, _ = identities[name]
        grid.row([(show(function([identity] + per_lane[lane])), "on") if lane in per_lane else (label, "idle")
                  for lane in range(block)] + [None, (show(function([identity] + data)), "b2")],
                 f"{name.lower()}: {label}", above=range(block) if name == "Sum" else None)
    return svg.caption(grid.y + 12, f"""Blue: lanes {min(per_lane)}..{max(per_lane)} combine their elements (a vector of
        4, some a tail element too); grey: lanes with no element, holding the identity. Sum: 0; max: -infinity; min:
        +infinity (for integers: {identities['Max'][2]} and {identities['Min'][2]}). The same warp tree then gives the
        right answer for each.""", width=125)


def require_consecutive(spans, total, message):
    starts = [sum(c for _, c in spans[:i]) for i in range(len(spans) + 1)]
    require([f for f, _ in spans] == starts[:-1] and starts[-1] == total, message, FigureError)


def shards_figure(evidence, relpath):
    previous = evidence.find(relpath, "#define REDUCTION_PREVIOUS_STEP_NS $step")["step"]  # the default: the row's
    base = evidence.find(relpath, "const std::size_t base = $base, extra = $extra;")
    shard = evidence.find(relpath, "return Shard{$begin, $count};")
    evidence.find(relpath, "ncclAllReduce(parts[i].partial, parts[i].total, 1,", "the combine")
    n, k, context = 18, 4, f"{relpath}, shard_of"
    data = [(5 * e + 2) % 9 for e in range(n)]
    shards = [bind(shard, bind(base, {"n": n, "k": k, "r": r}, context), context, "begin", "count") for r in range(k)]
    require_consecutive(shards, n, f"{relpath}: shard_of does not cut the input into consecutive shards")
    partials = [sum(data[b:b + c]) for b, c in shards]
    cw, left, top = 36, 40, 92
    svg = Svg(left + n * cw + 40, None, f"Step 15: {k} GPUs each reduce a shard, then one all-reduce of {k} partials",
              f"n = {n}, K = {k}: shard r holds n / K elements, the first n % K shards one more (shard_of)")
    grid = Grid(svg, left, top, cw, 26, size=11)
    grid.row([(data[e], f"b{r}") for r, (b, c) in enumerate(shards) for e in range(b, b + c)], above=range(n))
    gpu_w, y = n * cw / k, top + 170
    for r, (b, c) in enumerate(shards):
        middle, style = left + r * gpu_w + gpu_w / 2, f"b{r}"
        svg.line(left + (b + c / 2) * cw, top + 26, middle, top + 76, stroke=STRONG[style], width=1.4, arrow=True)
        svg.rect(middle - gpu_w / 2 + 6, top + 80, gpu_w - 12, 56, fill=STYLES[style][0], stroke=STRONG[style], rx=6)
        svg.text(middle, top + 100, f"GPU {r}: {c} elements", size=12, anchor="middle", weight="bold")
        svg.text(middle, top + 124, f"{previous} -> partial {partials[r]}", size=11, anchor="middle")
        for y1, y2 in ((top + 136, y - 2), (y + 40, y + 68)):
            svg.line(middle, y1, middle, y2, stroke=STRONG[style], width=1.4, arrow=True)
        cell(svg, middle - 50, y + 70, 100, 26, f"total {sum(partials)}", style)
    svg.rect(left, y, n * cw, 40, fill="#f2f2f2", stroke="#000000", rx=6)
    svg.text(left + n * cw / 2, y + 25, f"ncclAllReduce of 1 element per GPU: {' + '.join(map(str, partials))} = "
                                        f"{sum(partials)}", size=13, anchor="middle", weight="bold")
    return svg.caption(y + 124, f"""Each GPU runs {previous}'s reduction on its own shard, all GPUs at once; the combine
        moves one value per GPU and leaves the total on every GPU.""", width=105)


def bulk_copies_figure(evidence, relpath):
    stages = evidence.number(relpath, "constexpr unsigned int stages = $n;")
    chunk_bytes = evidence.number(relpath, "constexpr std::size_t chunk_bytes = $n;")
    split = evidence.find(relpath, "const std::size_t share = $share, bigger = $bigger;", "the even split of the chunks")
    first = evidence.find(relpath, "const std::size_t first = $first;")
    count = evidence.find(relpath, "const std::size_t count = $count;")
    phase = evidence.find(relpath, "wait_for_chunk(&ready[s], $phase);", "the wait on a buffer")
    chunks, grid_size, context = 20, 3, f"{relpath}, bulk_thread_reduce"
    runs = [(bind(first, names, context, "first")[0], bind(count, names, context, "count")[0]) for names in (
        bind(split, {"chunks": chunks, "gridDim_x": grid_size, "blockIdx_x": b}, context) for b in range(grid_size))]
    require_consecutive(runs, chunks, f"{relpath}: the blocks' runs do not cut the chunks into consecutive runs")
    owner = [b for b, (f, c) in enumerate(runs) for _ in range(c)]
    mine = range(runs[0][0], runs[0][0] + runs[0][1])
    buffers = {c: (c - runs[0][0]) % stages for c in mine}
    phases = {c: evaluate(phase["phase"], {"c": c - runs[0][0], "stages": stages}, context) for c in mine}
    cw, left, top = 46, 190, 120
    svg = Svg(left + chunks * cw + 60, None, f"Step 13: each block's run of chunks, through a ring of {stages} buffers",
              f"a toy input of {chunks} chunks ({chunk_bytes} bytes each) and a grid of {grid_size} blocks; "
              f"block 0's run shown below")
    grid = Grid(svg, left, top, cw, 26, gap=70, size=11)
    row = grid.row([(f"c{c}", f"b{owner[c]}") for c in range(chunks)], label="input, in chunks")
    for b, (f, c) in enumerate(runs):
        grid.span(row, f, c, f"block {b}'s run", f"b{b}")
    ring = grid.row([(f"buf {buffers[c]}", "b0") if c in buffers else None for c in range(chunks)],
                    label="block 0's ring buffer", gap=10)
    grid.row([("start" if c - runs[0][0] < stages else f"after c{c - stages}") if c in buffers else None
              for c in range(chunks)], label="copy asked for", gap=10)
    grid.row([(phases[c], "white") if c in phases else None for c in range(chunks)], label="mbarrier phase awaited",
             gap=24)
    for c in mine:
        grid.join((row, c), (ring, c), colour=STRONG["b0"])
    return svg.caption(grid.y + 16, f"""Thread 0 asks the copy engine for block 0's first {stages} chunks
        (cp.async.bulk), one into each buffer; each buffer's mbarrier completes a phase when its chunk's bytes have
        landed. Every thread waits on that phase, adds its vectors of the chunk from shared memory, and after a barrier
        thread 0 refills the buffer with the chunk {stages} ahead ('after c0': asked once chunk c0 was added): chunk c
        goes to buffer c % {stages}, its phase is (c / {stages}) % 2, c counted from the start of the block's run. No
        thread loads the input itself.""", width=112)


def ring_figure(evidence, relpath):
    stages = evidence.number(relpath, "constexpr unsigned int stages = $n;")
    chunk_bytes = evidence.number(relpath, "constexpr std::size_t chunk_bytes = $n;")
    phase = evidence.find(relpath, "wait_for_chunk(&ready[s], $phase);", "the wait on a buffer")
    for shape, what in (("mbarrier.init.shared::cta.b64 [%0], 1;", "the mbarriers' one arrival"),
                        ("mbarrier.arrive.expect_tx.shared::cta.b64", "the arrival that announces the bytes"),
                        ("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes", "the bulk copy"),
                        ("mbarrier.try_wait.parity.shared::cta.b64", "the wait on a parity"),
                        ("fence.proxy.async.shared::cta;", "the proxy fence"),
                        ("__syncthreads();  // nobody reads buffer s any more\nif (tid == 0 && c + stages < count) {\n"
                         "release_buffer();\ncopy_chunk(ring[s], body + (first + c + stages) * chunk_bytes, &ready[s]);",
                         "the refill after the barrier")):
        evidence.find(relpath, shape, what)
    kib, width = chunk_bytes // 1024, max(980, 330 + stages * 130 + 200)
    svg = Svg(width, None, f"Step 13: one block's ring of {stages} buffers, who waits for whom",
              f"stages = {stages}, chunk_bytes = {chunk_bytes} (from the source); c counts the chunks of the block's run")
    bx, by, bw, bh = 250, 120, 110, 54  # the buffers
    right = bx + stages * (bw + 20) + 30
    cell(svg, 20, by, 170, bh, "thread 0", "b1", size=12)
    cell(svg, right, by, 190, bh, "copy engine (TMA)", "b3", size=12)
    for s in range(stages):
        x = bx + s * (bw + 20)
        cell(svg, x, by, bw, bh, f"buffer {s}: {kib} KiB", "b0", size=11)
        cell(svg, x, by + bh + 34, bw, 40, f"ready[{s}]", "good", size=11)
        svg.text(x + bw / 2, by + bh + 26, "mbarrier", size=9, anchor="middle", fill=GREY)
    cell(svg, bx, by + bh + 130, stages * (bw + 20) - 20, 34, "all threads of the block", "b2", size=12)
    # (1) thread 0 asks the copy engine
    svg.line(105, by - 8, 105, by - 40, stroke=ORANGE, width=1.4)
    svg.line(105, by - 40, right + 95, by - 40, stroke=ORANGE, width=1.4)
    svg.line(right + 95, by - 40, right + 95, by - 3, stroke=ORANGE, width=1.4, arrow=True)
    svg.text(bx, by - 47, f"(1) cp.async.bulk: chunk c into buffer c % {stages}, and arrive.expect_tx({chunk_bytes}) "
             f"on ready[c % {stages}]", size=11, fill=ORANGE, weight="bold")
    # (2) the copy engine writes a buffer and counts its bytes on the buffer's mbarrier
    last = bx + (stages - 1) * (bw + 20)
    svg.line(right, by + bh / 2, last + bw + 3, by + bh / 2, stroke=PURPLE, width=1.4, arrow=True)
    svg.line(right + 20, by + bh, last + bw / 2 + 20, by + bh + 32, stroke=PURPLE, width=1.4, arrow=True)
    svg.text(right, by + bh + 30, "(2) writes the bytes; once", size=10, fill=PURPLE, weight="bold")
    svg.text(right, by + bh + 44, f"all {chunk_bytes} have landed, ready[s]", size=10, fill=PURPLE, weight="bold")
    svg.text(right, by + bh + 58, "completes its phase", size=10, fill=PURPLE, weight="bold")
    # (3) every thread waits on the parity of the phase, then adds the buffer
    for s in range(stages):
        x = bx + s * (bw + 20) + bw / 2
        svg.line(x, by + bh + 74, x, by + bh + 127, stroke=GREEN, width=1.4, arrow=True)
    svg.text(36, by + bh + 100, f"(3) try_wait.parity(ready[s],", size=10, fill=GREEN, weight="bold")
    svg.text(36, by + bh + 114, f"{phase['phase']}): wait, then add", size=10, fill=GREEN, weight="bold")
    # (4) the barrier, (5) the fence and the refill
    y4 = by + bh + 164
    svg.line(bx, y4 - 17, 28, y4 - 17, stroke=BLACK, width=1.4)
    svg.line(28, y4 - 17, 28, by + bh + 3, stroke=BLACK, width=1.4, arrow=True)
    svg.text(bx + 8, y4 + 18, "(4) __syncthreads(): nobody reads buffer s any more", size=11, weight="bold")
    svg.text(36, by + bh + 26, "(5) fence.proxy.async, then", size=10, fill=VERMILLION, weight="bold")
    svg.text(36, by + bh + 40, f"(1) for chunk c + {stages} into buffer s", size=10, fill=VERMILLION, weight="bold")
    # per chunk: its buffer and the parity its wait names, evaluated from the source
    count = 2 * stages + 2
    grid = Grid(svg, bx, y4 + 54, 46, 22, gap=4, size=10)
    grid.row([(c, "white") for c in range(count)], "chunk c")
    grid.row([(c % stages, "b0") for c in range(count)], "buffer c % stages")
    grid.row([(evaluate(phase["phase"], {"c": c, "stages": stages}, relpath), "good") for c in range(count)],
             "parity awaited")
    return svg.caption(grid.y + 18, f"""An mbarrier counts arrivals and bytes; when both are complete, its current phase
        ends and the next begins. Phases are numbered 0, 1, 2, ..., and a wait names only the parity (even or odd) of the
        phase it waits for: buffer s is used for chunks s, s + {stages}, s + {2 * stages}, ..., so its k-th use waits for
        phase k, parity k % 2. Two uses never overlap (thread 0 refills a buffer only after the barrier), so the parity is
        enough. The copy engine reaches shared memory by another path than the threads' loads (the async proxy):
        fence.proxy.async orders the threads' reads of a buffer before the engine's next write into it.""", width=130)


EXACT = "common/exact_sum.h"
# std::numeric_limits<float> (IEEE 754 binary32): digits, min_exponent, max_exponent, and sizeof(float). ExactLayout's
# lines are evaluated with these, so every float32 number below (precision 24, stored 23, exponent_bits 8,
# unit_exponent -149, top_bit 340, digit_count 12) comes from common/exact_sum.h's expressions
FLOAT32_LIMITS = {"limits_digits": 24, "limits_min_exponent": -125, "limits_max_exponent": 128, "sizeof_T": 4}
LAYOUT = ("precision", "stored", "exponent_bits", "unit_exponent", "top_bit", "digit_count")
CARRY = ("for (int i = 0; i + 1 < count; ++i) {\nconst std::int64_t digit = digits[i] + up;\nup = digit >> $width;"
         "\ndigits[i] = digit - up * (std::int64_t{1} << $width);")
DIGITS_VALUE, DIGITS_TIMES = 1.5, 5000  # the figure's example: one float32, and a count of it added before a carry


def exact_layout(evidence, limits=FLOAT32_LIMITS):
    """ExactLayout<T>'s constants (and NAME_expr, each one's expression), each evaluated from its line of
    common/exact_sum.h for T's numeric_limits."""
    names = dict(limits)
    for name in LAYOUT:  # the first 'static constexpr int NAME = ...;' of the file: ExactLayout's
        m = evidence.find(EXACT, f"static constexpr int {name} = $expr;", f"ExactLayout's {name}")
        names[f"{name}_expr"] = re.sub(r"std::numeric_limits<T>::", "", m["expr"])  # as the figure shows it
        names[name] = evaluate(re.sub(r"std::numeric_limits<T>::(\w+)", r"limits_\1", m["expr"]), names,
                               f"{EXACT}, ExactLayout::{name}")
    return names


def float32_placement(evidence, value):
    """Where ExactSum<float>::add puts one finite float32: its fields, m, shift, digit index, offset and parts."""
    layout = exact_layout(evidence)
    stored, exponent_bits, width = layout["stored"], layout["exponent_bits"], 8 * layout["sizeof_T"]
    require(1 + exponent_bits + stored == width, f"{EXACT}: ExactLayout<float> has 1 + {exponent_bits} + {stored} "
            f"bits, not {width}", FigureError)
    for line, what in (
            ("const int biased = static_cast<int>((bits >> L::stored) & ((Bits{1} << L::exponent_bits) - 1));",
             "the exponent field"),
            ("const std::uint64_t fraction = static_cast<std::uint64_t>(bits & ((Bits{1} << L::stored) - 1));",
             "the fraction field"),
            ("const std::uint64_t m = biased == 0 ? fraction : fraction | (std::uint64_t{1} << L::stored);",
             "the significand, its hidden bit set for a normal value"),
            ("const std::uint64_t upper = m >> (32 - offset);", "the bits of m above the first digit")):
        evidence.find(EXACT, line, what)  # mirrored below: bits -> biased, fraction, m; parts from m << offset
    shift = evidence.find(EXACT, "const int shift = $expr;", "ExactSum::add's shift")["expr"]
    offset = evidence.find(EXACT, "const int offset = $expr;", "ExactSum::add's offset")["expr"]
    index = evidence.find(EXACT, "std::int64_t* digit = digits_.data() + $index;", "ExactSum::add's first digit")
    count = evidence.number(EXACT, "for (int k = 0; k < $parts; ++k) digit[k] +=", "ExactSum::add's parts")
    bits = struct.unpack(">I", struct.pack(">f", value))[0]
    require(struct.unpack(">f", struct.pack(">f", value))[0] == value and math.isfinite(value),
            f"the example {value} is not a finite float32", FigureError)
    biased = (bits >> stored) & ((1 << exponent_bits) - 1)
    fraction = bits & ((1 << stored) - 1)
    m = fraction if biased == 0 else fraction | (1 << stored)
    place = dict(layout, value=value, bits=bits, biased=biased, fraction=fraction, m=m,
                 width=width, parts_written=count, shift_expr=shift, offset_expr=offset, index_expr=index["index"])
    context = f"{EXACT}, ExactSum::add"
    place["shift"] = evaluate(shift, {"biased": biased}, context)
    place["offset"] = evaluate(offset, {"shift": place["shift"]}, context)
    place["index"] = evaluate(index["index"], {"shift": place["shift"]}, context)
    place["parts"] = [(m << place["offset"]) >> (32 * k) & 0xFFFFFFFF for k in range(count)]  # parts[3], 32 bits each
    integer = m << place["shift"]
    require(Fraction(integer) * Fraction(2) ** layout["unit_exponent"] == Fraction(value), f"{context}: m << shift "
            f"is not {value} / 2^{layout['unit_exponent']}", FigureError)
    require(sum(p << 32 * (place["index"] + k) for k, p in enumerate(place["parts"])) == integer, f"{context}: "
            f"the parts in digits shift / 32 .. + {count - 1} do not add up to m << shift", FigureError)
    return place


def kernel_shift(evidence, relpath, value, layout):
    """The kernel's flush of `value` as a double: (shift, m) from its lines, for the same integer as ExactSum's."""
    field = evidence.find(relpath, "const int biased = static_cast<int>((bits >> $stored) & $mask);", "flush's "
                          "exponent field")
    evidence.find(relpath, "unsigned long long m = (bits & ((1ull << $stored) - 1)) | (biased != 0 ? 1ull << $stored "
                           ": 0);", "flush's significand")
    shift = evidence.find(relpath, "int shift = $expr;", "flush's shift")
    context = f"{relpath}, flush"
    stored, mask = evaluate(field["stored"], {}, context), evaluate(field["mask"], {}, context)
    bits = struct.unpack(">Q", struct.pack(">d", value))[0]
    biased = (bits >> stored) & mask
    m = (bits & ((1 << stored) - 1)) | (1 << stored if biased != 0 else 0)
    return evaluate(shift["expr"].replace("Layout::", ""), {"biased": biased, "unit_exponent": layout["unit_exponent"]},
                    context), m, shift["expr"]


def carry(digits, width):
    """carry_digits on a copy: [(i, up)] for each digit that moved bits up, and the digits after."""
    digits, moved = list(digits), []
    for i in range(len(digits) - 1):  # i + 1 < count
        up = digits[i] >> width  # Python's >> rounds down like the int64 shift: -1 for a small negative digit
        digits[i] -= up * (1 << width)
        digits[i + 1] += up
        if up:
            moved.append((i, up))
    return moved, digits


def hex_digit(v):
    return "0" if v == 0 else f"0x{v:X}" if v > 0 else f"-0x{-v:X}"


def digits_figure(evidence, relpath):
    place = float32_placement(evidence, DIGITS_VALUE)
    width_m = evidence.find(EXACT, CARRY, "carry_digits's loop")
    digit_bits = evaluate(width_m["width"], {}, f"{EXACT}, carry_digits")
    evidence.find(EXACT, "static constexpr int digit_count = L::digit_count;", "ExactSum's digits")
    for shape, what in (("constexpr int count = reduction::ExactLayout<T>::digit_count;", "the kernel's digit count"),
                        ("__shared__ std::int64_t digits[count];", "the block's digits"),
                        ("const int offset = shift % 32;", "flush's offset"),
                        ("&digits[shift / 32 + k]", "flush's digits"),
                        ("const std::int64_t from_below = i > 0 ? digits[i - 1] >> 32 : 0;", "the block's one-step carry"),
                        ("reduction::round_digits<T>(digits", "the rounding, which carries")):
        evidence.find(relpath, shape, what)
    k_shift, k_m, k_expr = kernel_shift(evidence, relpath, DIGITS_VALUE, place)
    require(k_m << k_shift == place["m"] << place["shift"], f"{relpath}: flush puts {DIGITS_VALUE} at another place "
            f"than {EXACT}'s ExactSum::add", FigureError)
    require(digit_bits == 32, f"{EXACT}: carry_digits keeps {digit_bits} bits per digit; the figure draws 32",
            FigureError)
    count, value, unit = place["digit_count"], DIGITS_VALUE, place["unit_exponent"]
    stored, exponent_bits, width, index, offset = (place[k] for k in ("stored", "exponent_bits", "width", "index",
                                                                        "offset"))
    largest_top = place["limits_max_exponent"] - 1 - unit  # the largest float32's top bit, counted from the unit
    left, cw = 150, 70
    svg = Svg(left + count * cw + 40, None, "Step 14: one float32 value into the digits, and the carry",
              f"ExactLayout<float> (common/exact_sum.h): precision = {place['precision']}, stored = {stored}, "
              f"exponent_bits = {exponent_bits}, unit_exponent = {unit}, top_bit = {place['top_bit']}, "
              f"digit_count = {count}")
    # (1) the float32's fields
    svg.text(16, 78, f"(1) the float32 {value:g}: {width} bits, 0x{place['bits']:08X}", size=13, weight="bold")
    fields = Grid(svg, left, 124, 22, 22, size=10)
    styles = ["b3"] + ["b1"] * exponent_bits + ["b0"] * stored
    shown = {width - 1, width - 2, stored, stored - 1, 0}
    row = fields.row([((place["bits"] >> (width - 1 - c)) & 1, styles[c]) for c in range(width)], "bits",
                     above=[width - 1 - c if width - 1 - c in shown else "" for c in range(width)], label_fill=GREY)
    fields.span(row, 0, 1, "sign", "b3")
    fields.span(row, 1, exponent_bits, f"exponent field: biased = {place['biased']}", "b1")
    fields.span(row, 1 + exponent_bits, stored, f"fraction: 0x{place['fraction']:X}", "b0")
    svg.text(left, 166, f"m = fraction | 1 << {stored} = 0x{place['m']:X}: the {place['precision']}-bit significand "
             f"with its hidden 1 (a subnormal, biased = 0, has m = fraction)", size=11)
    svg.text(left, 182, f"{value:g} = m x 2^(shift + unit_exponent), shift = {place['shift_expr']} = {place['shift']}",
             size=11)
    # (2) the value as a count of units, m placed at bit `shift` of the digits
    svg.text(16, 214, f"(2) {value:g} / 2^{unit} = m << {place['shift']} units: digit {place['index_expr']} = {index}, "
             f"offset {place['offset_expr']} = {offset}", size=13, weight="bold")
    bw, top = 11, 32 * (index + 2) - 1  # the ruler: the bits of digits index + 1 and index, highest first
    ruler = Grid(svg, left, 258, bw, 20, size=8)
    low, high = place["shift"], place["shift"] + place["precision"] - 1
    edges = {top, high, low, 32 * (index + 1), 32 * index}
    row = ruler.row([((place["m"] >> (top - c - low)) & 1, "b0") if low <= top - c <= high else ("", "off")
                     for c in range(64)], "unit bits", above=[top - c if top - c in edges else "" for c in range(64)],
                    label_fill=GREY)
    for k in range(2):
        ruler.span(row, 32 * k, 32, f"digits[{index + 1 - k}]: units 2^{32 * (index + 1 - k)} .. "
                                   f"2^{32 * (index + 2 - k) - 1}", "b2")
    y, right, m_right = 298, ruler.x(64), ruler.x(top - low + 1)
    svg.line(right, y, m_right + 2, y, stroke=VERMILLION, width=1.4, arrow=True)
    svg.line(right, y - 5, right, y + 5, stroke=VERMILLION, width=1.4)
    svg.text((right + m_right) / 2, y + 16, f"offset = {offset} bits into digits[{index}]", size=10, anchor="middle",
             fill=VERMILLION, weight="bold")
    svg.text((ruler.x(top - high) + m_right) / 2, y + 16, f"m, {place['precision']} bits: {low} .. {high}", size=10,
             anchor="middle", fill=BLUE, weight="bold")
    parts = ", ".join(f"digits[{index + k}] += {hex_digit(p)}" for k, p in enumerate(place["parts"]))
    span = place["precision"] + 31  # m << offset, offset at most 31: two digits for float32's 24 bits
    svg.text(left, 336, f"ExactSum::add writes {place['parts_written']} parts of m << offset: {parts} (m << offset: "
             f"at most {place['precision']} + 31 = {span} bits, {-(-span // digit_bits)} digits)", size=11)
    # (3) the row of digits
    svg.text(16, 370, f"(3) the digits: digit_count = {place['digit_count_expr']} = {count} int64s, each a "
             f"{digit_bits}-bit digit; digits[i] counts units of 2^({digit_bits} i)", size=13, weight="bold")
    digits = [0] * count
    for k, p in enumerate(place["parts"]):
        digits[index + k] += p
    above = [f"{i}" if i < count - 1 else f"{i}, signed" for i in reversed(range(count))]

    def style(i, v):
        return "warn" if i < count - 1 and not 0 <= v < 1 << digit_bits else "on" if v else "off"

    def digit_row(grid, values, label, **more):
        return grid.row([(hex_digit(values[i]), style(i, values[i])) for i in reversed(range(count))], label,
                        label_fill=GREY, **more)
    row3 = Grid(svg, left, 400, cw, 22, size=9)
    digit_row(row3, digits, f"after {value:g}", above=above)
    headroom = place["top_bit"] - largest_top  # the bits top_bit leaves for any count of inputs
    svg.text(left, 444, f"top_bit = {place['top_bit_expr']} = {largest_top} + {headroom} = {place['top_bit']}: the "
             f"largest float32's top bit counted from the unit, plus {headroom} bits", size=11)
    svg.text(left, 460, f"for any count of inputs. After a carry, digits 0 .. {count - 2} lie in [0, 2^{digit_bits}) "
             f"and digits[{count - 1}], the last, holds the sign.", size=11)
    # (4) the carry, on two examples
    svg.text(16, 494, f"(4) the carry (carry_digits), up = 0, for i = 0 .. {count - 2}: d = digits[i] + up; "
             f"up = d >> {digit_bits}; digits[i] = d - up * (1 << {digit_bits}); then digits[{count - 1}] += up",
             size=13, weight="bold")
    y = 522
    examples = ((f"{value:g} added {DIGITS_TIMES:,} times, before any carry", [DIGITS_TIMES * d for d in digits]),
                (f"-{value:g} alone: a negative digit", [-d for d in digits]))
    for text, before in examples:
        moved, after = carry(before, digit_bits)
        total = sum(d << digit_bits * i for i, d in enumerate(before))
        require(sum(d << digit_bits * i for i, d in enumerate(after)) == total and all(
            0 <= d < 1 << digit_bits for d in after[:-1]), f"{EXACT}: carry_digits changes the value, or leaves a "
            f"digit outside [0, 2^{digit_bits})", FigureError)
        svg.text(left, y, text, size=11, weight="bold")
        grid = Grid(svg, left, y + 10, cw, 22, gap=34, size=9)
        digit_row(grid, before, "before")
        after_row = digit_row(grid, after, "after the carry")
        for i, up in moved:  # a hook from digit i up into digit i + 1, over the row after the carry
            x1, x2, yy = grid.x(count - 1 - i) + cw / 2, grid.x(count - 2 - i) + cw / 2, grid.ys[after_row]
            svg.line(x1, yy, x1, yy - 10, stroke=VERMILLION, width=1.4)
            svg.line(x1, yy - 10, x2, yy - 10, stroke=VERMILLION, width=1.4)
            svg.line(x2, yy - 10, x2, yy - 2, stroke=VERMILLION, width=1.4, arrow=True)
            svg.text((x1 + x2) / 2, yy - 14, f"up = {up}", size=9, anchor="middle", fill=VERMILLION, weight="bold")
        y = grid.y + 8
    return svg.caption(y + 6, f"""Every finite float32 is m x 2^e, m an integer below 2^{place['precision']} and e at
        least {unit}, so it is a whole number of units 2^{unit}, and so is any sum of them: the digits hold that
        integer exactly, {digit_bits} bits per int64, which has room for 2^{63 - digit_bits} additions of
        {digit_bits}-bit parts before a carry must move bits up. Blue: a digit in its range, [0, 2^{digit_bits})
        (the last: either sign); orange: one the carry must fix. The right shift of a negative int64 rounds down,
        so -{value:g} leaves 0x{(1 << digit_bits) - 1:X} in every digit above it and -1 in the last. The kernel's
        flush (reduce.cuh) places a double the same way: shift = {k_expr} = {k_shift} for {value:g}, with a
        {k_m.bit_length()}-bit m: the same integer, the same bits.""", width=140)


def small_n_chart(table, step12_limit=None):
    rows = [r for r in table.rows if r["type"] == "int32"]
    wanted = (("step12_small_n", SERIES_STYLE[0]), ("cub", CUB_STYLE), ("read_probe", PROBE_STYLE))
    times = {step: [(x, y * 1000) for x, y in points_of(table, rows, step, "time_median_ms")] for step, _ in wanted}
    for step, points in times.items():
        require(points, f"{table.name}: no int32 rows of {step}", FigureError)
    all_points, tile = [p for points in times.values() for p in points], CUB_TILE_THREADS * CUB_TILE_ITEMS
    chart = LogChart("Step 12: time against n, int32 sum", stamp_line(table), "n (elements, log scale)",
                     "median time per call (µs, log scale)", [x for x, _ in all_points], [y for _, y in all_points])
    chart.svg.rect(chart.left, chart.top, chart.px(tile) - chart.left, chart.bottom - chart.top, fill="#f5f5f5",
                   stroke="none")
    chart.svg.items.insert(0, chart.svg.items.pop())  # the shading under the grid
    for step, style in wanted:
        chart.series(step_label(step), times[step], style, width=2.2 if step != "step12_small_n" else 2)
    chart.rule(tile, f"n = {tile:,}", True)
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


STEP11, STEP12 = "step11_any_operator", "step12_small_n"
PART_SERIES = {STEP11: ("step 11", SERIES_STYLE[1]), STEP12: ("step 12", SERIES_STYLE[0]),
               "step12_shuffle_warps": ("step 12, no instruction", SERIES_STYLE[2]),
               "step12_split_warp_tree": ("step 12, no __syncwarp()", SERIES_STYLE[3]),
               "cub": ("CUB DeviceReduce::Sum", CUB_STYLE)}
# Step 12's parts, each drawn over the sizes where it acts: (figure, results file, type, steps, lowest and highest
# log2 n, title, the lines beside the legend)
STEP12_PARTS = [
    ("part1_block", "sweep.csv", "int32", (STEP11, STEP12), 4, 14, "Part 1: one block of just enough warps",
     ["Below the curves: the threads of", "step 12's one block (small_block);", "step 11 always launches the block."]),
    ("part2_loads", "sweep.csv", "int32", (STEP11, STEP12, "cub"), 4, 14, "Part 2: every load at once, no loop",
     ["CUB, below one tile: one load per", "thread per trip of its loop.", "Step 12: all loads issued,", "then the additions."]),
    ("part3_trees", "step12_variants.csv", "float32", (STEP11, "step12_split_warp_tree"), 12, 20,
     "Part 3: trees instead of chains (float32)",
     ["float32 has no warp instruction;", "without the __syncwarp(), step 12", "above one tile is step 11", "with part 3 only."]),
    ("part4_instruction", "step12_variants.csv", "int32", (STEP11, "step12_shuffle_warps", STEP12), 12, 20,
     "Part 4: one instruction for a warp of 32-bit integers (int32)",
     ["step 12 without the instruction:", "the shuffles of step 11 in", "every warp tree (a variant)."]),
    ("part5_whole_warp", "step12_variants.csv", "float32", (STEP11, "step12_split_warp_tree", STEP12), 12, 20,
     "Part 5: the whole warp before the second tree (float32)",
     ["step 12 without the __syncwarp():", "its second tree keeps the", "path for a split warp (a variant)."]),
]


def small_block_threads(evidence, relpath, n, block):
    """The threads of step 12's one block for n, from small_block's lines (a power of two from 32, at most block)."""
    per = evidence.find(relpath, "const std::size_t threads = reduction::ceil_div(n, $per);", "small_block's count")
    evidence.find(relpath, "int small = 32;\nwhile (small < block && static_cast<std::size_t>(small) < threads) small *= 2;",
                  "small_block's rounding")
    rules = vector_rules(evidence, relpath)
    threads = -(-n // evaluate(per["per"], {"loads_per_iteration": rules["loads"], "vector_bytes": rules["bytes"]},
                               f"{relpath}, small_block"))
    small = 32
    while small < block and small < threads:
        small *= 2
    return small


def part_chart(table, type_name, wanted, low, high, title, notes, tile, threads=None):
    rows = [r for r in table.rows if r["type"] == type_name and low <= int(r["n"]).bit_length() - 1 <= high]
    times = {step: [(x, y * 1000) for x, y in points_of(table, rows, step, "time_median_ms")] for step in wanted}
    for step, points in times.items():
        require(points, f"{table.name}: no {type_name} rows of {step} from 2^{low} to 2^{high}", FigureError)
    ys = [y for points in times.values() for _, y in points]
    chart = LogChart(f"Step 12, {title}", stamp_line(table), "n (elements, log scale)",
                     "median time per call (µs, linear scale)", [2 ** low, 2 ** high], ys, linear_y=True)
    if tile <= 2 ** high:
        chart.svg.rect(chart.left, chart.top, chart.px(min(tile, 2 ** high)) - chart.left, chart.bottom - chart.top,
                       fill="#f5f5f5", stroke="none")
        chart.svg.items.insert(0, chart.svg.items.pop())  # the shading under the grid
        chart.rule(tile, f"one tile: {tile:,}", True)
    for step in wanted:
        label, style = PART_SERIES[step]
        chart.series(label, times[step], style, width=2.2 if step == "cub" else 2)
    for n, count in threads or []:
        chart.svg.text(chart.px(n), chart.bottom - 8, str(count), size=10, anchor="middle", fill=GREY)
    chart.legend_y += 10
    for line in notes:
        chart.svg.text(chart.right + 16, chart.legend_y, line, size=10, fill=GREY)
        chart.legend_y += 14
    return chart.svg


def step12_part_figures(root, evidence, relpath, limit):
    """[(relpath, svg, the results file drawn from)] of step 12's five parts, from results/h100."""
    results, out = Results(root / "results" / "h100"), []
    for name, csv_name, type_name, wanted, low, high, title, notes in STEP12_PARTS:
        require((root / "results" / "h100" / csv_name).is_file(), f"results/h100/{csv_name}: file not found (step12's "
                f"{name}.svg is drawn from it)", FigureError)
        table = results.compare(csv_name) if csv_name == "sweep.csv" else results.table(
            csv_name, ("type", "n", "step", "time_median_ms"), "bench/variants.py")
        threads = None
        if name == "part1_block":
            block = int(table.stamp["block"])
            threads = [(2 ** e, small_block_threads(evidence, relpath, 2 ** e, block)) for e in range(low, high + 1)
                       if 2 ** e <= limit]
        out.append((f"step12_small_n/figures/{name}.svg", part_chart(table, type_name, wanted, low, high, title, notes,
                                                                     limit, threads), f"results/h100/{csv_name}"))
    return out


# The float64 split's example: 8 values of a thread's loop, exponents within the window, significands of 53 bits.
SPLIT_EXPONENTS = [0, -1, -9, -18, -26, -33, -40, -47]


def split_figure(evidence, relpath):
    """Step 14's float64 split: 8 values cut at 2^-53 sigma into parts and rests, and the two exact sums."""
    values = evidence.number(relpath, "static constexpr bool splits = sizeof(T) == 8 && Count * Vector<T>::width >= "
                             "$values;", "the float64 split's group")
    log2 = evidence.find(relpath, "constexpr int log2_values = values == 16 ? 4 : $log2;", "log2 of 8 values")
    log2_values = evaluate(log2["log2"], {}, f"{relpath}, log2_values")
    require(1 << log2_values == values, f"{relpath}: log2_values = {log2_values} for {values} values", FigureError)
    w = evidence.find(relpath, "constexpr int window = Layout::precision - $window;", "the split's window")
    window = evaluate("53 - " + w["window"], {"log2_values": log2_values}, f"{relpath}, the split's window")
    a = evidence.find(relpath, "const int sigma_field = top + $above;", "sigma's exponent field")
    above = evaluate(a["above"], {"log2_values": log2_values}, f"{relpath}, sigma_field")
    for shape, what in (("const double part = __dsub_rn(__dadd_rn(sigma, x), sigma);", "the part"),
                        ("parts = __dadd_rn(parts, part);", "the parts' sum"),
                        ("rests = __dadd_rn(rests, __dsub_rn(x, part));", "the rests' sum"),
                        ("add_exact(parts);", "the parts' sum into high + low"),
                        ("add_exact(rests);", "the rests' sum into high + low")):
        evidence.find(relpath, shape, what)
    require(len(SPLIT_EXPONENTS) == values and max(SPLIT_EXPONENTS) - min(SPLIT_EXPONENTS) <= window,
            f"the figure's {len(SPLIT_EXPONENTS)} values do not fit a group of {values} within {window} binades",
            FigureError)
    top = max(SPLIT_EXPONENTS)  # every value below 2^(top + 1)
    sigma_exponent = top + above
    sigma, cut = 2.0 ** sigma_exponent, sigma_exponent - 53  # parts: whole numbers of 2^cut; rests: at most that
    state, xs = 12345, []
    for k, e in enumerate(SPLIT_EXPONENTS):  # a fixed 52-bit fraction each (an LCG), alternating signs
        state = (6364136223846793005 * state + 1442695040888963407) % (1 << 64)
        xs.append((-1) ** k * math.ldexp(1 + (state >> 12) / 2 ** 52, e))
    parts, rests, part_sum, rest_sum = [], [], 0.0, 0.0
    for x in xs:  # the kernel's order and operations, in Python's IEEE doubles (round to nearest, ties to even)
        part = (sigma + x) - sigma
        parts.append(part), rests.append(x - part)
        part_sum, rest_sum = part_sum + part, rest_sum + (x - part)
    for x, part, rest in zip(xs, parts, rests):
        require(Fraction(part) + Fraction(rest) == Fraction(x) and Fraction(part) % Fraction(2) ** cut == 0 and
                abs(rest) <= 2.0 ** cut, f"{relpath}: the split of {x!r} at sigma = 2^{sigma_exponent} is not exact",
                FigureError)
    require(Fraction(part_sum) == sum(map(Fraction, parts)) and Fraction(rest_sum) == sum(map(Fraction, rests)),
            f"{relpath}: the parts' or the rests' sum of the figure's values is not exact", FigureError)
    low = min(SPLIT_EXPONENTS) - 52  # the smallest value's last bit: the unit of every rest
    left, bw, high = 190, 6, sigma_exponent  # one column per bit, 2^high .. 2^low
    columns = high - low + 1
    svg = Svg(left + columns * bw + 250, None, "Step 14: float64 values split at sigma, then two exact sums",
              f"{values} values (log2_values = {log2_values}) within window = 53 - {w['window']} = {window} binades; "
              f"sigma = 2^(top + {a['above']}) = 2^{sigma_exponent}, top = {top}: every value below 2^{top + 1}")

    def x_of(bit):  # the left edge of bit `bit`'s column
        return left + (high - bit) * bw

    def bar(y, first, last, fill, stroke):  # bits first (highest) .. last
        svg.rect(x_of(first), y, (first - last + 1) * bw, 14, fill=fill, stroke=stroke)

    y = 84
    for bit in range(high, low - 1, -1):
        if bit in (high, cut, low) or bit % 10 == 0 and min(abs(bit - b) for b in (high, cut, low)) > 3:
            svg.line(x_of(bit) + bw / 2, y, x_of(bit) + bw / 2, y + 5, stroke=GREY)
            svg.text(x_of(bit) + bw / 2, y - 3, f"2^{bit}", size=9, anchor="middle", fill=GREY)
    y += 16
    svg.text(16, y + 11, "x (53 bits each)", size=11, weight="bold")
    for x, part, rest in zip(xs, parts, rests):
        e = math.frexp(abs(x))[1] - 1
        if e >= cut:
            bar(y, e, cut, PALE_BLUE, BLUE)
        bar(y, min(e, cut - 1), e - 52, PALE_ORANGE, ORANGE)
        svg.text(left + columns * bw + 12, y + 11, f"{x:+.4e} = {part:+.4e} {'+' if rest >= 0 else '-'} "
                 f"{abs(rest):.2e}", size=10)
        y += 20
    svg.line(x_of(cut), 96, x_of(cut), y + 2, stroke=VERMILLION, width=1.4, dash="4 3")
    svg.text(x_of(cut) - 4, y + 14, f"part = (sigma + x) - sigma: a whole number of 2^-53 sigma = 2^{cut}",
             size=10, anchor="end", fill=BLUE)
    svg.text(x_of(cut) + 4, y + 14, f"rest = x - part: at most 2^{cut} in size", size=10, fill=VERMILLION)
    y += 30
    part_top = math.frexp(abs(part_sum))[1] - 1
    rest_top = math.frexp(abs(rest_sum))[1] - 1
    svg.text(16, y + 11, "parts' sum", size=11, weight="bold")
    bar(y, part_top, cut, PALE_BLUE, BLUE)
    svg.text(left + columns * bw + 12, y + 11, f"{part_sum:+.6e}: at most sigma, {part_top - cut + 1} bits: exact",
             size=10)
    y += 22
    svg.text(16, y + 11, "rests' sum", size=11, weight="bold")
    bar(y, rest_top, low, PALE_ORANGE, ORANGE)
    svg.text(left + columns * bw + 12, y + 11, f"{rest_sum:+.6e}: {rest_top - low + 1} bits down to 2^{low}: exact",
             size=10)
    y += 34
    return svg.caption(y, f"""Each row is one value's 53 significant bits on a common scale. sigma = 2^(top + {above}),
        {2 ** above} times the largest value's power of two, cuts each value at 2^{cut}: the part (blue) keeps the bits above,
        the rest (orange) what is below, and both are exact. The {values} parts add up to at most sigma: at most 53
        bits, so their double sum is exact. The rests are whole numbers of the smallest value's last bit, 2^{low},
        and add up to at most {values} x 2^{cut}: at most 2^(top - bottom + 6) such units, 53 bits while the
        values lie within {window} binades. The two sums enter high + low with two add_exact, where the {values}
        values took {2 * values} two_sums.""", width=150)


LESSON_FIGURES = [  # step, name, drawn by (from the step's reduce.cuh), title if shared
    ("step01_interleaved", "tree", tree_figure, "Step 01: interleaved addressing, the working threads scattered"),
    ("step02_nondivergent", "tree", tree_figure, "Step 02: the same pairs, the working threads packed first"),
    ("step02_nondivergent", "banks", banks_figure, "Step 02: a warp's shared-memory reads against the 32 banks"),
    ("step03_sequential", "tree", tree_figure, "Step 03: sequential addressing, the upper half folded onto the lower"),
    ("step03_sequential", "banks", banks_figure, "Step 03: a warp's shared-memory reads against the 32 banks"),
    ("step04_first_add", "first_add", first_add_figure), ("step05_warp_unroll", "warp_unroll", warp_unroll_figure),
    ("step06_template", "unrolled", unrolled_figure), ("step07_multi_level", "grid_stride", grid_stride_figure),
    ("step08_warp_shuffle", "shuffle", shuffle_figure), ("step09_vector_loads", "vector_loads", vector_loads_figure),
    ("step10_single_pass", "slots", slots_figure), ("step11_any_operator", "identity", identity_figure),
    ("step13_bulk_copies", "bulk_copies", bulk_copies_figure), ("step13_bulk_copies", "ring", ring_figure),
    ("step14_exact_sum", "digits", digits_figure), ("step14_exact_sum", "split", split_figure),
    ("step15_multi_gpu", "shards", shards_figure)]


def every_figure(root):
    root, out = Path(root), []
    for step, name, draw, *title in LESSON_FIGURES:
        evidence = Evidence(root)
        svg = draw(evidence, f"{step}/reduce.cuh", *title)
        out.append((f"{step}/figures/{name}.svg", svg.render(evidence.fingerprint())))
    sweep, relpath, evidence = "results/h100/sweep.csv", "step12_small_n/reduce.cuh", Evidence(root)
    require((root / sweep).is_file(), f"{sweep}: file not found (step12's small_n.svg is drawn from it)", FigureError)
    table = Results(root / "results" / "h100").compare("sweep.csv")
    require(table.stamp.get("block", "").isdigit(), f"{sweep}: expected a '# block: N' line in its stamp", FigureError)
    tile = evidence.find(relpath, "tile_elements(int block) { return $expr; }")  # Step 12's one-tile limit
    evidence.find(relpath, "const bool one_tile = grid == 1;")
    rules = vector_rules(evidence, relpath)
    limit = evaluate(tile["expr"], {"block": int(table.stamp["block"]), "loads_per_iteration": rules["loads"],
                                    "vector_bytes": rules["bytes"]}, f"{relpath}, tile_elements")
    out.append(("step12_small_n/figures/small_n.svg", small_n_chart(table, limit).render(
        f"{csv_fingerprint(root / sweep, sweep)}; {evidence.fingerprint()}")))
    for path, svg, source in step12_part_figures(root, evidence, relpath, limit):
        out.append((path, svg.render(f"{csv_fingerprint(root / source, source)}; {evidence.fingerprint()}")))
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
    except ResultsError as error:  # a FigureError too
        print(f"error: {error}", file=sys.stderr)
        return 2
    stale = []
    for relpath, text in figures:
        path = args.root / relpath
        current = path.read_text(encoding="utf-8") if path.is_file() else None
        if current != text and args.check:
            stale.append(relpath)
            print(f"error: {relpath} {'is missing' if current is None else 'differs from its sources'}", file=sys.stderr)
        elif current != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {relpath}")
    if stale:
        print("run: python3 -m render.figures", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
