"""Each lesson's own analyses: the blocks only one lesson's pages use, built from the measurements."""

from pathlib import Path

from course import steps
from .blocks import gpu_rows, ncu_values
from .tables import (CUB_STEP, Results, Sweep, describe, distinct, gpu_label, markdown_table, parse_selector,
                     read_table, require, rows_where, select_row, short_stamp, size_text, stamped_table, tie_rule,
                     versus_text)

SCHEDULERS_PER_SM = 4  # on compute capability 7.0 to 9.0, each issuing one warp instruction per cycle at most
SM_CLOCK_METRIC = "sm__cycles_elapsed.avg.per_second"  # the SM clock during the profiled launch, Hz
LOADED_LATENCY = "loaded_latency.csv"
PROBE_PATTERNS = ("loop", "loop8", "loop_x2", "strip_x5", "run", "run_x5", "bulk")
GPU_COUNTS = {2: "two", 4: "four", 8: "eight"}  # K in words, in the scaling sentence
BUNDLES = read_table(Path(__file__).with_name("bundles.csv"))  # steps 07, 10, 12's changes, the rows measuring each
BUNDLE_FILES = list(dict.fromkeys(row["file"] for row in BUNDLES.rows if row["file"]))
STEP12_PARTS = read_table(Path(__file__).with_name("step12_parts.csv"))  # step 12's parts, each where it acts


def render_issue_floor(results, step, context):
    values, table = ncu_values(results, (), context)
    for metric in ("smsp__inst_executed.sum", "gpu__time_duration.sum"):
        require((step, metric) in values, f"{context}: {table.name} has no {metric} for '{step}'")
    headline = results.table("headline.csv").stamp if results.has("headline.csv") else {}
    sms = table.stamp.get("sms") or headline.get("sms")  # the SM count from the stamp, else headline.csv's
    require(sms is not None, f"{table.name}: no 'sms' in its stamp or in headline.csv's")
    require(sms.isdigit(), f"{table.name}: the stamp's sms is not a number")
    schedulers = int(sms) * SCHEDULERS_PER_SM
    cycles = values[(step, "smsp__inst_executed.sum")] / schedulers
    duration_us = values[(step, "gpu__time_duration.sum")] / 1000
    text, clock = f"at least {cycles:,.0f} cycles (instructions / {schedulers})", values.get((step, SM_CLOCK_METRIC))
    if clock is None:
        return (text + f". The profiler measured {duration_us:.0f} us for that launch, at a clock this ncu.csv does "
                f"not record (tools/profile_steps.sh now collects it, `{SM_CLOCK_METRIC}`), so the floor is not "
                f"turned into microseconds here.\n")
    require(1e8 <= clock <= 1e10, f"{context}: {table.name}: {SM_CLOCK_METRIC} of '{step}' is {clock:g}, not a "
                                  f"clock in Hz (tools/profile_steps.sh asks ncu for base units)")  # cycles per second
    floor_us = cycles / clock * 1e6
    return (text + f", or {floor_us:.0f} us at the {clock / 1e9:.2f} GHz SM clock ncu ran that launch at "
            f"(`{SM_CLOCK_METRIC}`): {floor_us / duration_us * 100:.0f} % of the {duration_us:.0f} us the "
            f"profiler measured for it.\n")


def littles_law_model(results):
    table = results.table(LOADED_LATENCY, ["loads", "blocks_per_sm", "streaming_threads", "bytes_in_flight", "gbps",
                                           "latency_ns", "status"], "bench/ablation/loaded_latency.cu")
    bad = ", ".join(describe(row) for row in table.rows if row["status"] != "ok")
    require(not bad, f"{table.name}: rows not measured under load: {bad}")
    idle, loaded = rows_where(table, loads="0"), [row for row in table.rows if row["loads"] != "0"]
    require(len(idle) == 1 and loaded, f"{table.name}: expected one idle row (loads 0) and rows under load")
    full = max(int(row["blocks_per_sm"]) for row in loaded)
    by_loads = {int(row["loads"]): row for row in loaded if int(row["blocks_per_sm"]) == full}
    best = max(by_loads.values(), key=lambda row: table.number(row, "gbps"))
    best_gbps, best_ns = table.number(best, "gbps"), table.number(best, "latency_ns")
    rows = [(loads, in_flight, latency, gbps, in_flight / latency, min(in_flight / latency, best_gbps))  # B/ns: GB/s
            for loads, row in sorted(by_loads.items()) for in_flight, latency, gbps in [
                [table.number(row, c) for c in ("bytes_in_flight", "latency_ns", "gbps")]]]
    return rows, dict(best_gbps=best_gbps, best_ns=best_ns, best_loads=int(best["loads"]), needed=best_gbps * best_ns,
                      idle_ns=table.number(idle[0], "latency_ns"), threads=int(best["streaming_threads"]),
                      stamp=table.stamp)


