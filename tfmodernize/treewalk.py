"""Fast read-only walks over LibCST trees, shared by the engine and the codemods.

LibCST's ``node.children`` and every ``node.visit(...)``, even with a read-only visitor,
rebuild each node they pass; an analysis that walks a module that way a few times costs
several parses. These walks read the nodes' dataclass fields directly instead (5-10x faster)
and never build anything.
"""

from __future__ import annotations

import dataclasses
from functools import lru_cache
from typing import Callable, Iterator

import libcst as cst

#: Fields that only hold whitespace and punctuation, never code (see ``code_only``).
_TRIVIA = (
    "whitespace",
    "lpar",
    "rpar",
    "comma",
    "semicolon",
    "leading_lines",
    "lines_after",
    "header",
    "footer",
    "empty_lines",
    "colon",
    "equal",
    "dot",
    "star",
    "operator",
    "bracket",
    "brace",
)

#: Fields whose names look like trivia but hold code (``def f(*args, **kwargs)``).
_CODE = ("star_arg", "star_kwarg")

#: Node types whose dataclass field order differs from source order.
_SOURCE_ORDER = {
    cst.FunctionDef: ("decorators", "asynchronous", "name", "type_parameters", "params", "returns", "body"),
    cst.ClassDef: ("decorators", "name", "type_parameters", "bases", "keywords", "body"),
    cst.IfExp: ("body", "test", "orelse"),
    cst.Arg: ("star", "keyword", "equal", "value"),
    cst.ExceptHandler: ("type", "name", "body"),
    cst.ExceptStarHandler: ("type", "name", "body"),
    cst.ImportFrom: ("relative", "module", "names"),
    cst.CompFor: ("asynchronous", "target", "iter", "ifs", "inner_for_in"),
    cst.MatchCase: ("pattern", "guard", "body"),
}


@lru_cache(maxsize=None)
def _fields(kind: type, code_only: bool) -> tuple[str, ...]:
    names = [f.name for f in dataclasses.fields(kind)]
    first = [n for n in _SOURCE_ORDER.get(kind, ()) if n in names]
    ordered = first + [n for n in names if n not in first]
    if code_only:
        ordered = [n for n in ordered if n in _CODE or not any(t in n for t in _TRIVIA)]
    return tuple(ordered)


#: type -> whether it is a LibCST node (``isinstance`` against the ``CSTNode`` ABC is slow).
_IS_NODE: dict[type, bool] = {}


def _is_node(kind: type) -> bool:
    known = _IS_NODE.get(kind)
    if known is None:
        known = _IS_NODE[kind] = issubclass(kind, cst.CSTNode)
    return known


#: id of a node -> (the node, its children). LibCST nodes never change, and an
#: unchanged subtree is shared by the trees each codemod's edits produce, so the codemods'
#: walks over one file read each node's fields once. The node is kept with its entry, so an
#: id is never reused while its entry lives; ``forget`` empties it between files, and it never
#: grows past ``_REMEMBERED`` entries (a caller that never forgets pays a walk again, no more).
_CHILDREN: dict[int, tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] = {}
#: The same for ``code_only`` walks (two maps: no key tuple to build on every call).
_CODE_CHILDREN: dict[int, tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] = {}
_REMEMBERED = 400_000


def forget() -> None:
    """Drop the children remembered so far (the engine calls it after each file)."""
    _CHILDREN.clear()
    _CODE_CHILDREN.clear()


def children(node: cst.CSTNode, *, code_only: bool = False) -> tuple[cst.CSTNode, ...]:
    """The nodes directly under ``node``, in source order (like ``node.children``)."""
    remembered = _CODE_CHILDREN if code_only else _CHILDREN
    known = remembered.get(id(node))
    if known is not None and known[0] is node:
        return known[1]
    found: list[cst.CSTNode] = []
    for name in _fields(type(node), code_only):
        value = getattr(node, name)
        kind = type(value)
        if kind is tuple or kind is list:
            found.extend(value)  # LibCST's sequences hold nodes only
        elif _is_node(kind):
            found.append(value)
    if len(remembered) >= _REMEMBERED:
        remembered.clear()
    result = remembered[id(node)] = (node, tuple(found))
    return result[1]


def walk(node: cst.CSTNode, *, code_only: bool = False) -> Iterator[cst.CSTNode]:
    """``node`` and every node below it, depth first; code nodes come in source order.

    ``code_only`` skips whitespace, comments and punctuation (faster, for searches of code);
    without it those come too, though not always in source order among themselves.
    """
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(children(current, code_only=code_only)))


#: Nodes that hold statements (a block, or a compound statement's other parts).
_STATEMENT_HOLDERS = (
    cst.BaseCompoundStatement,
    cst.BaseSuite,
    cst.Else,
    cst.ExceptHandler,
    cst.ExceptStarHandler,
    cst.Finally,
    cst.MatchCase,
)


def compound_statements(node: cst.CSTNode) -> Iterator[cst.BaseCompoundStatement]:
    """Every compound statement (``with``, ``for``, ``if``, a definition...) in ``node``, at any
    depth of blocks, in source order, without walking into expressions."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.BaseCompoundStatement):
            yield current
        if isinstance(current, (cst.Module, *_STATEMENT_HOLDERS)):
            stack.extend(reversed(children(current, code_only=True)))


def import_statements(node: cst.CSTNode) -> Iterator["cst.Import | cst.ImportFrom"]:
    """Every ``import`` / ``from ... import`` statement in ``node``, at any depth of blocks,
    in source order, without walking into expressions (most of a module's nodes)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, (cst.Import, cst.ImportFrom)):
            yield current
        elif isinstance(current, (cst.Module, cst.SimpleStatementLine, *_STATEMENT_HOLDERS)):
            stack.extend(reversed(children(current, code_only=True)))


def visit(node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    """Drive ``visitor`` over the code nodes of ``node`` as ``node.visit(visitor)`` would
    (``on_visit`` before a node's children, which it may skip by returning False; ``on_leave``
    after them), without rebuilding any node. Whitespace, comments and punctuation are not
    visited (see ``walk``'s ``code_only``), nor attribute hooks (``visit_Call_func``)."""
    stack: list[tuple[cst.CSTNode, bool]] = [(node, False)]
    while stack:
        current, leaving = stack.pop()
        if leaving:
            visitor.on_leave(current)
            continue
        stack.append((current, True))
        if visitor.on_visit(current):
            stack.extend((child, False) for child in reversed(children(current, code_only=True)))


def dispatch(
    node: cst.CSTNode,
    visits: dict[type, Callable[[cst.CSTNode], object]],
    leaves: dict[type, Callable[[cst.CSTNode], object]],
) -> None:
    """``visit`` with the hooks given by node type: ``visits[type(n)]`` before a node's children
    (which it skips by returning False), ``leaves[type(n)]`` after them. A node type with no hook
    costs a dictionary lookup, not a call: a codemod with hooks for calls only pays for calls."""
    stack: list[tuple[cst.CSTNode, bool]] = [(node, False)]
    while stack:
        current, leaving = stack.pop()
        kind = type(current)
        if leaving:
            leaves[kind](current)
            continue
        if kind in leaves:
            stack.append((current, True))
        hook = visits.get(kind)
        if hook is None or hook(current) is not False:
            stack.extend((child, False) for child in reversed(children(current, code_only=True)))


def contains(tree: cst.CSTNode, node: cst.CSTNode) -> bool:
    """Whether ``node`` (by identity) is ``tree`` or lies under it."""
    return any(current is node for current in walk(tree, code_only=True))
