"""Grades one step in two parts, scored apart: the host part (any machine) and the GPU part (tools/README.md).
usage: ./grade [options] in an assignment folder, python3 -m tools.grade --step stepNN [options] in the course tree."""

import collections
import ctypes
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from tools import classroom, compiled_code

HERE = Path(__file__).resolve().parent  # tools/, in the course tree and in an assignment
EXIT_PASS, EXIT_FAIL, EXIT_NOT_GRADED, EXIT_HOST_ONLY = 0, 1, 3, 4  # 4: the host part passed, the GPU part not run
HOST_ARCHITECTURES = "75-real;80-real;90"  # sm_75 and sm_80 machine code, sm_90 machine code and PTX
GROUPS = {"build": "build for sm_75, sm_80, sm_90", "host-tests": "host tests", "todo": "no TODO left",
          "compiled-code": "compiled code", "correctness": "correctness", "sanitizer": "sanitizers", "speed": "speed"}
PART = {group: "host part" if group in classroom.HOST_POINTS else "GPU part" for group in GROUPS}
GRADESCOPE_DEFAULT = Path("/autograder/results/results.json")  # where Gradescope reads it


class Check(collections.namedtuple("Check", "group name status detail output points", defaults=("", "", 0))):
    score = property(lambda self: self.points if self.status == "pass" else 0)  # status: pass, fail or skip; points: the most


class Target(collections.namedtuple("Target", "root step previous assignment")):
    tag = property(lambda self: self.step[:6])


def find_target(args, parser):
    root, config_path = HERE.parent, HERE.parent / "assignment.cfg"
    if bool(args.step) == config_path.is_file():
        parser.fail("--step is for the course tree: in an assignment folder run ./grade alone" if args.step else
                    "run me in an assignment folder (one with assignment.cfg), or give --step stepNN in the course tree")
    lines = [] if args.step else config_path.read_text().splitlines()  # assignment.cfg: key=value lines
    values = dict(map(str.strip, line.split("=", 1)) for line in lines if "=" in line and not line.startswith("#"))
    step = classroom.find_step(parser, args.step or values.get("step", ""), root)
    return Target(root, step.folder, step.previous or None, bool(values))


def run(command, log, **options):  # (exit code, output), the output also in the log
    log.write(f"$ {' '.join(map(str, command))}\n")
    try:
        result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **options)
    except OSError as error:
        log.write(f"{error}\n")
        return 127, str(error)
    log.write(result.stdout)
    return result.returncode, result.stdout


def last_lines(text, count=25):
    return "\n".join(text.rstrip().splitlines()[-count:])


def compile_errors(output):
    errors = [line for line in output.splitlines() if "error" in line.lower()]
    return "\n".join(errors[:20]) or last_lines(output)


def cache_value(build_dir, key):
    cache = Path(build_dir) / "CMakeCache.txt"
    lines = cache.read_text(errors="replace").splitlines() if cache.is_file() else []
    return next((line.split("=", 1)[1] for line in lines if line.startswith(key + ":")), None)


def configured_elsewhere(root, build_dir):  # the folders a stale cache was made for, or None
    home, cache_dir = (cache_value(build_dir, key) for key in ("CMAKE_HOME_DIRECTORY", "CMAKE_CACHEFILE_DIR"))
    if home is None or cache_dir is None:
        return None
    same = Path(home).resolve() == Path(root).resolve() and Path(cache_dir).resolve() == Path(build_dir).resolve()
    return None if same else (home, cache_dir)


def configure(root, build_dir, log, *options):  # a build folder copied or moved with its assignment: afresh
    stale = configured_elsewhere(root, build_dir)
    if stale:
        print(f"grade: {build_dir} was configured for {stale[0]} (in {stale[1]}): the folder was copied or moved; "
              "configuring afresh", flush=True)
    fresh = ["--fresh"] if stale else []
    ninja = ["-G", "Ninja"] if (stale or not (build_dir / "CMakeCache.txt").exists()) and shutil.which("ninja") else []
    return run(["cmake", "-S", root, "-B", build_dir, *fresh, *ninja, *options], log)


