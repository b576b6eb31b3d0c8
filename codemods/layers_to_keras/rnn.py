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

``verify --align-variables`` hands TF1's fused kernels to Keras split and reordered this way
(``tfmodernize/verify/child.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import libcst as cst

from tfmodernize.codemod import Decline
from tfmodernize.names import name_nodes
from tfmodernize.syntax import argument, is_none, no_space_equal, source
from tfmodernize.tfsymbols import TFNames

#: TF1 cell class -> (Keras layer, the TF1 name of its variable scope, parameters it may pass).
CELLS = {
    "BasicRNNCell": ("SimpleRNN", "basic_rnn_cell", ("num_units", "activation", "name")),
    "BasicLSTMCell": ("LSTM", "basic_lstm_cell", ("num_units", "forget_bias", "state_is_tuple", "activation", "name")),
    "LSTMCell": ("LSTM", "lstm_cell", ("num_units", "use_peepholes", "cell_clip", "initializer", "num_proj",
                                       "proj_clip", "forget_bias", "state_is_tuple", "activation", "name")),
    "GRUCell": ("GRU", "gru_cell", ("num_units", "activation", "kernel_initializer", "bias_initializer", "name")),
}
#: What a Keras recurrent layer object is named after.
OBJECT_NAMES = {"SimpleRNN": "simple_rnn", "LSTM": "lstm", "GRU": "gru"}
#: Where the cells live in TF1.
CELL_MODULES = ("nn.rnn_cell.", "contrib.rnn.")
#: LSTMCell options Keras's LSTM has no counterpart for: declined unless left at their default.
UNSUPPORTED = {"use_peepholes": "False", "cell_clip": "None", "initializer": "None", "num_proj": "None",
               "proj_clip": "None", "kernel_initializer": "None", "bias_initializer": "None", "state_is_tuple": "True"}


@dataclass
class RecurrentSite:
    """``outputs, state = tf.nn.dynamic_rnn(cell, x, ...)`` with the cell made on a line of its
    own: the Keras layer's class and arguments, the cell's line (it goes), the new assignment
    target and the state reads to replace (LSTM)."""
    keras_class: str
    constructor: list[cst.Arg]
    tf1_name: str  # the cell's variable scope: its ``name=``, else TF1's default
    named: Optional[str]  # the ``name=`` passed
    cell_line: cst.SimpleStatementLine
    assign: cst.Assign
    outputs: cst.BaseAssignTargetExpression
    state: Optional[str]
    #: LSTM state reads -> "h" or "c".
    reads: dict[int, tuple[cst.BaseExpression, str]] = field(default_factory=dict)

    def target(self, names: dict[str, str]) -> cst.BaseAssignTargetExpression:
        """What the call's result is bound to: ``outputs``, ``outputs, state`` or
        ``outputs, state_h, state_c``."""
        if self.state is None:
            return self.outputs
        parts = [self.outputs, cst.Name(self.state)] if self.keras_class != "LSTM" else \
            [self.outputs, cst.Name(names["h"]), cst.Name(names["c"])]
        return cst.Tuple([cst.Element(p, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                          for p in parts[:-1]] + [cst.Element(parts[-1])], lpar=[], rpar=[])


def read_site(call: cst.Call, body: list[cst.BaseStatement], parents: dict, tf: TFNames) -> RecurrentSite:
    """The recurrent layer ``call`` (a ``tf.nn.dynamic_rnn``) becomes, or Decline. ``body``:
    the statements of the block holding it, where the cell must be made."""
    for keyword, default in (("sequence_length", None), ("initial_state", None), ("time_major", "False"),
                             ("scope", None), ("parallel_iterations", None), ("swap_memory", "False")):
        value = argument(call, {"sequence_length": 2, "initial_state": 3, "time_major": 7}.get(keyword), keyword)
        if value is not None and not (is_none(value) if default is None else source(value) == default):
            raise Decline(call, f"it passes `{keyword}`, which the Keras layer does not take the same way")
    dtype = argument(call, 4, "dtype")
    if dtype is not None and not tf.is_tf(dtype, "float32"):
        raise Decline(call, f"`dtype={source(dtype)}`: only float32 recurrent layers are migrated")
    cell_name, inputs = argument(call, 0, "cell"), argument(call, 1, "inputs")
    if not isinstance(cell_name, cst.Name) or inputs is None:
        raise Decline(call, "its cell is not a name bound on a line of its own")
    statement = statement_holding(call, parents)
    assign = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 else None
    if not (isinstance(assign, cst.Assign) and assign.value is call and len(assign.targets) == 1
            and isinstance(assign.targets[0].target, (cst.Tuple, cst.List))
            and len(assign.targets[0].target.elements) == 2):
        raise Decline(call, "it is not `outputs, state = tf.nn.dynamic_rnn(...)` on a line of its own")
    outputs, state = (e.value for e in assign.targets[0].target.elements)
    if not isinstance(state, cst.Name):
        raise Decline(call, "its state is not bound to a name")
    cell_line, cell = _cell(cell_name.value, body, statement, tf)
    if cell is None or cell_line is None:
        raise Decline(call, f"`{cell_name.value}` is not made by a TF1 RNN cell on a line of its own before it")
    kind = tf.tf_symbol(cell.func).path.rsplit(".", 1)[-1]
    keras_class, tf1_name, parameters = CELLS[kind]
    passed: dict[str, cst.BaseExpression] = {}
    for position, arg in enumerate(cell.args):
        if arg.star:
            raise Decline(cell, "it passes `*args` or `**kwargs`")
        key = arg.keyword.value if arg.keyword is not None else (parameters[position] if position < len(parameters) else None)
        if key not in parameters:
            raise Decline(cell, f"`{kind}` takes `{key}` here, which the Keras layer has no counterpart for")
        passed[key] = arg.value
    for key, default in UNSUPPORTED.items():
        if key in passed and source(passed[key]) != default:
            raise Decline(cell, f"`{key}={source(passed[key])}` has no Keras counterpart")
    if "num_units" not in passed:
        raise Decline(cell, "its number of units is not passed")
    constructor = [cst.Arg(passed["num_units"])]
    if not is_none(passed.get("activation")):
        constructor.append(cst.Arg(passed["activation"], keyword=cst.Name("activation"), equal=no_space_equal()))
    forget = passed.get("forget_bias")
    if forget is not None:
        value = _number(forget)
        if value not in (0.0, 1.0):
            raise Decline(cell, f"`forget_bias={source(forget)}`: Keras starts the forget gate's bias at 1.0 or 0.0")
        if value == 0.0:
            constructor.append(cst.Arg(cst.Name("False"), keyword=cst.Name("unit_forget_bias"), equal=no_space_equal()))
    if keras_class == "GRU":
        constructor.append(cst.Arg(cst.Name("False"), keyword=cst.Name("reset_after"), equal=no_space_equal()))
    named = passed.get("name")
    if isinstance(named, cst.SimpleString) and isinstance(named.evaluated_value, str):
        tf1_name = named.evaluated_value
    elif named is not None:
        raise Decline(cell, "its name is not a string literal")
    reads: dict[int, tuple[cst.BaseExpression, str]] = {}
    state_uses = [n for s in body for n in name_nodes(s) if n.value == state.value and n is not state]
    if keras_class == "LSTM" and state_uses:
        for use in state_uses:
            read = _lstm_read(use, parents)
            if read is None:
                raise Decline(use, f"the LSTM state `{state.value}` is used other than as `.h`, `.c`, `[0]` or `[1]`")
            reads[id(read[0])] = read
    if state_uses and any(statement_holding(use, parents) is statement for use in state_uses):
        raise Decline(call, "the state is rebound on the same line")
    site = RecurrentSite(keras_class, constructor, tf1_name, tf1_name if named is not None else None, cell_line, assign, outputs,
                         state.value if state_uses else None, reads)
    flags = ["return_sequences", *(["return_state"] if site.state is not None else [])]
    site.constructor += [cst.Arg(cst.Name("True"), keyword=cst.Name(flag), equal=no_space_equal()) for flag in flags]
    if named is not None:
        site.constructor.append(cst.Arg(named, keyword=cst.Name("name"), equal=no_space_equal()))
    return site


def is_cell(call: cst.Call, tf: TFNames) -> bool:
    return tf.is_tf(call.func, *(f"{m}{c}" for m in CELL_MODULES for c in CELLS))


def _cell(name: str, body: list[cst.BaseStatement], run: cst.BaseStatement,
          tf: TFNames) -> tuple[Optional[cst.SimpleStatementLine], Optional[cst.Call]]:
    """The ``name = tf.nn.rnn_cell.X(...)`` line before ``run`` in ``body``, when ``name`` is
    bound there only and read by ``run`` only."""
    found: tuple[Optional[cst.SimpleStatementLine], Optional[cst.Call]] = (None, None)
    uses = 0
    for statement in body:
        if statement is run:
            break
        if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 \
                and isinstance(statement.body[0], cst.Assign) and len(statement.body[0].targets) == 1 \
                and isinstance(statement.body[0].targets[0].target, cst.Name) \
                and statement.body[0].targets[0].target.value == name:
            value = statement.body[0].value
            found = (statement, value) if isinstance(value, cst.Call) and is_cell(value, tf) else (None, None)
            continue
        uses += sum(1 for n in name_nodes(statement) if n.value == name)
    later = run is not None and sum(1 for s in body[body.index(run):] for n in name_nodes(s) if n.value == name)
    return found if uses == 0 and later == 1 else (None, None)


def _lstm_read(use: cst.Name, parents: dict) -> Optional[tuple[cst.BaseExpression, str]]:
    """``state.h`` / ``state[1]`` -> (that node, "h"); ``state.c`` / ``state[0]`` -> "c"."""
    holder = parents.get(id(use))
    if isinstance(holder, cst.Attribute) and holder.value is use and holder.attr.value in ("h", "c"):
        return holder, holder.attr.value
    if isinstance(holder, cst.Subscript) and holder.value is use and len(holder.slice) == 1 \
            and isinstance(holder.slice[0].slice, cst.Index) \
            and isinstance(holder.slice[0].slice.value, cst.Integer) \
            and holder.slice[0].slice.value.value in ("0", "1"):
        return holder, "c" if holder.slice[0].slice.value.value == "0" else "h"
    return None


def statement_holding(node: cst.CSTNode, parents: dict) -> Optional[cst.CSTNode]:
    """The statement ``node`` is part of."""
    holder = parents.get(id(node))
    while holder is not None and not isinstance(holder, cst.BaseStatement):
        holder = parents.get(id(holder))
    return holder


def _number(node: cst.BaseExpression) -> Optional[float]:
    if isinstance(node, (cst.Float, cst.Integer)):
        return float(node.value)
    return None
