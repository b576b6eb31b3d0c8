"""The function side: the parameter a loop's argument binds, and whether the function's uses of
it take an ``int32`` (or, as a ``tf.summary`` step, an ``int64``) tensor as they take a Python
int."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tfmodernize.analysis.tf_function import own_body
from tfmodernize.codemods.tf2.tf_range_loop.plan import RangeFile
from tfmodernize.syntax import source
from tfmodernize.treewalk import walk

#: TF functions that convert a Python int argument to the same int32 tensor that
#: ``tf.constant(i)`` / ``tf.range`` give: {path: positions (None: any) allowed}.
TENSOR_SAFE_ARGS: dict[str, Optional[tuple[int, ...]]] = {
    "cast": (0,),
    "range": None,
    "print": None,
    "convert_to_tensor": (0,),
    "identity": (0,),
    "fill": (1,),
    "gather": (1,),
}
#: Of those, the ones that take an int64 tensor as they take an int32 one.
ANY_INT_ARGS = ("cast", "print", "gather")
#: The TF paths of calls whose ``step=`` must be an int64 tensor (or a Python int).
SUMMARY_PREFIX = "summary."
#: Keywords that change how those functions convert their arguments.
CONVERSION_KEYWORDS = ("dtype", "preferred_dtype", "dtype_hint")


def bound_parameter(function: cst.FunctionDef, call: cst.Call, arg: cst.Arg) -> Optional[str]:
    """The parameter of ``function`` that ``arg`` of ``call`` binds, if it is known."""
    params = [*function.params.posonly_params, *function.params.params]
    if arg.keyword is not None:
        names = [p.name.value for p in [*function.params.params, *function.params.kwonly_params]]
        return arg.keyword.value if arg.keyword.value in names else None
    position = [a for a in call.args if a.keyword is None].index(arg)
    if any(a.star for a in call.args[: call.args.index(arg) + 1]) or position >= len(params):
        return None
    return params[position].name.value


def argument_dtype(file: RangeFile, function: cst.FunctionDef, parameter: str) -> tuple[Optional[str], str]:
    """``(why, dtype)``: the code of the first use of ``parameter`` that needs a Python
    number (else None), and the dtype of the tensor its uses take: ``int64`` when it is a
    ``tf.summary`` step (which takes int64 only), else ``int32``."""
    steps = [
        node
        for node in own_body(function.body)
        if isinstance(node, cst.Name) and node.value == parameter and _summary_step(file, node)
    ]
    if not steps:
        return _python_number_use(file, function, parameter), "int32"
    for node in own_body(function.body):
        if isinstance(node, cst.Name) and node.value == parameter and node not in steps:
            if not tensor_safe_use(file, node, ANY_INT_ARGS):
                user = file.parents.get(node)
                if isinstance(user, cst.Attribute) and user.attr is node:
                    continue
                if isinstance(user, cst.Arg) and user.keyword is node:
                    continue
                return source(_context_of(file, node)), "int64"
    return None, "int64"


def _summary_step(file: RangeFile, name: cst.Name) -> bool:
    """``tf.summary.scalar(..., step=name)`` and the like, or
    ``tf.summary.experimental.set_step(name)``: TF converts the step to int64."""
    arg = file.parents.get(name)
    if not isinstance(arg, cst.Arg) or arg.star or arg.value is not name:
        return False
    call = file.parents.get(arg)
    symbol = file.tf.tf_symbol(call.func) if isinstance(call, cst.Call) else None
    if symbol is None or not symbol.path.startswith(SUMMARY_PREFIX):
        return False
    if symbol.path == "summary.experimental.set_step":
        return call.args.index(arg) == 0 and arg.keyword is None
    return arg.keyword is not None and arg.keyword.value == "step"


def _python_number_use(file: RangeFile, function: cst.FunctionDef, parameter: str) -> Optional[str]:
    """Code of the first use of ``parameter`` that needs a Python number, else None."""
    body = function.body
    for node in own_body(body):
        if isinstance(node, cst.Name) and node.value == parameter:
            if tensor_safe_use(file, node):
                continue
            user = file.parents.get(node)
            if isinstance(user, cst.Attribute) and user.attr is node:
                continue
            if isinstance(user, cst.Arg) and user.keyword is node:
                continue
            return source(_context_of(file, node))
        if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)) and parameter in {
            n.value for n in walk(node) if isinstance(n, cst.Name)
        }:
            return source(node).splitlines()[0]
    return None


def _context_of(file: RangeFile, name: cst.Name) -> cst.CSTNode:
    """The smallest enclosing expression worth quoting in a message."""
    node: cst.CSTNode = name
    parent = file.parents.get(node)
    while isinstance(
        parent, (cst.Arg, cst.BaseExpression, cst.Element, cst.SubscriptElement, cst.Index)
    ) and not isinstance(parent, cst.Lambda):
        node = parent
        if isinstance(node, (cst.Call, cst.BinaryOperation, cst.Subscript, cst.Comparison)):
            break
        parent = file.parents.get(node)
    return node


def tensor_safe_use(file: RangeFile, name: cst.Name, only: Optional[tuple[str, ...]] = None) -> bool:
    """``name`` is handed straight to a TF op that converts a Python int to int32 itself
    (of the paths ``only``, if given)."""
    arg = file.parents.get(name)
    if not isinstance(arg, cst.Arg) or arg.keyword is not None or arg.star:
        return False
    call = file.parents.get(arg)
    if not isinstance(call, cst.Call):
        return False
    symbol = file.tf.tf_symbol(call.func)
    if symbol is None or symbol.path not in TENSOR_SAFE_ARGS or (only is not None and symbol.path not in only):
        return False
    if any(a.keyword is not None and a.keyword.value in CONVERSION_KEYWORDS for a in call.args):
        return False
    positions = TENSOR_SAFE_ARGS[symbol.path]
    return positions is None or call.args.index(arg) in positions
