"""``tf.GradientTape`` blocks and ``tape.gradient`` calls, shared by the tape codemods."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst

from tfmodernize.analysis.bindings import Parents, Scopes, bindings
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import walk


def is_tape(name: cst.BaseExpression, tf: TFNames, scopes: Scopes, parents: Parents) -> bool:
    """Whether ``name`` is only ever bound by ``with tf.GradientTape(...) as name``."""
    if not isinstance(name, cst.Name):
        return False
    found = bindings(name, scopes, parents)
    return bool(found) and all(
        b.kind == "with" and isinstance(b.value, cst.Call) and tf.is_tf(b.value.func, "GradientTape")
        for b in found
    )


def tape_with(name: cst.Name, scopes: Scopes, parents: Parents) -> Optional[cst.With]:
    """The one ``with`` statement binding the tape ``name``, if there is exactly one."""
    found = bindings(name, scopes, parents)
    if len(found) != 1 or found[0].kind != "with" or not isinstance(found[0].statement, cst.With):
        return None
    return found[0].statement


@dataclass(frozen=True)
class GradientCall:
    """``tape.gradient(target, sources, ...)`` split into its parts."""

    call: cst.Call
    tape: cst.Name
    target: cst.BaseExpression
    sources: cst.BaseExpression


def gradient_call(node: cst.CSTNode) -> Optional[GradientCall]:
    """``node`` as a ``<name>.gradient(target, sources)`` call (also by keyword), else None."""
    if not (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and isinstance(node.func.value, cst.Name)
        and node.func.attr.value == "gradient"
    ):
        return None
    target = sources = None
    for index, arg in enumerate(node.args):
        if arg.star:
            return None
        key = arg.keyword.value if arg.keyword is not None else ("target", "sources")[index] if index < 2 else None
        if key == "target":
            target = arg.value
        elif key == "sources":
            sources = arg.value
    if target is None or sources is None:
        return None
    return GradientCall(node, node.func.value, target, sources)


def gradient_calls(root: cst.CSTNode, tf: TFNames, scopes: Scopes, parents: Parents) -> list[GradientCall]:
    """Every ``tape.gradient(...)`` under ``root`` whose tape is a ``tf.GradientTape``."""
    found = []
    for node in walk(root):
        call = gradient_call(node)
        if call is not None and is_tape(call.tape, tf, scopes, parents):
            found.append(call)
    return found

