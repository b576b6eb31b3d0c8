"""RNN cells run by ``tf.nn.dynamic_rnn``, for layers-to-keras: the run read as the Keras
recurrent layer replacing it (``read_site``: a ``RecurrentSite``).

``cell = tf.nn.rnn_cell.LSTMCell(64)`` and ``outputs, state = tf.nn.dynamic_rnn(cell, x,
dtype=tf.float32)`` are one Keras recurrent layer: ``lstm = tf.keras.layers.LSTM(64,
return_sequences=True, return_state=True)`` and ``outputs, state_h, state_c = lstm(x)``. The
cells (``BasicRNNCell``, ``BasicLSTMCell``, ``LSTMCell``, ``GRUCell``, ``MultiRNNCell``)
and what Keras computes for each: ``rnn_cells.py``. The state is ``LSTMStateTuple(c, h)`` in
TF1, ``[h, c]`` after the output in Keras: ``state.h`` / ``state[1]`` and ``state.c`` /
``state[0]`` become the two names bound.

``sequence_length=lengths`` (``dynamic_rnn``): TF1 stops each sequence at its length, zero
outputs after it and the state carried through; Keras does the same over
``mask=tf.sequence_mask(lengths, maxlen=<time steps>)`` with ``zero_output_for_mask=True``.

``static_rnn`` runs the cell over a list of time steps (``tf.unstack(x, T, 1)``) and returns
one: the Keras layer takes ``tf.stack(steps, axis=1)`` and its outputs are
``tf.unstack(..., axis=1)`` again (stacking and unstacking are exact); its state is not migrated.

A stacked ``MultiRNNCell`` is Keras's ``RNN`` over its cells (``rnn_cells.py``);
``bidirectional_dynamic_rnn`` is ``Bidirectional(forward, backward_layer=<the same with go_backwards=True>,
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
from tfmodernize.names import bound_names, name_nodes
from tfmodernize.syntax import argument, commas, no_space_equal, source, statement_holding
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import walk
from tfmodernize.codemods.migrate.layers_to_keras.rnn_cells import (
    cell_line,
    cells_of,
    flag_args,
    keras_layer,
)

#: What a Keras recurrent layer object is named after.
OBJECT_NAMES = {
    "SimpleRNN": "simple_rnn",
    "LSTM": "lstm",
    "GRU": "gru",
    "RNN": "stacked_rnn",
    "Bidirectional": "bidirectional",
}


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
        line, made = cell_line(name.value, body, statement, tf) if isinstance(name, cst.Name) else (None, None)
        if line is None or made is None:
            raise Decline(
                call,
                f"`{source(name) if name is not None else key}` is not made by a TF1 RNN cell on a "
                "line of its own before it",
            )
        sides.append((line, *cells_of(made, tf)))
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
        constructor = [*cell.args, *flag_args(flags)]
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
        layers.append(keras_layer(cells, multi, comprehension, flags, spell))
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
