"""Writing the unit out: functions placed after the statements they need, run sites replaced,
sessions and placeholders gone."""

from __future__ import annotations

from typing import Optional, Sequence, Union

import libcst as cst

from tfmodernize.syntax import commas, no_space_equal, own_comment_start, parenthesized, source
from tfmodernize.tfsymbols import TFNames

from tfmodernize.codemods.migrate.session_to_function.graph import GraphUnit
from tfmodernize.codemods.migrate.session_to_function.model import Kind, Statement
from tfmodernize.codemods.migrate.session_to_function.blocks import opens_session, session_free
from tfmodernize.codemods.migrate.session_to_function.statement_reads import tf_path
from tfmodernize.codemods.migrate.session_to_function.session_helpers import without
from tfmodernize.layout import autograph_off, fitted_decorator, moved, relaid, width
from tfmodernize.treewalk import walk
from tfmodernize.codemods.migrate.session_to_function.plan import (
    ASSIGN_METHODS,
    FunctionPlan,
    Helper,
    UnitPlan,
    squeeze,
    drawn_unrun,
)

#: the statements that go in every migration, leaving no statement of their own
GONE = (Kind.PLACEHOLDER, Kind.SESSION, Kind.INIT, Kind.RESET, Kind.FEED, Kind.SHAPE)


