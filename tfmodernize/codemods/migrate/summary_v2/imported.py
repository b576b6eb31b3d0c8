"""Summary-v2 across a project's modules: summaries that imported functions or classes make when
called (a ``merge_all`` merges them too), and those a project class exports (a network
function's histograms of its own variables, written from each calling object's variables).
Functions of the ``ProgramPlan`` the codemod reads."""

from __future__ import annotations

import re

import libcst as cst

from tfmodernize.codemods.migrate.summary_v2.model import Summary
from tfmodernize.codemods.migrate.summary_v2.plan import ProgramPlan
from tfmodernize.codemods.migrate.summary_v2.tags import scope_prefix
from tfmodernize.codemod import Decline
from tfmodernize.syntax import source, statement_holding
from tfmodernize.treewalk import import_statements, walk


def no_imported_summaries(plan: ProgramPlan, merge: cst.Call) -> None:
    """Declines a ``merge_all`` in a file importing a project module's function or class that
    makes summaries when called: TF1 merged those too, and they are not written here."""
    for statement in import_statements(plan.module):
        if isinstance(statement, cst.ImportFrom) and not statement.relative and statement.module is not None:
            pairs = (
                [(source(statement.module), alias) for alias in statement.names]
                if not isinstance(statement.names, cst.ImportStar)
                else [(source(statement.module), None)]
            )
        elif isinstance(statement, cst.Import):
            pairs = [(source(alias.name), None) for alias in statement.names]
        else:
            continue
        for name, alias in pairs:
            summary = plan.summarized(name)
            making = set((summary or {}).get("summarizing") or ())
            # A function another codemod's rewrite made a class (its export): the class makes them.
            making |= {
                function for function, split in plan.exported_classes(name).items() if split.get("class") in making
            }
            picked = making if alias is None else making & {source(alias.name)}
            if picked:
                raise Decline(
                    merge,
                    f"`merge_all` also merges the summaries that `{sorted(picked)[0]}` ({name}.py) "
                    "makes when called, which this migration does not write",
                )


def object_summaries(plan: ProgramPlan, merge: cst.Call) -> list[Summary]:
    """The summaries ``merge_all`` merges that objects of project classes made when called
    before it (their module exports them: a network function's histograms of its variables):
    each call made them again, under its scope made unique (``critic``, then ``critic_1``)."""
    exported = exported_summaries(plan)
    if not exported:
        return []
    module = plan.module
    order = {id(n): i for i, n in enumerate(walk(module, code_only=True))}
    parents = plan.parents
    found: list[Summary] = []
    opened: dict[tuple[str, str], int] = {}
    called: set[str] = set()  # objects called before: a later call shares their variables
    for node in walk(module, code_only=True):
        if not (isinstance(node, cst.Name) and node.value in exported):
            continue
        made, summaries = exported[node.value]
        call = parents.get(id(node))
        if node is made or isinstance(call, cst.Attribute) and call.value is node:
            continue  # made here, or one of its variables read (``net.kernel``): no summary is made
        if not (isinstance(call, cst.Call) and call.func is node):
            raise Decline(node, f"`{node.value}` makes summaries when called, and is used other than called")
        line = statement_holding(call, parents)
        if not isinstance(line, cst.SimpleStatementLine) or plan.owners.get(id(line), "elsewhere") is not plan.program:
            raise Decline(
                call,
                f"`{node.value}` makes summaries when called, and is called elsewhere than in the "
                "program's code that merges them",
            )
        if order[id(call)] > order[id(merge)]:
            continue  # made after merge_all: not merged
        prefix = scope_prefix(plan, call)
        making = node.value not in called
        called.add(node.value)
        for kind, scope, name, attribute, taken in summaries:
            first, _, rest = scope.partition("/")
            count = opened.get((prefix, first), 0)
            unique = (first if not count else f"{first}_{count}") + (f"/{rest}" if rest else "")
            written = re.sub(r"[^-/\w.]", "_", name).lstrip("/") + ("_1" if taken and making else "")
            tag = f"{prefix}{unique}/{written}"
            found.append(
                Summary(
                    line,
                    call,
                    kind,
                    tag,
                    cst.SimpleString(f'"{tag}"'),
                    cst.Name(node.value),
                    None,
                    direct=f"{node.value}.{attribute}",
                )
            )
        firsts = {scope.partition("/")[0] for _, scope, *_ in summaries}
        for first in firsts:
            opened[(prefix, first)] = opened.get((prefix, first), 0) + 1
    return found


def exported_summaries(plan: ProgramPlan) -> dict[str, tuple[cst.Name, list]]:
    """Module-level objects of project classes that make summaries when called: name ->
    (the name where it is made, the summaries its class exports)."""
    classes: dict[str, list] = {}
    for statement in plan.module.body:
        for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
            if not isinstance(small, cst.ImportFrom) or small.relative or small.module is None:
                continue
            for split in plan.exported_classes(source(small.module)).values():
                if isinstance(small.names, cst.ImportStar):  # ``from ops import *``: every class
                    if split.get("summaries") and split.get("class"):
                        classes[split["class"]] = split
                    continue
                for alias in small.names:
                    if split.get("summaries") and source(alias.name) == split.get("class"):
                        local = source(alias.asname.name) if alias.asname else source(alias.name)
                        classes[local] = split
    objects: dict[str, tuple[cst.Name, list]] = {}
    for statement in plan.module.body:
        small = (
            statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 else None
        )
        if (
            isinstance(small, cst.Assign)
            and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)
            and isinstance(small.value, cst.Call)
            and isinstance(small.value.func, cst.Name)
            and small.value.func.value in classes
        ):
            split = classes[small.value.func.value]
            objects[small.targets[0].target.value] = (
                small.targets[0].target,
                [[kind, scope_of(scope, small.value, split), *rest] for kind, scope, *rest in split["summaries"]],
            )
    return objects


def scope_of(scope: str, made: cst.Call, split: dict) -> str:
    """The variable scope a class's summaries are made in, for the object ``made``: a scope
    named by a parameter (``{tag}``) is the string literal the construction passes it."""

    def named(match: re.Match) -> str:
        parameter = match.group(1)
        init = split.get("init") or []
        given = next(
            (arg.value for arg in made.args if arg.keyword is not None and arg.keyword.value == parameter), None
        )
        positional = [arg.value for arg in made.args if arg.keyword is None and not arg.star]
        if given is None and parameter in init and init.index(parameter) < len(positional):
            given = positional[init.index(parameter)]
        if not (
            isinstance(given, cst.SimpleString)
            and isinstance(given.evaluated_value, str)
            and re.fullmatch(r"[-\w.]+", given.evaluated_value)
        ):
            raise Decline(
                made,
                f"its class's summaries are made under the variable scope `{parameter}` names, and "
                "this object is not given a name written out for it",
            )
        return given.evaluated_value

    return re.sub(r"\{(\w+)\}", named, scope)
