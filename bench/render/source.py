"""Reading the steps' code: the source lines a figure is drawn from (their sha256 stamps it), and the
C integer expressions in them, evaluated for a small block."""

import ast
import hashlib
import operator
import re
from pathlib import Path


class FigureError(Exception):
    """An input that is missing, or a source whose lines do not match what a figure expects."""


# ---------------------------------------------------------------------------------------------
# Reading the steps' code


class Evidence:
    """The source lines one figure is drawn from: every match is remembered for the fingerprint."""

    def __init__(self, root):
        self.root, self.used, self._texts = Path(root), [], {}

    def text(self, relpath):
        if relpath not in self._texts:
            path = self.root / relpath
            if not path.is_file():
                raise FigureError(f"{relpath}: file not found")
            self._texts[relpath] = path.read_text(encoding="utf-8")
        return self._texts[relpath]

    def find(self, relpath, pattern, expected):
        """The first match of `pattern` (a regular expression) in the file; the whole lines it spans
        join the fingerprint. `expected` says in words which code the figure needs."""
        text = self.text(relpath)
        match = re.search(pattern, text)
        if match is None:
            raise FigureError(f"{relpath}: expected {expected}; not found (the figure is drawn from it)")
        start = text.rfind("\n", 0, match.start()) + 1
        end = text.find("\n", match.end())
        self.used.append((relpath, text[start:end if end >= 0 else len(text)]))
        return match

    def find_all(self, relpath, pattern, expected, within=None):
        """Every match of `pattern` (inside the text of `within`, a match, if given); at least one."""
        text = within.group(0) if within is not None else self.text(relpath)
        matches = list(re.finditer(pattern, text))
        if not matches:
            raise FigureError(f"{relpath}: expected {expected}; not found (the figure is drawn from it)")
        for match in matches:
            self.used.append((relpath, match.group(0)))
        return matches

    def fingerprint(self):
        digest = hashlib.sha256()
        for relpath, lines in self.used:
            digest.update(f"{relpath}\n{lines}\n".encode("utf-8"))
        files = sorted({relpath for relpath, _ in self.used})
        return f"drawn from {', '.join(files)}; sha256 of the lines used: {digest.hexdigest()}"


_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
           ast.Mod: operator.mod, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
           ast.BitAnd: operator.and_, ast.BitOr: operator.or_}
_COMPARE = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
            ast.Eq: operator.eq, ast.NotEq: operator.ne}


def c_to_python(expression):
    """A C expression of unsigned integers (+ - * / % << >> & | comparisons && || !) as Python text:
    member access becomes a name (blockDim.x -> blockDim_x), / becomes //, casts and suffixes go."""
    text = re.sub(r"static_cast<[^<>]+>", "", expression)
    text = re.sub(r"\b(\d+)[uU][lL]*\b", r"\1", text)
    text = re.sub(r"\b(\w+)\.(\w+)\b", r"\1_\2", text)
    text = text.replace("&&", " and ").replace("||", " or ")
    text = re.sub(r"!(?!=)", " not ", text)
    return re.sub(r"(?<![/])/(?![/=])", "//", text)


def evaluate(expression, names, context=""):
    """The value of a C expression (see c_to_python) with `names` bound; anything else is an error."""
    try:
        tree = ast.parse(c_to_python(expression).strip(), mode="eval")
    except SyntaxError:
        raise FigureError(f"{context}: cannot read the expression '{expression}'") from None

    def value(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in names:
                raise FigureError(f"{context}: the expression '{expression}' uses '{node.id}', which the figure "
                                  f"does not know (it knows {', '.join(sorted(names))})")
            return names[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            return _BINARY[type(node.op)](value(node.left), value(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return not value(node.operand)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand)
        if isinstance(node, ast.BoolOp):
            values = [value(v) for v in node.values]
            return all(values) if isinstance(node.op, ast.And) else any(values)
        if isinstance(node, ast.Compare) and all(type(op) in _COMPARE for op in node.ops):
            left = value(node.left)
            for op, right_node in zip(node.ops, node.comparators):
                right = value(right_node)
                if not _COMPARE[type(op)](left, right):
                    return False
                left = right
            return True
        raise FigureError(f"{context}: the expression '{expression}' holds more than integer arithmetic")

    return value(tree.body)


def update(variable, statement, names, context=""):
    """The variable's value after a C update statement: 's *= 2', 's >>= 1', 'offset /= 2', 's = s * 2'."""
    match = re.fullmatch(rf"\s*{variable}\s*(\*|/|\+|-|>>|<<)?=\s*(.+?)\s*", statement)
    if match is None:
        raise FigureError(f"{context}: expected an update of '{variable}', found '{statement}'")
    operation, right = match.groups()
    return evaluate(f"{variable} {operation} ({right})" if operation else right, names, context)


def loop_values(variable, init, condition, step, names, context=""):
    """The values the loop variable takes: for (variable = init; condition; step)."""
    values, bound = [], dict(names)
    bound[variable] = evaluate(init, bound, context)
    while evaluate(condition, bound, context):
        values.append(bound[variable])
        if len(values) > 64:
            raise FigureError(f"{context}: the loop 'for ({variable} = {init}; {condition}; {step})' does not end")
        bound[variable] = update(variable, step, bound, context)
    return values
