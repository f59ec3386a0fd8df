"""What you would use instead: torch.sum, cupy.sum and jax.numpy.sum on the sweep's sizes and types.
usage: python3 -m bench.peers [--max-log2 26 --libraries torch,cupy] > results/h100/peers.csv (bench/README.md)"""

import argparse
import csv
import datetime
import functools
import math
import os
import shlex
import subprocess
import sys
import time

LIBRARIES, TYPES = ("torch", "cupy", "jax"), ("int32", "float32")
CHUNK = 64                 # calls per event pair, as compare's gate_chunk (common/timer.h)
SPIN_CYCLES = 50_000_000   # the first spin: about 25 ms at 2 GHz, far longer than queueing 64 calls
MARGIN = 1.10              # as compare's sweep: the input plus 10 % must fit in free memory
COLUMNS = ["library", "type", "n", "output_type", "batch_ms", "batch_gbps", "iters", "timing", "check"]
EXIT_OK, EXIT_WRONG, EXIT_NO_GPU = 0, 1, 3  # 2: bad usage (argparse)
log = functools.partial(print, file=sys.stderr, flush=True)


def first_line(error):
    return str(error).splitlines()[0] if str(error) else type(error).__name__


class Torch:
    name = "torch"
    timing = "torch.cuda.Event pair per chunk of <=64 calls queued behind torch.cuda._sleep"

    def __init__(self):
        import torch
        if not torch.cuda.is_available():
            raise RuntimeError("torch sees no CUDA device")
        self.torch, self.version, self.cuda = torch, torch.__version__, torch.version.cuda
        self.gpu = torch.cuda.get_device_name(0)
        self.free_bytes = lambda: torch.cuda.mem_get_info()[0]
        self.to_device = lambda host: torch.from_numpy(host).cuda()
        self.release = lambda: (torch.cuda.synchronize(), torch.cuda.empty_cache())
    def time_chunk(self, x, count, spin):
        torch = self.torch
        start, stop, opened = torch.cuda.Event(True), torch.cuda.Event(True), torch.cuda.Event()
        torch.cuda._sleep(spin)
        opened.record()
        start.record()
        for _ in range(count):
            out = torch.sum(x)
        stop.record()
        early = opened.query()  # the spin was over before the last call was queued
        stop.synchronize()
        return start.elapsed_time(stop), out, early


class CuPy:
    name = "cupy"
    timing = "cupy.cuda.Event pair per chunk of <=64 calls queued behind a clock64 spin kernel"

    def __init__(self):
        import cupy
        cupy.cuda.runtime.getDeviceCount()  # raises without a GPU
        self.cupy, self.version = cupy, cupy.__version__
        name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
        self.gpu = name.decode() if isinstance(name, bytes) else str(name)
        version = cupy.cuda.runtime.runtimeGetVersion()
        self.cuda = f"{version // 1000}.{version % 1000 // 10}"
        self.free_bytes = lambda: cupy.cuda.runtime.memGetInfo()[0]
        self.to_device = cupy.asarray
        self.spin = cupy.RawKernel(r'''
extern "C" __global__ void spin(long long cycles) {
    const long long start = clock64();
    while (clock64() - start < cycles) {}
}''', "spin")
        self.release = lambda: (cupy.cuda.Device().synchronize(), cupy.get_default_memory_pool().free_all_blocks())

    def time_chunk(self, x, count, spin):
        cupy = self.cupy
        start, stop, opened = cupy.cuda.Event(), cupy.cuda.Event(), cupy.cuda.Event()
        self.spin((1,), (1,), (cupy.int64(spin),))
        opened.record()
        start.record()
        for _ in range(count):
            out = cupy.sum(x)
        stop.record()
        early = opened.done
        stop.synchronize()
        return cupy.cuda.get_elapsed_time(start, stop), out, early


