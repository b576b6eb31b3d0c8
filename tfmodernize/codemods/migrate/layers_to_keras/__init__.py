"""TFM107 layers-to-keras.

What it does
    Turns ``tf.layers`` functions applied in a program's top-level code (``dense``, ``conv1d``,
    ``conv2d``, ``conv2d_transpose``, ``max_pooling1d/2d``, ``average_pooling1d/2d``,
    ``flatten``, ``dropout``, ``batch_normalization``; ``tf.contrib.layers.fully_connected``
    and ``flatten``, whose parameters Keras spells otherwise and whose ReLU default is written
    out), and RNN cells run by
    ``tf.nn.dynamic_rnn``, ``static_rnn`` or ``bidirectional_dynamic_rnn`` (``BasicRNNCell``,
    ``BasicLSTMCell``, ``LSTMCell``, ``GRUCell``, ``MultiRNNCell``: ``SimpleRNN``, ``LSTM``,
    ``GRU``, a stacked ``RNN``, ``Bidirectional``; see ``rnn.py``), into Keras layer objects
    created once, just before the statement that applied them (before the top-level ``with``
    blocks holding them that only name ops: ``with tf.name_scope("RNN"):``, a ``variable_scope``
    given only its name), and called there:
    ``h = tf.layers.dense(x, 64, activation=tf.nn.relu)`` becomes
    ``dense = tf.keras.layers.Dense(64, activation=tf.nn.relu)`` and ``h = dense(x)``. A
    network-building function gets its layers created before it: one the program calls once,
    or several times sharing its variables through its scope (a GAN's discriminator applied to
    real and generated samples: ``variable_scope("d", reuse=reuse)`` and ``reuse=True`` from the
    second call on, or ``tf.AUTO_REUSE``), so every call applies the same layers; its
    ``variable_scope``/``name_scope`` blocks are dedented and its ``reuse`` parameter goes,
    with what its calls passed. A network function of a project module, called by the other
    files of the run (``pred = RNN(x, W, b, num_hidden)`` in the training script), becomes a
    Keras layer class (``modules.py``): ``class RNN(tf.keras.layers.Layer)`` making its layers
    once in ``__init__`` (which takes the parameters their constructor arguments read, keeping
    on the object those the body reads too) and applying them in ``call``; each call site of
    the run makes one object there (``rnn = RNN(num_hidden)``, ``pred = rnn(x, weights=W,
    biases=b)``: a Keras layer takes only its input positionally), as TF1 made a network per
    call. A network function making its weights with ``tf.get_variable`` under its variable
    scope (``w = tf.get_variable("w", [784, 128], initializer=...)``; see
    ``scoped_variables.py``) has each of them made once as a module-level ``tf.Variable``
    (``critic_w = tf.Variable(tf.random.normal([784, 128], stddev=0.1), name="critic/w")``,
    the initial value as get-variable-to-variable writes it) right before the top-level
    statement first calling the function (or, when every call is in one function the program
    calls once, ``main()``, outside its loops: before that function's definition), and reads
    it there (``w = critic_w``); sharing works
    as for layers, and also through ``if reuse: tf.get_variable_scope().reuse_variables()``,
    which goes; constants the function binds once (``width = 6``, ``rows, cols = 4, 3``, or an initializer object
    ``init = tf.truncated_normal_initializer(stddev=0.1)``) are read as their values
    where the variables are made (their line goes when nothing else reads them). Such a
    function of a project module, called by the other files of the run, becomes a
    ``tf.Module`` class making the variables in ``__init__`` (``self.w``, TF1's name; the
    parameters their shapes read go to ``__init__``) and applied by ``__call__``; each calling
    file makes an object per call, except that a call sharing the variables (``reuse=True``)
    calls the object the call before it made; its summaries of its own variables
    (``tf.summary.histogram("w", w)`` under its scope) leave the class and are exported with
    it, for summary-v2 to write in the calling file, and so do those a helper of the module
    makes of the weights the function passes it (``conv(x, w1, b1)``, the helper making
    ``tf.summary.histogram("weight", w)`` under ``variable_scope("conv")``), each under the tag
    TF1 gave that call (``d/conv/weight``, then ``d/conv_1/weight``); the helper's summary
    lines go. A batch normalisation in such a function (or in one whose variables are
    made at module level) that is always in training mode (``tf.contrib.layers.batch_norm(x)``,
    whose ``is_training`` defaults to True, or ``tf.layers.batch_normalization(x,
    training=True)``) is written as TF2 ops over variables made with the function's
    (``training_batch_norm.py``): ``beta`` (and ``gamma``) under TF1's names, the channels read
    from the weights' shapes (``shapes.StaticShapes``), ``tf.nn.moments`` over every axis but
    the last and ``tf.nn.batch_normalization``. Such a function may make its variables
    through the module's variable helpers (``W = weight_variable(name, [in_dim, units])``, a
    function ending ``return tf.get_variable(...)``, which get-variable-to-variable migrates):
    ``__init__`` calls the helper as the function did, under ``tf.name_scope`` of the scope the
    function made it in (the helper names it without that scope), so the variable keeps TF1's
    name (``Hidden_layer/W_Hidden_layer``). Its variable scope may be named by a
    parameter (``variable_scope(name)``): its summaries are written under the name each object
    is made with. Its weights may be as wide as its input (``in_dim = x.get_shape()[1]``):
    ``__init__`` takes ``in_dim`` (``shapes.py``), and each calling file passes the width it
    knows of what it gives ``x``: the declared shape of a placeholder, or the last dimension of
    a result of an earlier object, which the module exports when the result is ``tf.matmul(x,
    W)`` kept in shape (``+= b``, ``tf.nn.relu``); a result that is one of the variables
    (``return layer, W``) is read in the calling file as the object's attribute
    (``fc_layer.w``). A network function of the program itself that makes its variables so
    and is called several times at top level without sharing (TF1 made a set of variables per
    call), or once when its variables need the width of its input (``in_dim =
    x.get_shape()[1]``), becomes such a class in the same file, one object per call, when each call names
    its variables apart (the scope or name reads a parameter the calls give different strings
    written out: ``dense(x, 64, "hidden")``, ``dense(h, 10, "out")``) and every call can follow
    (the widths of its inputs known). Calls of a project module's class in a function
    the script calls once (``main()``), outside its loops, get their objects made before that
    function's definition, when nothing there draws random values or makes variables first and
    their arguments read nothing the function binds; when that function imports them itself
    (``from nets import critic`` in ``main()``), the classes are imported at the top of the
    file instead (a name imported by two functions is left as it is). A variable list picked by scope (``tf.get_collection(
    TRAINABLE_VARIABLES, scope="d")``, ``tf.trainable_variables("d")``, ``[v for v in
    tf.trainable_variables() if v.name.startswith("d")]`` or ``"d" in v.name``) and passed as an
    optimizer's ``var_list`` lists the layers whose TF1 variables it selected where it is passed
    (``var_list=[*d_dense.trainable_variables, ...]``): Keras layers make their variables on
    their first call, inside the step, so a list read at module level would be empty.
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
    hidden_layer = tf.keras.layers.Dense(128, activation=tf.nn.relu, name="hidden")
    hidden = hidden_layer(images)
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
    fixtures read the moving statistics back through an evaluation in inference mode. RNNs:
    the same recurrences (see ``rnn.py``: gate order, forget bias, GRU reset before the
    candidate), proven with aligned variables, TF1's fused kernels handed over in Keras's layout.
    A batch normalisation always in training mode normalises each batch by its own moments,
    which ``tf.nn.moments`` and ``tf.nn.batch_normalization`` compute as TF1's unfused kernel
    did (its fused kernel in another order of float operations); the moving statistics TF1
    made with it are not made, which is safe because nothing reads them: training mode never
    does, and the migration declines a file (or a file calling the class) that reads
    ``UPDATE_OPS``, lists every variable or saves them.
    Variables of ``tf.get_variable``: the initial value is the TF2 random op TF1's initializer
    ran, created where TF1 created it (before the statement first calling the function, each
    network's variables in the order its body asked for them), so the same numbers without
    aligning; the name is TF1's (``scope/name``), so name tests and checkpoints read the same.

Declines when
    the layer is applied inside a class or a block (other than top-level blocks only naming ops,
    when its arguments read nothing the block binds), or in a function called from elsewhere than
    the program's top-level code, called several times without sharing its variables (TF1 made
    a network per call), called with ``reuse`` True the first time, (for a project module's
    function) used by a file of the run other than called by name in its top-level code,
    outside any block, shared through ``reuse``, or called by a file that stays on TF1 (the
    class could not run there), or with ``*args``, keyword-only parameters or decorators, using its ``reuse``
    parameter for anything else, or applying the layer inside a loop, a condition or a ``with``
    other than a variable or name scope (given a name, and that ``reuse``); it passes ``reuse``
    outside such a function, ``*args``/``**kwargs`` or an argument the table does not know
    (of ``tf.contrib.layers``: ``normalizer_fn``, collections, ``biases_initializer=None``); a
    constructor argument is computed in the network function; ``tf.layers.dropout`` is applied
    in training mode (its mask would come from Keras's generator, not TF1's); layers not in the
    table are left as they are (their file stays on ``tf.compat.v1``). A batch normalisation
    declines when TF1 may have used its fused kernel (``fused`` not False and an input not
    known to be 2-D: TF1 then updated the moving variance with the unbiased batch variance),
    when it passes ``renorm`` or a TF1-only argument (``virtual_batch_size``, ``adjustment``),
    or, in training mode, when
    ``training`` is not a boolean placeholder defaulting to inference, when no step depends on
    ``UPDATE_OPS`` (TF1 never updated the statistics), when ``UPDATE_OPS`` is read elsewhere or
    collections are added to, or when a run turning training mode on does not fetch that step.
    An RNN declines when its cell is not made on a line of its own in the same block and run
    once, when the run passes ``initial_state``, ``time_major``, a dtype other than float32 or
    ``sequence_length`` over inputs computed in the call (or to ``bidirectional_dynamic_rnn``),
    when the cell is a wrapper (``DropoutWrapper``...) or a ``MultiRNNCell`` not given a list of
    cells made in it, passes peepholes, clipping,
    projections, initializers or a ``forget_bias`` other than 1.0 or 0.0, when an LSTM's state
    is used other than through ``.h``/``.c``/``[0]``/``[1]``, or when the state of a stacked,
    bidirectional or static RNN is read.
    A network function's ``tf.get_variable`` declines when the function also applies layers
    (other than batch normalisations always in training mode, which decline when not in
    training mode written out, passing an argument whose effect is not reproduced
    (``param_initializers``, ``activation_fn``...), normalising an expression rather than a
    name, on a line in a loop or condition, when the number of channels is not read from the
    code, when the function's weights are not float32, or when this file or one calling the
    class reads the moving statistics),
    when (a project module's function) a calling file passes ``reuse`` other than ``True`` or
    ``False`` written out, or shares the variables in its first call, when the variable's name is not a
    literal, its call is not ``name = tf.get_variable(...)`` on a line of its own, its shape or
    initializer reads what the function computes (``x.get_shape()[1]``) or get-variable-to-
    variable's conditions fail (regularizers, initializers not mapped, shapes not written out),
    when the function is called under a variable scope not named by a literal, or first
    called in the same statement as another such function (which made its variables first is
    not read), or, called from ``main()``, when random values or variables are made between
    ``main``'s definition and that first call (TF1 drew them first), when (a project module's
    function) it makes a summary other than of one of its variables on a line of its own, or
    calls a helper of the module that summarizes something other than a variable it passes (or
    is called in a loop or a condition, by another file, or under a scope or name the module
    writes elsewhere too), or, imported inside a
    function, when they are called elsewhere than in that function's own lines; when a
    dimension of an input it reads (``x.get_shape()[1]``) is read elsewhere in the function
    too, or a calling file does not know that dimension of what it passes; when a parameter it
    would keep on the object is an attribute of ``tf.Module`` or Keras layers (``name``); when
    its summaries are under a scope named by a parameter and an object is not given a name
    written out for it; (a function of the program called several times) when a call is not a
    statement of the top-level code, the calls' variable names are not shown apart, or it
    summarizes its variables.
    A variable list picked by scope is left (with a finding; its file then stays on TF1) when
    its test's answer depends on the suffix TF1 added to make a layer name unique, when the
    program makes other variables too, when it is read before the layers it selects were
    applied, used other than as ``var_list``, or selects nothing.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Optional, Sequence

import libcst as cst

from tfmodernize.analysis import training
from tfmodernize.codemods.migrate.session_to_function.graph import naming_scope
from tfmodernize.analysis.variables import helper_variable
from tfmodernize.codemods.migrate.layers_to_keras import modules
from tfmodernize.codemods.migrate.layers_to_keras.batch_norm import BatchNorms, UpdateOps, dedented, false
from tfmodernize.codemods.migrate.layers_to_keras.network import Network, NetworkFunctions, innermost_first
from tfmodernize.codemods.migrate.layers_to_keras.network import prefix as network_prefix
from tfmodernize.codemods.migrate.layers_to_keras.callers import ProjectCallers
from tfmodernize.codemods.migrate.layers_to_keras.scoped_plan import ScopedVariablesPlan
from tfmodernize.codemods.migrate.layers_to_keras.shapes import KnownShapes
from tfmodernize.codemods.migrate.layers_to_keras.rnn import OBJECT_NAMES, RUNS, RecurrentSite, read_site
from tfmodernize.codemods.migrate.layers_to_keras.variable_lists import (
    TRAINABLE_WEIGHTS,
    MadeLayer,
    unused_whole_lists,
    variable_lists,
)
from tfmodernize.codemod import Decline, TFCodemod
from tfmodernize.names import bound_names, name_nodes, own_nodes, parameter_names
from tfmodernize.syntax import ancestors, argument, commas, is_none, no_space_equal, source, statement_holding
from tfmodernize.treewalk import walk


@lru_cache(maxsize=None)
def layer_table() -> dict[str, dict[str, Any]]:
    """``tf.layers`` function -> its Keras layer and parameter mapping (``layers.json``)."""
    text = resources.files("tfmodernize").joinpath("data/layers.json").read_text(encoding="utf-8")
    return json.loads(text)["layers"]


class LayersToKeras(ScopedVariablesPlan, ProjectCallers, TFCodemod):
    __doc__ = __doc__
    code = "TFM107"
    name = "layers-to-keras"
    summary = ("tf.layers and RNN cells -> Keras layer objects created once and called where TF1 applied them; "
               "a network function's tf.get_variable -> a tf.Variable made once")
    needles = ("layers.", "dynamic_rnn", "static_rnn", "get_variable")
    interests = (cst.Call,)
    detects = (*(name if name.startswith("contrib.") else f"layers.{name}" for name in layer_table()), *RUNS,
               "get_variable")
    requires_tf2 = True
    #: The layer objects must be in place before session-to-function reads the graph, and the
    #: objects of project classes before summary-v2 writes the summaries they export.
    runs_before = ("TFM101", "TFM100")

    def plan(self, module: cst.Module) -> None:
        self._module = module
        self._batch_norms = BatchNorms(module, self.tf, self.state.parents(module), self.state.project)
        self._networks = NetworkFunctions(module, self.tf, self.state.parents(module))
        self._from_imported = self.from_imports(module)
        self._dependencies_dropped = False
        top = {id(n) for n in own_nodes(module) if isinstance(n, cst.SimpleStatementLine)}
        # Names in use as variables (``dense`` of ``tf.layers.dense`` is an attribute: free).
        taken = {n.value for n in name_nodes(module)}
        ours: set[str] = set()
        #: The layer objects made, in creation order.
        self._made: list[MadeLayer] = []
        splits = modules.imported_splits(module, self.state.project) if modules.wants_splits(self.state.project) else {}
        self._shapes: Optional[KnownShapes] = None  # made when a call of a network class needs it
        #: Network functions of this file called several times that became classes (``_called_apart``).
        self._local_splits: dict[str, modules.ImportedSplit] = {}
        self._renamed: set[int] = set()  # the import aliases renamed to the class they name now
        self._freed: set[str] = set()  # the functions whose names the classes' imports freed
        #: Imports in a function's body whose classes are imported at the top instead -> their aliases that go.
        self._moved_imports: dict[int, tuple[cst.ImportFrom, set[int]]] = {}
        #: The class of a project module's network function -> the last object made for it here.
        self._instances: dict[str, str] = {}
        #: Statements first calling a network function whose variables are made before them -> the function.
        self._variables_made_at: dict[int, str] = {}
        #: (module statement index, order of the first call, the lines making the variables).
        self._hoisted_variables: list[tuple[int, int, list[cst.SimpleStatementLine]]] = []
        #: Summary lines of helpers already removed (each serves every network calling it).
        self._removed_summaries: set[int] = set()
        #: Variable helpers (``def weight_variable(name, shape): return tf.get_variable(...)``) by name.
        self._helpers = {s.name.value: s for s in module.body
                         if isinstance(s, cst.FunctionDef) and helper_variable(s, self.tf) is not None}
        for index, statement in enumerate(module.body):
            helpers = self._helpers if isinstance(statement, cst.FunctionDef) and statement.name.value not in self._helpers \
                else {}
            calls = [n for n in walk(statement, code_only=True) if isinstance(n, cst.Call) and (
                self.tf.is_tf(n.func, *self.detects) or isinstance(n.func, cst.Name) and n.func.value in helpers)]
            if splits or self._local_splits:
                self._call_splits(statement, {**splits, **self._local_splits}, taken, keeps_lines=bool(calls))
            variables = [c for c in calls if self.tf.is_tf(c.func, "get_variable") or isinstance(c.func, cst.Name)]
            if variables and (not isinstance(statement, cst.FunctionDef) or any(
                    isinstance(self.state.parents(module).get(id(c)), cst.Return) for c in variables)):
                # At top level, or a helper's ``return tf.get_variable(...)``: get-variable-to-variable's.
                calls, variables = [c for c in calls if not any(c is v for v in variables)], []
            if not calls:
                continue
            if variables:
                self._network_variables(statement, calls, variables, taken)
                continue
            network = Network(calls)
            split = None
            try:
                if isinstance(statement, cst.FunctionDef):
                    project = self._project_network(statement, calls)
                    network = self._networks.read(statement, calls, split=project)
                    if project and network.shared:
                        raise Decline(calls[0], f"it is applied in `{statement.name.value}`, which shares its layers "
                                                "through `reuse` and is called from another file")
                elif id(statement) not in top:
                    self._in_naming_blocks(statement, calls)
                made = [self._layer(call, network.reuse) for call in innermost_first(calls)]
                if isinstance(statement, cst.With):
                    inside = bound_names(statement.body)
                    read = sorted({n.value for layer in made for arg in layer.constructor for n in name_nodes(arg.value)}
                                  & inside)
                    if read:
                        raise Decline(calls[0], f"its layer is made before the `with` block holding it, and its "
                                                f"arguments read `{read[0]}`, which the block binds")
                if isinstance(statement, cst.FunctionDef) and project:
                    removed = [line for layer in made if layer.rnn is not None for line in layer.rnn.cell_lines]
                    split = modules.split_of(statement, [arg.value for layer in made for arg in layer.constructor],
                                             removed, taken)
                elif isinstance(statement, cst.FunctionDef):
                    made = [self._networks.hoisted(statement, network, layer, call)
                            for call, layer in zip(innermost_first(calls), made)]
            except Decline as decline:
                self.declined(decline, "tf.layers not migrated: ")
                continue
            if split is not None:
                if self.fix(calls[0], f"tf.layers in `{split.function}`, a network function the other files of the run "
                                      f"call -> a Keras layer class `{split.class_name}` making its layers once"):
                    self._split(statement, split, network, made, calls, taken)
                continue
            if not self.fix(calls[0], "tf.layers -> a Keras layer created once and called where it was applied"):
                continue
            for block in network.scopes:  # the scopes only named and shared: their bodies stay, dedented
                self.replace(block, lambda updated: cst.FlattenSentinel(updated.body.body))
            if network.reuse is not None:
                self._stop_passing(statement, network)
            created = []
            prefix = network_prefix(network.scopes, statement) if isinstance(statement, cst.FunctionDef) else ""
            parents = self.state.parents(module)
            built_at = index if not network.calls_of else min(
                i for i, top in enumerate(module.body) for c in network.calls_of if training.contains(top, c))
            for call, layer in zip(innermost_first(calls), made):
                scope = self._variable_scope(call, parents)
                named = layer.tf1_name if layer.tf1_name and re.fullmatch(r"[A-Za-z_]\w*", layer.tf1_name) else None
                base = named.lower() if named else layer.function
                base = f"{prefix}_{base}" if prefix and not base.startswith(prefix) else base
                # ``conv = tf.layers.conv2d(..., name="conv")``: the layer is ``conv_layer``.
                name = training.fresh_name(base if base not in taken or base in ours else f"{base}_layer", taken)
                ours.add(base)
                where = f"{scope}/" if scope else ""
                variables = [f"{where}{v}" for v in layer.rnn.variables] if layer.rnn is not None else [
                    f"{where}{layer.tf1_name or layer.function}{{suffix}}/{weight}:0"
                    for weight in (layer.tf1_weights if layer.tf1_weights is not None
                                   else TRAINABLE_WEIGHTS.get(layer.keras_class, ("kernel", "bias")))]
                self._made.append(MadeLayer(tuple(variables), layer.keras_class, name, built_at))
                created.append(cst.SimpleStatementLine([cst.Assign(
                    [cst.AssignTarget(cst.Name(name))],
                    cst.Call(self.tf_expr(f"keras.layers.{layer.keras_class}"), commas(layer.constructor)))]))
                self.replace(call, lambda updated, name=name, layer=layer: self._applied(updated, name, layer))
                self.drop_from_import_of(call.func, self._from_imported)  # ``from tensorflow.contrib import layers``
                if layer.rnn is not None:
                    self._recurrent(layer.rnn, taken)
            # A top-level cell's line goes (``_recurrent``): its comments and blank lines stay.
            carried = [line for layer in made if layer.rnn is not None for cell_line in layer.rnn.cell_lines
                       if cell_line in module.body for line in cell_line.leading_lines]
            self._make_before(statement, created, carried)
            if any(self.tf.is_tf(call.func, "layers.batch_normalization") for call in calls):
                self._drop_update_dependencies()
        for statement, gone in self._moved_imports.values():
            self._drop_moved_import(statement, gone)
        if self._hoisted_variables:
            self._make_hoisted_variables()
        if self._made:
            self._write_variable_lists(module)

    def _in_naming_blocks(self, statement: cst.BaseStatement, calls: list[cst.Call]) -> None:
        """Declines layers applied elsewhere than on the lines of top-level ``with`` blocks that
        only name ops (``with tf.name_scope("RNN"):``, a ``variable_scope`` given only its name),
        nested or not: their layers are made before the block, and applied where they were."""
        parents = self.state.parents(self._module)
        for call in calls:
            line = statement_holding(call, parents)
            holders = [n for n in ancestors(line, parents) if training.contains(statement, n) or n is statement] \
                if isinstance(line, cst.SimpleStatementLine) else [None]
            if not all(isinstance(n, (cst.IndentedBlock, cst.With)) and (
                    not isinstance(n, cst.With) or all(naming_scope(i, self.tf) and i.asname is None for i in n.items))
                       for n in holders):
                raise Decline(call, "it is applied inside a class or a block (other than top-level `with` blocks "
                                    "that only name ops)")

    def _make_before(self, statement: cst.BaseStatement, lines: list[cst.SimpleStatementLine],
                     carried: Sequence[cst.EmptyLine] = ()) -> None:
        """``lines`` (what is made) go before the module statement, taking its blank lines and
        comments (after ``carried`` ones); a definition keeps two blank lines before it."""
        lines[0] = lines[0].with_changes(leading_lines=[*carried, *statement.leading_lines])
        kept = [cst.EmptyLine(indent=False)] * 2 if isinstance(statement, (cst.FunctionDef, cst.ClassDef)) else []
        self.replace(statement, lambda updated: updated.with_changes(leading_lines=kept))
        self.insert_before(statement, lines)

    @classmethod
    def wanted_by(cls, state) -> bool:
        # A project module made a class of a network function: its calls here must follow.
        return modules.wants_splits(state.project)

    def _project_network(self, function: cst.FunctionDef, calls: list[cst.Call]) -> bool:
        """Whether ``function`` is a network function only other files of the run call (see
        ``modules``); declines when those calls could not follow its split into a class."""
        name = function.name.value
        if self.state.callers is None or [n for n in name_nodes(self._module) if n.value == name] != [function.name]:
            return False
        reason = modules.callers_allow_split(function, self.state.callers.get(name, []))
        if reason is not None:
            raise Decline(calls[0], f"it is applied in `{name}`: {reason}")
        if not self.state.exports_allowed:
            raise Decline(calls[0], f"it is applied in `{name}`, a network function other files of the run call, "
                                    f"but {self.state.exports_refused}, where the class it would become could not run")
        return True

    def _split(self, function: cst.FunctionDef, split: "modules.Split", network: Network, made: list["LayerCall"],
               calls: list[cst.Call], taken: set[str]) -> None:
        """The function becomes a Keras layer class: its layers made in ``__init__`` as
        attributes, applied in ``call``; the split is exported for the callers."""
        for block in network.scopes:
            self.replace(block, lambda updated: cst.FlattenSentinel(updated.body.body))
        created: list[tuple[str, cst.Call]] = []
        attributes: set[str] = set(split.parameters)
        for call, layer in zip(innermost_first(calls), made):
            named = layer.tf1_name if layer.tf1_name and re.fullmatch(r"[A-Za-z_]\w*", layer.tf1_name) else None
            name = training.fresh_name(named.lower() if named else layer.function, attributes)
            created.append((name, cst.Call(self.tf_expr(f"keras.layers.{layer.keras_class}"), commas(layer.constructor))))
            self.replace(call, lambda updated, name=name, layer=layer: self._applied(
                updated, name, layer, cst.Attribute(cst.Name("self"), cst.Name(name))))
            self.drop_from_import_of(call.func, self._from_imported)
            if layer.rnn is not None:
                self._recurrent(layer.rnn, taken)
        constructors = [arg.value for layer in made for arg in layer.constructor]
        for read in modules.stored_reads(function, split, constructors):
            self.replace(read, lambda updated: cst.Attribute(cst.Name("self"), updated))
        base = self.tf_expr("keras.layers.Layer")
        self.replace(function, lambda updated: modules.module_class(updated, split, created, base))
        self.state.exports.setdefault(self.code, {}).setdefault("classes", {})[split.function] = split.export()

    def _write_variable_lists(self, module: cst.Module) -> None:
        """Variable lists picked by scope and passed as ``var_list`` list the layers' variables
        where they are passed (see ``variable_lists``)."""
        removed = []
        for found in variable_lists(module, self.tf, self._made, self.state.parents(module)):
            if isinstance(found, Decline):
                self.declined(found, "variable list not migrated: ")
                continue
            if not self.fix(found.line.body[0].value, "a variable list picked by scope -> the Keras layers' "
                                                      "trainable_variables, read where the optimizer uses them"):
                continue
            listing = found.listing()
            for use in found.uses:
                self.replace(use, lambda updated, listing=listing: listing)
            self.remove(found.line)
            removed.append(found.line)
        for line in unused_whole_lists(module, self.tf, removed):
            self.remove(line)

    def _drop_update_dependencies(self) -> None:
        """Keras layers update their moving statistics themselves: the ``UPDATE_OPS`` read and
        the ``control_dependencies`` block around the training step go (once per file)."""
        updates = self._batch_norms.update_ops()
        if isinstance(updates, UpdateOps) and not self._dependencies_dropped:
            self._dependencies_dropped = True
            body = list(self._module.body)
            for block in updates.blocks:
                # The comments above a removed ``update_ops = ...`` line right before it stay.
                index = next(i for i, s in enumerate(body) if s is block)
                carried = list(body[index - 1].leading_lines) if index and any(
                    body[index - 1] is binding for binding in updates.bindings) else []
                self.replace(block, lambda updated, carried=carried: cst.FlattenSentinel(dedented(updated, carried)))
            for binding in updates.bindings:
                self.remove(binding)

    def _stop_passing(self, function: cst.FunctionDef, network: "Network") -> None:
        """The ``reuse`` parameter of a shared network function goes, with what its calls pass."""
        assert network.reuse is not None
        position = parameter_names(function).index(network.reuse)
        self.replace(function.params, lambda updated: updated.with_changes(params=_without(
            updated.params, [p.name.value for p in updated.params].index(network.reuse))))
        for call in network.calls_of:
            positional = [i for i, a in enumerate(call.args) if a.keyword is None and not a.star]
            dropped = next((i for i, a in enumerate(call.args) if a.keyword is not None and a.keyword.value == network.reuse),
                           positional[position] if position < len(positional) else None)
            if dropped is not None:
                self.replace(call, lambda updated, dropped=dropped: updated.with_changes(
                    args=_without(updated.args, dropped)))

    def _applied(self, updated: cst.Call, name: str, layer: "LayerCall",
                 owner: Optional[cst.BaseExpression] = None) -> cst.BaseExpression:
        """``layer_object(input, ...)`` (``owner``: the expression naming the object, if not
        ``name``); a ``static_rnn``'s list of time steps is stacked into one tensor for the Keras
        layer and its outputs unstacked into a list again."""
        given = _input_of(updated, layer.input_position)
        listed = layer.rnn is not None and layer.rnn.listed
        axis = cst.Arg(cst.Integer("1"), keyword=cst.Name("axis"), equal=no_space_equal())
        if listed:
            given = cst.Call(self.tf_expr("stack"), commas([cst.Arg(given), axis]))
        applied = cst.Call(owner or cst.Name(name), commas([cst.Arg(given), *layer.call_args]))
        return cst.Call(self.tf_expr("unstack"), commas([cst.Arg(applied), axis])) if listed else applied

    def _recurrent(self, site: RecurrentSite, taken: set[str]) -> None:
        """The cell's line goes; the result is bound to the outputs (and the state, or for an
        LSTM its ``h`` and ``c``, whose reads are replaced)."""
        names = {}
        if site.state is not None and site.keras_class == "LSTM":
            names = {part: training.fresh_name(f"{site.state}_{part}", taken) for part in ("h", "c")}
            for node, part in site.reads.values():
                self.replace(node, lambda updated, name=names[part]: cst.Name(name))
        for line in site.cell_lines:
            self.remove(line)
        target = site.target(names)
        self.replace(site.assign.targets[0], lambda updated: updated.with_changes(target=target))

    def _layer(self, call: cst.Call, reuse: Optional[str] = None) -> "LayerCall":
        """What the Keras layer replacing ``call`` takes; the input is read off the rebuilt call
        (``_input_of``). ``reuse``: the sharing network function's ``reuse`` parameter, which
        its layers may pass on."""
        if self.tf.is_tf(call.func, *RUNS):
            parents = self.state.parents(self._module)
            block = parents.get(id(statement_holding(call, parents)))
            site = read_site(call, list(block.body), parents, self.tf, self.tf_expr)
            position = RUNS[next(r for r in RUNS if self.tf.is_tf(call.func, r))]["inputs"]
            return LayerCall(site.keras_class, site.constructor, site.call_args, OBJECT_NAMES[site.keras_class], site.named,
                             input_position=position, rnn=site)
        path = self.tf.tf_symbol(call.func).path
        key = path[len("layers."):] if path.startswith("layers.") else path  # ``contrib.layers.flatten`` whole
        entry, function = layer_table()[key], key.rsplit(".", 1)[-1]
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
                raise Decline(call, f"`{key}` is not a parameter of tf.{path}")
            passed[key] = arg.value
        for key in entry["declined"]:
            if not is_none(passed.get(key)) and not (key == "reuse" and self._sharing(passed[key], reuse)):
                raise Decline(call, f"it passes `{key}`" + (" outside a network function shared through its variable "
                                                            "scope" if key == "reuse" else ", which Keras layers do not take"))
        for key in entry.get("declined_none", ()):
            if key in passed and is_none(passed[key]):
                raise Decline(call, f"it passes `{key}=None`, which TF1 read as leaving that part out")
        # ``tf.contrib.layers`` spells some parameters otherwise (``num_outputs``: Keras's ``units``).
        passed = {entry.get("renamed", {}).get(key, key): value for key, value in passed.items()}
        if not false(passed.get("renorm", cst.Name("False"))):
            raise Decline(call, "batch renormalization (`renorm`) is not proven equal in Keras 3")
        for key, default in entry["tf1_only"].items():
            if key in passed and source(passed[key]) != default and not (key == "fused" and false(passed[key])):
                raise Decline(call, f"`{key}={source(passed[key])}` has no Keras counterpart")
        if function == "dropout" and not false(passed.get("training", cst.Name("False"))):
            raise Decline(call, f"`training={source(passed['training'])}`: in training mode the dropout mask would "
                                "come from Keras's random generator, not TF1's")
        if function == "batch_normalization":
            self._batch_norms.check(call, passed)
        if "inputs" not in passed:
            raise Decline(call, "its input is not passed")
        constructor: list[cst.Arg] = []
        for key in entry["positional"]:
            value = passed.get(key) if key in passed else self._default(entry["tf1_defaults_written_out"].get(key))
            if value is None:
                raise Decline(call, f"`{key}` is not passed")
            constructor.append(cst.Arg(value))
        for key in entry["constructor"]:
            if key in entry["positional"]:
                continue
            value = passed.get(key)
            if value is None and key in entry["tf1_defaults_written_out"]:
                value = self._default(entry["tf1_defaults_written_out"][key])
            if value is not None:
                constructor.append(cst.Arg(value, keyword=cst.Name(key), equal=no_space_equal()))
        call_args = [cst.Arg(passed[key], keyword=cst.Name(key), equal=no_space_equal()) for key in entry["call"] if key in passed]
        named = passed.get("name")
        tf1_name = named.evaluated_value if isinstance(named, cst.SimpleString) else None
        return LayerCall(entry["keras"], constructor, call_args, function, tf1_name,
                         tf1_weights=tuple(entry["tf1_weights"]) if "tf1_weights" in entry else None)

    def _default(self, text: Optional[str]) -> Optional[cst.BaseExpression]:
        """A TF1 default written out: a literal, or a TF name (``tf.nn.relu``) through the file's alias."""
        if text is None:
            return None
        return self.tf_expr(text[len("tf."):]) if text.startswith("tf.") else cst.parse_expression(text)

    def _variable_scope(self, call: cst.Call, parents: dict) -> str:
        """The TF1 variable scope ``call`` runs in (``outer/inner``): the names of the
        ``variable_scope`` blocks holding it (name scopes do not prefix variables); a scope
        named by a parameter ``name`` (in a network function becoming a class) is ``{name}``."""
        names: list[str] = []
        node = parents.get(id(call))
        while node is not None:
            if isinstance(node, cst.With):
                names += [_scope_name(item.item.args[0].value) for item in reversed(node.items)
                          if isinstance(item.item, cst.Call) and self.tf.is_tf(item.item.func, "variable_scope")]
            node = parents.get(id(node))
        return "/".join(reversed(names))

    def _sharing(self, value: cst.BaseExpression, reuse: Optional[str]) -> bool:
        """Whether ``reuse=value`` shares variables the way the migration keeps: the sharing
        function's own ``reuse`` parameter, or ``tf.AUTO_REUSE``."""
        return (isinstance(value, cst.Name) and value.value == reuse and reuse is not None) or (
            reuse is not None and self.tf.is_tf(value, "AUTO_REUSE"))


