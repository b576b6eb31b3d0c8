"""What a network function's layers and variables read where they are made once, before the
function runs, for layers-to-keras (``HoistedArguments``): a parameter every call passes the
same constant, a constant the function binds before the call (``width = 6``), or, when the
function becomes a class, a static dimension of an input (``in_dim = x.get_shape()[1]``,
``input_dimension``) its ``__init__`` takes; and those names replaced by what they stand for
(``substituted``)."""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Optional, Sequence

import libcst as cst

from tfmodernize.analysis import module_variables
from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.layers_to_keras.network import Network
from tfmodernize.names import local_names, name_nodes, names_bound_here, parameter_names
from tfmodernize.syntax import argument, parenthesized, source, statement_holding
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import walk


class HoistedArguments:
    """Reads, in one module, what the names a network function's made-once expressions read
    stand for before the function (``hoisted``, ``substitutions``, ``removable``)."""

    def __init__(self, module: cst.Module, tf: TFNames, parents: dict) -> None:
        self.module, self.tf, self.parents = module, tf, parents

    def hoisted(self, function: cst.FunctionDef, network: Network, layer: Any, call: cst.Call) -> Any:
        """The layer (a ``LayerCall``) with its constructor arguments as they read before the
        function, where it is created (``substitutions``)."""
        replacements = self.substitutions(function, network, layer.constructor, call)
        if not replacements:
            return layer
        return dataclasses.replace(layer, constructor=[substituted(arg, replacements) for arg in layer.constructor])

    def substitutions(
        self,
        function: cst.FunctionDef,
        network: Network,
        expressions: Sequence[cst.CSTNode],
        call: cst.Call,
        *,
        split: bool = False,
    ) -> dict[str, cst.BaseExpression]:
        """What the function's names that ``expressions`` (made once, before the function
        runs) read stand for there: a parameter every call passes the same constant (or a name
        the module binds once, before the function), or a constant the function binds once
        before ``call`` (``width = 6``); a name the function computes declines. ``split``: what
        is made goes to the ``__init__`` of the class the function becomes, which takes the
        parameters: they stay."""
        parameters = parameter_names(function)
        local = local_names(function) | (set() if split else set(parameters))
        index = next(i for i, s in enumerate(self.module.body) if s is function)
        replacements: dict[str, cst.BaseExpression] = {}
        pending = sorted({n.value for expression in expressions for n in name_nodes(expression)} & local)
        while pending:
            name = pending.pop(0)
            if name in replacements:
                continue
            value = (
                self._same_everywhere(function, network, name, index)
                if name in parameters
                else self._constant(function, network, name, call)
            )
            if value is None and split and self._static_dim(function, network, name, call):
                value = cst.Name(name)  # an argument of ``__init__`` now: the callers pass it
            if value is None:
                raise Decline(
                    call,
                    f"its argument `{name}` is computed in `{function.name.value}`, where what it "
                    "makes could not be made once, before the function runs",
                )
            replacements[name] = value
            pending += sorted({n.value for n in name_nodes(value)} & local - set(replacements))
        return {name: substituted(value, replacements) for name, value in replacements.items()}

    def _constant(
        self, function: cst.FunctionDef, network: Network, name: str, call: cst.Call
    ) -> Optional[cst.BaseExpression]:
        """The value of ``name = <constant>`` (or of ``name``'s place in ``a, name = 3, <constant>``),
        the function's only binding of ``name``, a line of
        its own in its body or scope blocks, before the statement of ``call``; the value is
        numbers and strings, combined by operators, and names (parenthesized when combined), a
        list or tuple of those written out (``shape = [k, k, channels, filters]``, which nothing
        changes in place: no method or item of it is read), or a TF initializer made of such
        arguments (``tf.truncated_normal_initializer(stddev=s)``)."""
        line = self._binding_line(function, network, name, call)
        if line is None:
            return None
        value = _unpacked(line.body[0].targets[0].target, line.body[0].value, name)
        if value is None:
            return None
        symbol = self.tf.tf_symbol(value.func) if isinstance(value, cst.Call) else None
        # ``init = tf.truncated_normal_initializer(stddev=0.1)``: making the object draws nothing.
        initializer = symbol is not None and (
            symbol.path.endswith("_initializer") or symbol.path.startswith("initializers.")
        )
        parts = [arg.value for arg in value.args if not arg.star] if initializer else [value]
        if initializer and len(parts) != len(value.args):
            return None
        if isinstance(value, (cst.List, cst.Tuple)):
            if any(isinstance(e, cst.StarredElement) for e in value.elements) or _changed_in_place(function, name):
                return None
            parts = [e.value for e in value.elements]
        if not all(
            isinstance(
                n,
                (
                    cst.Integer,
                    cst.Float,
                    cst.SimpleString,
                    cst.Name,
                    cst.BinaryOperation,
                    cst.UnaryOperation,
                    cst.BaseBinaryOp,
                    cst.BaseUnaryOp,
                ),
            )
            for part in parts
            for n in walk(part)
            if not isinstance(n, (cst.LeftParen, cst.RightParen, cst.BaseParenthesizableWhitespace))
        ):
            return None
        network.constants[name] = line
        return value if isinstance(value, (cst.List, cst.Tuple)) else parenthesized(value)

    def _static_dim(self, function: cst.FunctionDef, network: Network, name: str, call: cst.Call) -> bool:
        """Whether ``name`` is a dimension of an input, bound once, on a line of its own before
        ``call``: ``in_dim = x.get_shape()[1]`` (or ``x.shape[1]``, ``.as_list()``, ``int(...)``,
        ``.value``), ``x`` a parameter the function does not bind again and the index an
        integer written out (``[-1]``: the last dimension, whatever the rank). Then (the function becoming a class) ``__init__``
        takes it, and each caller passes the dimension of what it gives ``x``, when it knows it
        (``Network.derived``)."""
        line = self._binding_line(function, network, name, call)
        found = input_dimension(line.body[0].value, function) if line is not None else None
        if found is None:
            return False
        network.derived[name] = found
        network.constants[name] = line
        return True

    def _binding_line(
        self, function: cst.FunctionDef, network: Network, name: str, call: cst.Call
    ) -> Optional[cst.SimpleStatementLine]:
        """The line ``name = <value>``, the function's only binding of ``name``, on a line of
        its own in its body or scope blocks, before the statement of ``call``; else None."""
        binders = [n for n in walk(function.body) if name in names_bound_here(n)]
        if len(binders) != 1 or not isinstance(binders[0], cst.AssignTarget):
            return None
        line = statement_holding(binders[0], self.parents)
        block = self.parents.get(id(line))
        if not (
            isinstance(line, cst.SimpleStatementLine)
            and len(line.body) == 1
            and len(line.body[0].targets) == 1
            and (block is function.body or any(block is scope.body for scope in network.scopes))
        ):
            return None
        node = statement_holding(call, self.parents)  # the statement of ``block`` holding the call
        while node is not None and not any(s is node for s in block.body):
            node = self.parents.get(id(node))
        if node is None or list(block.body).index(line) >= list(block.body).index(node):
            return None
        return line

    @staticmethod
    def removable(network: Network, line: cst.SimpleStatementLine, reads_left: Callable[[str], bool]) -> bool:
        """Whether a constant's line can go: every name it binds is a constant of the network
        that nothing but what is made once reads (``reads_left``: whether the function still
        reads the name elsewhere)."""
        bound = names_bound_here(line.body[0].targets[0])
        return all(network.constants.get(name) is line and not reads_left(name) for name in bound)

    def _same_everywhere(
        self, function: cst.FunctionDef, network: Network, name: str, before: int
    ) -> Optional[cst.BaseExpression]:
        """What every call passes to parameter ``name`` (its default where not passed), when that
        is one literal, or one name the module binds once before the function; else None."""
        position = parameter_names(function).index(name)
        param = next(p for p in [*function.params.params, *function.params.kwonly_params] if p.name.value == name)
        values = [argument(c, position, name) or param.default for c in network.calls_of]
        if not values or any(v is None for v in values) or len({source(v) for v in values}) != 1:
            return None
        value = values[0]
        if isinstance(value, (cst.Integer, cst.Float, cst.SimpleString)) or (
            isinstance(value, cst.Name) and value.value in ("True", "False", "None")
        ):
            return value
        if isinstance(value, cst.Name):
            bound = module_variables.module_assignment(self.module, value.value)
            rebound = [
                n
                for n in name_nodes(self.module)
                if n.value == value.value and isinstance(self.parents.get(id(n)), cst.AssignTarget)
            ]
            if bound is not None and bound[0] < before and len(rebound) == 1:
                return value
        return None


