"""The bits of one float sum as the block size changes (and with it the grid) and as the number of GPUs K
changes: step 10, step 14, CUB and CUB's gpu_to_gpu on one GPU, and step 15 on K = 1, 2, ... GPUs (every K up
to the GPUs present, at most 8), all on the same input, for step 14's lesson (its bit table).

    python3 -m bench.exact_bits [BUILD_BIN_DIR]      a stamped CSV on stdout (default build/bin)

One `compare --json` per type and block size, every one-GPU step on the same generated input (a fixed seed),
and one `step15_multi_gpu --gpus K --json` per type, block size and K. The rows: type, n, block, step, gpus
(K for step 15, empty for a one-GPU step), result (the decimal the program prints, exact enough to name the
value), bits (its IEEE bits in hex), status. A step the build does not have (cub_gpu_to_gpu without its
headers, step 15 without NCCL) is left out, and a '#' line says so. Exit 0 done; 1 a run failed or a
result did not verify; 2 no compare in BUILD_BIN_DIR; 3 no usable GPU.
"""

import json
import shutil
import struct
import subprocess
import sys
from pathlib import Path

TYPES = ("float32", "float64")
BLOCKS = (32, 64, 128, 256, 512, 1024)
STEPS = ("step10", "step14", "cub", "cub_gpu_to_gpu")
MULTI_GPU_STEP = "step15_multi_gpu"  # its shards and K exact partials: the bits must not move with K either
MOST_GPUS = 8
N, SEED = 2**24 + 3, 1  # an odd size: every block's head and tail differ, and so do K = 2's and 3's shards
COLUMNS = ("type", "n", "block", "step", "gpus", "result", "bits", "status")


def bits(type_name, decimal):  # the IEEE bits of compare's decimal (max_digits10 digits: it names one value)
    fmt, width = (">f", 8) if type_name == "float32" else (">d", 16)
    return "0x" + struct.pack(fmt, float(decimal)).hex().upper().rjust(width, "0")


def run(program, type_name, block, first_args):  # the arguments every run shares after FIRST_ARGS
    command = [str(program), *first_args, "--type", type_name, "--n", str(N), "--block", str(block),
               "--seed", str(SEED), "--iters", "3", "--warmup", "1", "--json"]
    done = subprocess.run(command, capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr, command


def gpu_count():  # nvidia-smi's list, as bench/multigpu.sh counts; 1 where it cannot tell
    if shutil.which("nvidia-smi") is None:
        return 1
    listed = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout
    return max(1, sum(line.startswith("GPU ") for line in listed.splitlines()))


def main(argv):
    bin_dir = Path(argv[1] if len(argv) > 1 else "build/bin")
    compare = bin_dir / "compare"
    if not compare.is_file():
        print(f"exact_bits: {compare} not found: build the course first (cmake --workflow --preset course)",
              file=sys.stderr)
        return 2
    steps = list(STEPS)
    notes = []
    rc, out, err, command = run(compare, TYPES[0], BLOCKS[0], ["--steps", "cub_gpu_to_gpu"])
    if rc == 3:
        print(err.strip(), file=sys.stderr)
        return 3
    if rc != 0 and "cub_gpu_to_gpu" in err:  # built without the newer CCCL headers: the other steps still run
        steps.remove("cub_gpu_to_gpu")
        notes.append("# note: cub_gpu_to_gpu left out: " + err.strip().splitlines()[-1])
    multi_gpu = bin_dir / MULTI_GPU_STEP
    counts = list(range(1, min(gpu_count(), MOST_GPUS) + 1)) if multi_gpu.is_file() else []
    if not counts:
        notes.append(f"# note: {MULTI_GPU_STEP} left out: not built (it needs NCCL)")
    runs = [(compare, ["--steps", ",".join(steps)], "")] + [(multi_gpu, ["--gpus", str(k)], str(k)) for k in counts]
    status, stamp, rows = 0, None, []
    for type_name in TYPES:
        for block in BLOCKS:
            for program, first_args, gpus in runs:
                rc, out, err, command = run(program, type_name, block, first_args)
                if rc not in (0, 1):
                    print(f"exact_bits: {' '.join(command)} exited {rc}: {err.strip()}", file=sys.stderr)
                    return rc
                status = status or rc
                document = json.loads(out)
                stamp = stamp or document["stamp"]
                for r in document["results"]:
                    rows.append([type_name, str(N), str(block), r["step"], gpus, r["result"],
                                 bits(type_name, r["result"]), r["status"]])
    stamp = dict(stamp, command=f"python3 -m bench.exact_bits {bin_dir}")  # compare's stamp; the runs: run() above
    lines = [f"# {key}: {value}" for key, value in stamp.items()] + notes + [",".join(COLUMNS)]
    lines += [",".join(row) for row in rows]
    print("\n".join(lines))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
