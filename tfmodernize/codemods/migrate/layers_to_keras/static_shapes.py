"""Static shapes inside one network function, for layers-to-keras: ``StaticShapes`` reads the
last dimension (and the rank) of a value it computes from the shapes its weights are made with:
what a batch normalisation written as TF2 ops needs to make its ``beta``
(``training_batch_norm``)."""

from __future__ import annotations

from typing import Mapping, Optional

import libcst as cst

from tfmodernize.codemods.migrate.layers_to_keras.shapes import SHAPE_KEEPING
from tfmodernize.names import names_bound_here, parameter_names
from tfmodernize.syntax import argument
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import walk

#: TF ops whose result has the shape of their first argument, besides ``SHAPE_KEEPING``
#: (element-wise ops broadcasting a scalar or a vector over it).
FIRST_ARGUMENT_SHAPED = frozenset(
    {
        "nn.dropout",
        "maximum",
        "math.maximum",
        "minimum",
        "math.minimum",
        "nn.relu6",
        "nn.leaky_relu",
        "add",
        "math.add",
        "multiply",
        "math.multiply",
        "subtract",
        "math.subtract",
    }
)
#: Literal data formats meaning channels last.
CHANNELS_LAST = ("NHWC", "NWC", "NDHWC")


class StaticShapes:
    """The static shape of a value a network function computes, read from its code: the
    shapes its variables are made with (``[4, 4, 1, K]``, ``K = 64`` bound once in it), what a
    convolution, a transposed convolution (its ``output_shape``), ``tf.matmul`` and
    ``tf.reshape`` make of them, ops keeping the shape of their first argument, broadcasting
    arithmetic, and the module's helpers (``conv(x, w, b)`` returning ``tf.nn.conv2d(x, w, ...)
    + b``: its ``return`` read with the call's arguments). A shape is a list of dimensions, an
    int or None where unknown; None when even the rank is not known."""

    def __init__(self, module: cst.Module, tf: TFNames, variables: Mapping[str, cst.BaseExpression]) -> None:
        self.tf = tf
        self.variables = variables  # name bound to a variable the function makes -> its shape expression
        self.helpers = {s.name.value: s for s in module.body if isinstance(s, cst.FunctionDef)}

    def channels(self, function: cst.FunctionDef, value: cst.BaseExpression) -> tuple[Optional[int], Optional[int]]:
        """(the last dimension, the rank) of ``value`` in ``function``, each None when not known."""
        shape = self._shape(value, _Scope(function, {}, None), 0)
        if not shape:
            return None, None
        return shape[-1], None if isinstance(shape, _Unranked) else len(shape)

    def _shape(self, value: cst.BaseExpression, scope: "_Scope", depth: int) -> Optional[list[Optional[int]]]:
        if depth > 40:
            return None
        if isinstance(value, cst.Name):
            if value.value in scope.arguments:
                given, outer = scope.arguments[value.value]
                return self._shape(given, outer, depth + 1)
            if scope.outer is None and value.value in self.variables:
                return self._dimensions(self.variables[value.value], scope, depth)
            bound = scope.bound(value.value)
            return None if bound is None else self._shape(bound, scope, depth + 1)
        if isinstance(value, (cst.Integer, cst.Float)):
            return []
        if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, (cst.Add, cst.Subtract, cst.Multiply)):
            return _broadcast(self._shape(value.left, scope, depth + 1), self._shape(value.right, scope, depth + 1))
        if not isinstance(value, cst.Call) or any(a.star for a in value.args):
            return None
        if isinstance(value.func, cst.Name) and value.func.value in self.helpers:
            return self._helper(self.helpers[value.func.value], value, scope, depth)
        symbol = self.tf.tf_symbol(value.func)
        path = symbol.path if symbol is not None else ""
        first = (
            argument(value, 0, "input")
            or argument(value, 0, "x")
            or argument(value, 0, "a")
            or argument(value, 0, "tensor")
        )
        if path in ("nn.conv2d", "nn.conv1d", "nn.conv3d"):
            if not self._channels_last(value):
                return None
            # The kernel has the rank of the output (``[height, width, in, out]`` for 4-D images).
            kernel = argument(value, 1, "filters") or argument(value, 1, "filter")
            weights = self._shape(kernel, scope, depth + 1) if kernel is not None else None
            return [*([None] * (len(weights) - 1)), weights[-1]] if weights else None
        if path in ("nn.conv2d_transpose", "nn.conv1d_transpose", "nn.conv3d_transpose"):
            if not self._channels_last(value):
                return None
            wanted = argument(value, 2, "output_shape")
            return self._dimensions(wanted, scope, depth) if wanted is not None else None
        if path in ("matmul", "linalg.matmul") and len(value.args) == 2 and all(a.keyword is None for a in value.args):
            left, right = (self._shape(a.value, scope, depth + 1) for a in value.args)
            if right is None or isinstance(right, _Unranked) or len(right) != 2:
                return None
            # ``x`` of a rank the code does not say (a parameter): batched matmul keeps its rank.
            return (
                [left[0], right[-1]]
                if left is not None and not isinstance(left, _Unranked) and len(left) == 2
                else _Unranked([right[-1]])
            )
        if path == "reshape":
            wanted = argument(value, 1, "shape")
            dims = self._dimensions(wanted, scope, depth) if wanted is not None else None
            return None if dims is None else [d if d is None or d >= 0 else None for d in dims]
        if (path in SHAPE_KEEPING or path in FIRST_ARGUMENT_SHAPED) and first is not None:
            return self._shape(first, scope, depth + 1)
        return None

    def _helper(
        self, helper: cst.FunctionDef, call: cst.Call, scope: "_Scope", depth: int
    ) -> Optional[list[Optional[int]]]:
        """The shape of what a module helper returns for this call: its one ``return`` (in its
        body or its ``with`` blocks), its parameters read as the call's arguments."""
        returns = [n for n in walk(helper.body, code_only=True) if isinstance(n, cst.Return)]
        if len(returns) != 1 or returns[0].value is None:
            return None
        parameters = parameter_names(helper)
        arguments: dict[str, tuple[cst.BaseExpression, _Scope]] = {}
        for position, arg in enumerate(call.args):
            name = (
                arg.keyword.value
                if arg.keyword is not None
                else (parameters[position] if position < len(parameters) else None)
            )
            if name is None:
                return None
            arguments[name] = (arg.value, scope)
        for param in helper.params.params:
            if param.name.value not in arguments and param.default is not None:
                arguments[param.name.value] = (param.default, _Scope(helper, {}, scope))
        return self._shape(returns[0].value, _Scope(helper, arguments, scope), depth + 1)

    def _dimensions(self, shape: cst.BaseExpression, scope: "_Scope", depth: int) -> Optional[list[Optional[int]]]:
        """The dimensions a shape written out lists (``[batch, 14, 14, M]``): ints where known."""
        if isinstance(shape, cst.Name):
            if shape.value in scope.arguments:
                given, outer = scope.arguments[shape.value]
                return self._dimensions(given, outer, depth + 1)
            bound = scope.bound(shape.value)
            return None if bound is None or depth > 40 else self._dimensions(bound, scope, depth + 1)
        if not isinstance(shape, (cst.List, cst.Tuple)) or any(
            isinstance(e, cst.StarredElement) for e in shape.elements
        ):
            return None
        return [self._int(e.value, scope, depth) for e in shape.elements]

    def _int(self, value: cst.BaseExpression, scope: "_Scope", depth: int) -> Optional[int]:
        """A dimension's value when the code fixes it: a literal, a name bound once to one, or
        arithmetic of those."""
        if depth > 40:
            return None
        if isinstance(value, cst.Integer):
            return int(value.evaluated_value)
        if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
            inner = self._int(value.expression, scope, depth + 1)
            return None if inner is None else -inner
        if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, (cst.Add, cst.Subtract, cst.Multiply)):
            left, right = self._int(value.left, scope, depth + 1), self._int(value.right, scope, depth + 1)
            if left is None or right is None:
                return None
            return (
                left + right
                if isinstance(value.operator, cst.Add)
                else left - right
                if isinstance(value.operator, cst.Subtract)
                else left * right
            )
        if isinstance(value, cst.Name):
            if value.value in scope.arguments:
                given, outer = scope.arguments[value.value]
                return self._int(given, outer, depth + 1)
            bound = scope.bound(value.value)
            return None if bound is None else self._int(bound, scope, depth + 1)
        return None

    def _channels_last(self, call: cst.Call) -> bool:
        layout = argument(call, None, "data_format")
        return layout is None or (isinstance(layout, cst.SimpleString) and layout.evaluated_value in CHANNELS_LAST)


