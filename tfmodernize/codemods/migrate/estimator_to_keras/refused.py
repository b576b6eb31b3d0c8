"""What a model_fn may not use, for estimator-to-keras: the TF names the Estimator's graph gave
it, what makes variables each call, graph-only machinery (``refuse_unsupported``), and the ops
drawing random numbers, whose place in the random-op order matters (``draws_random``)."""

from __future__ import annotations

import libcst as cst

from tfmodernize.analysis.estimator import mode_key
from tfmodernize.analysis.variable_calls import creates_opaque_variables
from tfmodernize.codemod import Decline
from tfmodernize.syntax import source
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import walk

#: TF names a model_fn may not use: what the Estimator's graph gave it (the global step,
#: collections, summaries written by its hooks, scaffolding), what makes variables each call
#: (layers), and graph-only machinery. Paths under ``tf.``, or their prefixes.
REFUSED = {
    "layers.": "makes its variables each time it is called (make it a Keras layer first)",
    "contrib.": "is gone from TF 2.x",
    "metrics.": "is a TF1 streaming metric outside `eval_metric_ops`",
    "summary.": "writes summaries through the Estimator's summary hook",
    "train.": "reads the Estimator's training machinery (global step, hooks, schedules)",
    "estimator.": "is Estimator API",
    "feature_column.": "reads feature columns, whose layers make variables each call",
    "get_variable": "makes a variable away from the model_fn's top level",
    "Variable": "makes a variable away from the model_fn's top level",
    "variable_scope": "names variables through a variable scope",
    "get_collection": "reads graph collections",
    "add_to_collection": "writes graph collections",
    "losses.get_": "reads graph collections",
    "losses.add_loss": "writes graph collections",
    "control_dependencies": "orders graph ops by control dependencies",
    "get_default_graph": "reads the Estimator's graph",
    "global_variables": "reads graph collections",
    "trainable_variables": "reads graph collections",
    "local_variables": "reads graph collections",
    "assign": "assigns variables in the graph",
    "py_func": "runs Python in the graph",
    "Print": "prints through a graph op",
    "compat.v1.": "is TF1 API",
    "tpu.": "runs on TPUs through the Estimator",
}
#: Paths of ops that draw random numbers (their place in the random-op order matters).
RANDOM_PREFIXES = ("random.", "random_", "truncated_normal", "multinomial", "nn.dropout", "nn.experimental.stateless")


def refuse_unsupported(node: cst.CSTNode, tf: TFNames, model_names: set[str]) -> None:
    """Decline where ``node`` uses a ``REFUSED`` TF name, calls what makes variables each time it
    is called, or reads one of ``model_names`` (the optimizer, its update or a metric, which
    go)."""
    for child in walk(node, code_only=True):
        if isinstance(child, cst.Name) and child.value in model_names:
            raise Decline(child, f"`{child.value}` (the optimizer, its update or a metric) is read elsewhere")
        if isinstance(child, cst.Call) and creates_opaque_variables(child, tf):
            symbol = tf.tf_symbol(child.func)
            what = f"tf.{symbol.path}" if symbol is not None else source(child.func)
            raise Decline(child, f"the model_fn calls {what}, which makes variables each time it is called")
        if not isinstance(child, (cst.Attribute, cst.Name)) or mode_key(child, tf) is not None:
            continue
        symbol = tf.tf_symbol(child)
        if symbol is None:
            continue
        for prefix, why in REFUSED.items():
            if _refused(symbol.path, prefix):
                raise Decline(child, f"the model_fn uses tf.{symbol.path}, which {why}")


def draws_random(node: cst.CSTNode, tf: TFNames) -> bool:
    """Whether ``node`` calls a TF op drawing random numbers."""
    for child in walk(node, code_only=True):
        if isinstance(child, cst.Call):
            symbol = tf.tf_symbol(child.func)
            if symbol is not None and symbol.path.startswith(RANDOM_PREFIXES):
                return True
    return False


def _refused(path: str, entry: str) -> bool:
    """Whether ``tf.<path>`` is the ``REFUSED`` entry: a prefix (ending in ``.`` or ``_``), or the
    name itself and its ``_``-suffixed kin (``assign`` and ``assign_add``)."""
    if entry.endswith((".", "_")):
        return path.startswith(entry)
    return path == entry or path.startswith(entry + "_")
