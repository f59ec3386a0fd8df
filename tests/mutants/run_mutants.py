"""Mutation testing of the course: each mistake in tests/mutants/<step>.toml is applied alone to a
copy of the step's folder, built, and put through the step's tests as tools/grade.py runs them; a
mutant is killed when a test fails (the first one is named) and survives when every test passes.

usage: python3 -m tests.mutants.run_mutants --build-dir DIR --csv OUT [--steps step04,...] [--only ID,...]
           [--jobs N] [--gpu-jobs N] [--large-jobs N] [--timeout-scale F] [--cmake-arg ARG] [--update] [--no-run]
       python3 -m tests.mutants.run_mutants --list [--steps ...] [--only ...]
       python3 -m tests.mutants.run_mutants --check-catalogue

One build tree holds the course and every mutant (CMake option REDUCTION_MUTANTS_DIR, read by
tests/mutants/CMakeLists.txt), built by Ninja in two rounds: every mutant's test program first, then
the executables of the mutants the correctness tests left alive (most mistakes are caught there, and
compiling is most of the run's time). The tests are the current tree's (tests/gpu/ and
tools/speed_test.py), so running this in two checkouts compares two test suites. Per mutant, in this
order, stopping at the first failure: gpu_stepNN (correctness), compiled_code (tools/grade.py's
host-part check of the step's instructions, tools/compiled_code.py, where tools/sass_checks.csv has a
row for the step), speed_stepNN, gpu_stepNN_large, sanitize_stepNN; step 15: step15_usage, _shards,
_one, _single, _mpi. The correctness and sanitizer tests of different mutants run --gpu-jobs at a
time, the large tests --large-jobs at a time, the speed tests one at a time. A GPU test whose kernel
hangs ends itself within seconds, naming the case (tests/gpu/hang_guard.h); a test still running
after its time limit is stopped: the mutant is killed by that test, "timeout" in the note. OUT is
written after each kind of test: a run stopped early leaves its rows, those of mutants still alive
"unfinished".

Statuses: killed, survived, equivalent (survived, and the catalogue argues it cannot be killed), unfinished (a run
stopped before the mutant's last test),
build-error (a catalogue bug: a mutant must compile, unless a static_assert of the step refuses
it: then it is killed by the build, as grade's build check fails), untested (every test was skipped, e.g.
step 15 with one GPU). A mutant marked needs_fix whose `find` text is not in the step is skipped
with a message and no row. OUT ('-': stdout) is a stamped CSV like results/<gpu>/*.csv; with
--update the rows already in OUT for mutants not run now are kept (the stamp is this run's).
Exit: 0 done, 1 a build error or a killed equivalent mutant, 2 bad usage or catalogue.
"""

import argparse
import concurrent.futures
import csv
import functools
import io
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from course import steps as course_steps  # course/steps.csv, the list of steps
from tools import compiled_code  # tools/grade.py's compiled-code check

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
REQUIRED = ("id", "kind", "mistake", "symptom", "find", "replace")
OPTIONAL = ("file", "equivalent", "needs_fix")
KINDS = (
    "barrier-missing", "barrier-misplaced", "barrier-in-branch", "bound-off-by-one", "bound-missing",
    "index-32-bit", "index-wrong", "shuffle-offset", "shuffle-mask", "wrong-identity", "nan-operand",
    "state-left", "read-before-posted", "atomic-scope", "atomic-order", "atomic-missing", "vector-head",
    "vector-tail", "misaligned-input", "small-n", "n-equals-1", "small-block", "grid-size", "partial-count",
    "template-mismatch", "slot-width", "scratch-overlap", "shard-split", "group-missing", "wrong-stream",
    "idea-left-out", "error-dropped", "window-off-by-one", "special-value", "overflow", "signed-zero")
MIN_PER_STEP = 5
ID = re.compile(r"[a-z0-9][a-z0-9-]*")
COLUMNS = ("step", "id", "kind", "mistake", "symptom", "status", "killed_by", "seconds", "gpus", "note")
# Each test's time limit in seconds (--timeout-scale multiplies them): a few times what the
# solution needs on an H200. A GPU test that waits on a hung kernel ends itself within seconds
# (tests/gpu/hang_guard.h); these limits stop anything else that never ends.
LIMITS = {"gpu": 120, "speed": 120, "large": 180, "sanitize": 300, "usage": 60, "shards": 60, "one": 120,
          "single": 300, "mpi": 300}
