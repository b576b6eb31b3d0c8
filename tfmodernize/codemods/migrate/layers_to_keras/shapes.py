"""Static widths across a network function's split, for layers-to-keras.

``def fc_layer(x, num_units, name)`` reading ``in_dim = x.get_shape()[1]`` made its weights
``[in_dim, num_units]`` on each call, from the width of what it was given. The class it becomes
makes them once, in ``__init__``, before any input is seen: ``__init__`` takes ``in_dim``
(``Split.derived``), and each calling file passes the width it knows of the input there
(``input_dimension``): the declared shape of a placeholder (``tf.placeholder(tf.float32,
[None, 784])``), or the width of a result of an earlier call of such a class, which the
module exports (``result_widths``: ``layer = tf.matmul(x, W)`` then ``layer += b`` and
``tf.nn.relu(layer)`` has the last dimension of ``W``, the argument given to ``num_units``).

``static_shapes`` reads the shapes of what one network function computes.
"""

from __future__ import annotations

from typing import Mapping, Optional, Sequence

import libcst as cst

from tfmodernize.names import name_nodes, names_bound_here, parameter_names
from tfmodernize.syntax import argument, source, statement_of
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import walk

#: TF ops whose result has the shape of their first argument.
SHAPE_KEEPING = frozenset(
    {
        "nn.relu",
        "nn.relu6",
        "nn.elu",
        "nn.selu",
        "nn.leaky_relu",
        "nn.sigmoid",
        "sigmoid",
        "nn.tanh",
        "tanh",
        "math.sigmoid",
        "math.tanh",
        "nn.softplus",
        "nn.softsign",
        "nn.softmax",
        "nn.log_softmax",
        "identity",
        "nn.bias_add",
    }
)


def variable_shape(call: cst.Call, helpers: Mapping[str, cst.FunctionDef], tf: TFNames) -> Optional[cst.BaseExpression]:
    """The shape a network function's variable is made with: ``tf.get_variable``'s ``shape``
    (or, without one, the shape of the tensor given as its initializer: ``tf.constant(0.0,
    shape=s)``, ``tf.zeros(s)``); for a variable helper's call, what the call passes the
    parameter that shape reads."""
    helper = helpers.get(call.func.value) if isinstance(call.func, cst.Name) else None
    request = helper.body.body[-1].body[0].value if helper is not None else call
    shape = argument(request, 1, "shape")
    initial = argument(request, 3, "initializer")
    if shape is None and isinstance(initial, cst.Name) and helper is not None:
        bound = [
            small.value
            for line in helper.body.body
            if isinstance(line, cst.SimpleStatementLine)
            for small in line.body
            if isinstance(small, cst.Assign)
            and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)
            and small.targets[0].target.value == initial.value
        ]
        initial = bound[0] if len(bound) == 1 else None
    if shape is None and isinstance(initial, cst.Call):
        symbol = tf.tf_symbol(initial.func)
        path = symbol.path if symbol is not None else ""
        shape = (
            argument(initial, 2, "shape")
            if path == "constant"
            else argument(initial, 0, "shape")
            if path
            in (
                "zeros",
                "ones",
                "fill",
                "random.normal",
                "random_normal",
                "random.truncated_normal",
                "truncated_normal",
                "random.uniform",
                "random_uniform",
            )
            else None
        )
    if helper is None or not isinstance(shape, cst.Name):
        return shape if helper is None else None
    parameters = parameter_names(helper)
    if shape.value not in parameters:
        return None
    return argument(call, parameters.index(shape.value), shape.value)


def bound_shapes(
    made: Sequence, helpers: Mapping[str, cst.FunctionDef], tf: TFNames, parents: dict
) -> dict[str, cst.BaseExpression]:
    """The name each of a network function's variables is bound to -> the shape it is made
    with (``variable_shape``), for those bound to a name and made with a shape."""
    found = {}
    for variable in made:
        bound = (statement_of(variable.call, parents) or (None,))[0]
        shape = variable_shape(variable.call, helpers, tf)
        if bound is not None and shape is not None:
            found[bound] = shape
    return found