def listed_tests(build_dir, tag):  # {name: labels} of the tests labelled `tag`
    result = subprocess.run(["ctest", "--test-dir", build_dir, "--show-only=json-v1", "-L", f"^{tag}$"],
                            capture_output=True, text=True)
    tests = json.loads(result.stdout).get("tests", []) if result.returncode == 0 else []
    return {test["name"]: next((p["value"] for p in test.get("properties", []) if p.get("name") == "LABELS"), [])
            for test in tests}


def gpu_listed():  # '' when the NVIDIA driver sees a GPU, else why not (the programs' words: common/device_info.h)
    try:
        cuda, count = ctypes.CDLL("libcuda.so.1"), ctypes.c_int(0)
    except OSError:
        return "no NVIDIA driver is installed (libcuda not found)"
    status = cuda.cuInit(0) or cuda.cuDeviceGetCount(ctypes.byref(count))
    if status == 100 or (status == 0 and count.value == 0):  # CUDA_ERROR_NO_DEVICE
        return "the NVIDIA driver sees no GPU"
    return f"the NVIDIA driver failed to start (CUresult {status})" if status else ""


def host_check(group, status, detail, output="", name=None):  # name: what the check reads, where the group's is vague
    name = name or ("build" if group == "build" else GROUPS[group])
    return Check(group, name, status, detail, output, classroom.HOST_POINTS[group])


def run_tests(build_dir, names, junit, log, env=None):  # (exit code, output, a Check per test run)
    code, output = run(["ctest", "--test-dir", build_dir, "-R", "^(" + "|".join(map(re.escape, names)) + ")$",
                        "--output-on-failure", "--output-junit", junit], log, env=env)
    return code, output, checks_from_junit(junit, names) if junit.is_file() else []


def step_targets(target):  # the step, and the programs a multi-GPU step's tests run (targets of their own)
    programs = [f"{target.tag}_{kind}" for kind in ("cases", "shards")
                if (target.root / "tests" / "gpu" / f"{target.tag}_{kind}.cu").is_file()]
    return [target.step, *programs]


def built_for(architectures):  # the build check's words: "sm_75, sm_80 and sm_90" for 75-real;80-real;90
    names = [f"sm_{entry.split('-')[0]}" for entry in architectures.split(";")]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def host_part(target, build_dir, log, jobs, work, architectures=HOST_ARCHITECTURES):  # its checks, {name: labels} of its tests
    code, output = configure(target.root, build_dir, log, f"-DCMAKE_CUDA_ARCHITECTURES={architectures}")
    tests = listed_tests(build_dir, target.tag) if code == 0 else {}
    build = host_check("build", "fail", "cmake could not configure the project", last_lines(output))
    if code == 0:
        code, output = run(["cmake", "--build", build_dir, "--parallel", str(jobs), "--target", *step_targets(target)], log)
        fewer = "" if architectures == HOST_ARCHITECTURES else f" (--architectures: not {built_for(HOST_ARCHITECTURES)})"
        build = (host_check("build", "pass", f"built for {built_for(architectures)} (Release){fewer}") if code == 0 else
                 host_check("build", "fail", "the code does not compile", compile_errors(output)))
    checks, built = [build], build.status == "pass"
    host_tests = [name for name, labels in tests.items() if "host" in labels]
    if not built:  # scored in every tree alike: a missing test is a failed check, not fewer points
        checks.append(host_check("host-tests", "fail", "not run: the build failed"))
    elif not host_tests:
        checks.append(host_check("host-tests", "fail", f"no test labelled host and {target.tag} (ctest -L {target.tag})"))
    else:
        ran = run_tests(build_dir, host_tests, work / "host.xml", log)[2]
        bad = [c for c in ran if c.status != "pass"] + [Check("", t, "fail", "did not run") for t in host_tests
                                                         if t not in {c.name for c in ran}]
        details = "\n".join(f"{c.name}: {c.detail}\n{c.output}".strip() for c in bad)
        checks.append(host_check("host-tests", "fail" if bad else "pass",
                                 f"{len(host_tests) - len(bad)} of {len(host_tests)} passed ({', '.join(host_tests)})",
                                 details))
    path = target.root / target.step / "reduce.cuh"
    left = [f"{target.step}/reduce.cuh:{number}: {line.strip()}"
            for number, line in enumerate(path.read_text().splitlines(), start=1) if "TODO" in line]
    checks.append(host_check("todo", "fail", f"{len(left)} TODO line(s) left", "\n".join(left)) if left else
                  host_check("todo", "pass", f"{target.step}/reduce.cuh has no TODO line"))
    described = compiled_code.describe(target.step)  # SASS, host calls, or both
    if compiled_code.rows_of(target.step) and not built:
        checks.append(host_check("compiled-code", "fail", "not checked: the build failed", name=described))
    elif compiled_code.rows_of(target.step):
        tool = compiled_code.find_cuobjdump(cache_value(build_dir, "CMAKE_CUDA_COMPILER"))
        exe = build_dir / "bin" / target.step
        log.write(f"$ python3 -m tools.compiled_code {target.step} {exe} --cuobjdump {tool}\n")
        code, text = compiled_code.run_check(target.step, exe, tool)
        failed = text.count("MISSING") + text.count("WRONG COUNT")  # none at exit 2: a file is not there
        status, detail = {0: ("pass", "the step's compiled code holds its idea"),
                          compiled_code.NOT_CHECKED: ("skip", text.splitlines()[0])}.get(
            code, ("fail", f"{failed} check(s) of the step's compiled code failed" if failed else text.splitlines()[0]))
        checks.append(host_check("compiled-code", status, detail, text, name=described))
    return checks, tests