def not_measured_yet(results):
    idle = select_row(results.table("dram_latency.csv"), {"footprint_bytes": "max"}, "dram_latency.csv")
    return (f"*Not measured yet*: `{LOADED_LATENCY}` does not exist in this results folder (`bench/reproduce.sh "
            f"--only loaded_latency`). Until it does, the only latency measured is the idle one, "
            f"{float(idle['latency_ns']):.0f} ns (`dram_latency.csv`), a floor for the latency under load.\n")


def render_littles_law(results, context=""):
    if not results.has(LOADED_LATENCY):
        return not_measured_yet(results)
    rows, facts = littles_law_model(results)
    step07 = results.table("step07_loads.csv")
    largest = str(max(int(row["n"]) for row in step07.rows))
    measured = {int(row["loads"]): step07.number(row, "gbps") for row in rows_where(step07, type="int32", n=largest)}
    cells = [[loads, f"{in_flight / 1e6:.1f}"] + [f"{v:.0f}" for v in rest] + [f"{measured[loads]:.0f}" if loads in
             measured else "-"] for loads, in_flight, *rest in rows]
    checks = [measured[row[0]] / row[5] for row in rows if row[0] in measured]
    out = [stamped_table(facts["stamp"], ["loads", "MB in flight (at most)", "loaded latency, ns", "stream GB/s",
                                 "in flight / latency, GB/s", "model GB/s", f"step 07 GB/s, int32 {size_text(largest)}"],
                         "r" * 7, cells),
           f"\nThe most the memory delivered is {facts['best_gbps']:.0f} GB/s (with {facts['best_loads']} loads), "
           f"at a loaded latency of {facts['best_ns']:.0f} ns, {facts['best_ns'] / facts['idle_ns']:.1f} times the "
           f"idle {facts['idle_ns']:.0f} ns: Little's law needs {facts['needed'] / 1e6:.1f} MB in flight for it, "
           f"{facts['needed'] / facts['threads']:.0f} bytes per resident thread. The model is min(that bandwidth, "
           f"bytes in flight / loaded latency)."]
    short, enough = ([str(row[0]) for row in rows if row[0] in measured and (row[4] >= facts["best_gbps"]) == want]
                     for want in (False, True))
    if short or enough:
        out.append(f" By the model, {' and '.join(short)} loads per iteration keep too few bytes in flight for it"
                   + (f", and {' and '.join(enough)} enough." if enough else ".") if short else
                   f" By the model, {' and '.join(enough)} loads per iteration all keep enough bytes in flight for it.")
    if checks:
        out.append(f" Step 07's measured bandwidth is {min(checks) * 100:.0f} to {max(checks) * 100:.0f} % of the "
                   f"model's.")
    return "".join(out) + "\n"


def render_littles_law_need(results, per_thread, context):
    require(per_thread.isdigit(), f"{context}: littles-law-need takes the bytes one thread keeps in flight")
    if not results.has(LOADED_LATENCY):
        return not_measured_yet(results)
    facts = littles_law_model(results)[1]
    need, per_thread = facts["needed"] / facts["threads"], int(per_thread)
    verdict = "more than" if per_thread > need * 1.05 else "less than" if per_thread < need * 0.95 else "about"
    return (f"Little's law with the latency measured under load (step 07's lesson, `{LOADED_LATENCY}`): "
            f"{facts['best_gbps']:.0f} GB/s at {facts['best_ns']:.0f} ns needs {facts['needed'] / 1e6:.1f} MB in "
            f"flight, {need:.0f} bytes per resident thread. {per_thread} bytes per thread is {verdict} that.\n")


def render_alternatives_verdict(results, name, reference, context):
    variants = Sweep(results.measured(name))
    ties, rule = tie_rule(results, {t: [reference, steps.find(reference).previous] for t in variants.types})
    return "\n".join([f"Each against {reference}, by per-call median ({rule}):\n"] + [
        f"- `{step}`: " + "; ".join(f"{t} " + versus_text(variants.ratios(t, reference, step), ties[t])
                                    for t in variants.types) + "." for step in distinct(variants.table.rows, "step")
        if step != reference]) + "\n"


