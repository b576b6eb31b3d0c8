"""Batch normalisations always in training mode inside a network function whose weights are
``tf.get_variable`` calls (layers-to-keras's ``scoped_plan``): ``tf.contrib.layers.batch_norm(x)``
with its default ``is_training=True``, or ``tf.layers.batch_normalization(x, training=True)``.

Such a batch normalisation normalises each batch by its own mean and variance, then shifts it by
``beta`` (and scales it by ``gamma``). Its moving mean and variance are never read: training mode
never reads them, and TF1 updated them only through ``UPDATE_OPS``. So, when nothing else reads
them either (no ``UPDATE_OPS``, no saver or checkpoint, no list of every variable, here or in a
file calling the class), it is written as TF2 ops over variables made once with the function's
own: ``beta`` (``tf.Variable(tf.zeros([64]), name="d/BatchNorm/beta")``, TF1's name), and at the
call ``mean, variance = tf.nn.moments(x, axes=[0, 1, 2])`` then ``tf.nn.batch_normalization(x,
mean, variance, offset=beta, scale=None, variance_epsilon=0.001)``: the ops TF1's unfused
kernel ran (its fused one computes the same values in another order of float operations). The
number of channels comes from the function's code (``shapes.StaticShapes``). Not a Keras
``BatchNormalization`` layer: a ``tf.Module`` does not list the variables of the Keras 3 layers
it holds, and their names would not carry the scope the program's variable lists test.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Optional

import libcst as cst

from tfmodernize.codemod import Decline
from tfmodernize.names import fresh_name
from tfmodernize.treewalk import contains
from tfmodernize.codemods.migrate.layers_to_keras.modules import instance_name
from tfmodernize.codemods.migrate.layers_to_keras.network import UNIT_BREAKS
from tfmodernize.codemods.migrate.layers_to_keras.static_shapes import StaticShapes
from tfmodernize.syntax import ancestors, source, statement_holding
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import walk


@dataclass(frozen=True)
class Kind:
    """One TF1 batch normalisation function: its parameters in order; the one switching
    training mode and its default; the one naming its scope and the default name; the defaults
    of ``center``/``scale``; the order TF1 made ``beta`` and ``gamma`` in; the parameters that
    only touch the moving statistics or the kernel TF1 picked (read by nothing here)."""

    parameters: tuple[str, ...]
    training: str
    training_default: bool
    name: str
    default_name: str
    center: bool
    scale: bool
    order: tuple[str, str]
    statistics_only: frozenset[str]


KINDS = {
    # TF 1.15 ``tensorflow/contrib/layers/python/layers/layers.py``.
    "contrib.layers.batch_norm": Kind(
        (
            "inputs",
            "decay",
            "center",
            "scale",
            "epsilon",
            "activation_fn",
            "param_initializers",
            "param_regularizers",
            "updates_collections",
            "is_training",
            "reuse",
            "variables_collections",
            "outputs_collections",
            "trainable",
            "batch_weights",
            "fused",
            "data_format",
            "zero_debias_moving_mean",
            "scope",
            "renorm",
            "renorm_clipping",
            "renorm_decay",
            "adjustment",
        ),
        "is_training",
        True,
        "scope",
        "BatchNorm",
        True,
        False,
        ("beta", "gamma"),
        frozenset({"decay", "updates_collections", "fused", "zero_debias_moving_mean", "renorm_decay"}),
    ),
    # TF 1.15 ``tf.layers.batch_normalization``.
    "layers.batch_normalization": Kind(
        (
            "inputs",
            "axis",
            "momentum",
            "epsilon",
            "center",
            "scale",
            "beta_initializer",
            "gamma_initializer",
            "moving_mean_initializer",
            "moving_variance_initializer",
            "beta_regularizer",
            "gamma_regularizer",
            "beta_constraint",
            "gamma_constraint",
            "training",
            "trainable",
            "name",
            "reuse",
            "renorm",
            "renorm_clipping",
            "renorm_momentum",
            "fused",
            "virtual_batch_size",
            "adjustment",
        ),
        "training",
        False,
        "name",
        "batch_normalization",
        True,
        True,
        ("gamma", "beta"),
        frozenset({"momentum", "moving_mean_initializer", "moving_variance_initializer", "renorm_momentum", "fused"}),
    ),
}
#: Parameters that may be written only as these literals (what they change is not reproduced).
LITERAL_ONLY = {"activation_fn": ("None",), "data_format": ("'NHWC'", '"NHWC"'), "axis": ("-1",), "renorm": ("False",)}
#: TF paths reading every variable TF1 made (so the moving statistics too), or the updates of them.
STATISTICS_READERS = (
    "global_variables",
    "all_variables",
    "moving_average_variables",
    "model_variables",
    "local_variables",
    "train.Saver",
    "train.Checkpoint",
    "train.ExponentialMovingAverage",
    "saved_model.",
    "GraphKeys.UPDATE_OPS",
    "GraphKeys.GLOBAL_VARIABLES",
    "GraphKeys.MOVING_AVERAGE_VARIABLES",
    "GraphKeys.MODEL_VARIABLES",
    "train.import_meta_graph",
)


@dataclass(frozen=True)
class TrainingNorm:
    """One batch normalisation always in training mode, as it is written in TF2: the variables
    made for it (attribute or name, the code making them, TF1's name), what replaces the call,
    and the moments line before its statement."""

    call: cst.Call
    statement: cst.SimpleStatementLine
    variables: tuple[tuple[str, str], ...]
    applied: str
    moments: str


def always_training(call: cst.Call, tf: TFNames) -> bool:
    """Whether ``call`` is one of the batch normalisations this module reads."""
    return tf.is_tf(call.func, *KINDS)


def read_norms(
    function: cst.FunctionDef,
    calls: list[cst.Call],
    tf: TFNames,
    parents: dict,
    shapes: StaticShapes,
    scope_of: Callable[[cst.CSTNode], str],
    taken: set[str],
    prefix: str,
    variable: Callable[[str], str],
    tf_root: str,
) -> list[TrainingNorm]:
    """The TF2 form of each batch normalisation of ``function`` (``calls``, in source order);
    ``taken``: the names (attributes or module names) already used, extended; ``prefix``: what
    a module-level name starts with (empty for attributes); ``variable(name)``: how the code
    reads a made variable (``self.beta``). Declines what is not always in training mode or not
    read here."""
    made: list[TrainingNorm] = []
    named: dict[str, int] = {}  # scope name -> how many unnamed ones of that default took it
    locals_taken = {n.value for n in walk(function, code_only=True) if isinstance(n, cst.Name)}
    for call in calls:
        kind = KINDS[tf.tf_symbol(call.func).path]
        given = _arguments(call, kind)
        training_mode = given.get(kind.training)
        if not (kind.training_default if training_mode is None else source(training_mode) == "True"):
            raise Decline(
                call,
                f"it is not always in training mode (`{kind.training}` is not True written out): in "
                "inference mode it reads the moving statistics, made and updated otherwise in Keras",
            )
        for parameter, value in given.items():
            if (
                parameter in ("inputs", kind.training, kind.name, "center", "scale", "trainable", "epsilon")
                or parameter in kind.statistics_only
            ):
                continue
            if source(value) not in LITERAL_ONLY.get(parameter, ()):
                raise Decline(call, f"it passes `{parameter}`, which this migration does not reproduce")
        flags = {}
        for flag, default in (("center", kind.center), ("scale", kind.scale), ("trainable", True)):
            value = given.get(flag)
            if value is not None and source(value) not in ("True", "False"):
                raise Decline(call, f"`{flag}={source(value)}` is not True or False written out")
            flags[flag] = default if value is None else source(value) == "True"
        epsilon = given.get("epsilon")
        if epsilon is not None and not isinstance(epsilon, (cst.Float, cst.Integer)):
            raise Decline(call, f"`epsilon={source(epsilon)}` is not a number written out")
        inputs = given.get("inputs")
        if not isinstance(inputs, cst.Name):
            raise Decline(call, "its input is computed in the call: bind it to a name first")
        statement = statement_holding(call, parents)
        if not isinstance(statement, cst.SimpleStatementLine) or any(
            isinstance(node, UNIT_BREAKS) for node in ancestors(call, parents) if contains(function.body, node)
        ):
            raise Decline(
                call,
                "it is not on a line of the function run once per call (it is in a loop, a condition "
                "or a comprehension)",
            )
        channels, rank = shapes.channels(function, inputs)
        if channels is None:
            raise Decline(
                call,
                f"the number of channels of `{inputs.value}` is not read from the code (a weight's "
                "shape through convolutions, matmul, reshape and the module's helpers)",
            )
        name = given.get(kind.name)
        if name is None:
            count = named.get(kind.default_name, 0)
            named[kind.default_name] = count + 1
            scope_name = kind.default_name if not count else f"{kind.default_name}_{count}"
        elif (
            isinstance(name, cst.SimpleString)
            and isinstance(name.evaluated_value, str)
            and re.fullmatch(r"[\w.-]+", name.evaluated_value)
            and name.evaluated_value not in named
        ):
            scope_name = name.evaluated_value
            named[scope_name] = 1
        else:
            raise Decline(call, f"its `{kind.name}` is not a string literal of its own")
        outer = scope_of(call)
        if "{" in outer:
            raise Decline(call, "it is made under a variable scope named by a parameter")
        tf1 = "/".join(part for part in (outer, scope_name) if part)
        variables, reads = [], {}
        for weight in kind.order:
            if not flags["center" if weight == "beta" else "scale"]:
                continue
            attribute = fresh_name(
                re.sub(r"\W+", "_", f"{prefix}{instance_name(scope_name)}_{weight}").lower().strip("_"), taken
            )
            fill = "zeros" if weight == "beta" else "ones"
            trainable = "" if flags["trainable"] else ", trainable=False"
            variables.append(
                (
                    attribute,
                    f"{tf_root}.Variable({tf_root}.{fill}([{channels}], dtype={tf_root}.float32), "
                    f'name="{tf1}/{weight}"{trainable})',
                )
            )
            reads[weight] = variable(attribute)
        mean = fresh_name(f"{inputs.value}_mean", locals_taken)
        variance = fresh_name(f"{inputs.value}_variance", locals_taken)
        # Every axis but the channels, as TF1 took them from the static rank (read where it runs when
        # the code does not say it).
        axes = (
            f"[{', '.join(str(axis) for axis in range(rank - 1))}]"
            if rank is not None
            else f"list(range(len({inputs.value}.shape) - 1))"
        )
        applied = (
            f"{tf_root}.nn.batch_normalization({inputs.value}, {mean}, {variance}, offset={reads.get('beta', 'None')}, "
            f"scale={reads.get('gamma', 'None')}, variance_epsilon={source(epsilon) if epsilon is not None else '0.001'})"
        )
        moments = f"{mean}, {variance} = {tf_root}.nn.moments({inputs.value}, axes={axes})"
        made.append(TrainingNorm(call, statement, tuple(variables), applied, moments))
    return made


def statistics_reader(module: cst.Module, tf: TFNames) -> Optional[str]:
    """What in ``module`` would read the moving statistics TF1 made (``tf.train.Saver`` at
    line N, ``tf.GraphKeys.UPDATE_OPS``...), or None."""
    for node in walk(module, code_only=True):
        if not isinstance(node, (cst.Attribute, cst.Name)):
            continue
        symbol = tf.tf_symbol(node)
        if symbol is not None and any(
            symbol.path == p or (p.endswith(".") and symbol.path.startswith(p)) for p in STATISTICS_READERS
        ):
            return f"`{source(node)}`"
    return None


def _arguments(call: cst.Call, kind: Kind) -> dict[str, cst.BaseExpression]:
    """Parameter -> value passed; declines ``*args`` and arguments TF1 does not take."""
    given: dict[str, cst.BaseExpression] = {}
    for position, arg in enumerate(call.args):
        if arg.star:
            raise Decline(call, "it passes `*args` or `**kwargs`")
        parameter = (
            arg.keyword.value
            if arg.keyword is not None
            else (kind.parameters[position] if position < len(kind.parameters) else None)
        )
        if parameter is None or parameter not in kind.parameters:
            raise Decline(call, f"it passes `{source(arg)}`, which TF1's function does not take")
        given[parameter] = arg.value
    return given
