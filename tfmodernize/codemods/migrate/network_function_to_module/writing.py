"""How network-function-to-module writes a tf.Module: its methods' parameters and bodies."""

from __future__ import annotations

import libcst as cst

from tfmodernize.codemods.migrate.network_function_to_module.plan import Network
from tfmodernize.layout import moved
from tfmodernize.names import name_nodes


def commas(args: list[cst.Arg]) -> list[cst.Arg]:
    """``args`` as a call's argument list: ``, `` between them, none after the last."""
    if not args:
        return []
    between = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    return [*(a.with_changes(comma=between) for a in args[:-1]), args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]


def parameters(params: list[cst.Param]) -> cst.Parameters:
    every = [cst.Param(cst.Name("self")), *params]
    return cst.Parameters(
        [
            *[p.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for p in every[:-1]],
            every[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT),
        ]
    )


def on_self(statement: cst.BaseStatement, variables: frozenset[str]) -> cst.BaseStatement:
    """``statement`` reading (and binding) each variable as ``self.<name>``."""
    targets = {id(n) for n in name_nodes(statement) if n.value in variables}

    class OnSelf(cst.CSTTransformer):
        def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
            if id(original) in targets:
                return cst.Attribute(cst.Name("self"), cst.Name(original.value))
            return updated

    return statement.visit(OnSelf())


def laid_out(statement: cst.BaseStatement, limit: int, depth: int) -> cst.BaseStatement:
    """``statement``, moved ``depth`` blocks deep, kept to ``limit``: its comments and its lines
    wrapped where wider (``layout.moved``), and so the statements of a block it opens."""
    statement = moved(statement, limit, depth)
    body = getattr(statement, "body", None)
    if not isinstance(body, cst.IndentedBlock):
        return statement
    inner = [laid_out(stmt, limit, depth + 1) for stmt in body.body]
    if all(new is old for new, old in zip(inner, body.body)):
        return statement
    return statement.with_changes(body=body.with_changes(body=inner))


def headed(network: Network) -> dict[int, cst.BaseStatement]:
    """The statements that get a copy of a heading the other method's statement has, by
    identity, with it above their own lines.

    A heading is the comments above a statement: a section's when a blank line is above them
    (or the statement opens the body), a statement's own otherwise. The first statement of
    the other method after a section's heading gets a copy of it (``# second layer`` heads the
    layer's weights in ``__init__`` and the op applying them in ``__call__``), and a copy of the
    latest statement's own heading since (``# decoder`` above the first decoder weight), unless
    it has its own comments: a comment above one statement goes with that statement only."""
    into_init = {id(s) for s in network.init}
    parts = into_init | {id(s) for s in network.apply}
    body = [s for s in network.function.body.body if id(s) in parts]
    # For each method (``True``: ``__init__``), the headings of the other method it did not show.
    sections: dict[bool, list[cst.EmptyLine]] = {True: [], False: []}
    owns: dict[bool, list[cst.EmptyLine]] = {True: [], False: []}
    headed: dict[int, cst.BaseStatement] = {}
    for position, statement in enumerate(body):
        mine = id(statement) in into_init
        other = not mine
        lines = list(statement.leading_lines)
        heading = any(line.comment is not None for line in lines)
        opens = position == 0 or any(line.comment is None for line in lines)  # a section
        shown = [] if opens else sections[mine] + ([] if heading else owns[mine])
        if opens:
            sections[other], owns[other] = (lines if heading else []), []
        elif heading:
            owns[other] = lines
        sections[mine], owns[mine] = [], []
        if any(line.comment is not None for line in shown):
            copies = [line.deep_clone() for line in shown]
            headed[id(statement)] = statement.with_changes(leading_lines=[*copies, *lines])
    return headed


def opening(statements) -> list[cst.BaseStatement]:
    """A method body: its first statement without the blank lines above it."""
    body = list(statements)
    if body and not isinstance(body[0], cst.SimpleStatementLine) or not body:
        return body
    lines = list(body[0].leading_lines)
    while lines and lines[0].comment is None:
        lines.pop(0)
    return [body[0].with_changes(leading_lines=lines), *body[1:]]


def camel_case(name: str) -> str:
    """``build_ANN`` -> ``BuildANN``, ``add_layer`` -> ``AddLayer``."""
    return "".join(part[:1].upper() + part[1:] for part in name.split("_") if part) or "Network"