@dataclass(frozen=True)
class LayerCall:
    """What replaces one ``tf.layers`` call: the Keras class and constructor arguments, the
    arguments of the call, the TF1 function and the ``name=`` literal passed, if any."""
    keras_class: str
    constructor: list[cst.Arg]
    call_args: list[cst.Arg]
    function: str
    tf1_name: Optional[str]
    #: Where the input is passed (``tf.nn.dynamic_rnn(cell, inputs)``: 1).
    input_position: int = 0
    rnn: Optional[RecurrentSite] = None
    #: The names TF1 gave the layer's variables, where not Keras's (``weights``/``biases`` of
    #: ``tf.contrib.layers.fully_connected``).
    tf1_weights: Optional[tuple[str, ...]] = None


def _without(items: Sequence[Any], index: int) -> list[Any]:
    """Parameters or arguments without the one at ``index``, separated as before it went."""
    kept = [item for i, item in enumerate(items) if i != index]
    if index == len(items) - 1 and kept:
        kept[-1] = kept[-1].with_changes(comma=items[-1].comma)
    return kept


def _input_of(updated: cst.Call, position: int = 0) -> cst.BaseExpression:
    """The input argument of the rebuilt call (an inner layer call already rewritten in it)."""
    found = argument(updated, position, "inputs")
    assert found is not None
    return found



def _scope_name(given: cst.BaseExpression) -> str:
    """A variable scope's name as a template: the literal, or ``{name}`` for a name."""
    if isinstance(given, cst.Name):
        return f"{{{given.value}}}"
    return (given.evaluated_value if isinstance(given, cst.SimpleString) else None) or ""

