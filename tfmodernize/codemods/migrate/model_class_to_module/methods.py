"""Writing the methods that ran a planned class's session: each run becomes a call of its
``tf.function`` (or an eager read), its savers checkpoints, its summaries writes under the
writer (``MethodWriter``)."""

from __future__ import annotations

from functools import partial
from typing import Callable, Optional

import libcst as cst

from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.model_class_to_module.functions import FunctionWriter
from tfmodernize.codemods.migrate.model_class_to_module.model import (
    self_attribute,
)
from tfmodernize.codemods.migrate.model_class_to_module.plan import (
    Expression,
    ForeignCall,
)
from tfmodernize.codemods.migrate.model_class_to_module.sites import (
    Context,
    Fetched,
    Saver,
    Shape,
    Site,
)
from tfmodernize.codemods.migrate.model_class_to_module.writing import (
    PutValue,
    Replacement,
    Writing,
    after_line,
    substituted,
)
from tfmodernize.layout import fitted, relaid
from tfmodernize.names import fresh_name, name_nodes, names_read
from tfmodernize.syntax import (
    argument,
    commas,
    parenthesized,
    source,
)
from tfmodernize.treewalk import walk


class MethodWriter:
    """Writes a method running the session (``method``); ``add_import`` adds a module's import."""

    def __init__(
        self,
        writing: Writing,
        functions: FunctionWriter,
        add_import: Callable[[str], None],
    ) -> None:
        self.plan, self.model, self.tf = writing.plan, writing.plan.model, writing.tf
        self.width = writing.width
        self.functions, self.add_import = functions, add_import

    def method(self, method: cst.FunctionDef) -> cst.FunctionDef:
        plan = self.plan
        replacements: dict[int, Replacement] = {}
        for site in plan.sites.runs:
            if site.method is not method:
                continue
            if site.context is Context.VALUE:
                replacements[id(site.call)] = self._value(site)
                written, depth = site.holder, site.depth
                if isinstance(written, cst.SimpleStatementLine):
                    replacements[id(written)] = lambda updated, written=written, depth=depth: relaid(
                        written, updated, self.width, depth
                    )
            else:
                replacements[id(site.statement)] = self._statement(site)
            for line, writer, step, depth in site.writes:
                written = "".join(
                    f"    {self.tf}.summary.{kind}({source(tag)}, {name}, step={source(step)})\n"
                    for kind, tag, name in site.summaries
                )
                block = cst.parse_statement(f"with {writer}.as_default():\n{written}")
                block = block.with_changes(leading_lines=line.leading_lines)
                replacements[id(line)] = fitted(block, self.width, depth)
        for line in walk(method.body):
            if id(line) in plan.sites.closes:
                replacements[id(line)] = cst.RemovalSentinel.REMOVE
            if id(line) in plan.sites.summary_lines:
                logdir = plan.sites.summary_lines[id(line)]
                replacements[id(line)] = self._summary_line(line, logdir)
        inside = {id(n) for n in walk(method.body)}
        for saver in plan.sites.savers:
            if id(saver.call) in inside:
                replacements.update(self._saver(saver))
        new = substituted(method, replacements)
        if not new.body.body:
            new = new.with_changes(body=new.body.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])]))
        return new

    def _summary_line(
        self,
        line: cst.SimpleStatementLine,
        logdir: Optional[cst.BaseExpression],
    ) -> Replacement:
        """``merged = tf.summary.merge_all()`` goes (its runs fetch what it merged);
        ``writer = tf.summary.FileWriter(logdir, ...)`` -> ``tf.summary.create_file_writer``."""
        if logdir is None:
            return cst.RemovalSentinel.REMOVE
        small = line.body[0]
        function = cst.parse_expression(f"{self.tf}.summary.create_file_writer")
        made = cst.Call(function, [cst.Arg(logdir)])
        return line.with_changes(body=[small.with_changes(value=made)])

    def _saver(self, saver: Saver) -> dict[int, Replacement]:
        """A saver of the session's variables -> a ``tf.train.Checkpoint`` of the objects holding
        them (this one, the graph objects it runs); a save at a step -> a save of a
        ``CheckpointManager`` keeping as many (TF1's files: ``path-step``, the state file); a
        restore -> a read of the checkpoint."""
        objects = [(attribute, f"self.{attribute}") for attribute in self.model.foreign]
        if self.model.has_graph():
            objects.insert(0, ("model", "self"))
        tf = self.tf
        held = ", ".join(f"{key}={value}" for key, value in objects)
        made = cst.parse_expression(f"{tf}.train.Checkpoint({held})")
        replacements: dict[int, Replacement] = {id(saver.call): made}
        keep = source(saver.max_to_keep) if saver.max_to_keep is not None else "5"
        name = source(saver.statement.body[0].targets[0].target)
        taken = names_read(self.model.cls) | {n.value for n in name_nodes(self.model.cls)}
        for call in saver.saves.values():
            path = source(argument(call, 1, "save_path"))
            step = source(argument(call, 2, "global_step"))
            manager = fresh_name("manager", taken)
            made_manager = fitted(
                cst.parse_statement(
                    f"{manager} = {tf}.train.CheckpointManager({name}, "
                    f"os.path.dirname({path}) or os.curdir, max_to_keep={keep}, "
                    f"checkpoint_name=os.path.basename({path}))\n"
                ),
                self.width,
                saver.holders[id(call)][1],
            )
            saved = f"{manager}.save(checkpoint_number={step})"
            replacements[id(call)] = cst.parse_expression(saved)
            self.add_import("os")
            holder, depth = saver.holders[id(call)]
            if not isinstance(holder, cst.SimpleStatementLine):
                raise Decline(call, f"`{name}.save` is not on a line of its own")
            replacements[id(holder)] = partial(after_line, made_manager, holder)
        for call in saver.restores.values():
            path = source(argument(call, 1, "save_path"))
            read = f"{name}.read({path}).assert_existing_objects_matched()"
            replacements[id(call)] = cst.parse_expression(read)
        return replacements

    def _function_call(self, site: Site) -> cst.Call:
        called = self.plan.called[id(site.call)]
        return self.functions.call(called, site.feeds)

    def _numpy(self, value: cst.BaseExpression) -> cst.Call:
        return cst.Call(cst.Attribute(parenthesized(value, before_attribute=True), cst.Name("numpy")))

    def _each_numpy(self, value: cst.BaseExpression, name: str = "t") -> cst.Call:
        return cst.parse_expression(f"{self.tf}.nest.map_structure(lambda {name}: {name}.numpy(), __value__)").visit(
            PutValue(value)
        )

    def _fetched_value(self, fetch) -> cst.BaseExpression:
        """A variable (or a structure of them) or an op built at the run, read eagerly."""
        if fetch.kind is Fetched.VARIABLE and fetch.key not in self.model.nodes:  # another object's
            direct = isinstance(fetch.expr, cst.Attribute)
            return self._numpy(fetch.expr) if direct else self._each_numpy(fetch.expr, "v")
        if fetch.kind is Fetched.VARIABLE:
            node = self.model.nodes[fetch.key]
            if node.variable and self_attribute(fetch.expr) is not None:
                return self._numpy(fetch.expr)
            expr = fetch.expr
            index = expr.slice[0].slice if isinstance(expr, cst.Subscript) and len(expr.slice) == 1 else None
            if (
                self_attribute(getattr(expr, "value", None)) is not None
                and isinstance(index, cst.Index)
                and isinstance(index.value, cst.SimpleString)
                and index.value.evaluated_value in node.keys
            ):
                return self._numpy(expr)
            return self._each_numpy(expr, "v")
        return self._numpy(fetch.expr)

    def _value(self, site: Site) -> cst.BaseExpression:
        if site.train is None and all(f.kind in (Fetched.VARIABLE, Fetched.EAGER) for f in site.fetches):
            values = [self._fetched_value(f) for f in site.fetches]
            if site.shape is Shape.SINGLE:
                return values[0]
            elements = commas([cst.Element(v) for v in values])
            return cst.List(elements) if site.shape is Shape.LIST else cst.Tuple(elements)
        called = self._function_call(site)
        function = self.plan.called[id(site.call)]
        if isinstance(function, (Expression, ForeignCall)) or function.shape is Shape.SINGLE:
            return self._numpy(called)
        return self._each_numpy(called)

    def _statement(self, site: Site) -> cst.BaseStatement:
        statement = site.statement
        small = statement.body[0]
        if site.context is Context.DISCARDED and any(f.kind is Fetched.INIT for f in site.fetches):
            return cst.RemovalSentinel.REMOVE  # another object's variables are made initialised
        if site.context is Context.DISCARDED:
            if site.train is None and all(f.kind in (Fetched.VARIABLE, Fetched.EAGER) for f in site.fetches):
                raise Decline(site.call, "the session run fetches values it throws away")
            new_small: cst.BaseSmallStatement = small.with_changes(value=self._function_call(site))
            return fitted(statement.with_changes(body=[new_small]), self.width, site.depth)
        if site.train is None and all(f.kind in (Fetched.VARIABLE, Fetched.EAGER) for f in site.fetches):
            value = self._value(site)
            return fitted(
                statement.with_changes(body=[small.with_changes(value=value)]),
                self.width,
                site.depth,
            )
        run = self.plan.called[id(site.call)]
        called = self._function_call(site)
        if isinstance(run, ForeignCall):
            kept = [t for t, f in zip(site.targets, site.fetches) if f.kind is not Fetched.TRAIN]
            if not kept:
                written = statement.with_changes(body=[cst.Expr(called)])
            else:
                new = cst.Assign([cst.AssignTarget(kept[0])], self._numpy(called))
                written = fitted(statement.with_changes(body=[new]), self.width, site.depth)
            if not site.before:
                return written
            lines = [fitted(line, self.width, site.depth) for line in [*site.before, written]]
            first = lines[0].with_changes(leading_lines=statement.leading_lines)
            rest = [line.with_changes(leading_lines=[]) for line in lines[1:]]
            return cst.FlattenSentinel([first, *rest])
        if run.train is None:
            new_value = small.with_changes(value=self._each_numpy(called))
            return fitted(statement.with_changes(body=[new_value]), self.width, site.depth)
        kept = [t for t, f in zip(site.targets, site.fetches) if f.kind is not Fetched.TRAIN]
        if not kept:
            return statement.with_changes(body=[cst.Expr(called)])
        if len(kept) == 1:
            target: cst.BaseExpression = kept[0]
            value: cst.BaseExpression = self._numpy(called)
        else:
            target = cst.Tuple(commas([cst.Element(t) for t in kept]), lpar=[], rpar=[])
            value = self._each_numpy(called)
        new = cst.Assign([cst.AssignTarget(target)], value)
        return fitted(statement.with_changes(body=[new]), self.width, site.depth)
