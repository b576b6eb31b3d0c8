"""``tf.GradientTape`` blocks and ``tape.gradient`` calls, shared by the tape codemods."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

import libcst as cst

from tfmodernize.analysis.bindings import Parents, Scopes, bindings
from tfmodernize.tfsymbols import TFNames, dotted_name, root_name
from tfmodernize.treewalk import walk


def is_tape(name: cst.BaseExpression, tf: TFNames, scopes: Scopes, parents: Parents) -> bool:
    """Whether ``name`` is only ever bound by ``with tf.GradientTape(...) as name``."""
    if not isinstance(name, cst.Name):
        return False
    found = bindings(name, scopes, parents)
    return bool(found) and all(
        b.kind == "with" and isinstance(b.value, cst.Call) and tf.is_tf(b.value.func, "GradientTape") for b in found
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
    for node in walk(root, code_only=True):
        call = gradient_call(node)
        if call is not None and is_tape(call.tape, tf, scopes, parents):
            found.append(call)
    return found


#: NumPy functions with a TF op computing the same on a tensor (paths relative to TF), for
#: code on the way to a gradient target: NumPy would turn the tensor into an array the tape
#: cannot follow.
NUMPY_TO_TF = {
    "mean": "reduce_mean",
    "sum": "reduce_sum",
    "max": "reduce_max",
    "amax": "reduce_max",
    "min": "reduce_min",
    "amin": "reduce_min",
    "prod": "reduce_prod",
    "square": "square",
    "abs": "abs",
    "exp": "exp",
    "log": "math.log",
    "sqrt": "sqrt",
    "tanh": "tanh",
}
#: Keywords those NumPy functions and their TF ops share.
NUMPY_KEYWORDS = ("axis", "keepdims")
#: The NumPy functions of ``NUMPY_TO_TF`` taking one array and nothing else.
_ELEMENTWISE = ("square", "abs", "exp", "log", "sqrt", "tanh")


def _imported(node: cst.CSTNode) -> list[cst.ImportAlias]:
    if isinstance(node, cst.Import):
        return list(node.names)
    if isinstance(node, cst.ImportFrom) and node.module is not None:
        return [cst.ImportAlias(name=node.module)]
    return []


def numpy_function(func: cst.BaseExpression, scopes: Scopes, parents: Parents) -> Optional[str]:
    """``"mean"`` for ``np.mean`` (``numpy`` under any alias), ``""`` for another NumPy name
    whose function is not known, None for a name that is not NumPy's."""
    root = root_name(func)
    if root is None:
        return None
    found = bindings(root, scopes, parents)
    if not found or not all(
        b.kind == "import" and any((dotted_name(a.name) or "").split(".")[0] == "numpy" for a in _imported(b.node))
        for b in found
    ):
        return None
    dotted = dotted_name(func) or ""
    if "." in dotted:
        return dotted.split(".", 1)[1]
    return dotted if isinstance(found[0].node, cst.ImportFrom) else ""


def numpy_as_tf(call: cst.Call, function: Optional[str]) -> Optional[str]:
    """The TF op computing what ``call`` of the NumPy ``function`` computes on a tensor, else None."""
    tf_path = NUMPY_TO_TF.get(function or "")
    if tf_path is None or not call.args or any(a.star for a in call.args):
        return None
    positional = [a for a in call.args if a.keyword is None]
    keywords = [a.keyword.value for a in call.args if a.keyword is not None]
    if function in _ELEMENTWISE:
        return tf_path if len(positional) == 1 and not keywords else None
    if len(positional) > 2 or any(k not in NUMPY_KEYWORDS for k in keywords):
        return None
    return tf_path


def tape_block(gradient_tape: cst.BaseExpression, tape: str, statements: Sequence[cst.BaseStatement]) -> cst.With:
    """``with tf.GradientTape() as tape:`` around ``statements``."""
    return cst.With(
        items=[cst.WithItem(cst.Call(gradient_tape), asname=cst.AsName(cst.Name(tape)))],
        body=cst.IndentedBlock(body=list(statements)),
    )
