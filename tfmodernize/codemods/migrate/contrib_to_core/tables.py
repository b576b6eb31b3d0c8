"""What TF 1.15's ``tf.contrib`` had that core TensorFlow computes too: where each name lived and
was re-exported (``tf.contrib.slim.dropout`` is ``tf.contrib.layers.dropout``), the pure aliases
(``tf.contrib.rnn.LSTMCell`` is ``tf.nn.rnn_cell.LSTMCell``), the calls rewritten and their
parameters, and the literal values the rewrites read."""

from __future__ import annotations

import re
from typing import Optional, Union

import libcst as cst

from tfmodernize.analysis.contrib import CELLS, NEST, RUNS, SPELLINGS
from tfmodernize.analysis.tf1_api import ESTIMATOR_HOOKS
from tfmodernize.codemods.migrate.contrib_to_core import bipartite_match

#: core's ``VarianceScaling`` divides a truncated normal's standard deviation by this
#: (``scipy.stats.truncnorm.std(a=-2, b=2)``); contrib multiplied the variance by 1.3 instead.
TRUNCATION = "0.87962566103423978"

#: Pure aliases: contrib name -> TF1 core name, renamed wherever named (called or not).
RENAMES = {
    **{
        f"contrib.framework.{name}": f"train.{name}"
        for name in ("get_or_create_global_step", "get_global_step", "create_global_step")
    },
    **{f"contrib.rnn.{name}": f"nn.rnn_cell.{name}" for name in CELLS},
    **{f"contrib.rnn.{name}": f"nn.{name}" for name in RUNS},
    **{f"estimator.{name}": f"train.{name}" for name in ESTIMATOR_HOOKS},
    **{f"contrib.framework.nest.{name}": f"nest.{name}" for name in NEST},
}
#: Calls rewritten as the core code they ran -> their parameters, in order.
CALLS = {
    "contrib.layers.xavier_initializer": ("uniform", "seed", "dtype"),
    "contrib.layers.xavier_initializer_conv2d": ("uniform", "seed", "dtype"),
    "contrib.layers.variance_scaling_initializer": ("factor", "mode", "uniform", "seed", "dtype"),
    "contrib.layers.l1_regularizer": ("scale", "scope"),
    "contrib.layers.l2_regularizer": ("scale", "scope"),
    "contrib.layers.dropout": (
        "inputs",
        "keep_prob",
        "noise_shape",
        "is_training",
        "outputs_collections",
        "scope",
        "seed",
    ),
    "contrib.metrics.accuracy": ("predictions", "labels", "weights", "name"),
    "contrib.image.bipartite_match": bipartite_match.PARAMETERS,
    "contrib.lookup.index_table_from_tensor": (
        "mapping",
        "num_oov_buckets",
        "default_value",
        "hasher_spec",
        "dtype",
        "name",
    ),
    "contrib.lookup.index_to_string_table_from_tensor": ("mapping", "default_value", "name"),
}
#: contrib's vocabulary tables: TF1's own ``lookup_ops`` functions under another parameter name
#: (``mapping``), which TF 2.x exports nowhere: written as the core table they made.
LOOKUP_TABLES = (
    "contrib.lookup.index_table_from_tensor",
    "contrib.lookup.index_to_string_table_from_tensor",
)
#: contrib's greedy bipartite matcher, written into the file (``bipartite_match.py``).
BIPARTITE = "contrib.image.bipartite_match"
#: The contrib module holding it: no other name under it has a rewrite here.
IMAGE = "contrib.image"
#: Its spellings: through the module and the deep path its users imported it from.
_IMAGE_MODULES = (IMAGE, "contrib.image.python.ops.image_ops")
_BIPARTITE_SPELLINGS = {f"{module}.bipartite_match": BIPARTITE for module in _IMAGE_MODULES}
INITIALIZERS = (
    "contrib.layers.xavier_initializer",
    "contrib.layers.xavier_initializer_conv2d",
    "contrib.layers.variance_scaling_initializer",
)
REGULARIZERS = {
    "contrib.layers.l2_regularizer": "{tf}.nn.l2_loss({w})",
    "contrib.layers.l1_regularizer": "{tf}.reduce_sum({tf}.abs({w}))",
}
MODES = {"FAN_IN": "fan_in", "FAN_OUT": "fan_out", "FAN_AVG": "fan_avg"}
#: Where an expression needs no parentheses of its own: an argument, a right-hand side, an element.
SAFE_PLACES = (cst.Arg, cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Return, cst.Expr, cst.Element, cst.DictElement)
FLOAT64 = re.compile(r"\bfloat64\b|\bdouble\b")
BY_NAME = re.compile(r"by_name|get_tensor\b|get_operation\b")


def canonical(path: Optional[str]) -> Optional[str]:
    """``contrib.layers.dropout`` for any TF 1.15 spelling of it (``contrib.slim.dropout``), else None."""
    if path is None:
        return None
    if path in LOOKUP_TABLES:
        return path
    return SPELLINGS.get(path) or _BIPARTITE_SPELLINGS.get(path)


def handles(path: str) -> bool:
    """Whether ``tf.<path>`` is a contrib name this codemod replaces, or declines with a finding."""
    found = canonical(path)
    return found is not None and (found in RENAMES or found in CALLS)


def number(node: Optional[cst.BaseExpression]) -> Optional[Union[int, float]]:
    """The value of a numeric literal (``0.5``, ``-1``, ``1e-4``), else None."""
    negative = False
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        negative, node = isinstance(node.operator, cst.Minus), node.expression
    if isinstance(node, (cst.Integer, cst.Float)) and not node.lpar:
        value = node.evaluated_value
        return -value if negative else value
    return None


def boolean(node: Optional[cst.BaseExpression], default: bool) -> Optional[bool]:
    """``True``/``False`` written out (``default`` when not passed), else None."""
    if node is None:
        return default
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return node.value == "True"
    return None