SKIPPED = 77


class CatalogueError(Exception):
    pass


class Mutant:
    def __init__(self, step, entry, source, multi_gpu=False):
        self.step, self.entry, self.source, self.multi_gpu = step, entry, source, multi_gpu
        self.id = entry["id"]
        self.kind, self.mistake, self.symptom = entry["kind"], entry["mistake"], entry["symptom"]
        self.file = entry.get("file", f"{step}/reduce.cuh")
        finds, replaces = entry["find"], entry["replace"]
        self.edits = list(zip(finds, replaces)) if isinstance(finds, list) else [(finds, replaces)]
        self.equivalent = entry.get("equivalent", "")
        self.needs_fix = entry.get("needs_fix", False)
        self.prefix = "mut_" + self.id.replace("-", "_") + "_"

    @property
    def tag(self):
        return self.step[:6]

    def tests(self):
        """The tests in the order run: cheap ones first, as tools/grade.py's report groups them."""
        if self.multi_gpu:
            return [(f"{self.prefix}{self.tag}_{mode}", mode) for mode in ("usage", "shards", "one", "single", "mpi")]
        code = [(f"{self.prefix}compiled_code", "code")] if compiled_code.rows_of(self.step) else []
        return code + [(f"{self.prefix}gpu_{self.tag}", "gpu"), (f"{self.prefix}speed_{self.tag}", "speed"),
                (f"{self.prefix}gpu_{self.tag}_large", "large"), (f"{self.prefix}sanitize_{self.tag}", "sanitize")]

    def targets(self, stage):
        """What to build: stage "tests", the test programs (step 15: its executable, which its tests
        run, and the programs built with it); stage "exe", a single-GPU step's executable (its
        compiled-code check and its speed test run it), built only for the mutants the correctness
        tests left alive."""
        if self.multi_gpu:
            programs = [self.prefix + self.step, f"{self.prefix}{self.tag}_cases", f"{self.prefix}{self.tag}_shards"]
            return programs if stage == "tests" else []
        return [f"{self.prefix}gpu_tests_{self.tag}"] if stage == "tests" else [self.prefix + self.step]

    def executables(self, build_dir, stage):
        """The files its targets of `stage` make (tests/mutants/CMakeLists.txt says where)."""
        exe = build_dir / "mutants" / self.prefix / self.step
        if self.multi_gpu:
            return ([exe, build_dir / "bin" / f"{self.prefix}{self.tag}_cases", build_dir / "bin" / f"{self.prefix}{self.tag}_shards"]
                    if stage == "tests" else [])
        return [build_dir / "bin" / f"{self.prefix}gpu_tests_{self.tag}"] if stage == "tests" else [exe]

    def patched(self, root):
        """The mutated file's text; None if a needs_fix mutant's text is not there yet."""
        text = (root / self.file).read_text()
        for find, replace in self.edits:
            count = text.count(find)
            if count == 0 and self.needs_fix:
                return None
            if count != 1:
                raise CatalogueError(f"{self.source}: {self.id}: the text to find occurs {count} times in "
                                     f"{self.file}, not once: {find[:60]!r}")
            text = text.replace(find, replace)
        return text


def steps_of(root):
    """The course's steps, in order: course/steps.csv."""
    return course_steps.load(root / "course" / "steps.csv")


