"""Summary-v2's reading of one summary statement and the tag TF1 wrote for it: its name scopes,
invalid characters replaced, ``_1`` where an op of the scope took the name first. Functions of
the ``ProgramPlan`` the codemod reads."""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from tfmodernize.names import fresh_name
from tfmodernize.codemods.migrate.summary_v2.model import Summary
from tfmodernize.codemods.migrate.summary_v2.plan import ProgramPlan
from tfmodernize.codemod import Decline
from tfmodernize.names import own_nodes
from tfmodernize.syntax import ancestors, argument, source, statement_holding, statement_of
from tfmodernize.treewalk import walk


def definition(plan: ProgramPlan, call: cst.Call) -> tuple[cst.SimpleStatementLine, Optional[str]]:
    """The statement ``[name =] <call>`` the call makes on its own, and the name it binds."""
    found = statement_of(call, plan.parents)
    if found is None:
        raise Decline(
            call, f"`{source(call.func)}(...)` is not a statement of its own (`x = {source(call.func)}(...)`)"
        )
    name, statement = found
    if id(statement) not in plan.owners:
        raise Decline(
            call,
            "it is made inside a class, a nested function or a lambda; only a program's top-level "
            "code or a module function's own lines are migrated",
        )
    owner = plan.owners[id(statement)]
    if plan.owner is not None and plan.owner[0] is not owner:
        first, other = (f"`{f.name.value}`" if f is not None else "the top-level code" for f in (plan.owner[0], owner))
        raise Decline(
            call,
            f"the program's summaries are made both in {first} and in {other}: a merge of them is "
            "not read across functions",
        )
    plan.owner = (owner,)
    return statement, name


def named(call: cst.Call, name: Optional[str]) -> str:
    if name is None:
        raise Decline(call, "its result is not kept in a name")
    return name


def read_summary(
    plan: ProgramPlan,
    statement: cst.SimpleStatementLine,
    call: cst.Call,
    kind: str,
    name: Optional[str],
    taken: set[str],
) -> Summary:
    tag = argument(call, 0, "name")
    value = argument(call, 1, "tensor" if kind in ("scalar", "image", "text") else "values")
    if not isinstance(tag, cst.SimpleString) or not isinstance(tag.evaluated_value, str) or value is None:
        raise Decline(call, "its tag is not a literal string")
    extra = [a.keyword.value if a.keyword else "positional" for a in call.args[2:]]
    allowed = ("max_outputs", "positional") if kind == "image" else ()
    if any(word not in allowed for word in extra) or len(extra) > 1:
        raise Decline(
            call,
            f"it passes {', '.join(w for w in extra if w not in allowed) or 'more arguments'}, "
            "which this migration does not map",
        )
    # TF1's tag: the summary's name scope, its name cleaned as ``summary_scope`` cleans it.
    cleaned = re.sub(r"[^-/\w.]", "_", tag.evaluated_value).lstrip("/")
    written = scope_prefix(plan, call) + cleaned + suffix(plan, call, cleaned)
    literal = (
        tag if written == tag.evaluated_value else cst.SimpleString(f"{tag.prefix}{tag.quote}{written}{tag.quote}")
    )
    expression = None
    if not isinstance(value, cst.Name):
        expression = value
        value = cst.Name(fresh_name(f"{re.sub(r'[^0-9a-zA-Z_]', '_', written.rsplit('/', 1)[-1])}_summarized", taken))
    return Summary(statement, call, kind, written, literal, value, name, argument(call, 2, "max_outputs"), expression)


def scope_prefix(plan: ProgramPlan, call: cst.Call) -> str:
    """``"a/b/"`` for a summary made under ``name_scope("a")`` / ``variable_scope("b")``
    blocks, each named by a literal and opened once in the file (a scope opened again, or
    whose name the file writes elsewhere, may have been made unique by TF1: ``a_1``)."""
    parents = plan.parents
    names: list[str] = []
    for node in ancestors(call, parents):
        if not isinstance(node, cst.With):
            continue
        for item in node.items:
            if not (isinstance(item.item, cst.Call) and plan.tf.is_tf(item.item.func, "name_scope", "variable_scope")):
                continue
            scope = item.item
            given = argument(scope, 0, "name") or argument(scope, None, "name_or_scope")
            if (
                len(scope.args) != 1
                or not isinstance(given, cst.SimpleString)
                or not isinstance(given.evaluated_value, str)
                or not re.fullmatch(r"[\w.-]+", given.evaluated_value)
            ):
                raise Decline(call, f"it is made under `{source(scope)}`, whose prefix to its tag is not read here")
            # Names written inside the block are under the scope (``loss/loss``): only the others may clash.
            inside = {id(n) for n in walk(node.body, code_only=True)}
            if (
                sum(
                    1
                    for literal in plan.strings()
                    if literal.evaluated_value == given.evaluated_value and id(literal) not in inside
                )
                != 1
            ):
                raise Decline(
                    call,
                    f"it is made under the scope `{given.evaluated_value}`, a name the file writes "
                    f"again outside it (TF1 may have made the scope `{given.evaluated_value}_1`)",
                )
            names.insert(0, given.evaluated_value)
    return "".join(f"{name}/" for name in names)


def suffix(plan: ProgramPlan, call: cst.Call, name: str) -> str:
    """``_1`` when an op named ``name`` (``name="loss"``) was made before the summary in the
    same scope block: TF1 made the summary's name unique (``loss_1``)."""
    parents = plan.parents
    block = next((n for n in ancestors(call, parents) if isinstance(n, (cst.With, cst.FunctionDef))), plan.module)
    line = statement_holding(call, parents)
    nodes = list(own_nodes(block))
    before = nodes[: next((i for i, n in enumerate(nodes) if n is line), len(nodes))]
    # Blocks opened inside this one are other scopes: their names do not clash.
    inner = {id(node) for with_ in before if isinstance(with_, cst.With) for node in walk(with_.body, code_only=True)}
    taken = sum(
        1
        for n in before
        if isinstance(n, cst.Arg)
        and n.keyword is not None
        and n.keyword.value == "name"
        and isinstance(n.value, cst.SimpleString)
        and n.value.evaluated_value == name
        and id(n) not in inner
    )
    return f"_{taken}" if taken else ""
