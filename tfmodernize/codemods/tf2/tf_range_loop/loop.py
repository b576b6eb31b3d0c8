"""The loop side: what a ``range`` loop's argument expression is (``number_kind``), its bounds
(``int32_python_int``), and how the loop uses its variable."""

from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst

from tfmodernize.analysis.bindings import is_builtin, references
from tfmodernize.codemods.tf2.tf_range_loop.parameters import tensor_safe_use
from tfmodernize.codemods.tf2.tf_range_loop.plan import RangeFile
from tfmodernize.treewalk import walk

INT_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo)


def number_kind(expr: cst.BaseExpression, loop_var: str) -> Optional[str]:
    """``"int"`` for an integer expression of ``loop_var`` (``i``, ``i * 2 + 1``), ``"float"`` for
    a float expression of it (``i / 10``, ``0.1 * i``), else None."""
    kinds: set[str] = set()
    uses_var = False
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name) and node.value == loop_var:
            uses_var = True
        elif isinstance(node, cst.Integer):
            pass
        elif isinstance(node, cst.Float):
            kinds.add("float")
        elif isinstance(node, cst.BinaryOperation):
            if isinstance(node.operator, cst.Divide):
                kinds.add("float")
            elif not isinstance(node.operator, INT_OPERATORS):
                return None
            stack.extend((node.left, node.right))
        elif isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
            stack.append(node.expression)
        else:
            return None
    if not uses_var:
        return None
    return "float" if kinds else "int"


def loop_nodes(loop: cst.For) -> Iterator[cst.CSTNode]:
    """Every node of the loop's body and ``else`` block."""
    yield from walk(loop.body)
    if loop.orelse is not None:
        yield from walk(loop.orelse)


def int32_python_int(expr: cst.BaseExpression, scopes) -> bool:
    """Whether ``expr`` is provably a Python int in int32 range: int literals, ``len(...)``
    and their sums, differences and products. ``tf.range`` then yields int32 like
    ``tf.constant(i)``; a NumPy int64 bound would make it yield int64."""
    if isinstance(expr, cst.Integer):
        return expr.evaluated_value < 2**31
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        return int32_python_int(expr.expression, scopes)
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "len":
        return is_builtin(expr.func, scopes)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add, cst.Subtract, cst.Multiply)):
        return int32_python_int(expr.left, scopes) and int32_python_int(expr.right, scopes)
    return False


def rebound_in_loop(loop: cst.For, var: str, scopes) -> bool:
    """Whether the loop body (or its ``else``) assigns the loop variable ``var`` again."""
    scope = scopes.get(loop.target)
    if scope is None:
        return True
    inside = {id(n) for n in loop_nodes(loop)}
    return any(id(a.node) in inside for a in scope.assignments[var])


def only_tensor_uses(file: RangeFile, loop: cst.For, wrapped: set[int]) -> bool:
    """Every read of the loop variable is a candidate argument (``wrapped``: their ids) or a
    tensor-safe TF argument."""
    uses = references(loop.target, file.scopes)
    if uses is None:
        return False
    inside = {id(n) for n in loop_nodes(loop)}
    for use in uses:
        if id(use) not in inside:
            return False  # read after the loop, where it would now be a tensor
        parent = file.parents.get(use)
        if id(parent) in wrapped or tensor_safe_use(file, use):
            continue
        return False
    return True
