"""A collection the program fills itself (``tf.add_to_collection("losses", x)`` ...
``tf.get_collection("losses")``), read as one Python list: where its uses are
(``own_collections``), whether they can become a list (``list_statement``) and its name."""

from __future__ import annotations

import re

import libcst as cst

from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.collections_to_tracking.plan import BUILTIN_KEYS, CollectionsPlan
from tfmodernize.names import fresh_name
from tfmodernize.syntax import argument

#: ``("add" | "get", the call)`` for each use of a collection, in source order.
Uses = list[tuple[str, cst.Call]]


def own_collections(plan: CollectionsPlan) -> dict[str, Uses]:
    """Each collection the program names itself (not one TF fills, ``BUILTIN_KEYS``) -> its
    ``add_to_collection(name, x)`` and ``get_collection(name)`` calls."""
    uses: dict[str, Uses] = {}
    for call in plan.calls:
        if plan.tf.is_tf(call.func, "add_to_collection"):
            kind = "add"
        elif plan.tf.is_tf(call.func, "get_collection"):
            kind = "get"
        else:
            continue
        key = plan.key(argument(call, 0, "name" if kind == "add" else "key"))
        if key is not None and key not in BUILTIN_KEYS:
            uses.setdefault(key, []).append((kind, call))
    return uses


def list_statement(plan: CollectionsPlan, found: Uses) -> cst.SimpleStatementLine:
    """The statement of the first ``add_to_collection`` of the collection whose uses are
    ``found``, before which its list is made; raises Decline when its uses cannot become one
    list (in several functions, a read before the first add, a filtered read)."""
    owners = {id(plan.owner(call)[0]) for _, call in found}
    if len(owners) != 1:
        raise Decline(found[0][1], "it is used in more than one function (or in a function and at module level)")
    owner = plan.owner(found[0][1])[0]
    body = list(owner.body if isinstance(owner, cst.Module) else owner.body.body)
    first_add = None
    for kind, call in found:
        _, statement = plan.owner(call)
        position = body.index(statement) if statement in body else None
        if kind == "add":
            if not (
                isinstance(statement, cst.SimpleStatementLine)
                and len(statement.body) == 1
                and isinstance(statement.body[0], cst.Expr)
                and statement.body[0].value is call
            ):
                raise Decline(found[0][1], "`add_to_collection` is not a statement of its own")
            if len(call.args) != 2 or any(a.star for a in call.args):
                raise Decline(found[0][1], "`add_to_collection` has unexpected arguments")
            if first_add is None or position < body.index(first_add):
                first_add = statement
        elif len(call.args) != 1:
            raise Decline(found[0][1], "`get_collection` filters by scope")
    if first_add is None:
        raise Decline(found[0][1], "nothing is added to it")
    first = body.index(first_add)
    for kind, call in found:
        _, statement = plan.owner(call)
        if kind == "get" and (statement not in body or body.index(statement) < first):
            raise Decline(found[0][1], "it is read before anything is added")
    return first_add


def list_name(plan: CollectionsPlan, key: str, found: Uses) -> str:
    """A fresh name for the list holding collection ``key`` (``losses_collection``)."""
    name = fresh_name(re.sub(r"\W", "_", key).strip("_") + "_collection", plan.taken)
    if not name.isidentifier() or name[0].isdigit():
        raise Decline(found[0][1], "its name does not make a Python identifier")
    return name
