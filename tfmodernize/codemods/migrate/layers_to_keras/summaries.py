"""The summaries a project module's network function makes of its own variables, which leave
the ``tf.Module`` class it becomes (``scoped_plan``) and are exported for the calling files
to write under TF1's tags: its own ``tf.summary.histogram("w", w)`` lines, and those of the
module's helpers it passes its variables to (``conv(x, w1, b1)``)."""

from __future__ import annotations

import re

import libcst as cst

from tfmodernize.treewalk import contains
from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.layers_to_keras.network import UNIT_BREAKS, Network
from tfmodernize.codemods.migrate.layers_to_keras.plan import FilePlan
from tfmodernize.names import names_bound_here, parameter_names
from tfmodernize.syntax import (
    ancestors,
    argument,
    source,
    statement_holding,
    statement_of,
)
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import walk


def variable_summaries(
    plan: FilePlan, function: cst.FunctionDef, network: Network, made: list
) -> list[tuple[cst.SimpleStatementLine, str, str, str, str, bool]]:
    """The summaries a project module's network function makes of its own variables:
    ``tf.summary.histogram("w", w)`` lines in its scope, ``w`` bound to a variable it makes.
    Each: (its line, kind, the variable scope it is made in, its name, the variable's
    attribute, whether a variable made before it took its name); the calling files write
    them under TF1's tag (the scope, and in a call making the variables the name, made
    unique). Declines other summaries (what they summarize is computed by the call)."""
    parents = plan.parents
    attributes = {}
    made_before: list[tuple[int, str]] = []  # (position, "scope/name") of each variable TF1 made in the call
    order = {id(n): i for i, n in enumerate(walk(function.body, code_only=True))}
    for variable in made:
        bound = statement_of(variable.call, parents)
        if bound is not None and bound[0] is not None:
            attributes[bound[0]] = variable.name
        made_before.append((order[id(variable.call)], variable.tf1))
    found = []
    for call in (n for n in walk(function.body, code_only=True) if isinstance(n, cst.Call)):
        symbol = plan.tf.tf_symbol(call.func)
        if symbol is None or not symbol.path.startswith("summary."):
            continue
        line = parents.get(id(parents.get(id(call))))
        tag, value = (
            argument(call, 0, "name"),
            argument(call, 1, "values" if symbol.path.endswith("histogram") else "tensor"),
        )
        if (
            symbol.path not in ("summary.histogram", "summary.scalar")
            or len(call.args) != 2
            or not isinstance(line, cst.SimpleStatementLine)
            or len(line.body) != 1
            or not isinstance(line.body[0], cst.Expr)
            or line.body[0].value is not call
            or not isinstance(tag, cst.SimpleString)
            or not isinstance(tag.evaluated_value, str)
            or not isinstance(value, cst.Name)
            or value.value not in attributes
            or len(network.scopes) != 1
            or not any(block is network.scopes[0].body for block in ancestors(call, parents))
            or sum(1 for n in walk(function.body, code_only=True) if value.value in names_bound_here(n)) != 1
        ):
            raise Decline(
                call,
                f"`{source(call.func)}(...)` in `{function.name.value}` is not a summary of one of "
                "its variables on a line of its own under its scope, which the calling files "
                "could write",
            )
        scope = plan.variable_scope(call)
        written = re.sub(r"[^-/\w.]", "_", tag.evaluated_value)
        # A name a variable made before it in the same scope took: TF1 named the summary
        # ``<name>_1`` in the calls making the variables (not in those sharing them).
        earlier = [path for at, path in made_before if at < order[id(call)]]
        if any(
            path is None
            or (
                path != f"{scope}/{written}"
                and re.fullmatch(
                    "".join(".*" if part.startswith("{") else re.escape(part) for part in re.split(r"(\{\w+\})", path)),
                    f"{scope}/{written}",
                )
            )
            for path in earlier
        ):
            raise Decline(
                call,
                f"whether a variable made before `{source(call.func)}(...)` took its name "
                "(TF1 then added `_1` to it) depends on the arguments of the calls",
            )
        taken = f"{scope}/{written}" in earlier
        found.append(
            (
                line,
                symbol.path.split(".")[1],
                scope,
                tag.evaluated_value,
                attributes[value.value],
                taken,
            )
        )
    return found + _helper_summaries(plan, function, attributes, made_before)


