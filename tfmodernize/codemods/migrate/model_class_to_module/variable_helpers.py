"""The methods a model class's ``__init__`` calls to make its variables (``self._weights()``).

A variable helper only makes variables; ``helper_call`` finds one behind a call of
``__init__``, ``check_helpers`` proves what each does, ``variable_keys`` reads which keys of the
dict it returns are one variable each.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tfmodernize.analysis.tf1_api import VARIABLE_MAKERS
from tfmodernize.analysis.variable_calls import creates_opaque_variables
from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.model_class_to_module.model import (
    ClassModel,
    Kind,
    attribute_reads,
    graph_reads,
    self_attribute,
    tf_path,
)
from tfmodernize.syntax import source
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import walk


def check_plain_arguments(model: ClassModel, call: cst.Call) -> None:
    """A call kept in ``__init__`` (a variable, an optimizer) reads no graph value."""
    reads = graph_reads(model.nodes, call)
    if reads:
        raise Decline(call, f"`{source(call.func)}` is given `{reads[0]}`, a value of the graph")


def helper_call(
    model: ClassModel,
    tf: TFNames,
    value: cst.BaseExpression,
) -> Optional[cst.FunctionDef]:
    """The method of a ``self._make_weights()`` call making variables, if ``value`` is one."""
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)):
        return None
    name = self_attribute(value.func)
    method = next(
        (s for s in model.cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == name),
        None,
    )
    if method is None:
        return None
    if not any(isinstance(n, cst.Call) and creates_opaque_variables(n, tf) for n in walk(method.body)):
        return None
    if graph_reads(model.nodes, value):
        raise Decline(value, f"`{name}` is given a value of the graph")
    return method


def check_helpers(model: ClassModel, tf: TFNames) -> None:
    """A variable helper only makes variables: its TF calls are variable makers, the
    initializers they are given, and what their arguments compute; it reads no graph value
    and only ``__init__`` calls it, once."""
    for name, helper in model.helpers.items():
        calls = [
            n
            for method in model.methods()
            for n in walk(method.body, code_only=True)
            if isinstance(n, cst.Call) and self_attribute(n.func) == name
        ]
        if len(calls) != 1:
            raise Decline(helper, f"the variable helper `{name}` is called other than once by `__init__`")
        makers = [
            n
            for n in walk(helper.body, code_only=True)
            if isinstance(n, cst.Call) and tf_path(n.func, tf) in VARIABLE_MAKERS
        ]
        inside = {id(n) for maker in makers for n in walk(maker, code_only=True)}
        for node in walk(helper.body, code_only=True):
            if not isinstance(node, cst.Call) or id(node) in inside:
                continue
            path = tf_path(node.func, tf)
            if path is not None and not initializer_path(path):
                raise Decline(node, f"the variable helper `{name}` calls `tf.{path}`")
            if path is None and self_attribute(node.func) in {m.name.value for m in model.methods()}:
                raise Decline(node, f"the variable helper `{name}` calls a method")
            if creates_opaque_variables(node, tf):
                raise Decline(node, f"the variable helper `{name}` makes variables with `tf.{path}`")
        for maker in makers:
            check_plain_arguments(model, maker)
            if tf_path(maker.func, tf) == "get_variable":
                model.get_variables.append(maker)
        for attribute in attribute_reads(helper.body):
            if f"self.{attribute}" in model.nodes and model.nodes[f"self.{attribute}"].kind not in (Kind.VARIABLE,):
                raise Decline(
                    helper,
                    f"the variable helper `{name}` reads `self.{attribute}`, a value of the graph",
                )


def variable_keys(helper: cst.FunctionDef, tf: TFNames) -> frozenset:
    """The literal keys of the dict a variable helper returns (``return weights``) that it binds
    to one variable each (``weights["w1"] = tf.Variable(...)``), once."""
    body = helper.body.body
    last = body[-1] if body else None
    if not (
        isinstance(last, cst.SimpleStatementLine)
        and isinstance(last.body[0], cst.Return)
        and isinstance(last.body[0].value, cst.Name)
    ):
        return frozenset()
    returned = last.body[0].value.value
    keys: dict[str, int] = {}
    for node in walk(helper.body, code_only=True):
        if not isinstance(node, cst.AssignTarget):
            continue
        target = node.target
        if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name) and target.value.value == returned:
            index = target.slice[0].slice if len(target.slice) == 1 else None
            key = (
                index.value.evaluated_value
                if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString)
                else None
            )
            keys[str(key)] = keys.get(str(key), 0) + (1 if key is not None else 2)
    made = set()
    for statement in body:
        if not (isinstance(statement, cst.SimpleStatementLine) and isinstance(statement.body[0], cst.Assign)):
            continue
        assign = statement.body[0]
        target = assign.targets[0].target
        value = assign.value
        if (
            isinstance(target, cst.Subscript)
            and isinstance(target.value, cst.Name)
            and target.value.value == returned
            and isinstance(value, cst.Call)
            and tf.is_tf(value.func, *VARIABLE_MAKERS)
            and isinstance(target.slice[0].slice, cst.Index)
            and isinstance(target.slice[0].slice.value, cst.SimpleString)
        ):
            made.add(str(target.slice[0].slice.value.evaluated_value))
    return frozenset(key for key in made if keys.get(key) == 1)


def initializer_path(path: str) -> bool:
    """An initializer object's constructor (``tf.zeros_initializer``, ``tf.initializers.ones``)."""
    return path.endswith("_initializer") or path.startswith(("initializers.", "keras.initializers."))