def render_sweep_table(results, *args, context):
    options, shown = parse_selector([a for a in args if "=" in a], context), [a for a in args if "=" not in a]
    require(shown, f"{context}: sweep-table takes one step name or more")
    upto = options.pop("upto", None)
    require(not options, f"{context}: sweep-table understands only upto=, not {', '.join(options)}")
    sweep = Sweep(results.compare("sweep.csv"))
    def us(t, step, n):
        require((t, step, n) in sweep.times, f"{context}: sweep.csv has no row for {step}, {t}, n = {n}")
        return sweep.times[(t, step, n)] * 1000
    headers = ["n"] + [h for t in sweep.types
                       for h in [f"{t} {s}, us" for s in shown + [CUB_STEP]] + [f"{t} CUB / {shown[0]}"]]
    cells = [[size_text(n)] + [cell for t in sweep.types for cell in [f"{us(t, s, n):.2f}" for s in shown + [CUB_STEP]]
                               + [f"{us(t, CUB_STEP, n) / us(t, shown[0], n):.3f}"]]
             for n in sorted({n for (_, _, n) in sweep.times if upto is None or n <= int(upto)})]
    return stamped_table(sweep.table.stamp, headers, "l" + "r" * (len(headers) - 1), cells)


def render_bulk_result(results, step, from_log2, context):
    previous = steps.previous(steps.find(step)).folder
    cells, stamps = [], []
    for gpu in results.gpus("sweep.csv"):
        sweep = Sweep(gpu.compare("sweep.csv"))
        for n in (n for n in sweep.sizes.get("int32", []) if n >= 1 << int(from_log2)):
            times = {s: sweep.times.get(("int32", s, n)) for s in (step, previous, CUB_STEP, "read_probe")}
            missing = ", ".join(s for s, t in times.items() if t is None)
            require(not missing, f"{context}: {gpu_label(gpu)} sweep.csv has no int32 row at n = {n} for {missing}")
            cells.append([gpu_label(gpu), size_text(n), f"{times[step] * 1000:.1f}"]
                         + [f"{times[s] / times[step]:.3f}" for s in (previous, CUB_STEP, "read_probe")])
        stamps.append(f"{gpu_label(gpu)}: {short_stamp(sweep.table.stamp)}")
    return gpu_rows(cells, stamps, ["× previous step", "× CUB", "× read probe"], "\nint32, L2 warm (far larger "
                    "than the L2), per-call median. × previous step, × CUB, × read probe: their time over this step's "
                    "(above 1: this step is faster; the probe reads and adds nothing).\n")


def read_patterns(results, type_name, low, high, columns, align, cells, note, context):
    gpus = {}
    for gpu in results.gpus("read_patterns.csv"):
        table = gpu.table("read_patterns.csv", ["type", "n", "pattern", "time_median_us", "verified"], "read_patterns")
        bad = [describe(r) for r in table.rows if r["verified"] == "FAIL"]
        require(not bad, f"{context}: {table.name} holds a wrong sum: {bad[0] if bad else ''}")
        gpus[gpu_label(gpu)] = table
    sizes = sorted({int(r["n"]) for t in gpus.values() for r in t.rows
                    if r["type"] == type_name and low <= int(r["n"]) <= high})
    rows = [[size_text(n)] + [cell for table in gpus.values() for cell in cells({
        r["pattern"]: table.number(r, "time_median_us") for r in rows_where(table, type=type_name, n=str(n))},
        table, n)] for n in sizes]
    return (markdown_table(["n"] + [f"{label} {c}" for label in gpus for c in columns], "l" + align * len(gpus), rows)
            + note + "".join(f"\n{label}: {short_stamp(table.stamp)}\n" for label, table in gpus.items()))


def render_read_patterns(results, type_name, from_log2, context):
    def cells(times, table, n):
        measured = {p: times[p] for p in PROBE_PATTERNS if p in times}
        require("loop" in measured, f"{context}: {table.name} has no {type_name} loop row at n = {n}")
        best = min(measured, key=measured.get)
        probe = min(measured[p] for p in ("loop", "bulk") if p in measured)
        return [best, f"{measured[best]:.1f}", f"{probe / measured[best]:.3f}"]
    picked = []  # what each GPU's column picks from: the patterns its file measured
    for gpu in results.gpus("read_patterns.csv"):
        have = {r["pattern"] for r in rows_where(gpu.table("read_patterns.csv"), type=type_name)}
        absent = [p for p in PROBE_PATTERNS if p not in have]
        picked.append(f"{gpu_label(gpu)}: the fastest of " + (f"all {len(PROBE_PATTERNS)}" if not absent else
                      f"{len(PROBE_PATTERNS) - len(absent)}, its file having no {' or '.join(absent)} rows"))
    return read_patterns(results, type_name, 1 << int(from_log2), float("inf"), ("fastest", "µs", "probe / fastest"),
                         "lrr", cells, f"\n{type_name}, L2 warm, per-call median of each pattern "
                         f"({', '.join(PROBE_PATTERNS)}: bench/ablation/read_patterns.cu says what each is; "
                         f"{'; '.join(picked)}). probe / "
                         "fastest: the time of the faster of the course probe's two patterns (loop, bulk) over the "
                         "fastest pattern's (1.000: one of them is it).\n", context)


