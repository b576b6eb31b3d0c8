"""Planning the ``tf.function``s: one per distinct fetch (the backward slice of what it reads),
helpers for shared sub-graphs, and the checks that the functions mean what the graph meant."""

from __future__ import annotations

from typing import Optional, Sequence

import libcst as cst

from tfmodernize.treewalk import contains, visit, walk

from tfmodernize.analysis.tf1_api import SESSIONS
from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.session_to_function.graph import GraphUnit
from tfmodernize.codemods.migrate.session_to_function.model import Kind, Statement, Value
from tfmodernize.codemods.migrate.session_to_function.statement_reads import (
    draws_random,
    names_used,
    static_names,
    tf_calls,
    tf_path,
)
from tfmodernize.codemods.migrate.session_to_function.plan import (
    Element,
    FunctionPlan,
    GONE,
    Helper,
    LITERAL_DTYPES,
    OVERRIDE_HINT,
    Shape,
    UnitPlan,
    describe,
    in_order,
    order_steps,
    drawn_unrun,
)
from tfmodernize.codemods.migrate.session_to_function.reading import Leftovers, assignments
from tfmodernize.names import name_nodes
from tfmodernize.syntax import argument, calls_in, commas, name_assignment, source

#: Words of a train op's name that say it trains (``d_train_op`` trains ``d``).
TRAIN_WORDS = frozenset(
    {
        "train",
        "training",
        "op",
        "ops",
        "optimizer",
        "optimiser",
        "optim",
        "opt",
        "step",
        "solver",
        "update",
        "updates",
        "minimize",
        "minimizer",
        "trainer",
    }
)

#: TF names that only work while a graph is built: a function calling them stays traced.
GRAPH_ONLY = frozenset({"gradients", "hessians", "get_default_graph", "get_collection", "add_to_collection"})
#: Ops whose branches or bodies a trace builds once and an eager run builds as it takes them
#: (a random op in them would take other seeds, or none).
CONTROL_FLOW = frozenset({"cond", "case", "switch_case", "while_loop", "map_fn", "scan", "foldl", "foldr"})
#: What only a graph tensor has (``loss.op.name``); a variable's ``name`` cannot be told apart.
GRAPH_ATTRIBUTES = frozenset({"name", "op", "graph", "consumers"})


