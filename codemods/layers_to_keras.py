"""TFM107 layers-to-keras.

What it does
    Turns ``tf.layers`` functions applied in a program's top-level code (``dense``, ``conv1d``,
    ``conv2d``, ``conv2d_transpose``, ``max_pooling1d/2d``, ``average_pooling1d/2d``,
    ``flatten``, ``dropout``, ``batch_normalization``) into Keras layer objects created once, just before the statement
    that applied them (before the function, for a network-building function the program calls
    once; its ``variable_scope``/``name_scope`` blocks given only a name are dedented), and
    called there: ``h = tf.layers.dense(x, 64, activation=tf.nn.relu)``
    becomes ``dense = tf.keras.layers.Dense(64, activation=tf.nn.relu)`` and ``h = dense(x)``.
    Arguments map by name through ``tfmodernize/data/layers.json``, generated from both
    libraries' signatures (``scripts/generate_layer_table.py``); TF1 defaults Keras does not
    share are written out (``tf.layers.dropout``'s ``rate=0.5``). Session-to-function then moves
    the calls into its functions, and minimize-to-tape trains the layers'
    ``trainable_variables``. A Keras ``BatchNormalization`` updates its moving mean and variance
    itself when called in training mode, so the TF1 plumbing for them goes: the
    ``update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)`` line and the
    ``with tf.control_dependencies(update_ops):`` block around the training step (dedented);
    ``training=is_training`` stays, and session-to-function passes the placeholder as a Python
    bool (Keras layers branch on it in Python).

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
    initial values (the fixtures do). Batch normalisation: same defaults (momentum 0.99, epsilon
    1e-3) and the same biased batch variance in the moving average, which TF1 used unfused (2-D
    inputs, or ``fused=False``); its moving statistics change in the same runs: TF1 updated them
    in runs of the step depending on ``UPDATE_OPS``, Keras whenever the layer runs in training
    mode, so every feed turning training mode on must be in a run fetching that step. The
    fixtures read the moving statistics back through an evaluation in inference mode.

Declines when
    the layer is applied inside a class or a block, or in a function that is not called exactly
    once from the program's top-level code (a network built several times, or shared with
    ``reuse``, becomes a Keras model: not done here), or inside a loop, a condition or a ``with``
    other than a variable or name scope given only a name in that function; it passes ``reuse`` (variable sharing), ``*args``/``**kwargs`` or an
    argument the table does not know; ``tf.layers.dropout`` is applied in training mode (its mask
    would come from Keras's generator, not TF1's); layers not in the table are left as they are
    (their file stays on ``tf.compat.v1``). A batch normalisation declines when TF1 may have
    used its fused kernel (``fused`` not False and an input not known to be 2-D: TF1 then updated
    the moving variance with the unbiased batch variance), when it passes ``renorm`` or a
    TF1-only argument (``virtual_batch_size``, ``adjustment``), or, in training mode, when
    ``training`` is not a boolean placeholder defaulting to inference, when no step depends on
    ``UPDATE_OPS`` (TF1 never updated the statistics), when ``UPDATE_OPS`` is read elsewhere or
    collections are added to, or when a run turning training mode on does not fetch that step.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any, Optional, Sequence

import libcst as cst

from tfmodernize.codemods import _training as training
from tfmodernize.codemod import Decline, TFCodemod
from tfmodernize.names import bound_names, name_nodes, names_read, own_nodes
from tfmodernize.syntax import argument, commas, is_none, no_space_equal, source, statement_of
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
        self._module = module
        self._updates: "UpdateOps | str | None" = None  # read when a batch normalisation asks
        self._dependencies_dropped = False
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
            if any(self.tf.is_tf(call.func, "layers.batch_normalization") for call in calls):
                self._drop_update_dependencies()

    def _drop_update_dependencies(self) -> None:
        """Keras layers update their moving statistics themselves: the ``UPDATE_OPS`` read and
        the ``control_dependencies`` block around the training step go (once per file)."""
        updates = self._update_ops()
        if isinstance(updates, UpdateOps) and not self._dependencies_dropped:
            self._dependencies_dropped = True
            body = list(self._module.body)
            for block in updates.blocks:
                # The comments above a removed ``update_ops = ...`` line right before it stay.
                index = next(i for i, s in enumerate(body) if s is block)
                carried = list(body[index - 1].leading_lines) if index and any(
                    body[index - 1] is binding for binding in updates.bindings) else []
                self.replace(block, lambda updated, carried=carried: cst.FlattenSentinel(_dedented(updated, carried)))
            for binding in updates.bindings:
                self.remove(binding)

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
        if not _false(passed.get("renorm", cst.Name("False"))):
            raise Decline(call, "batch renormalization (`renorm`) is not proven equal in Keras 3")
        for key, default in entry["tf1_only"].items():
            if key in passed and source(passed[key]) != default and not (key == "fused" and _false(passed[key])):
                raise Decline(call, f"`{key}={source(passed[key])}` has no Keras counterpart")
        if function == "dropout" and not _false(passed.get("training", cst.Name("False"))):
            raise Decline(call, f"`training={source(passed['training'])}`: in training mode the dropout mask would "
                                "come from Keras's random generator, not TF1's")
        if function == "batch_normalization":
            self._batch_norm(call, passed)
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


    def _batch_norm(self, call: cst.Call, passed: dict[str, cst.BaseExpression]) -> None:
        """Declines a batch normalisation Keras would not reproduce. TF1's fused kernel (4-D
        inputs, ``fused`` left to TF1) updates the moving variance with the unbiased batch
        variance, Keras with the biased one: proven equal on 2-D inputs or with ``fused=False``.
        In training mode the moving statistics change whenever the layer runs in Keras, in TF1
        only in runs of the step depending on ``UPDATE_OPS`` (``self._updates``)."""
        fused = passed.get("fused")
        if not _false(fused) and self._rank(passed["inputs"]) != 2:
            raise Decline(call, "TF1's fused batch normalisation (inputs of rank 4, `fused` not False) updates the "
                                "moving variance with the unbiased batch variance, Keras with the biased one; pass "
                                "`fused=False` in TF1 to agree with Keras, then migrate")
        training_mode = passed.get("training", cst.Name("False"))
        if _false(training_mode):
            return
        updates = self._update_ops()
        if isinstance(updates, str):
            raise Decline(call, f"`training={source(training_mode)}`: {updates}")
        if not isinstance(training_mode, cst.Name):
            raise Decline(call, f"`training={source(training_mode)}` is not a boolean placeholder the program feeds: "
                                "Keras would update the moving statistics in runs where TF1 did not")
        problem = self._switch_problem(training_mode.value, updates)
        if problem is not None:
            raise Decline(call, f"`training={training_mode.value}`: {problem}")

    def _rank(self, value: cst.BaseExpression) -> Optional[int]:
        """The rank of a tensor the program built at top level, when its statements tell it:
        a placeholder of literal shape, ``tf.layers.dense``/``flatten``, elementwise ops."""
        for _ in range(20):
            if isinstance(value, cst.Name):
                bound = training.module_assignment(self._module, value.value)
                if bound is None:
                    return None
                value = bound[1]
            elif isinstance(value, cst.Call) and self.tf.is_tf(value.func, "placeholder", "placeholder_with_default"):
                shape = argument(value, 1, "shape")
                return len(shape.elements) if isinstance(shape, (cst.List, cst.Tuple)) else None
            elif isinstance(value, cst.Call) and self.tf.is_tf(value.func, "layers.flatten"):
                return 2
            elif isinstance(value, cst.Call) and self.tf.is_tf(value.func, *ELEMENTWISE) and value.args:
                value = value.args[0].value
            else:
                return None
        return None

    def _update_ops(self) -> "UpdateOps | str":
        """How the program runs the batch normalisation updates of ``UPDATE_OPS`` (the
        ``control_dependencies`` blocks over it), or why that cannot be followed."""
        if self._updates is None:
            self._updates = self._read_update_ops(self._module)
        return self._updates

    def _read_update_ops(self, module: cst.Module) -> "UpdateOps | str":
        updates = UpdateOps()
        reads = [c for c in training.calls(module) if training.update_ops_collection(c, module, self.tf) is not None]
        parents = self.state.parents(module)
        for statement in module.body:
            if not (isinstance(statement, cst.With) and len(statement.items) == 1):
                continue
            item = statement.items[0].item
            if not (isinstance(item, cst.Call) and self.tf.is_tf(item.func, "control_dependencies")
                    and len(item.args) == 1 and item.args[0].keyword is None):
                continue
            read = training.update_ops_collection(item.args[0].value, module, self.tf)
            if read is None:
                continue
            updates.blocks.append(statement)
            updates.steps |= bound_names(statement.body)
            if isinstance(item.args[0].value, cst.Name):
                line = _line_of(read, parents)
                if line is None:
                    return "its `UPDATE_OPS` read is not a line of its own"
                if line not in updates.bindings:
                    updates.bindings.append(line)
        inside = {id(n) for node in [*updates.blocks, *updates.bindings] for n in walk(node)}
        if any(id(read) not in inside for read in reads):
            return "the program reads `UPDATE_OPS` other than around its training step"
        if any(self.tf.is_tf(c.func, "add_to_collection", "add_to_collections") for c in training.calls(module)):
            return "the program adds to collections itself"
        if training.foreign_call(module, training.foreign_imports(module, self.state.project)) is not None:
            return "the program calls code defined elsewhere that may add update ops"
        if not updates.blocks:
            return "no training step depends on `UPDATE_OPS`, so TF1 never updated the moving statistics"
        return updates

    def _switch_problem(self, switch: str, updates: "UpdateOps") -> Optional[str]:
        """Why training mode through the placeholder ``switch`` may update the moving statistics
        in Keras where TF1 did not, or None: TF1 updated them only in runs of the step depending
        on ``UPDATE_OPS``, Keras whenever the layer runs in training mode. Equal when every feed
        of ``switch`` other than a literal False is in a run fetching that step."""
        bound = training.module_assignment(self._module, switch)
        if bound is None or not (isinstance(bound[1], cst.Call) and self.tf.is_tf(bound[1].func, "placeholder", "placeholder_with_default")):
            return "it is not a boolean placeholder the program feeds: Keras would update the moving statistics in runs where TF1 did not"
        if self.tf.is_tf(bound[1].func, "placeholder_with_default") and not _false(argument(bound[1], 0, "input")):
            return "it defaults to training mode"
        parents = self.state.parents(self._module)
        for dictionary in (n for n in walk(self._module, code_only=True) if isinstance(n, cst.Dict)):
            for element in dictionary.elements:
                if not (isinstance(element, cst.DictElement) and isinstance(element.key, cst.Name)
                        and element.key.value == switch) or _false(element.value):
                    continue
                runs = _runs_feeding(dictionary, self._module, parents)
                if not runs or any(not names_read(argument(run, 0, "fetches") or cst.Name("None")) & updates.steps
                                   for run in runs):
                    return ("a run turning training mode on does not fetch the step depending on `UPDATE_OPS`: Keras "
                            "would update the moving statistics there, TF1 did not")
        return None


@dataclass
class UpdateOps:
    """A program's use of ``UPDATE_OPS``: the ``control_dependencies`` blocks over it, the
    ``update_ops = tf.get_collection(...)`` lines and the names those blocks bind (the training
    step)."""
    blocks: list[cst.With] = field(default_factory=list)
    bindings: list[cst.SimpleStatementLine] = field(default_factory=list)
    steps: set[str] = field(default_factory=set)


#: Ops keeping the rank of their (first) input.
ELEMENTWISE = ("nn.relu", "nn.relu6", "nn.elu", "nn.selu", "nn.leaky_relu", "nn.tanh", "nn.sigmoid", "tanh",
               "sigmoid", "layers.dense", "layers.dropout", "layers.batch_normalization", "identity")


def _false(node: Optional[cst.BaseExpression]) -> bool:
    return isinstance(node, cst.Name) and node.value == "False"


def _line_of(node: cst.CSTNode, parents: dict) -> Optional[cst.SimpleStatementLine]:
    """The ``name = node`` line holding ``node``."""
    assert isinstance(node, cst.Call)
    found = statement_of(node, parents)
    return found[1] if found is not None and found[0] is not None else None


def _runs_feeding(dictionary: cst.Dict, module: cst.Module, parents: dict) -> list[cst.Call]:
    """The ``.run(fetches, feed)`` calls ``dictionary`` is fed to: passed there directly, or bound
    to a name only ever passed as a feed. Empty when it goes anywhere else."""
    def feed_of(call: cst.Call) -> Optional[cst.BaseExpression]:
        if isinstance(call.func, cst.Attribute) and call.func.attr.value == "run":
            return argument(call, 1, "feed_dict")
        return None

    holder = parents.get(id(dictionary))
    if isinstance(holder, cst.Arg):
        call = parents.get(id(holder))
        return [call] if isinstance(call, cst.Call) and feed_of(call) is dictionary else []
    if not (isinstance(holder, cst.Assign) and holder.value is dictionary and len(holder.targets) == 1
            and isinstance(holder.targets[0].target, cst.Name)):
        return []
    name = holder.targets[0].target.value
    runs = [c for c in training.calls(module) if isinstance(feed_of(c), cst.Name) and feed_of(c).value == name]
    bindings = [n for n in walk(module) if isinstance(n, cst.AssignTarget) and isinstance(n.target, cst.Name)
                and n.target.value == name]
    # Each use of the name binds it or feeds one of the runs.
    return runs if sum(1 for n in name_nodes(module) if n.value == name) == len(runs) + len(bindings) else []


def _dedented(block: cst.With, carried: Sequence[cst.EmptyLine] = ()) -> list[cst.BaseStatement]:
    """The body of a ``with`` block, its first statement carrying ``carried`` and the block's
    leading lines."""
    body = list(block.body.body)
    body[0] = body[0].with_changes(leading_lines=[*carried, *block.leading_lines, *body[0].leading_lines])
    return body


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