def result_widths(
    function: cst.FunctionDef,
    made: Sequence,
    parameters: Sequence[str],
    tf: TFNames,
    parents: dict,
    helpers: Mapping[str, cst.FunctionDef],
) -> tuple[tuple[Optional[int], str, str], ...]:
    """What a calling file knows of the results' last dimension: for each result (its index in
    the returned tuple, None for the one result) bound by ``r = tf.matmul(x, W)``, ``x`` a
    parameter and ``W`` a variable made with a shape written out whose last element is a
    parameter (``[in_dim, num_units]``), and afterwards only by operations keeping its shape
    (``r += b``, ``r = r + b`` with ``b`` made ``[num_units]``, ``r = tf.nn.relu(r)``):
    (index, ``num_units``, ``x``)."""
    elements = _returned(function)
    shapes = {
        name: [e.value for e in shape.elements]
        for name, shape in bound_shapes(made, helpers, tf, parents).items()
        if isinstance(shape, (cst.List, cst.Tuple))
    }
    found = []
    for index, element in elements:
        width = (
            _width(function, element.value, shapes, parameters, tf)
            if isinstance(element, cst.Name)
            else _product_width(element, shapes, parameters, tf)
        )
        if width is not None:
            found.append((index, *width))
    return tuple(found)


def returned_variables(
    function: cst.FunctionDef, made: Sequence, parents: dict
) -> tuple[tuple[Optional[int], str], ...]:
    """The results that are one of the function's variables (``return layer, W``, ``W`` bound
    once, to a variable it makes): (index in the returned tuple, or None; the variable's
    attribute on the object). A caller reads those as the object's attribute: the variable, not
    something its call computed from the inputs."""
    elements = _returned(function)
    attributes = {}
    for variable in made:
        bound = (statement_of(variable.call, parents) or (None,))[0]
        if bound is not None:
            attributes[bound] = variable.name
    found = []
    for index, element in elements:
        if (
            isinstance(element, cst.Name)
            and element.value in attributes
            and sum(1 for n in walk(function.body, code_only=True) if element.value in names_bound_here(n)) == 1
        ):
            found.append((index, attributes[element.value]))
    return tuple(found)


def _returned(function: cst.FunctionDef) -> list[tuple[Optional[int], cst.BaseExpression]]:
    """What the function's one ``return`` gives: (index in the tuple, or None for the one
    result; the expression); empty without exactly one ``return`` of a value."""
    returns = [n for n in walk(function.body, code_only=True) if isinstance(n, cst.Return)]
    if len(returns) != 1 or returns[0].value is None:
        return []
    value = returns[0].value
    if isinstance(value, cst.Tuple):
        if any(isinstance(e, cst.StarredElement) for e in value.elements):
            return []
        return [(i, e.value) for i, e in enumerate(value.elements)]
    return [(None, value)]


def result_element(targets: cst.BaseAssignTargetExpression, index: Optional[int]) -> Optional[cst.Name]:
    """The name a call's result ``index`` (None: the one result) is bound to by ``targets``."""
    if index is None:
        return targets if isinstance(targets, cst.Name) else None
    if (
        isinstance(targets, (cst.Tuple, cst.List))
        and index < len(targets.elements)
        and not any(isinstance(e, cst.StarredElement) for e in targets.elements)
    ):
        element = targets.elements[index].value
        return element if isinstance(element, cst.Name) else None
    return None