def render_cub_pattern(results, type_name, from_log2, context):
    # CUB's order of reads (strip_x5) beside step 12's loop, contiguous runs and the bulk copies, on each GPU
    # whose read_patterns.csv has the strip_x5 row: what CUB's speed at large n comes from.
    shown = {"loop": "loop (step 12)", "strip_x5": "strip_x5 (CUB's order and grid)", "run_x5": "run_x5",
             "cub": "CUB", "bulk": "bulk (step 13)"}
    cells, stamps, facts = [], [], []
    for gpu in results.gpus("read_patterns.csv"):
        table = gpu.table("read_patterns.csv", ["type", "n", "pattern", "time_median_us"], "read_patterns")
        times = {(int(r["n"]), r["pattern"]): table.number(r, "time_median_us") for r in rows_where(table, type=type_name)}
        sizes = sorted({n for (n, p) in times if p == "strip_x5" and n >= 1 << int(from_log2)})
        if not sizes:
            continue
        for n in sizes:
            missing = ", ".join(p for p in shown if (n, p) not in times)
            require(not missing, f"{context}: {table.name} has no {type_name} row at n = {n} for {missing}")
            cells.append([gpu_label(gpu), size_text(n)] + [f"{times[(n, p)]:.1f}" for p in shown])
        n = sizes[-1]
        def percent(a, b):
            return f"{100 * (times[(n, a)] / times[(n, b)] - 1):+.1f} %"
        facts.append(f"{gpu_label(gpu)} at {size_text(n)}: strip_x5 {percent('strip_x5', 'loop')} against loop, "
                     f"run_x5 {percent('run_x5', 'strip_x5')} and bulk {percent('bulk', 'strip_x5')} against strip_x5")
        stamps.append(f"{gpu_label(gpu)}: {short_stamp(table.stamp)}")
    require(cells, f"{context}: no read_patterns.csv has {type_name} strip_x5 rows from 2^{from_log2}")
    return (markdown_table(["GPU", "n"] + [f"{label}, µs" for label in shown.values()], "ll" + "r" * len(shown), cells)
            + f"\n{type_name}, L2 warm, per-call median. " + "; ".join(facts) + " (below 0: faster).\n"
            + "".join(f"\n{stamp}\n" for stamp in stamps))


def render_combine_cost(results, type_name, from_log2, to_log2, context):
    shown = ("step12", "step12_no_wait", "step12_read_no_wait") + (
        ("step12_one_atomic",) if type_name == "int32" else ()) + ("step12_cluster8", "step12_cluster16")
    labels = {"step12_no_wait": "no wait", "step12_read_no_wait": "reads, no wait", "step12_one_atomic": "one atomic",
              "step12_cluster8": "clusters of 8", "step12_cluster16": "clusters of 16"}
    def cells(times, table, n):
        missing = ", ".join(p for p in shown if p not in times)
        require(not missing, f"{context}: {table.name} has no {type_name} row at n = {n} for {missing}")
        return [f"{times['step12']:.2f}"] + [f"{times[p] - times['step12']:+.2f}" for p in shown[1:]]
    return read_patterns(results, type_name, 1 << int(from_log2), 1 << int(to_log2), ["step 12 µs"] + [
        labels[p] for p in shown[1:]], "r" * len(shown), cells, f"\n{type_name}, L2 warm, per-call median. The other "
        "columns: that kernel's time minus step 12's, in µs (below 0: faster). no wait: step 12 whose last block posts "
        "its partial and leaves (a wrong sum): step 12 without its combine. reads, no wait: its last block still reads "
        "the slots once and runs its second tree, but does not wait for them to fill (a wrong sum): step 12 without "
        "the wait alone." + (" one atomic: every block adds its partial and 1 to a count in one 64-bit atomic, and the "
        "block that brings the count to the grid writes the sum (integer sums only)." if "step12_one_atomic" in shown
        else "") + " clusters: the partials added through distributed shared memory, one slot per cluster.\n", context)


