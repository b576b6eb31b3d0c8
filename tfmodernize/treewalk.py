"""Fast read-only walks over LibCST trees, shared by the engine and the codemods.

LibCST's ``node.children`` and every ``node.visit(...)``, even with a read-only visitor,
rebuild each node they pass; an analysis that walks a module that way a few times costs
several parses. These walks read the nodes' dataclass fields directly instead (5-10x faster)
and never build anything.
"""

from __future__ import annotations

import dataclasses
import weakref
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
    pop, extend = stack.pop, stack.extend
    remembered = _CODE_CHILDREN if code_only else _CHILDREN
    while stack:
        current = pop()
        yield current
        known = remembered.get(id(current))  # ``children``'s cache, read inline (a hot loop)
        if known is not None and known[0] is current:
            extend(reversed(known[1]))
        else:
            extend(reversed(children(current, code_only=code_only)))


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


#: Node type -> (a compound statement, holds statements): ``isinstance`` against LibCST's
#: abstract bases goes through ``ABCMeta`` on every node, a lookup here once per type.
_STATEMENT_KINDS: dict[type, tuple[bool, bool]] = {}


def _statement_kind(kind: type) -> tuple[bool, bool]:
    known = _STATEMENT_KINDS.get(kind)
    if known is None:
        known = _STATEMENT_KINDS[kind] = (
            issubclass(kind, cst.BaseCompoundStatement),
            issubclass(kind, (cst.Module, *_STATEMENT_HOLDERS)),
        )
    return known


def compound_statements(node: cst.CSTNode) -> Iterator[cst.BaseCompoundStatement]:
    """Every compound statement (``with``, ``for``, ``if``, a definition...) in ``node``, at any
    depth of blocks, in source order, without walking into expressions."""
    stack = [node]
    while stack:
        current = stack.pop()
        compound, holder = _statement_kind(type(current))
        if compound:
            yield current
        if holder:
            stack.extend(reversed(children(current, code_only=True)))


def import_statements(node: cst.CSTNode) -> Iterator["cst.Import | cst.ImportFrom"]:
    """Every ``import`` / ``from ... import`` statement in ``node``, at any depth of blocks,
    in source order, without walking into expressions (most of a module's nodes)."""
    stack = [node]
    while stack:
        current = stack.pop()
        kind = type(current)
        if kind is cst.Import or kind is cst.ImportFrom:
            yield current
        elif kind is cst.SimpleStatementLine or _statement_kind(kind)[1]:
            stack.extend(reversed(children(current, code_only=True)))


#: A ``CSTVisitor`` subclass -> (hook name, node type, whether it is a ``visit_`` hook) of each
#: ``visit_X``/``leave_X`` it defines, X a node type (``visit``). Weak: a visitor class made
#: per call (a class defined in a function) goes with its last object.
_VISITOR_HOOKS: "weakref.WeakKeyDictionary[type, tuple[tuple[str, type, bool], ...]]" = weakref.WeakKeyDictionary()
#: The classes whose attributes every ``CSTVisitor`` has: their hooks do nothing.
_BASE_VISITORS = frozenset(cst.CSTVisitor.__mro__)


def _visitor_hooks(cls: type) -> tuple[tuple[str, type, bool], ...]:
    known = _VISITOR_HOOKS.get(cls)
    if known is None:
        found = []
        # The names the class and its own bases define (``dir`` would list LibCST's hundreds of
        # empty hooks too), less those that are still ``CSTVisitor``'s own.
        defined = {name for base in cls.__mro__ if base not in _BASE_VISITORS for name in vars(base)}
        for name in sorted(defined):
            if not name.startswith(("visit_", "leave_")) or getattr(cls, name) is getattr(cst.CSTVisitor, name, None):
                continue
            prefix, _, kind = name.partition("_")
            node_type = getattr(cst, kind, None)
            if isinstance(node_type, type) and issubclass(node_type, cst.CSTNode):
                found.append((name, node_type, prefix == "visit"))
        known = _VISITOR_HOOKS[cls] = tuple(found)
    return known


def visit(node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    """Drive ``visitor`` over the code nodes of ``node`` as ``node.visit(visitor)`` would
    (``on_visit`` before a node's children, which it may skip by returning False; ``on_leave``
    after them), without rebuilding any node. Whitespace, comments and punctuation are not
    visited (see ``walk``'s ``code_only``), nor attribute hooks (``visit_Call_func``)."""
    cls = type(visitor)
    if cls.on_visit is cst.CSTVisitor.on_visit and cls.on_leave is cst.CSTVisitor.on_leave:
        # LibCST's own ``on_visit``/``on_leave`` look a hook up by name for every node, and call
        # the base class's empty hooks too: ``dispatch`` calls the visitor's own hooks alone.
        visits: dict[type, Callable] = {}
        leaves: dict[type, Callable] = {}
        for name, kind, visiting in _visitor_hooks(cls):
            (visits if visiting else leaves)[kind] = getattr(visitor, name)
        dispatch(node, visits, leaves)
        return
    stack: list = [node]  # nodes to visit, and ``(node,)`` for a node to leave (see ``dispatch``)
    pop, push, extend = stack.pop, stack.append, stack.extend
    while stack:
        current = pop()
        if type(current) is tuple:
            visitor.on_leave(current[0])
            continue
        push((current,))
        if visitor.on_visit(current):
            extend(reversed(children(current, code_only=True)))


def dispatch(
    node: cst.CSTNode,
    visits: dict[type, Callable[[cst.CSTNode], object]],
    leaves: dict[type, Callable[[cst.CSTNode], object]],
) -> None:
    """``visit`` with the hooks given by node type: ``visits[type(n)]`` before a node's children
    (which it skips by returning False), ``leaves[type(n)]`` after them. A node type with no hook
    costs a dictionary lookup, not a call: a codemod with hooks for calls only pays for calls."""
    # The stack holds nodes to visit, and ``(node,)`` for a node to leave once its children are
    # done. This loop runs for every node of every codemod's plan: the children's cache is read
    # here rather than through ``children``, and no per-node tuple or generator is built.
    stack: list = [node]
    pop, push, extend = stack.pop, stack.append, stack.extend
    remembered = _CODE_CHILDREN
    while stack:
        current = pop()
        kind = type(current)
        if kind is tuple:
            leaving = current[0]
            leaves[type(leaving)](leaving)
            continue
        if kind in leaves:
            push((current,))
        hook = visits.get(kind)
        if hook is None or hook(current) is not False:
            known = remembered.get(id(current))
            if known is not None and known[0] is current:
                extend(reversed(known[1]))
            else:
                extend(reversed(children(current, code_only=True)))


def contains(tree: cst.CSTNode, node: cst.CSTNode) -> bool:
    """Whether ``node`` (by identity) is ``tree`` or lies under it."""
    return any(current is node for current in walk(tree, code_only=True))