def unusable_reference_tree(target, tree):  # why `tree` cannot give an assignment its reference solution, or ""
    if not tree:  # the course tree is wherever the instructor keeps it: assignment.cfg holds no path
        return f"--reference in an assignment needs --reference-tree DIR, the course tree (with {target.step}/reduce.cuh)"
    found = (tree / target.step / "reduce.cuh").is_file()
    return "" if found else f"{tree} is not the course tree: it has no {target.step}/reduce.cuh"


def reference_build(target, args, work, log, jobs):  # (executable, why not) of the reference solution
    if target.assignment:
        tree = args.reference_tree
        if why := unusable_reference_tree(target, tree):  # main refuses it first; here for a direct call
            return None, why
    else:  # the step as committed, next to the working copy being graded
        archive = subprocess.run(["git", "-C", target.root, "archive", "HEAD"], capture_output=True)
        if archive.returncode != 0:
            return None, "the course tree is not a git checkout: no committed reference"
        subprocess.run(["tar", "-x", "-C", work], input=archive.stdout, check=True)
        tree = work
    source, build_dir = tree / target.step, work / "reference-build"
    code, output = run(["cmake", "-S", source, "-B", build_dir, "-DREDUCTION_BUILD_TESTS=OFF"], log)
    if code == 0:
        code, output = run(["cmake", "--build", build_dir, "--parallel", str(jobs), "--target", target.step], log)
    exe = build_dir / "bin" / target.step
    if code != 0 or not exe.is_file():
        return None, "the reference solution did not build: " + last_lines(output, 3)
    return exe, ""


def gpu_check(name, status, detail, output=""):
    group = "sanitizer" if name.startswith("sanitize") else "speed" if name.startswith("speed") else "correctness"
    return Check(group, name, status, detail, output, classroom.gpu_points(name))


