"""The TF1 RNN cells layers-to-keras migrates, read in Keras's terms (``Cell``), and the Keras
recurrent layer over them; ``rnn.py`` reads the run (``dynamic_rnn``...) holding them.

``cell = tf.nn.rnn_cell.LSTMCell(64)`` is ``tf.keras.layers.LSTM(64)``. What TF1 computed and
what Keras computes, cell by cell:

- ``BasicRNNCell`` -> ``SimpleRNN``: ``tanh([x, h] K + b)`` is ``tanh(x W + h U + b)`` with
  ``W``/``U`` the rows of ``K``.
- ``BasicLSTMCell`` / ``LSTMCell`` (no peepholes, clipping, projection or initializer) ->
  ``LSTM``. TF1's fused kernel has its gates in the order input, cell, forget, output; Keras's
  input, forget, cell, output. TF1 adds ``forget_bias`` (1.0) to the forget gate at every step;
  Keras's ``unit_forget_bias=True`` (its default) starts that gate's bias at 1.0 instead: the
  same sums at the start, the same gradients after, so the same training (0.0 is
  ``unit_forget_bias=False``; other values decline).
- ``GRUCell`` -> ``GRU(reset_after=False)``: TF1 resets the state before the candidate's
  matrix product, which is Keras's ``reset_after=False``; TF1's gates kernel holds reset then
  update, Keras's kernel update, reset, candidate.

A ``MultiRNNCell`` over cells made in it (``[LSTMCell(8) for _ in range(2)]``) is
``tf.keras.layers.RNN([tf.keras.layers.LSTMCell(8) for _ in range(2)])``, Keras's stacked
cells (same order, each layer's outputs the next one's inputs).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import libcst as cst

from tfmodernize.codemod import Decline
from tfmodernize.names import name_nodes, names_read
from tfmodernize.syntax import argument, commas, is_none, no_space_equal, source
from tfmodernize.tfsymbols import TFNames

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


def flag_args(flags: list[str]) -> list[cst.Arg]:
    """``return_sequences=True, ...``: each of ``flags`` passed as True."""
    return [cst.Arg(cst.Name("True"), keyword=cst.Name(flag), equal=no_space_equal()) for flag in flags]


def keras_layer(
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
        return cst.Call(spell(f"keras.layers.{cell.keras_class}"), commas([*cell.args, *flag_args(flags), *named]))

    def keras_cell(cell: Cell) -> cst.Call:
        return cst.Call(spell(f"keras.layers.{cell.keras_class}Cell"), commas(list(cell.args)))

    stack: cst.BaseExpression
    if comprehension is not None:
        stack = comprehension.with_changes(elt=keras_cell(cells[0]))
    else:
        stack = cst.List(commas([cst.Element(keras_cell(cell)) for cell in cells]))
    return cst.Call(spell("keras.layers.RNN"), commas([cst.Arg(stack), *flag_args(flags)]))


def cells_of(made: cst.Call, tf: TFNames) -> tuple[list[Cell], bool, Optional[cst.ListComp]]:
    """The cells ``made`` is: one cell, or a ``MultiRNNCell`` over a list of cells made in it
    (``[cell(8), cell(8)]`` or ``[cell(8) for _ in range(2)]``)."""
    if not tf.is_tf(made.func, *(f"{m}MultiRNNCell" for m in CELL_MODULES)):
        return [read_cell(made, tf)], False, None
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
        return [read_cell(e.value, tf) for e in stack.elements], True, None
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
        cell = read_cell(stack.elt, tf)
        return [cell] * count, True, stack
    raise Decline(made, "its MultiRNNCell is not given a list of cells made in it")


def read_cell(cell: cst.Call, tf: TFNames) -> Cell:
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


def cell_line(
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


def _number(node: cst.BaseExpression) -> Optional[float]:
    if isinstance(node, (cst.Float, cst.Integer)):
        return float(node.value)
    return None
