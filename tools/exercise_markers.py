"""Solution markers in a step's reduce.cuh, and the stubs from tools/stubs/ that replace them (tools/README.md)."""

import re
from pathlib import Path

STUBS = Path(__file__).resolve().parent / "stubs"
MARKER = re.compile(r"(?P<indent>\s*)//\s*solution-(?:begin:\s*(?P<hint>.*?)|end)\s*")  # hint: None at an end


class MarkerError(ValueError):
    """Markers that do not pair up, or a step and its stubs that do not match."""


def regions(text):  # the marked regions of `text`: (hint, first line number, indent, lines inside)
    lines = text.splitlines()
    marks = [(number, mark) for number, mark in enumerate(map(MARKER.fullmatch, lines), start=1) if mark]
    found = []
    for (first, begin), (last, end) in zip(marks[::2], marks[1::2] + [(None, None)]):  # begin, end, begin, ...
        if begin["hint"] is None:
            raise MarkerError(f"line {first}: solution-end without a solution-begin")
        if end is None:
            raise MarkerError(f"line {first}: solution-begin never closed by solution-end")
        if end["hint"] is not None:
            raise MarkerError(f"line {last}: solution-begin inside the region opened on line {first}")
        found.append((begin["hint"], first, begin["indent"], lines[first:last - 1]))
    return found


def stub_text(step):
    path = STUBS / f"{step}.cuh"
    return path.read_text() if path.is_file() else ""


def replacements(text, stubs):  # {hint: lines} of `stubs`; MarkerError unless its regions match `text`'s, each once
    marked, given = [hint for hint, *_ in regions(text)], [(hint, lines) for hint, _, _, lines in regions(stubs)]
    if sorted(marked) != sorted(hint for hint, _ in given) or len(set(marked)) != len(marked):
        raise MarkerError(f"the solution-begin texts of the step ({'; '.join(marked)}) and of its stubs "
                          f"({'; '.join(hint for hint, _ in given)}) differ, or one is used twice")
    return dict(given)


def make_stub(text, stubs):  # `text` with every marked region replaced by its code from `stubs`
    replacements(text, stubs)  # every region has its stub, and every stub its region
    return replace_regions(text, stubs)


def replace_regions(text, stubs):  # `text` with the regions that `stubs` holds replaced by its code, the others kept
    given, lines = {hint: code for hint, _, _, code in regions(stubs)}, text.splitlines()
    unknown = sorted(set(given) - {hint for hint, *_ in regions(text)})
    if unknown:
        raise MarkerError(f"no region of the step begins with: {'; '.join(unknown)}")
    for hint, first, indent, inside in reversed(regions(text)):  # from the end: earlier line numbers stay
        if hint in given:
            lines[first - 1:first + len(inside) + 1] = [indent + code if code.strip() else "" for code in given[hint]]
    return "\n".join(lines) + ("\n" if text.endswith("\n") else "")


def distinctive_solution_lines(text, stubs):
    """Solution lines found nowhere else nor in the stubs: one in an assignment means its stub holds the solution."""
    inside = {line.strip() for _, _, _, lines in regions(text) for line in lines}
    elsewhere = {line.strip() for line in make_stub(text, stubs).splitlines()}
    return sorted(line for line in inside if line not in elsewhere and len(line) > 2)