class Emitter:
    """Part of :class:`SessionToFunction` (see the package docstring)."""

    def _emit(self, plan: UnitPlan, nested: bool, opening: int = 0) -> list[cst.BaseStatement]:
        """The unit's new statements. ``opening``: the blank lines kept above the first one (a
        graph after a reset keeps the ones separating it from the last).

        A comment goes with its statement: the comment right above a statement that goes (a
        placeholder, a session, an initializer run) goes with it; one above a blank line heads
        what follows and stays. A statement moving into a function takes its comment along."""
        unit = plan.unit
        blank = 1 if nested else 2
        by_anchor: dict[int, list[Union[Helper, FunctionPlan]]] = {}
        for helper in plan.helpers:
            by_anchor.setdefault(helper.anchor, []).append(helper)
        for function in plan.functions.values():
            by_anchor.setdefault(function.anchor, []).append(function)
        plan.nested = nested
        self._eager = self._run_eagerly(plan)
        specs_before = self._name_specs(plan)
        out: list[cst.BaseStatement] = []
        carried: list[cst.EmptyLine] = []  # the lines of statements gone, for the next one written
        after_def = False

        def put(stmt: cst.BaseStatement, is_def: bool = False) -> None:
            nonlocal carried, after_def
            lines = squeeze(_joined(carried, stmt.leading_lines), blank)
            carried = []
            if (is_def or after_def) and (out or opening):
                # (a graph after another opening with a definition: set apart from the code above;
                # a line of spaces closing the block above counts as one of the blank lines)
                apart = blank - (_closing_blank_lines(out[-1]) if out else 0)
                lines = [cst.EmptyLine(indent=False)] * max(apart, 0) + [
                    line for line in lines if line.comment is not None
                ]
            elif is_def and plan.in_block:
                comments = [line for line in lines if line.comment is not None]
                lines = [cst.EmptyLine(indent=False), *comments]
            elif not out:
                lines = squeeze(lines, opening)
            out.append(stmt.with_changes(leading_lines=lines))
            after_def = is_def

        def gone(stmt: Statement) -> None:
            nonlocal carried
            carried = _joined(carried, _without_own_comment(stmt, _emptied_scopes(unit, stmt)))

        def define(definition: Union[Helper, FunctionPlan]) -> None:
            for position, spec in enumerate(specs_before.get(definition.name, [])):
                put(spec.with_changes(leading_lines=[cst.EmptyLine(indent=False)] if position == 0 and out else []))
            put(self._definition(definition, plan), is_def=True)

        rewriter = _Rewriter(plan, self._width)
        drawn = drawn_unrun(plan)
        for stmt in unit.statements:
            functions = by_anchor.get(stmt.index, [])
            moved = stmt.kind is Kind.GRAPH and stmt.dynamic or stmt.index in plan.moved
            moved = moved and stmt.index not in drawn
            for new in plan.prefix.get(stmt.index, []):
                put(new)
            if functions and not moved:
                for function in functions:
                    define(function)
            if moved:
                carried = _joined(carried, [line for line in stmt.node.leading_lines if line.comment is None])
            elif stmt.kind in GONE:
                gone(stmt)
            elif stmt.kind is Kind.CONFIG:
                replacement = plan.config.get(stmt.index, [])
                if not replacement:
                    gone(stmt)
                for position, new in enumerate(replacement):
                    if position == 0:
                        new = new.with_changes(leading_lines=stmt.node.leading_lines)
                    put(new)
            elif stmt.kind is Kind.RUN:
                new = stmt.node.visit(rewriter)
                if isinstance(new, cst.RemovalSentinel) or (isinstance(new, cst.SimpleStatementLine) and not new.body):
                    gone(stmt)
                else:
                    for line in _statements(new):
                        put(line)
            elif stmt.kind is Kind.ITERATOR:
                dataset, _ = unit.iterators[stmt.node.body[0].targets[0].target.value]
                put(
                    stmt.node.with_changes(
                        body=[stmt.node.body[0].with_changes(value=cst.Call(cst.Name("iter"), [cst.Arg(dataset)]))]
                    )
                )
            elif stmt.static_reads or stmt.kind is Kind.PLAIN and plan.replacements:
                # (a plain statement may read a value a run bound: converted where it reads it)
                for line in _statements(stmt.node.visit(rewriter)):
                    put(line)
            else:
                put(stmt.node)
            if functions and moved:
                for function in functions:
                    define(function)
        if not out:
            out.append(cst.SimpleStatementLine([cst.Pass()], leading_lines=squeeze(carried, opening)))
        return out

    def _run_eagerly(self, plan: UnitPlan) -> set[str]:
        """The functions written as plain Python functions, run eagerly: those the program calls
        once, or a few times (``EAGER_CALLS``), outside any loop, that compute eagerly what their
        trace would (``Functions._may_run_eagerly``). A ``tf.function`` run once costs its trace,
        many times the cost of running its ops; one whose trace is read
        (``get_concrete_function()``) or that is called in a loop stays one (its input signature
        traces it once for all calls)."""
        rewriter = _Rewriter(plan, self._width)
        written = [stmt for stmts in [*plan.prefix.values(), *plan.config.values()] for stmt in stmts]
        for stmt in plan.unit.statements:
            if stmt.kind is Kind.RUN or stmt.static_reads or stmt.kind is Kind.PLAIN and plan.replacements:
                new = stmt.node.visit(rewriter)
                if not isinstance(new, cst.RemovalSentinel):
                    written += _statements(new)
        uses = _FunctionUses({function.name for function in plan.functions.values()})
        for node in written:
            node.visit(uses)
        eager = set()
        for function in plan.functions.values():
            calls = uses.calls.get(function.name, 0)
            if (
                1 <= calls <= EAGER_CALLS
                and function.name not in uses.other
                and self._may_run_eagerly(plan, function, calls)
            ):
                eager.add(function.name)
        return eager

    def _body(self, steps: Sequence[Union[Statement, Helper]], plan: UnitPlan) -> list[cst.BaseStatement]:
        body: list[cst.BaseStatement] = []
        for position, step in enumerate(steps):
            if isinstance(step, Helper):
                node = step.call()
            else:
                node = _renamed(step.node, plan).visit(AssignMethods(self.tf))
            lines = [line for line in node.leading_lines if position > 0 or line.comment is not None]
            # A blank line keeps no indentation (it would leave trailing spaces in the body).
            lines = [line if line.comment is not None else cst.EmptyLine(indent=False) for line in lines]
            body.append(node.with_changes(leading_lines=lines))
        return body

    def _definition(self, definition: Union[Helper, FunctionPlan], plan: UnitPlan) -> cst.FunctionDef:
        if isinstance(definition, FunctionPlan):
            return self._function_def(definition, plan)
        outputs = [cst.Element(cst.Name(n)) for n in definition.outputs]
        returned = outputs[0].value if len(outputs) == 1 else cst.Tuple(commas(outputs), lpar=[], rpar=[])
        body = [*self._body(definition.body, plan), cst.SimpleStatementLine([cst.Return(returned)])]
        depth = 1 if plan.nested else 0
        return cst.FunctionDef(
            name=cst.Name(definition.name),
            params=cst.Parameters(commas([cst.Param(cst.Name(p)) for p in definition.params])),
            body=cst.IndentedBlock([_laid_out(stmt, self._width, depth + 1) for stmt in body]),
        )

    def _function_def(self, function: FunctionPlan, plan: UnitPlan) -> cst.FunctionDef:
        unit = plan.unit
        body = self._body(function.steps or function.body, plan)
        if self._graphs > 1:
            # One of several graphs: ``minimize(loss)`` trained that graph's variables; say which,
            # since the program's other graphs' variables now live beside them.
            trainable = [v.name for v in unit.variables if v.trainable]
            body = [stmt.visit(_ExplicitVarList(trainable)) for stmt in body]
        if function.summaries is not None:
            body.append(function.summaries)
        if function.returned is not None:
            body.append(cst.SimpleStatementLine([cst.Return(_renamed(function.returned, plan))]))
        elif not body:
            body.append(cst.SimpleStatementLine([cst.Pass()]))
        params, specs = self._signature(function, unit)
        depth = 1 if plan.nested else 0
        if function.name in self._eager:
            # Run eagerly: each fed value converted to its placeholder's dtype, as TF1's feed
            # (and the input signature of a traced function) converted it.
            converted = [
                cst.SimpleStatementLine(
                    [
                        cst.Assign(
                            [cst.AssignTarget(cst.Name(param))],
                            cst.Call(
                                self.tf_expr("convert_to_tensor"),
                                commas([cst.Arg(cst.Name(param)), cst.Arg(spec.args[1].value)]),
                            ),
                        )
                    ]
                )
                for param, spec in specs or ()
            ]
            return cst.FunctionDef(
                name=cst.Name(function.name),
                params=cst.Parameters(commas(params)),
                body=cst.IndentedBlock([_laid_out(stmt, self._width, depth + 1) for stmt in [*converted, *body]]),
            )
        decorator: cst.BaseExpression = self.tf_expr("function")
        if specs is not None:
            named = [plan.spec_names.get((param, source(spec))) for param, spec in specs]
            elements = [
                cst.Element(cst.Name(name) if name is not None else spec) for name, (_, spec) in zip(named, specs)
            ]
            decorator = cst.Call(
                decorator,
                [cst.Arg(cst.List(commas(elements)), keyword=cst.Name("input_signature"), equal=no_space_equal())],
            )
        definition = cst.FunctionDef(
            name=cst.Name(function.name),
            params=cst.Parameters(commas(params)),
            body=cst.IndentedBlock([_laid_out(stmt, self._width, depth + 1) for stmt in body]),
            decorators=[cst.Decorator(decorator)],
        )
        if converts_control_flow(body, [param.name.value for param in params], self.tf):
            return fitted_decorator(definition, self._width, depth)
        # TF1 ran the graph code's Python loops and branches once, while building the graph; so
        # does a trace without AutoGraph, which also skips converting the code.
        return autograph_off(definition, self._width, depth)

    def _signature(self, function: FunctionPlan, unit: GraphUnit) -> tuple[list[cst.Param], Optional[list]]:
        """A function's parameters, and its input signature (each parameter's name and
        ``TensorSpec``), or None when it has none."""
        params, specs = [], []
        for name in function.params:
            if name in function.overrides:
                # The constant's own shape and dtype, read from its eager value where the
                # function is defined: what TF1 checked a fed value against.
                params.append(cst.Param(cst.Name(name)))
                specs.append(
                    (
                        name,
                        cst.Call(
                            self.tf_expr("TensorSpec"),
                            commas(
                                [
                                    cst.Arg(cst.Attribute(cst.Name(name), cst.Name("shape"))),
                                    cst.Arg(cst.Attribute(cst.Name(name), cst.Name("dtype"))),
                                ]
                            ),
                        ),
                    )
                )
                continue
            placeholder = unit.placeholders[name]
            default = placeholder.default
            if placeholder.iterator is not None or placeholder.switch:
                params.append(
                    cst.Param(cst.Name(name))
                    if default is None
                    else cst.Param(cst.Name(name), default=default, equal=no_space_equal())
                )
                continue
            if default is not None:
                dtype = self.tf_expr(self._literal_dtype(default))
                params.append(cst.Param(cst.Name(name), default=default, equal=no_space_equal()))
            else:
                dtype = placeholder.dtype
                params.append(cst.Param(cst.Name(name)))
            shape = placeholder.shape if placeholder.shape is not None else cst.Name("None")
            specs.append((name, cst.Call(self.tf_expr("TensorSpec"), commas([cst.Arg(shape), cst.Arg(dtype)]))))
        if function.summary_step is not None:
            # The step summaries are written at: one int64 scalar, so each step's number does
            # not trace the function again.
            params.append(cst.Param(cst.Name(function.summary_step)))
            specs.append(
                (
                    function.summary_step,
                    cst.Call(
                        self.tf_expr("TensorSpec"), commas([cst.Arg(cst.List([])), cst.Arg(self.tf_expr("int64"))])
                    ),
                )
            )
        # A dataset's elements: no spec written here (the dataset knows them; a last, smaller
        # batch traces once more). A training switch is a Python bool: one trace per value.
        if specs and not any(
            unit.placeholders[p].iterator or unit.placeholders[p].switch
            for p in function.params
            if p in unit.placeholders
        ):
            return params, specs
        return params, None

    def _name_specs(self, plan: UnitPlan) -> dict[str, list[cst.SimpleStatementLine]]:
        """The input spec of a parameter several functions take (``image``, of the same shape
        and dtype) gets a name (``image_spec``), defined once before the first of them: by the
        name of that function, the definitions that go before it."""
        users: dict[tuple[str, str], list[str]] = {}
        specs_of: dict[tuple[str, str], cst.Call] = {}
        # In the order they are written: by the statement they follow, then as planned.
        for function in sorted(plan.functions.values(), key=lambda f: f.anchor):
            if function.name in self._eager:
                continue  # (no input signature)
            _, specs = self._signature(function, plan.unit)
            for param, spec in specs or ():
                if param not in function.overrides:
                    users.setdefault((param, source(spec)), []).append(function.name)
                    specs_of[(param, source(spec))] = spec
        before: dict[str, list[cst.SimpleStatementLine]] = {}
        for (param, text), functions in users.items():
            name = f"{param}_spec"
            if len(functions) < 2 or name in plan.taken:
                continue
            plan.taken.add(name)
            plan.spec_names[(param, text)] = name
            assignment = cst.Assign([cst.AssignTarget(cst.Name(name))], specs_of[(param, text)])
            before.setdefault(functions[0], []).append(cst.SimpleStatementLine([assignment]))
        return before


