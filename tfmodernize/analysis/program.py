"""What makes a module a program rather than a library: its entry point.

A program's top-level code runs it (``if __name__ == "__main__":``, a session opened or
``app.run`` called at module level, a module-level call of one of its own functions or classes,
say a class whose ``__init__`` opens the session); a notebook
is always run, never imported. A library module only defines what others call, so what it
reads at call time (collections, the global mode) depends on code it cannot see.

Also here: whether a module still builds a TF1 graph and runs it in a session (``graph_program``),
and the statements that reset TF1's default graph (``resets_graph``).
"""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst
import libcst.matchers as m

from tfmodernize.analysis import tf1_api
from tfmodernize.tfsymbols import TFNames, dotted_name
from tfmodernize.treewalk import walk

#: TF paths whose call in a module's top-level code makes the module a program (compat-fallback's entry points).
PROGRAM_CALLS = (*tf1_api.SESSIONS, *tf1_api.MONITORED_SESSIONS, "app.run")
#: The statement opening each cell of a notebook seen as one module (``tfmodernize.notebooks``).
CELL_MARKER = re.compile(r"'tfmodernize: cell \d+'")


def main_guard(statement: cst.CSTNode) -> bool:
    """``if __name__ == "__main__":``."""
    return isinstance(statement, cst.If) and m.matches(
        statement.test,
        m.Comparison(left=m.Name("__name__"), comparisons=[m.ComparisonTarget(comparator=m.SimpleString())]),
    )


def entry_point(module: cst.Module, tf: TFNames) -> Optional[cst.CSTNode]:
    """The statement that makes the module a program, if any: ``if __name__ == "__main__":``,
    session code or app.run in its top-level code, a top-level call of a function or class defined
    in the file (compat-fallback's test), or the first cell of a notebook (run, never imported)."""
    defined = {s.name.value for s in module.body if isinstance(s, (cst.FunctionDef, cst.ClassDef))}
    for statement in module.body:
        if main_guard(statement):
            return statement
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            continue
        if (
            isinstance(statement, cst.SimpleStatementLine)
            and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Expr)
            and isinstance(statement.body[0].value, cst.SimpleString)
            and CELL_MARKER.fullmatch(statement.body[0].value.value)
        ):
            return statement
        for call in (n for n in walk(statement, code_only=True) if isinstance(n, cst.Call)):
            symbol = tf.tf_symbol(call.func)
            if symbol is not None and symbol.path in PROGRAM_CALLS:
                return statement
            if dotted_name(call.func) in ("app.run", "absl.app.run") or (
                isinstance(call.func, cst.Name) and call.func.value in defined
            ):
                return statement
    return None


def resets_graph(statement: cst.CSTNode, tf: TFNames) -> bool:
    """``tf.reset_default_graph()`` (or ``ops.reset_default_graph()``) as a statement of its own."""
    if not (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, cst.Call)
    ):
        return False
    symbol = tf.tf_symbol(statement.body[0].value.func)
    return symbol is not None and (
        symbol.path == "reset_default_graph" or symbol.path.endswith(".ops.reset_default_graph")
    )


#: TF paths whose use means the file still builds a TF1 graph and runs it in a session.
GRAPH_PROGRAM = (
    *tf1_api.SESSIONS,
    *tf1_api.PLACEHOLDERS,
    *tf1_api.V2_OFF,
    *tf1_api.MONITORED_SESSIONS,
    "get_default_graph",
    "Graph",
    "train.Supervisor",
)


def graph_program(module: cst.Module, tf: TFNames) -> Optional[str]:
    """The TF1 graph-mode API the module still uses (``tf.Session``...), if any.

    Functions in such a file may be graph builders called once: rewriting their ``minimize``
    to eager Keras updates would break the session that runs them.
    """
    for node in walk(module, code_only=True):
        if isinstance(node, (cst.Attribute, cst.Name)):
            symbol = tf.tf_symbol(node)
            if symbol is not None and (symbol.path in GRAPH_PROGRAM or symbol.path.startswith("estimator.")):
                return f"tf.{symbol.path}"
    return None
