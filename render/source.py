"""Reading the steps' code: the lines a figure is drawn from (found by shapes of code) and their C expressions."""

import ast
import hashlib
import re
from pathlib import Path

from course.stamped_csv import ResultsError
from .tables import require

HOLE = r"(?:[^;\n(),]|\((?:[^()\n]|\([^()\n]*\))*\))+?"  # a hole: an expression without ';' or a top-level comma
ALLOWED = (ast.Expression, ast.Name, ast.Load, ast.BinOp, ast.UnaryOp, ast.Not, ast.USub, ast.BoolOp, ast.And, ast.Or,
           ast.Call, ast.Compare, ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.LShift, ast.RShift,
           ast.BitAnd, ast.BitOr, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)
FUNCTIONS = {"min": min, "_if": lambda c, a, b: a if c else b}  # with ALLOWED: what an expression may hold


class FigureError(ResultsError):
    """A missing input, or a source whose lines do not match what a figure expects."""


def shape_regex(shape):
    parts, seen = [], set()
    for token in re.findall(r"\$\w+|\[\[|\]\]|\n| +|[^$\[\]\n ]+|.", shape):
        if token.startswith("$"):  # a hole, or the same text as the hole of that name before
            parts.append(f"(?P={token[1:]})" if token[1:] in seen else f"(?P<{token[1:]}>{HOLE})")
            seen.add(token[1:])
        else:
            parts.append({"[[": "(?:", "]]": ")?", "\n": r"[^\n]*\n\s*"}.get(token, r"\s*" if token.isspace()
                                                                              else re.escape(token)))
    if parts[-1].endswith(f"{HOLE})"):
        parts[-1] = parts[-1][:-len(HOLE) - 1] + r"[^\s;]+)"
    return "".join(parts)


class Evidence:
    def __init__(self, root):
        self.root, self.used, self._texts = Path(root), [], {}

    def text(self, relpath):
        if relpath not in self._texts:
            require((self.root / relpath).is_file(), f"{relpath}: file not found", FigureError)
            self._texts[relpath] = (self.root / relpath).read_text(encoding="utf-8")
        return self._texts[relpath]

    def find_all(self, relpath, shape, what="", first=False):
        text = self.text(relpath)
        matches = list(re.finditer(shape.pattern if isinstance(shape, re.Pattern) else shape_regex(shape), text))
        shown = shape.replace("\n", " ") if isinstance(shape, str) else "..."
        require(matches, f"{relpath}: expected {what + ' ' if what else ''}'{shown}' ($name: any expression, "
                         f"[[...]]: optional); not found (the figure is drawn from it)", FigureError)
        if first:
            start, end = text.rfind("\n", 0, matches[0].start()) + 1, (text + "\n").find("\n", matches[0].end())
            self.used.append((relpath, text[start:end]))
            return matches[0]
        self.used.extend((relpath, m.group(0)) for m in matches)
        return matches

    def find(self, relpath, shape, what=""):
        return self.find_all(relpath, shape, what, first=True)

    def number(self, relpath, shape, what=""):
        return int(self.find(relpath, shape, what).group(1))

    def fingerprint(self):
        digest = hashlib.sha256("".join(f"{relpath}\n{lines}\n" for relpath, lines in self.used).encode("utf-8"))
        return (f"drawn from {', '.join(sorted({r for r, _ in self.used}))}; sha256 of the lines used: "
                f"{digest.hexdigest()}")


def evaluate(expression, names, context=""):
    text = re.sub(r"static_cast<[^<>]+>", "", expression)  # C to Python, then parsed
    text = re.sub(r"\b(\d+)[uU][lL]*\b", r"\1", text).replace("std::min(", "min(")
    text = re.sub(r"\bsizeof\((\w+)\)", r"sizeof_\1", text)
    text = re.sub(r"\b(\w+)<(\w+)>::(\w+)", r"\1_\2_\3", text)
    text = re.sub(r"\b(\w+)\.(\w+)\b", r"\1_\2", text)
    text = re.sub(r"\(([^()?]+)\?([^():]+):([^()]+)\)", r"_if(\1, \2, \3)", text)
    text = re.sub(r"!(?!=)", " not ", text.replace("&&", " and ").replace("||", " or "))
    try:
        tree = ast.parse(re.sub(r"(?<![/])/(?![/=])", "//", text).strip(), mode="eval")
    except SyntaxError:
        raise FigureError(f"{context}: cannot read the expression '{expression}'") from None
    for node in ast.walk(tree):
        call = isinstance(node, ast.Call) and (node.keywords or getattr(node.func, "id", None) not in FUNCTIONS)
        if call or not isinstance(node, ALLOWED) and not (isinstance(node, ast.Constant) and type(node.value) is int):
            raise FigureError(f"{context}: the expression '{expression}' holds more than integer arithmetic")
        if isinstance(node, ast.Name) and node.id not in names and node.id not in FUNCTIONS:
            raise FigureError(f"{context}: the expression '{expression}' uses '{node.id}', which the figure "
                              f"does not know (it knows {', '.join(sorted(names))})")
    return eval(compile(tree, "<expression>", "eval"), {"__builtins__": {}, **FUNCTIONS}, dict(names))


def bind(match, names, context="", *holes):
    for key, expression in match.groupdict().items():
        names = dict(names, **{key: evaluate(expression, names, context)})
    return tuple(names[h] for h in holes) if holes else names


def loop_values(variable, init, condition, step, names, context=""):
    values, bound = [], dict(names)
    bound[variable] = evaluate(init, bound, context)
    update = re.fullmatch(rf"\s*{variable}\s*(\*|/|\+|-|>>|<<)?=\s*(.+?)\s*", step)
    require(update, f"{context}: expected an update of '{variable}', found '{step}'", FigureError)
    operation, right = update.groups()
    while evaluate(condition, bound, context):
        values.append(bound[variable])
        require(len(values) <= 64, f"{context}: the loop 'for ({variable} = {init}; {condition}; {step})' does not end",
                FigureError)
        bound[variable] = evaluate(f"{variable} {operation} ({right})" if operation else right, bound, context)
    return values
