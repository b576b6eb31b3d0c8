"""The edits layers-to-keras's parts share, each a function of the ``Editor`` it records them
with (the codemod): lines made before a statement, a shared network's ``reuse`` parameter
dropped, a layer object applied where TF1 applied the layer, an RNN's cell line and result;
the layers a statement applies made as objects before it (``layer_objects``), and a network
function applying ``tf.layers`` made a Keras layer class (``layer_class``)."""

from __future__ import annotations

import re
from typing import Any, Mapping, Optional, Protocol, Sequence

import libcst as cst

from tfmodernize.names import fresh_name, object_name
from tfmodernize.treewalk import contains
from tfmodernize.codemods.migrate.layers_to_keras import modules
from tfmodernize.codemods.migrate.layers_to_keras.initializer import CELL_GATES
from tfmodernize.codemods.migrate.layers_to_keras.layer_call import LayerCall, input_of
from tfmodernize.codemods.migrate.layers_to_keras.network import (
    Network,
    innermost_first,
)
from tfmodernize.codemods.migrate.layers_to_keras.network import (
    prefix as network_prefix,
)
from tfmodernize.codemods.migrate.layers_to_keras.plan import FilePlan
from tfmodernize.codemods.migrate.layers_to_keras.rnn import RecurrentSite
from tfmodernize.codemods.migrate.layers_to_keras.variable_lists import (
    TRAINABLE_WEIGHTS,
    MadeLayer,
)
from tfmodernize.edits import Edits, Replacement
from tfmodernize.layout import fitted
from tfmodernize.names import parameter_names
from tfmodernize.syntax import commas, no_space_equal, statement_holding


class Editor(Protocol):
    """What layers-to-keras's parts record their findings and edits with (``TFCodemod``'s)."""

    edits: Edits

    def replace(self, node: cst.CSTNode, new: Replacement) -> None: ...

    def insert_before(self, statement: cst.CSTNode, statements: Sequence[cst.CSTNode]) -> None: ...

    def remove(self, statement: cst.CSTNode) -> None: ...

    def add_import(self, module: str, obj: Optional[str] = None, asname: Optional[str] = None) -> None: ...

    def drop_from_import_of(self, replaced: cst.BaseExpression, imported: Mapping[str, str]) -> None: ...

    def fix(self, node: cst.CSTNode, message: str) -> bool: ...

    def declined(self, decline: Any, prefix: str = "") -> None: ...

    def tf_expr(self, path: str) -> cst.BaseExpression: ...

    def tf_root(self) -> str: ...


def make_before(
    editor: Editor,
    statement: cst.BaseStatement,
    lines: list[cst.SimpleStatementLine],
    carried: Sequence[cst.EmptyLine] = (),
    keeps_comments: bool = False,
) -> None:
    """``lines`` (what is made) go before the module statement, taking its blank lines and
    comments (after ``carried`` ones); a definition keeps two blank lines before it.
    ``keeps_comments``: the comment lines right above the statement (below its last blank
    line) stay with it: they tell what it computes, and go where a later migration moves it
    (into a step function); what is made takes the blank lines and the headings above them."""
    leading = list(statement.leading_lines)
    own = len(leading)
    while keeps_comments and own and leading[own - 1].comment is not None:
        own -= 1
    lines[0] = lines[0].with_changes(leading_lines=[*carried, *leading[:own]])
    kept = [cst.EmptyLine(indent=False)] * 2 if isinstance(statement, (cst.FunctionDef, cst.ClassDef)) else []
    stays = [*kept, *leading[own:]]
    editor.replace(statement, lambda updated: updated.with_changes(leading_lines=stays))
    editor.insert_before(statement, lines)


def stop_passing(editor: Editor, function: cst.FunctionDef, network: Network) -> None:
    """The ``reuse`` parameter of a shared network function goes, with what its calls pass."""
    assert network.reuse is not None
    position = parameter_names(function).index(network.reuse)
    editor.replace(
        function.params,
        lambda updated: updated.with_changes(
            params=without(updated.params, [p.name.value for p in updated.params].index(network.reuse))
        ),
    )
    for call in network.calls_of:
        positional = [i for i, a in enumerate(call.args) if a.keyword is None and not a.star]
        dropped = next(
            (i for i, a in enumerate(call.args) if a.keyword is not None and a.keyword.value == network.reuse),
            positional[position] if position < len(positional) else None,
        )
        if dropped is not None:
            editor.replace(
                call,
                lambda updated, dropped=dropped: updated.with_changes(args=without(updated.args, dropped)),
            )