def load_catalogue(root=ROOT, catalogue=HERE):
    """Every mutant of every step, checked: keys, kinds, ids, at least MIN_PER_STEP per step, and
    each `find` once in its file (a needs_fix mutant's may be absent). Raises CatalogueError."""
    problems, mutants, seen = [], [], {}
    for row in steps_of(root):
        step, path = row.folder, catalogue / f"{row.folder}.toml"
        if not path.is_file():
            problems.append(f"{path.relative_to(root)}: missing (every step needs its mistakes)")
            continue
        try:
            entries = tomllib.loads(path.read_text()).get("mutant", [])
        except tomllib.TOMLDecodeError as error:
            problems.append(f"{path.name}: {error}")
            continue
        if len(entries) < MIN_PER_STEP:
            problems.append(f"{path.name}: {len(entries)} mutants, at least {MIN_PER_STEP} wanted")
        for number, entry in enumerate(entries, start=1):
            where = f"{path.name}: mutant {number} ({entry.get('id', 'no id')})"
            missing = [key for key in REQUIRED if key not in entry]
            unknown = [key for key in entry if key not in REQUIRED + OPTIONAL]
            if missing or unknown:
                problems.append(f"{where}: " + "; ".join(filter(None, [
                    missing and f"missing {', '.join(missing)}", unknown and f"unknown {', '.join(unknown)}"])))
                continue
            if not isinstance(entry["id"], str) or not ID.fullmatch(entry["id"]):
                problems.append(f"{where}: id must be lower-case letters, digits and '-'")
                continue
            if entry["id"] in seen:
                problems.append(f"{where}: id also used in {seen[entry['id']]}")
            seen[entry["id"]] = path.name
            if entry["kind"] not in KINDS:
                problems.append(f"{where}: kind '{entry['kind']}' is not one of: {', '.join(KINDS)}")
            find, replace = entry["find"], entry["replace"]
            if isinstance(find, list) != isinstance(replace, list) or (
                    isinstance(find, list) and (len(find) != len(replace) or not find)):
                problems.append(f"{where}: find and replace must be two strings or two lists of one length")
                continue
            if not all(isinstance(f, str) and f for f in (find if isinstance(find, list) else [find])):
                problems.append(f"{where}: an empty text to find")
                continue
            if not all(isinstance(entry[key], str) and entry[key].strip() for key in ("mistake", "symptom")):
                problems.append(f"{where}: mistake and symptom must be sentences")
            mutant = Mutant(step, entry, path.name, row.kind == "multi_gpu")
            if Path(mutant.file).parts[0] != step or not (root / mutant.file).is_file():
                problems.append(f"{where}: file {mutant.file} is not a file of {step}/")
                continue
            try:
                mutant.patched(root)
            except CatalogueError as error:
                problems.append(str(error))
                continue
            mutants.append(mutant)
    if problems:
        raise CatalogueError("\n".join(problems))
    return mutants


def select(mutants, steps, only):
    if steps:
        wanted = {s.strip() for s in steps.split(",") if s.strip()}
        known = {m.step for m in mutants} | {m.tag for m in mutants}
        if wanted - known:
            raise CatalogueError(f"--steps: unknown {', '.join(sorted(wanted - known))}")
        mutants = [m for m in mutants if m.step in wanted or m.tag in wanted]
    if only:
        wanted = {s.strip() for s in only.split(",") if s.strip()}
        unknown = wanted - {m.id for m in mutants}
        if unknown:
            raise CatalogueError(f"--only: no mutant {', '.join(sorted(unknown))} (in the steps chosen)")
        mutants = [m for m in mutants if m.id in wanted]
    return mutants


def log(message):
    print(message, file=sys.stderr, flush=True)


# --- build -------------------------------------------------------------------------------------

def write_if_changed(path, text):
    """Leaves an unchanged file alone, so that Ninja rebuilds only what changed."""
    if not path.is_file() or path.read_text() != text:
        path.write_text(text)


def write_sources(mutants, folder):
    """One folder per mutant: a copy of its step's folder with the mistake in it; and the list
    tests/mutants/CMakeLists.txt reads. Returns the mutants written (needs_fix ones without their
    text are left out, with a message)."""
    folder.mkdir(parents=True, exist_ok=True)
    written, lines = [], []
    for m in mutants:
        text = m.patched(ROOT)
        if text is None:
            log(f"skipped {m.id}: needs_fix, and its text is not in {m.file} yet "
                f"(the mutant reverts a fix the solution does not have)")
            continue
        target = folder / m.prefix.rstrip("_")
        target.mkdir(exist_ok=True)
        for source in (ROOT / m.step).iterdir():
            if source.is_file():
                write_if_changed(target / source.name, source.read_text())
        write_if_changed(target / Path(m.file).name, text)
        lines.append(f"reduction_add_mutant({m.step} {m.prefix} \"{target}\")")
        written.append(m)
    write_if_changed(folder / "mutants.cmake", "# Written by tests/mutants/run_mutants.py\n" + "\n".join(lines) + "\n")
    return written


def run_logged(command, log_file, **options):
    log_file.write(f"$ {shlex.join(map(str, command))}\n")
    log_file.flush()
    return subprocess.run(command, stdout=log_file, stderr=subprocess.STDOUT, **options).returncode


