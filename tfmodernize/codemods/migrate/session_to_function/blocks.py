"""Reading a unit's ``with tf.Session()`` / ``with tf.Graph().as_default()`` / name scope
blocks through, as if dedented (``flatten``), and telling such blocks apart."""

from __future__ import annotations

from typing import Optional, Sequence

import libcst as cst

from tfmodernize import treewalk
from tfmodernize.treewalk import visit

from tfmodernize.codemod import Decline

from tfmodernize.tfsymbols import TFNames
from tfmodernize.syntax import argument

from tfmodernize.analysis.tf1_api import SESSIONS, VARIABLE_MAKERS
from tfmodernize.codemods.migrate.session_to_function.model import Flattened
from tfmodernize.codemods.migrate.session_to_function.statement_reads import names_used, single_assignment, tf_path


# -- reading blocks through -------------------------------------------------------------------


def session_call(expr: cst.BaseExpression, names: TFNames) -> Optional[cst.Call]:
    if isinstance(expr, cst.Call) and tf_path(expr.func, names) in SESSIONS:
        return expr
    return None


def _graph_context(expr: cst.BaseExpression, names: TFNames, graphs: frozenset[str]) -> bool:
    """``tf.Graph().as_default()``, or ``g.as_default()`` for a ``g = tf.Graph()``."""
    if not (
        isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "as_default"
    ):
        return False
    graph = expr.func.value
    if isinstance(graph, cst.Name):
        return graph.value in graphs
    return isinstance(graph, cst.Call) and tf_path(graph.func, names) == "Graph"


def flatten(body: Sequence[cst.BaseStatement], names: TFNames) -> Flattened:
    """The statements of ``body`` with ``with tf.Session() as s:`` and
    ``with tf.Graph().as_default():`` blocks read through."""
    out = Flattened()
    graphs = graph_names(body, names)
    used = frozenset().union(*(names_used(stmt) for stmt in body))
    # ``[v for v in tf.trainable_variables() if "generator" in v.name]``: names are read.
    reads_names = any(
        isinstance(n, cst.Attribute) and n.attr.value == "name"
        for stmt in body
        for n in treewalk.walk(stmt, code_only=True)
    )

    def walk(statements: Sequence[cst.BaseStatement], carried: Sequence[cst.EmptyLine]) -> None:
        for position, stmt in enumerate(statements):
            leading = list(carried) if position == 0 else []
            if isinstance(stmt, cst.With) and _is_read_through(stmt, names, graphs):
                for item in stmt.items:
                    if naming_scope(item, names) and item.asname is not None and item.asname.name.value in used:
                        raise Decline(item, f"the name scope's `{item.asname.name.value}` is used")
                    if (
                        reads_names
                        and naming_scope(item, names)
                        and tf_path(item.item.func, names) != "device"
                        and any(
                            isinstance(n, cst.Call) and tf_path(n.func, names) in VARIABLE_MAKERS
                            for n in treewalk.walk(stmt.body, code_only=True)
                        )
                    ):
                        raise Decline(
                            item,
                            "the variables made in this scope are named after it (`scope/Variable:0`) "
                            "and the program reads variable names: keep the scope as "
                            "`tf.name_scope(...)` around their creation by hand",
                        )
                    call = session_call(item.item, names)
                    if call is not None:
                        if item.asname is None or not isinstance(item.asname.name, cst.Name):
                            raise Decline(stmt, "a session opened without a name")
                        out.sessions.add(item.asname.name.value)
                        out.openings.append((item.asname.name.value, len(out.statements)))
                        config = argument(call, 2, "config")
                        if config is not None:
                            out.session_configs.append((config, len(out.statements)))
                out.removed_blocks.append(stmt)
                inner = stmt.body
                if not isinstance(inner, cst.IndentedBlock):
                    raise Decline(stmt, "a one-line session block")
                # A block left with nothing but ``pass`` leaves nothing behind.
                body = [s for s in inner.body if not _is_pass(s)]
                # The comment on a session block is about the session ("launch the graph"): it
                # goes with it; a graph or name scope block's comment heads what it built.
                first = len(out.statements)
                walk(
                    body,
                    [
                        *leading,
                        *(session_free(stmt.leading_lines) if opens_session(stmt, names) else stmt.leading_lines),
                    ],
                )
                if not opens_session(stmt, names):
                    out.scopes.append((stmt, first, len(out.statements)))
                continue
            node = stmt
            if leading:
                node = stmt.with_changes(leading_lines=[*leading, *stmt.leading_lines])
            out.statements.append((node, stmt))

    walk(body, ())
    out.nested_blocks = _nested_session_blocks([node for node, _ in out.statements], names, graphs)
    for block in out.nested_blocks:
        for item in block.items:
            if session_call(item.item, names) is not None:
                if item.asname is None or not isinstance(item.asname.name, cst.Name):
                    raise Decline(block, "a session opened without a name")
                if argument(session_call(item.item, names), 2, "config") is not None:
                    raise Decline(item, "a configured session inside another block")
                out.sessions.add(item.asname.name.value)
    return out