def _closing_blank_lines(stmt: cst.BaseStatement) -> int:
    """How many blank lines (spaces only) end ``stmt``'s source: the footer of a block."""
    lines = cst.Module([]).code_for_node(stmt).split("\n")[:-1]
    count = 0
    while count < len(lines) and not lines[len(lines) - 1 - count].strip():
        count += 1
    return count


def _joined(first: Sequence[cst.EmptyLine], second: Sequence[cst.EmptyLine]) -> list[cst.EmptyLine]:
    """The leading lines of statements gone, then those of the next one: where they meet, as
    many blank lines as the longer run (two paragraphs around one that went stay one blank
    line apart, not two)."""
    tail = 0
    while tail < len(first) and first[len(first) - 1 - tail].comment is None:
        tail += 1
    head = 0
    while head < len(second) and second[head].comment is None:
        head += 1
    meeting = first[len(first) - tail :] if tail > head else second[:head]
    return [*first[: len(first) - tail], *meeting, *second[head:]]


def _statements(new: Union[cst.BaseStatement, cst.FlattenSentinel]) -> list[cst.BaseStatement]:
    """The statements a rewritten statement became (a read put first: a ``FlattenSentinel``)."""
    return list(new.nodes) if isinstance(new, cst.FlattenSentinel) else [new]