def applied(
    editor: Editor,
    updated: cst.Call,
    name: str,
    layer: LayerCall,
    owner: Optional[cst.BaseExpression] = None,
) -> cst.BaseExpression:
    """``layer_object(input, ...)`` (``owner``: the expression naming the object, if not
    ``name``); a ``static_rnn``'s list of time steps is stacked into one tensor for the Keras
    layer and its outputs unstacked into a list again."""
    given = input_of(updated, layer.input_position)
    listed = layer.rnn is not None and layer.rnn.listed
    axis = cst.Arg(cst.Integer("1"), keyword=cst.Name("axis"), equal=no_space_equal())
    if listed:
        given = cst.Call(editor.tf_expr("stack"), commas([cst.Arg(given), axis]))
    made = cst.Call(owner or cst.Name(name), commas([cst.Arg(given), *layer.call_args]))
    return cst.Call(editor.tf_expr("unstack"), commas([cst.Arg(made), axis])) if listed else made


def recurrent(editor: Editor, site: RecurrentSite, taken: set[str]) -> None:
    """The cell's line goes; the result is bound to the outputs (and the state, or for an
    LSTM its ``h`` and ``c``, whose reads are replaced)."""
    names = {}
    if site.state is not None and site.keras_class == "LSTM":
        names = {part: fresh_name(f"{site.state}_{part}", taken) for part in ("h", "c")}
        for node, part in site.reads.values():
            editor.replace(node, lambda updated, name=names[part]: cst.Name(name))
    for line in site.cell_lines:
        editor.remove(line)
    target = site.target(names)
    editor.replace(site.assign.targets[0], lambda updated: updated.with_changes(target=target))


def layer_class(
    editor: Editor,
    plan: FilePlan,
    function: cst.FunctionDef,
    split: modules.Split,
    network: Network,
    made: list[LayerCall],
    calls: list[cst.Call],
    taken: set[str],
) -> None:
    """The function becomes a Keras layer class: its layers made in ``__init__`` as
    attributes, applied in ``call``; the split is exported for the callers."""
    for block in network.scopes:
        editor.replace(block, lambda updated: cst.FlattenSentinel(updated.body.body))
    created: list[tuple[str, cst.Call]] = []
    attributes: set[str] = set(split.parameters)
    kernels = False  # a layer drawing TF1's cell kernel
    for call, layer in zip(innermost_first(calls), made):
        named = layer.tf1_name if layer.tf1_name and re.fullmatch(r"[A-Za-z_]\w*", layer.tf1_name) else None
        name = fresh_name(named.lower() if named else layer.function, attributes)
        constructor = list(layer.constructor)
        if layer.rnn is not None and layer.keras_class in CELL_GATES:
            # TF1's cell kernel, drawn as TF1 drew it (``initializer.py``), kept on the object.
            kernel = fresh_name(f"{name}_kernel", attributes)
            created.append((kernel, cell_kernel(plan, layer.keras_class)))
            constructor += kernel_initializers(cst.Attribute(cst.Name("self"), cst.Name(kernel)))
            plan.cell_kernel_layers.append(name)
            kernels = True
        keras_class = editor.tf_expr(f"keras.layers.{layer.keras_class}")
        created.append((name, cst.Call(keras_class, commas(constructor))))
        editor.replace(
            call,
            lambda updated, name=name, layer=layer: applied(
                editor, updated, name, layer, cst.Attribute(cst.Name("self"), cst.Name(name))
            ),
        )
        editor.drop_from_import_of(call.func, plan.from_imported)
        if layer.rnn is not None:
            recurrent(editor, layer.rnn, taken)
    constructors = [arg.value for layer in made for arg in layer.constructor]
    for read in modules.stored_reads(function, split, constructors):
        editor.replace(read, lambda updated: modules.on_the_object(updated, split))
    base = editor.tf_expr("keras.layers.Layer")
    editor.replace(
        function,
        lambda updated: modules.module_class(
            updated,
            split,
            created,
            base,
            width=plan.width,
            builds_on_call=kernels or any(layer.tf1_initializer for layer in made),
        ),
    )
    plan.export_class(split.function, split.export())