class Jax:
    name = "jax"
    timing = ("host perf_counter around <=64 calls of jax.jit(jnp.sum), block_until_ready on the last "
              "(no events in JAX: Python dispatch included)")

    def __init__(self):
        # Else JAX takes 75 % of the GPU's memory when it starts, too much for the others and the free-memory check.
        os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
        os.environ.setdefault("XLA_PYTHON_CLIENT_ALLOCATOR", "platform")
        import jax
        import jax.numpy as jnp
        gpus = [d for d in jax.devices() if d.platform == "gpu"]
        if not gpus:
            raise RuntimeError("jax sees no GPU (is jax[cuda] installed?)")
        self.device, self.version, self.cuda = gpus[0], jax.__version__, ""
        self.gpu = getattr(self.device, "device_kind", "GPU")
        self.sum = jax.jit(jnp.sum)
        self.to_device = lambda host: jax.device_put(host, self.device)
        self.release = lambda: None  # the platform allocator frees each array when it is deleted

    def free_bytes(self):
        stats = self.device.memory_stats() or {}  # without a limit: None, the other libraries' figure is used
        return stats["bytes_limit"] - stats.get("bytes_in_use", 0) if "bytes_limit" in stats else None

    def time_chunk(self, x, count, spin):
        begin = time.perf_counter()
        for _ in range(count):
            out = self.sum(x)
        out.block_until_ready()
        return (time.perf_counter() - begin) * 1000.0, out, False


ADAPTERS = {"torch": Torch, "cupy": CuPy, "jax": Jax}


def batch_ms(lib, x, warmup, iters):  # compare's batch figure: warm-up, then chunks of <= 64 calls, total / count
    if warmup:  # untimed, and waited for
        lib.time_chunk(x, warmup, 0)[1].item()
    total, out = 0.0, None
    for done in range(0, iters, CHUNK):
        count, spin = min(CHUNK, iters - done), SPIN_CYCLES
        for _ in range(4):
            elapsed, out, early = lib.time_chunk(x, count, spin)
            if not early:
                break
            spin *= 2
        else:
            log(f"{lib.name}: the spin kernel ended before {count} calls were queued, even at {spin} cycles; "
                f"this chunk includes Python's dispatch time")
        total += elapsed
    return total / iters, out


def host_input(type_name, n, seed):  # filled on every core, 2^24 at a time, by generators spawned from (seed, n, type)
    import numpy as np
    from concurrent.futures import ThreadPoolExecutor
    out, step = np.empty(n, dtype=np.int32 if type_name == "int32" else np.float32), 1 << 24
    firsts = range(0, n, step)
    seeds = np.random.SeedSequence([seed, n, TYPES.index(type_name)]).spawn(len(firsts))

    def fill(k):  # numpy's generators release the GIL while they fill
        rng, chunk = np.random.default_rng(seeds[k]), out[firsts[k]:firsts[k] + step]
        if type_name == "int32":
            chunk[:] = rng.integers(-1000, 1000, size=chunk.size, dtype=np.int32, endpoint=True)
        else:
            rng.random(out=chunk, dtype=np.float32)  # [0, 1), then 2x - 1: [-1, 1)
            chunk *= 2
            chunk -= 1

    with ThreadPoolExecutor(max_workers=os.cpu_count()) as pool:
        list(pool.map(fill, range(len(firsts))))
    return out


def check(type_name, n, result, output_type, expected, abs_sum):
    if type_name == "int32":  # modulo 2^32 where the library sums in 32 bits
        want = (expected + (1 << 31)) % (1 << 32) - (1 << 31) if output_type in ("int32", "uint32") else expected
        return "PASS" if int(result) == want else "FAIL"
    relative = (n - 1) * 2.0 ** -24
    if relative >= 1:
        return "-"
    tolerance = relative * abs_sum + (n - 1) * 2.0 ** -53 * abs_sum  # and float64's own error in the reference
    return "PASS" if math.isfinite(result) and abs(result - expected) <= tolerance else "FAIL"


def nvidia_driver():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30)
        return out.stdout.splitlines()[0].strip() if out.returncode == 0 and out.stdout.strip() else "not recorded"
    except (OSError, subprocess.SubprocessError):
        return "not recorded"