def checks_from_junit(path, names):  # the tests named, not the fixtures ctest ran for them (large_reference)
    checks = []
    for case in ElementTree.parse(path).getroot().iter("testcase"):
        name = case.get("name", "?")
        if name not in names:
            continue
        lines = (case.findtext("system-out") or "").strip().splitlines()
        status = {"run": "pass", "notrun": "skip", "disabled": "skip"}.get(case.get("status"), "fail")
        reasons = [line for line in lines if line.startswith("SKIPPED")] or ["skipped"]
        detail, shown = {"pass": ("", []), "fail": ("failed", lines[-40:]), "skip": (reasons[-1], lines[-40:])}[status]
        if name.startswith("speed") and lines and lines[-1].startswith(("speed: ", "SKIPPED")):
            detail, shown = lines[-1].removeprefix("speed: "), lines[:-1]
        checks.append(gpu_check(name, status, detail, "\n".join(shown)))
    return checks


def not_graded(test_names, why):
    return [gpu_check(name, "skip", "not graded: no GPU on this machine", why) for name in test_names]


def gpu_build_dir(args, target, host_dir):  # --build-dir, else build/ if a CMake build of this folder, else host_dir
    home, student = cache_value(target.root / "build", "CMAKE_HOME_DIRECTORY"), (target.root / "build").resolve()
    mine = home and Path(home).resolve() == target.root.resolve()
    return args.build_dir.resolve() if args.build_dir else student if mine else host_dir


def gpu_part(target, args, test_names, host_dir, log, work, env):  # its checks, and why no usable GPU if none
    build_dir, tag = gpu_build_dir(args, target, host_dir), target.tag
    print(f"grade: building the GPU tests in {build_dir}", flush=True)
    ready = (build_dir / "CMakeCache.txt").exists() and not configured_elsewhere(target.root, build_dir)
    code, output = (0, "") if ready else configure(target.root, build_dir, log)
    only = [] if target.assignment else [  # in the course tree, only what this grade needs
        "--target", *step_targets(target), *filter(None, [target.previous]), f"gpu_tests_{tag}", "reduction_gpu_probe"]
    if code == 0:
        code, output = run(["cmake", "--build", build_dir, "--parallel", str(args.jobs), *only], log)
    test_names = test_names or [name for name, labels in listed_tests(build_dir, tag).items() if "host" not in labels]
    if code != 0:
        return [gpu_check(n, "fail", "not run: the GPU build failed", compile_errors(output)) for n in test_names], ""
    code, output = run([build_dir / "bin" / "reduction_gpu_probe"], log)
    gpu_why = (output.strip() or "no usable CUDA device") if code == 77 else ""  # 77, "skipped": no usable GPU
    checks = []
    if args.reference:
        exe, why = reference_build(target, args, work, log, args.jobs)
        env["REDUCTION_SPEED_REFERENCE"] = str(exe or "")
        if not exe:
            checks.append(Check("speed", "reference", "fail", why))
    print(f"grade: running the GPU tests of {tag}", flush=True)
    code, output, ran = run_tests(build_dir, test_names, work / "ctest.xml", log, env)
    checks += ran or [Check("correctness", f"ctest -L {tag}", "fail", f"no GPU test of {tag} ran (exit {code})",
                            last_lines(output), sum(map(classroom.gpu_points, test_names)))]
    return checks, gpu_why


def totals(checks, part):
    mine = [c for c in checks if PART[c.group] == part]
    return sum(c.score for c in mine), sum(c.points for c in mine)


