"""Adds a step to the course in one command, as a copy of the step it builds on, to be changed:
python3 -m course.new_step step16_tiles --from step13_bulk_copies [--change "its one idea"]

Writes the folder (the previous step's reduce.cuh, main.cu and CMakeLists.txt with its names changed, and a
lesson to write), its row in course/steps.csv (after the last one-GPU step), its stubs, its catalogue of
mistakes, its rows of tools/sass_checks.csv, and the course map; then prints what is left to do.
Exit codes: 0 written; 2 bad command line (one line on stderr says why), nothing written."""

import argparse
import csv
import io
import re
import sys
from pathlib import Path

from course import steps

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CHANGE = "(to write: this step's one idea)"


def renamed(text, previous, new):
    """`text` of step `previous` as step `new`'s: the folder name, then the tag (namespace, labels, mutant ids)."""
    text = re.sub(rf"\b{previous.folder}\b", new.folder, text)
    text = re.sub(rf"\b{previous.tag}\b", new.tag, text)
    return re.sub(rf'(id = "s){previous.tag[4:]}-', rf"\g<1>{new.tag[4:]}-", text)


def still_a_copy(step, course=None):
    """True while `step`'s reduce.cuh is its previous step's under the new names: what this command writes."""
    before = steps.previous(step, course)
    files = [ROOT / s.folder / "reduce.cuh" for s in (before, step) if s]
    return len(files) == 2 and all(f.is_file() for f in files) and \
        renamed(files[0].read_text(), before, step) == files[1].read_text()


def fail(message):
    print(f"new_step: error: {message}", file=sys.stderr)
    sys.exit(2)


def checked(args, course):  # the new Step and its previous; exits 2 naming the first problem
    if not steps.FOLDER.fullmatch(args.folder):
        fail(f"'{args.folder}' is not a step folder name: stepNN_name (two digits, then lower-case letters, "
             "digits or _), e.g. step16_tiles")
    if (ROOT / args.folder).exists():
        fail(f"{args.folder} exists already; give a new folder")
    number = int(args.folder[4:6])
    taken = next((s for s in course if s.number == number), None)
    if taken:
        fail(f"step number {number:02d} is taken by {taken.folder}; give another number")
    previous = steps.find(args.previous, course)
    if previous is None:
        fail(f"--from {args.previous}: no such step in course/steps.csv (python3 -m course.steps lists them)")
    if previous.kind != "single":
        fail(f"--from {previous.folder}: a {previous.kind} step; a new step builds on a one-GPU step")
    if "\n" in args.change or not args.change.strip():
        fail("--change: one line of text, the step's one idea")
    new = steps.Step(args.folder, "single", previous.folder, previous.api, "", args.change.strip())
    return new, previous


def lesson(new, previous):  # the lesson's sections, to write: no measured number (python3 -m render writes those)
    return f"""# Step {new.tag[4:]} — (title to write)

(One or two sentences: what this step changes in {previous.folder}, and what that should gain.)

## The idea

(The idea first and short: what the kernel does differently, and why that should help. Every sentence
true of `reduce.cuh`.)

(The figure: drawn from this step's own code by `render/figures.py`: add its drawing to `LESSON_FIGURES`,
run `python3 -m render.figures`, and show `figures/NAME.svg` here with an image link and its alt text.)

## The change

```
diff -u {previous.folder}/reduce.cuh {new.folder}/reduce.cuh
```

(The key lines of that diff, in a `diff` block, each explained.)

## Prediction

(What should change, and by how much, written before measuring: bytes, instructions, launches.)

## Result

(After measuring on each GPU: the headline block, as {previous.folder}/README.md's Result has it, then
`python3 -m render results/h100` and `python3 -m render results/h200` fill it in. Then: did the
prediction hold, and why?)

## Take-away

(One paragraph: the lesson to keep, and what the next step removes.)

## Exercises

Build, run and grade:

```
cmake --build build --target {previous.folder} {new.folder} gpu_tests_{new.tag}
./build/bin/{new.folder} --n 2^24
ctest --test-dir build -L {new.tag} -LE large
```

(Questions to predict, then run; one hands-on change.)
"""


def with_row(manifest_text, new):  # steps.csv with `new`'s row after the last one-GPU step's
    lines = manifest_text.splitlines(keepends=True)
    last = [s.folder for s in steps.load() if s.kind == "single"][-1]
    at = next(i for i, line in enumerate(lines) if line.startswith(f"{last},")) + 1
    row = io.StringIO()
    csv.writer(row, lineterminator="\n").writerow([new.folder, new.kind, new.previous, new.api, new.speed_at,
                                                   new.change])
    return "".join(lines[:at] + [row.getvalue()] + lines[at:])


def with_sass_rows(table_text, new, previous):
    """tools/sass_checks.csv with `previous`'s rows again as `new`'s: its code carried over, which the
    previous step's kernels hold too (previous_passes yes) until the new idea has a row of its own."""
    header = next(line for line in table_text.splitlines() if not line.startswith("#"))
    rows = list(csv.DictReader(io.StringIO(header + "\n" + "".join(
        line for line in table_text.splitlines(keepends=True) if line.startswith(f"{previous.folder},")))))
    out = io.StringIO()
    writer = csv.DictWriter(out, header.split(","), lineterminator="\n")
    for row in rows:  # the reasons of code carried over end in "(carried over)", as the file's rows do
        reason = row["reason"] if row["reason"].endswith("(carried over)") else row["reason"] + " (carried over)"
        writer.writerow(row | dict(step=new.folder, previous_passes="yes", reason=reason))
    return table_text + out.getvalue()


