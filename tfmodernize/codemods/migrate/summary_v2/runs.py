"""Summary-v2's reading of where a program merges, fetches and writes its summaries:
``merge``/``merge_all``, the runs fetching them, ``add_summary`` of a writer, and the uses it
must account for. Functions of the ``ProgramPlan`` the codemod reads."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tfmodernize.codemods.migrate.summary_v2.model import Summary, Fetch
from tfmodernize.codemods.migrate.summary_v2.plan import ProgramPlan
from tfmodernize.codemods.migrate.summary_v2.tags import collection_name
from tfmodernize.codemod import Decline
from tfmodernize.names import name_nodes, target_name_nodes
from tfmodernize.syntax import argument, source
from tfmodernize.treewalk import walk


def merged(plan: ProgramPlan, call: cst.Call, path: str, summaries: list[Summary]) -> list[Summary]:
    if path == "summary.merge_all":
        keywords = {a.keyword.value for a in call.args if a.keyword is not None}
        if keywords - {"key"} or len(call.args) > 1:
            raise Decline(call, "`merge_all` with arguments other than `key`")
        key = merge_key(plan, call)
        return [summary for summary in summaries if key in summary.collections]
    listed = argument(call, 0, "inputs")
    if not isinstance(listed, (cst.List, cst.Tuple)) or len(call.args) != 1:
        raise Decline(call, "`merge` of something other than a literal list of summaries")
    by_name = {s.name: s for s in summaries if s.name is not None}
    picked = []
    for element in listed.elements:
        if not isinstance(element.value, cst.Name) or element.value.value not in by_name:
            raise Decline(call, f"`merge` of `{source(element.value)}`, which is not a summary made above it")
        picked.append(by_name[element.value.value])
    return picked


def merge_key(plan: ProgramPlan, call: cst.Call) -> str:
    """The collection a ``merge_all`` merges (``"summaries"``, or the key it is given)."""
    key = argument(call, 0, "key")
    return "summaries" if key is None else collection_name(plan, call, key)


def fetches(module: cst.Module, fetchable: dict[str, list[Summary]]) -> list[Fetch]:
    """Every run that fetches a summary or a merged summary, unpacked into names."""
    found = []
    for statement in walk(module, code_only=True):
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for call in (n for n in walk(statement, code_only=True) if isinstance(n, cst.Call)):
            if not (isinstance(call.func, cst.Attribute) and call.func.attr.value == "run" and call.args):
                continue
            fetched = call.args[0].value
            elements = fetch_elements(fetched)
            named = [e.value for e in elements] if elements is not None else [fetched]
            if not any(isinstance(n, cst.Name) and n.value in fetchable for n in named):
                continue
            small = statement.body[0]
            if (
                len(statement.body) != 1
                or not isinstance(small, cst.Assign)
                or small.value is not call
                or len(small.targets) != 1
            ):
                raise Decline(call, "a run fetching summaries is not `result = sess.run(...)` on a line of its own")
            target = small.targets[0].target
            fetch = Fetch(statement, call)
            if elements is None:
                if not isinstance(target, cst.Name):
                    raise Decline(call, "the fetched summary is not assigned to a name")
                fetch.summaries.append((None, fetched.value, target.value))
            else:
                if (
                    not isinstance(target, (cst.Tuple, cst.List))
                    or len(target.elements) != len(elements)
                    or len(target_name_nodes(target)) != len(elements)
                ):
                    raise Decline(call, "the run's results are not unpacked into one name each")
                for index, (element, bound) in enumerate(zip(named, target.elements)):
                    if isinstance(element, cst.Name) and element.value in fetchable:
                        fetch.summaries.append((index, element.value, bound.value.value))
            found.append(fetch)
    return found


def fetch_elements(fetched: cst.BaseExpression) -> Optional[list[cst.BaseElement]]:
    """The elements of a list or tuple of fetches, also written as a sum of literal lists
    (``[merged] + [loss]``); None for a single fetch."""
    if isinstance(fetched, (cst.List, cst.Tuple)):
        return list(fetched.elements)
    if (
        isinstance(fetched, cst.BinaryOperation)
        and isinstance(fetched.operator, cst.Add)
        and type(fetched.left) is type(fetched.right)
        and not fetched.lpar
    ):
        left, right = fetch_elements(fetched.left), fetch_elements(fetched.right)
        if left is not None and right is not None:
            return left + right
    return None


def adds(
    module: cst.Module, writers: dict, fetches: list[Fetch]
) -> dict[int, tuple[cst.SimpleStatementLine, str, str, Optional[cst.BaseExpression]]]:
    """``writer.add_summary(result, step)`` statements: id of the call -> (statement, writer, result, step)."""
    results = {result for fetch in fetches for _, _, result in fetch.summaries}
    found = {}
    for statement in walk(module, code_only=True):
        if not (
            isinstance(statement, cst.SimpleStatementLine)
            and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Expr)
            and isinstance(statement.body[0].value, cst.Call)
        ):
            continue
        call = statement.body[0].value
        if not (
            isinstance(call.func, cst.Attribute)
            and call.func.attr.value == "add_summary"
            and isinstance(call.func.value, cst.Name)
            and call.func.value.value in writers
        ):
            continue
        summary = argument(call, 0, "summary")
        step = argument(call, 1, "global_step")
        if not isinstance(summary, cst.Name) or summary.value not in results:
            raise Decline(call, "`add_summary` of something other than a fetched summary")
        found[id(call)] = (statement, call.func.value.value, summary.value, step)
    return found


def graph_writes(module: cst.Module, writers: dict) -> list[cst.SimpleStatementLine]:
    """``writer.add_graph(...)`` statements, each a line of its own."""
    found = []
    for statement in walk(module, code_only=True):
        if (
            isinstance(statement, cst.SimpleStatementLine)
            and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Expr)
            and isinstance(statement.body[0].value, cst.Call)
        ):
            func = statement.body[0].value.func
            if (
                isinstance(func, cst.Attribute)
                and func.attr.value == "add_graph"
                and isinstance(func.value, cst.Name)
                and func.value.value in writers
            ):
                found.append(statement)
    return found


def check_uses(
    plan: ProgramPlan, writers: dict, fetches: list[Fetch], adds: dict, fetchable: dict, own_statements: list
) -> None:
    """Writers, fetched summaries and summary ops are used only where this rewrites them."""
    allowed: set[int] = set()
    for statement in own_statements:
        allowed |= {id(n) for n in walk(statement, code_only=True)}
    for statement, call in writers.values():
        allowed |= {id(n) for n in walk(statement, code_only=True)}
    for fetch in fetches:
        allowed |= {id(n) for n in walk(fetch.statement, code_only=True)}
    for statement, *_ in adds.values():
        allowed |= {id(n) for n in walk(statement, code_only=True)}
    results = {result for fetch in fetches for _, _, result in fetch.summaries}
    for name in name_nodes(plan.module):
        if id(name) in allowed:
            continue
        if name.value in results:
            raise Decline(name, f"the fetched summary `{name.value}` is used other than by `add_summary`")
        if name.value in fetchable:
            raise Decline(name, f"the summary `{name.value}` is used other than by a run or a merge")
        if name.value in writers and not writer_method(plan, name, ("flush", "close")):
            raise Decline(name, f"the writer `{name.value}` is used other than by `add_summary`, `flush` and `close`")


def writer_method(plan: ProgramPlan, name: cst.Name, methods: tuple[str, ...]) -> bool:
    """Whether ``name`` is read as ``name.<one of methods>``."""
    parent = plan.parents.get(id(name))
    return isinstance(parent, cst.Attribute) and parent.value is name and parent.attr.value in methods