def _helper_summaries(
    plan: FilePlan, function: cst.FunctionDef, attributes: dict[str, str], made_before: list
) -> list[tuple[cst.SimpleStatementLine, str, str, str, str, bool]]:
    """The summaries this module's helpers make of the network function's variables passed to
    them (``conv(x, w1, b1)`` whose body makes ``tf.summary.histogram("weight", w)`` under
    ``variable_scope("conv")``), as ``variable_summaries`` gives them: under the scope of the
    call, the helper's scopes and name, the first of them made unique per call as TF1 made
    it (``conv``, then ``conv_1``). The helper must be called only by such network functions,
    on lines run once per call."""
    parents = plan.parents
    helpers = {
        s.name.value: s
        for s in plan.module.body
        if isinstance(s, cst.FunctionDef)
        and s is not function
        and any(_summary_symbol(plan.tf, n) for n in walk(s.body, code_only=True))
    }
    opened: dict[str, int] = {}
    found = []
    for call in (n for n in walk(function.body, code_only=True) if isinstance(n, cst.Call)):
        if not (isinstance(call.func, cst.Name) and call.func.value in helpers):
            continue
        helper = helpers[call.func.value]
        name = helper.name.value
        if any(isinstance(node, UNIT_BREAKS) for node in ancestors(call, parents) if contains(function.body, node)):
            raise Decline(
                call,
                f"`{name}` makes summaries and is called inside a loop, a condition or a comprehension "
                f"of `{function.name.value}`: which TF1 made unique is not read here",
            )
        if plan.callers.get(name):
            raise Decline(call, f"`{name}` makes summaries and other files of the run call it too")
        parameters = parameter_names(helper)
        scope = plan.variable_scope(call)
        for summary in (n for n in walk(helper.body, code_only=True) if _summary_symbol(plan.tf, n)):
            path = _helper_summary_path(plan, helper, summary)
            value = argument(
                summary,
                1,
                "values" if _summary_symbol(plan.tf, summary).endswith("histogram") else "tensor",
            )
            given = (
                argument(call, parameters.index(value.value), value.value)
                if isinstance(value, cst.Name) and value.value in parameters
                else None
            )
            if not (isinstance(given, cst.Name) and given.value in attributes):
                raise Decline(
                    summary,
                    f"`{name}` summarizes `{source(value) if value is not None else '?'}`, which "
                    f"`{function.name.value}` does not pass one of its variables as",
                )
            first, *rest = path
            _unique_in_module(plan, first, helpers, summary)
            count = opened.get(first, 0)
            unique = "/".join([first if not count else f"{first}_{count}", *rest])
            if any(tf1 == f"{scope}/{unique}" for _, tf1 in made_before):
                raise Decline(
                    summary,
                    f"a variable of `{function.name.value}` is named `{scope}/{unique}` too, the "
                    "name TF1 gave the summary",
                )
            *inner, written = unique.split("/")
            line = statement_holding(summary, parents)
            found.append(
                (
                    line,
                    _summary_symbol(plan.tf, summary).split(".")[1],
                    "/".join([scope, *inner]),
                    written,
                    attributes[given.value],
                    False,
                )
            )
        for first in {
            _helper_summary_path(plan, helper, summary)[0]
            for summary in walk(helper.body, code_only=True)
            if _summary_symbol(plan.tf, summary)
        }:
            opened[first] = opened.get(first, 0) + 1
    return found


def _summary_symbol(tf: TFNames, node: cst.CSTNode) -> str:
    """``summary.histogram`` for such a call node, else an empty string."""
    symbol = tf.tf_symbol(node.func) if isinstance(node, cst.Call) else None
    return symbol.path if symbol is not None and symbol.path.startswith("summary.") else ""


def _helper_summary_path(plan: FilePlan, helper: cst.FunctionDef, summary: cst.Call) -> list[str]:
    """``["conv", "weight"]``: the literal scopes a helper's summary is made under and its
    name cleaned as TF1 cleaned it; declines other summaries."""
    parents = plan.parents
    line = statement_holding(summary, parents)
    tag = argument(summary, 0, "name")
    if (
        _summary_symbol(plan.tf, summary) not in ("summary.histogram", "summary.scalar")
        or len(summary.args) != 2
        or not isinstance(line, cst.SimpleStatementLine)
        or len(line.body) != 1
        or not isinstance(line.body[0], cst.Expr)
        or line.body[0].value is not summary
        or not isinstance(tag, cst.SimpleString)
        or not isinstance(tag.evaluated_value, str)
    ):
        raise Decline(
            summary,
            f"`{source(summary.func)}(...)` in `{helper.name.value}` is not a summary of a "
            "parameter with a literal name, on a line of its own, which the calling files could write",
        )
    path = [re.sub(r"[^-/\w.]", "_", tag.evaluated_value).lstrip("/")]
    for node in ancestors(summary, parents):
        if node is helper:
            return path
        if isinstance(node, UNIT_BREAKS):
            raise Decline(
                summary,
                f"`{source(summary.func)}(...)` in `{helper.name.value}` is made in a loop, a "
                "condition or a comprehension",
            )
        if isinstance(node, cst.With):
            for item in reversed(node.items):
                scope = item.item
                if not (isinstance(scope, cst.Call) and plan.tf.is_tf(scope.func, "variable_scope", "name_scope")):
                    raise Decline(
                        summary,
                        f"`{source(summary.func)}(...)` in `{helper.name.value}` is made under "
                        f"`{source(scope)}`, whose prefix to its tag is not read here",
                    )
                given = scope.args[0].value if len(scope.args) == 1 and scope.args[0].keyword is None else None
                if not (
                    isinstance(given, cst.SimpleString)
                    and isinstance(given.evaluated_value, str)
                    and re.fullmatch(r"[\w.-]+", given.evaluated_value)
                ):
                    raise Decline(
                        summary,
                        f"`{source(summary.func)}(...)` in `{helper.name.value}` is made under "
                        f"`{source(scope)}`, whose prefix to its tag is not read here",
                    )
                path.insert(0, given.evaluated_value)
    return path


def _unique_in_module(plan: FilePlan, name: str, helpers: dict[str, cst.FunctionDef], at: cst.Call) -> None:
    """Declines a helper summary's first scope (or name) that the module also writes other than as
    a summarizing helper's scope or summary name: an op named so would have taken it first."""
    inside = {
        id(item.item.args[0].value)
        for helper in helpers.values()
        for node in walk(helper.body, code_only=True)
        if isinstance(node, cst.With)
        for item in node.items
        if isinstance(item.item, cst.Call) and item.item.args
    }
    inside |= {
        id(node.args[0].value)
        for helper in helpers.values()
        for node in walk(helper.body, code_only=True)
        if _summary_symbol(plan.tf, node) and node.args
    }
    if any(
        isinstance(n, cst.SimpleString) and n.evaluated_value == name and id(n) not in inside
        for n in walk(plan.module, code_only=True)
    ):
        raise Decline(
            at,
            f"the module also names something `{name}`: TF1 may have made the summary's scope unique another way",
        )
