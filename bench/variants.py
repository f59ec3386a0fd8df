"""The variants and ablations of bench/variants.toml, and the results CSVs they feed (bench/README.md).

    python3 -m bench.variants list                       the results CSVs, one name a line
    python3 -m bench.variants run NAME [BUILD_BIN_DIR]   that CSV on stdout (default build/bin)
    python3 -m bench.variants run NAME [BUILD_BIN_DIR] --dry-run   its commands; exit 2 if a program is missing
    python3 -m bench.variants cmake OUTDIR               (CMake) OUTDIR/variants.cmake: each variant's inputs
    python3 -m bench.variants generate OUTDIR NAME       (the build) OUTDIR/NAME/reduce.cuh and main.cu

run: every command of the CSV, one process each; the first one's stamp lines and header, then every
command's rows (with `columns`: those columns, the program's own values added, and a `note` line).
Exit: 0 done, every result verified (a variant marked wrong_sums is timed only: its failed check
counts as done); 1 a command failed or a result did not verify (the other rows are still printed); 2 bad usage, an unknown name, a missing program, an edit that does not apply or
another header; 3 the first command found no usable GPU (nothing printed).
"""

import csv
import re
import subprocess
import sys
import tomllib
from pathlib import Path

from course import stamped_csv

HERE = Path(__file__).resolve().parent
ROOT, CATALOGUE = HERE.parent, HERE / "variants.toml"


class Refused(Exception):
    pass


def inputs(variant):  # the files a variant is made from: its step's, then what bench/variants/ adds
    step = ROOT / variant["step"]
    files = [step / "reduce.cuh", HERE / "variants" / variant["main"] if "main" in variant else step / "main.cu"]
    return files + ([HERE / "variants" / variant["add"]] if "add" in variant else [])


def sources(variant):  # {file name: text} of the variant: the step's files with the additions and edits made
    reduce, main, *added = (path.read_text() for path in inputs(variant))
    files = {"reduce.cuh": reduce + "".join("\n" + text for text in added), "main.cu": main}
    for edit in variant.get("edit", []):
        name = edit.get("file", "reduce.cuh")
        pattern = edit["match"] if "match" in edit else re.escape(edit["find"])
        found = len(re.findall(pattern, files[name]))
        if found != 1:
            raise Refused(f"variant {variant['name']}: the text to find occurs {found} times in "
                          f"{variant['step']}/{name}, not once: {pattern[:70]!r}")
        files[name] = re.sub(pattern, lambda _: edit["replace"], files[name])
    return files


def write_cmake(outdir, variants):
    lines = [f"# Written by bench/variants.py from {CATALOGUE.relative_to(ROOT)}: reduction_add_variant(NAME INPUT...)"]
    for name, variant in variants.items():
        try:
            sources(variant)
        except Refused as error:  # a warning here; building that variant fails with it
            print(error, file=sys.stderr)
        lines.append(f"reduction_add_variant({name} " + " ".join(f'"{path.as_posix()}"' for path in inputs(variant)) + ")")
    outdir.mkdir(parents=True, exist_ok=True)
    text, target = "\n".join(lines) + "\n", outdir / "variants.cmake"
    if not target.is_file() or target.read_text() != text:
        target.write_text(text)


def commands(table, bin_dir):  # [(argv, {column: value} of its program)] in order: type, then size, then program
    programs = [p if isinstance(p, dict) else {"program": p} for p in table["programs"]]
    return [([f"{bin_dir}/{p['program']}"] + table["command"].format(type=type_, n=n).split(),
             {k: str(v) for k, v in p.items() if k != "program"})
            for type_ in table["types"] for n in table["sizes"] for p in programs]


def run(table, bin_dir, timed_only=frozenset()):
    status, header, out, columns = 0, None, sys.stdout, table.get("columns")
    for index, (argv, extra) in enumerate(commands(table, bin_dir)):
        command = " ".join(argv)
        done = subprocess.run(argv, capture_output=True, text=True)
        sys.stderr.write(done.stderr)
        if done.returncode == 3 and index == 0:
            print(f"variants.py: no usable GPU ({command}); nothing measured", file=sys.stderr)
            return 3
        try:
            parsed = stamped_csv.parse(done.stdout, command) if done.returncode in (0, 1) else None
        except stamped_csv.ResultsError as error:
            print(f"variants.py: {error}", file=sys.stderr)
            parsed = None
        if parsed is None:
            print(f"variants.py: '{command}' failed (exit {done.returncode})", file=sys.stderr)
            status = 1
            continue
        lines = stamped_csv.split(done.stdout)[1]  # the program's header line and rows
        if header is None:  # the stamp lines, the note and the header, once
            header, note = columns or parsed.columns, [f"# {table['note']}"] if "note" in table else []
            out.writelines(line + "\n" for line in [*parsed.stamp_lines, *note, ",".join(columns) if columns else lines[0]])
        elif not columns and parsed.columns != header:
            print(f"variants.py: '{command}' printed another header: {parsed.columns}", file=sys.stderr)
            return 2
        if columns:
            csv.writer(out, lineterminator="\n").writerows([[{**row, **extra}[c] for c in columns] for row in parsed.rows])
        else:  # the rows as the program wrote them
            out.writelines(line + "\n" for line in lines[1:])
        out.flush()
        wrong_by_design = done.returncode == 1 and Path(argv[0]).name in timed_only  # its rows say FAIL
        status = status or (0 if wrong_by_design else done.returncode)
    return status


def main(args):
    dry_run = "--dry-run" in args
    args = [a for a in args if a != "--dry-run"]
    if not args or args[0] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stdout if args else sys.stderr)
        return 0 if args else 2
    data = tomllib.loads(CATALOGUE.read_text())
    variants, tables = {v["name"]: v for v in data["variant"]}, {c["name"]: c for c in data["csv"]}
    if args[0] == "list" and len(args) == 1:
        print("\n".join(tables))
    elif args[0] == "cmake" and len(args) == 2:
        write_cmake(Path(args[1]), variants)
    elif args[0] == "generate" and len(args) == 3:
        if args[2] not in variants:
            raise Refused(f"no variant '{args[2]}' in {CATALOGUE.name}")
        (Path(args[1]) / args[2]).mkdir(parents=True, exist_ok=True)
        for file, text in sources(variants[args[2]]).items():
            (Path(args[1]) / args[2] / file).write_text(text)
    elif args[0] != "run" or len(args) not in (2, 3):
        raise Refused(f"bad usage: {' '.join(args)}; see python3 -m bench.variants --help")
    elif args[1] not in tables:
        raise Refused(f"no results CSV '{args[1]}'; known: {', '.join(tables)}")
    else:
        table, bin_dir = tables[args[1]], args[2] if len(args) == 3 else "build/bin"
        missing = sorted({argv[0] for argv, _ in commands(table, bin_dir) if not Path(argv[0]).is_file()})
        if missing:
            raise Refused(f"{', '.join(missing)} not found; build: cmake --build build --target "
                          + " ".join(Path(m).name for m in missing))
        if not dry_run:
            return run(table, bin_dir, frozenset(name for name, v in variants.items() if v.get("wrong_sums")))
        print("\n".join(" ".join(argv) for argv, _ in commands(table, bin_dir)))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Refused as error:
        print(f"variants.py: {error}", file=sys.stderr)
        sys.exit(2)
