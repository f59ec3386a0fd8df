"""bench/exact_bits.py's table: one row per type, block size and one-GPU step, and step 15's rows for every K
from 1 to the GPUs present, each with its K in the gpus column; a step the build lacks is left out with a
'#' line saying so, never silently.

    python3 -m tests.bench.test_exact_bits

The programs (compare, step15_multi_gpu, nvidia-smi) are stand-ins: small Python scripts that print what the
real ones print in --json form (a stamp and one result per step) and log the GPU counts they were asked for.
"""

import contextlib
import csv
import io
import os
import stat
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from bench import exact_bits

COMPARE = """#!{python}
import json, sys
args = sys.argv[1:]
steps = args[args.index("--steps") + 1].split(",")
if "cub_gpu_to_gpu" in steps and {no_gpu_to_gpu}:
    print("compare: unknown step 'cub_gpu_to_gpu' (built without the newer CCCL headers)", file=sys.stderr)
    sys.exit(2)
results = [dict(step=s, result="1.5", status="PASS") for s in steps]
print(json.dumps(dict(stamp=dict(gpu="stand-in", commit="c"), results=results)))
"""

MULTI_GPU = """#!{python}
import json, sys
args = sys.argv[1:]
with open({log!r}, "a") as log:
    log.write(args[args.index("--gpus") + 1] + "\\n")
results = [dict(step="step15_multi_gpu", result="1.5", status="PASS")]
print(json.dumps(dict(stamp=dict(gpu="stand-in", gpus=args[args.index("--gpus") + 1]), results=results)))
"""

NVIDIA_SMI = """#!/bin/sh
for i in $(seq 0 $(({gpus} - 1))); do echo "GPU $i: stand-in (UUID: GPU-$i)"; done
"""


class Table(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.addCleanup(self.folder.cleanup)
        self.bin = Path(self.folder.name)
        self.log = self.bin / "gpus.log"

    def program(self, name, text):
        path = self.bin / name
        path.write_text(text)
        path.chmod(path.stat().st_mode | stat.S_IXUSR)

    def table(self, gpus, multi_gpu=True, gpu_to_gpu=True):
        self.program("compare", COMPARE.format(python=sys.executable, no_gpu_to_gpu=not gpu_to_gpu))
        if multi_gpu:
            self.program("step15_multi_gpu", MULTI_GPU.format(python=sys.executable, log=str(self.log)))
        tools = self.bin / "tools"
        tools.mkdir(exist_ok=True)
        (tools / "nvidia-smi").write_text(NVIDIA_SMI.format(gpus=gpus))
        (tools / "nvidia-smi").chmod(0o755)
        out, err = io.StringIO(), io.StringIO()
        with mock.patch.dict(os.environ, PATH=f"{tools}{os.pathsep}{os.environ['PATH']}"), \
                contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = exact_bits.main(["exact_bits", str(self.bin)])
        self.assertEqual(code, 0, err.getvalue())
        lines = out.getvalue().splitlines()
        notes = [line for line in lines if line.startswith("# note:")]
        rows = list(csv.DictReader(line for line in lines if not line.startswith("#")))
        return notes, rows

    def test_step15_runs_every_k_up_to_the_gpus_present(self):
        notes, rows = self.table(gpus=3)
        self.assertEqual(notes, [])
        self.assertEqual(self.log.read_text().split(), ["1", "2", "3"] * len(exact_bits.TYPES) * len(exact_bits.BLOCKS))
        for type_name in exact_bits.TYPES:
            for block in exact_bits.BLOCKS:
                here = [(r["step"], r["gpus"]) for r in rows if r["type"] == type_name and r["block"] == str(block)]
                self.assertEqual(here, [(s, "") for s in exact_bits.STEPS] + [("step15_multi_gpu", k) for k in "123"])
        self.assertEqual({r["bits"] for r in rows if r["type"] == "float32"}, {"0x3FC00000"})
        self.assertEqual({r["bits"] for r in rows if r["type"] == "float64"}, {"0x3FF8000000000000"})

    def test_one_gpu_gives_k_1_only(self):
        _, rows = self.table(gpus=1)
        self.assertEqual({r["gpus"] for r in rows if r["step"] == "step15_multi_gpu"}, {"1"})

    def test_a_step_the_build_lacks_is_left_out_and_said(self):
        notes, rows = self.table(gpus=2, multi_gpu=False, gpu_to_gpu=False)
        self.assertEqual(len(notes), 2, notes)
        self.assertIn("cub_gpu_to_gpu left out", notes[0])
        self.assertIn("step15_multi_gpu left out", notes[1])
        self.assertEqual({r["step"] for r in rows}, {"step10", "step14", "cub"})


if __name__ == "__main__":
    unittest.main()
