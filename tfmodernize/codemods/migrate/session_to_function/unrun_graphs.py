"""Graphs a program builds and never runs: a function of a script that builds placeholders, a
network, its training op and accuracy, and that nothing calls (``def build_second_net():`` left
for the reader to "plug into the test procedure").

TF1 code cannot run once the rest of the file is TF2 (its placeholders fail on TF 2.x's eager
defaults), and dead code it is: calling it built ops nobody ran. What a TF2 engineer writes for
it is what the migration writes for a graph that is run: variables created where they were, and
one ``tf.function`` for each value the graph ends in (a tensor or op nothing else in it reads:
``train_step``, ``compute_accuracy``), taking the placeholders they read, defined where the
graph was built and left for the program to call.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tfmodernize.analysis.program import entry_point
from tfmodernize.analysis.tf1_api import PLACEHOLDERS
from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.session_to_function.model import Kind, Statement, Value
from tfmodernize.codemods.migrate.session_to_function.plan import Element, Shape, UnitPlan
from tfmodernize.codemods.migrate.session_to_function.statement_reads import tf_path
from tfmodernize.treewalk import walk


class UnrunGraphs:
    """Part of :class:`SessionToFunction` (see the package docstring)."""

    def _unrun_builders(self, tree: cst.Module, owners: set[int]) -> set[int]:
        """Indices of the top-level functions of a script (``entry_point``) that build a graph
        from placeholders, open no session, return nothing, and that no code calls or names:
        not this file's, nor (``state.callers``) another file's of the run."""
        if entry_point(tree, self.tf) is None:
            return set()
        callers = self.state.callers or {}
        named = [n for n in walk(tree, code_only=True) if isinstance(n, cst.Name)]
        found: set[int] = set()
        for index, stmt in enumerate(tree.body):
            if index in owners or not isinstance(stmt, cst.FunctionDef) or stmt.decorators:
                continue
            name = stmt.name.value
            if name in callers or any(n.value == name and n is not stmt.name for n in named):
                continue
            inside = list(walk(stmt.body, code_only=True))
            if any(
                isinstance(n, (cst.Global, cst.Nonlocal, cst.Yield, cst.FunctionDef, cst.ClassDef, cst.Lambda))
                or isinstance(n, cst.Return)
                and n.value is not None
                for n in inside
            ):
                continue
            if any(isinstance(n, cst.Call) and tf_path(n.func, self.tf) in PLACEHOLDERS for n in inside):
                found.add(index)
        return found

    def _plan_unrun(self, plan: UnitPlan) -> None:
        """One function for each tensor or op the graph ends in (bound by graph code and read by
        nothing after it), defined after its last statement and never called; declines a graph
        with code no such function computes (an op binding no name: a summary, a collection; a
        structure of tensors)."""
        unit = plan.unit
        end = len(unit.statements)
        after = Statement(end, cst.SimpleStatementLine([cst.Pass()]), cst.SimpleStatementLine([cst.Pass()]), Kind.PLAIN)
        for stmt in unit.statements:
            if stmt.kind is Kind.RUN or stmt.kind is Kind.SESSION or stmt.kind is Kind.INIT:
                raise Decline(stmt.origin, "a graph never run that is run here")
            if not (stmt.kind is Kind.GRAPH and stmt.dynamic):
                continue
            later = unit.statements[stmt.index + 1 :]
            for name in sorted(stmt.defs):
                if any(name in other.uses for other in later) or unit.reaching(name, end) is not stmt:
                    continue
                fetched = self._unrun_fetch(unit, name, end)
                if fetched is None:
                    continue
                elements, ops, shape = fetched
                function = self._function_for(plan, after, elements, ops, shape)
                plan.fixes.append(
                    (
                        stmt.origin,
                        f"a graph never run: `{function.name}` computes `{name}` as a session "
                        "would have, for the program to call",
                    )
                )
        computed = {member.index for function in plan.functions.values() for member in function.body}
        left = next(
            (s for s in unit.statements if s.kind is Kind.GRAPH and s.dynamic and s.index not in computed), None
        )
        if left is not None:
            raise Decline(
                left.origin,
                "a graph never run with code none of its results reads (a summary, a collection, "
                "a structure of tensors): no function of what it ends in would compute it",
            )

    def _unrun_fetch(self, unit, name: str, at: int) -> Optional[tuple[list, list, Shape]]:
        """``(elements, ops, shape)`` fetching ``name`` alone, or None for a name that is no
        tensor nor op computed from the placeholders."""
        kind = unit.kind(name, at)
        if kind is Value.OP:
            return [], [Element(cst.Name(name), Value.OP)], Shape.NONE
        if kind is Value.DYNAMIC and not unit.holds_structure(cst.Name(name), at):
            return [Element(cst.Name(name), Value.DYNAMIC)], [], Shape.SINGLE
        return None
