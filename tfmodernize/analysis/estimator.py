"""What TF1's ``tf.estimator`` names are, for the codemods that migrate or report it.

``tf.estimator`` (and ``tf.compat.v1.estimator``) is gone since TensorFlow 2.16, and the last
``tensorflow-estimator`` release (2.15) does not import on later TensorFlow. What is left of it
in a file cannot run there: estimator-to-keras (TFM117) migrates the programs it can prove,
estimator-removed (TFM119) writes the mode keys as the strings they are and reports the rest.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tfmodernize.analysis.tf1_api import ESTIMATOR_HOOKS
from tfmodernize.tfsymbols import TFNames

#: ``tf.estimator.ModeKeys``: TF 1.15's class of plain string constants.
MODE_KEYS = {"TRAIN": "train", "EVAL": "eval", "PREDICT": "infer"}
#: TF1 streaming metrics an Estimator's ``eval_metric_ops`` may hold -> the Keras metric that
#: accumulates the same total and count, and the TF1 parameters its ``update_state`` takes, in
#: order (the rest must be absent, or None, or only name the TF1 graph's ops).
METRICS = {
    "metrics.accuracy": ("Accuracy", ("labels", "predictions")),
    "metrics.mean": ("Mean", ("values",)),
    "metrics.mean_squared_error": ("MeanSquaredError", ("labels", "predictions")),
    "metrics.root_mean_squared_error": ("RootMeanSquaredError", ("labels", "predictions")),
    "metrics.mean_absolute_error": ("MeanAbsoluteError", ("labels", "predictions")),
}
#: Each TF1 metric's parameters, in order.
METRIC_PARAMETERS = {
    "metrics.mean": ("values", "weights", "metrics_collections", "updates_collections", "name"),
}
LABELED_METRIC_PARAMETERS = (
    "labels",
    "predictions",
    "weights",
    "metrics_collections",
    "updates_collections",
    "name",
)


def metric_parameters(path: str) -> tuple[str, ...]:
    """The parameters of the TF1 metric ``tf.<path>``, in order."""
    return METRIC_PARAMETERS.get(path, LABELED_METRIC_PARAMETERS)


def estimator_path(node: cst.CSTNode, tf: TFNames) -> Optional[str]:
    """``"Estimator"`` for ``tf.estimator.Estimator`` (or ``tf.compat.v1.estimator.Estimator``,
    or a name imported from ``tensorflow.estimator``): the path under ``tf.estimator``, or None
    for any other node. Session-run hooks, which ``tf.train`` still has, are not counted."""
    symbol = tf.tf_symbol(node)
    if symbol is None or not symbol.path.startswith("estimator."):
        return None
    path = symbol.path[len("estimator.") :]
    return None if path.split(".")[0] in ESTIMATOR_HOOKS else path


def mode_key(node: cst.CSTNode, tf: TFNames) -> Optional[str]:
    """The string ``tf.estimator.ModeKeys.TRAIN`` (``EVAL``, ``PREDICT``) is, or None."""
    path = estimator_path(node, tf)
    if path is None or not path.startswith("ModeKeys."):
        return None
    return MODE_KEYS.get(path[len("ModeKeys.") :])