def _width(
    function: cst.FunctionDef,
    name: str,
    shapes: Mapping[str, list[cst.BaseExpression]],
    parameters: Sequence[str],
    tf: TFNames,
) -> Optional[tuple[str, str]]:
    """(the parameter giving ``name``'s last dimension, the parameter giving its rank)."""
    binders = [n for n in walk(function.body, code_only=True) if name in names_bound_here(n)]
    if not binders or any(not isinstance(n, (cst.AssignTarget, cst.AugAssign)) for n in binders):
        return None
    first = binders[0]
    if not isinstance(first, cst.AssignTarget) or not isinstance(first.target, cst.Name):
        return None
    product = _product_width(_assignment_value(function, first), shapes, parameters, tf)
    if product is None:
        return None
    last = cst.Name(product[0])
    for binder in binders[1:]:
        if isinstance(binder, cst.AugAssign):
            kept = isinstance(binder.operator, (cst.AddAssign, cst.SubtractAssign)) and _broadcast_free(
                binder.value, last, shapes
            )
        else:
            kept = isinstance(binder.target, cst.Name) and _keeps_shape(
                _assignment_value(function, binder), name, last, shapes, tf
            )
        if not kept:
            return None
    return product


def _product_width(
    value: Optional[cst.BaseExpression],
    shapes: Mapping[str, list[cst.BaseExpression]],
    parameters: Sequence[str],
    tf: TFNames,
) -> Optional[tuple[str, str]]:
    """For ``tf.matmul(x, W)``, ``x`` a parameter and ``W`` a variable made with a shape
    written out whose last element is a parameter: (that parameter, ``x``)."""
    if not (
        isinstance(value, cst.Call)
        and tf.is_tf(value.func, "matmul", "linalg.matmul")
        and len(value.args) == 2
        and all(a.keyword is None and not a.star for a in value.args)
    ):
        return None
    given, weights = value.args[0].value, value.args[1].value
    if not (
        isinstance(given, cst.Name)
        and given.value in parameters
        and isinstance(weights, cst.Name)
        and len(shapes.get(weights.value, ())) == 2
    ):
        return None
    last = shapes[weights.value][-1]
    if not (isinstance(last, cst.Name) and last.value in parameters):
        return None
    return last.value, given.value


def _assignment_value(function: cst.FunctionDef, target: cst.AssignTarget) -> Optional[cst.BaseExpression]:
    """The value assigned to ``target`` (one target, one name)."""
    for node in walk(function.body, code_only=True):
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and node.targets[0] is target:
            return node.value
    return None


def _keeps_shape(
    value: Optional[cst.BaseExpression],
    name: str,
    last: cst.Name,
    shapes: Mapping[str, list[cst.BaseExpression]],
    tf: TFNames,
) -> bool:
    """``name + b`` / ``b + name`` (``b`` of shape ``[last]``), ``tf.add(name, b)``, or a
    shape-keeping op of ``name`` (``tf.nn.relu(name)``, ``tf.nn.bias_add(name, b)``)."""
    if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, (cst.Add, cst.Subtract)):
        sides = (value.left, value.right)
        return any(isinstance(s, cst.Name) and s.value == name for s in sides) and all(
            (isinstance(s, cst.Name) and s.value == name) or _broadcast_free(s, last, shapes) for s in sides
        )
    if not isinstance(value, cst.Call) or not value.args or value.args[0].keyword is not None:
        return False
    first = value.args[0].value
    if not (isinstance(first, cst.Name) and first.value == name):
        return False
    symbol = tf.tf_symbol(value.func)
    if symbol is not None and symbol.path in ("add", "math.add", "nn.bias_add"):
        return len(value.args) == 2 and _broadcast_free(value.args[1].value, last, shapes)
    return (
        symbol is not None
        and symbol.path in SHAPE_KEEPING
        and symbol.path != "nn.bias_add"
        and all(not any(isinstance(n, cst.Name) and n.value == name for n in walk(a.value)) for a in value.args[1:])
    )


