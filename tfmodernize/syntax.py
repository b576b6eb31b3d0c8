"""Small questions about LibCST nodes that every codemod asks: a call's argument, a node's
source text, the statement a call stands alone in. One helper for each, shared by the catalogue
and available to custom codemods.
"""

from __future__ import annotations

from typing import Iterator, Optional, Sequence

import libcst as cst

from tfmodernize.treewalk import contains, walk

_EMPTY = cst.Module(body=[])


def commas(items: list) -> list:
    """Arguments, elements or parameters with ``, `` between them (LibCST keeps separators on
    the nodes); the last one keeps its own."""
    return [
        item.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        if index < len(items) - 1
        else item
        for index, item in enumerate(items)
    ]


def no_space_equal() -> cst.AssignEqual:
    """The ``=`` of a keyword argument, written ``key=value``."""
    return cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))


def is_none(node: Optional[cst.BaseExpression]) -> bool:
    """Whether an argument is not passed (``node`` None) or passed as the literal ``None``."""
    return node is None or (isinstance(node, cst.Name) and node.value == "None")


def argument(call: cst.Call, position: Optional[int], keyword: str) -> Optional[cst.BaseExpression]:
    """The value passed to ``call`` as ``keyword=``, or as its positional argument number
    ``position`` (None: by keyword only). None when not passed, or when a ``*args`` before it
    hides where it is."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg.value
    if position is None:
        return None
    index = 0
    for arg in call.args:
        if arg.keyword is not None or arg.star == "**":
            break
        if arg.star == "*":
            return None
        if index == position:
            return arg.value
        index += 1
    return None


def parenthesized(node: cst.BaseExpression, *, before_attribute: bool = False) -> cst.BaseExpression:
    """``node`` in parentheses unless it binds tighter than any operator around it (a name, an
    attribute, a call, a subscript, a literal, or already parenthesized); ``before_attribute``:
    the node is followed by ``.name``, where an integer literal needs them too (``(3).numpy``)."""
    atomic: tuple[type, ...] = (cst.Name, cst.Attribute, cst.Call, cst.Subscript)
    if not before_attribute:
        atomic += (cst.Integer, cst.Float, cst.SimpleString)
    if isinstance(node, atomic) or node.lpar:
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def source(node: cst.CSTNode) -> str:
    """The code of ``node`` as LibCST renders it (no leading lines of a statement)."""
    return _EMPTY.code_for_node(node)


def statement_of(call: cst.Call, parents: dict) -> Optional[tuple[Optional[str], cst.SimpleStatementLine]]:
    """``(name, line)`` when ``call`` is a line of its own: ``name = call(...)`` (one plain name
    bound) or the expression statement ``call(...)`` (``name`` None); None otherwise.
    ``parents`` is a parent map of the tree (``FileState.parents``)."""
    small = parents.get(id(call))
    line = parents.get(id(small))
    if not (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1):
        return None
    if isinstance(small, cst.Expr) and small.value is call:
        return None, line
    if (
        isinstance(small, cst.Assign)
        and small.value is call
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
    ):
        return small.targets[0].target.value, line
    return None


def own_comment_start(lines: Sequence[cst.EmptyLine]) -> int:
    """Where a statement's own comment starts in its leading lines: the comment lines right
    above it, no blank line between (what goes with the statement when it moves or goes; the
    blank lines and section comments above stay)."""
    start = len(lines)
    while start > 0 and lines[start - 1].comment is not None:
        start -= 1
    return start


def ancestors(node: cst.CSTNode, parents: dict) -> Iterator[cst.CSTNode]:
    """The nodes holding ``node``, innermost first (``parents``: a parent map)."""
    parent = parents.get(id(node))
    while parent is not None:
        yield parent
        parent = parents.get(id(parent))


def statement_holding(node: cst.CSTNode, parents: dict) -> Optional[cst.CSTNode]:
    """The statement ``node`` is part of (``parents``: a parent map, ``FileState.parents``)."""
    holder = parents.get(id(node))
    while holder is not None and not isinstance(holder, cst.BaseStatement):
        holder = parents.get(id(holder))
    return holder


def parse_statement(code: str) -> cst.SimpleStatementLine:
    parsed = cst.parse_statement(code)
    assert isinstance(parsed, cst.SimpleStatementLine)
    return parsed


def split_docstring(body: Sequence[cst.BaseStatement]) -> tuple[list[cst.BaseStatement], list[cst.BaseStatement]]:
    """(docstring statement if any, the rest) of a function body."""
    if body and isinstance(body[0], cst.SimpleStatementLine) and len(body[0].body) == 1:
        small = body[0].body[0]
        if isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)):
            return [body[0]], list(body[1:])
    return [], list(body)


def top_level_index(module: cst.Module, node: cst.CSTNode) -> Optional[int]:
    """Index of the module-level statement that contains ``node``."""
    for index, statement in enumerate(module.body):
        if statement is node or contains(statement, node):
            return index
    return None


def function_definitions(module: cst.Module) -> Iterator[tuple[int, cst.FunctionDef]]:
    """Every function definition with the index of the module-level statement holding it."""
    for index, statement in enumerate(module.body):
        for node in walk(statement):
            if type(node) is cst.FunctionDef:  # exact: ``isinstance`` goes through ``ABCMeta``
                yield index, node


def calls_in(node: cst.CSTNode) -> Iterator[cst.Call]:
    """Every call inside ``node``, in source order."""
    return (n for n in walk(node, code_only=True) if type(n) is cst.Call)


def name_assignment(statement: cst.CSTNode) -> Optional[tuple[str, cst.BaseExpression]]:
    """``(name, value)`` of a statement line that is exactly ``name = value``, else None."""
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
        return None
    assign = statement.body[0]
    if not (
        isinstance(assign, cst.Assign) and len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name)
    ):
        return None
    return assign.targets[0].target.value, assign.value
