"""A composite network: a module function making its variables only by calling network
functions on lines of its body (``encoder(x)`` calling ``dense(...)`` twice), read for
network-function-to-module, which makes it a ``tf.Module`` owning one sub-module per call."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import libcst as cst

from tfmodernize.analysis.tf1_api import NAME_SCOPES, PLACEHOLDERS, SESSIONS, VARIABLE_SCOPES
from tfmodernize.analysis.tf_objects import TF_MODULE_MEMBERS
from tfmodernize.analysis.variable_calls import creates_opaque_variables
from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.network_function_to_module.plan import (
    REPEATING,
    bind,
    named_args,
    trains,
    variable_statement,
)
from tfmodernize.names import (
    bound_names,
    fresh_name,
    name_nodes,
    names_bound_here,
    object_names,
    own_nodes,
    plain_parameters,
)
from tfmodernize.syntax import ancestors, calls_in, split_docstring
from tfmodernize.tfsymbols import root_name
from tfmodernize.treewalk import walk


@dataclass(frozen=True)
class Maker:
    """What a composite needs of a network function it calls (one made a tf.Module)."""

    function: cst.FunctionDef
    init_params: tuple[str, ...]  # what its ``__init__`` takes
    draws_when_called: bool  # its ``__call__`` draws a random value (a dropout)


@dataclass(frozen=True)
class Reading:
    """What the composite reader is given of the file."""

    tf: object  # the file's TF names (``TFCodemod.tf``)
    draws: Callable[[cst.Call], bool]  # whether a call is a TF random op
    drawers: set[str]  # module functions drawing random values
    makers: set[str]  # module functions creating variables
    foreign: dict[str, str]  # names imported from other files of the run
    parents: dict
    shared: Optional[object] = None  # the file's networks sharing through ``reuse`` (``SharedNetworks``)


@dataclass
class Part:
    """A call of a network function in a composite's body: a sub-module made in ``__init__``
    (``self.<attribute> = Dense(...)``) and called in ``__call__``."""

    call: cst.Call
    maker: Maker
    attribute: str
    init_args: list[cst.Arg]
    call_args: list[int]  # the indexes of the call's arguments ``__call__`` keeps


@dataclass
class Composite:
    function: cst.FunctionDef
    docstring: list[cst.BaseStatement]
    body: list[cst.BaseStatement]  # all of it goes to ``__call__``
    parts: list[Part]
    init_params: list[str]
    kept: list[str]  # parameters both the sub-modules and the ops read: ``self.<name>``
    kept_reads: set[int]  # the ``Name`` nodes of the ops reading them
    variable_scopes: frozenset[int] = frozenset()  # its ``tf.variable_scope("...")`` calls: name scopes now


def read_composite(function: cst.FunctionDef, makers: dict[str, Maker], reading: Reading) -> Optional[Composite]:
    """``function`` read as a composite network; None when it is none (no call of a network
    function, or variables of its own); Decline when it cannot be made a module."""
    docstring, body = split_docstring(list(function.body.body))
    reusing = reading.shared is not None and bool(body) and id(body[0]) in reading.shared.prologues
    if reusing:
        body = body[1:]  # ``if reuse: ...reuse_variables()``: its reusing calls call the first call's object
    calls = [c for c in calls_in(function.body) if isinstance(c.func, cst.Name) and c.func.value in makers]
    if not calls or any(variable_statement(s, reading.tf) for s in body):
        return None
    for call in calls_in(function.body):
        if reading.tf.is_tf(call.func, *SESSIONS, *PLACEHOLDERS) or trains(call, reading.tf):
            return None  # the program itself, or a training step's builder, run in a function
    if not plain_parameters(function) or function.decorators or function.asynchronous:
        raise Decline(function, "it is decorated or takes `*args`, `**kwargs` or keyword-only parameters")
    parameters = [p.name.value for p in function.params.params if not (reusing and p.name.value == "reuse")]
    if "self" in parameters:
        raise Decline(function, "it takes a parameter named `self`")
    inner = [n for n in walk(function.body, code_only=True) if isinstance(n, (cst.Lambda, cst.ClassDef))]
    inner += [
        n for n in own_nodes(function.body) if isinstance(n, (cst.FunctionDef, cst.Yield, cst.Global, cst.Nonlocal))
    ]
    if inner:
        raise Decline(inner[0], "it defines a function, lambda or class, or yields")
    flat = scoped_lines(body, reading.tf)  # (the lines of its name scopes too: each runs once)
    lines = {id(s) for s in flat}
    holders = []
    for call in calls:
        between = []  # the nodes between the call and its statement
        for holder in ancestors(call, reading.parents):
            if isinstance(holder, cst.BaseStatement):
                break
            between += [holder] if isinstance(holder, REPEATING) else []
        if id(holder) not in lines or not isinstance(holder, cst.SimpleStatementLine) or between:
            raise Decline(
                call, f"`{call.func.value}` is called other than in a line of its body (in a block or a lambda)"
            )
        if holder in holders:
            raise Decline(call, "it calls two network functions in one statement")
        holders.append(holder)
    part_ids = {id(c) for c in calls}
    for call in calls_in(function.body):
        root = root_name(call.func)
        if id(call) not in part_ids and (
            creates_opaque_variables(call, reading.tf)
            or (root is not None and (root.value in reading.makers or root.value in reading.foreign))
        ):
            raise Decline(call, "it creates variables other than by calling network functions on lines of its body")
    # Each sub-module is made in __init__, before the ops: nothing random may be drawn before the
    # last one is made (a dropout between two layers would take another place among the random ops).
    last = max(flat.index(h) for h in holders)
    # (A call holding the last one, ``tf.nn.dropout(dense(h, 8, 1), 0.5)``, draws after it.)
    final = next(c for c in reversed(calls) if any(c is n for n in walk(flat[last])))
    after = {id(n) for n in ancestors(final, reading.parents)}
    for statement in flat[: last + 1]:
        for call in calls_in(statement):
            if id(call) in part_ids or id(call) in after:
                continue
            if reading.draws(call) or (isinstance(call.func, cst.Name) and call.func.value in reading.drawers):
                raise Decline(call, "it draws a random value before a sub-network's variables are made")
    for call in calls[:-1]:
        if makers[call.func.value].draws_when_called:
            raise Decline(call, f"`{call.func.value}` draws a random value when called, before the next one is made")
    locals_bound = set().union(set(), *(bound_names(s) for s in flat))
    init_reads: set[int] = set()
    parts = []
    for call in calls:
        maker = makers[call.func.value]
        wanted = [p.name.value for p in maker.function.params.params]
        if bind(call, wanted) is None:
            raise Decline(call, f"the call passes `*args` or arguments `{call.func.value}` has no parameter for")
        named = named_args(call, maker.function)
        init_args = [a for a, p in named if p in maker.init_params]
        for arg in init_args:
            if any(isinstance(n, cst.Call) for n in walk(arg.value)):
                raise Decline(call, "an argument its sub-module is made with is computed by a call")
            for name in name_nodes(arg.value):
                if name.value in locals_bound and name.value not in parameters:
                    raise Decline(call, f"its sub-module is made with `{name.value}`, which the ops compute")
                init_reads.add(id(name))
        keep = [i for i, (_, p) in enumerate(named) if p not in maker.init_params]
        parts.append(Part(call, maker, "", init_args, keep))
    init_names = {n.value for n in name_nodes(function.body) if id(n) in init_reads}
    init_params = [p for p in parameters if p in init_names]
    kept_reads = {id(n) for n in name_nodes(function.body) if n.value in init_params and id(n) not in init_reads}
    kept = [p for p in init_params if any(n.value == p for n in name_nodes(function.body) if id(n) in kept_reads)]
    for shared in kept:
        binders = [n for n in own_nodes(function.body) if shared in names_bound_here(n)]
        if binders or shared in TF_MODULE_MEMBERS:
            raise Decline(function, f"`{shared}`, read by its sub-modules' arguments, is bound again by the ops")
    taken = set(kept) | set(TF_MODULE_MEMBERS)
    by_maker: dict[str, list[Part]] = {}
    for part in parts:
        by_maker.setdefault(part.maker.function.name.value, []).append(part)
    for name, same in by_maker.items():
        lines_of = [next(h for h in holders if id(part.call) in {id(c) for c in calls_in(h)}) for part in same]
        for part, attribute in zip(same, object_names(name, lines_of, taken)):
            # (One call keeps the function's name, unless another attribute has it.)
            part.attribute = fresh_name(attribute, taken) if len(same) == 1 else attribute
    scopes = frozenset(
        id(n.items[0].item)
        for n in walk(function.body)
        if isinstance(n, cst.With)
        and opens_scope(n, reading.tf)
        and reading.tf.is_tf(n.items[0].item.func, *VARIABLE_SCOPES)
    )
    return Composite(function, docstring, body, parts, init_params, kept, kept_reads, scopes)


def scoped_lines(body: list[cst.BaseStatement], tf) -> list[cst.BaseStatement]:
    """``body``'s statements, those of its ``with tf.name_scope("...")`` (or ``variable_scope``
    given a name alone) blocks in their place: each runs once."""
    lines = []
    for statement in body:
        if opens_scope(statement, tf):
            lines += scoped_lines(list(statement.body.body), tf)
        else:
            lines.append(statement)
    return lines


def opens_scope(statement: cst.BaseStatement, tf) -> bool:
    """``with tf.name_scope(...):``, or ``with tf.variable_scope("name"):`` (a literal, nothing
    else: its variables, the sub-modules', are made in ``__init__``, and it names the ops only)."""
    if not (
        isinstance(statement, cst.With)
        and len(statement.items) == 1
        and statement.items[0].asname is None
        and isinstance(statement.items[0].item, cst.Call)
        and isinstance(statement.body, cst.IndentedBlock)
    ):
        return False
    scope = statement.items[0].item
    if tf.is_tf(scope.func, *NAME_SCOPES):
        return True
    return (
        tf.is_tf(scope.func, *VARIABLE_SCOPES)
        and len(scope.args) == 1
        and scope.args[0].keyword is None
        and isinstance(scope.args[0].value, cst.SimpleString)
    )
