"""Summary helpers: module functions that only make summaries of what they are given
(``def variable_summaries(var):`` making ``tf.summary.scalar("mean", ...)`` under
``name_scope("summaries")``), called as statements in the program's code. Each call makes the
helper's summaries again, under the call's scopes (``layer1/weights/summaries/mean_1``; a second
call in one scope opens ``summaries_1``). The helper is rewritten to return the values it
summarized, each call binds them to names of the program, and the run fetching the merged
summary fetches those names. Functions of the ``ProgramPlan`` the codemod reads."""

from __future__ import annotations

import re
from functools import partial
from dataclasses import dataclass, field
from typing import Optional

import libcst as cst

from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.summary_v2 import tags
from tfmodernize.codemods.migrate.summary_v2.emit import Editor
from tfmodernize.codemods.migrate.summary_v2.model import MERGES, SUMMARY_OPS, WRITERS, Summary
from tfmodernize.codemods.migrate.summary_v2.plan import ProgramPlan
from tfmodernize.names import fresh_name, own_nodes, parameter_names
from tfmodernize.syntax import ancestors, argument, source, statement_of
from tfmodernize.treewalk import walk


@dataclass
class Helper:
    """A module function making summaries and nothing a caller reads (it returns nothing)."""

    function: cst.FunctionDef
    parameters: list[str]
    #: Its summaries, tagged under its own scopes (the call's come before them).
    summaries: list[Summary] = field(default_factory=list)
    #: The values it summarized that are not its parameters, in order: what it returns.
    returned: list[str] = field(default_factory=list)
    #: Each call of it (by the call's id) -> the names the call binds its values to.
    calls: dict[int, tuple[cst.SimpleStatementLine, list[str]]] = field(default_factory=dict)


def find(plan: ProgramPlan, taken: set[str], imported: bool) -> dict[str, Helper]:
    """The summary helpers of the module, by name: functions whose own lines make TF1
    summaries, that return nothing, merge and write nothing, and are read only by calls (or
    by none: then they make no summaries, unless the files of the run importing the module
    may call them, ``imported``)."""
    found: dict[str, Helper] = {}
    for function in (s for s in plan.module.body if isinstance(s, cst.FunctionDef)):
        own = list(own_nodes(function.body))
        makes = [n for n in own if isinstance(n, cst.Call) and _summary_op(plan, n)]
        if not makes or any(isinstance(n, (cst.Return, cst.Yield)) for n in own):
            continue
        calls = [n for n in walk(function.body) if isinstance(n, cst.Call)]
        if function.decorators or any(plan.tf.is_tf(n.func, *MERGES, *WRITERS) for n in calls):
            continue
        if any(isinstance(n, cst.Attribute) and n.attr.value == "run" for n in own):
            continue
        params = function.params
        starred = isinstance(params.star_arg, cst.Param) or params.star_kwarg is not None
        if starred or params.posonly_params:
            continue
        if not _only_called(plan, function, imported):
            continue
        helper = Helper(function, parameter_names(function))
        for call in makes:
            made = statement_of(call, plan.parents)
            if made is None or made[0] is not None:
                name = function.name.value
                raise Decline(call, f"a summary of `{name}` is not a statement of its own")
            kind = plan.tf.tf_symbol(call.func).path.split(".")[1]
            summary = tags.read_summary(plan, made[1], call, kind, None, taken, tuple(helper.parameters))
            helper.summaries.append(summary)
            value = summary.value.value
            if summary.expression is None and value in helper.parameters:
                continue
            if value not in helper.returned:
                helper.returned.append(value)
        found[function.name.value] = helper
    return found


def made_inside(helpers: dict[str, Helper]) -> set[int]:
    """The summary calls inside the helpers, by identity (read per call of the helper)."""
    return {id(s.call) for helper in helpers.values() for s in helper.summaries}


