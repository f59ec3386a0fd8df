"""The compiled-code check: the machine instructions a step's idea compiles to (tools/sass_checks.csv),
in the step's own kernels' SASS, and the calls its host code makes (tools/host_calls.csv), among the
functions its executable imports or in the machine code of the step's own host functions.
usage: python3 -m tools.compiled_code STEP EXECUTABLE [--cuobjdump PATH]"""

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from course import stamped_csv

HERE = Path(__file__).resolve().parent

SASS_ARCH, TABLE, HOST_TABLE, NOT_CHECKED = "sm_90", HERE / "sass_checks.csv", HERE / "host_calls.csv", 77
# Where tools/install_prerequisites.sh puts cuobjdump and nvdisasm (NVIDIA's PyPI wheels) when the CUDA
# toolkit lacks them: found here too, so that a shell without that folder on PATH still grades.
CACHED_TOOLS = Path("reduction-cuda-tools") / "nvidia" / "cu13" / "bin"


def sass_rows_of(step):
    return [row for row in stamped_csv.read(TABLE).rows if row["step"] == step]


def host_rows_of(step):
    return [row for row in stamped_csv.read(HOST_TABLE).rows if row["step"] == step]


def rows_of(step):  # every row of the step, in either table: whether the step has a compiled-code check
    return sass_rows_of(step) + host_rows_of(step)


def describe(step):  # what the compiled-code check of `step` reads: the check's name in grade's report
    kinds = [what for what, rows in ((f"{SASS_ARCH} SASS", sass_rows_of(step)), ("host calls", host_rows_of(step)))
             if rows]
    return f"compiled code ({', '.join(kinds)})" if kinds else "compiled code"


def host_functions(nm, exe, pattern):  # {name: (start, end)} of the executable's functions whose demangled name matches
    listing = subprocess.run([nm, "-C", "-S", "--defined-only", str(exe)], capture_output=True, text=True).stdout
    found = {}
    for fields in (line.split(maxsplit=3) for line in listing.splitlines()):  # address size type name
        if len(fields) == 4 and fields[2] in "TtWw" and re.search(pattern, fields[3]):
            start = int(fields[0], 16)
            found[fields[3]] = (start, start + int(fields[1], 16))
    return found


def calls_in(objdump, exe, start, end):  # the calls in [start, end): the callees' names, "*" for a call through a pointer
    listing = subprocess.run([objdump, "-d", "--no-show-raw-insn", f"--start-address={start:#x}",
                              f"--stop-address={end:#x}", str(exe)], capture_output=True, text=True).stdout
    calls = []
    for line in listing.splitlines():  # x86-64: call 1234 <f@plt>, call *0x18(%rax); arm64: bl 1234 <f>, blr x3
        instruction = re.search(r"\s(call|callq|bl|blr)\s+(\S.*)$", line)
        if instruction:
            named = re.search(r"<([^>+@]+)", instruction[2])
            calls.append("*" if instruction[1] == "blr" or instruction[2].startswith("*") else named[1] if named else "?")
    return calls


def check_host_calls(rows, exe):  # (rows missing, a line per row), or None without nm or objdump
    nm, objdump = shutil.which("nm"), shutil.which("objdump")
    if not nm or not objdump:
        return None
    result = subprocess.run([nm, "-D", "--undefined-only", str(exe)], capture_output=True, text=True)
    imported = {line.split()[-1].split("@")[0] for line in result.stdout.splitlines() if line.strip()}
    missing, lines = 0, []
    for row in rows:
        call, what = row["call"], "a call through a pointer" if row["call"] == "*" else f"a call of {row['call']}"
        if not row.get("function"):  # a library call: imported by the executable
            ok, where = call in imported, ""
        else:  # in the machine code of each function the row names
            functions = host_functions(nm, exe, row["function"])
            lacking = [name.split("(")[0] for name, (start, end) in functions.items()
                       if not any(c == call or c.startswith(call + "(") for c in calls_in(objdump, exe, start, end))]
            ok = bool(functions) and not lacking
            where = (f" in {len(functions)} function(s) matching {row['function']}" if ok else
                     f" in {', '.join(lacking)}" if lacking else f" (no function matching {row['function']})")
        missing += not ok
        lines.append(f"{'found' if ok else 'MISSING'}: {what}{where}: {row['reason']}")
    return missing, lines