def build(mutants, build_dir, jobs, cmake_args, log_path, stage):
    """Configures (stage "tests") and builds the mutants' targets of `stage` with `ninja -k 0`;
    returns {id: error lines} for the mutants whose targets did not build."""
    previous = {step.folder: step.previous for step in steps_of(ROOT)}
    # The course's executables by their files: a mutant's executable has its step's name (speed_test.py
    # looks it up by that), and Ninja may give that name to the mutant's file rather than the step's.
    targets = ["reduction_gpu_probe", "bin/step01_interleaved"] if stage == "tests" else []  # the CSV's stamp
    for m in mutants:
        targets += m.targets(stage)
        if stage == "exe" and previous.get(m.step):
            targets.append(f"bin/{previous[m.step]}")  # the speed check's baseline
    targets = list(dict.fromkeys(targets))
    for m in mutants:  # so that a mutant that no longer builds cannot pass with an old executable
        for exe in m.executables(build_dir, stage):
            exe.unlink(missing_ok=True)
    with open(log_path, "a" if stage == "exe" else "w") as log_file:
        if stage == "tests":
            generator = [] if (build_dir / "CMakeCache.txt").is_file() else ["-G", "Ninja"]
            code = run_logged(["cmake", "-S", ROOT, "-B", build_dir, *generator, "-DCMAKE_BUILD_TYPE=Release",
                               f"-DREDUCTION_MUTANTS_DIR={build_dir / 'mutant-sources'}", *cmake_args], log_file)
            if code != 0:
                raise SystemExit(f"run_mutants.py: cmake could not configure {build_dir}; see {log_path}")
        if targets:
            run_logged(["ninja", "-C", build_dir, "-k", "0", "-j", str(jobs), *targets], log_file)
    lines = log_path.read_text().splitlines()
    failed_lines = [line for line in lines if line.startswith("FAILED:")]
    errors = {}
    for m in mutants:
        if not all(exe.is_file() for exe in m.executables(build_dir, stage)):
            # a static_assert of the step refusing the mistake: grade's build check fails, the mutant is killed
            refused = [line for line in lines if m.prefix.rstrip("_") in line and "static assertion failed" in line]
            errors[m.id] = refused[:1] or [line for line in failed_lines if m.prefix in line] or ["did not build"]
    return errors


def mark_build_errors(records, errors):
    for record in records:
        if record.mutant.id in errors and not record.status:
            note = errors[record.mutant.id][0]
            if "static assertion failed" in note:
                record.status, record.killed_by = "killed", "build"
                record.notes = ["the step's static_assert refuses it: " + note.split("error:")[-1].strip()]
            else:
                record.status, record.notes = "build-error", [note]


# --- tests -------------------------------------------------------------------------------------

def run_test(build_dir, name, limit, env=None):
    """(outcome, note) of one CTest test: outcome pass, fail, skip or timeout."""
    with tempfile.TemporaryDirectory(prefix="mutant-") as work:
        junit = Path(work) / "ctest.xml"
        command = ["ctest", "--test-dir", str(build_dir), "-R", f"^{re.escape(name)}$", "--output-on-failure",
                   "--output-junit", str(junit)]
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                   start_new_session=True, env=env)
        try:
            output, _ = process.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            return "timeout", f"{name} still running after {limit:.0f} s: stopped"
        if "***Timeout" in output:
            return "timeout", f"{name} passed its CTest time limit"
        # by name: ctest adds the fixture a test requires (large_reference) to the run
        cases = [case for case in (ElementTree.parse(junit).getroot().iter("testcase") if junit.is_file() else [])
                 if case.get("name") == name]
        if not cases:  # the test tree is broken, not the mutant: stop rather than count a kill
            why = [line.strip() for line in output.splitlines() if "error" in line.lower()][:2]
            raise SystemExit(f"run_mutants.py: ctest ran no test {name} (exit {process.returncode})"
                             + (": " + " ".join(why) if why else ""))
        status = cases[0].get("status")
        if status == "run":
            return "pass", ""
        if status in ("notrun", "disabled"):
            lines = (cases[0].findtext("system-out") or "").splitlines()
            reasons = [line for line in lines if line.startswith("SKIPPED")]
            return "skip", (reasons[-1] if reasons else f"{name} skipped")
        hung = [line for line in (cases[0].findtext("system-out") or "").splitlines() if line.startswith("HUNG: ")]
        return "fail", (hung[0].split(": waited")[0] + ": hung, ended by the test's bound" if hung else "")