def called(
    plan: ProgramPlan,
    helper: Helper,
    call: cst.Call,
    taken: set[str],
    opened: dict,
) -> list[Summary]:
    """The summaries one call of ``helper`` makes, under the call's scopes; the names the call
    binds the helper's values to. ``opened``: how often each scope a helper opens (or summary
    name it makes outside scopes) was opened in each of the callers' scopes, updated."""
    statement, name = tags.definition(plan, call)
    name_of = helper.function.name.value
    if name is not None:
        raise Decline(call, f"the value of `{name_of}(...)` (None) is kept in a name")
    given = _arguments(helper, call)
    base = (
        given[helper.parameters[0]].value
        if helper.parameters and isinstance(given.get(helper.parameters[0]), cst.Name)
        else name_of
    )
    prefix = tags.scope_prefix(plan, call)
    # A value named again (``describe(kernel)`` twice) is named after the call's scope too.
    scope = re.sub(r"[^0-9a-zA-Z_]", "_", prefix.rstrip("/").rsplit("/", 1)[-1])
    names: dict[str, str] = {}
    for summary in helper.summaries:
        value = summary.value.value
        if value in helper.returned and value not in names:
            tag = argument(summary.call, 0, "name")
            given_tag = str(tag.evaluated_value) if tag is not None else "value"
            literal = re.sub(r"[^0-9a-zA-Z_]", "_", given_tag)
            name = f"{base}_{literal}"
            if name in taken and scope and f"{scope}_{name}" not in taken:
                name = f"{scope}_{name}"
            names[value] = fresh_name(name, taken)
    helper.calls[id(call)] = (statement, [names[value] for value in helper.returned])
    made: list[Summary] = []
    firsts = set()
    for summary in helper.summaries:
        first, slash, rest = _scope_given(plan, helper, call, given, summary.tag).partition("/")
        count = opened.get((prefix, first), 0)
        unique = (first if not count else f"{first}_{count}") + slash + rest
        firsts.add(first)
        tag = prefix + unique
        value = summary.value.value
        if value in names:
            written: cst.Name = cst.Name(names[value])
        else:
            passed = given.get(value)
            if not isinstance(passed, cst.Name):
                raise Decline(
                    call,
                    f"`{name_of}` summarizes its parameter `{value}`, given "
                    f"`{source(passed) if passed is not None else 'its default'}`, not a name",
                )
            written = passed
        quote = summary.literal.quote
        made.append(
            Summary(
                statement,
                call,
                summary.kind,
                tag,
                cst.SimpleString(f"{summary.literal.prefix}{quote}{tag}{quote}"),
                written,
                None,
                summary.max_outputs,
                helper=name_of,
                collections=summary.collections,
            )
        )
    for first in firsts:
        opened[(prefix, first)] = opened.get((prefix, first), 0) + 1
    return made


def rewrite(editor: Editor, helpers: dict[str, Helper]) -> None:
    """Each helper returns the values it summarized (its summaries go), each call binds them."""
    for helper in helpers.values():
        name = helper.function.name.value
        if not helper.calls:
            continue
        if not editor.fix(
            helper.function.name,
            f"`{name}` makes its summaries once per call: it returns the values it summarized, "
            "written by the program with tf.summary v2 under each call's scopes",
        ):
            raise Decline(helper.function, f"the rewrite of `{name}` is silenced")
        for summary in helper.summaries:
            if summary.expression is not None:
                bound = cst.Assign([cst.AssignTarget(summary.value)], summary.expression)
                editor.replace(summary.statement, partial(_bound, bound))
            else:
                editor.remove(summary.statement)
        if helper.returned:
            returned = cst.parse_statement(f"return {', '.join(helper.returned)}\n")
            editor.replace(
                helper.function,
                lambda updated, line=returned: updated.with_changes(
                    body=updated.body.with_changes(body=[*updated.body.body, line])
                ),
            )
        for statement, names in helper.calls.values():
            if not names:
                continue
            if not editor.fix(
                statement.body[0].value,
                f"`{name}(...)` binds the values it summarized, fetched by the run writing them",
            ):
                raise Decline(statement, f"the rewrite of a call of `{name}` is silenced")
            target = cst.parse_expression(", ".join(names))
            if isinstance(target, cst.Tuple):
                target = target.with_changes(lpar=[], rpar=[])
            editor.replace(
                statement,
                lambda updated, target=target: updated.with_changes(
                    body=[cst.Assign([cst.AssignTarget(target)], updated.body[0].value)]
                ),
            )