def report(target, checks, gpu_why, host_only, only=()):  # only: the host part's checks asked for (--check)
    print(f"\n=== grade report: {target.step}" + (f" (previous step {target.previous})" if target.previous else "") + " ===")
    for part in [part for part in ("host part", "GPU part") if any(PART[c.group] == part for c in checks)]:
        print("{}: {} of {} points".format(part, *totals(checks, part)))
        for group in [g for g in GROUPS if PART[g] == part and any(c.group == g for c in checks)]:
            members = [c for c in checks if c.group == group]
            counts = collections.Counter(c.status for c in members)
            print(f"  {GROUPS[group]}: {counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped")
            for check in members:
                print(f"    {check.status.upper():4}  {check.name} ({check.score}/{check.points})" +
                      (f": {check.detail}" if check.detail else ""))
                shown = check.output if check.output.strip() != check.detail.strip() else ""
                if shown and (check.status != "pass" or group in ("speed", "compiled-code")):
                    print("\n".join("          " + line for line in shown.splitlines()))
    failed, skipped = ([c.name for c in checks if c.status == status] for status in ("fail", "skip"))
    what = "the host part" if host_only else "the GPU tests and the speed check"
    graded = "host part" + (f" ({', '.join(only)} only)" if only else "")
    verdicts = (  # the first that holds
        (failed, EXIT_FAIL, f"FAIL ({len(failed)} check(s) failed: {', '.join(failed)})"),
        (gpu_why, EXIT_NOT_GRADED, f"NOT GRADED: no usable GPU ({gpu_why}); {what} need an NVIDIA GPU, "
                                   "and a skipped test is never a pass"),
        (skipped, EXIT_NOT_GRADED, f"NOT GRADED: {len(skipped)} check(s) skipped ({', '.join(skipped)}); "
                                   "a skipped test is never a pass"),
        (host_only, EXIT_HOST_ONLY, f"{graded}: PASS; GPU part: not run"),  # never a full pass
        (True, EXIT_PASS, "PASS"))
    code, verdict = next((code, verdict) for holds, code, verdict in verdicts if holds)
    print(f"overall: {verdict}")
    return code, verdict


def junit_report(step, checks, verdict):  # JUnit XML of every check: a skip is <skipped message="why"/>
    suite = ElementTree.Element("testsuite", name=f"grade {step}", tests=str(len(checks)),
                                failures=str(sum(c.status == "fail" for c in checks)),
                                skipped=str(sum(c.status == "skip" for c in checks)))
    ElementTree.SubElement(suite, "properties").append(ElementTree.Element("property", name="verdict", value=verdict))
    for check in checks:
        case = ElementTree.SubElement(suite, "testcase", name=check.name, classname=f"{step}.{PART[check.group].split()[0]}",
                                      status={"pass": "run", "fail": "fail", "skip": "notrun"}[check.status])
        if check.status != "pass":  # a skip's one-line output (why no GPU) joins its message
            one_line = check.output.strip() if check.status == "skip" and "\n" not in check.output.strip() else ""
            message = check.detail + (f" ({one_line})" if one_line and one_line != check.detail else "")
            ElementTree.SubElement(case, "skipped" if check.status == "skip" else "failure",
                                   message=message or check.status)
        text = "\n".join(filter(None, [check.detail, check.output]))
        if text:
            ElementTree.SubElement(case, "system-out").text = text
    ElementTree.indent(suite)
    return ElementTree.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"


def gradescope_results(step, checks, seconds, verdict):
    tests = [{"name": f"{PART[c.group]}: {c.name}", "score": c.score, "max_score": c.points,
              "status": "passed" if c.status == "pass" else "failed",
              "output": "\n".join(filter(None, [c.detail, c.output])) or "passed", "visibility": "visible"}
             for c in checks]
    summary = [f"{part}: {got} of {best} points" for part in ("host part", "GPU part")
               for got, best in [totals(checks, part)] if best]
    results = {"score": sum(c.score for c in checks), "execution_time": round(seconds),
               "output": "\n".join(summary + [f"overall: {verdict}"]),
               "visibility": "visible", "stdout_visibility": "visible", "tests": tests}
    line = re.compile(rf"^{re.escape(step)}: [\d.]+ ms, ([\d.]+) GB/s \(median of \d+ runs of --n (\S+) --type (\S+)\)$")
    if found := next(filter(None, (line.match(text) for c in checks if c.group == "speed"  # speed_test.py's line
                                   for text in c.output.splitlines())), None):
        results["leaderboard"] = [{"name": f"GB/s ({found[3]}, n = {found[2]})", "value": float(found[1]), "order": "desc"}]
    return results


