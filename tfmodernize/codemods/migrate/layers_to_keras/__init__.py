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
    ``dense = tf.keras.layers.Dense(64, activation=tf.nn.relu)`` and ``h = dense(x)`` (the
    comment lines right above the applying statement stay with it, and go where
    session-to-function moves it; the layers made take its blank lines and the headings above
    them). A
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
    (the widths of its inputs known). When a call's input width is only known once the graph
    runs (after a strided pooling or a reshape), the class makes its variables on its first
    call instead (``build`` reads ``in_dim`` from that call's input, and ``__init__`` keeps the
    other arguments on the object), if the file makes no variable elsewhere; so does a project
    module's class when a file of the run calls it on such an input (the project pre-pass
    reads what each call passes: a placeholder with its shape written out, a result of
    another of the module's networks, or something else), if that file makes no variable of
    its own and calls no class making its variables when made after it. A scope parameter
    called ``name``, which ``tf.Module`` and Keras layers keep for themselves, is kept on the
    object as ``self.scope_name``. Calls of a
    project module's class in a function the script calls once (``main()``), outside its loops, get their objects made before that
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
    did (kernel, then bias, layer after layer). Keras's own initializers draw from its seed
    generator, not TF1's random ops, so a kernel TF1 initialized by default (``dense``,
    ``conv1d/2d``, ``conv2d_transpose``, ``fully_connected``: Glorot uniform) is given
    ``kernel_initializer=glorot_uniform``, a function written after the file's imports that
    draws with ``tf.random.uniform`` as TF1 did (``initializer.py``): Keras calls it when the
    layer builds, on its first call, in TF1's order of layers, so the same seeds give the same
    weights. A layer class gets a ``build`` doing nothing, so that Keras does not trace its
    ``call`` first to build its layers (a trace drawing their initial values once more). A
    ``SimpleRNN`` or ``LSTM`` made at top level draws TF1's one cell kernel over ``[inputs,
    state]`` through a written ``CellKernel`` object (``lstm_kernel = CellKernel(gates=(0, 2,
    1, 3))``, ``kernel_initializer=lstm_kernel.inputs``, ``recurrent_initializer=
    lstm_kernel.state``) and splits it, its gates in Keras's order; so does one a project
    module's layer class makes (``self.lstm_kernel = CellKernel(...)`` in its ``__init__``).
    Stacked, bidirectional and GRU layers still start from Keras's weights: compare those
    with ``tfmodernize verify --align-variables``. A project module's recurrent layer class is
    an unsafe fix: Keras's ``SimpleRNN`` adds the bias before the state's product (``x W + b +
    h U``, TF1's cell ``[x, h] K + b``) and its ``LSTM`` starts the forget gate's bias at 1.0
    where TF1 added 1.0 at each step, the same numbers to rounding, which thousands of
    training steps can amplify into other printed numbers. Batch normalisation: same defaults
    (momentum 0.99, epsilon 1e-3) and the same biased batch variance in the moving average,
    which TF1 used unfused (2-D inputs, or ``fused=False``); its moving statistics change in
    the same runs: TF1 updated them in runs of the step depending on ``UPDATE_OPS``, Keras
    whenever the layer runs in training mode, so every feed turning training mode on must be in
    a run fetching that step. The fixtures read the moving statistics back through an
    evaluation in inference mode. RNNs:
    the same recurrences (see ``rnn.py``: gate order, forget bias, GRU reset before the
    candidate), proven with TF1's kernels drawn as above (or, for the others, aligned
    variables handed over in Keras's layout).
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
    bidirectional or static RNN is read, or when a GRU, stacked or bidirectional RNN is in a
    network function the other files of the run call (its Keras layer class would start from
    Keras's initial weights).
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
    summarizes its variables; when a call's input width is not known and the file makes
    variables elsewhere too (made before the first call's trace, they would draw their initial
    values out of TF1's order).
    A variable list picked by scope is left (with a finding; its file then stays on TF1) when
    its test's answer depends on the suffix TF1 added to make a layer name unique, when the
    program makes other variables too, when it is read before the layers it selects were
    applied, used other than as ``var_list``, or selects nothing.
"""

from __future__ import annotations

import libcst as cst

from tfmodernize.analysis.variables import helper_variable
from tfmodernize.codemod import Decline, TFCodemod
from tfmodernize.codemods.migrate.layers_to_keras import modules
from tfmodernize.codemods.migrate.layers_to_keras.batch_norm import (
    BatchNorms,
    drop_update_dependencies,
)
from tfmodernize.codemods.migrate.layers_to_keras.callers import ProjectCallers
from tfmodernize.codemods.migrate.layers_to_keras.initializer import (
    CELL_GATES,
    CELL_TEMPLATE,
    TEMPLATE,
)
from tfmodernize.codemods.migrate.layers_to_keras.layer_call import (
    check_naming_blocks,
    layer_table,
    read_layer,
)
from tfmodernize.codemods.migrate.layers_to_keras.hoisting import HoistedArguments
from tfmodernize.codemods.migrate.layers_to_keras.network import (
    Network,
    NetworkFunctions,
    innermost_first,
)
from tfmodernize.codemods.migrate.layers_to_keras.plan import FilePlan
from tfmodernize.codemods.migrate.layers_to_keras.rewrites import (
    layer_class,
    layer_objects,
)
from tfmodernize.codemods.migrate.layers_to_keras.rnn import RUNS
from tfmodernize.codemods.migrate.layers_to_keras.scoped_plan import ScopedVariables
from tfmodernize.codemods.migrate.layers_to_keras.variable_lists import (
    write_variable_lists,
)
from tfmodernize.layout import style_width
from tfmodernize.names import bound_names, fresh_name, name_nodes, own_nodes
from tfmodernize.treewalk import walk
from tfmodernize.written_code import after_imports, template_statements, two_blank_lines

__all__ = ["LayersToKeras", "layer_table"]


#: How a Keras recurrent layer rounds otherwise than the TF1 cell it replaces.
ROUNDINGS = {
    "SimpleRNN": ("adds the bias before the state's product (`x W + b + h U`), TF1's cell after it (`[x, h] K + b`)"),
    "LSTM": (
        "starts the forget gate's bias at 1.0 where TF1's cell adds 1.0 to the gate at each "
        "step, and sums `x W + h U` where TF1's cell computes `[x, h] K`"
    ),
}


def rounding(keras_class: str) -> str:
    """Why a project module's recurrent layer class is an unsafe fix: TF1's initial weights,
    other roundings."""
    return (
        f"; its Keras `{keras_class}` starts from the TF1 cell's weights but "
        f"{ROUNDINGS[keras_class]}: the same numbers to rounding, which a long training can amplify"
    )


class LayersToKeras(TFCodemod):
    __doc__ = __doc__
    code = "TFM107"
    name = "layers-to-keras"
    summary = (
        "tf.layers and RNN cells -> Keras layer objects created once and called where TF1 applied them; "
        "a network function's tf.get_variable -> a tf.Variable made once"
    )
    needles = ("layers.", "dynamic_rnn", "static_rnn", "get_variable")
    interests = (cst.Call,)
    detects = (
        *(name if name.startswith("contrib.") else f"layers.{name}" for name in layer_table()),
        *RUNS,
        "get_variable",
    )
    requires_tf2 = True
    #: The layer objects must be in place before session-to-function reads the graph, and the
    #: objects of project classes before summary-v2 writes the summaries they export.
    runs_before = ("TFM101", "TFM100", "TFM105")

    def plan(self, module: cst.Module) -> None:
        """Reads the file into a ``FilePlan`` and walks its statements: the layers each applies
        (here), the variables of its network functions (``ScopedVariables``), the calls of
        project classes (``ProjectCallers``); both record their edits with this codemod."""
        parents = self.state.parents(module)
        # Names in use as variables (``dense`` of ``tf.layers.dense`` is an attribute: free).
        taken = {n.value for n in name_nodes(module)}
        plan = FilePlan(
            module=module,
            tf=self.tf,
            parents=parents,
            networks=NetworkFunctions(module, self.tf, parents),
            hoisting=HoistedArguments(module, self.tf, parents),
            batch_norms=BatchNorms(module, self.tf, parents, self.state.project),
            from_imported=self.from_imports(module),
            helpers={
                s.name.value: s
                for s in module.body
                if isinstance(s, cst.FunctionDef) and helper_variable(s, self.tf) is not None
            },
            callers=self.state.callers,
            exports_refused=self.state.exports_refused,
            exports=self.state.exports,
            code=self.code,
            initializer=fresh_name("glorot_uniform", taken),
            cell_kernel=fresh_name("CellKernel", taken),
            width=style_width(self.state.text),
        )
        scoped = ScopedVariables(plan, self)
        callers = ProjectCallers(plan, self)
        dependencies_dropped = False
        top = {id(n) for n in own_nodes(module) if isinstance(n, cst.SimpleStatementLine)}
        initialized = False  # a layer given TF1's default kernel initializer: it is written
        ours: set[str] = set()
        splits = modules.imported_splits(module, self.state.project) if modules.wants_splits(self.state.project) else {}
        for index, statement in enumerate(module.body):
            helpers = (
                plan.helpers
                if isinstance(statement, cst.FunctionDef) and statement.name.value not in plan.helpers
                else {}
            )
            calls = [
                n
                for n in walk(statement, code_only=True)
                if isinstance(n, cst.Call)
                and (self.tf.is_tf(n.func, *self.detects) or isinstance(n.func, cst.Name) and n.func.value in helpers)
            ]
            if splits or plan.local_splits:
                callers.call_splits(statement, {**splits, **plan.local_splits}, taken, keeps_lines=bool(calls))
            variables = [c for c in calls if self.tf.is_tf(c.func, "get_variable") or isinstance(c.func, cst.Name)]
            if variables and (
                not isinstance(statement, cst.FunctionDef)
                or any(isinstance(parents.get(id(c)), cst.Return) for c in variables)
            ):
                # At top level, or a helper's ``return tf.get_variable(...)``:
                # get-variable-to-variable's.
                calls, variables = [c for c in calls if not any(c is v for v in variables)], []
            if not calls:
                continue
            if variables:
                scoped.network_variables(statement, calls, variables, taken)
                continue
            network = Network(calls)
            split = None
            try:
                if isinstance(statement, cst.FunctionDef):
                    project = plan.project_network(statement, calls)
                    network = plan.networks.read(statement, calls, split=project)
                    if project and network.shared:
                        raise Decline(
                            calls[0],
                            f"it is applied in `{statement.name.value}`, which shares its layers "
                            "through `reuse` and is called from another file",
                        )
                elif id(statement) not in top:
                    check_naming_blocks(statement, calls, plan)
                made = [read_layer(call, plan, self.tf_expr, network.reuse) for call in innermost_first(calls)]
                if isinstance(statement, cst.With):
                    inside = bound_names(statement.body)
                    read = sorted(
                        {n.value for layer in made for arg in layer.constructor for n in name_nodes(arg.value)} & inside
                    )
                    if read:
                        raise Decline(
                            calls[0],
                            f"its layer is made before the `with` block holding it, and its "
                            f"arguments read `{read[0]}`, which the block binds",
                        )
                if isinstance(statement, cst.FunctionDef) and project:
                    unaligned = [layer for layer in made if layer.keras_class not in CELL_GATES]
                    if any(layer.rnn is not None for layer in unaligned):
                        raise Decline(
                            calls[0],
                            f"its recurrent layer (GRU, stacked or bidirectional) would be "
                            f"made by a Keras layer class that the other files of the run "
                            f"call, which starts from Keras's initial weights, not the TF1 "
                            f"cells' (other numbers): keep `{statement.name.value}` on TF1, "
                            f"or write the class by hand with the cells' initial weights",
                        )
                    removed = [line for layer in made if layer.rnn is not None for line in layer.rnn.cell_lines]
                    split = modules.split_of(
                        statement,
                        [arg.value for layer in made for arg in layer.constructor],
                        removed,
                        taken,
                    )
                elif isinstance(statement, cst.FunctionDef):
                    made = [
                        plan.hoisting.hoisted(statement, network, layer, call)
                        for call, layer in zip(innermost_first(calls), made)
                    ]
            except Decline as decline:
                self.declined(decline, "tf.layers not migrated: ")
                continue
            if split is not None:
                recurrent = [layer.keras_class for layer in made if layer.rnn is not None]
                if self.fix(
                    calls[0],
                    f"tf.layers in `{split.function}`, a network function the other files of the run "
                    f"call -> a Keras layer class `{split.class_name}` making its layers once"
                    + (rounding(recurrent[0]) if recurrent else ""),
                    safe=not recurrent,
                ):
                    layer_class(self, plan, statement, split, network, made, calls, taken)
                    initialized = initialized or any(layer.tf1_initializer for layer in made)
                continue
            if not self.fix(calls[0], "tf.layers -> a Keras layer created once and called where it was applied"):
                continue
            layer_objects(self, plan, statement, index, network, made, calls, taken, ours)
            initialized = initialized or any(layer.tf1_initializer for layer in made)
            if (
                any(self.tf.is_tf(call.func, "layers.batch_normalization") for call in calls)
                and not dependencies_dropped
            ):
                dependencies_dropped = drop_update_dependencies(self, plan.batch_norms, module)
        callers.drop_moved_imports()
        scoped.make_hoisted_variables()
        if plan.made:
            write_variable_lists(self, plan)
        if initialized or plan.cell_kernels:
            self._write_initializer(module, plan)

    def _write_initializer(self, module: cst.Module, plan: FilePlan) -> None:
        """TF1's default kernel initializer as the file's own function, after its imports, and
        the class of TF1's RNN cell kernels when a layer takes one (``initializer.py``); the
        statement after them two blank lines below them."""
        tf = self.tf_root()
        statements = template_statements(TEMPLATE, module, name=plan.initializer, tf=tf)
        if plan.cell_kernels:
            statements += template_statements(
                CELL_TEMPLATE, module, name=plan.cell_kernel, tf=tf, glorot=plan.initializer
            )
        self.add_import("math")
        position = after_imports(module, {tf})  # after the import binding TF (a notebook's magics may come first)
        if position == 0:
            self.insert_before(module.body[0], statements)
            return
        self.insert_after(module.body[position - 1], statements)
        for following in module.body[position:]:
            made = self.edits.before.get(id(following))
            if made:  # the layer objects made before it
                made[0] = two_blank_lines(made[0])
                return
            if cst.RemovalSentinel.REMOVE not in self.edits.replacements.get(id(following), ()):
                self.replace(following, two_blank_lines)
                return

    @classmethod
    def wanted_by(cls, state) -> bool:
        # A project module made a class of a network function: its calls here must follow.
        return modules.wants_splits(state.project)
