"""Reading ``__init__`` through what only arranges its graph code (``flattened``).

Two arrangements compute nothing, so ``__init__`` is read, and written, without them:

- a method ``__init__`` calls once, on a line of its own and without arguments, to build the
  graph (``self.build()``): its lines stand in place of the call and the method goes (it built
  TF1 graph values the object no longer has). It is read so only when it is a plain method
  (``self`` its one parameter, no decorator, no ``return``/``yield``/``global``), named nowhere
  else in the class, and binds no name ``__init__`` uses too;
- ``with tf.name_scope("cnn"):`` and ``with tf.device("/cpu:0"):`` blocks: they name and place
  the ops built in them; their lines stand in their place (the comments above the block go with
  its first line). A ``variable_scope`` is no such block: it shares variables.

And a variable ``__init__`` binds to a local (``embedding = tf.get_variable(...)``, read by the
graph it builds) is kept on the object (``self.embedding``, read as such), as a ``tf.Module``
holds its variables: when the local is bound once, on a line of ``__init__``, and the class
has no attribute of that name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import libcst as cst

from tfmodernize.analysis.tf1_api import PLACEHOLDERS, VARIABLE_MAKERS
from tfmodernize.analysis.tf_objects import TF_MODULE_MEMBERS
from tfmodernize.codemods.migrate.model_class_to_module.model import self_attribute, tf_path
from tfmodernize.codemods.migrate.model_class_to_module.writing import Replacement, substituted
from tfmodernize.names import (
    bound_names,
    local_names,
    name_nodes,
    names_read,
    own_nodes,
    parameter_names,
)
from tfmodernize.syntax import name_assignment, split_docstring
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import walk

#: The TF1 context managers that only name or place the ops built under them.
NAMING = ("name_scope", "device")


@dataclass(frozen=True)
class Flattened:
    """A class as the reader sees it: ``__init__`` read through (``cls``), the methods whose
    lines it took (``inlined``), and the nodes built here by the node each stands for."""

    cls: cst.ClassDef
    inlined: tuple[str, ...] = ()
    origin: dict[int, cst.CSTNode] = field(default_factory=dict)


def builds_graph(cls: cst.ClassDef, tf: TFNames) -> bool:
    """Whether a class's ``__init__`` makes placeholders (a graph class, when it has no session),
    read through the methods it calls to build the graph."""
    methods = [s for s in flattened(cls, tf).cls.body.body if isinstance(s, cst.FunctionDef)]
    init = next((method for method in methods if method.name.value == "__init__"), None)
    calls = [n for n in walk(init.body, code_only=True) if isinstance(n, cst.Call)] if init else []
    return any(tf.is_tf(call.func, *PLACEHOLDERS) for call in calls)


def flattened(cls: cst.ClassDef, tf: TFNames) -> Flattened:
    """``cls`` with ``__init__`` read through the methods building its graph and the naming
    blocks (the same class when there is none)."""
    methods = {s.name.value: s for s in cls.body.body if isinstance(s, cst.FunctionDef)}
    init = methods.get("__init__")
    if init is None:
        return Flattened(cls)
    origin: dict[int, cst.CSTNode] = {}
    inlined: list[str] = []
    body = list(init.body.body)
    changed = True
    while changed:
        changed = False
        body = _through_scopes(body, tf, origin)  # a call in a naming block, a block in a method
        lines: list[cst.BaseStatement] = []
        for statement in body:
            method = methods.get(_called_method(statement) or "")
            if method is None or method.name.value in inlined or not _inlinable(method, cls, body):
                lines.append(statement)
                continue
            _, taken = split_docstring(method.body.body)
            lines += _led(taken, statement, origin)
            inlined.append(method.name.value)
            changed = True
        body = lines
    body = _variables_kept(body, cls, tf, origin)
    same = len(body) == len(init.body.body) and all(a is b for a, b in zip(body, init.body.body))
    if same:
        return Flattened(cls)
    new_init = init.with_changes(body=init.body.with_changes(body=body))
    members = [
        new_init if s is init else s
        for s in cls.body.body
        if not (isinstance(s, cst.FunctionDef) and s.name.value in inlined)
    ]
    new_cls = cls.with_changes(body=cls.body.with_changes(body=members))
    origin[id(new_init)] = init
    origin[id(new_cls)] = cls
    return Flattened(new_cls, tuple(inlined), origin)


def _called_method(statement: cst.BaseStatement) -> Optional[str]:
    """``"build"`` for a line ``self.build()``, else None."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    if not isinstance(small, cst.Expr) or not isinstance(small.value, cst.Call) or small.value.args:
        return None
    return self_attribute(small.value.func)