class Record:
    def __init__(self, mutant):
        self.mutant, self.status, self.killed_by, self.seconds, self.notes = mutant, "", "", 0.0, []
        self.skipped = []

    def row(self):
        """Its CSV row; a mutant still alive while tests remain is "unfinished" (a run cut short)."""
        m = self.mutant
        notes = list(self.notes)
        if self.skipped:
            notes.append("skipped: " + ", ".join(self.skipped))
        if m.equivalent and self.status in ("equivalent", "killed"):
            notes.append(("argued equivalent, yet killed: " if self.status == "killed" else "equivalent: ")
                         + m.equivalent)
        return {"step": m.step, "id": m.id, "kind": m.kind, "mistake": m.mistake, "symptom": m.symptom,
                "status": self.status or "unfinished", "killed_by": self.killed_by, "seconds": f"{self.seconds:.1f}",
                "gpus": str(visible_gpus()), "note": "; ".join(notes)}


@functools.cache
def visible_gpus():
    """The GPUs this run's tests could use (nvidia-smi's list; 0 without it): step 15's cases run for
    every K up to it, so its rows say which K were tried."""
    try:
        listed = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return 0
    return sum(line.startswith("GPU ") for line in listed.stdout.splitlines()) if listed.returncode == 0 else 0


def shared_gpu_env(kind, parallel):
    """The environment of a correctness test run beside parallel - 1 others. Programs that share the GPU
    take turns on it, and one that runs long kernels (step 14's test program is 8 such processes) makes
    every other wait for its turn: a case of milliseconds can then wait seconds. Its hang bound
    (tests/gpu/hang_guard.h, 5 s for a small input) grows with the tests run at once, parallel / 2 times:
    at the default 8, a hung kernel still ends its test in about 20 s. The sanitizer runs keep their own
    scale (tests/gpu/sanitize.sh)."""
    if kind != "gpu" or parallel <= 2:
        return None
    return dict(os.environ, REDUCTION_TEST_TIME_SCALE=str(parallel / 2))


def test_phase(records, build_dir, kind, parallel, scale):
    """Runs the test of this kind of every mutant still alive, `parallel` at a time."""
    alive = [r for r in records if not r.status]
    jobs = []
    for record in alive:
        for name, test_kind in record.mutant.tests():
            if test_kind == kind:
                jobs.append((record, name))
    if not jobs:
        return
    log(f"== {kind}: {len(jobs)} test(s), {parallel} at a time")

    def one(job):
        record, name = job
        start = time.monotonic()
        if kind == "code":  # tools/grade.py's compiled-code check (host part), on the mutant's executable
            exe = build_dir / "mutants" / record.mutant.prefix / record.mutant.step
            code, text = compiled_code.run_check(record.mutant.step, exe, compiled_code.find_cuobjdump())
            outcome = {0: "pass", compiled_code.NOT_CHECKED: "skip"}.get(code, "fail")
            note = "" if outcome == "pass" else text.splitlines()[0]
            return record, name, outcome, note, time.monotonic() - start
        outcome, note = run_test(build_dir, name, LIMITS[kind] * scale, shared_gpu_env(kind, parallel))
        return record, name, outcome, note, time.monotonic() - start

    with concurrent.futures.ThreadPoolExecutor(max_workers=parallel) as pool:
        for record, name, outcome, note, seconds in pool.map(one, jobs):
            record.seconds += seconds
            shown = name.removeprefix(record.mutant.prefix)
            if outcome in ("fail", "timeout"):
                record.status, record.killed_by = "killed", shown
                if note:
                    record.notes.append(note.replace(name, shown))
            elif outcome == "skip":
                record.skipped.append(shown)
            log(f"   {record.mutant.id:32} {shown:22} {outcome}")


