"""What is traced: the ``tf.function``s of a file that retrace per Python value, the one a call
calls, and the ``for ... in range(...)`` loops outside traced code that call them."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tfmodernize.analysis.bindings import bindings, is_builtin
from tfmodernize.analysis.tf_function import is_tf_function
from tfmodernize.codemods.tf2.tf_range_loop.plan import RangeFile
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import walk


def traced_definitions(module: cst.Module, tf: TFNames) -> dict[cst.FunctionDef, cst.BaseExpression]:
    """Functions decorated only with a ``tf.function`` that retraces per Python value."""
    found = {}
    for node in walk(module):
        if isinstance(node, cst.FunctionDef) and len(node.decorators) == 1:
            decorator = node.decorators[0].decorator
            if is_tf_function(decorator, tf) and retraces(decorator):
                found[node] = decorator
    return found


def retraces(tf_function: cst.BaseExpression) -> bool:
    """Whether ``tf_function`` (``tf.function`` or a call of it) traces per Python value: no
    ``input_signature``."""
    if not isinstance(tf_function, cst.Call):
        return True
    return not any(a.star or (a.keyword is not None and a.keyword.value == "input_signature") for a in tf_function.args)


def compiled(tf_function: cst.BaseExpression) -> bool:
    """``jit_compile=...`` other than False: XLA may need the argument as a constant."""
    return isinstance(tf_function, cst.Call) and any(
        a.keyword is not None
        and a.keyword.value in ("jit_compile", "experimental_compile")
        and not (isinstance(a.value, cst.Name) and a.value.value in ("False", "None"))
        for a in tf_function.args
    )


def traced_callee(file: RangeFile, call: cst.Call) -> Optional[tuple[cst.FunctionDef, cst.BaseExpression]]:
    """The traced function that ``call`` calls (and its ``tf.function`` expression), when
    its name provably means it."""
    if not isinstance(call.func, cst.Name):
        return None
    found = bindings(call.func, file.scopes, file.parents)
    if len(found) != 1:
        return None
    binding = found[0]
    if binding.kind == "def" and binding.node in file.traced_defs:
        return binding.node, file.traced_defs[binding.node]
    wrapped = binding.value
    if (
        binding.kind == "assign"
        and isinstance(wrapped, cst.Call)
        and file.tf.is_tf(wrapped.func, "function")
        and wrapped.args
        and wrapped.args[0].keyword is None
        and isinstance(wrapped.args[0].value, cst.Name)
        and retraces(wrapped)
    ):
        inner = bindings(wrapped.args[0].value, file.scopes, file.parents)
        if len(inner) == 1 and inner[0].kind == "def" and isinstance(inner[0].node, cst.FunctionDef):
            function = inner[0].node
            if not function.decorators and not isinstance(file.parents.get(file.parents.get(function)), cst.ClassDef):
                return function, wrapped
    return None


def in_traced(file: RangeFile, node: cst.CSTNode) -> bool:
    """Inside a traced function, where autograph would turn a ``tf.range`` loop into a
    graph loop: not this codemod's business."""
    current = file.parents.get(node)
    while current is not None:
        if current in file.all_traced:
            return True
        current = file.parents.get(current)
    return False


def range_call(loop: cst.For, scopes) -> Optional[cst.Call]:
    """The builtin ``range(...)`` call ``loop`` iterates over with a plain name, if it does."""
    it = loop.iter
    if (
        loop.asynchronous is None
        and isinstance(loop.target, cst.Name)
        and isinstance(it, cst.Call)
        and isinstance(it.func, cst.Name)
        and it.func.value == "range"
        and is_builtin(it.func, scopes)
        and 1 <= len(it.args) <= 3
        and all(a.keyword is None and not a.star for a in it.args)
    ):
        return it
    return None