def _without_own_comment(stmt: Statement, emptied: Sequence[cst.With] = ()) -> list[cst.EmptyLine]:
    """A statement's leading lines without its own comment: the comment lines right above it,
    not those of a block read through to reach it, unless that block is ``emptied`` (its
    statements all go: its comment is about them)."""
    lines = list(stmt.node.leading_lines)
    first_own = len(lines) - len(stmt.origin.leading_lines)
    cut = len(lines)
    while cut > first_own and lines[cut - 1].comment is not None:
        cut -= 1
    dropped = {id(line) for block in emptied for line in _own_comment(block.leading_lines)}
    return [line for line in lines[:cut] if id(line) not in dropped]


def _own_comment(lines: Sequence[cst.EmptyLine]) -> list[cst.EmptyLine]:
    """The comment lines right above a statement (no blank line between)."""
    return list(lines[own_comment_start(lines) :])


def _emptied_scopes(unit: GraphUnit, stmt: Statement) -> list[cst.With]:
    """The graph and name scope blocks ``stmt`` opens whose statements all go (placeholders,
    sessions, initializers), their comment with them: nothing is left for it to head, unless
    the statement kept after the block has no comment of its own (then it heads that)."""
    emptied = []
    for block, first, end in unit.scopes:
        if first != stmt.index or any(s.kind not in GONE for s in unit.statements[first:end]):
            continue
        following = next((s for s in unit.statements[end:] if s.kind not in GONE), None)
        if following is None or _own_comment(following.node.leading_lines):
            emptied.append(block)
    return emptied