def main():
    started = time.monotonic()
    parser = classroom.Parser(prog="grade", description="Build, test and time one step; print a grade report.")
    parser.add_argument("--step", help="in the course tree: the step to grade (stepNN or its folder name)")
    parser.add_argument("--host-only", action="store_true", help="grade only the host part (no GPU needed)")
    parser.add_argument("--check", action="append", choices=list(classroom.HOST_POINTS),
                        help="grade only this part of the host part (repeatable; implies --host-only)")
    parser.add_argument("--build-dir", type=Path,
                        help="the GPU part's build folder (default: build/ when configured for this folder, else build-grade)")
    parser.add_argument("--junit", type=Path,
                        help="write a JUnit XML report of every check as FILE (GPU tests not run: <skipped>)")
    parser.add_argument("--gradescope", type=Path,
                        help=f"write Gradescope's results.json as FILE (default {GRADESCOPE_DEFAULT} where /autograder exists)")
    parser.add_argument("--rounds", type=int, default=3, help="timed runs of each program, alternating (default 3)")
    parser.add_argument("--reference", action="store_true", help="also time the step's reference solution")
    parser.add_argument("--reference-tree", type=Path, help="the course tree holding the reference solution")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="parallel build jobs")
    parser.add_argument("--architectures", default=HOST_ARCHITECTURES,
                        help=f"the host part's build for these CUDA architectures (CMake's list, e.g. 90) instead of "
                             f"{HOST_ARCHITECTURES}: quicker, and the grade that counts builds all three (must hold 90)")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.fail("--rounds must be at least 1")
    if not re.fullmatch(r"\d+(-real|-virtual)?(;\d+(-real|-virtual)?)*", args.architectures) or not {
            "90", "90-real"} & set(args.architectures.split(";")):
        parser.fail(f"--architectures {args.architectures!r}: a list such as 90 or 80-real;90 that holds 90 "
                    "(the compiled-code check reads sm_90's code)")
    host_only = args.host_only or bool(args.check)
    target = find_target(args, parser)
    if args.reference and host_only:
        parser.fail("--reference times the reference solution in the GPU part: not with --host-only or --check")
    if args.reference and target.assignment and (why := unusable_reference_tree(target, args.reference_tree)):
        parser.fail(why)
    host_dir = (target.root / "build-grade").resolve()
    host_dir.mkdir(parents=True, exist_ok=True)
    env, gpu_why = dict(os.environ, REDUCTION_SPEED_ROUNDS=str(args.rounds)), ""
    with tempfile.TemporaryDirectory(prefix="grade-") as work, open(host_dir / "grade.log", "w") as log:
        work = Path(work)
        no_gpu = "" if host_only else gpu_listed()
        if no_gpu:
            print(f"grade: no GPU on this machine ({no_gpu}): the GPU part will not be built or graded", flush=True)
        print(f"grade: the host part of {target.step} in {host_dir} (log: {host_dir / 'grade.log'})", flush=True)
        checks, tests = host_part(target, host_dir, log, args.jobs, work, args.architectures)
        if args.check:
            checks = [c for c in checks if c.group in args.check]
        elif not host_only:
            gpu_tests = [name for name, labels in tests.items() if "host" not in labels]
            gpu_checks, gpu_why = ((not_graded(gpu_tests, no_gpu), no_gpu) if no_gpu else
                                   gpu_part(target, args, gpu_tests, host_dir, log, work, env))
            checks += gpu_checks
    code, verdict = report(target, checks, gpu_why, host_only, args.check or ())
    if args.junit:  # the host part's checks, and the GPU tests (skipped, with why, where not run)
        args.junit.parent.mkdir(parents=True, exist_ok=True)
        args.junit.write_text(junit_report(target.step, checks, verdict))
        print(f"JUnit report: {args.junit}")
    gradescope = args.gradescope or (GRADESCOPE_DEFAULT if GRADESCOPE_DEFAULT.parent.parent.is_dir() else None)
    if gradescope:
        gradescope.parent.mkdir(parents=True, exist_ok=True)
        gradescope.write_text(json.dumps(gradescope_results(target.step, checks, time.monotonic() - started, verdict),
                                         indent=2) + "\n")
        print(f"Gradescope results: {gradescope}")
    sys.exit(code)


if __name__ == "__main__":
    main()
