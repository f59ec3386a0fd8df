#!/usr/bin/env python3
"""Runs several commands that each print CSV (optional '# key: value' stamp lines, a header, rows;
the same header for all) and prints one CSV: the first command's stamp lines and header, then
every command's rows.

    bench/collect_rows.py "build/bin/step08_warp_shuffle --csv --n 2^24" "build/bin/step08_cg_reduce --csv --n 2^24"

Exit: 0 all ran and verified, 1 a command failed or a result did not verify (its rows, if any, are
still printed), 2 bad usage or mismatched headers, 3 the first found no usable GPU (nothing printed).
"""
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "course"))
from stamped_csv import split  # noqa: E402


def main(commands):
    if not commands:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    status, header = 0, None
    for index, command in enumerate(commands):
        run = subprocess.run(command, shell=True, capture_output=True, text=True)  # a missing one: exit 127
        sys.stderr.write(run.stderr)
        if run.returncode == 3 and index == 0:
            print(f"collect_rows.py: no usable GPU ({command}); nothing measured", file=sys.stderr)
            return 3
        stamp, table = split(run.stdout)
        if run.returncode not in (0, 1) or not table:  # 1: it ran, and its row says FAIL
            problem = "printed no CSV" if run.returncode in (0, 1) else f"failed (exit {run.returncode})"
            print(f"collect_rows.py: '{command}' {problem}", file=sys.stderr)
            status = 1
            continue
        if header not in (None, table[0]):
            print(f"collect_rows.py: '{command}' printed another header:\n  {table[0]}\n  expected {header}",
                  file=sys.stderr)
            return 2
        lines = stamp + table if header is None else table[1:]  # the first: its stamp and header too
        header = table[0]
        sys.stdout.writelines(line + "\n" for line in lines)
        sys.stdout.flush()
        status = status or run.returncode
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