def run_tests(records, build_dir, gpu_jobs, large_jobs, scale, build_exes=lambda alive: None,
              after_phase=lambda: None):
    """The correctness tests first, then for the mutants they left alive build_exes(records) (their
    executables), the compiled-code check and the rest in grade's order. Correctness and sanitizers
    share the GPU, `large_jobs` 8 GiB cases at once, timing alone. after_phase() runs after each kind
    of test (the CSV so far is written there)."""
    for kind, parallel in (("usage", gpu_jobs), ("shards", gpu_jobs), ("gpu", gpu_jobs), ("one", 1), ("single", 1),
                           ("mpi", 1), ("code", gpu_jobs), ("speed", 1), ("large", large_jobs),
                           ("sanitize", gpu_jobs)):
        if kind == "code":
            build_exes([r for r in records if not r.status])
        test_phase(records, build_dir, kind, parallel, scale)
        after_phase()
    for record in records:
        if record.status:
            continue
        if len(record.skipped) == len(record.mutant.tests()):
            record.status = "untested"
        else:
            record.status = "equivalent" if record.mutant.equivalent else "survived"


def stamp_lines(build_dir, command):
    """The stamp of the course's CSVs (GPU, driver, date, commit), from step 01's own --csv."""
    exe = build_dir / "bin" / "step01_interleaved"
    run = subprocess.run([exe, "--n", "1024", "--iters", "1", "--warmup", "0", "--csv"], capture_output=True,
                         text=True)
    if run.returncode != 0:
        raise SystemExit(f"run_mutants.py: {exe} --csv failed (exit {run.returncode}): "
                         f"{(run.stderr.strip() or run.stdout.strip())[-300:]}")
    lines = [line for line in run.stdout.splitlines() if line.startswith("#") and not line.startswith("# command:")]
    return lines + [f"# command: {command}"]


def kept_rows(out, records, catalogue):
    """--update: the rows of an earlier OUT for mutants not run now and still in the catalogue."""
    if out == "-" or not Path(out).is_file():
        return []
    lines = [line for line in Path(out).read_text().splitlines() if line.strip() and not line.startswith("#")]
    ran = {record.mutant.id for record in records}
    # a row from before the gpus column keeps it empty: how many GPUs that run had is not known here
    return [row for row in csv.DictReader(lines) if row.get("id") in catalogue and row["id"] not in ran]


def earlier_runs(out):
    """--update: the runs whose rows an earlier OUT holds, one '# earlier:' line each (its own and those it kept)."""
    if out == "-" or not Path(out).is_file():
        return []
    lines = Path(out).read_text().splitlines()
    kept = [line for line in lines if line.startswith("# earlier: ")]
    stamp = dict(line[2:].split(": ", 1) for line in lines if line.startswith("# ") and ": " in line)
    own = f"# earlier: {stamp.get('date_utc', '?')}; commit {stamp.get('commit', '?')}; {stamp.get('command', '?')}"
    return kept + [own]