def _laid_out(statement: cst.BaseStatement, limit: int, depth: int) -> cst.BaseStatement:
    """A statement of a function this codemod writes, ``depth`` blocks deep, kept to the
    file's width: a simple line wrapped where it is wider (its author's line breaks joined
    first, ``layout.relaid``), and so the lines of a block in it (a tape block)."""
    if isinstance(statement, cst.SimpleStatementLine):
        laid = moved(statement, limit, depth)
        listed = _unpacking_wrapped(laid, limit, depth)  # ``train = [\n    a,\n    b,\n]``
        return listed if listed is not laid and _code_width(listed, depth) <= limit else laid
    body = getattr(statement, "body", None)
    if not isinstance(body, cst.IndentedBlock):
        return statement
    inner = [_laid_out(stmt, limit, depth + 1) for stmt in body.body]
    if all(new is old for new, old in zip(inner, body.body)):
        return statement
    return statement.with_changes(body=body.with_changes(body=inner))


def _unpacking_wrapped(statement: cst.BaseStatement, limit: int, depth: int) -> cst.BaseStatement:
    """``a, b, c = value`` (or ``a, b = x.numpy(), y.numpy()``, ``a = [x, y]``) wider than
    ``limit`` ``depth`` blocks deep: the targets in parentheses, one a line (``(\n    a,\n
    b,\n) = value``), or the values (``a, b = (\n    x.numpy(),\n    y.numpy(),\n)``), or
    both: the first that fits, else the narrowest, when narrower."""
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
        return statement
    assign = statement.body[0]
    if not (isinstance(assign, cst.Assign) and len(assign.targets) == 1):
        return statement
    before = _code_width(statement, depth)
    if before <= limit:
        return statement
    target, value = assign.targets[0].target, assign.value
    targets = [source(target)]
    if _bare_tuple(target):
        targets.append("(\n" + "".join(f"    {source(e.value)},\n" for e in target.elements) + ")")
    values = [source(value)]
    if _bare_tuple(value):
        values.append("(\n" + "".join(f"    {source(e.value)},\n" for e in value.elements) + ")")
    elif isinstance(value, cst.List) and value.elements and "#" not in source(value):
        # (a comment between the elements would be lost)
        values.append("[\n" + "".join(f"    {source(e.value)},\n" for e in value.elements) + "]")
    best, narrowest = statement, before
    for text in [f"{t} = {v}\n" for v in values for t in targets][1:]:
        try:
            wrapped = cst.parse_statement(text)
        except cst.ParserSyntaxError:
            continue
        if _code_width(wrapped, depth) < narrowest:
            best, narrowest = wrapped, _code_width(wrapped, depth)
            if narrowest <= limit:
                break
    if best is statement:
        return statement
    return best.with_changes(leading_lines=statement.leading_lines, trailing_whitespace=statement.trailing_whitespace)