def stamp_lines(libraries, args, argv):
    import numpy as np
    stamp = [("gpu", libraries[0].gpu), ("nvidia_driver", os.environ.get("REDUCTION_NVIDIA_DRIVER") or nvidia_driver()),
             ("cuda_runtime", next((lib.cuda for lib in libraries if lib.cuda), "not recorded"))]
    stamp += [(lib.name, lib.version) for lib in libraries]
    stamp += [("numpy", np.__version__), ("python", sys.version.split()[0]),
              ("date_utc", datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")),
              ("commit", os.environ.get("REDUCTION_COMMIT", "unknown")),
              ("command", " ".join(shlex.quote(a) for a in ["python3", "-m", "bench.peers"] + argv)), ("l2", "warm"),
              ("timing", f"batch: {args.iters} calls in chunks of at most {CHUNK} between one event pair, total "
                         f"time / count, after {args.warmup} warm-up calls; per library in the timing column"),
              ("pattern", "random (int32 in [-1000, 1000], float32 in [-1, 1))"), ("seed", str(args.seed))]
    return "".join(f"# {key}: {' '.join(str(value).split())}\n" for key, value in stamp)


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--libraries", default=",".join(LIBRARIES), help="comma-separated: torch,cupy,jax")
    parser.add_argument("--types", default=",".join(TYPES), help="comma-separated: int32,float32")
    parser.add_argument("--min-log2", type=int, default=4, help="smallest size, 2^k (default 4)")
    parser.add_argument("--max-log2", type=int, default=32, help="largest size, 2^k (default 32)")
    parser.add_argument("--iters", type=int, default=100, help="timed calls per size (default 100)")
    parser.add_argument("--warmup", type=int, default=5, help="untimed calls first (default 5)")
    parser.add_argument("--seed", type=int, default=None, help="input seed (default: a fresh one, stamped)")
    args = parser.parse_args(argv)
    args.libraries, args.types = ([n for n in value.split(",") if n] for value in (args.libraries, args.types))
    bad = [n for n in args.libraries if n not in LIBRARIES] + [t for t in args.types if t not in TYPES]
    if bad or not args.libraries or not args.types:
        parser.error(f"unknown or missing: {', '.join(bad) or 'a library or type'}; accepted: "
                     f"--libraries {','.join(LIBRARIES)}, --types {','.join(TYPES)}")
    if not 0 <= args.min_log2 <= args.max_log2 <= 40:
        parser.error("--min-log2 and --max-log2: 0 <= min <= max <= 40")
    if args.iters < 1 or args.warmup < 0:
        parser.error("--iters must be at least 1 and --warmup at least 0")
    if args.seed is None:
        args.seed = int.from_bytes(os.urandom(8), "little") >> 1
    return args


def main(argv):
    args = parse_args(argv)
    try:
        import numpy as np  # every library below needs it too
    except ImportError:
        log("peers: numpy is not installed; nothing measured")
        return EXIT_NO_GPU
    libraries = []
    for name in args.libraries:
        try:
            libraries.append(ADAPTERS[name]())
        except ImportError:
            log(f"peers: {name} is not installed; skipped")
        except Exception as error:  # a library that is installed but cannot reach a GPU
            log(f"peers: {name} cannot run on a GPU ({first_line(error)}); skipped")
    if not libraries:
        log("peers: no library could run on a GPU; nothing measured")
        return EXIT_NO_GPU
    print(stamp_lines(libraries, args, argv) + ",".join(COLUMNS), flush=True)
    wrong = False
    for type_name in args.types:
        for log2 in range(args.min_log2, args.max_log2 + 1):
            n, need = 1 << log2, (1 << log2) * 4 * MARGIN
            frees = [f for f in (lib.free_bytes() for lib in libraries) if f is not None]
            if frees and need > min(frees):
                log(f"peers: skipping {type_name} n=2^{log2}: needs {need / 2**30:.2f} GiB with a 10% margin, "
                    f"{min(frees) / 2**30:.2f} GiB free")
                continue
            log(f"peers: {type_name} n=2^{log2} ...")
            host = host_input(type_name, n, args.seed)
            expected, abs_sum = ((int(host.sum(dtype=np.int64)), None) if type_name == "int32" else  # exact, or float64's
                                 (float(host.sum(dtype=np.float64)), float(np.abs(host).sum(dtype=np.float64))))
            for lib in libraries:
                x = out = None
                try:
                    x = lib.to_device(host)
                    ms, out = batch_ms(lib, x, args.warmup, args.iters)
                    value, output_type = out.item(), str(out.dtype).replace("torch.", "")
                except Exception as error:  # out of memory, or a size the library refuses: that row only
                    log(f"peers: {lib.name} {type_name} n=2^{log2} failed ({first_line(error)[:200]}); no row written")
                else:
                    verdict = check(type_name, n, value, output_type, expected, abs_sum)
                    if verdict == "FAIL":
                        wrong = True
                        log(f"peers: {lib.name} {type_name} n=2^{log2}: result {value!r}, expected {expected!r}")
                    gbps = n * 4 / (ms * 1e6) if ms > 0 else float("nan")
                    csv.writer(sys.stdout, lineterminator="\n").writerow(
                        [lib.name, type_name, n, output_type, f"{ms:.6f}", f"{gbps:.2f}", args.iters, lib.timing, verdict])
                    sys.stdout.flush()
                del x, out
                lib.release()
            del host
    return EXIT_WRONG if wrong else EXIT_OK


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(130)