class Functions:
    """Part of :class:`SessionToFunction` (see the package docstring)."""

    def _function_for(
        self,
        plan: UnitPlan,
        stmt: Statement,
        elements: list[Element],
        ops: list[Element],
        shape: Shape,
        overrides: Sequence[str] = (),
        targets: Optional[cst.BaseExpression] = None,
    ) -> FunctionPlan:
        """The function computing ``elements`` (running ``ops``) as fetched at ``stmt``: the
        backward slice of what they use, one function per distinct fetch set (and set of fed
        constant tensors, which become parameters)."""
        unit = plan.unit
        returned: Optional[cst.BaseExpression]
        if shape == Shape.NONE:
            returned = None
        elif shape == Shape.SINGLE:
            returned = elements[0].expr
        elif shape == Shape.DICT:
            returned = cst.Dict([cst.DictElement(e.key, e.expr) for e in elements])
        elif shape == Shape.LIST:
            returned = cst.List(commas([cst.Element(e.expr) for e in elements]))
        else:
            returned = cst.Tuple(commas([cst.Element(e.expr) for e in elements]), lpar=[], rpar=[])
        wanted = set()
        for element in [*elements, *ops]:
            wanted |= names_used(element.expr)
        body = unit.backward_slice(wanted, stmt.index, fed=overrides)
        # Lists, tuples and unpacked fetches of the same tensors share one function.
        sequence = shape in (Shape.LIST, Shape.TUPLE, Shape.UNPACKED)
        fetched = (
            tuple(source(e.expr) for e in elements) if sequence else source(returned) if returned is not None else ""
        )
        key = (sequence, fetched, tuple(s.index for s in body), tuple(source(o.expr) for o in ops), tuple(overrides))
        if key in plan.functions:
            return plan.functions[key]
        # The same ops on the same slice (a train op run alone, and with its loss fetched): one
        # function, its value discarded where only the ops were run.
        same = next((f for k, f in plan.functions.items() if k[2:] == key[2:]), None) if ops else None
        if same is not None and (shape == Shape.NONE or same.returned is None):
            same.returned = same.returned if shape == Shape.NONE else returned
            return same
        used = set(wanted)
        # Placeholders as the statements reading them see them: a placeholder's name may later
        # be taken by a constant of another example in the same graph.
        fed_here = {n for n in wanted if unit.kind(n, stmt.index) == Value.PLACEHOLDER}
        for member in body:
            used |= member.uses
            fed_here |= {n for n in member.uses if unit.kind(n, member.index) == Value.PLACEHOLDER}
        params = [name for name in unit.placeholders if name in fed_here and name not in overrides]
        # One ``get_next()`` feeds all the names it binds: a function using some takes them all.
        grouped = {member for name in params for member in unit.placeholders[name].group}
        params = [name for name in unit.placeholders if name in fed_here or name in grouped and name not in overrides]
        anchor = body[-1].index if body else stmt.index
        for fed in overrides:
            meant = unit.reaching(fed, stmt.index)
            readers = [m for m in body if fed in m.uses] + ([stmt] if fed in wanted else [])
            if unit.reaching(fed, anchor + 1) is not meant or any(
                unit.reaching(fed, m.index) is not meant for m in readers
            ):
                raise Decline(
                    meant.origin, f"`{fed}` is fed but rebound between the graph and the run: {OVERRIDE_HINT}"
                )
            if fed in used:
                params.append(fed)
        recomputed = next((m for m in body if not m.dynamic and m.draws_random), None)
        if recomputed is not None:
            raise Decline(
                recomputed.origin, f"a random value computed from a fed tensor would be drawn again: {OVERRIDE_HINT}"
            )
        name = self._function_name(plan, elements, ops, body, targets, params)
        function = FunctionPlan(
            name,
            params,
            body,
            returned,
            anchor,
            minimizes=sum(s.minimizes for s in body),
            gradients=sum(s.gradients for s in body),
            overrides=[fed for fed in overrides if fed in params],
        )
        plan.functions[key] = function
        return function

    def _may_run_eagerly(self, plan: UnitPlan, function: FunctionPlan, calls: int = 1) -> bool:
        """Whether ``function``, called ``calls`` times, computes the same values as a plain
        Python function run eagerly. Not when it trains (the tape codemods keep an optimizer's state
        in a traced step), writes summaries, reads a fed constant's spec, or reads what only a
        graph has (``tf.gradients``, a tensor's ``name``, a ``print`` of a tensor, in it or in
        the module functions it calls), nor when it draws random values in a branch or loop op
        (a trace creates each random op of a branch once, taken or not; an eager run creates
        those it takes, at each pass: other seeds), nor, called more than once, when it draws
        any (a trace's op draws on from its state at each call, an eager run makes a new op)."""
        if function.minimizes or function.gradients or function.summaries is not None or function.overrides:
            return False
        defined = {s.name.value: s for s in self._module.body if isinstance(s, cst.FunctionDef)}
        defined.update((s.node.name.value, s.node) for s in plan.unit.statements if isinstance(s.node, cst.FunctionDef))
        reached = _reached([stmt.node for stmt in function.body], defined)
        if reached is None or any(path in GRAPH_ONLY for node in reached for path, _ in tf_calls(node, self.tf)[0]):
            return False
        if calls > 1 and any(draws_random(tf_calls(node, self.tf)[0]) for node in reached):
            return False
        if any(isinstance(c.func, cst.Name) and c.func.value in self._imported for n in reached for c in calls_in(n)):
            return False  # (a project module's function: not read here)
        if any(
            isinstance(attribute, cst.Attribute) and attribute.attr.value in GRAPH_ATTRIBUTES
            for node in reached
            for attribute in walk(node, code_only=True)
        ):
            return False
        for node in reached:
            for path, call in tf_calls(node, self.tf)[0]:
                if path not in CONTROL_FLOW:
                    continue
                # What the op runs: the lambdas and the functions it is given.
                given = [
                    defined[n.value]
                    for n in walk(call, code_only=True)
                    if isinstance(n, cst.Name) and n.value in defined
                ]
                branches = _reached([call, *given], defined) or [call]
                if any(draws_random(tf_calls(branch, self.tf)[0]) for branch in branches):
                    return False
        return True

    def _function_name(self, plan: UnitPlan, elements, ops, body, targets, params) -> str:
        """What the function does, in a word or two: ``train_step`` (``train_<what>_step`` when
        the program has several), ``compute_<value>`` for one value or a structure of several
        bound to one name (named as the program names it, or binds it), ``evaluate`` for
        several unpacked, ``run_<op>`` for ops run for their effect. A second function of the
        same name computing it from one more input is named after it (``compute_loss_from_x``)."""
        others = {f.name for f in plan.functions.values()}
        if any(s.minimizes for s in body) and ops:
            what = _stem(describe(ops[0].expr), TRAIN_WORDS)
            several = sum(stmt.minimizes for stmt in plan.unit.statements) > 1 or "train_step" in others
            base = f"train_{what}_step" if what and several else "train_step"
        elif not elements:
            base = f"run_{describe(ops[0].expr)}"
        elif len(elements) == 1:
            expression = not isinstance(elements[0].expr, cst.Name)
            bound = targets.value if isinstance(targets, cst.Name) and expression else None
            base = f"compute_{bound or describe(elements[0].expr)}"
        elif isinstance(targets, cst.Name):
            base = f"compute_{targets.value}"  # ``stats = sess.run({...})``: what the program calls them
        else:
            free = "evaluate" not in others and "evaluate" not in plan.taken
            base = "evaluate" if free else "compute_" + "_".join(describe(e.expr) for e in elements[:2])
        # The name of a fetched op or tensor is free once its statement moves into the function.
        reusable = plan.unit.kind(base) in (Value.OP, Value.DYNAMIC)
        if reusable and base not in plan.reused:
            plan.reused.add(base)
            return base
        holder = next((f for f in plan.functions.values() if f.name == base), None)
        added = [p for p in params if holder is not None and p not in holder.params]
        if len(added) == 1 and f"{base}_from_{added[0]}" not in plan.taken:
            return self._fresh(plan, f"{base}_from_{added[0]}")
        return self._fresh(plan, base)

    def _plan_helpers(self, plan: UnitPlan) -> None:
        """Statements needed by the same several functions (two or more of them in a row: a
        sub-graph, not a one-liner) become one helper function those functions call.

        Variable updates and ``tf.gradients`` stay in the functions, where the tape codemods
        expect them. A statement's users include those of every statement depending on it, so
        helpers only depend on helpers with more users: calls can always be ordered."""
        functions = list(plan.functions.values())
        shadowed = set()
        for stmt in plan.unit.statements:
            shadowed |= {node.value for node in name_nodes(stmt.node) if id(node) in plan.renamed}
        # A statement reading a fed constant computes something else in each function.
        overridden = {name for function in functions for name in function.overrides}
        users: dict[int, set[str]] = {}
        for function in functions:
            for stmt in function.body:
                users.setdefault(stmt.index, set()).add(function.name)
        groups: dict[frozenset[str], list[Statement]] = {}
        for function in functions:
            for stmt in function.body:
                shared = frozenset(users[stmt.index])
                if (
                    len(shared) > 1
                    and not (stmt.stateful or stmt.gradients or stmt.uses & overridden)
                    and stmt not in groups.get(shared, [])
                ):
                    groups.setdefault(shared, []).append(stmt)
        for shared, members in sorted(groups.items(), key=lambda item: item[1][0].index):
            if len(members) < 2 or all(len(f.body) == len(members) for f in functions if f.name in shared):
                continue
            members.sort(key=lambda stmt: stmt.index)
            member_ids = {m.index for m in members}
            defined = set().union(*(m.defs for m in members))
            needed: set[str] = set()
            outside_defs: set[str] = set()
            for function in functions:
                if function.name not in shared:
                    continue
                for stmt in function.body:
                    if stmt.index not in member_ids:
                        needed |= stmt.uses
                        outside_defs |= stmt.defs
                if function.returned is not None:
                    needed |= names_used(function.returned)
            for other in groups.values():
                if other is not members:
                    for stmt in other:
                        needed |= stmt.uses
            uses = set().union(*(m.uses for m in members))
            params = [n for n in plan.unit.placeholders if n in uses]
            params += sorted((uses & outside_defs) - defined - set(params))
            outputs = [n for n in in_order(members) if n in needed]
            if not outputs or (set(outputs) | set(params)) & shadowed:
                # A tensor named like the module function it came from (``plan.renamed``)
                # passes between functions only under its local name: no helper for it.
                continue
            # Named after what it builds up to (its last output); the others come along.
            name = self._fresh(plan, f"build_{outputs[-1]}")
            plan.helpers.append(Helper(name, params, outputs, members))
        for function in functions:
            function.steps = order_steps(function.body, plan.helpers)

    def _plan_moved_starts(self, plan: UnitPlan) -> None:
        """A constant or plain statement a function computes again (its code rebinds what it
        binds: ``GraphUnit.backward_slice``) moves into the functions when nothing else reads
        what it binds."""
        unit = plan.unit
        functions = list(plan.functions.values())
        inside = {stmt.index for function in functions for stmt in function.body}
        for index in sorted(inside):
            start = unit.statements[index]
            if start.kind is Kind.GRAPH and start.dynamic:
                continue
            # Who reads its values, outside the functions that compute it again.
            readers = [
                stmt
                for stmt in unit.statements
                if not (stmt.kind is Kind.GRAPH and stmt.dynamic) and stmt.index not in plan.moved
            ]
            others = [function for function in functions if start not in function.body]
            readers += [stmt for function in others for stmt in function.body]
            read = any(
                unit.reaching(name, reader.index) is start
                for reader in readers
                if reader is not start
                for name in reader.uses & start.defs
            )
            returns = [function.returned for function in others if function.returned is not None]
            returned = any(names_used(value) & start.defs for value in returns)
            if not read and not returned:
                plan.moved.add(index)

    def _fresh(self, plan: UnitPlan, base: str) -> str:
        name, counter = base, 2
        while name in plan.taken:
            name, counter = f"{base}_{counter}", counter + 1
        plan.taken.add(name)
        return name

    def _check_leftovers(self, plan: UnitPlan) -> None:
        """Names of the old graph must not survive outside the functions."""
        unit = plan.unit
        for stmt in unit.statements:
            gone = {n for n in stmt.uses if unit.kind(n, stmt.index) in GONE}
            if stmt.kind is not Kind.RUN:
                # (a run statement's reads are replaced nodes, which its leftover check skips)
                gone -= static_names(stmt.static_reads)
            if stmt.kind in (Kind.VARIABLE, Kind.OBJECT, Kind.PLAIN) or (stmt.kind is Kind.GRAPH and not stmt.dynamic):
                if gone:
                    raise Decline(stmt.origin, f"`{sorted(gone)[0]}` is used outside a session call")
            if stmt.kind is Kind.RUN:
                leftover = Leftovers(gone, plan)
                visit(stmt.origin, leftover)
                if leftover.found is not None:
                    raise Decline(leftover.found, f"`{leftover.found.value}` is used outside a session call")

    def _check_local_feeds(self, plan: UnitPlan) -> None:
        """A feed dict turned into ``**feed`` may not be used any other way."""
        if not plan.local_feeds:
            return
        for stmt in plan.unit.statements:
            for name in name_nodes(stmt.origin):
                if name.value in plan.local_feeds and id(name) not in plan.feed_uses:
                    assign_targets = {id(a.targets[0].target) for a in assignments(stmt.origin)}
                    if id(name) not in assign_targets:
                        raise Decline(name, f"feed dict `{name.value}` is used other than as a feed_dict")

    def _check_functions(self, plan: UnitPlan) -> None:
        unit = plan.unit
        openings = sum(1 for stmt in unit.statements if stmt.kind is Kind.SESSION) + sum(
            1
            for block in [*unit.removed_blocks, *unit.nested_blocks]
            for item in block.items
            if isinstance(item.item, cst.Call) and tf_path(item.item.func, self.tf) in SESSIONS
        )
        # ``t.eval(session=tf.Session())``: a session opened for one run.
        openings += sum(
            1
            for stmt in unit.statements
            if stmt.kind is Kind.RUN
            for node in walk(stmt.node, code_only=True)
            if isinstance(node, cst.Arg)
            and node.keyword is not None
            and node.keyword.value == "session"
            and isinstance(node.value, cst.Call)
            and tf_path(node.value.func, self.tf) in SESSIONS
        )
        drawn_by: dict[int, set[str]] = {}
        for function in plan.functions.values():
            for stmt in function.body:
                if stmt.dynamic and stmt.draws_random:
                    drawn_by.setdefault(stmt.index, set()).add(function.name)
        shared = next(
            (
                stmt
                for stmt in unit.statements
                if len(drawn_by.get(stmt.index, ())) > 1 and not self._draws_discarded(plan, stmt)
            ),
            None,
        )
        if shared is not None:
            # TF1 drew every run's values from the one op; each TF2 function has its own op, so
            # a run of one function no longer moves the stream the other draws from.
            # The same distribution, other numbers: an unsafe fix (``--unsafe-fixes``).
            plan.unsafe = (
                shared.origin,
                "a random op is drawn by runs of different fetches "
                f"({', '.join(sorted(drawn_by[shared.index]))}): TF1 drew them all from one "
                "op, each TF2 function draws from its own (the same distribution, other "
                "numbers); fetch them in one run, or draw with tf.random.stateless_* from an "
                "explicit seed",
            )
        if plan.unsafe is None:
            plan.unsafe = self._drawn_out_of_order(plan, drawn_by)
        for function in plan.functions.values():
            drawing = next((stmt for stmt in function.body if stmt.dynamic and stmt.draws_random), None)
            if drawing is not None and openings > 1:
                raise Decline(
                    drawing.origin,
                    "random ops run in more than one session: each TF1 session restarts their "
                    "random state, a TF2 function keeps one; seed each draw explicitly "
                    "(tf.random.stateless_*) to migrate it",
                )
            self._check_free_names(plan, function)
            for name in function.params:
                placeholder = unit.placeholders.get(name)
                if (
                    placeholder is not None
                    and placeholder.default is not None
                    and self._literal_dtype(placeholder.default) is None
                ):
                    raise Decline(placeholder.statement.origin, f"cannot tell the dtype of `{name}`'s default")

    def _drawn_out_of_order(self, plan: UnitPlan, drawn_by: dict[int, set[str]]) -> Optional[tuple]:
        """A random op a function computes (``tf.nn.dropout``) that TF1 built before a random
        value TF2 draws eagerly (a variable's initial value, built after it): TF2 seeds the
        eager draw first and the function's op when it is traced, at its first call, so each
        gets the seed the other had in TF1 (random-op creation order, design §9)."""
        unit = plan.unit
        drawn = drawn_unrun(plan)
        for stmt in unit.statements:
            eager = (
                stmt.index in drawn
                or (stmt.kind is Kind.GRAPH and not stmt.dynamic and stmt.draws_random)
                or (stmt.kind is Kind.VARIABLE and self._draws_initial_value(unit, stmt))
            )
            earlier = next((index for index in sorted(drawn_by) if index < stmt.index), None)
            if not eager or earlier is None:
                continue
            functions = ", ".join(sorted(drawn_by[earlier]))
            later = f"`{sorted(stmt.defs)[0]}`" if stmt.defs else "a later random value"
            return (
                unit.statements[earlier].origin,
                f"a random op drawn by {functions} is built before {later}, drawn eagerly: TF1 "
                "seeded them in that order, TF2 draws the eager value first and the function's "
                "op when it is first traced (the same distributions, other numbers); build the "
                "random op after the variables, or draw with tf.random.stateless_* from an "
                "explicit seed",
            )
        return None

    def _draws_discarded(self, plan: UnitPlan, stmt: Statement) -> bool:
        """Whether every random value ``stmt`` draws is thrown away by every run computing
        it: its random ops are ``tf.nn.dropout`` of a placeholder keep probability each of those
        runs feeds the literal 1 (or a ``rate`` fed 0), which keeps every element, unscaled.
        TF1's one op and each function's own then compute the same values, whatever they draw."""
        calls = tf_calls(stmt.node, self.tf)[0]
        called = [c.func.value for c in calls_in(stmt.node) if isinstance(c.func, cst.Name)]
        if any(name in plan.unit.drawing for name in called):
            return False
        random = [call for path, call in calls if draws_random([(path, call)])]
        fed: list[tuple[str, str]] = []  # (placeholder, the literal that keeps everything)
        for path, call in calls:
            if not draws_random([(path, call)]):
                continue
            if path != "nn.dropout":
                return False
            keep = argument(call, 1, "keep_prob")
            rate = argument(call, None, "rate")
            if isinstance(keep, cst.Name) and rate is None:
                fed.append((keep.value, "1"))
            elif (
                keep is None
                and isinstance(rate, cst.BinaryOperation)
                and isinstance(rate.operator, cst.Subtract)
                and _literal_number(rate.left) == "1"
                and isinstance(rate.right, cst.Name)
            ):
                fed.append((rate.right.value, "1"))
            elif keep is None and isinstance(rate, cst.Name):
                fed.append((rate.value, "0"))
            else:
                return False
        if not random or any(name not in plan.unit.placeholders for name, _ in fed):
            return False
        runs = [site for function, site, _, _ in plan.step_calls if stmt in function.body]
        fed_values = []
        for site in runs:
            fed_values += [(_fed_value(plan, site.feed, name), wanted) for name, wanted in fed]
        return bool(runs) and all(_literal_number(value) == wanted for value, wanted in fed_values)

    def _draws_initial_value(self, unit: GraphUnit, stmt: Statement) -> bool:
        """Whether a variable statement draws its initial value from a random op
        (``tf.Variable(tf.random_normal(...))``, ``weight_variable(shape)`` of a module function
        doing so)."""
        if draws_random(tf_calls(stmt.node, self.tf)[0]):
            return True
        calls = [node for node in walk(stmt.node, code_only=True) if isinstance(node, cst.Call)]
        return any(isinstance(c.func, cst.Name) and c.func.value in unit.drawing for c in calls)

    def _check_free_names(self, plan: UnitPlan, function: FunctionPlan) -> None:
        """A name the function reads from the module must still name, wherever the function is
        called, what it named where TF1 built the graph (``W = 0.1`` before ``W = tf.Variable``
        is fine; ``b`` rebound between the graph and a run is not; a helper's name taken by
        the tensor it returned is the helper in the function, its local renamed)."""
        unit = plan.unit
        built: list[tuple[str, Statement]] = []  # (name, the statement that read it in TF1)
        bound = set(function.params)
        for stmt in function.body:
            built.extend((name, stmt) for name in sorted(stmt.uses - bound))
            bound |= stmt.defs
        for name in function.params:
            if name in function.overrides:
                continue  # checked where the function was planned
            # The input signature and defaults are evaluated where the function is defined.
            placeholder = unit.placeholders[name]
            for part in (placeholder.shape, placeholder.dtype, placeholder.default):
                built.extend(
                    (used, placeholder.statement) for used in sorted(names_used(part) if part is not None else ())
                )
        definition = function.anchor + 1 if function.body else function.anchor
        for name, reader in built:
            if unit.bindings.get(name, 0) < 2:
                continue
            meant = unit.reaching(name, reader.index)
            seen = [unit.reaching(name, site) for site in function.sites]
            if reader in (unit.placeholders[p].statement for p in function.params if p in unit.placeholders):
                seen.append(unit.reaching(name, definition))
            # ``a, b = sess.run([a, b])``: the call runs before its line binds the names; a
            # line doing more, or a loop, may run it after.
            sites = [unit.statements[site] for site in function.sites]
            rebinding = [site for site in sites if name in site.defs]
            if any(binding is not meant for binding in seen) or any(
                not _binds_after_calling(site.node) for site in rebinding
            ):
                if not rebinding and self._shadows_module_name(plan, function, name, meant):
                    continue
                hint = ""
                outside = meant is not None and meant not in function.body
                if outside and reader in function.body and name in reader.defs:
                    hint = "; the graph gives it to a tensor: give each tensor a name of its own"
                    hint += f" ({name}_result)"
                raise Decline(
                    reader.origin,
                    f"`{name}` is rebound after the graph used it: its TF1 value is not the one "
                    f"the function would see{hint}",
                )

    def _shadows_module_name(
        self, plan: UnitPlan, function: FunctionPlan, name: str, meant: Optional[Statement]
    ) -> bool:
        """``spread = spread(x)``: a module function (or other module name) whose name the
        graph then gives to the tensor it built from it, and nothing else rebinds. In the
        function that statement would make ``spread`` a local read before it is bound, so the
        tensor takes a name of its own there (``spread_result``), in the statements after it
        and in what the function returns (``plan.renamed``). The module name keeps meaning
        what the graph code read: the statement binding the tensor moves into the functions,
        and every later module-level read of the tensor is a run replaced by a call. False
        (the caller declines) for any other shape."""
        unit = plan.unit
        binders = [stmt for stmt in unit.statements if name in stmt.defs and stmt is not meant]
        if meant is None or meant in function.body:
            return False
        if unit.bindings.get(name, 0) != 2 or len(binders) != 1:
            return False
        tensor = binders[0]
        pair = name_assignment(tensor.node)
        if (
            tensor not in function.body
            or tensor.kind is not Kind.GRAPH
            or not tensor.dynamic
            or pair is None
            or pair[0] != name
        ):
            return False
        movers = {stmt.index for f in plan.functions.values() for stmt in f.body}
        replaced = [*plan.calls, *plan.smalls]  # the runs, each replaced by a call
        renamed: list[cst.Name] = [tensor.node.body[0].targets[0].target]
        for stmt in unit.statements[tensor.index + 1 :]:
            reads = [node for node in name_nodes(stmt.node) if node.value == name]
            if not reads:
                continue
            if stmt.kind is Kind.GRAPH and stmt.index in movers:
                renamed += reads
            elif not all(any(contains(run, node) for run in replaced) for node in reads):
                return False
        for other in plan.functions.values():
            if other.returned is not None and tensor in other.body:
                renamed += [node for node in name_nodes(other.returned) if node.value == name]
        local = plan.renamed.get(id(renamed[0])) or self._fresh(plan, f"{name}_result")
        plan.renamed.update((id(node), local) for node in renamed)
        return True

    def _literal_dtype(self, value: cst.BaseExpression) -> Optional[str]:
        if isinstance(value, cst.UnaryOperation):
            value = value.expression
        for kind, dtype in LITERAL_DTYPES.items():
            if isinstance(value, kind):
                return dtype
        if isinstance(value, cst.Name) and value.value in ("True", "False"):
            return "bool"
        return None