def _bound(bound: cst.Assign, updated: cst.SimpleStatementLine) -> cst.SimpleStatementLine:
    return updated.with_changes(body=[bound])


def _summary_op(plan: ProgramPlan, call: cst.Call) -> bool:
    return plan.tf.is_tf(call.func, *SUMMARY_OPS) and not written_at_a_step(plan, call)


def written_at_a_step(plan: ProgramPlan, call: cst.Call) -> bool:
    """Whether a summary call is TF2's: given a ``step``, or under ``with
    writer.as_default(step=...)`` (a migrated program read again)."""
    if any(a.keyword is not None and a.keyword.value == "step" for a in call.args):
        return True
    return any(
        isinstance(node, cst.With)
        and any(
            isinstance(item.item, cst.Call)
            and isinstance(item.item.func, cst.Attribute)
            and item.item.func.attr.value == "as_default"
            and any(a.keyword is not None and a.keyword.value == "step" for a in item.item.args)
            for item in node.items
        )
        for node in ancestors(call, plan.parents)
    )


def _only_called(plan: ProgramPlan, function: cst.FunctionDef, imported: bool) -> bool:
    """Whether every read of the function's name is a call of it whose value is not used (or
    there is none, and no other file may call it)."""
    name = function.name.value
    names = (n for n in walk(plan.module, code_only=True) if isinstance(n, cst.Name))
    uses = [n for n in names if n.value == name]
    for use in uses:
        if use is function.name:
            continue
        call = plan.parents.get(id(use))
        if not (isinstance(call, cst.Call) and call.func is use):
            return False
        made = statement_of(call, plan.parents)
        if made is None or made[0] is not None:
            return False
    # A function nothing calls makes no summaries: left as it is.
    return len(uses) > 1 or not imported


def _scope_given(
    plan: ProgramPlan,
    helper: Helper,
    call: cst.Call,
    given: dict[str, Optional[cst.BaseExpression]],
    tag: str,
) -> str:
    """The tag with the scope named by a parameter of the helper (``{label}/norm``) named by
    the literal the call gives it, or its default (``weights/norm``)."""
    found = re.match(r"\{(\w+)\}/", tag)
    if found is None:
        return tag
    parameter = found.group(1)
    value = given.get(parameter)
    params = helper.function.params
    default = next((p.default for p in [*params.params, *params.kwonly_params] if p.name.value == parameter), None)
    if value is None:  # the call leaves it to its default
        value = default
    name_of = helper.function.name.value
    if not (
        isinstance(value, cst.SimpleString)
        and isinstance(value.evaluated_value, str)
        and re.fullmatch(r"[\w.-]+", value.evaluated_value)
    ):
        raise Decline(call, f"`{name_of}` names a scope by `{parameter}`, which this call does not give as a literal")
    # A scope name the file writes other than as an argument of the helper may be taken first.
    for literal in plan.strings():
        if literal.evaluated_value != value.evaluated_value or literal is default:
            continue
        made = next(
            (n for n in ancestors(literal, plan.parents) if isinstance(n, cst.Call)),
            None,
        )
        if not (isinstance(made, cst.Call) and isinstance(made.func, cst.Name) and made.func.value == name_of):
            raise Decline(
                call,
                f"`{name_of}` opens the scope `{value.evaluated_value}`, a name the file writes "
                f"elsewhere (TF1 may have made the scope `{value.evaluated_value}_1`)",
            )
    return value.evaluated_value + tag[found.end() - 1 :]


def _arguments(helper: Helper, call: cst.Call) -> dict[str, Optional[cst.BaseExpression]]:
    """The value each parameter of the helper is given by ``call`` (None: its default)."""
    given: dict[str, Optional[cst.BaseExpression]] = {name: None for name in helper.parameters}
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in call.args) or len(positional) > len(helper.parameters):
        raise Decline(call, f"the arguments of `{helper.function.name.value}` could not be read")
    for name, arg in zip(helper.parameters, positional):
        given[name] = arg.value
    for arg in call.args:
        if arg.keyword is not None:
            if arg.keyword.value not in given:
                name = helper.function.name.value
                raise Decline(call, f"`{name}` is given `{arg.keyword.value}`")
            given[arg.keyword.value] = arg.value
    return given
