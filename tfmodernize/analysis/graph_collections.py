"""What TF1's graph collections hold when a program reads them: the trainable-variables
collection (``tf.trainable_variables()``, ``get_collection(GraphKeys.TRAINABLE_VARIABLES)``) and
UPDATE_OPS (the batch-normalisation updates a train op must depend on)."""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from tfmodernize.analysis.module_variables import module_assignment
from tfmodernize.tfsymbols import TFNames
from tfmodernize.syntax import argument, calls_in, source


#: Calls whose name says they add ops to TF1's UPDATE_OPS collection.
UPDATE_SOURCES = re.compile(r"batch_norm|BatchNormalization|add_update")


def update_ops_collection(node: cst.BaseExpression, module: cst.Module, tf: TFNames) -> Optional[cst.Call]:
    """The ``tf.get_collection(tf.GraphKeys.UPDATE_OPS)`` call ``node`` is or names (module level)."""
    if isinstance(node, cst.Name):
        bound = module_assignment(module, node.value)
        if bound is None:
            return None
        node = bound[1]
    if not (isinstance(node, cst.Call) and tf.is_tf(node.func, "get_collection") and node.args):
        return None
    key = node.args[0].value
    is_update_ops = tf.is_tf(key, "GraphKeys.UPDATE_OPS") or (
        isinstance(key, cst.SimpleString) and key.evaluated_value == "update_ops"
    )
    return node if is_update_ops else None


def adds_update_ops(module: cst.Module, tf: TFNames) -> bool:
    """Whether anything in ``module`` may put ops into UPDATE_OPS."""
    for call in calls_in(module):
        if UPDATE_SOURCES.search(source(call.func)):
            return True
        if tf.is_tf(call.func, "add_to_collection", "add_to_collections"):
            return True
    return False


def trainable_collection_read(call: cst.Call, tf: TFNames) -> Optional[tuple[Optional[cst.BaseExpression]]]:
    """``(scope,)`` when ``call`` reads the trainable-variables collection, else None."""
    if tf.is_tf(call.func, "trainable_variables"):
        return (argument(call, 0, "scope"),)
    if tf.is_tf(call.func, "get_collection"):
        key = argument(call, 0, "key")
        is_trainable = (key is not None and tf.is_tf(key, "GraphKeys.TRAINABLE_VARIABLES")) or (
            isinstance(key, cst.SimpleString) and key.evaluated_value == "trainable_variables"
        )
        return (argument(call, 1, "scope"),) if is_trainable else None
    return None