def _inlinable(method: cst.FunctionDef, cls: cst.ClassDef, body: list[cst.BaseStatement]) -> bool:
    """Whether ``method``'s lines can stand in place of its one call in ``body``."""
    if method.decorators or method.asynchronous is not None or parameter_names(method) != ["self"]:
        return False
    params = method.params
    if params.star_arg is not cst.MaybeSentinel.DEFAULT or params.star_kwarg is not None:
        return False
    if params.params[0].default is not None:
        return False
    leaving = (cst.Return, cst.Yield, cst.Global, cst.Nonlocal)
    if any(isinstance(n, leaving) for n in own_nodes(method.body)):
        return False
    name = method.name.value
    attributes = [n for n in walk(cls.body, code_only=True) if isinstance(n, cst.Attribute)]
    if sum(n.attr.value == name for n in attributes) != 1:
        return False
    used = set()
    for statement in body:
        used |= names_read(statement) | bound_names(statement)
    return not (local_names(method) & used)


def _through_scopes(
    body: list[cst.BaseStatement], tf: TFNames, origin: dict[int, cst.CSTNode]
) -> list[cst.BaseStatement]:
    """``body`` with each naming block replaced by its lines."""
    lines: list[cst.BaseStatement] = []
    for statement in body:
        if not (isinstance(statement, cst.With) and _naming_block(statement, tf)):
            lines.append(statement)
            continue
        inner = _through_scopes(list(statement.body.body), tf, origin)
        comment = statement.body.header.comment
        lead = list(statement.leading_lines)
        if comment is not None:
            lead.append(cst.EmptyLine(comment=comment))
        lines += _led(inner, statement.with_changes(leading_lines=lead), origin)
    return lines


def _variables_kept(
    body: list[cst.BaseStatement], cls: cst.ClassDef, tf: TFNames, origin: dict[int, cst.CSTNode]
) -> list[cst.BaseStatement]:
    """``body`` with each variable bound to a local kept on the object instead."""
    taken = {s.name.value for s in cls.body.body if isinstance(s, cst.FunctionDef)}
    taken |= set(TF_MODULE_MEMBERS) | {self_attribute(n) for n in walk(cls.body, code_only=True)}
    scopes = (cst.FunctionDef, cst.Lambda, cst.ClassDef)
    nested = [n for s in body for n in walk(s, code_only=True) if isinstance(n, scopes)]
    kept: set[str] = set()
    for statement in body:
        assignment = name_assignment(statement)
        if assignment is None or not isinstance(assignment[1], cst.Call):
            continue
        name, value = assignment
        if tf_path(value.func, tf) not in VARIABLE_MAKERS or name in taken:
            continue
        once = sum(name in bound_names(s) for s in body) == 1
        if not once or any(name in names_read(n) for n in nested):
            continue
        kept.add(name)
    if not kept:
        return body
    lines = []
    for statement in body:
        reads = [n for n in name_nodes(statement) if n.value in kept]
        replacements: dict[int, Replacement] = {
            id(n): cst.Attribute(cst.Name("self"), cst.Name(n.value)) for n in reads
        }
        lines.append(substituted(statement, replacements, origin))
    return lines


def _naming_block(statement: cst.With, tf: TFNames) -> bool:
    """``with tf.name_scope("x"):`` / ``with tf.device("/cpu:0"):`` (or both), binding nothing."""
    if statement.asynchronous is not None or not isinstance(statement.body, cst.IndentedBlock):
        return False
    for item in statement.items:
        call = item.item
        if item.asname is not None or not isinstance(call, cst.Call):
            return False
        if tf_path(call.func, tf) not in NAMING:
            return False
        if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
            return False
        if not isinstance(call.args[0].value, cst.SimpleString):
            return False
    return True


def _led(
    lines: list[cst.BaseStatement], replaced: cst.BaseStatement, origin: dict[int, cst.CSTNode]
) -> list[cst.BaseStatement]:
    """``lines`` standing where ``replaced`` stood: its leading comments go on the first."""
    if not lines or not replaced.leading_lines:
        return lines
    first = lines[0]
    moved = first.with_changes(leading_lines=[*replaced.leading_lines, *first.leading_lines])
    origin[id(moved)] = origin.get(id(first), first)
    return [moved, *lines[1:]]