def opens_session(block: cst.With, names: TFNames) -> bool:
    """Whether a ``with`` block opens a session (``with tf.Session() as sess:``)."""
    return any(session_call(item.item, names) is not None for item in block.items)


def session_free(lines: Sequence[cst.EmptyLine]) -> list[cst.EmptyLine]:
    """The leading lines of a session block once it goes: its comment goes with it."""
    return [line for line in lines if line.comment is None]


def _nested_session_blocks(
    statements: Sequence[cst.BaseStatement], names: TFNames, graphs: frozenset[str]
) -> list[cst.With]:
    """Session blocks inside other statements (``if __name__ == "__main__":``, loops), not in
    nested definitions: they are dedented in place."""
    found: list[cst.With] = []

    class Finder(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return False

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            return False

        def visit_With(self, node: cst.With) -> None:
            if _is_read_through(node, names, graphs) and isinstance(node.body, cst.IndentedBlock):
                found.append(node)

    for stmt in statements:
        if not isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            visit(stmt, Finder())
    return found


def _is_pass(stmt: cst.BaseStatement) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and all(isinstance(s, cst.Pass) for s in stmt.body)


def _is_read_through(stmt: cst.With, names: TFNames, graphs: frozenset[str]) -> bool:
    return all(
        session_call(i.item, names) is not None or _graph_context(i.item, names, graphs) or naming_scope(i, names)
        for i in stmt.items
    )


def naming_scope(item: cst.WithItem, names: TFNames) -> bool:
    """``with tf.name_scope("loss"):`` / ``with tf.device("/cpu:0"):`` around graph building:
    they name and place ops, computing nothing, and are read through like a session block
    (an ``as scope`` name must be used nowhere: the scope string it binds is gone). So is a
    ``with tf.variable_scope("input"):`` given only its name: without ``reuse`` it shares
    nothing and only prefixes names (a ``tf.get_variable`` in it keeps the file on TF1 through
    get-variable-to-variable, which migrates none made in a scope)."""
    call = item.item
    if not (isinstance(call, cst.Call) and tf_path(call.func, names) in ("name_scope", "device", "variable_scope")):
        return False
    if not call.args or any(a.star for a in call.args) or not isinstance(call.args[0].value, cst.SimpleString):
        return False
    if tf_path(call.func, names) == "variable_scope" and (len(call.args) > 1 or call.args[0].keyword is not None):
        return False  # reuse, a default name, initializers...: more than a name
    return item.asname is None or isinstance(item.asname.name, cst.Name)


def graph_names(body: Sequence[cst.BaseStatement], names: TFNames) -> frozenset[str]:
    """Names bound by ``g = tf.Graph()`` / ``sess = tf.Session()`` statements of ``body``:
    ``with g.as_default():`` and ``with sess.as_default():`` blocks are read through."""
    found = set()
    for stmt in body:
        assignment = single_assignment(stmt)
        if assignment and isinstance(assignment[1], cst.Call):
            if tf_path(assignment[1].func, names) in ("Graph", *SESSIONS):
                found.add(assignment[0])
    return frozenset(found)
