"""What network-function-to-module reads of a network function and its calls."""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass
from typing import Optional

import libcst as cst

from tfmodernize.analysis.variable_calls import is_variable_maker
from tfmodernize.names import fresh_name
from tfmodernize.syntax import calls_in

#: Optimizer methods building a training step.
TRAINING_METHODS = frozenset({"minimize", "apply_gradients", "compute_gradients"})
#: Words a network function's name may start with before what it makes (``add_layer``).
VERBS = frozenset("add build make create get define compute construct new".split())
#: Nodes whose insides run another number of times than the statement holding them.
REPEATING = (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp, cst.FunctionDef)


@dataclass
class Network:
    """A network function read: its parts."""

    function: cst.FunctionDef
    docstring: list[cst.BaseStatement]
    init: list[cst.BaseStatement]  # the variables and what their initial values need
    apply: list[cst.BaseStatement]  # the rest, in order
    variables: list[str]
    init_params: list[str]
    kept: list[str]  # names both parts read: kept on the object


def object_names(
    name: str,
    lines: list[cst.SimpleStatementLine],
    taken: set[str],
    labels: Optional[list[Optional[str]]] = None,
) -> list[str]:
    """The object each call makes: the function's name for one call; for several, the name the
    call gives its scope (``labels``: a string passed as ``name``/``scope``, ``"hidden"`` ->
    ``hidden_layer``, ``"Output_layer"`` -> ``output_layer``), else the name it binds first and
    what the function makes (``hidden = add_layer(...)`` -> ``hidden_layer``; ``layer1_module``
    when the name says it already: ``layer1 = new_conv_layer(...)``), or numbered
    (``add_layer_1``) when a call has neither or the names clash. ``name``: the function's,
    ``lines``: the statement of each call."""
    if len(lines) == 1:
        return [name]
    parts = name.split("_")
    while len(parts) > 1 and parts[0].lower() in VERBS:
        parts = parts[1:]
    made = parts[-1].lower()
    by_label, by_target = [], []
    for line, label in zip(lines, labels or [None] * len(lines)):
        bound = first_target(line)
        by_label.append("" if label is None else label if made in _words(label) else f"{label}_{made}")
        if bound is None:
            by_target.append("")
        elif made in _words(bound):
            by_target.append(f"{bound}_module")  # not ``layer1_conv_layer``
        else:
            by_target.append(f"{bound}_{'_'.join(parts)}")
    # The scope's name where every call gives one and none is taken (``name="layer1"`` beside
    # ``layer1 = ...`` is), else the names the calls bind.
    for wanted in ([b or t for b, t in zip(by_label, by_target)], by_target):
        if all(wanted) and len(set(wanted)) == len(wanted) and not set(wanted) & taken:
            taken.update(wanted)
            return wanted
    return [fresh_name(f"{name}_{n}", taken) for n in range(1, len(lines) + 1)]


def _words(name: str) -> set[str]:
    """The words of a snake_case name, without their numbers (``layer1_out`` -> layer, out)."""
    return {word.rstrip("0123456789").lower() for word in name.split("_")}


def scope_label(call: cst.Call, function: cst.FunctionDef) -> Optional[str]:
    """The name a call gives its variables' scope, as a Python name: a string literal passed
    as a parameter named ``name`` or ``scope`` (``"Hidden layer"`` -> ``hidden_layer``)."""
    parameters = [p.name.value for p in function.params.params]
    for position, arg in enumerate(call.args):
        if arg.star:
            return None
        parameter = (
            arg.keyword.value
            if arg.keyword is not None
            else (parameters[position] if position < len(parameters) else None)
        )
        if parameter not in ("name", "scope", "scope_name", "layer_name") or not isinstance(
            arg.value, cst.SimpleString
        ):
            continue
        text = arg.value.evaluated_value
        words = re.sub(r"[^0-9a-zA-Z]+", "_", text if isinstance(text, str) else "")
        label = words.strip("_").lower()
        if label and label.isidentifier() and not keyword.iskeyword(label):
            return label
        return None
    return None


def first_target(line: cst.SimpleStatementLine) -> Optional[str]:
    """The first name ``line`` binds: ``hidden`` of ``hidden = ...`` or ``hidden, state = ...``."""
    assign = line.body[0]
    if not isinstance(assign, cst.Assign):
        return None
    target = assign.targets[0].target
    if isinstance(target, (cst.Tuple, cst.List)) and target.elements:
        target = target.elements[0].value
    return target.value if isinstance(target, cst.Name) else None


def variable_statement(statement: cst.BaseStatement, tf) -> Optional[str]:
    """``name`` when ``statement`` is ``name = tf.Variable(...)``."""
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
        return None
    assign = statement.body[0]
    if (
        isinstance(assign, cst.Assign)
        and len(assign.targets) == 1
        and isinstance(assign.targets[0].target, cst.Name)
        and isinstance(assign.value, cst.Call)
        and is_variable_maker(assign.value, tf)
        and tf.tf_symbol(assign.value.func).path == "Variable"
    ):
        return assign.targets[0].target.value
    return None


def trains(call: cst.Call, tf) -> bool:
    """An optimizer made or applied: ``tf.train.AdamOptimizer(...)``, ``opt.minimize(loss)``."""
    symbol = tf.tf_symbol(call.func)
    if symbol is not None:
        return symbol.path.startswith("train.")
    return isinstance(call.func, cst.Attribute) and call.func.attr.value in TRAINING_METHODS


def plain_assignment(statement: cst.BaseStatement) -> bool:
    """``a = ...`` / ``a, b = ...`` on a line of its own."""
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Assign)
    )


def transitively(functions: dict[str, cst.FunctionDef], test) -> set[str]:
    """The module functions calling (themselves, or through the others) what ``test`` accepts."""
    found = {name for name, f in functions.items() if any(test(call) for call in calls_in(f.body))}
    grown = True
    while grown:
        grown = False
        for name, function in functions.items():
            if name not in found and any(
                isinstance(c.func, cst.Name) and c.func.value in found for c in calls_in(function.body)
            ):
                found.add(name)
                grown = True
    return found


def bind(call: cst.Call, parameters: list[str]) -> Optional[dict[str, cst.BaseExpression]]:
    """The call's arguments by parameter name; None for ``*args`` or an unknown parameter."""
    bound = {}
    for position, arg in enumerate(call.args):
        if arg.star or (arg.keyword is None and position >= len(parameters)):
            return None
        key = arg.keyword.value if arg.keyword is not None else parameters[position]
        if key not in parameters:
            return None
        bound[key] = arg.value
    return bound


def named_args(call: cst.Call, function: cst.FunctionDef) -> list[tuple[cst.Arg, str]]:
    parameters = [p.name.value for p in function.params.params]
    return [
        (arg, arg.keyword.value if arg.keyword is not None else parameters[position])
        for position, arg in enumerate(call.args)
    ]
