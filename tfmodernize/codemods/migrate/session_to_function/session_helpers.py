"""Functions of a unit given the session they run the graph in: ``def test(sess): ...
sess.run(accuracy, feed_dict={...}) ...``, defined where the graph is built and called as
``test(sess)`` where it runs.

Such a function is a run statement of the unit (``Kind.RUN``): its session calls become calls of
the unit's functions like any other, its session parameter goes, and so does the session each
call hands it (``test()``). What it reads of the graph by closure is read where it is defined,
as the functions computing its fetches are: nothing may bind those names again after it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Sequence

import libcst as cst

from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.session_to_function.statement_reads import names_used
from tfmodernize.names import parameter_names, plain_parameters
from tfmodernize.syntax import argument
from tfmodernize.treewalk import walk


@dataclass
class SessionHelper:
    """``def test(sess):``: the definition, its session parameter and that parameter's place."""

    name: str
    definition: cst.FunctionDef
    param: cst.Param
    position: int
    #: index of the unit statement defining it (set when the unit reads it)
    index: int = -1
    #: the graph names it reads from the unit where it is defined
    reads: frozenset[str] = frozenset()
    #: the arguments handing it a session, by the id of the call (``test(sess)``)
    handed: dict[int, cst.Arg] = field(default_factory=dict)
    #: indices of the unit statements calling it: where its runs run
    callers: list[int] = field(default_factory=list)


def session_helpers(statements: Sequence[cst.BaseStatement]) -> dict[str, SessionHelper]:
    """The functions defined among ``statements`` (a unit's own, blocks read through) that take
    a plain parameter used only to run the graph (``sess.run(...)``), by name."""
    found: dict[str, SessionHelper] = {}
    for statement in statements:
        if not isinstance(statement, cst.FunctionDef) or not plain_parameters(statement):
            continue
        for position, param in enumerate(statement.params.params):
            if param.default is None and _runs_only(statement, param.name.value):
                found[statement.name.value] = SessionHelper(statement.name.value, statement, param, position)
                break
    return found


def _runs_only(definition: cst.FunctionDef, name: str) -> bool:
    """Whether ``name`` is read in ``definition``'s body, only as the session of ``name.run(...)``
    running what the graph names (a fetch or fed tensor given as a parameter, ``report(sess, y,
    feed)``, is not followed)."""
    runs: set[int] = set()
    params = set(parameter_names(definition))
    for node in walk(definition.body, code_only=True):
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "run"
            and isinstance(node.func.value, cst.Name)
            and node.func.value.value == name
        ):
            fetches, feed = argument(node, 0, "fetches"), argument(node, 1, "feed_dict")
            read = [fetches] if fetches is not None else []
            if isinstance(feed, cst.Dict):
                read += [e.key for e in feed.elements if isinstance(e, cst.DictElement)]
            elif feed is not None:
                read.append(feed)
            if any(names_used(part) & params for part in read):
                return False
            runs.add(id(node.func.value))
    names = [n for n in walk(definition.body, code_only=True) if isinstance(n, cst.Name) and n.value == name]
    return bool(runs) and all(id(n) in runs for n in names)


def handed_session(helper: SessionHelper, call: cst.Call, sessions: set[str]) -> Optional[cst.Arg]:
    """The argument of ``call`` (a call of ``helper``) handing it a session of the unit, or None."""
    if any(arg.star for arg in call.args):
        return None
    keyword = next((a for a in call.args if a.keyword is not None and a.keyword.value == helper.param.name.value), None)
    positional = [a for a in call.args if a.keyword is None]
    arg = keyword or (positional[helper.position] if helper.position < len(positional) else None)
    if arg is None or not isinstance(arg.value, cst.Name) or arg.value.value not in sessions:
        return None
    return arg


def check_calls(
    helpers: dict[str, SessionHelper], statements: Sequence[cst.BaseStatement], sessions: set[str], openings: int
) -> None:
    """Every use of a session helper is a call handing it one of the unit's sessions (the unit's
    ``statements``, in order), in a program opening one session; declines otherwise."""
    for helper in helpers.values():
        calls: dict[int, cst.Call] = {}
        for statement in statements:
            for node in walk(statement, code_only=True):
                if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == helper.name:
                    calls[id(node.func)] = node
        for position, statement in enumerate(statements):
            if statement is helper.definition:
                continue
            for node in walk(statement, code_only=True):
                if not isinstance(node, cst.Name) or node.value != helper.name:
                    continue
                call = calls.get(id(node))
                arg = handed_session(helper, call, sessions) if call is not None else None
                if arg is None:
                    raise Decline(
                        node,
                        f"`{helper.name}` runs the graph in the session it is given and is used other "
                        "than called with a session of this program: pass it the values it runs by hand",
                    )
                helper.handed[id(call)] = arg
                if position not in helper.callers:
                    helper.callers.append(position)
        if helper.handed and openings > 1:
            raise Decline(
                helper.definition,
                f"`{helper.name}` is given a session in a program opening several: which one each call "
                "runs in is not followed",
            )


def without(items: Sequence, dropped: set[int], originals: Sequence) -> list:
    """``items`` (the arguments or parameters as rebuilt) without those whose original (same
    position in ``originals``) is in ``dropped``, the last one kept losing a trailing comma
    only the dropped ones needed."""
    kept = [item for item, original in zip(items, originals) if id(original) not in dropped]
    if kept and len(kept) < len(items) and items[-1].comma == cst.MaybeSentinel.DEFAULT:
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return kept
