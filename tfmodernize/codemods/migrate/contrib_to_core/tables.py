"""What TF 1.15's ``tf.contrib`` had that core TensorFlow computes too: where each name lived and
was re-exported (``tf.contrib.slim.dropout`` is ``tf.contrib.layers.dropout``), the pure aliases
(``tf.contrib.rnn.LSTMCell`` is ``tf.nn.rnn_cell.LSTMCell``), the calls rewritten and their
parameters, and the literal values the rewrites read."""

from __future__ import annotations

import re
from typing import Optional, Union

import libcst as cst

from tfmodernize.analysis.contrib import CELLS, DISTRIBUTIONS, MODULES, NEST, RUNS, SPELLINGS
from tfmodernize.analysis.tf1_api import ESTIMATOR_HOOKS
from tfmodernize.codemods.migrate.contrib_to_core import bipartite_match, saved_model_reader

#: core's ``VarianceScaling`` divides a truncated normal's standard deviation by this
#: (``scipy.stats.truncnorm.std(a=-2, b=2)``); contrib multiplied the variance by 1.3 instead.
TRUNCATION = "0.87962566103423978"

#: contrib names that are core objects under another name, beyond the re-exports of
#: ``analysis.contrib`` (spelled where TF 1.15's users reached them): contrib name -> core name.
#: ``contrib.compiler.jit.experimental_jit_scope`` was ``tensorflow.python.compiler.jit``'s
#: function, which TF 2.x exports as ``tf.xla.experimental.jit_scope``; contrib.tfprof's
#: ``Profiler`` was ``tensorflow.python.profiler.model_analyzer.Profiler``.
MOVED = {
    "contrib.compiler.jit.experimental_jit_scope": "xla.experimental.jit_scope",
    "contrib.tfprof.model_analyzer.Profiler": "profiler.Profiler",
}
#: contrib.tfprof's option dicts -> the ``tf.profiler.ProfileOptionBuilder`` method returning a
#: dict that builds the same options (the keys it adds, ``min_occurrence`` 0 and ``step`` -1, are
#: the values TF reads for them when absent; the one it lacks, ``dump_to_file`` '', is too).
_TFPROF = "contrib.tfprof.model_analyzer"
PROFILE_OPTIONS = {
    f"{_TFPROF}.TRAINABLE_VARS_PARAMS_STAT_OPTIONS": "trainable_variables_parameter",
    f"{_TFPROF}.FLOAT_OPS_OPTIONS": "float_operation",
}
#: contrib.tfprof's deprecated wrappers -> the core function they called, with their
#: parameters renamed: contrib parameter -> core parameter (None: positional, the first).
PROFILER_CALLS = {
    f"{_TFPROF}.print_model_analysis": (
        "profiler.profile",
        {
            "graph": None,
            "run_meta": "run_meta",
            "op_log": "op_log",
            "tfprof_cmd": "cmd",
            "tfprof_options": "options",
        },
    ),
    f"{_TFPROF}.advise": (
        "profiler.advise",
        {"graph": None, "run_meta": "run_meta", "tfprof_options": "options"},
    ),
}

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
    **{f"contrib.distributions.{name}": f"distributions.{name}" for name in DISTRIBUTIONS},
    **MOVED,
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
    "contrib.saved_model.python.saved_model.reader.read_saved_model": saved_model_reader.PARAMETERS,
    "contrib.lookup.index_table_from_tensor": (
        "mapping",
        "num_oov_buckets",
        "default_value",
        "hasher_spec",
        "dtype",
        "name",
    ),
    "contrib.lookup.index_to_string_table_from_tensor": ("mapping", "default_value", "name"),
    **{name: tuple(parameters) for name, (_, parameters) in PROFILER_CALLS.items()},
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


#: contrib.saved_model's reader of a SavedModel's proto, written into the file
#: (``saved_model_reader.py``); imported from its module, its one spelling.
READER_MODULE = "contrib.saved_model"
READER = f"{READER_MODULE}.python.saved_model.reader.read_saved_model"

#: The names spelled as they are canonical: one spelling each.
_AS_SPELLED = frozenset((*LOOKUP_TABLES, *MOVED, *PROFILE_OPTIONS, *PROFILER_CALLS, READER))


def canonical(path: Optional[str]) -> Optional[str]:
    """``contrib.layers.dropout`` for any TF 1.15 spelling of it (``contrib.slim.dropout``), else None."""
    if path is None:
        return None
    if path in _AS_SPELLED:
        return path
    return SPELLINGS.get(path) or _BIPARTITE_SPELLINGS.get(path)


def handles(path: str) -> bool:
    """Whether ``tf.<path>`` is a contrib name this codemod replaces, or declines with a finding."""
    found = canonical(path)
    return found is not None and (found in RENAMES or found in CALLS or found in PROFILE_OPTIONS)


#: Every spelling of the names this codemod handles.
HANDLED = frozenset(
    path for spellings in (SPELLINGS, _BIPARTITE_SPELLINGS, _AS_SPELLED) for path in spellings if handles(path)
)
#: The modules a file may bind to a name of its own (``slim = tf.contrib.slim``,
#: ``nest = tf.contrib.framework.nest``) and read a handled name through: every contrib module
#: holding one (and ``estimator``, which holds the session-run hooks).
LOCAL_MODULES = MODULES | frozenset(
    ".".join(parts[:end])
    for parts in (path.split(".") for path in HANDLED if path.startswith("contrib."))
    for end in range(2, len(parts))
)


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