def input_dimension(value: cst.BaseExpression, function: cst.FunctionDef) -> Optional[tuple[str, int]]:
    """(parameter, axis) when ``value`` reads a static dimension of one of the function's
    parameters that it does not bind again: ``x.get_shape()[1]``, ``x.shape[1]``,
    ``x.get_shape().as_list()[1]``, in ``int(...)`` or with ``.value``; the axis an integer
    written out, counted from the end when negative (``as_list()[-1]``: the channels)."""
    if isinstance(value, cst.Attribute) and value.attr.value == "value":
        value = value.value
    if (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Name)
        and value.func.value == "int"
        and len(value.args) == 1
        and not value.args[0].keyword
        and not value.args[0].star
    ):
        value = value.args[0].value
    if not (isinstance(value, cst.Subscript) and len(value.slice) == 1 and isinstance(value.slice[0].slice, cst.Index)):
        return None
    axis = _written_integer(value.slice[0].slice.value)
    if axis is None:
        return None
    shape = value.value
    listed = _called_on(shape, "as_list")
    if listed is not None:
        shape = listed
    read = _called_on(shape, "get_shape")
    if read is not None:
        shape = read
    elif isinstance(shape, cst.Attribute) and shape.attr.value == "shape":
        shape = shape.value
    else:
        return None
    if not (isinstance(shape, cst.Name) and shape.value in parameter_names(function)) or any(
        shape.value in names_bound_here(n) for n in walk(function.body)
    ):
        return None
    return shape.value, axis