def layer_objects(
    editor: Editor,
    plan: FilePlan,
    statement: cst.BaseStatement,
    index: int,
    network: Network,
    made: list[LayerCall],
    calls: list[cst.Call],
    taken: set[str],
    ours: set[str],
) -> None:
    """The layers a module statement (``index``) applies, or a network function the program
    calls, made as objects before it (or before the statement first calling the function)
    and called where TF1 applied them; each recorded in ``plan.made``. ``taken``: the names
    in use; ``ours``: the object names this file's layers took (a name TF1 gave a layer
    again is made unique, not suffixed ``_layer``)."""
    # The scopes only named and shared: their bodies stay, dedented.
    for block in network.scopes:
        editor.replace(block, lambda updated: cst.FlattenSentinel(updated.body.body))
    if network.reuse is not None:
        stop_passing(editor, statement, network)
    created = []
    prefix = network_prefix(network.scopes, statement) if isinstance(statement, cst.FunctionDef) else ""
    built_at = (
        index
        if not network.calls_of
        else min(i for i, top in enumerate(plan.module.body) for c in network.calls_of if contains(top, c))
    )
    for call, layer in zip(innermost_first(calls), made):
        scope = plan.variable_scope(call)
        named = layer.tf1_name if layer.tf1_name and re.fullmatch(r"[A-Za-z_]\w*", layer.tf1_name) else None
        base = named.lower() if named else layer.function
        base = f"{prefix}_{base}" if prefix and not base.startswith(prefix) else base
        # One of several layers of its kind passing no name: named after what its line binds
        # (``logits = tf.layers.dense(h, 10)`` -> ``logits_dense``, under the network's scope
        # ``generator_logits_dense``), as network-function-to-module names its objects.
        line = statement_holding(call, plan.parents)
        bound = (
            object_name(layer.function, line)
            if named is None
            and plan.unnamed_calls(call) > 1
            and sum(1 for c in calls if statement_holding(c, plan.parents) is line) == 1
            else None
        )
        bound = f"{prefix}_{bound}" if bound is not None and prefix else bound
        base = bound if bound is not None and bound not in taken else base
        # ``conv = tf.layers.conv2d(..., name="conv")``: the layer is ``conv_layer``.
        name = fresh_name(base if base not in taken or base in ours else f"{base}_layer", taken)
        ours.add(base)
        where = f"{scope}/" if scope else ""
        variables = (
            [f"{where}{v}" for v in layer.rnn.variables]
            if layer.rnn is not None
            else [
                f"{where}{layer.tf1_name or layer.function}{{suffix}}/{weight}:0"
                for weight in (
                    layer.tf1_weights
                    if layer.tf1_weights is not None
                    else TRAINABLE_WEIGHTS.get(layer.keras_class, ("kernel", "bias"))
                )
            ]
        )
        plan.made.append(MadeLayer(tuple(variables), layer.keras_class, name, built_at))
        constructor = list(layer.constructor)
        if layer.rnn is not None and layer.keras_class in CELL_GATES:
            # TF1's cell kernel, drawn as TF1 drew it (``initializer.py``).
            kernel = fresh_name(f"{name}_kernel", taken)
            made_kernel = cell_kernel(plan, layer.keras_class)
            created.append(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(kernel))], made_kernel)]))
            constructor += kernel_initializers(cst.Name(kernel))
            plan.cell_kernel_layers.append(name)
        made_line = cst.SimpleStatementLine(
            [
                cst.Assign(
                    [cst.AssignTarget(cst.Name(name))],
                    cst.Call(
                        editor.tf_expr(f"keras.layers.{layer.keras_class}"),
                        commas(constructor),
                    ),
                )
            ]
        )
        created.append(fitted(made_line, plan.width, 0, further=True))
        editor.replace(
            call,
            lambda updated, name=name, layer=layer: applied(editor, updated, name, layer),
        )
        # ``from tensorflow.contrib import layers``
        editor.drop_from_import_of(call.func, plan.from_imported)
        if layer.rnn is not None:
            recurrent(editor, layer.rnn, taken)
    # A top-level cell's line goes (``recurrent``): its comments and blank lines stay.
    carried = [
        line
        for layer in made
        if layer.rnn is not None
        for cell_line in layer.rnn.cell_lines
        if cell_line in plan.module.body
        for line in cell_line.leading_lines
    ]
    # An application's comments stay with it; a network function's go with its layers.
    applies = not isinstance(statement, cst.FunctionDef)
    make_before(editor, statement, created, carried, keeps_comments=applies)


def cell_kernel(plan: FilePlan, keras_class: str) -> cst.Call:
    """``CellKernel()`` (``gates=(0, 2, 1, 3)`` for an LSTM): the object drawing TF1's one
    cell kernel for the recurrent layer ``keras_class`` (``initializer.py``)."""
    gates = CELL_GATES[keras_class]
    given = f"gates={gates}" if gates != (0,) else ""
    return cst.parse_expression(f"{plan.cell_kernel}({given})")


def kernel_initializers(kernel: cst.BaseExpression) -> list[cst.Arg]:
    """``kernel_initializer=kernel.inputs, recurrent_initializer=kernel.state``."""
    return [
        cst.Arg(
            cst.Attribute(kernel, cst.Name(part)),
            keyword=cst.Name(keyword),
            equal=no_space_equal(),
        )
        for keyword, part in (("kernel_initializer", "inputs"), ("recurrent_initializer", "state"))
    ]


def without(items: Sequence[Any], index: int) -> list[Any]:
    """Parameters or arguments without the one at ``index``, separated as before it went."""
    kept = [item for i, item in enumerate(items) if i != index]
    if index == len(items) - 1 and kept:
        kept[-1] = kept[-1].with_changes(comma=items[-1].comma)
    return kept