def write_csv(records, stamp, out, earlier=()):
    """The rows in the catalogue's order: this run's, and --update's earlier ones."""
    order = {m.id: i for i, m in enumerate(load_catalogue())}
    rows = sorted([r.row() for r in records] + [{c: row.get(c, "") for c in COLUMNS} for row in earlier],
                  key=lambda row: order.get(row["id"], len(order)))
    text = io.StringIO()
    text.write("\n".join(stamp) + "\n")
    writer = csv.DictWriter(text, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow(row)
    if out == "-":
        sys.stdout.write(text.getvalue())
    else:
        Path(out).write_text(text.getvalue())


def main(argv):
    parser = argparse.ArgumentParser(prog="run_mutants.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--build-dir", type=Path, help="the build tree of the course and its mutants")
    parser.add_argument("--csv", help="the results file to write ('-': standard output)")
    parser.add_argument("--steps", help="only these steps (stepNN or folder names, comma-separated)")
    parser.add_argument("--only", help="only these mutant ids (comma-separated)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="parallel compile jobs")
    parser.add_argument("--gpu-jobs", type=int, default=8,
                        help="correctness and sanitizer tests run at once on the GPU (default 8)")
    parser.add_argument("--large-jobs", type=int, default=1,
                        help="tests of 8 GiB inputs run at once (default 1; 4 on a GPU of 80 GiB or more)")
    parser.add_argument("--timeout-scale", type=float, default=1.0, help="multiplies every test's time limit")
    parser.add_argument("--cmake-arg", action="append", default=[], help="passed to cmake when configuring")
    parser.add_argument("--update", action="store_true",
                        help="keep OUT's rows of the mutants not run now (to run the catalogue a few steps at a time)")
    parser.add_argument("--no-run", action="store_true", help="build the mutants, run nothing")
    parser.add_argument("--list", action="store_true", help="print the catalogue and exit")
    parser.add_argument("--check-catalogue", action="store_true",
                        help="check every catalogue file and exit (the host test mutant_catalogue)")
    args = parser.parse_args(argv)

    try:
        mutants = select(load_catalogue(), args.steps, args.only)
    except CatalogueError as error:
        print(f"run_mutants.py: catalogue error:\n{error}", file=sys.stderr)
        return 2
    if args.check_catalogue:
        counts = {}
        for m in mutants:
            counts[m.tag] = counts.get(m.tag, 0) + 1
        print(f"{len(mutants)} mutants: " + ", ".join(f"{tag} {count}" for tag, count in sorted(counts.items())))
        return 0
    if args.list:
        for m in mutants:
            flags = " [equivalent]" if m.equivalent else " [needs_fix]" if m.needs_fix else ""
            print(f"{m.step:22} {m.id:32} {m.kind:20}{flags}\n    {m.mistake}")
        return 0
    if not args.build_dir or (not args.csv and not args.no_run):
        parser.error("--build-dir and --csv are needed (or --no-run, --list, --check-catalogue)")
    if args.jobs < 1 or args.gpu_jobs < 1 or args.large_jobs < 1 or args.timeout_scale <= 0:
        parser.error("--jobs, --gpu-jobs and --large-jobs must be at least 1, --timeout-scale above 0")
    if not shutil.which("ninja"):
        parser.error("ninja not found: the mutants are built with Ninja")

    build_dir = args.build_dir.resolve()
    build_dir.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("REDUCTION_COMMIT", subprocess.run(
        ["git", "-C", ROOT, "describe", "--always", "--exclude=*", "--dirty=+uncommitted"], capture_output=True,
        text=True).stdout.strip() or "unknown")
    mutants = write_sources(mutants, build_dir / "mutant-sources")
    log_path = build_dir / "mutants-build.log"
    log(f"building the test programs of {len(mutants)} mutants in {build_dir} (log: {log_path})")
    start = time.monotonic()
    errors = build(mutants, build_dir, args.jobs, args.cmake_arg, log_path, "tests")
    log(f"built in {time.monotonic() - start:.0f} s; {len(errors)} build error(s)")
    for mutant_id, lines in errors.items():
        log(f"BUILD ERROR {mutant_id}: " + " | ".join(lines[:3]))
    if args.no_run:
        more = build(mutants, build_dir, args.jobs, args.cmake_arg, log_path, "exe")
        return 1 if errors or more else 0

    records = [Record(m) for m in mutants]
    mark_build_errors(records, errors)

    def build_exes(alive):
        wanted = [r.mutant for r in alive if not r.mutant.multi_gpu]
        if not wanted:
            return
        begun = time.monotonic()
        log(f"== building the executables of the {len(wanted)} mutant(s) still alive")
        more = build(wanted, build_dir, args.jobs, args.cmake_arg, log_path, "exe")
        log(f"built in {time.monotonic() - begun:.0f} s; {len(more)} build error(s)")
        errors.update(more)
        mark_build_errors(records, more)

    start = time.monotonic()
    command = "python3 -m tests.mutants.run_mutants " + shlex.join(argv)
    earlier = kept_rows(args.csv, records, {m.id for m in load_catalogue()}) if args.update else []
    stamp = stamp_lines(build_dir, command)
    if earlier:  # the stamp describes this run; the runs whose rows are kept are named below it
        stamp = stamp + earlier_runs(args.csv)
    # written after every kind of test, so that a run stopped early still leaves what it found
    written = lambda: args.csv != "-" and write_csv(records, stamp, args.csv, earlier)
    run_tests(records, build_dir, args.gpu_jobs, args.large_jobs, args.timeout_scale, build_exes, written)
    log(f"tested in {time.monotonic() - start:.0f} s")
    write_csv(records, stamp, args.csv, earlier)

    totals = {}
    for record in records:
        totals[record.status] = totals.get(record.status, 0) + 1
    log("result: " + ", ".join(f"{count} {status}" for status, count in sorted(totals.items())))
    refuted = [r.mutant.id for r in records if r.status == "killed" and r.mutant.equivalent]
    if refuted:
        log(f"argued equivalent but killed (fix the catalogue): {', '.join(refuted)}")
    catalogue_bugs = [i for i, lines in errors.items() if not any("static assertion failed" in l for l in lines)]
    return 1 if catalogue_bugs or refuted else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
