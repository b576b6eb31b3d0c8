"""An Estimator's input functions read as the ``tf.data`` dataset each makes, for
estimator-to-keras (``input_dataset``): a module function without parameters returning a dataset
(or a lambda calling one), or ``tf.estimator.inputs.numpy_input_fn(...)`` written as the
``tf.data`` pipeline of the batches its queue gave."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tfmodernize.analysis.tf1_api import DATASET_CHAIN
from tfmodernize.analysis.variable_calls import arguments
from tfmodernize.codemod import Decline
from tfmodernize.names import names_bound_here, own_nodes, parameter_names
from tfmodernize.syntax import is_none, source
from tfmodernize.tfsymbols import TFNames

#: ``tf.estimator.inputs.numpy_input_fn``, read as the dataset of the batches it made.
NUMPY_INPUT_FNS = ("estimator.inputs.numpy_input_fn", "compat.v1.estimator.inputs.numpy_input_fn")
NUMPY_INPUT_PARAMETERS = ("x", "y", "batch_size", "num_epochs", "shuffle", "queue_capacity", "num_threads")
#: Where a tf.data pipeline starts: ``tf.data.Dataset.from_tensor_slices(...)``, ``tf.data.TFRecordDataset``.
DATASET_SOURCES = "data."


def input_dataset(
    call: cst.Call,
    input_fn: Optional[cst.BaseExpression],
    tf: TFNames,
    parents: dict,
    labelled: bool = True,
) -> cst.BaseExpression:
    """The expression making the dataset ``input_fn`` returns (``input_fn()``, or the call a
    lambda makes), when it provably returns a ``tf.data`` dataset; the dataset a
    ``numpy_input_fn`` read in order (``labelled``: with labels, for train and evaluate)."""
    if input_fn is None:
        raise Decline(call, "it is given no input_fn")
    module = _module_of(call, parents)
    if isinstance(input_fn, cst.Name):
        function = _module_function(module, input_fn.value)
        if function is None or parameter_names(function):
            raise Decline(
                input_fn,
                f"its input_fn `{input_fn.value}` is not a module function without parameters "
                "(the Estimator passes params, mode or config to one that takes them)",
            )
        _returns_dataset(function, tf)
        return cst.Call(func=input_fn)
    if isinstance(input_fn, cst.Lambda) and not parameter_names(input_fn):
        body = input_fn.body
        if isinstance(body, cst.Call) and isinstance(body.func, cst.Name):
            function = _module_function(module, body.func.value)
            if function is not None:
                _returns_dataset(function, tf)
                return body
    symbol = tf.tf_symbol(input_fn.func) if isinstance(input_fn, cst.Call) else None
    if symbol is not None and symbol.path in NUMPY_INPUT_FNS:
        return _numpy_input(input_fn, tf, labelled)
    if symbol is not None and symbol.path.startswith("estimator.inputs."):
        raise Decline(
            input_fn,
            f"its input_fn is tf.{symbol.path}, whose queues this migration does not write; "
            "write it as a tf.data.Dataset (Dataset.from_tensor_slices) first",
        )
    raise Decline(input_fn, "its input_fn is not a module function returning a tf.data dataset")


def _numpy_input(call: cst.Call, tf: TFNames, labelled: bool) -> cst.BaseExpression:
    """``numpy_input_fn(x, y, batch_size, num_epochs, shuffle=False)`` -> the dataset of the same
    batches: its queue fed the rows in order, epoch after epoch, and took ``batch_size`` at a time
    (the last batch shorter) -> ``Dataset.from_tensor_slices((x, y)).repeat(num_epochs)
    .batch(batch_size)``; the features alone without ``y``."""
    args = arguments(call, NUMPY_INPUT_PARAMETERS, what="numpy_input_fn")
    shuffle = args.get("shuffle")
    if not (isinstance(shuffle, cst.Name) and shuffle.value == "False"):
        raise Decline(
            call,
            "its numpy_input_fn does not set shuffle=False: the queue's shuffled order is not a "
            "tf.data shuffle's; write the input as a tf.data.Dataset first",
        )
    threads = args.get("num_threads")
    if threads is not None and not (isinstance(threads, cst.Integer) and threads.evaluated_value == 1):
        raise Decline(call, "its numpy_input_fn feeds from more than one thread (the order is not fixed)")
    if "x" not in args:
        raise Decline(call, "its numpy_input_fn is given no x")
    has_labels = not is_none(args.get("y"))
    if labelled and not has_labels:
        raise Decline(call, "its numpy_input_fn gives no labels (y) to train or evaluate on")
    root = tf.tf2_prefix()[0]
    data = f"({source(args['x'])}, {source(args['y'])})" if has_labels else source(args["x"])
    epochs = args.get("num_epochs")
    if epochs is None or (isinstance(epochs, cst.Integer) and epochs.evaluated_value == 1):
        repeat = ""
    else:
        repeat = ".repeat()" if is_none(epochs) else f".repeat({source(epochs)})"
    batch = source(args["batch_size"]) if "batch_size" in args else "128"
    return cst.parse_expression(f"{root}.data.Dataset.from_tensor_slices({data}){repeat}.batch({batch})")


def _module_of(node: cst.CSTNode, parents: dict) -> cst.Module:
    while not isinstance(node, cst.Module):
        node = parents[id(node)]
    return node


def _module_function(module: cst.Module, name: str) -> Optional[cst.FunctionDef]:
    found = [s for s in module.body if isinstance(s, cst.FunctionDef) and s.name.value == name]
    return found[0] if len(found) == 1 and not found[0].decorators else None


def _returns_dataset(function: cst.FunctionDef, tf: TFNames) -> None:
    """Decline unless every return of ``function`` is a tf.data dataset: made by ``tf.data``
    (``Dataset.from_tensor_slices``...) and chained dataset methods, or a name the function binds
    only to such values."""
    returns = [n for n in own_nodes(function.body) if isinstance(n, cst.Return)]
    if not returns:
        raise Decline(function, f"the input_fn `{function.name.value}` returns nothing")
    for statement in returns:
        if statement.value is None or not _is_dataset(statement.value, function, tf, set()):
            raise Decline(
                statement,
                f"the input_fn `{function.name.value}` returns something not read as a tf.data dataset "
                "(features and labels tensors, an iterator's get_next())",
            )


def _is_dataset(node: cst.BaseExpression, function: cst.FunctionDef, tf: TFNames, seen: set[str]) -> bool:
    while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in DATASET_CHAIN:
        node = node.func.value
    if isinstance(node, cst.Call):
        symbol = tf.tf_symbol(node.func)
        return symbol is not None and symbol.path.startswith(DATASET_SOURCES)
    if isinstance(node, cst.Name) and node.value not in seen:
        values = []
        for child in own_nodes(function.body):
            if isinstance(child, cst.Assign) and any(
                isinstance(t.target, cst.Name) and t.target.value == node.value for t in child.targets
            ):
                values.append(child.value)
            elif node.value in names_bound_here(child) and not isinstance(child, cst.AssignTarget):
                return False
        return bool(values) and all(_is_dataset(v, function, tf, seen | {node.value}) for v in values)
    return False