def _bare_tuple(node: cst.BaseExpression) -> bool:
    """A tuple of two or more elements written without parentheses, none starred."""
    return (
        isinstance(node, cst.Tuple)
        and not node.lpar
        and len(node.elements) > 1
        and not any(isinstance(e, cst.StarredElement) for e in node.elements)
    )


def _code_width(statement: cst.SimpleStatementLine, depth: int) -> int:
    """The longest line of ``statement``'s code (its comments aside), ``depth`` blocks deep."""
    return width(statement.with_changes(leading_lines=[], trailing_whitespace=cst.TrailingWhitespace()), depth)


#: A function the program calls this many times at most, none in a loop, runs eagerly: its
#: trace would cost more than running its ops at each of these calls.
EAGER_CALLS = 4


class _FunctionUses(cst.CSTVisitor):
    """How often the code written where the graph ran calls each of the unit's functions
    outside any loop, comprehension, lambda or definition (``calls``; the iterable of a loop or
    comprehension is outside it: ``[t.numpy() for t in f(x)]`` calls ``f`` once), and those it
    calls in one or reads other than by calling them (``other``: ``f.get_concrete_function()``)."""

    REPEATING = (cst.For, cst.While, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)

    def __init__(self, names: set[str]) -> None:
        self.names = names
        self.calls: dict[str, int] = {}
        self.other: set[str] = set()
        self.called: set[int] = set()
        self.once: set[int] = set()  # the iterables of loops and comprehensions
        self.depth = 0

    def on_visit(self, node: cst.CSTNode) -> bool:
        if id(node) in self.once:
            self.depth -= 1
        if isinstance(node, (*self.REPEATING, cst.Lambda, cst.FunctionDef, cst.ClassDef)):
            self.depth += 1
        if isinstance(node, (cst.For, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)):
            # what a loop or comprehension iterates over is evaluated once, before it repeats
            self.once.add(id(node.iter if isinstance(node, cst.For) else node.for_in.iter))
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in self.names:
            self.called.add(id(node.func))
            if self.depth:
                self.other.add(node.func.value)
            else:
                self.calls[node.func.value] = self.calls.get(node.func.value, 0) + 1
        elif isinstance(node, cst.Name) and node.value in self.names and id(node) not in self.called:
            self.other.add(node.value)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if isinstance(original_node, (*self.REPEATING, cst.Lambda, cst.FunctionDef, cst.ClassDef)):
            self.depth -= 1
        if id(original_node) in self.once:
            self.depth += 1