def _changed_in_place(function: cst.FunctionDef, name: str) -> bool:
    """Whether ``function`` reads a member or an item of ``name`` (``shape.append(1)``,
    ``shape[0] = 2``), which could change the list it holds."""
    return any(
        isinstance(n, (cst.Attribute, cst.Subscript)) and isinstance(n.value, cst.Name) and n.value.value == name
        for n in walk(function.body, code_only=True)
    )


def _written_integer(node: cst.BaseExpression) -> Optional[int]:
    """The value of an integer written out (``1``, ``-1``), else None."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = _written_integer(node.expression)
        return None if inner is None else -inner
    return int(node.evaluated_value) if isinstance(node, cst.Integer) else None


def _called_on(node: cst.BaseExpression, method: str) -> Optional[cst.BaseExpression]:
    """``x`` when ``node`` is ``x.method()`` (no arguments), else None."""
    if isinstance(node, cst.Call) and not node.args and isinstance(node.func, cst.Attribute):
        return node.func.value if node.func.attr.value == method else None
    return None


def reads_input_dimension(function: cst.FunctionDef) -> bool:
    """Whether the function binds a name to a static dimension of an input on a line of its
    own (``in_dim = x.get_shape()[1]``): made once, what it makes needs that width from its caller."""
    return any(
        isinstance(n, cst.Assign)
        and len(n.targets) == 1
        and isinstance(n.targets[0].target, cst.Name)
        and input_dimension(n.value, function) is not None
        for n in walk(function.body, code_only=True)
    )


def substituted(node: cst.CSTNode, replacements: dict[str, cst.BaseExpression]) -> Any:
    """``node`` with the names it reads as variables replaced by the expressions they stand for
    (``substitutions``); keywords and attributes of the same spelling stay."""
    reads = {id(n) for n in name_nodes(node) if n.value in replacements}
    return node.visit(_Substitute(replacements, reads)) if reads else node


class _Substitute(cst.CSTTransformer):
    """Names read as variables (``reads``: their ids) -> the expressions they stand for."""

    def __init__(self, replacements: dict[str, cst.BaseExpression], reads: set[int]) -> None:
        super().__init__()
        self.replacements, self.reads = replacements, reads

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        return self.replacements[original.value] if id(original) in self.reads else updated


def _unpacked(
    target: cst.BaseAssignTargetExpression, value: cst.BaseExpression, name: str
) -> Optional[cst.BaseExpression]:
    """What ``target = value`` binds ``name`` to: the value of a plain name, or the matching
    element of a tuple or list written out (``rows, cols = 3, 6``); None otherwise."""
    if isinstance(target, cst.Name):
        return value if target.value == name else None
    if (
        isinstance(target, (cst.Tuple, cst.List))
        and isinstance(value, (cst.Tuple, cst.List))
        and len(target.elements) == len(value.elements)
        and not any(isinstance(e, cst.StarredElement) for e in (*target.elements, *value.elements))
    ):
        for element, item in zip(target.elements, value.elements):
            if isinstance(element.value, cst.Name) and element.value.value == name:
                return item.value
            if not isinstance(element.value, cst.Name):
                return None
    return None
