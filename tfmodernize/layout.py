"""The width of the code a migration writes: the file's own, and calls wrapped to keep to it.

A file's style is the longest line it already has, 88 when it has none longer, 100 at most
(``style_width``). A statement the migration writes wider than that has its outermost call's
arguments wrapped as a reviewer would write them by hand: first all on one line of their own,
then one per line with a trailing comma (``fitted``); a decorator taking one list
(``input_signature=[...]``) keeps the brackets on its line and puts one element per line
(``fitted_decorator``).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tfmodernize.syntax import source

#: Without longer lines in the file, what it is written to; the most it is ever written to.
DEFAULT_WIDTH, MOST_WIDTH = 88, 100
#: One level of continuation indentation.
STEP = "    "


def style_width(text: str) -> int:
    """The width a file's new code keeps to."""
    longest = max((len(line) for line in text.splitlines()), default=0)
    return min(MOST_WIDTH, max(DEFAULT_WIDTH, longest))


def width(node: cst.CSTNode, depth: int) -> int:
    """The longest line of ``node`` written ``depth`` blocks deep."""
    return max(len(line) for line in source(node).splitlines()) + len(STEP) * depth


def _break(extra: str) -> cst.ParenthesizedWhitespace:
    """A line break inside brackets, the next line indented ``extra`` past the block's indent."""
    return cst.ParenthesizedWhitespace(
        first_line=cst.TrailingWhitespace(),
        empty_lines=[],
        indent=True,
        last_line=cst.SimpleWhitespace(extra),
    )


def _one_line(call: cst.Call, level: int) -> cst.Call:
    """``f(\\n    a, b, c\\n)``, its closing parenthesis ``level`` steps in."""
    args = list(call.args)
    closing = _break(STEP * level)
    args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=closing)
    return call.with_changes(whitespace_before_args=_break(STEP * (level + 1)), args=args)


def _one_per_line(call: cst.Call, level: int) -> cst.Call:
    """``f(\\n    a,\\n    b,\\n)``, its closing parenthesis ``level`` steps in."""
    between = cst.Comma(whitespace_after=_break(STEP * (level + 1)))
    args = [arg.with_changes(comma=between) for arg in call.args]
    args[-1] = args[-1].with_changes(comma=cst.Comma(), whitespace_after_arg=_break(STEP * level))
    return call.with_changes(whitespace_before_args=_break(STEP * (level + 1)), args=args)


def _outer_call(expr: cst.BaseExpression) -> Optional[cst.Call]:
    """The call whose arguments a wrap splits: ``f(a, b)``, also of ``f(a, b).numpy()``."""
    if not isinstance(expr, cst.Call):
        return None
    func = expr.func
    if not expr.args and isinstance(func, cst.Attribute) and isinstance(func.value, cst.Call):
        return _outer_call(expr.func.value)
    return expr if expr.args else None


def fitted(statement: cst.BaseStatement, limit: int, depth: int) -> cst.BaseStatement:
    """``statement`` (``name = call(...)``, ``call(...)``, ``return call(...)``) with its
    outermost call's arguments wrapped when it is wider than ``limit``, ``depth`` blocks deep
    (another value assigned or returned: in parentheses, on a line of its own)."""
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
        return statement
    small = statement.body[0]
    if not isinstance(small, (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Expr, cst.Return)):
        return statement
    bare = statement.with_changes(leading_lines=[])
    if width(bare, depth) <= limit or "\n" in source(bare).rstrip("\n"):
        return statement  # fits, or laid out over several lines by its author
    if small.value is None:
        return statement
    call = _outer_call(small.value)
    if call is not None:
        values = [_replaced(small.value, call, wrapped) for wrapped in _wraps(call)]
    elif not small.value.lpar and not isinstance(small, cst.Expr):
        # ``name = (\n    a * b\n)``: an operation, in parentheses of its own.
        values = [
            small.value.with_changes(
                lpar=[cst.LeftParen(whitespace_after=_break(STEP))], rpar=[cst.RightParen(whitespace_before=_break(""))]
            )
        ]
    else:
        return statement
    new = statement
    for value in values:
        new = statement.with_changes(body=[small.with_changes(value=value)])
        if width(new.with_changes(leading_lines=[]), depth) <= limit:
            break
    return new


def _wraps(call: cst.Call, level: int = 0) -> list[cst.Call]:
    """The ways to wrap ``call`` (its closing parenthesis ``level`` steps in), the most compact
    first: its arguments on one line of their own; when it has one, a call, that call wrapped
    the same way inside; one per line."""
    ways = [_one_line(call, level)]
    only = call.args[0].value if len(call.args) == 1 else None
    if isinstance(only, cst.Call) and only.args:
        ways += [
            _one_line(call.with_changes(args=[call.args[0].with_changes(value=inner)]), level)
            for inner in _wraps(only, level + 1)
        ]
    elif len(call.args) > 1:
        ways.append(_one_per_line(call, level))
    return ways


def _replaced(expr: cst.BaseExpression, old: cst.Call, new: cst.Call) -> cst.BaseExpression:
    if expr is old:
        return new
    assert isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute)
    func = expr.func
    return expr.with_changes(func=func.with_changes(value=_replaced(func.value, old, new)))


def fitted_decorator(definition: cst.FunctionDef, limit: int, depth: int) -> cst.FunctionDef:
    """``@f(key=[a, b])`` wider than ``limit``: ``@f(key=[``, one element a line, ``])``."""
    decorators = []
    for decorator in definition.decorators:
        call = decorator.decorator
        listed = call.args[0].value if isinstance(call, cst.Call) and len(call.args) == 1 else None
        if isinstance(listed, cst.List) and listed.elements and width(decorator, depth) > limit:
            between = cst.Comma(whitespace_after=_break(STEP))
            elements = [e.with_changes(comma=between) for e in listed.elements]
            elements[-1] = elements[-1].with_changes(comma=cst.Comma())
            listed = listed.with_changes(
                lbracket=cst.LeftSquareBracket(whitespace_after=_break(STEP)),
                elements=elements,
                rbracket=cst.RightSquareBracket(whitespace_before=_break("")),
            )
            arg = call.args[0].with_changes(value=listed)
            decorator = decorator.with_changes(decorator=call.with_changes(args=[arg]))
        decorators.append(decorator)
    return definition.with_changes(decorators=decorators)


def depth(node: cst.CSTNode, parents: dict) -> int:
    """How many blocks deep ``node`` stands (``parents``: a parent map of its tree)."""
    found = 0
    parent = parents.get(id(node))
    while parent is not None:
        found += isinstance(parent, cst.IndentedBlock)
        parent = parents.get(id(parent))
    return found
