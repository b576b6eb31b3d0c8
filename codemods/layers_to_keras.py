"""TFM107 layers-to-keras.

What it does
    Turns ``tf.layers`` functions applied in a program's top-level code (``dense``, ``conv1d``,
    ``conv2d``, ``conv2d_transpose``, ``max_pooling1d/2d``, ``average_pooling1d/2d``,
    ``flatten``, ``dropout``) into Keras layer objects created once, just before the statement
    that applied them (before the function, for a network-building function the program calls
    once; its ``variable_scope``/``name_scope`` blocks given only a name are dedented), and
    called there: ``h = tf.layers.dense(x, 64, activation=tf.nn.relu)``
    becomes ``dense = tf.keras.layers.Dense(64, activation=tf.nn.relu)`` and ``h = dense(x)``.
    Arguments map by name through ``tfmodernize/data/layers.json``, generated from both
    libraries' signatures (``scripts/generate_layer_table.py``); TF1 defaults Keras does not
    share are written out (``tf.layers.dropout``'s ``rate=0.5``). Session-to-function then moves
    the calls into its functions, and minimize-to-tape trains the layers'
    ``trainable_variables``.

Why it matters
    ``tf.layers`` is gone from TF2 (it survives only in tf-keras, as legacy code): a program
    building its network with it stays on ``tf.compat.v1`` with Keras 2. A Keras layer object
    owns its variables, which a ``tf.function`` creates once, on its first call.

Before
    hidden = tf.layers.dense(images, 128, activation=tf.nn.relu, name="hidden")
    logits = tf.layers.dense(tf.layers.flatten(hidden), 10)

After
    hidden_1 = tf.keras.layers.Dense(128, activation=tf.nn.relu, name="hidden")
    hidden = hidden_1(images)
    flatten = tf.keras.layers.Flatten()
    dense = tf.keras.layers.Dense(10)
    logits = dense(flatten(hidden))

Fix safety
    The layers compute what TF1's did (same maths, same defaults: Glorot-uniform kernels and
    zero biases, ``valid`` padding, channels last), and create their variables in the order TF1
    did (kernel, then bias, layer after layer). Keras draws the initial values from its own
    generator, not TF1's, so a migrated model starts from other weights: compare the programs
    with ``tfmodernize verify --align-variables``, which starts the Keras layers from TF1's
    initial values (the fixtures do).

Declines when
    the layer is applied inside a class or a block, or in a function that is not called exactly
    once from the program's top-level code (a network built several times, or shared with
    ``reuse``, becomes a Keras model: not done here), or inside a loop, a condition or a ``with``
    other than a variable or name scope given only a name in that function; it passes ``reuse`` (variable sharing), ``*args``/``**kwargs`` or an
    argument the table does not know; ``tf.layers.dropout`` is applied in training mode (its mask
    would come from Keras's generator, not TF1's); ``batch_normalization`` and the other layers
    not in the table are left as they are (their file stays on ``tf.compat.v1``).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources
from typing import Any

import libcst as cst

from tfmodernize.codemods import _training as training
from tfmodernize.codemod import Decline, TFCodemod
from tfmodernize.names import name_nodes, own_nodes
from tfmodernize.syntax import commas, is_none, no_space_equal, source
from tfmodernize.treewalk import walk


@lru_cache(maxsize=None)
def layer_table() -> dict[str, dict[str, Any]]:
    """``tf.layers`` function -> its Keras layer and parameter mapping (``layers.json``)."""
    text = resources.files("tfmodernize").joinpath("data/layers.json").read_text(encoding="utf-8")
    return json.loads(text)["layers"]


class LayersToKeras(TFCodemod):
    __doc__ = __doc__
    code = "TFM107"
    name = "layers-to-keras"
    summary = "tf.layers functions in top-level code -> Keras layer objects created once and called"
    needles = ("layers.",)
    interests = (cst.Call,)
    detects = tuple(f"layers.{name}" for name in layer_table())
    requires_tf2 = True
    #: The layer objects must be in place before session-to-function reads the graph.
    runs_before = ("TFM101",)

    def plan(self, module: cst.Module) -> None:
        top = {id(n) for n in own_nodes(module) if isinstance(n, cst.SimpleStatementLine)}
        # Names in use as variables (``dense`` of ``tf.layers.dense`` is an attribute: free).
        taken = {n.value for n in name_nodes(module)}
        for statement in module.body:
            calls = [n for n in walk(statement, code_only=True)
                     if isinstance(n, cst.Call) and self.tf.is_tf(n.func, *self.detects)]
            if not calls:
                continue
            scopes: list[cst.With] = []
            try:
                if isinstance(statement, cst.FunctionDef):
                    calls, scopes = self._network_function(module, statement, calls)
                elif id(statement) not in top:
                    raise Decline(calls[0], "it is applied inside a class or a block")
                made = [self._layer(call) for call in _innermost_first(calls)]
            except Decline as decline:
                self.declined(decline, "tf.layers not migrated: ")
                continue
            if not self.fix(calls[0], "tf.layers -> a Keras layer created once and called where it was applied"):
                continue
            for block in scopes:  # the scopes only prefixed names: their bodies stay, dedented
                self.replace(block, lambda updated: cst.FlattenSentinel(updated.body.body))
            created = []
            prefix = _scope_name(scopes, statement) if isinstance(statement, cst.FunctionDef) else ""
            for call, (keras_class, constructor, call_args, base) in zip(_innermost_first(calls), made):
                base = f"{prefix}_{base}" if prefix and not base.startswith(prefix) else base
                # ``conv = tf.layers.conv2d(..., name="conv")``: the layer is ``conv_layer``.
                name = training.fresh_name(base if base not in taken else f"{base}_layer", taken)
                created.append(cst.SimpleStatementLine([cst.Assign(
                    [cst.AssignTarget(cst.Name(name))],
                    cst.Call(self.tf_expr(f"keras.layers.{keras_class}"), commas(constructor)))]))
                self.replace(call, lambda updated, name=name, call_args=call_args: cst.Call(
                    cst.Name(name), commas([cst.Arg(_input_of(updated)), *call_args])))
            created[0] = created[0].with_changes(leading_lines=statement.leading_lines)
            self.insert_before(statement, created)
            if isinstance(statement, cst.FunctionDef):  # the definition keeps its blank lines
                blank = cst.EmptyLine(indent=False)
                self.replace(statement, lambda updated: updated.with_changes(leading_lines=[blank, blank]))
            else:
                self.replace(statement, lambda updated: updated.with_changes(leading_lines=[]))

    def _network_function(self, module: cst.Module, function: cst.FunctionDef,
                          calls: list[cst.Call]) -> tuple[list[cst.Call], list[cst.With]]:
        """A network-building function (``def network(x): ... tf.layers.dense(...)``) called once,
        from the program's top-level code: its layers are created once before it, so it may
        become part of a tf.function. Returns its layer calls and the ``variable_scope`` /
        ``name_scope`` blocks (a literal name, nothing else) to dedent. A function called twice
        made two sets of variables in TF1 (or shared them with ``reuse``): declined."""
        calls_of = [n for n in walk(module, code_only=True)
                    if isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == function.name.value]
        top_calls = {id(n) for statement in module.body if not isinstance(statement, (cst.FunctionDef, cst.ClassDef))
                     for n in walk(statement, code_only=True)}
        uses = [n for n in name_nodes(module) if n.value == function.name.value]
        if len(calls_of) != 1 or id(calls_of[0]) not in top_calls or len(uses) != 2:
            raise Decline(calls[0], f"it is applied in `{function.name.value}`, which is not called exactly once from the "
                                    "program's top-level code: a network built several times (or shared with `reuse`) "
                                    "becomes a Keras model, which this migration does not write")
        scopes: list[cst.With] = []
        allowed = {id(s) for s in function.body.body}
        pending = list(function.body.body)
        while pending:
            statement = pending.pop()
            if isinstance(statement, cst.With):
                if not all(self._name_only_scope(item) for item in statement.items):
                    raise Decline(statement, "a `with` block other than a variable or name scope given only a name")
                scopes.append(statement)
                allowed |= {id(s) for s in statement.body.body}
                pending.extend(statement.body.body)
        parents = self.state.parents(module)
        for call in calls:
            holder = parents[id(call)]
            while not isinstance(holder, cst.BaseStatement):
                holder = parents[id(holder)]
            if id(holder) not in allowed or not isinstance(holder, cst.SimpleStatementLine):
                raise Decline(call, "it is applied inside a loop, a condition or a nested definition")
        return calls, scopes

    def _name_only_scope(self, item: cst.WithItem) -> bool:
        call = item.item
        return (isinstance(call, cst.Call) and self.tf.is_tf(call.func, "variable_scope", "name_scope")
                and len(call.args) == 1 and call.args[0].keyword is None
                and isinstance(call.args[0].value, cst.SimpleString) and item.asname is None)

    def _layer(self, call: cst.Call) -> tuple[str, list[cst.Arg], list[cst.Arg], str]:
        """(Keras class, constructor arguments, call arguments, a name for the object); the input
        is read off the rebuilt call (``_input_of``)."""
        function = self.tf.tf_symbol(call.func).path.split(".", 1)[1]
        entry = layer_table()[function]
        passed: dict[str, cst.BaseExpression] = {}
        for position, arg in enumerate(call.args):
            if arg.star:
                raise Decline(call, "it passes `*args` or `**kwargs`")
            if arg.keyword is None:
                if position >= len(entry["parameters"]):
                    raise Decline(call, "it passes more positional arguments than the function takes")
                key = entry["parameters"][position]
            else:
                key = arg.keyword.value
            if key not in entry["parameters"]:
                raise Decline(call, f"`{key}` is not a parameter of tf.layers.{function}")
            passed[key] = arg.value
        for key in entry["declined"]:
            if not is_none(passed.get(key)):
                raise Decline(call, f"it passes `{key}` (variable sharing): the variable-scopes migration's")
        training_mode = passed.get("training")
        if training_mode is not None and not (isinstance(training_mode, cst.Name) and training_mode.value == "False"):
            raise Decline(call, f"`training={source(training_mode)}`: in training mode the dropout mask would come "
                                "from Keras's random generator, not TF1's")
        if "inputs" not in passed:
            raise Decline(call, "its input is not passed")
        constructor: list[cst.Arg] = []
        for key in entry["positional"]:
            value = passed.get(key) if key in passed else _literal(entry["tf1_defaults_written_out"].get(key))
            if value is None:
                raise Decline(call, f"`{key}` is not passed")
            constructor.append(cst.Arg(value))
        for key in entry["constructor"]:
            if key in entry["positional"]:
                continue
            value = passed.get(key)
            if value is None and key in entry["tf1_defaults_written_out"]:
                value = _literal(entry["tf1_defaults_written_out"][key])
            if value is not None:
                constructor.append(cst.Arg(value, keyword=cst.Name(key), equal=no_space_equal()))
        call_args = [cst.Arg(passed[key], keyword=cst.Name(key), equal=no_space_equal()) for key in entry["call"] if key in passed]
        named = passed.get("name")
        base = function
        if isinstance(named, cst.SimpleString) and re.fullmatch(r"[A-Za-z_]\w*", named.evaluated_value or ""):
            base = named.evaluated_value.lower()
        return entry["keras"], constructor, call_args, base


def _scope_name(scopes: list[cst.With], function: cst.FunctionDef) -> str:
    """What names a network function's layers: its (outermost) scope's name, or its own."""
    for block in scopes:
        name = block.items[0].item.args[0].value.evaluated_value or ""
        if re.fullmatch(r"[A-Za-z_]\w*", name):
            return name.lower()
    return function.name.value


def _innermost_first(calls: list[cst.Call]) -> list[cst.Call]:
    """The layer calls of a statement in the order Python runs them: arguments before the call
    taking them (``dense(flatten(x))`` applies flatten first, and TF1 created its variables so)."""
    inside = {id(call): [other for other in calls if other is not call and any(n is other for n in walk(call))]
              for call in calls}
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


def _input_of(updated: cst.Call) -> cst.BaseExpression:
    """The input argument of the rebuilt call (an inner layer call already rewritten in it)."""
    first = updated.args[0]
    for arg in updated.args:
        if arg.keyword is not None and arg.keyword.value == "inputs":
            return arg.value
    return first.value


def _literal(text: Any) -> Any:
    return None if text is None else cst.parse_expression(text)