def _broadcast_free(node: cst.BaseExpression, last: cst.Name, shapes: Mapping[str, list[cst.BaseExpression]]) -> bool:
    """Whether adding ``node`` keeps the shape: a number, or a variable made ``[last]``."""
    if isinstance(node, (cst.Integer, cst.Float)):
        return True
    shape = shapes.get(node.value) if isinstance(node, cst.Name) else None
    return shape is not None and len(shape) == 1 and isinstance(shape[0], cst.Name) and shape[0].value == last.value


# -- the callers' side -----------------------------------------------------------------------


class KnownShapes:
    """What one calling file knows of its tensors' static shapes, from its top-level code:
    placeholders declared with a shape written out, and results of earlier calls of project
    classes that export their widths (``noted``)."""

    def __init__(self, module: cst.Module, tf: TFNames) -> None:
        self.module, self.tf = module, tf
        #: name -> (rank, dimensions: expression or None where unknown).
        self.shapes: dict[str, tuple[int, list[Optional[cst.BaseExpression]]]] = {}
        top = [s for s in module.body if not isinstance(s, (cst.FunctionDef, cst.ClassDef))]
        bindings: dict[str, int] = {}
        for node in (n for statement in top for n in walk(statement, code_only=True)):
            for bound in names_bound_here(node):
                bindings[bound] = bindings.get(bound, 0) + 1
        self._once = {name for name, count in bindings.items() if count == 1}
        for statement in top:
            for node in walk(statement, code_only=True):
                if (
                    isinstance(node, cst.Assign)
                    and len(node.targets) == 1
                    and isinstance(node.targets[0].target, cst.Name)
                    and node.targets[0].target.value in self._once
                    and isinstance(node.value, cst.Call)
                    and tf.is_tf(node.value.func, "placeholder")
                ):
                    shape = argument(node.value, 1, "shape")
                    if isinstance(shape, (cst.List, cst.Tuple)) and not any(
                        isinstance(e, cst.StarredElement) for e in shape.elements
                    ):
                        self.shapes[node.targets[0].target.value] = (
                            len(shape.elements),
                            [None if source(e.value) == "None" else e.value for e in shape.elements],
                        )

    def dimension(self, given: cst.BaseExpression, axis: int) -> Optional[cst.BaseExpression]:
        """The static dimension ``axis`` of what a name given as an argument holds, written so
        that it reads the same before the statement: a number, or names the top-level code binds
        once (read already where the placeholder or the earlier call was made); None when not
        known."""
        if not isinstance(given, cst.Name) or given.value not in self.shapes:
            return None
        rank, dims = self.shapes[given.value]
        axis = axis + rank if axis < 0 else axis  # (``[-1]``: the last dimension)
        if not 0 <= axis < rank or dims[axis] is None:
            return None
        found = dims[axis]
        if all(n.value in self._once for n in name_nodes(found)):
            return found
        return None

    def noted(
        self, targets: cst.BaseAssignTargetExpression, split: dict, arguments: Mapping[str, cst.BaseExpression]
    ) -> None:
        """Records the shapes of the results a split class's call binds (``fc1, W1 =
        fc_layer(...)``): the last dimension the module exported is the argument passed to that
        parameter, the rank that of the argument passed to the other."""
        for index, width, ranked in split.get("widths") or ():
            target = result_element(targets, index)
            given, source_of_rank = arguments.get(width), arguments.get(ranked)
            if (
                target is None
                or target.value not in self._once
                or given is None
                or not isinstance(source_of_rank, cst.Name)
                or source_of_rank.value not in self.shapes
            ):
                continue
            rank = self.shapes[source_of_rank.value][0]
            self.shapes[target.value] = (rank, [*([None] * (rank - 1)), given])

    def bound_once(self, name: str) -> bool:
        """Whether the top-level code binds ``name`` once (and no function binds it)."""
        return name in self._once and not any(
            name in names_bound_here(n)
            for s in self.module.body
            if isinstance(s, (cst.FunctionDef, cst.ClassDef))
            for n in walk(s, code_only=True)
        )
