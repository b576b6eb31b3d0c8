"""What network-function-to-module reads of a network function and its calls."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

import libcst as cst

from tfmodernize.analysis.variable_calls import is_variable_maker
from tfmodernize.syntax import calls_in, own_comment_start

#: Optimizer methods building a training step.
TRAINING_METHODS = frozenset({"minimize", "apply_gradients", "compute_gradients"})
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


def without_own_comment(lines: Sequence[cst.EmptyLine]) -> list[cst.EmptyLine]:
    """A statement's leading lines without its own comment (the comment lines right above it,
    no blank line between), which goes with the statement when it is removed: the blank lines
    and the comments heading a section above it stay."""
    return list(lines[: own_comment_start(lines)])


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