def refresh_course_blocks():  # the pages' blocks drawn from the manifest alone: the course map, the diff counts
    from render import blocks, pages
    kinds = {"course-map": blocks.render_course_map, "step-diffs": blocks.render_step_diffs}
    for page in [ROOT / "README.md", *sorted(ROOT.glob("results/*/README.md"))]:
        text = page.read_text(encoding="utf-8")
        updated = pages.BLOCK.sub(lambda m: m[0] if m["spec"].strip() not in kinds else
                                  f"<!-- results:{m['spec']} -->\n{kinds[m['spec'].strip()](None)}<!-- results:end -->",
                                  text)
        if updated != text:
            page.write_text(updated, encoding="utf-8")


def next_steps(new, previous, course):
    under = [s.folder for s in course if s.kind == "multi_gpu" and s.previous == previous.folder]
    lines = [
        f"1. Make the change in {new.folder}/reduce.cuh (its header comment, `change`, the kernel):",
        f"   diff -u {previous.folder}/reduce.cuh {new.folder}/reduce.cuh",
        f"   cmake --build build --target {new.folder} gpu_tests_{new.tag} && ctest --test-dir build -L {new.tag} -LE large",
        f"2. Replace what was copied from {previous.tag}: the stubs (tools/stubs/{new.folder}.cuh), the mistakes",
        f"   (tests/mutants/{new.folder}.toml; python3 -m tests.mutants.run_mutants --check-catalogue), and in",
        "   tools/sass_checks.csv a row for the new idea that the previous step's kernels fail (previous_passes no).",
        f"3. Write the lesson, {new.folder}/README.md (python3 -m tools.lesson_words --max 1000), and the course",
        "   map's sentence (the change column of course/steps.csv) if --change did not say it.",
        "4. Measure on each GPU, from a build with every step: bench/reproduce.sh build/bin results/h100 (results/h200",
        "   on an H200), then python3 -m render results/h100 and python3 -m render results/h200.",
        f"5. Its speed test: set speed_at in its row of course/steps.csv (log2 of the n where it should beat",
        f"   {previous.folder}), then python3 -m tools.grade_thresholds writes its threshold.",
    ]
    for multi in under:
        lines.append(f"Note: {multi} still runs {previous.folder} on every GPU (its previous in course/steps.csv, "
                     f"left as it was). To run {new.folder} there instead, set its previous to {new.folder} and the "
                     f"defaults of REDUCTION_PREVIOUS_STEP_* in {multi}/reduce.cuh, then measure it again.")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m course.new_step", description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", help="the new step's folder: stepNN_name with a number no step has")
    parser.add_argument("--from", dest="previous", required=True, metavar="PREVIOUS",
                        help="the one-GPU step it builds on (step13_bulk_copies, step13 or 13): what is copied")
    parser.add_argument("--change", default=DEFAULT_CHANGE, help="its one idea, for course/steps.csv and the course map")
    parser.error = fail  # one line, exit 2, as for the refusals below
    args = parser.parse_args(argv)
    try:
        course = steps.load()
    except (OSError, steps.ManifestError) as error:
        fail(str(error))
    new, previous = checked(args, course)

    folder = ROOT / new.folder
    folder.mkdir()
    for name in ("reduce.cuh", "main.cu", "CMakeLists.txt"):
        (folder / name).write_text(renamed((ROOT / previous.folder / name).read_text(), previous, new))
    (folder / "README.md").write_text(lesson(new, previous))
    steps.MANIFEST.write_text(with_row(steps.MANIFEST.read_text(), new))
    written = [f"{new.folder}/ (from {previous.folder}, and README.md: the lesson to write)", "its row in course/steps.csv"]
    stub = ROOT / "tools" / "stubs" / f"{previous.folder}.cuh"
    if stub.is_file():
        (stub.parent / f"{new.folder}.cuh").write_text(renamed(stub.read_text(), previous, new))
        written.append(f"tools/stubs/{new.folder}.cuh")
    mistakes = ROOT / "tests" / "mutants" / f"{previous.folder}.toml"
    if mistakes.is_file():
        (mistakes.parent / f"{new.folder}.toml").write_text(
            f"# These are {previous.folder}'s mistakes under this step's names: replace them with this step's own.\n"
            + renamed(mistakes.read_text(), previous, new))
        written.append(f"tests/mutants/{new.folder}.toml")
    sass = ROOT / "tools" / "sass_checks.csv"
    if sass.is_file():
        sass.write_text(with_sass_rows(sass.read_text(), new, previous))
        written.append(f"{previous.folder}'s rows of tools/sass_checks.csv as {new.folder}'s")
    refresh_course_blocks()
    written.append("the course map in README.md and results/*/README.md")
    print(f"new_step: wrote {'; '.join(written)}.\nTo do next:\n{next_steps(new, previous, course)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
