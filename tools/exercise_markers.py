"""Solution markers in a step's reduce.cuh, shared by make_exercise and the CI check.

A step marks the code that carries its idea with two comment lines:

    // solution-begin: <one-line hint for the student>
    ... the code a student writes ...
    // solution-end

Optional `// solution-stub: <code>` lines right after the begin line hold what the assignment
puts in place of the marked code when something must stand there to compile (a declaration that
later code uses, a return value). In the course they are comments; in the assignment they become
code. Without them the marked code is simply removed.
"""

import re

BEGIN = re.compile(r"^(?P<indent>\s*)//\s*solution-begin:\s*(?P<hint>.*?)\s*$")
STUB = re.compile(r"^\s*//\s*solution-stub:\s?(?P<code>.*)$")
END = re.compile(r"^\s*//\s*solution-end\s*$")


class MarkerError(ValueError):
    """A reduce.cuh whose markers do not pair up."""


def regions(text):
    """The marked regions of `text`: (hint, first line number, stub lines, solution lines)."""
    found, current = [], None
    for number, line in enumerate(text.splitlines(), start=1):
        if BEGIN.match(line):
            if current:
                raise MarkerError(f"line {number}: solution-begin inside the region opened on line {current[1]}")
            current = [BEGIN.match(line).group("hint"), number, [], []]
        elif END.match(line):
            if not current:
                raise MarkerError(f"line {number}: solution-end without a solution-begin")
            found.append(tuple(current))
            current = None
        elif current is not None:
            stub = STUB.match(line)
            if stub and not current[3]:
                current[2].append(stub.group("code"))
            else:
                current[3].append(line)
    if current:
        raise MarkerError(f"line {current[1]}: solution-begin never closed by solution-end")
    return found


def make_stub(text):
    """`text` with every marked region replaced by `// TODO: <hint>` and its stub lines."""
    regions(text)  # raises on unpaired markers before anything is written
    out, inside = [], False
    for line in text.splitlines():
        begin = BEGIN.match(line)
        if begin:
            inside, indent = True, begin.group("indent")
            out.append(f"{indent}// TODO: {begin.group('hint')}")
        elif inside and END.match(line):
            inside = False
        elif inside:
            stub = STUB.match(line)
            if stub:
                out.append(indent + stub.group("code"))
        else:
            out.append(line)
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def solution_lines(text):
    """The non-blank lines of solution code, stripped: none of them may survive in a stub."""
    return [line.strip() for _, _, _, code in regions(text) for line in code if line.strip()]


def distinctive_solution_lines(text):
    """Solution lines that appear nowhere outside the marked regions nor in a stub line: if one of
    them is found in an assignment's reduce.cuh, the stub still holds the solution."""
    outside, inside = set(), False
    for line in text.splitlines():
        if BEGIN.match(line):
            inside = True
        elif END.match(line):
            inside = False
        elif not inside:
            outside.add(line.strip())
    outside.update(line.strip() for _, _, stub, _ in regions(text) for line in stub)
    return [line for line in solution_lines(text) if line not in outside and len(line) > 2]
