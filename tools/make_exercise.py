"""Writes one step of the course as a self-contained assignment folder (docs/teaching.md lists what it holds).
usage: python3 -m tools.make_exercise [--solution] STEP OUTDIR   (STEP: step04_first_add, step04, 04 or 4; OUTDIR new or empty)"""

import re
import shutil
import string
import subprocess
from pathlib import Path

from tools import classroom, compiled_code, exercise_markers

TOOLS = Path(__file__).resolve().parent
TREE = TOOLS.parent
CLASSROOM_FILES = ("tools/__init__.py", "tools/grade.py", "tools/classroom.py", "tools/speed_test.py", "tools/hold_gpu.py",
                   "tools/grade_thresholds.csv", "tools/sass_checks.csv", "tools/host_calls.csv", "tools/compiled_code.py",
                   "tools/install_prerequisites.sh", "course/__init__.py", "course/stamped_csv.py", "course/steps.py")


class Template(string.Template):
    delimiter = "@"  # the CMake text is full of ${...}


def fill(name, values):
    return Template((TOOLS / "templates" / name).read_text()).substitute(values)


def copy_folder(source, target, skip=()):
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", *skip))


FENCED_BLOCK = re.compile(r"^[ \t]*```(?P<info>[^\n]*)\n(?P<body>.*?)^[ \t]*```[^\n]*\n?", re.M | re.S)
CODE_LINE = re.compile(r"[;{}]\s*(//.*)?$|<<<", re.M)  # a block with a language tag or such a line holds code


