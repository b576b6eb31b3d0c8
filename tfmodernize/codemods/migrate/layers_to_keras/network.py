"""Network-building functions, for layers-to-keras: which functions' layers can be created
once before them (called from the program's top-level code, once or sharing their variables
through their scope), what their scope blocks and ``reuse`` parameter are; ``hoisting`` reads
what the layers' constructor arguments stand for where they are created."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterator, Optional

import libcst as cst

from tfmodernize.codemod import Decline
from tfmodernize.analysis import variable_calls, variable_reuse
from tfmodernize.treewalk import contains
from tfmodernize.analysis.tf1_api import RANDOM_OPS
from tfmodernize.codemods.migrate.session_to_function.model import RNN_PREFIXES
from tfmodernize.codemods.migrate.layers_to_keras.batch_norm import false
from tfmodernize.names import name_nodes, parameter_names
from tfmodernize.syntax import ancestors, argument, source, statement_holding
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
    """Reads the network-building functions of one module (``read``), the module function
    calling them once (``unit_of``), and what makes random values or variables before it
    (``before_unit``, ``draws``)."""

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
            or variable_calls.creates_opaque_variables(call, self.tf)
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

    def _reuse_switch(self, statement: cst.BaseStatement, parameters: list[str]) -> bool:
        """``if reuse: tf.get_variable_scope().reuse_variables()``, ``reuse`` a parameter."""
        return variable_reuse.reuse_switch(statement, parameters, self.tf)

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