def render_multigpu_step15(results, folder, context):
    table, runs = Results(results.directory.parent / folder).table("step15.csv"), {}
    for row in table.rows:
        k = int(row["gpus"])
        form = "process" if k == 1 else "from GPU 0" if row["from_one_gpu"] == "1" else row["launch"]
        runs[(row["type"], int(row["n"]), k, form)] = table.number(row, "time_median_ms")
        require(row["status"] == "PASS", f"{table.name}: a run did not pass: {describe(row)}")
    counts, largest = sorted({k for (_, _, k, _) in runs if k > 1}), max((n for (_, n, _, _) in runs), default=0)
    require(counts and any(k == 1 for (_, _, k, _) in runs), f"{table.name}: needs runs on 1 GPU and on more than one")
    forms = tuple(f for f in ("process", "mpi", "from GPU 0") if any(key[3] == f for key in runs))  # those run
    headers = ["type", "n", "1 GPU, ms"] + [f"{k} GPUs, {f}, ms" for k in counts for f in forms] + [
        h for k in counts for h in (f"scaling (1 GPU / {k} GPUs)",
                                    "mpi / process" if len(counts) == 1 else f"{k} GPUs: mpi / process")]
    cells, wins, facts = [], {}, []
    for type_name in dict.fromkeys(t for (t, _, _, _) in runs):
        for n in sorted({n for (t, n, _, _) in runs if t == type_name}):
            one = runs.get((type_name, n, 1, "process"))
            require(one is not None, f"{table.name}: {type_name} n = {n} lacks the 1-GPU run")
            row = [type_name, size_text(n), f"{one:.4f}"] + [
                f"{runs[(type_name, n, k, f)]:.4f}" if (type_name, n, k, f) in runs else "-"
                for k in counts for f in forms]
            for k in counts:
                process, mpi = runs.get((type_name, n, k, "process")), runs.get((type_name, n, k, "mpi"))
                require(process is not None, f"{table.name}: {type_name} n = {n} lacks the one-process run on {k} GPUs")
                if one / process > 1:
                    wins.setdefault((type_name, k), n)
                row += [f"{one / process:.3f}", "-" if mpi is None else f"{mpi / process:.3f}"]
            cells.append(row)
        for k in counts:
            scaling = runs[(type_name, largest, 1, "process")] / runs[(type_name, largest, k, "process")]
            win = wins.get((type_name, k))
            facts.append(f"{type_name}: {scaling:.3f}x at {size_text(largest)}, {GPU_COUNTS.get(k, str(k))} "
                         f"GPUs faster from {size_text(win) if win else 'no measured size'} on"
                         + (" (the smallest measured size where they are)" if win else ""))
    return (stamped_table(table.stamp, headers, "ll" + "r" * (len(headers) - 2), cells)
            + "\nScaling: " + "; ".join(facts) + ".\n")


def render_multigpu_bend(results, folder, type_name, to_log2, context):
    # Where the scaling bends: at K = every GPU of the folder, the time beyond one GPU's time / K beside one
    # all-reduce of 4 bytes (allreduce.csv), both per-call medians timed on the GPUs.
    where = Results(results.directory.parent / folder)
    table, allreduce = where.table("step15.csv"), where.table("allreduce.csv")
    k = max(int(row["gpus"]) for row in table.rows)
    times = {(int(row["n"]), int(row["gpus"])): table.number(row, "time_median_ms") * 1000
             for row in rows_where(table, type=type_name, from_one_gpu="0", launch="process")}
    latency = rows_where(allreduce, method="nccl", bytes="4")
    require(len(latency) == 1, f"{context}: {allreduce.name} needs one nccl row of 4 bytes")
    combine = allreduce.number(latency[0], "time_median_us")
    cells = []
    for n in sorted(n for (n, g) in times if g == k and n <= 1 << int(to_log2)):
        require((n, 1) in times, f"{context}: {table.name} has no 1-GPU {type_name} run at n = {n}")
        share = times[(n, 1)] / k
        cells.append([size_text(n), f"{times[(n, 1)]:.1f}", f"{times[(n, k)]:.1f}", f"{share:.1f}",
                      f"{times[(n, k)] - share:.1f}"])
    headers = ["n", "1 GPU, µs", f"{k} GPUs, µs", f"1 GPU / {k}, µs", f"{k} GPUs minus 1 GPU / {k}, µs"]
    return (stamped_table(table.stamp, headers, "l" + "r" * 4, cells)
            + f"\n{type_name}, one process, L2 warm, per-call median. One `ncclAllReduce` of 4 bytes on the same "
            f"{k} GPUs, alone: {combine:.1f} µs (allreduce.csv, per-call median, timed on the GPUs).\n")