def find_cuobjdump(compiler=None):  # on PATH, beside the CUDA compiler (a path), or in the set-up's cache; else None
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / CACHED_TOOLS / "cuobjdump"
    beside = Path(compiler).parent / "cuobjdump" if compiler else None
    return shutil.which("cuobjdump") or next((str(path) for path in (beside, cache) if path and path.is_file()), None)


def kernel_opcodes(sass, tag, function=""):  # {function: opcode Counter} of `tag`'s kernels matching `function`
    found, current = {}, None
    for line in sass.splitlines():
        name = re.search(r"Function : (\S+)", line)
        if name:  # the mangled namespace: _ZN6step08...
            current = name[1] if f"{len(tag)}{tag}" in name[1] and re.search(function, name[1]) else None
            found.setdefault(current, collections.Counter())
        elif current and (instruction := re.search(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)):
            found[current][instruction[1]] += 1
    found.pop(None, None)  # the functions of other namespaces
    return found


def count_holds(count, expected):  # expected: "5" exactly 5, "2+" at least 2
    return count >= int(expected[:-1]) if expected.endswith("+") else count == int(expected)


def check_rows(rows, sass, tag):  # (rows missing, a line per row); with a `count`: so many in each kernel
    lines, missing = [], 0
    for row in rows:
        functions = kernel_opcodes(sass, tag, row.get("function") or "")
        counts = [sum(n for op, n in ops.items() if re.search(row["pattern"], op)) for ops in functions.values()]
        ops = sorted({op for f in functions.values() for op in f if re.search(row["pattern"], op)})
        exact = row.get("count")
        ok = bool(counts) and all(count_holds(c, exact) for c in counts) if exact else any(counts)
        expected = f"at least {exact[:-1]}" if exact and exact.endswith("+") else f"exactly {exact}"
        detail = f"counted {'/'.join(map(str, sorted(set(counts)))) or 'in no kernel'}, expected {expected}"
        missing += not ok
        where = f" in {row['function']}" if row.get("function") else ""
        shown = ", ".join(filter(None, [", ".join(ops), detail if exact else ""]))
        label = ("as counted" if ok else "WRONG COUNT") if exact else ("found" if ok else "MISSING")
        lines.append(f"{label}: {row['pattern'].replace(chr(92), '')}{where}"
                     f"{' (' + shown + ')' if shown else ''}: {row['reason']}")
    return missing, lines


def run_check(step, exe, tool):
    rows, host_rows = sass_rows_of(step), host_rows_of(step)
    if not rows and not host_rows:
        return 2, f"neither {TABLE.name} nor {HOST_TABLE.name} has a row for {step}"
    if not Path(exe).is_file():
        return 2, f"no such file: {exe}"
    missing, lines = 0, []
    if host_rows:
        checked = check_host_calls(host_rows, exe)
        if checked is None:
            return NOT_CHECKED, "not checked: nm or objdump (GNU binutils) not found"
        missing, lines = checked
    if not rows:
        return (1 if missing else 0), "\n".join(lines)
    if not tool:
        return NOT_CHECKED, ("not checked: cuobjdump (part of the CUDA toolkit) not found: "
                             "tools/install_prerequisites.sh installs it")
    tool = shutil.which(tool) or tool
    if not Path(tool).is_file() or not Path(exe).is_file():
        return 2, f"no such file: {tool if not Path(tool).is_file() else exe}"
    env = dict(os.environ, PATH=os.pathsep.join([str(Path(tool).parent), os.environ.get("PATH", "")]))
    result = subprocess.run([tool, "-sass", "-arch", SASS_ARCH, str(exe)], capture_output=True, text=True, env=env)
    if result.returncode != 0:  # cuobjdump also needs nvdisasm
        return NOT_CHECKED, "not checked: cuobjdump failed: " + result.stderr.strip()[-300:]
    sass_missing, sass_lines = check_rows(rows, result.stdout, step[:6])
    return (1 if missing + sass_missing else 0), "\n".join(lines + sass_lines)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", help="the step's folder name, e.g. step08_warp_shuffle")
    parser.add_argument("executable", type=Path)
    parser.add_argument("--cuobjdump", help="the cuobjdump to use (default: on PATH, else where the set-up put it)")
    args = parser.parse_args()
    code, text = run_check(args.step, args.executable, args.cuobjdump or find_cuobjdump())
    print(text)
    sys.exit(code)