class _Scope:
    """Where a name is read: a function (the network function, or a helper it calls) and what
    the call passed its parameters (each with the scope it was written in)."""

    def __init__(self, function: cst.FunctionDef, arguments: dict, outer: Optional["_Scope"]) -> None:
        self.function, self.arguments, self.outer = function, arguments, outer

    def bound(self, name: str) -> Optional[cst.BaseExpression]:
        """The value ``name`` is bound to, when the function binds it once, by ``name = value``."""
        values = [
            node.value
            for node in walk(self.function.body, code_only=True)
            if isinstance(node, cst.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0].target, cst.Name)
            and node.targets[0].target.value == name
        ]
        binders = sum(1 for node in walk(self.function.body, code_only=True) if name in names_bound_here(node))
        if len(values) != 1 or binders != 1 or name in parameter_names(self.function):
            return None
        return values[0]


class _Unranked(list):
    """A shape of which only the last dimension is known (``[last]``), not the rank."""


def _broadcast(
    left: Optional[list[Optional[int]]], right: Optional[list[Optional[int]]]
) -> Optional[list[Optional[int]]]:
    """The shape of an element-wise operation of two shapes (the longer one, its known last
    dimension kept; where one is unknown, nothing is known)."""
    if left is None or right is None:
        return None
    if isinstance(left, _Unranked) or isinstance(right, _Unranked):
        lasts = [shape[-1] for shape in (left, right) if shape and shape[-1] not in (None, 1)]
        return _Unranked([lasts[0] if lasts else None])
    longer, shorter = (left, right) if len(left) >= len(right) else (right, left)
    if not longer:
        return []
    last = longer[-1] if longer[-1] is not None and longer[-1] != 1 else (shorter[-1] if shorter else longer[-1])
    return [*longer[:-1], last]