class _ExplicitVarList(cst.CSTTransformer):
    """``opt.minimize(loss)`` -> ``opt.minimize(loss, var_list=[W, b])`` with the graph's variables."""

    def __init__(self, variables: list[str]) -> None:
        self.variables = variables

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        if not (isinstance(updated.func, cst.Attribute) and updated.func.attr.value == "minimize"):
            return updated
        if len(updated.args) > 2 or any(
            a.star or (a.keyword is not None and a.keyword.value == "var_list") for a in updated.args
        ):
            return updated
        listed = cst.List(commas([cst.Element(cst.parse_expression(name)) for name in self.variables]))
        return updated.with_changes(
            args=commas([*updated.args, cst.Arg(listed, keyword=cst.Name("var_list"), equal=no_space_equal())])
        )


class _Rewriter(cst.CSTTransformer):
    """Applies the planned call-site replacements to a run statement."""

    def __init__(self, plan: UnitPlan, limit: int) -> None:
        self.plan = plan
        self.limit = limit
        self.depth = 1 if plan.nested else 0  # blocks deep, as written (session blocks dedented)
        self.flat: set[int] = set()

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if any(id(arg) in self.plan.handed for arg in original.args):
            # ``test(sess)`` -> ``test()``: the function no longer takes the session.
            return updated.with_changes(args=without(updated.args, self.plan.handed, original.args))
        return self.plan.calls.get(original, updated)

    def leave_Parameters(self, original: cst.Parameters, updated: cst.Parameters) -> cst.Parameters:
        if any(id(param) in self.plan.handed for param in original.params):
            return updated.with_changes(params=without(updated.params, self.plan.handed, original.params))
        return updated

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.CSTNode:
        pick = self.plan.picks.get(original)
        return pick(updated) if pick is not None else updated

    def visit_With(self, node: cst.With) -> None:
        if node in self.plan.unit.nested_blocks:
            self.flat.add(id(node.body))

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self.depth += id(node) not in self.flat

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine:
        # A line now reading ``.numpy()`` where it read a value, or calling a function where it
        # ran the graph, keeps its author's layout and the file's width (``layout.relaid``).
        plan = self.plan
        if not any(
            n in plan.replacements or n in plan.calls or n in plan.smalls for n in walk(original, code_only=True)
        ):
            return updated
        laid = self._laid(original, updated)
        if _code_width(laid, self.depth) <= self.limit:
            return laid
        return self._traced_read_first(original, updated, laid)

    def _laid(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine) -> cst.SimpleStatementLine:
        laid = relaid(original, updated, self.limit, self.depth)
        unpacked = _unpacking_wrapped(updated, self.limit, self.depth)
        if unpacked is not updated and _code_width(unpacked, self.depth) < _code_width(laid, self.depth):
            return unpacked
        return laid

    def _traced_read_first(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine, laid: cst.SimpleStatementLine
    ) -> Union[cst.SimpleStatementLine, cst.FlattenSentinel]:
        """A statement still wider than the file for what a trace says of a tensor
        (``compute_scores.get_concrete_function().output_shapes``): that read into a local of
        its own first (``scores_shape = ...``), the statement reading the local; kept only when
        narrower."""
        traced = self.plan.traced
        reads = [n for n in walk(updated, code_only=True) if id(n) in traced]
        if not reads:
            return laid
        locals_ = {}
        for read in reads:
            locals_.setdefault(traced[id(read)], read)
        named = updated.visit(_Named({id(read): traced[id(read)] for read in reads}))
        statement = self._laid(original, named.with_changes(leading_lines=[]))
        if _code_width(statement, self.depth) >= _code_width(laid, self.depth):
            return laid
        first = [
            moved(
                cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], value)]), self.limit, self.depth
            )
            for name, value in locals_.items()
        ]
        first[0] = first[0].with_changes(leading_lines=updated.leading_lines)
        return cst.FlattenSentinel([*first, statement])

    def leave_Dict(self, original: cst.Dict, updated: cst.Dict) -> cst.BaseExpression:
        return self.plan.replacements.get(original, updated)

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        return self.plan.replacements.get(original, updated)

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        return self.plan.replacements.get(original, updated)

    def leave_If(self, original: cst.If, updated: cst.If):
        return cst.RemoveFromParent() if id(original) in self.plan.dropped else updated

    def leave_With(self, original: cst.With, updated: cst.With):
        if id(original) in self.plan.dropped:
            return cst.RemoveFromParent()
        if original not in self.plan.unit.nested_blocks:
            return updated
        body = [s for s in updated.body.body if not isinstance(s, cst.SimpleStatementLine) or s.body]
        body = [
            s
            for s in body
            if not (isinstance(s, cst.SimpleStatementLine) and all(isinstance(x, cst.Pass) for x in s.body))
        ]
        if not body:
            return cst.SimpleStatementLine([cst.Pass()], leading_lines=updated.leading_lines)
        leading = updated.leading_lines
        if opens_session(original, self.plan.unit.names):
            leading = session_free(leading)
        body[0] = body[0].with_changes(leading_lines=[*leading, *body[0].leading_lines])
        return cst.FlattenSentinel(body)

    def _small(self, original, updated):
        if original in self.plan.smalls:
            replacement = self.plan.smalls[original]
            return cst.RemoveFromParent() if replacement is None else replacement
        return updated

    leave_Expr = _small
    leave_Assign = _small

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        self.depth -= id(original) not in self.flat
        if not updated.body:
            return updated.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])])
        return updated