def render_multigpu_allreduce(results, folder, context):
    table = Results(results.directory.parent / folder).table("allreduce.csv")
    rows, cells = {(row["method"], int(row["bytes"])): row for row in table.rows}, []
    for b in sorted({b for (_, b) in rows if (b & (b - 1)) == 0 and (b.bit_length() - 1) % 2 == 0}):
        nccl, naive = rows.get(("nccl", b)), rows.get(("naive", b))
        if nccl and naive:
            t_nccl, t_naive = table.number(nccl, "time_median_us"), table.number(naive, "time_median_us")
            size = next(f"{b // unit} {name}" for name, unit in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10),
                                                                 ("B", 1)) if b >= unit and b % unit == 0)
            cells.append([size, f"{t_nccl:.1f}", nccl["algbw_gbps"], nccl["busbw_gbps"], f"{t_naive:.1f}",
                          naive["algbw_gbps"], f"{t_naive / t_nccl:.2f}"])
    headers = ["bytes per GPU", "NCCL us", "NCCL algbw GB/s", "NCCL busbw GB/s", "naive us", "naive algbw GB/s",
               "NCCL / naive"]
    return (stamped_table(table.stamp, headers, "l" + "r" * 6, cells) +
            f"\nThe NVLink limit read from the machine (`nvidia-smi nvlink -s`, GPU 0, per direction): "
            f"{table.rows[0]['nvlink_gbps']} GB/s. NCCL / naive: the naive version's time divided by NCCL's "
            "(above 1: NCCL is faster).\n")


def render_multigpu_combine(results, folder, context):
    table = Results(results.directory.parent / folder).table("combine.csv")
    return stamped_table(table.stamp, table.columns, "lrl" + "r" * 4 + "l", [[row[c] or "-" for c in table.columns]
                                                                        for row in table.rows])


def bundle_shares(results, context, bundles=BUNDLES):
    shares = []
    for row in bundles.rows:
        if not row["file"]:  # the step's first share over its second
            first = next(i for i, r in enumerate(bundles.rows) if r["step"] == row["step"])
            shares.append(shares[first] / shares[first + 1])
            continue
        table = results.table(row["file"], ["time_median_ms"], "its script in bench/")
        common = parse_selector(row["rows"].split(), context)
        a, b = (select_row(table, dict(common, **parse_selector([row[which]], context)), context)
                for which in ("slower", "faster"))
        require("status" not in table.columns or {a["status"], b["status"]} == {"PASS"},
                f"{context}: {table.name}: a row compared did not verify ({describe(a)}; {describe(b)})")
        shares.append(table.number(a, "time_median_ms") / table.number(b, "time_median_ms"))
    return shares


def render_bundles(results, context=""):
    gpus, out = [results] + list(results.beside), []
    columns = [bundle_shares(gpu, context) for gpu in gpus]
    cells = [[f"`{row['step']}`", size_text(row["n"]), row["change"]] + [f"{column[i]:.2f}" for column in columns]
             for i, row in enumerate(BUNDLES.rows)]
    for gpu in gpus:  # where, when and from which files (bench/reproduce.sh writes each)
        stamps = [gpu.table(name).stamp for name in BUNDLE_FILES]
        commits = dict.fromkeys(f"`{s.get('commit', 'unknown')}`" for s in stamps)
        out.append(f"\n{gpu_label(gpu)}: {stamps[0].get('gpu', 'GPU not recorded')}; measured "
                   f"{', '.join(sorted({s.get('date_utc', '?')[:10] for s in stamps}))}; commit {', '.join(commits)}; "
                   f"{', '.join(BUNDLE_FILES)} (`bench/reproduce.sh`).\n")
    return ("Each change's speed-up: the median time per call without it over the time with it (above 1: the "
            "change made it faster), int32, L2 warm.\n\n"
            + markdown_table(["step", "n", "change", *(gpu_label(gpu) for gpu in gpus)], "lll" + "r" * len(gpus), cells)
            + "".join(out))


