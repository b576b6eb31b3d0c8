"""Network-building functions, for layers-to-keras: which functions' layers can be created
once before them (called from the program's top-level code, once or sharing their variables
through their scope), what their scope blocks and ``reuse`` parameter are, and what the
layers' constructor arguments read where they are created."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Optional, Sequence

import libcst as cst

from tfmodernize.codemod import Decline
from tfmodernize.analysis import training
from tfmodernize.treewalk import contains
from tfmodernize.codemods.migrate.session_to_function.graph import RANDOM_OPS, RNN_PREFIXES
from tfmodernize.codemods.migrate.layers_to_keras.batch_norm import false
from tfmodernize.names import local_names, name_nodes, names_bound_here, parameter_names
from tfmodernize.syntax import ancestors, argument, parenthesized, source, statement_holding
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import walk


#: What a call in a unit (``NetworkFunctions.unit_of``) may not be inside: it might run other
#: than once when the unit does.
UNIT_BREAKS = (
    cst.For,
    cst.While,
    cst.If,
    cst.Try,
    cst.TryStar,
    cst.Match,
    cst.ListComp,
    cst.SetComp,
    cst.DictComp,
    cst.GeneratorExp,
    cst.Lambda,
    cst.ClassDef,
)


class NetworkFunctions:
    """Reads the network-building functions of one module (``read``, ``hoisted``)."""

    def __init__(self, module: cst.Module, tf: TFNames, parents: dict) -> None:
        self.module, self.tf, self.parents = module, tf, parents
        #: Node id -> its place in source order.
        self.order = {id(node): index for index, node in enumerate(walk(module, code_only=True))}

    def read(
        self,
        function: cst.FunctionDef,
        calls: list[cst.Call],
        split: bool = False,
        units: bool = False,
        separate: bool = False,
    ) -> "Network":
        """A network-building function (``def network(x): ... tf.layers.dense(...)``) called from
        the program's top-level code, once, or several times sharing its variables through its
        variable scope (``variable_scope("d", reuse=reuse)``, every call after the first passing
        ``reuse=True``; or ``reuse=tf.AUTO_REUSE``): its layers are created once before it, and
        every call applies them. Its ``variable_scope`` / ``name_scope`` blocks (a literal name,
        and that ``reuse``) are dedented. A function called twice without sharing made two sets
        of variables in TF1: declined. ``split``: a function of a project module, called from the
        other files of the run (``modules``), whose layers its class makes once per object;
        ``separate``: such a class too, for a function this file calls several times without
        sharing (its callers checked apart: ``ProjectCallers._local_calls``).
        ``units``: the calls may also all be in one module function the top-level code calls
        once (``main()``: ``unit_of``), outside its loops."""
        name = function.name.value
        calls_of = [
            n
            for n in walk(self.module, code_only=True)
            if isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == name
        ]
        top_calls = {
            id(n)
            for statement in self.module.body
            if not isinstance(statement, (cst.FunctionDef, cst.ClassDef))
            for n in walk(statement, code_only=True)
        }
        uses = [n for n in name_nodes(self.module) if n.value == name]
        unit = self.unit_of(calls_of) if units and calls_of and not any(id(c) in top_calls for c in calls_of) else None
        if not split and (
            not calls_of
            or (unit is None and any(id(c) not in top_calls for c in calls_of))
            or len(uses) != len(calls_of) + 1
        ):
            raise Decline(
                calls[0],
                f"it is applied in `{name}`, which is not called from the program's top-level "
                "code only" + (" (or, outside loops, from one function it calls once)" if units else ""),
            )
        network = Network(calls, calls_of=calls_of, unit=unit)
        parameters = parameter_names(function)
        allowed = {id(s) for s in function.body.body}
        pending = list(function.body.body)
        while pending:
            statement = pending.pop()
            if isinstance(statement, cst.With):
                for item in statement.items:
                    reuse = self._scope_reuse(item, parameters, split)
                    if reuse is False:
                        raise Decline(
                            statement, "a `with` block other than a variable or name scope given a name (and `reuse`)"
                        )
                    if reuse is not None and reuse is not True:
                        network.reuse = reuse
                    network.shared = network.shared or reuse is not None
                network.scopes.append(statement)
                allowed |= {id(s) for s in statement.body.body}
                pending.extend(statement.body.body)
            elif self._reuse_switch(statement, parameters) and any(
                any(statement is s for s in scope.body.body)
                and self.tf.is_tf(scope.items[-1].item.func, "variable_scope")
                for scope in network.scopes
            ):
                # ``if reuse: tf.get_variable_scope().reuse_variables()``: sharing by the parameter.
                network.reuse, network.shared = statement.test.value, True
                network.switches.append(statement)
        if len(calls_of) > 1 and not network.shared and not separate:
            raise Decline(
                calls[0],
                f"it is applied in `{name}`, which the program calls {len(calls_of)} times without "
                "sharing its variables (`reuse`): TF1 made a network for each call",
            )
        if network.reuse is not None:
            position = parameters.index(network.reuse)
            for order, call in enumerate(calls_of):
                passed = argument(call, position, network.reuse)
                sharing = passed is not None and (
                    isinstance(passed, cst.Name) and passed.value == "True" or self.tf.is_tf(passed, "AUTO_REUSE")
                )
                if sharing != (order > 0) and not (order == 0 and false(passed)):
                    raise Decline(
                        call,
                        f"`{name}` is called with `{network.reuse}` other than absent or False the "
                        "first time and True after",
                    )
            body_uses = [n for n in name_nodes(function.body) if n.value == network.reuse]
            scope_uses = [
                n
                for node in [*(item for b in network.scopes for item in b.items), *(s.test for s in network.switches)]
                for n in name_nodes(node)
                if n.value == network.reuse
            ]
            layer_uses = [n for call in calls for n in name_nodes(call) if n.value == network.reuse]
            if len(body_uses) != len(scope_uses) + len(layer_uses):
                raise Decline(function, f"`{network.reuse}` is used for more than sharing the variables")
        for call in calls:
            holder = statement_holding(call, self.parents)
            if id(holder) not in allowed or not isinstance(holder, cst.SimpleStatementLine):
                raise Decline(call, "it is applied inside a loop, a condition or a nested definition")
        return network

    def before_unit(self, unit: cst.FunctionDef, first: cst.BaseStatement, called: str) -> int:
        """The index of ``unit``'s definition, before which what it first makes in ``first``
        (the statement first calling ``called``) is made instead (a list of variables it
        reads then has them); declines when random values or variables are made from there to
        that statement (TF1 made them first)."""
        built_at = next(i for i, top in enumerate(self.module.body) if top is unit)
        called_at = next(
            i
            for i, top in enumerate(self.module.body)
            for n in name_nodes(top)
            if n.value == unit.name.value and top is not unit
        )
        before = [
            *self.module.body[built_at + 1 : called_at],
            *(
                s
                for s in walk(unit.body, code_only=True)
                if isinstance(s, cst.BaseStatement)
                and self.order.get(id(s), -1) < self.order[id(first)]
                and not contains(s, first)
            ),
        ]
        drawing = next((c for s in before for c in self.draws(s)), None)
        if drawing is not None:
            raise Decline(
                drawing,
                f"random values or variables are made (`{source(drawing.func)}`) between the "
                f"definition of `{unit.name.value}` and its first call of `{called}`: "
                f"made before `{unit.name.value}`, its variables would draw theirs first",
            )
        return built_at

    def draws(self, node: cst.CSTNode) -> Iterator[cst.Call]:
        """The calls in ``node`` (one level into the module functions it calls) that make
        random values or variables: TF random ops, variable makers, layers, RNNs. In a module
        function, ``tf.get_variable`` is left out: its network's variables are made before the
        statement too, in the order of the first calls (if they are not, the file stays TF1)."""
        functions = {s.name.value: s for s in self.module.body if isinstance(s, cst.FunctionDef)}
        for call in (c for c in walk(node, code_only=True) if isinstance(c, cst.Call)):
            if isinstance(call.func, cst.Name) and call.func.value in functions:
                if any(
                    self._draws_itself(inner) and not self.tf.is_tf(inner.func, "get_variable")
                    for inner in walk(functions[call.func.value].body, code_only=True)
                    if isinstance(inner, cst.Call)
                ):
                    yield call
            elif self._draws_itself(call):
                yield call

    def _draws_itself(self, call: cst.Call) -> bool:
        symbol = self.tf.tf_symbol(call.func)
        path = symbol.path if symbol is not None else ""
        return bool(path) and (
            path in RANDOM_OPS
            or path.startswith(("random.", "layers.", *RNN_PREFIXES))
            or training.creates_opaque_variables(call, self.tf)
        )

    def unit_of(self, calls: list[cst.Call]) -> Optional[cst.FunctionDef]:
        """The module function holding every call in ``calls`` outside any loop, condition,
        ``try``, comprehension or nested definition (each runs once when the function does), when the module's top-level code calls it once, by name, in a
        statement outside any block (or in ``if __name__ == "__main__":``), and uses it nowhere
        else; else None."""
        units = set()
        for call in calls:
            holder = None
            for node in ancestors(call, self.parents):
                if isinstance(node, UNIT_BREAKS):
                    return None
                if isinstance(node, cst.FunctionDef):
                    holder = node
                    break
            if holder is None or not any(holder is s for s in self.module.body):
                return None
            units.add(id(holder))
        if len(units) != 1:
            return None
        wanted = units.pop()
        unit = next(s for s in self.module.body if id(s) == wanted)
        uses = [n for n in name_nodes(self.module) if n.value == unit.name.value and n is not unit.name]
        if (
            len(uses) != 1
            or not isinstance(self.parents.get(id(uses[0])), cst.Call)
            or self.parents[id(uses[0])].func is not uses[0]
        ):
            return None
        line = statement_holding(uses[0], self.parents)
        block = self.parents.get(id(line))
        guard = self.parents.get(id(block))
        if any(line is s for s in self.module.body) or (
            isinstance(guard, cst.If)
            and guard.orelse is None
            and any(guard is s for s in self.module.body)
            and source(guard.test).replace("'", '"') == '__name__ == "__main__"'
        ):
            return unit
        return None

    def hoisted(self, function: cst.FunctionDef, network: "Network", layer: Any, call: cst.Call) -> Any:
        """The layer (a ``LayerCall``) with its constructor arguments as they read before the
        function, where it is created (``substitutions``)."""
        replacements = self.substitutions(function, network, layer.constructor, call)
        if not replacements:
            return layer
        return dataclasses.replace(layer, constructor=[substituted(arg, replacements) for arg in layer.constructor])

    def substitutions(
        self,
        function: cst.FunctionDef,
        network: "Network",
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
        self, function: cst.FunctionDef, network: "Network", name: str, call: cst.Call
    ) -> Optional[cst.BaseExpression]:
        """The value of ``name = <constant>`` (or of ``name``'s place in ``a, name = 3, <constant>``),
        the function's only binding of ``name``, a line of
        its own in its body or scope blocks, before the statement of ``call``; the value is
        numbers and strings, combined by operators, and names (parenthesized when combined), or
        a TF initializer made of such arguments (``tf.truncated_normal_initializer(stddev=s)``)."""
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
        return parenthesized(value)

    def _static_dim(self, function: cst.FunctionDef, network: "Network", name: str, call: cst.Call) -> bool:
        """Whether ``name`` is a dimension of an input, bound once, on a line of its own before
        ``call``: ``in_dim = x.get_shape()[1]`` (or ``x.shape[1]``, ``.as_list()``, ``int(...)``,
        ``.value``), ``x`` a parameter the function does not bind again and the index a
        non-negative integer written out. Then (the function becoming a class) ``__init__``
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
        self, function: cst.FunctionDef, network: "Network", name: str, call: cst.Call
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
    def removable(network: "Network", line: cst.SimpleStatementLine, reads_left: Callable[[str], bool]) -> bool:
        """Whether a constant's line can go: every name it binds is a constant of the network
        that nothing but what is made once reads (``reads_left``: whether the function still
        reads the name elsewhere)."""
        bound = names_bound_here(line.body[0].targets[0])
        return all(network.constants.get(name) is line and not reads_left(name) for name in bound)

    def _same_everywhere(
        self, function: cst.FunctionDef, network: "Network", name: str, before: int
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
            bound = training.module_assignment(self.module, value.value)
            rebound = [
                n
                for n in name_nodes(self.module)
                if n.value == value.value and isinstance(self.parents.get(id(n)), cst.AssignTarget)
            ]
            if bound is not None and bound[0] < before and len(rebound) == 1:
                return value
        return None

    def _reuse_switch(self, statement: cst.BaseStatement, parameters: list[str]) -> bool:
        """``if reuse: tf.get_variable_scope().reuse_variables()``, ``reuse`` a parameter (the
        scope around it reuses its variables from then on, as ``reuse=True`` would)."""
        if not (
            isinstance(statement, cst.If)
            and statement.orelse is None
            and isinstance(statement.test, cst.Name)
            and statement.test.value in parameters
            and len(statement.body.body) == 1
            and isinstance(statement.body.body[0], cst.SimpleStatementLine)
            and len(statement.body.body[0].body) == 1
            and isinstance(statement.body.body[0].body[0], cst.Expr)
        ):
            return False
        call = statement.body.body[0].body[0].value
        return (
            isinstance(call, cst.Call)
            and not call.args
            and isinstance(call.func, cst.Attribute)
            and call.func.attr.value == "reuse_variables"
            and isinstance(call.func.value, cst.Call)
            and not call.func.value.args
            and self.tf.is_tf(call.func.value.func, "get_variable_scope")
        )

    def _scope_reuse(self, item: cst.WithItem, parameters: list[str], split: bool = False) -> "str | bool | None":
        """For ``with tf.variable_scope("name", reuse=...)`` / ``tf.name_scope("name")``: None
        without ``reuse``, the parameter passed as ``reuse``, True for ``tf.AUTO_REUSE``; False
        for any other ``with`` item. ``split`` (the function becomes a class taking its
        parameters): the scope may also be named by a parameter (``variable_scope(name)``)."""
        call = item.item
        if not (
            isinstance(call, cst.Call)
            and self.tf.is_tf(call.func, "variable_scope", "name_scope")
            and item.asname is None
            and call.args
            and call.args[0].keyword is None
            and (
                isinstance(call.args[0].value, cst.SimpleString)
                and "{" not in call.args[0].value.value
                or split
                and isinstance(call.args[0].value, cst.Name)
                and call.args[0].value.value in parameters
            )
        ):
            return False
        rest = call.args[1:]
        if not rest:
            return None
        reuse = rest[0].value
        if (
            len(rest) != 1
            or rest[0].keyword is None
            or rest[0].keyword.value != "reuse"
            or not self.tf.is_tf(call.func, "variable_scope")
        ):
            return False
        if self.tf.is_tf(reuse, "AUTO_REUSE"):
            return True
        if isinstance(reuse, cst.Name) and reuse.value in parameters:
            return reuse.value
        return False


@dataclass
class Network:
    """The layer calls of a statement and, for a network-building function, how it is built:
    its scope blocks to dedent, its calls, whether they share its variables (``reuse``) and the
    parameter passing that."""

    calls: list[cst.Call]
    scopes: list[cst.With] = field(default_factory=list)
    calls_of: list[cst.Call] = field(default_factory=list)
    #: The module function calling the network (``unit_of``), when its calls are not in top-level code.
    unit: Optional[cst.FunctionDef] = None
    shared: bool = False
    reuse: Optional[str] = None
    #: ``if reuse: tf.get_variable_scope().reuse_variables()`` statements, which go.
    switches: list[cst.If] = field(default_factory=list)
    #: The function's constants read where what it makes is made once (``width = 6``): their lines.
    constants: dict[str, cst.SimpleStatementLine] = field(default_factory=dict)
    #: Dimensions of its inputs read where what it makes is made (``in_dim = x.get_shape()[1]``):
    #: name -> (the parameter, the axis); the class's ``__init__`` takes them.
    derived: dict[str, tuple[str, int]] = field(default_factory=dict)


def input_dimension(value: cst.BaseExpression, function: cst.FunctionDef) -> Optional[tuple[str, int]]:
    """(parameter, axis) when ``value`` reads a static dimension of one of the function's
    parameters that it does not bind again: ``x.get_shape()[1]``, ``x.shape[1]``,
    ``x.get_shape().as_list()[1]``, in ``int(...)`` or with ``.value``; the axis a non-negative
    integer written out."""
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
    if not (
        isinstance(value, cst.Subscript)
        and len(value.slice) == 1
        and isinstance(value.slice[0].slice, cst.Index)
        and isinstance(value.slice[0].slice.value, cst.Integer)
    ):
        return None
    shape = value.value
    if (
        isinstance(shape, cst.Call)
        and not shape.args
        and isinstance(shape.func, cst.Attribute)
        and shape.func.attr.value == "as_list"
    ):
        shape = shape.func.value
    if (
        isinstance(shape, cst.Call)
        and not shape.args
        and isinstance(shape.func, cst.Attribute)
        and shape.func.attr.value == "get_shape"
    ):
        shape = shape.func.value
    elif isinstance(shape, cst.Attribute) and shape.attr.value == "shape":
        shape = shape.value
    else:
        return None
    if not (isinstance(shape, cst.Name) and shape.value in parameter_names(function)) or any(
        shape.value in names_bound_here(n) for n in walk(function.body)
    ):
        return None
    return shape.value, int(value.slice[0].slice.value.value)


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


def prefix(scopes: list[cst.With], function: cst.FunctionDef) -> str:
    """What names a network function's layers: its (outermost) scope's name, or its own."""
    for block in scopes:
        given = block.items[0].item.args[0].value
        name = (given.evaluated_value if isinstance(given, cst.SimpleString) else None) or ""
        if re.fullmatch(r"[A-Za-z_]\w*", name):
            return name.lower()
    return function.name.value.lower()


def innermost_first(calls: list[cst.Call]) -> list[cst.Call]:
    """The layer calls of a statement in the order Python runs them: arguments before the call
    taking them (``dense(flatten(x))`` applies flatten first, and TF1 created its variables so)."""
    inside = {
        id(call): [other for other in calls if other is not call and any(n is other for n in walk(call))]
        for call in calls
    }
    ordered: list[cst.Call] = []

    def add(call: cst.Call) -> None:
        if any(c is call for c in ordered):
            return
        for inner in inside[id(call)]:
            add(inner)
        ordered.append(call)

    for call in calls:
        add(call)
    return ordered


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
