"""Summaries a loop writes from what a step returned: written inside the step function.

A TF1 program that ran its train op and its merged summaries in one ``sess.run`` per step
comes to this codemod from summary-v2 as a run fetching the summarized tensors, followed by
``with writer.as_default():`` and one ``tf.summary.scalar(tag, value, step=s)`` per summary
(under ``if step % 10 == 0:`` when TF1 wrote only then). Returning those tensors from the step
and writing them eagerly each step costs a numpy round trip and an eager op per summary; the
function writes them itself, at the step it is given, under ``tf.summary.record_if`` of the
loop's condition.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tfmodernize.codemods.migrate.session_to_function.model import Kind
from tfmodernize.codemods.migrate.session_to_function.statement_reads import names_used, tf_path
from tfmodernize.codemods.migrate.session_to_function.plan import FunctionPlan, UnitPlan, numpy_call
from tfmodernize.names import target_name_nodes
from tfmodernize.syntax import commas, no_space_equal
from tfmodernize.treewalk import walk

#: The v2 summary ops summary-v2 writes.
WRITES = ("summary.scalar", "summary.histogram", "summary.image", "summary.text")


def one_line(arg: cst.Arg) -> cst.Arg:
    """``arg`` without its comma and the line break after it."""
    return arg.with_changes(comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=cst.SimpleWhitespace(""))


class Summaries:
    """Part of :class:`SessionToFunction` (see the package docstring)."""

    def _plan_summaries(self, plan: UnitPlan) -> None:
        for function, site, targets, call in plan.step_calls:
            self._move_summaries(plan, function, site, targets, call)

    def _move_summaries(self, plan: UnitPlan, function: FunctionPlan, site, targets, call: cst.Call) -> None:
        """The summaries written right after the step's only call, from names it bound and
        read nowhere else, move into the function; the loop passes the step."""
        unit = plan.unit
        if (
            function.summaries is not None
            or len(function.sites) != 1
            or site.context != "assign"
            or id(site.call) not in plan.repeated
            or site.small not in plan.smalls
        ):
            return
        if any(
            unit.placeholders[p].iterator or unit.placeholders[p].switch
            for p in function.params
            if p in unit.placeholders
        ):
            return
        names = [n.value for n in target_name_nodes(targets)] if targets is not None else []
        returned = function.returned
        if (
            isinstance(targets, cst.Name)
            and returned is not None
            and not isinstance(returned, (cst.Tuple, cst.List, cst.Dict))
        ):
            values = [returned]
        elif (
            isinstance(targets, (cst.Tuple, cst.List))
            and isinstance(returned, (cst.Tuple, cst.List))
            and len(names) == len(targets.elements) == len(returned.elements)
        ):
            values = [e.value for e in returned.elements]
        else:
            return
        parents = self.state.parents(self._module)
        line = parents.get(id(site.small))
        block = parents.get(id(line))
        if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1 or block is None:
            return
        body = list(block.body)
        position = next((i for i, s in enumerate(body) if s is line), None)
        if position is None or position + 1 >= len(body):
            return
        written = body[position + 1]
        condition = None
        if isinstance(written, cst.If) and written.orelse is None:
            # ``if step % 10 == 0:`` holding the writes (and maybe more, which stays there)
            condition = written.test
            write = next((s for s in written.body.body if isinstance(s, cst.With)), None)
            if len(written.body.body) > 1:
                written = write
        else:
            write = written
        found = self._summary_writes(write, names)
        if found is None:
            return
        writer, lines, calls, step = found
        used = {n for s in function.body for n in names_used(s.node)} | set(function.params)
        parameter = step.value if isinstance(step, cst.Name) and step.value not in used else None
        if parameter is None and condition is None:
            parameter = next(n for n in ("step", "summary_step", "global_step_value", "written_step") if n not in used)
        if parameter is None or condition is not None and not names_used(condition) <= {parameter}:
            return
        # Each written name is read only there (its summary), so the step need not return it.
        writes = {id(c.args[1].value) for c in calls}
        own = {id(n) for n in target_name_nodes(site.small.targets[0].target)}
        for stmt in unit.statements:
            for node in walk(stmt.node, code_only=True):
                if (
                    isinstance(node, cst.Name)
                    and node.value in {c.args[1].value.value for c in calls}
                    and id(node) not in own
                    and (id(node) not in writes or stmt.kind is not Kind.RUN)
                ):
                    return
        by_name = dict(zip(names, values))
        inside = [
            # the statement itself, with its comments, writing the step's value
            line.with_changes(
                body=[
                    line.body[0].with_changes(
                        # on one line again, wrapped where it stands in the function (``_laid_out``)
                        value=c.with_changes(
                            whitespace_before_args=cst.SimpleWhitespace(""),
                            args=commas(
                                [
                                    *[one_line(a) for a in c.args[:1]],
                                    cst.Arg(by_name[c.args[1].value.value]),
                                    *[
                                        one_line(a)
                                        for a in c.args[2:]
                                        if a.keyword is None or a.keyword.value != "step"
                                    ],
                                ]
                            ),
                        )
                    )
                ]
            )
            for line, c in zip(lines, calls)
        ]
        items = [
            cst.WithItem(
                cst.Call(
                    cst.Attribute(cst.Name(writer), cst.Name("as_default")),
                    [cst.Arg(cst.Name(parameter), keyword=cst.Name("step"), equal=no_space_equal())],
                )
            )
        ]
        if condition is not None:
            items.append(cst.WithItem(cst.Call(self.tf_expr("summary.record_if"), [cst.Arg(condition)])))
        function.summaries = cst.With(commas(items), cst.IndentedBlock(inside))
        function.summary_step = parameter
        kept = [(n, v) for n, v in zip(names, values) if n not in {c.args[1].value.value for c in calls}]
        function.returned = (
            None
            if not kept
            else kept[0][1]
            if len(kept) == 1
            else returned.with_changes(elements=commas([cst.Element(v) for _, v in kept]))
        )
        # The step by keyword after the fed values passed by name (``train_step(**fed, step=turn)``).
        by_keyword = any(a.keyword is not None or a.star for a in call.args)
        step_argument = (
            cst.Arg(step, keyword=cst.Name(parameter), equal=no_space_equal()) if by_keyword else cst.Arg(step)
        )
        stepped = call.with_changes(
            args=commas([*[a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in call.args], step_argument])
        )
        planned = plan.smalls[site.small]
        converted = isinstance(planned, cst.Assign) and planned.value is not call
        if not kept:
            plan.smalls[site.small] = cst.Expr(stepped)
        else:
            target = (
                cst.Name(kept[0][0])
                if len(kept) == 1
                else targets.with_changes(elements=commas([cst.Element(cst.Name(n)) for n, _ in kept]))
            )
            value: cst.BaseExpression = stepped
            if converted and len(kept) == 1:
                value = numpy_call(stepped)
            elif converted:
                value = cst.ListComp(numpy_call(cst.Name("t")), cst.CompFor(target=cst.Name("t"), iter=stepped))
            plan.smalls[site.small] = site.small.with_changes(
                targets=[site.small.targets[0].with_changes(target=target)], value=value
            )
        plan.dropped.add(id(written))
        plan.fixes.append(
            (
                write,
                f"the summaries are written inside `{function.name}`, at the step it is "
                "given: no tensors returned for them, nothing written eagerly each step",
            )
        )

    def _summary_writes(
        self, write: cst.BaseStatement, names: list[str]
    ) -> Optional[tuple[str, list[cst.SimpleStatementLine], list[cst.Call], cst.BaseExpression]]:
        """``with writer.as_default(): tf.summary.<kind>(tag, name, step=s)...`` writing names
        the step bound, each once, at one step: (writer, the statements, their calls, the step);
        else None."""
        if not isinstance(write, cst.With) or len(write.items) != 1 or write.items[0].asname is not None:
            return None
        opened = write.items[0].item
        if not (
            isinstance(opened, cst.Call)
            and not opened.args
            and isinstance(opened.func, cst.Attribute)
            and opened.func.attr.value == "as_default"
            and isinstance(opened.func.value, cst.Name)
        ):
            return None
        lines, calls, steps, seen = [], [], set(), set()
        for statement in write.body.body:
            if not (
                isinstance(statement, cst.SimpleStatementLine)
                and len(statement.body) == 1
                and isinstance(statement.body[0], cst.Expr)
                and isinstance(statement.body[0].value, cst.Call)
            ):
                return None
            summary = statement.body[0].value
            if (
                tf_path(summary.func, self.tf) not in WRITES
                or len(summary.args) < 2
                or any(a.keyword is not None or a.star for a in summary.args[:2])
            ):
                return None
            value = summary.args[1].value
            step = next((a.value for a in summary.args if a.keyword is not None and a.keyword.value == "step"), None)
            if not isinstance(value, cst.Name) or value.value not in names or value.value in seen or step is None:
                return None
            seen.add(value.value)
            steps.add(cst.Module([]).code_for_node(step))
            lines.append(statement)
            calls.append(summary)
        if not calls or len(steps) != 1:
            return None
        step = next(a.value for a in calls[0].args if a.keyword is not None and a.keyword.value == "step")
        return opened.func.value.value, lines, calls, step