def converts_control_flow(body: Sequence[cst.CSTNode], params: Sequence[str], names) -> bool:
    """Whether AutoGraph would turn a loop or branch of ``body`` into graph control flow: one
    that tests or iterates over a tensor the function is given (``if flag:``, ``for row in
    batch``, ``while step < limit``) or over ``tf.range``. Graph code of TF1 has none (a tensor
    had no truth value and could not be iterated while a graph was built): its loops and
    branches ran in Python, as they do in a trace without AutoGraph (``autograph=False``)."""
    given = set(params)
    for statement in body:
        for node in walk(statement, code_only=True):
            if isinstance(node, (cst.If, cst.While, cst.IfExp)):
                tested = node.test
            elif isinstance(node, (cst.For, cst.CompFor)):
                tested = node.iter
            else:
                continue
            for part in walk(tested, code_only=True):
                if isinstance(part, cst.Name) and part.value in given:
                    return True
                if isinstance(part, cst.Call) and tf_path(part.func, names) == "range":
                    return True
    return False


def _renamed(node: cst.CSTNode, plan: UnitPlan) -> cst.CSTNode:
    """``node`` with the names ``plan.renamed`` gives a function's locals."""
    if not plan.renamed:
        return node
    return node.visit(_Locals(plan.renamed))


class _Locals(cst.CSTTransformer):
    """Renames the ``Name`` nodes of the given ids."""

    def __init__(self, names: dict[int, str]) -> None:
        self.names = names

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
        name = self.names.get(id(original))
        return updated if name is None else updated.with_changes(value=name)


class _Named(cst.CSTTransformer):
    """Expressions (by id) replaced by the names they were read into."""

    def __init__(self, names: dict[int, str]) -> None:
        self.names = names

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        return cst.Name(self.names[id(original)]) if id(original) in self.names else updated


class AssignMethods(cst.CSTTransformer):
    """``tf.assign(ref, value)`` -> ``ref.assign(value)`` (TF2 has only the method)."""

    def __init__(self, names: TFNames) -> None:
        self.names = names

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        path = tf_path(original.func, self.names)
        if path not in ASSIGN_METHODS or len(updated.args) < 2 or any(a.keyword for a in updated.args[:2]):
            return updated
        ref, value = updated.args[0].value, updated.args[1]
        return cst.Call(
            cst.Attribute(parenthesized(ref, before_attribute=True), cst.Name(ASSIGN_METHODS[path])),
            [value.with_changes(comma=cst.MaybeSentinel.DEFAULT), *updated.args[2:]],
        )