def lesson_text(lesson_path):  # intro, idea and prediction, one level down; never code (it may show the solution)
    if not lesson_path.is_file():
        return ""
    intro, *sections = re.split(r"^(?=## )", lesson_path.read_text(), flags=re.M)
    kept = [intro] + ["#" + s for s in sections if re.search(r"\bidea\b|predict|expect", s.splitlines()[0].lower())]
    text = "\n".join(line for line in "".join(kept).splitlines() if not line.startswith("# "))
    text = FENCED_BLOCK.sub(lambda b: "" if b["info"].strip() or CODE_LINE.search(b["body"]) else b[0], text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def kind_texts(step):  # the kind, and the templates' values: step, previous, tag and the texts of KIND.in
    kind = "multi_gpu" if step.kind == "multi_gpu" else "one_gpu" if step.previous else "first_step"
    values = dict(step=step.folder, previous=step.previous, tag=step.tag)
    _, *parts = re.split(r"^\[(\w+)\]\n", fill(f"{kind}.in", values), flags=re.M)
    return kind, values | {name: text.rstrip("\n") for name, text in zip(parts[::2], parts[1::2])}


def manifest(step):  # the assignment's course/steps.csv: the step's row and its previous step's (with no previous)
    rows = [line.split(",", 3) for line in (TREE / "course" / "steps.csv").read_text().splitlines(keepends=True)]
    return "".join(",".join(row[:2] + [""] + row[3:] if row[0] == step.previous else row) for row in rows
                   if row[0].startswith("#") or row[0] in ("folder", step.folder, step.previous))


def classroom_workflow(step, kind):  # GitHub Classroom's workflow: one command grader per part of the host part
    parts = [part for part in classroom.HOST_POINTS if part != "compiled-code" or compiled_code.rows_of(step)]
    graders = "".join(fill("grader.yml.in", dict(part=part, points=classroom.HOST_POINTS[part])) for part in parts)
    reporter_env = "\n".join(f'          {part.upper()}_RESULTS: "${{{{steps.{part}.outputs.result}}}}"' for part in parts)
    nccl = " libnccl2 libnccl-dev" if kind == "multi_gpu" else ""  # what apt-get installs besides
    return fill("classroom.yml.in", dict(step=step, graders=graders.rstrip("\n"), reporter_env=reporter_env,
                                         runners=",".join(parts), nccl=nccl))


def main():
    parser = classroom.Parser(
        prog="make_exercise", description="Write one step of the course as a self-contained assignment folder.")
    parser.add_argument("step", help="step folder or number: step04_first_add, step04, 04 or 4")
    parser.add_argument("outdir", type=Path, help="a new or empty folder")
    parser.add_argument("--solution", action="store_true", help="keep the marked code (the reference solution)")
    args = parser.parse_args()
    row = classroom.find_step(parser, args.step, TREE)
    step = row.folder
    reduce_text = (TREE / step / "reduce.cuh").read_text()
    try:
        stub_text = exercise_markers.make_stub(reduce_text, exercise_markers.stub_text(step))  # also with --solution
    except exercise_markers.MarkerError as error:
        parser.fail(f"{step}/reduce.cuh and tools/stubs/{step}.cuh: {error}")
    if not exercise_markers.regions(reduce_text):
        parser.fail(f"{step}/reduce.cuh has no solution-begin/solution-end markers: nothing to hand out")
    if args.outdir.exists() and (not args.outdir.is_dir() or any(args.outdir.iterdir())):
        parser.fail(f"{args.outdir} exists and is not an empty folder; give a new or empty one")
    try:
        write_assignment(args, row, stub_text, reduce_text, args.outdir)
    except OSError as error:
        parser.fail(f"cannot write the assignment into {args.outdir}: {error}")


def write_assignment(args, row, stub_text, reduce_text, out):
    kind, values = kind_texts(row)
    step, previous = row.folder, row.previous
    out.mkdir(parents=True, exist_ok=True)
    own = ("CMakeLists.txt", "main.cu", "reduce.cuh")  # not step05's race demonstration (most of the solution)
    copy_folder(TREE / step, out / step, skip=tuple(p.name for p in (TREE / step).iterdir() if p.name not in own))
    if (TREE / step / "figures").is_dir():  # the lesson's figures, where the README's image links find them
        copy_folder(TREE / step / "figures", out / "figures")
    if previous:  # a multi-GPU step includes its reduce.cuh by its name
        copy_folder(TREE / previous, out / (previous if kind == "multi_gpu" else "previous"),
                    skip=("README.md", "NOTES.md", "figures"))
    for folder in ("common", "cmake", "tests/gpu"):
        copy_folder(TREE / folder, out / folder)
    for source in [*(TREE / "tests").glob("*.h"), *(TREE / "tests").glob("*.sh")]:
        shutil.copy2(source, out / "tests" / source.name)
    for name in CLASSROOM_FILES:
        (out / name).parent.mkdir(exist_ok=True)
        shutil.copy2(TREE / name, out / name)
    todos = [] if args.solution else [
        f"- `{step}/reduce.cuh:{number}`: {line.strip().removeprefix('// TODO: ')}"
        for number, line in enumerate(stub_text.splitlines(), start=1) if line.strip().startswith("// TODO: ")]
    change = re.search(r'change\s*=\s*"([^"]*)"', reduce_text)
    header = re.match(r"(//.*\n)*", reduce_text)[0]  # reduce.cuh's opening comment, as prose
    commit = subprocess.run(["git", "-C", str(TREE), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    values.update(todo_list="\n".join(todos) or "- (none: this folder holds the solution)",
                  change=change[1] if change else "", lesson=lesson_text(TREE / step / "README.md"),
                  header="\n".join(line[2:].strip() for line in header.splitlines()).strip(),
                  source_commit=commit.stdout.strip() if commit.returncode == 0 else "unknown",
                  solution="yes" if args.solution else "no")
    texts = {name: fill(f"{name}.in", values) for name in ("CMakeLists.txt", "README.md", "assignment.cfg", "grade",
                                                          ".gitignore")}
    texts |= {f"{step}/reduce.cuh": reduce_text if args.solution else stub_text, "course/steps.csv": manifest(row),
              ".github/workflows/classroom.yml": classroom_workflow(step, kind)}
    for name, text in texts.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text(text)
    (out / "grade").chmod(0o755)
    what = "solution" if args.solution else f"assignment ({len(todos)} TODO)"
    print(f"{out}: {step} {what}" + (f", previous step {previous}" if previous else ", no previous step"))


if __name__ == "__main__":
    main()
