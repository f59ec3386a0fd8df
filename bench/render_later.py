"""The results blocks of the later lessons, for bench/render_results.py (which lists every block kind
and imports this module when one of these is first used): the peers (torch, CuPy, JAX), the verdict
on a step's alternatives, and the several-GPU results of bench/multigpu.sh (results/h200x2, a sibling
of the results folder, named by the block's argument)."""

from render_results import (CUB_STEP, Results, ResultsError, batch_cell, describe, distinct, markdown_table,
                            rows_where, short_stamp, size_text, steps_of, Sweep, tie_rule, versus_cub_text)

PEERS_SIZES = (1 << 16, 1 << 20, 1 << 24, 1 << 28, 1 << 30, 1 << 32)
PEERS_COLUMNS = ["library", "type", "n", "output_type", "batch_ms", "batch_gbps", "iters", "timing", "check"]
# What the course's rows return: int32 sums wrap modulo 2^32 (step_api.h), as CUB's on int32
COURSE_OUTPUT_TYPE = {"int32": "int32 (modulo 2^32)", "float32": "float32"}


def overall_check(rows, column="check"):
    """PASS where every row passed; FAIL if any failed; '-' where none was checked."""
    words = {r[column] for r in rows}
    return "FAIL" if "FAIL" in words else "PASS" if "PASS" in words else "-"


def render_peers(results, context):
    """Batch GB/s of torch, CuPy and JAX (peers.csv) beside the last step and CUB (sweep.csv, the same GPU)."""
    if not results.has("peers.csv"):
        return ("Not measured on this GPU yet: `bench/reproduce.sh --only sweep,peers` writes peers.csv beside "
                "sweep.csv.\n")
    peers = results.table("peers.csv", PEERS_COLUMNS, "bench/peers.py")
    sweep = results.compare("sweep.csv")
    if peers.stamp.get("gpu") != sweep.stamp.get("gpu"):
        raise ResultsError(f"{peers.name} was measured on '{peers.stamp.get('gpu')}', {sweep.name} on "
                           f"'{sweep.stamp.get('gpu')}': the ratios would not be like for like")
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


def render_alternatives_verdict(results, name, reference, context):
    """Each other row of FILE (a variants CSV) against STEP, per type, as faster / level / slower at each
    size, level meaning within the run-to-run spread (tie_rule)."""
    variants = Sweep(results.compare(name))
    ties, rule = tie_rule(results, {t: [reference, "step09_vector_loads"] for t in variants.types})
    lines = [f"Each against {reference}, by per-call median ({rule}):\n"]
    for step in [s for s in distinct(variants.table.rows, "step") if s != reference]:
        lines.append(f"- `{step}`: " + "; ".join(f"{t} " + versus_cub_text(variants.ratios(t, reference, step), ties[t])
                                                 for t in variants.types) + ".")
    return "\n".join(lines) + "\n"


def multigpu_table(results, folder, file_name):
    return Results(results.directory.parent / folder).table(file_name)


def render_multigpu_step13(results, folder, context):
    """step13.csv: per type and n, the time on 1 GPU and, for every K > 1 measured, on K GPUs (one
    process, one MPI rank per GPU, input from GPU 0), the scaling and mpi / process."""
    table = multigpu_table(results, folder, "step13.csv")
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
            row += [f"{runs[(type_name, n, k, f)]:.4f}" if (type_name, n, k, f) in runs else "-"
                    for k in counts for f in forms]
            for k in counts:
                process, mpi = runs.get((type_name, n, k, "process")), runs.get((type_name, n, k, "mpi"))
                if process is None:
                    raise ResultsError(f"{table.name}: {type_name} n = {n} lacks the one-process run on {k} GPUs")
                if one / process > 1:
                    wins.setdefault((type_name, k), n)
                row += [f"{one / process:.3f}", "-" if mpi is None else f"{mpi / process:.3f}"]
            cells.append(row)
    largest = max(n for (_, n, _, _) in runs)
    facts = []
    for type_name in types:
        for k in counts:
            scaling = runs[(type_name, largest, 1, "process")] / runs[(type_name, largest, k, "process")]
            win = wins.get((type_name, k))
            facts.append(f"{type_name}: {scaling:.3f}x at {size_text(largest)}, {({2: 'two', 4: 'four', 8: 'eight'}).get(k, str(k))} "
                         f"GPUs faster from {size_text(win) if win else 'no measured size'} on"
                         + (" (the smallest measured size where they are)" if win else ""))
    return (short_stamp(table.stamp) + "\n\n" + markdown_table(headers, "ll" + "r" * (len(headers) - 2), cells)
            + "\nScaling: " + "; ".join(facts) + ".\n")


def bytes_text(b):
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= size and b % size == 0:
            return f"{b // size} {unit}"
    return f"{b} B"


def render_multigpu_allreduce(results, folder, context):
    """NCCL against the naive all-reduce (allreduce.csv) at the sizes that are powers of 4."""
    table = multigpu_table(results, folder, "allreduce.csv")
    rows = {(row["method"], int(row["bytes"])): row for row in table.rows}
    cells = []
    for b in sorted({b for (_, b) in rows if (b & (b - 1)) == 0 and (b.bit_length() - 1) % 2 == 0}):
        nccl, naive = rows.get(("nccl", b)), rows.get(("naive", b))
        if nccl and naive:
            t_nccl, t_naive = table.number(nccl, "time_median_us"), table.number(naive, "time_median_us")
            cells.append([bytes_text(b), f"{t_nccl:.1f}", nccl["algbw_gbps"], nccl["busbw_gbps"], f"{t_naive:.1f}",
                          naive["algbw_gbps"], f"{t_naive / t_nccl:.2f}"])
    headers = ["bytes per GPU", "NCCL us", "NCCL algbw GB/s", "NCCL busbw GB/s", "naive us", "naive algbw GB/s",
               "NCCL / naive"]
    return (short_stamp(table.stamp) + "\n\n" + markdown_table(headers, "l" + "r" * 6, cells) +
            f"\nThe NVLink limit read from the machine (`nvidia-smi nvlink -s`, GPU 0, per direction): "
            f"{table.rows[0]['nvlink_gbps']} GB/s. NCCL / naive: the naive version's time divided by NCCL's "
            "(above 1: NCCL is faster).\n")


def render_multigpu_combine(results, folder, context):
    table = multigpu_table(results, folder, "combine.csv")
    cells = [[row[c] or "-" for c in table.columns] for row in table.rows]
    return short_stamp(table.stamp) + "\n\n" + markdown_table(table.columns, "lrl" + "r" * 4 + "l", cells)