def render_multigpu_gap(results, folder, pair_folder, one_gpu_folder, type_name, log2, per_gpu_step=None, *, context):
    # Four GPUs against two at one size: each GPU's shard as one GPU sums it alone (one_gpu_folder's sweep.csv, the
    # step the GPUs ran: per_gpu_step if given, else step 15's previous), beside one all-reduce of 4 bytes on two
    # (pair_folder) and on four GPUs (folder).
    parent, n = results.directory.parent, 1 << int(log2)
    table = Results(parent / folder).table("step15.csv")
    times = {int(r["gpus"]): table.number(r, "time_median_ms") * 1000 for r in rows_where(
        table, type=type_name, n=str(n), from_one_gpu="0", launch="process")}
    require(2 in times and 4 in times, f"{context}: {table.name} needs {type_name} runs at n = {n} on 2 and 4 GPUs")
    previous = per_gpu_step or steps.previous(steps.find("step15_multi_gpu")).folder
    one = Results(parent / one_gpu_folder)
    sweep, l2 = Sweep(one.compare("sweep.csv")), one.compare("sweep.csv").stamp.get("l2_mib")
    shard = {}
    for k in (2, 4):
        key = (type_name, previous, n // k)
        require(key in sweep.times, f"{context}: {one_gpu_folder}/sweep.csv has no {previous} row at n = {n // k}")
        shard[k] = sweep.times[key] * 1000
    allreduce = {}
    for k, where in ((2, pair_folder), (4, folder)):
        rows = rows_where(Results(parent / where).table("allreduce.csv"), method="nccl", bytes="4", gpus=str(k))
        require(len(rows) == 1, f"{context}: {where}/allreduce.csv needs one nccl row of 4 bytes on {k} GPUs")
        allreduce[k] = float(rows[0]["time_median_us"])
    size = 4 if type_name in ("int32", "float32") else 8
    mib = {k: n // k * size >> 20 for k in (2, 4)}
    return (f"At {size_text(n)}, {type_name}: two GPUs take {times[2]:.1f} µs, four {times[4]:.1f} µs. Both shards "
            f"({mib[2]} and {mib[4]} MiB) fit in the {l2 or '?'} MiB L2; one GPU alone sums {size_text(n // 2)} "
            f"elements in {shard[2]:.1f} µs and {size_text(n // 4)} in {shard[4]:.1f} µs ({shard[2] - shard[4]:.1f} µs "
            f"saved by the smaller shard), while one all-reduce of 4 bytes alone takes {allreduce[2]:.1f} µs on two "
            f"GPUs and {allreduce[4]:.1f} µs on four ({allreduce[4] - allreduce[2]:.1f} µs more): "
            f"`{one_gpu_folder}/sweep.csv`, `{pair_folder}/allreduce.csv`, `{folder}/allreduce.csv`.\n")


def render_occupancy(results, *shown, context):
    # Per step: registers per thread, blocks per SM the registers allow, the grid and its waves (ncu.csv's launch of
    # int32 at its size): the occupancy facts a lesson's grid rests on, one row per step.
    require(shown, f"{context}: occupancy takes one step name or more")
    values, table = ncu_values(results, shown, context)
    metrics = ("launch__registers_per_thread", "launch__occupancy_limit_registers", "launch__grid_size",
               "launch__waves_per_multiprocessor")
    cells = []
    for step in shown:
        missing = [m for m in metrics if (step, m) not in values]
        require(not missing, f"{context}: {table.name} has no {', '.join(missing)} for '{step}'")
        registers, per_sm, grid, waves = (values[(step, m)] for m in metrics)
        cells.append([f"`{step}`", f"{registers:.0f}", f"{per_sm:.0f}", f"{grid:,.0f}", f"{waves:.2f}"])
    return stamped_table(table.stamp, ["step", "registers per thread", "blocks per SM (registers)", "grid",
                                       "waves"], "lrrrr", cells) + (
        "\nThe int32 kernel's launch as Nsight Compute saw it (`ncu.csv`): waves = the grid over the blocks that fit "
        "on the whole GPU at once; above 1, the blocks that did not fit start as others finish.\n")


def render_step12_parts(results, context=""):
    gpus = [results] + list(results.beside)
    columns = [bundle_shares(gpu, context, STEP12_PARTS) for gpu in gpus]
    cells = [[size_text(row["n"]), row["change"]] + [f"{column[i]:.2f}" for column in columns]
             for i, row in enumerate(STEP12_PARTS.rows)]
    files = list(dict.fromkeys(row["file"] for row in STEP12_PARTS.rows))
    stamps = [f"{gpu_label(gpu)}: " + " ".join(f"{name}: {short_stamp(gpu.table(name).stamp)}" for name in files)
              for gpu in gpus]
    return (markdown_table(["n", "what is compared", *(gpu_label(gpu) for gpu in gpus)], "ll" + "r" * len(gpus), cells)
            + "\nThe slower's median time per call over the faster's (above 1: the part makes it faster), L2 warm.\n"
            + "".join(f"\n{s}\n" for s in stamps))


EXACT_SWEEP = "exact_sweep_{type}.csv"  # compare --sweep --steps step13,step14,cub[,cub_gpu_to_gpu] --type TYPE
EXACT_SIZES = (10, 16, 20, 24, 28, 30, 32)  # log2 of the sizes the lesson's table shows
GPU_TO_GPU_STEP = "cub_gpu_to_gpu"  # CUB's reproducible sum: its columns only where the sweep has it


def render_exact_speed(results, folder, context):
    # Step 14's exact float sums beside step 13's rounded ones, CUB's and (where measured) CUB's gpu_to_gpu, per
    # call, from FOLDER's exact_sweep_*.csv (one process per type, timed alike). None, and the block stays as it is,
    # while those files do not exist.
    where = results.directory.parent / folder
    files = [where / EXACT_SWEEP.format(type=t) for t in ("float32", "float64")]
    if not all(f.is_file() for f in files):
        return None
    exact = steps.find("step14_exact_sum")
    rounded = steps.previous(exact).folder
    tables = [read_table(path) for path in files]
    reproducible = all(any(r["step"] == GPU_TO_GPU_STEP for r in t.rows) for t in tables)
    wanted = (rounded, exact.folder, CUB_STEP) + ((GPU_TO_GPU_STEP,) if reproducible else ())
    cells, stamps = [], []
    for path, table in zip(files, tables):
        stamps.append(f"`results/{folder}/{path.name}`: {short_stamp(table.stamp)}")
        times = {(r["step"], int(r["n"])): r for r in table.rows}
        for log2 in EXACT_SIZES:
            n = 1 << log2
            found = [times.get((s, n)) for s in wanted]
            require(all(found), f"{context}: {path.name} needs {', '.join(wanted)} at n = {n}")
            require(all(r["status"] == "PASS" for r in found[:2]), f"{context}: {path.name}: a step at n = {n} did not verify")
            us = [table.number(r, "time_median_ms") * 1000 for r in found]
            wrong = [" (wrong sum)" if r["status"] == "FAIL" else "" for r in found]  # CUB's rows are timed all the same
            cells.append([found[0]["type"], size_text(n)] + [f"{u:,.1f}{w}" for u, w in zip(us, wrong)]
                         + [f"{us[0] / us[1]:.2f}"] + [f"{u / us[1]:.2f}" for u in us[2:]])
    short = exact.folder[:6]
    headers = ["type", "n", f"{rounded[:6]} µs", f"{short} µs", "CUB µs"]
    headers += ["CUB gpu_to_gpu µs"] if reproducible else []
    headers += [f"{short} speed / {rounded[:6]}", f"{short} speed / CUB"]
    headers += [f"{short} speed / gpu_to_gpu"] if reproducible else []
    return "\n".join(stamps) + "\n\n" + markdown_table(headers, "ll" + "r" * (len(headers) - 2), cells)

EXACT_BITS = "exact_bits.csv"  # python3 -m bench.exact_bits (bench/reproduce.sh)


def render_exact_bits(results, folder, context):
    # One float sum's bits for each block size (and with it the grid), per step (and K, for step 15) of FOLDER's
    # exact_bits.csv: a cell "=" has the bits of the row's first. None, and the block stays as it is, while the
    # file does not exist.
    path = results.directory.parent / folder / EXACT_BITS
    if not path.is_file():
        return None
    table = read_table(path)
    blocks = distinct(table.rows, "block")
    cells = []
    for type_name in distinct(table.rows, "type"):
        of_type = [r for r in table.rows if r["type"] == type_name]
        for step, gpus in dict.fromkeys((r["step"], r.get("gpus", "")) for r in of_type):  # gpus: K, for step 15
            name = f"`{step}`" + (f", K = {gpus}" if gpus else "")
            by_block = {r["block"]: r for r in of_type if r["step"] == step and r.get("gpus", "") == gpus}
            require(list(by_block) == blocks, f"{context}: {path.name}: {name} ({type_name}) lacks a block size")
            require(all(r["status"] != "FAIL" for r in by_block.values()),
                    f"{context}: {path.name}: a result of {name} ({type_name}) did not verify")
            first = by_block[blocks[0]]["bits"]
            row = [by_block[b]["bits"] for b in blocks]
            cells.append([type_name, name] + [f"`{first}`"] + ["=" if b == first else f"`{b}`" for b in row[1:]]
                         + [str(len(set(row)))])
    return (f"`results/{folder}/{EXACT_BITS}`: {short_stamp(table.stamp)}\n\n"
            + markdown_table(["type", "step"] + [f"block {b}" for b in blocks] + ["different sums"],
                             "ll" + "r" * (len(blocks) + 1), cells)
            + f"\nn = {size_text(int(table.rows[0]['n']))}; `=`: the row's first bits.\n")
