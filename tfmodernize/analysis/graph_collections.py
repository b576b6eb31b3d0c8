"""What TF1's graph collections hold when a program reads them: the trainable-variables
collection (``tf.trainable_variables()``, ``get_collection(GraphKeys.TRAINABLE_VARIABLES)``) and
UPDATE_OPS (the batch-normalisation updates a train op must depend on)."""

from __future__ import annotations

import re
from typing import Callable, Optional

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


def name_test(test: cst.BaseExpression, variable: str) -> Optional[Callable[[str], bool]]:
    """What ``"gen" in v.name`` or ``v.name.startswith("gen")`` keeps (``variable``: ``v``), as a
    test of a TF1 graph name (``"gen/Variable:0"``); None for any other test."""

    def name_of_variable(node: cst.BaseExpression) -> bool:
        return (
            isinstance(node, cst.Attribute)
            and node.attr.value == "name"
            and isinstance(node.value, cst.Name)
            and node.value.value == variable
        )

    def literal(node: cst.BaseExpression) -> Optional[str]:
        value = node.evaluated_value if isinstance(node, cst.SimpleString) else None
        return value if isinstance(value, str) else None

    if (
        isinstance(test, cst.Comparison)
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, cst.In)
        and name_of_variable(test.comparisons[0].comparator)
        and literal(test.left) is not None
    ):
        part = literal(test.left)
        return lambda name: part in name
    if (
        isinstance(test, cst.Call)
        and isinstance(test.func, cst.Attribute)
        and test.func.attr.value == "startswith"
        and name_of_variable(test.func.value)
        and len(test.args) == 1
        and test.args[0].keyword is None
        and literal(test.args[0].value) is not None
    ):
        prefix = literal(test.args[0].value)
        return lambda name: name.startswith(prefix)
    return None
