"""RNN cells run by ``tf.nn.dynamic_rnn``, for layers-to-keras.

``cell = tf.nn.rnn_cell.LSTMCell(64)`` and ``outputs, state = tf.nn.dynamic_rnn(cell, x,
dtype=tf.float32)`` are one Keras recurrent layer: ``lstm = tf.keras.layers.LSTM(64,
return_sequences=True, return_state=True)`` and ``outputs, state_h, state_c = lstm(x)``. What
TF1 computed and what Keras computes, cell by cell:

- ``BasicRNNCell`` -> ``SimpleRNN``: ``tanh([x, h] K + b)`` is ``tanh(x W + h U + b)`` with
  ``W``/``U`` the rows of ``K``.
- ``BasicLSTMCell`` / ``LSTMCell`` (no peepholes, clipping, projection or initializer) ->
  ``LSTM``. TF1's fused kernel has its gates in the order input, cell, forget, output; Keras's
  input, forget, cell, output. TF1 adds ``forget_bias`` (1.0) to the forget gate at every step;
  Keras's ``unit_forget_bias=True`` (its default) starts that gate's bias at 1.0 instead: the
  same sums at the start, the same gradients after, so the same training (0.0 is
  ``unit_forget_bias=False``; other values decline). The state is ``LSTMStateTuple(c, h)``
  in TF1, ``[h, c]`` after the output in Keras: ``state.h`` / ``state[1]`` and ``state.c`` /
  ``state[0]`` become the two names bound.
- ``GRUCell`` -> ``GRU(reset_after=False)``: TF1 resets the state before the candidate's
  matrix product, which is Keras's ``reset_after=False``; TF1's gates kernel holds reset then
  update, Keras's kernel update, reset, candidate.

``sequence_length=lengths`` (``dynamic_rnn``): TF1 stops each sequence at its length, zero
outputs after it and the state carried through; Keras does the same over
``mask=tf.sequence_mask(lengths, maxlen=<time steps>)`` with ``zero_output_for_mask=True``.

``static_rnn`` runs the cell over a list of time steps (``tf.unstack(x, T, 1)``) and returns
one: the Keras layer takes ``tf.stack(steps, axis=1)`` and its outputs are
``tf.unstack(..., axis=1)`` again (stacking and unstacking are exact); its state is not migrated.

A ``MultiRNNCell`` over cells made in it (``[LSTMCell(8) for _ in range(2)]``) is
``tf.keras.layers.RNN([tf.keras.layers.LSTMCell(8) for _ in range(2)])``, Keras's stacked
cells (same order, each layer's outputs the next one's inputs). ``bidirectional_dynamic_rnn``
is ``Bidirectional(forward, backward_layer=<the same with go_backwards=True>,
merge_mode=None)``: both run the backward cell over the reversed sequence and return its
outputs in time order, as the pair ``[forward, backward]``. Their states are not migrated.

A Keras recurrent layer made without ``seed=`` draws one from Python's ``random`` module
(for its dropout, even at rate 0); TF1's cells draw none. In a program that imports
``random``, the ``LSTM`` and ``SimpleRNN`` layers whose weights are drawn as TF1 drew them
get ``seed=0``, so the program's own ``random.sample`` / ``random.shuffle`` calls after them
draw what they drew in TF1 (the seed only feeds dropout, which these layers never apply). The
Keras layers made with Keras's own initializers (``GRU``, stacked cells, ``Bidirectional``)
draw from ``random`` through those initializers anyway, and start from other weights than
TF1's (only ``verify --align-variables`` compares them).

``verify --align-variables`` hands TF1's fused kernels to Keras split and reordered this way
(``tfmodernize/verify/child.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

import libcst as cst

from tfmodernize.codemod import Decline
from tfmodernize.names import bound_names, name_nodes, names_read
from tfmodernize.syntax import argument, commas, is_none, no_space_equal, source, statement_holding
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import walk

#: TF1 cell class -> (Keras layer, the TF1 name of its variable scope, parameters it may pass).
CELLS = {
    "BasicRNNCell": ("SimpleRNN", "basic_rnn_cell", ("num_units", "activation", "name")),
    "BasicLSTMCell": ("LSTM", "basic_lstm_cell", ("num_units", "forget_bias", "state_is_tuple", "activation", "name")),
    "LSTMCell": (
        "LSTM",
        "lstm_cell",
        (
            "num_units",
            "use_peepholes",
            "cell_clip",
            "initializer",
            "num_proj",
            "proj_clip",
            "forget_bias",
            "state_is_tuple",
            "activation",
            "name",
        ),
    ),
    "GRUCell": ("GRU", "gru_cell", ("num_units", "activation", "kernel_initializer", "bias_initializer", "name")),
}
#: What a Keras recurrent layer object is named after.
OBJECT_NAMES = {
    "SimpleRNN": "simple_rnn",
    "LSTM": "lstm",
    "GRU": "gru",
    "RNN": "stacked_rnn",
    "Bidirectional": "bidirectional",
}
#: A GRU cell's trainable variables in TF1.
GATED_WEIGHTS = ("gates/kernel", "gates/bias", "candidate/kernel", "candidate/bias")
#: Where the cells live in TF1.
CELL_MODULES = ("nn.rnn_cell.", "contrib.rnn.")
#: LSTMCell options Keras's LSTM has no counterpart for: declined unless left at their default.
UNSUPPORTED = {
    "use_peepholes": "False",
    "cell_clip": "None",
    "initializer": "None",
    "num_proj": "None",
    "proj_clip": "None",
    "kernel_initializer": "None",
    "bias_initializer": "None",
    "state_is_tuple": "True",
}


@dataclass(frozen=True)
class Cell:
    """One TF1 cell made: its Keras class, what the Keras layer or cell takes for it (units,
    activation, forget bias, GRU reset), the name of its variable scope in TF1 (``name=``, else
    the class's default) and the ``name=`` passed."""

    keras_class: str
    args: tuple[cst.Arg, ...]
    tf1_name: str
    named: Optional[cst.SimpleString]

    def variables(self) -> list[str]:
        """Its trainable variables' TF1 names below its run's scope, ``{suffix}`` where TF1
        made a cell name unique."""
        weights = GATED_WEIGHTS if self.keras_class == "GRU" else ("kernel", "bias")
        return [f"{self.tf1_name}{{suffix}}/{weight}:0" for weight in weights]


@dataclass
class RecurrentSite:
    """``outputs, state = tf.nn.dynamic_rnn(cell, x, ...)`` (or ``bidirectional_dynamic_rnn``
    over two cells) with each cell made on a line of its own: the Keras layer's class and
    arguments, the cells' lines (they go), the new assignment target, the state reads to
    replace (LSTM) and the TF1 names of the variables."""

    keras_class: str
    constructor: list[cst.Arg]
    named: Optional[str]  # the ``name=`` passed
    cell_lines: list[cst.SimpleStatementLine]
    assign: cst.Assign
    outputs: cst.BaseAssignTargetExpression
    state: Optional[str]
    variables: list[str]
    #: LSTM state reads -> "h" or "c".
    reads: dict[int, tuple[cst.BaseExpression, str]] = field(default_factory=dict)
    #: What the layer is called with besides its input (``mask=`` for ``sequence_length``).
    call_args: list[cst.Arg] = field(default_factory=list)
    #: ``static_rnn``: its inputs and outputs are lists of time steps (stacked and unstacked).
    listed: bool = False

    def target(self, names: dict[str, str]) -> cst.BaseAssignTargetExpression:
        """What the call's result is bound to: ``outputs``, ``outputs, state`` or
        ``outputs, state_h, state_c``."""
        if self.state is None:
            return self.outputs
        parts = (
            [self.outputs, cst.Name(self.state)]
            if self.keras_class != "LSTM"
            else [self.outputs, cst.Name(names["h"]), cst.Name(names["c"])]
        )
        return cst.Tuple(
            [cst.Element(p, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for p in parts[:-1]]
            + [cst.Element(parts[-1])],
            lpar=[],
            rpar=[],
        )


#: The parameters of the TF1 runs: position, and the default a migrated run must keep.
RUNS = {
    "nn.dynamic_rnn": {
        "cell": 0,
        "inputs": 1,
        "sequence_length": 2,
        "initial_state": 3,
        "dtype": 4,
        "time_major": 7,
        "scope": 8,
    },
    "nn.bidirectional_dynamic_rnn": {
        "cell_fw": 0,
        "cell_bw": 1,
        "inputs": 2,
        "sequence_length": 3,
        "initial_state_fw": 4,
        "initial_state_bw": 5,
        "dtype": 6,
        "time_major": 9,
        "scope": 10,
    },
    "nn.static_rnn": {"cell": 0, "inputs": 1, "initial_state": 2, "dtype": 3, "sequence_length": 4, "scope": 5},
}
KEPT_DEFAULTS = {
    "sequence_length": "None",
    "initial_state": "None",
    "initial_state_fw": "None",
    "initial_state_bw": "None",
    "time_major": "False",
    "scope": "None",
    "swap_memory": "False",
    "parallel_iterations": "None",
}
#: The Keras layers whose weights are drawn as TF1 drew them (``initializer.py``), given
#: ``seed=`` in a program drawing from Python's ``random`` module.
SEEDED = ("LSTM", "SimpleRNN")
#: What the Keras layer is called for each run, by the TF1 run's variable scope.
RUN_SCOPES = {"nn.dynamic_rnn": "rnn", "nn.bidirectional_dynamic_rnn": "bidirectional_rnn", "nn.static_rnn": "rnn"}


def read_site(
    call: cst.Call,
    body: list[cst.BaseStatement],
    parents: dict,
    tf: TFNames,
    spell: Callable[[str], cst.BaseExpression],
) -> RecurrentSite:
    """The recurrent layer ``call`` (``tf.nn.dynamic_rnn`` / ``bidirectional_dynamic_rnn``)
    becomes, or Decline. ``body``: the statements of the block holding it, where its cells must
    be made; ``spell``: a Keras path as the module spells TensorFlow."""
    run = next(r for r in RUNS if tf.is_tf(call.func, r))
    positions = RUNS[run]
    lengths = argument(call, positions["sequence_length"], "sequence_length")
    masked = run == "nn.dynamic_rnn" and lengths is not None and source(lengths) != "None"
    for keyword, default in KEPT_DEFAULTS.items():
        value = argument(call, positions.get(keyword), keyword)
        if value is not None and source(value) != default and not (keyword == "sequence_length" and masked):
            raise Decline(call, f"it passes `{keyword}`, which the Keras layer does not take the same way")
    inputs = argument(call, positions["inputs"], "inputs")
    call_args = []
    if masked:
        # TF1 stops each sequence at its length: zero outputs after it, the state carried
        # through. Keras does so over a mask, with zero_output_for_mask=True.
        if not isinstance(inputs, (cst.Name, cst.Attribute)):
            raise Decline(
                call, "its inputs are computed in the call: the mask for `sequence_length` needs their time dimension"
            )
        time_steps = cst.Subscript(
            cst.Call(spell("shape"), [cst.Arg(inputs)]), [cst.SubscriptElement(cst.Index(cst.Integer("1")))]
        )
        mask = cst.Call(
            spell("sequence_mask"),
            commas([cst.Arg(lengths), cst.Arg(time_steps, keyword=cst.Name("maxlen"), equal=no_space_equal())]),
        )
        call_args = [cst.Arg(mask, keyword=cst.Name("mask"), equal=no_space_equal())]
    dtype = argument(call, positions["dtype"], "dtype")
    if dtype is not None and not tf.is_tf(dtype, "float32"):
        raise Decline(call, f"`dtype={source(dtype)}`: only float32 recurrent layers are migrated")
    if inputs is None:
        raise Decline(call, "its inputs are not passed")
    statement = statement_holding(call, parents)
    assign = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 else None
    if not (
        isinstance(assign, cst.Assign)
        and assign.value is call
        and len(assign.targets) == 1
        and isinstance(assign.targets[0].target, (cst.Tuple, cst.List))
        and len(assign.targets[0].target.elements) == 2
    ):
        raise Decline(call, "it is not `outputs, state = ...` on a line of its own")
    outputs, state = (e.value for e in assign.targets[0].target.elements)
    state_uses = _reads_after(state, statement, body) if isinstance(state, cst.Name) else []
    if not isinstance(state, cst.Name):
        raise Decline(call, "its state is not bound to a name")
    sides = []  # (cell lines, cells, multi) per direction
    for key in [k for k in positions if k.startswith("cell")]:
        name = argument(call, positions[key], key)
        line, made = _cell(name.value, body, statement, tf) if isinstance(name, cst.Name) else (None, None)
        if line is None or made is None:
            raise Decline(
                call,
                f"`{source(name) if name is not None else key}` is not made by a TF1 RNN cell on a "
                "line of its own before it",
            )
        sides.append((line, *_cells(made, tf)))
    single = len(sides) == 1 and not sides[0][2]
    if state_uses and not single:
        raise Decline(call, "the state of a stacked or bidirectional RNN is read: not migrated")
    if state_uses and run == "nn.static_rnn":
        raise Decline(call, "the state of a static RNN is read: not migrated")
    reads: dict[int, tuple[cst.BaseExpression, str]] = {}
    if single and sides[0][1][0].keras_class == "LSTM":
        for use in state_uses:
            read = _lstm_read(use, parents)
            if read is None:
                raise Decline(use, f"the LSTM state `{state.value}` is used other than as `.h`, `.c`, `[0]` or `[1]`")
            reads[id(read[0])] = read
    returns_state = bool(state_uses)
    prefix = RUN_SCOPES[run]
    if single:
        cell = sides[0][1][0]
        flags = [
            "return_sequences",
            *(["return_state"] if returns_state else []),
            *(["zero_output_for_mask"] if masked else []),
        ]
        constructor = [*cell.args, *_flags(flags)]
        if cell.keras_class in SEEDED and _draws_python_random(call, parents):
            constructor.append(cst.Arg(cst.Integer("0"), keyword=cst.Name("seed"), equal=no_space_equal()))
        if cell.named is not None:
            constructor.append(cst.Arg(cell.named, keyword=cst.Name("name"), equal=no_space_equal()))
        return RecurrentSite(
            cell.keras_class,
            constructor,
            cell.named.evaluated_value if cell.named else None,
            [sides[0][0]],
            assign,
            outputs,
            state.value if returns_state else None,
            [f"{prefix}/{v}" for v in cell.variables()],
            reads,
            call_args,
            listed=run == "nn.static_rnn",
        )
    layers, variables = [], []
    for (_, cells, multi, comprehension), direction in zip(sides, ("fw", "bw") if len(sides) == 2 else ("",)):
        flags = [
            "return_sequences",
            *(["go_backwards"] if direction == "bw" else []),
            *(["zero_output_for_mask"] if masked else []),
        ]
        layers.append(_layer(cells, multi, comprehension, flags, spell))
        where = f"{prefix}/{direction}/" if direction else f"{prefix}/"
        variables += [
            f"{where}multi_rnn_cell/cell_{i}/{v}" if multi else f"{where}{v}"
            for i, cell in enumerate(cells)
            for v in cell.variables()
        ]
    if len(layers) == 1:
        return RecurrentSite(
            "RNN",
            [*layers[0].args],
            None,
            [sides[0][0]],
            assign,
            outputs,
            None,
            variables,
            call_args=call_args,
            listed=run == "nn.static_rnn",
        )
    constructor = [
        cst.Arg(layers[0]),
        cst.Arg(layers[1], keyword=cst.Name("backward_layer"), equal=no_space_equal()),
        cst.Arg(cst.Name("None"), keyword=cst.Name("merge_mode"), equal=no_space_equal()),
    ]
    return RecurrentSite("Bidirectional", constructor, None, [s[0] for s in sides], assign, outputs, None, variables)


def _reads_after(name: cst.Name, statement: cst.BaseStatement, body: list[cst.BaseStatement]) -> list[cst.Name]:
    """Where the statements after ``statement`` read ``name``, up to one binding it again
    (``_`` is a name thrown away)."""
    reads: list[cst.Name] = []
    if name.value == "_":
        return reads
    for later in body[next(i for i, s in enumerate(body) if s is statement) + 1 :]:
        targets = {
            id(n)
            for node in walk(later)
            if isinstance(node, (cst.AssignTarget, cst.For, cst.CompFor, cst.AsName))
            for n in name_nodes(node.name if isinstance(node, cst.AsName) else node.target)
        }
        reads += [n for n in name_nodes(later) if n.value == name.value and id(n) not in targets]
        if name.value in bound_names(later):
            break
    return reads


def _draws_python_random(call: cst.Call, parents: dict) -> bool:
    """Whether the module holding ``call`` imports Python's ``random`` module (``import
    random``, ``from random import sample``)."""
    root: cst.CSTNode = call
    while id(root) in parents:
        root = parents[id(root)]
    return any(
        (isinstance(node, cst.ImportFrom) and isinstance(node.module, cst.Name) and node.module.value == "random")
        or (
            isinstance(node, cst.Import)
            and any(isinstance(alias.name, cst.Name) and alias.name.value == "random" for alias in node.names)
        )
        for node in walk(root)
    )


def _flags(flags: list[str]) -> list[cst.Arg]:
    return [cst.Arg(cst.Name("True"), keyword=cst.Name(flag), equal=no_space_equal()) for flag in flags]


def _layer(
    cells: list[Cell],
    multi: bool,
    comprehension: Optional[cst.ListComp],
    flags: list[str],
    spell: Callable[[str], cst.BaseExpression],
) -> cst.Call:
    """A Keras recurrent layer over ``cells``: ``LSTM(8, ...)``, or ``RNN([LSTMCell(8), ...])``
    for a stack (a comprehension stays one)."""
    if not multi:
        cell = cells[0]
        named = [cst.Arg(cell.named, keyword=cst.Name("name"), equal=no_space_equal())] if cell.named else []
        return cst.Call(spell(f"keras.layers.{cell.keras_class}"), commas([*cell.args, *_flags(flags), *named]))

    def keras_cell(cell: Cell) -> cst.Call:
        return cst.Call(spell(f"keras.layers.{cell.keras_class}Cell"), commas(list(cell.args)))

    stack: cst.BaseExpression
    if comprehension is not None:
        stack = comprehension.with_changes(elt=keras_cell(cells[0]))
    else:
        stack = cst.List(commas([cst.Element(keras_cell(cell)) for cell in cells]))
    return cst.Call(spell("keras.layers.RNN"), commas([cst.Arg(stack), *_flags(flags)]))


def _cells(made: cst.Call, tf: TFNames) -> tuple[list[Cell], bool, Optional[cst.ListComp]]:
    """The cells ``made`` is: one cell, or a ``MultiRNNCell`` over a list of cells made in it
    (``[cell(8), cell(8)]`` or ``[cell(8) for _ in range(2)]``)."""
    if not tf.is_tf(made.func, *(f"{m}MultiRNNCell" for m in CELL_MODULES)):
        return [_read_cell(made, tf)], False, None
    stack = argument(made, 0, "cells")
    if any(
        arg.keyword is not None and arg.keyword.value != "cells" and source(arg.value) != "True" for arg in made.args
    ):
        raise Decline(made, "its MultiRNNCell passes `state_is_tuple=False`")
    if (
        isinstance(stack, cst.List)
        and stack.elements
        and all(
            isinstance(e, cst.Element) and isinstance(e.value, cst.Call) and is_cell(e.value, tf)
            for e in stack.elements
        )
    ):
        return [_read_cell(e.value, tf) for e in stack.elements], True, None
    if (
        isinstance(stack, cst.ListComp)
        and isinstance(stack.elt, cst.Call)
        and is_cell(stack.elt, tf)
        and stack.for_in.inner_for_in is None
        and not stack.for_in.ifs
        and isinstance(stack.for_in.iter, cst.Call)
        and isinstance(stack.for_in.iter.func, cst.Name)
        and stack.for_in.iter.func.value == "range"
        and len(stack.for_in.iter.args) == 1
        and isinstance(stack.for_in.iter.args[0].value, cst.Integer)
        and not names_read(stack.elt) & names_read(stack.for_in.target)
    ):
        count = int(stack.for_in.iter.args[0].value.value)
        cell = _read_cell(stack.elt, tf)
        return [cell] * count, True, stack
    raise Decline(made, "its MultiRNNCell is not given a list of cells made in it")


def _read_cell(cell: cst.Call, tf: TFNames) -> Cell:
    """What one TF1 cell constructor says, in Keras's terms, or Decline."""
    kind = tf.tf_symbol(cell.func).path.rsplit(".", 1)[-1]
    keras_class, tf1_name, parameters = CELLS[kind]
    passed: dict[str, cst.BaseExpression] = {}
    for position, arg in enumerate(cell.args):
        if arg.star:
            raise Decline(cell, "it passes `*args` or `**kwargs`")
        key = (
            arg.keyword.value
            if arg.keyword is not None
            else (parameters[position] if position < len(parameters) else None)
        )
        if key not in parameters:
            raise Decline(cell, f"`{kind}` takes `{key}` here, which the Keras layer has no counterpart for")
        passed[key] = arg.value
    for key, default in UNSUPPORTED.items():
        if key in passed and source(passed[key]) != default:
            raise Decline(cell, f"`{key}={source(passed[key])}` has no Keras counterpart")
    if "num_units" not in passed:
        raise Decline(cell, "its number of units is not passed")
    args = [cst.Arg(passed["num_units"])]
    if not is_none(passed.get("activation")):
        args.append(cst.Arg(passed["activation"], keyword=cst.Name("activation"), equal=no_space_equal()))
    forget = passed.get("forget_bias")
    if forget is not None:
        value = _number(forget)
        if value not in (0.0, 1.0):
            raise Decline(cell, f"`forget_bias={source(forget)}`: Keras starts the forget gate's bias at 1.0 or 0.0")
        if value == 0.0:
            args.append(cst.Arg(cst.Name("False"), keyword=cst.Name("unit_forget_bias"), equal=no_space_equal()))
    if keras_class == "GRU":
        args.append(cst.Arg(cst.Name("False"), keyword=cst.Name("reset_after"), equal=no_space_equal()))
    named = passed.get("name")
    if named is not None and not (isinstance(named, cst.SimpleString) and isinstance(named.evaluated_value, str)):
        raise Decline(cell, "its name is not a string literal")
    return Cell(keras_class, tuple(args), named.evaluated_value if named is not None else tf1_name, named)


def is_cell(call: cst.Call, tf: TFNames) -> bool:
    return tf.is_tf(call.func, *(f"{m}{c}" for m in CELL_MODULES for c in CELLS))


def _cell(
    name: str, body: list[cst.BaseStatement], run: cst.BaseStatement, tf: TFNames
) -> tuple[Optional[cst.SimpleStatementLine], Optional[cst.Call]]:
    """The ``name = tf.nn.rnn_cell.X(...)`` line before ``run`` in ``body``, when ``name`` is
    bound there only and read by ``run`` only."""
    found: tuple[Optional[cst.SimpleStatementLine], Optional[cst.Call]] = (None, None)
    uses = 0
    for statement in body:
        if statement is run:
            break
        if (
            isinstance(statement, cst.SimpleStatementLine)
            and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Assign)
            and len(statement.body[0].targets) == 1
            and isinstance(statement.body[0].targets[0].target, cst.Name)
            and statement.body[0].targets[0].target.value == name
        ):
            value = statement.body[0].value
            made = isinstance(value, cst.Call) and (
                is_cell(value, tf) or tf.is_tf(value.func, *(f"{m}MultiRNNCell" for m in CELL_MODULES))
            )
            found = (statement, value) if made else (None, None)
            continue
        uses += sum(1 for n in name_nodes(statement) if n.value == name)
    later = run is not None and sum(1 for s in body[body.index(run) :] for n in name_nodes(s) if n.value == name)
    return found if uses == 0 and later == 1 else (None, None)


def _lstm_read(use: cst.Name, parents: dict) -> Optional[tuple[cst.BaseExpression, str]]:
    """``state.h`` / ``state[1]`` -> (that node, "h"); ``state.c`` / ``state[0]`` -> "c"."""
    holder = parents.get(id(use))
    if isinstance(holder, cst.Attribute) and holder.value is use and holder.attr.value in ("h", "c"):
        return holder, holder.attr.value
    if (
        isinstance(holder, cst.Subscript)
        and holder.value is use
        and len(holder.slice) == 1
        and isinstance(holder.slice[0].slice, cst.Index)
        and isinstance(holder.slice[0].slice.value, cst.Integer)
        and holder.slice[0].slice.value.value in ("0", "1")
    ):
        return holder, "c" if holder.slice[0].slice.value.value == "0" else "h"
    return None


def _number(node: cst.BaseExpression) -> Optional[float]:
    if isinstance(node, (cst.Float, cst.Integer)):
        return float(node.value)
    return None
