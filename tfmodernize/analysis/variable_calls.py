"""A variable-making call read: ``made_variable(call, tf) -> MadeVariable | Unknown``.

The one reader of a ``tf.Variable`` / ``tf.get_variable`` call: what it makes (``MadeVariable``:
the TF1 graph name it is given, initial value, shape, dtype, trainability, collections) or why
that cannot be read (``Unknown``). Every variable inventory reads calls through it
(``analysis/module_variables.py``'s ``inventory``, session-to-function's ``GraphUnit``), so they share
one ``trainable=`` policy (``trainable_flag``): absent or ``True`` is trainable, ``False`` is
not, anything else (``trainable=is_training``) is ``Unknown`` and the inventory declines.

With it: a call's arguments by parameter name (``arguments``), and the calls that may make
variables no inventory can list (``creates_opaque_variables``: layers, contrib, RNNs, Keras)."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping, Optional, Union

import libcst as cst

from tfmodernize.analysis.tf1_api import VARIABLE_MAKERS
from tfmodernize.codemod import Decline
from tfmodernize.tfsymbols import TFNames

#: get_variable's parameters, in order.
PARAMETERS = (
    "name",
    "shape",
    "dtype",
    "initializer",
    "regularizer",
    "trainable",
    "collections",
    "caching_device",
    "partitioner",
    "validate_shape",
    "use_resource",
    "custom_getter",
    "constraint",
    "synchronization",
    "aggregation",
)
#: tf.Variable's parameters (TF1's and TF2's); only the first two have the same position in
#: both, so an argument after them must be passed by keyword to be read.
VARIABLE_PARAMETERS = (
    "initial_value",
    "trainable",
    "collections",
    "validate_shape",
    "caching_device",
    "name",
    "variable_def",
    "dtype",
    "expected_shape",
    "import_scope",
    "constraint",
    "use_resource",
    "synchronization",
    "aggregation",
    "shape",
    "experimental_enable_variable_lifting",
)
VARIABLE_POSITIONAL = 2
#: TF path prefixes whose calls may create trainable variables an inventory cannot name.
OPAQUE_CREATORS = (
    "layers.",
    "contrib.",
    "estimator.",
    "nn.rnn_cell.",
    "nn.dynamic_rnn",
    "nn.static_rnn",
    "nn.bidirectional_dynamic_rnn",
    "Module",
    "saved_model.",
    "train.import_meta_graph",
    "import_graph_def",
)
#: Keras path prefixes whose calls create layers or models (and so variables).
KERAS_CREATORS = ("layers.", "Sequential", "Model", "models.", "applications.")


@dataclass(frozen=True)
class Unknown:
    """A variable-making call whose variable cannot be read, and why (said in a decline)."""

    reason: str


@dataclass(frozen=True)
class MadeVariable:
    """What one ``tf.Variable`` / ``tf.get_variable`` call makes, read off its arguments."""

    call: cst.Call
    maker: str  # the TF path called: "Variable" or "get_variable"
    #: The name TF1 gives it in its scope, without the scope (``"Variable"`` for a
    #: ``tf.Variable`` without ``name``); None when the name is not a string literal.
    name: Optional[str]
    trainable: bool
    initial_value: Optional[cst.BaseExpression] = None  # tf.Variable's
    initializer: Optional[cst.BaseExpression] = None  # tf.get_variable's
    shape: Optional[cst.BaseExpression] = None
    dtype: Optional[cst.BaseExpression] = None
    collections: Optional[cst.BaseExpression] = None
    #: Every argument by parameter name.
    arguments: Mapping[str, cst.BaseExpression] = field(default_factory=lambda: MappingProxyType({}))


def trainable_flag(value: Optional[cst.BaseExpression]) -> Union[bool, Unknown]:
    """The one ``trainable=`` policy: absent or ``True`` -> trainable, ``False`` -> not,
    anything else (a name, an expression) -> ``Unknown``, since it is decided when the program
    runs and an inventory listing it either way may be wrong."""
    if value is None:
        return True
    if isinstance(value, cst.Name) and value.value in ("True", "False"):
        return value.value == "True"
    return Unknown("a variable whose `trainable` is not a literal")


def is_variable_maker(call: cst.Call, tf: TFNames) -> bool:
    """``tf.Variable(...)`` or ``tf.get_variable(...)`` (by qualified name)."""
    symbol = tf.tf_symbol(call.func)
    return symbol is not None and symbol.path in VARIABLE_MAKERS


def made_variable(call: cst.Call, tf: TFNames) -> Optional[Union[MadeVariable, Unknown]]:
    """The variable ``call`` makes (``MadeVariable``), or why it cannot be read (``Unknown``:
    ``*args``/``**kwargs``, a ``tf.Variable`` argument after ``trainable`` given by position,
    a parameter the maker does not have, a non-literal ``trainable``); None when ``call`` is
    not ``tf.Variable`` / ``tf.get_variable``."""
    symbol = tf.tf_symbol(call.func)
    if symbol is None or symbol.path not in VARIABLE_MAKERS:
        return None
    maker = symbol.path
    parameters = VARIABLE_PARAMETERS if maker == "Variable" else PARAMETERS
    positional = VARIABLE_POSITIONAL if maker == "Variable" else len(PARAMETERS)
    found, problem = _by_parameter(call, parameters, positional)
    if problem == "unreadable":
        return Unknown(f"the arguments of a `tf.{maker}` could not be read")
    if problem is not None:
        return Unknown(f"a `tf.{maker}` given `{problem}`, which it has no parameter for")
    trainable = trainable_flag(found.get("trainable"))
    if isinstance(trainable, Unknown):
        return trainable
    name = found.get("name")
    if maker == "Variable" and name is None:
        base: Optional[str] = "Variable"
    elif isinstance(name, cst.SimpleString) and isinstance(name.evaluated_value, str):
        base = name.evaluated_value
    else:
        base = None
    return MadeVariable(
        call,
        maker,
        base,
        trainable,
        initial_value=found.get("initial_value"),
        initializer=found.get("initializer"),
        shape=found.get("shape"),
        dtype=found.get("dtype"),
        collections=found.get("collections"),
        arguments=MappingProxyType(found),
    )


def creates_opaque_variables(call: cst.Call, tf: TFNames) -> bool:
    """Whether ``call`` may create trainable variables an inventory cannot list."""
    symbol = tf.tf_symbol(call.func)
    if symbol is not None and (
        symbol.path in VARIABLE_MAKERS or any(symbol.path.startswith(prefix) for prefix in OPAQUE_CREATORS)
    ):
        return True
    keras = tf.keras_path(call.func)
    return keras is not None and any(keras.startswith(prefix) for prefix in KERAS_CREATORS)


def arguments(
    call: cst.Call,
    parameters: tuple[str, ...] = PARAMETERS,
    at: Optional[cst.Call] = None,
    what: str = "tf.get_variable",
) -> dict[str, cst.BaseExpression]:
    """``call``'s arguments by parameter name (``parameters`` in positional order); a
    decline at ``at`` (default: ``call``) for ``*args`` or a parameter ``what`` lacks."""
    found, problem = _by_parameter(call, parameters, len(parameters))
    if problem == "unreadable":
        raise Decline(at or call, f"the arguments of {what} could not be read")
    if problem is not None:
        raise Decline(at or call, f"`{problem}` is given to {what}, which this migration does not carry over")
    return found


def _by_parameter(
    call: cst.Call, parameters: tuple[str, ...], positional: int
) -> tuple[dict[str, cst.BaseExpression], Optional[str]]:
    """``call``'s arguments by parameter name (the first ``positional`` of ``parameters`` may
    be passed by position), and the problem reading them: None, ``"unreadable"`` (``*args``,
    ``**kwargs``, one positional argument too many) or the keyword of no parameter."""
    found: dict[str, cst.BaseExpression] = {}
    for position, arg in enumerate(call.args):
        if arg.star or (arg.keyword is None and position >= positional):
            return found, "unreadable"
        key = arg.keyword.value if arg.keyword is not None else parameters[position]
        if key not in parameters:
            return found, key
        found[key] = arg.value
    return found, None