def _reached(nodes: list[cst.CSTNode], defined: dict[str, cst.FunctionDef]) -> Optional[list[cst.CSTNode]]:
    """``nodes`` and the ``defined`` functions they call, and those these call; None when they
    call ``print`` (TF1 printed a graph tensor's description where an eager run prints its
    value)."""
    reached: list[cst.CSTNode] = []
    seen: set[str] = set()
    nodes = list(nodes)
    while nodes:
        node = nodes.pop()
        reached.append(node)
        for call in calls_in(node):
            callee = call.func.value if isinstance(call.func, cst.Name) else None
            if callee is None or callee in seen:
                continue
            if callee == "print":
                return None
            if callee in defined:
                seen.add(callee)
                nodes.append(defined[callee])
    return reached


def _literal_number(value: Optional[cst.BaseExpression]) -> Optional[str]:
    """``"1"`` for ``1`` / ``1.0``, ``"0"`` for ``0`` / ``0.0`` / ``0.``; None for anything else."""
    if isinstance(value, (cst.Integer, cst.Float)):
        number = float(value.value)
        if number in (0.0, 1.0):
            return str(int(number))
    return None


def _fed_value(plan: UnitPlan, feed, name: str) -> Optional[cst.BaseExpression]:
    """What a run's feed (a dict literal, or a feed dict the unit builds) gives ``name``."""
    if isinstance(feed, cst.Name):
        feed = plan.local_feeds.get(feed.value) or plan.unit.feeds.get(feed.value)
    if not isinstance(feed, cst.Dict):
        return None
    values = []
    for element in feed.elements:
        key = element.key if isinstance(element, cst.DictElement) else None
        if isinstance(key, cst.Name) and key.value == name:
            values.append(element.value)
    return values[0] if len(values) == 1 else None


def _binds_after_calling(node: cst.BaseStatement) -> bool:
    """Whether a statement is one assignment: what it calls runs before it binds anything."""
    return (
        isinstance(node, cst.SimpleStatementLine)
        and len(node.body) == 1
        and isinstance(node.body[0], cst.Assign)
        and not any(isinstance(n, cst.NamedExpr) for n in walk(node.body[0].value, code_only=True))
    )


def _stem(name: str, words: frozenset[str]) -> str:
    """``name`` without the ``words`` among its parts: ``d_train_op`` -> ``d``."""
    return "_".join(part for part in name.split("_") if part and part.lower() not in words)
