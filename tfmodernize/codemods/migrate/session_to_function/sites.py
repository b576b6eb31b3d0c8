"""Run sites and feeds: what each ``sess.run`` / ``t.eval()`` / ``op.run()`` fetches and feeds,
and what replaces it (an eager value, a call of the function computing the fetch)."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tfmodernize.treewalk import contains, visit, walk

from tfmodernize.codemods.migrate.session_to_function.model import (
    STATEFUL_OPS,
    Kind,
    Statement,
    StaticRead,
    Value,
)
from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.session_to_function.graph import GraphUnit
from tfmodernize.codemods.migrate.session_to_function.statement_reads import (
    STATIC_ATTRIBUTES,
    draws_random,
    inline_op,
    tf_calls,
    tf_path,
)
from tfmodernize.codemods.migrate.session_to_function.emit import AssignMethods
from tfmodernize.codemods.migrate.session_to_function.plan import (
    Element,
    INITIALISED,
    Shape,
    UnitPlan,
    numpy_call,
    returned_is,
)
from tfmodernize.codemods.migrate.session_to_function.reading import (
    SessionCalls,
    Site,
    assignments,
    calls_in_loops,
)
from tfmodernize.syntax import argument, commas, source
from tfmodernize.codemods.migrate.session_to_function.numpy_values import (
    eager_value,
    reads_to_convert,
    to_numpy,
    wants_numpy,
)
from tfmodernize.codemods.migrate.session_to_function.averages import plan_averages
from tfmodernize.codemods.migrate.session_to_function.invariant_feeds import converted_once
from tfmodernize.codemods.migrate.session_to_function.feeds import feed_overrides, restart_iterator, run_call
from tfmodernize.codemods.migrate.session_to_function.fetches import (
    fetched_elements,
    fetch_kind,
    initialised,
    initialised_twice,
    next_element,
    place,
    without_ops,
)


class RunSites:
    """Part of :class:`SessionToFunction` (see the package docstring)."""

    def _plan_runs(self, plan: UnitPlan) -> None:
        unit = plan.unit
        self._plan_local_feeds(plan)
        plan_averages(self.tf, self._module, plan)
        runs: list[cst.Call] = []  # every session call, in the order the program makes them
        # the session each one runs in (``GraphUnit.session_at``)
        opened: dict[int, Optional[int]] = {}
        helpers = {helper.index: helper for helper in unit.session_helpers.values()}
        for stmt in unit.statements:
            if stmt.kind is not Kind.RUN:
                continue
            sites = SessionCalls(self, unit, stmt.index)
            visit(stmt.origin, sites)
            helper = helpers.get(stmt.index)
            # (a helper's runs run where it is called, neither once nor at each pass of its loops)
            plan.repeated |= calls_in_loops(stmt.origin) if helper is None else set()
            if sites.unexplained:
                raise Decline(sites.unexplained, self._session_use(sites.unexplained))
            for handed in sites.handed:
                plan.handed.add(id(handed))
                plan.fixes.append((handed, "the session handed to a function running the graph goes"))
            for site in sites.sites:
                runs.append(site.call)
                if helper is not None:
                    # The one session the program opens, which every call hands it.
                    opened[id(site.call)] = 0 if unit.openings else None
                else:
                    name = _session_of(site.call, unit.sessions)
                    name = None if name == DEFAULT_SESSION else name
                    opened[id(site.call)] = unit.session_at(name, stmt.index)
                self._plan_site(plan, stmt, site)
                if helper is not None and id(site.call) in plan.initialised:
                    raise Decline(site.call, f"`{helper.name}`, given the session, initialises the variables")
        for helper in helpers.values():
            # A helper's runs run where it is called: the functions must mean there what they
            # meant where the graph was built (``_check_free_names``).
            for function in plan.functions.values():
                if helper.index in function.sites:
                    function.sites.extend(i for i in helper.callers if i not in function.sites)
        initializer_runs = [node for node, message in plan.fixes if message == INITIALISED]
        updates = [s for s in unit.statements if s.stateful] or plan.eager_updates
        again = initializer_runs[1:] or [node for node in initializer_runs if id(node) in plan.repeated]
        # Initialised again after runs that updated nothing, and only the last session runs after
        # that (a session opened only to initialise or to read the initial values, then a new
        # one): the variables still held their initial values, and no other copy of them is read
        # later. Random initial values are drawn again only by the same session initialising twice.
        initializers = {id(node) for node in initializer_runs}
        last = max((runs.index(node) for node in initializer_runs if node in runs), default=0)
        session = opened.get(id(runs[last])) if runs else None
        random_initial = any(
            draws_random(tf_calls(s.node, self.tf)[0])
            for s in unit.statements
            if s.kind is Kind.VARIABLE or (s.kind is Kind.GRAPH and not s.dynamic)
        )
        redrawn = random_initial and initialised_twice(plan, initializer_runs, opened)
        if (
            again
            and session is not None
            and not redrawn
            and not plan.repeated & initializers
            and not any(id(call) in plan.updating for call in runs[:last])
            and all(opened.get(id(call)) == session for call in runs[last:])
        ):
            again = []
        if again and redrawn:
            raise Decline(
                again[0],
                "variables are initialised again in the same session: TF1 draws their random "
                "initial values anew, TF2 variables are created once; assign new values by hand",
            )
        if again and updates:
            raise Decline(
                again[0],
                "variables are initialised again after ops that update them (a new session, "
                "or the same one run in a loop): TF2 variables are created once and keep "
                "their values; reset them with `v.assign(...)` by hand",
            )

    def _session_use(self, name: cst.Name) -> str:
        """Why a use of a session other than ``run`` / ``close`` keeps the program as it is, and
        what to do: the session's graph read, the session given to a call, a method of it."""
        session = name.value
        parents = self.state.parents(self._module)
        parent = parents.get(id(name))
        arg = parent if isinstance(parent, cst.Arg) else None
        call = parents.get(id(arg)) if arg is not None else None
        if isinstance(parent, cst.Attribute) and parent.value is name:
            attribute = parent.attr.value
            if attribute in ("graph", "graph_def"):
                return (
                    f"`{session}.{attribute}` is read: TF2 has no session graph; drop it "
                    "(summary-v2 drops a writer's graph and `add_graph` once nothing else keeps "
                    "the file on TF1)"
                )
            what = f"`{session}.{attribute}`"
            return f"session `{session}` is used other than to run the graph: {what}"
        if isinstance(call, cst.Call) and call.func is not name:
            callee = source(call.func)
            if isinstance(call.func, cst.Attribute) and call.func.attr.value in ("save", "restore"):
                return (
                    f"session `{session}` is passed to `{callee}`: a TF1 Saver, kept until "
                    "saver-to-checkpoint migrates it (see its finding)"
                )
            if isinstance(call.func, cst.Name) and tf_path(call.func, self.tf) is None:
                return (
                    f"session `{session}` is passed to `{callee}`, which this codemod does not "
                    f"follow into: pass `{callee}` the values it runs, or run them where it "
                    "is called"
                )
            only = f"only `{session}.run(...)` is migrated"
            return f"session `{session}` is passed to `{callee}`: {only}"
        return f"session `{session}` is used other than to run the graph"

    def _plan_static_reads(self, plan: UnitPlan) -> None:
        """``x.shape`` / ``x.get_shape()`` / ``x.dtype`` outside the session: what TF1 knew of
        the tensor without running it. A placeholder's is its spec; a computed tensor's is what
        tracing its function infers (``get_concrete_function().output_shapes``), the same shape
        inference TF1 ran; a constant's or variable's is read from the eager value.

        A tensor printed or formatted as text (``print(t)``, ``"{}".format(t)``) showed in TF1
        what the graph knew of it, never its value: its shape and dtype, written as the
        ``tf.TensorSpec`` they make (a computed tensor: the graph tensor of its function's
        trace, which TF2 writes as TF1 did); ``type(t)`` of a tensor the migration leaves no
        object for (a placeholder, a computed tensor) was ``tf.Tensor``. In a statement that also
        runs the graph, reads inside the session calls go with the calls' own rewrite."""
        unit = plan.unit
        run_calls = [*plan.calls, *plan.smalls]
        for stmt in unit.statements:
            for node, name, what in stmt.static_reads:
                if stmt.kind is Kind.RUN and any(contains(call, node) for call in run_calls):
                    continue
                op = inline_op((node, name, what))
                kind = Value.DYNAMIC if op is not None else unit.kind(name, stmt.index)
                if what in ("describe", "type"):
                    value = self._description(plan, stmt, (node, name, what), kind)
                    if value is None:
                        continue
                    if what == "type":
                        plan.calls[node] = value
                        message = f"`type({name})` outside the session: a tf.Tensor in TF1"
                    else:
                        plan.replacements[node] = value
                        message = (
                            f"`{name}` as text outside the session: TF1 wrote what its graph knew "
                            "of the tensor (shape and dtype), not its value: its `tf.TensorSpec`"
                        )
                    plan.fixes.append((node, message))
                    continue
                if kind == Value.PLACEHOLDER:
                    placeholder = unit.placeholders[name]
                    if what == "shape":
                        shape = placeholder.shape_at(stmt.index)
                        shape = shape if shape is not None else cst.Name("None")
                        value = cst.Call(self.tf_expr("TensorShape"), [cst.Arg(shape)])
                    elif placeholder.dtype is not None:
                        value = cst.Call(self.tf_expr("as_dtype"), [cst.Arg(placeholder.dtype)])
                    else:
                        raise Decline(node, f"cannot tell the dtype of placeholder `{name}`")
                elif kind == Value.DYNAMIC:
                    # An op built where it is read (``tf.argmax(y, 1).shape``): a function computing it.
                    read = op if op is not None else cst.Name(name)
                    function = self._function_for(plan, stmt, [Element(read, Value.DYNAMIC)], [], Shape.SINGLE)
                    function.sites.append(stmt.index)
                    concrete = cst.Call(cst.Attribute(cst.Name(function.name), cst.Name("get_concrete_function")))
                    value = cst.Attribute(concrete, cst.Name("output_shapes" if what == "shape" else "output_dtypes"))
                    if op is None:
                        self._name_traced(plan, value, f"{name}_{'shape' if what == 'shape' else 'dtype'}")
                elif kind in (Value.STATIC, Value.VARIABLE):
                    continue
                else:
                    raise Decline(
                        node, f"`{name}` is read outside the session and is not a tensor this codemod understands"
                    )
                # ``x.get_shape()[1].value``: a TF2 shape's dimension is an int (or None), not a Dimension.
                dimension = (
                    next(
                        (
                            n
                            for n in walk(stmt.node, code_only=True)
                            if isinstance(n, cst.Attribute)
                            and n.attr.value == "value"
                            and isinstance(n.value, cst.Subscript)
                            and n.value.value is node
                        ),
                        None,
                    )
                    if what == "shape"
                    else None
                )
                if dimension is not None:
                    plan.replacements[dimension] = dimension.value.with_changes(value=value)
                elif isinstance(node, cst.Call):
                    plan.calls[node] = value
                else:
                    plan.replacements[node] = value
                plan.fixes.append((node, f"`{source(node)}` outside the session: what TF1's graph knew of `{name}`"))

    def _name_traced(self, plan: UnitPlan, value: cst.Attribute, name: str) -> None:
        """Name the local ``value`` (what a trace says of a tensor) is read into when the
        statement reading it would be wider than the file: ``name`` (``<tensor>_shape``), the
        same for every read of it, and none when the program has a name of its own so."""
        if name in plan.taken and name not in self._traced_names:
            return
        plan.taken.add(name)
        self._traced_names.add(name)
        plan.traced[id(value)] = name

    def _description(
        self, plan: UnitPlan, stmt: Statement, read: StaticRead, kind: Optional[Value]
    ) -> Optional[cst.BaseExpression]:
        """What replaces a graph tensor written as text (``what == "describe"``: its
        ``tf.TensorSpec``, or a computed tensor's traced graph tensor) or its ``type(...)``
        outside the session; None to leave it (the type of a constant or variable, still an
        object of the program)."""
        node, name, what = read
        unit = plan.unit
        spec = self.tf_expr("TensorSpec")
        placeholder = unit.placeholders.get(name) if kind == Value.PLACEHOLDER else None
        if placeholder is not None and placeholder.iterator is None:
            if what == "type":
                return self.tf_expr("Tensor")
            dtype = placeholder.dtype
            if dtype is None and self._literal_dtype(placeholder.default) is not None:
                dtype = self.tf_expr(self._literal_dtype(placeholder.default))
            if dtype is None:
                raise Decline(node, f"cannot tell the dtype of placeholder `{name}`")
            shape = placeholder.shape_at(stmt.index)
            shape = shape if shape is not None else cst.Name("None")
            return cst.Call(spec, commas([cst.Arg(shape), cst.Arg(dtype)]))
        several = unit.holds_structure(cst.Name(name), stmt.index)
        if kind in (Value.DYNAMIC, Value.STATIC) and several:
            raise Decline(node, f"`{name}` (several tensors) is printed outside the session")
        if kind == Value.DYNAMIC:
            if what == "type":
                return self.tf_expr("Tensor")
            element = Element(cst.Name(name), Value.DYNAMIC)
            function = self._function_for(plan, stmt, [element], [], Shape.SINGLE)
            function.sites.append(stmt.index)
            # The tensor as its function's trace holds it: a graph tensor, written as TF1 wrote it.
            traced = cst.Attribute(cst.Name(function.name), cst.Name("get_concrete_function"))
            value = cst.Attribute(cst.Call(traced), cst.Name("structured_outputs"))
            self._name_traced(plan, value, f"{name}_traced")
            return value
        if kind == Value.STATIC:
            if what == "type":
                return None
            return cst.Call(cst.Attribute(spec, cst.Name("from_tensor")), [cst.Arg(cst.Name(name))])
        if kind == Value.VARIABLE and _single_variable(unit, name, stmt.index):
            if what == "type":
                return None
            parts = [cst.Attribute(cst.Name(name), cst.Name(part)) for part in STATIC_ATTRIBUTES]
            return cst.Call(spec, commas([cst.Arg(part) for part in parts]))
        reason = f"`{name}` is read outside the session and is not a tensor {UNDERSTOOD}"
        raise Decline(node, reason)

    def _plan_local_feeds(self, plan: UnitPlan) -> None:
        """``feed = {x: batch, y: labels}`` built where the graph runs (in a loop, typically)
        and used only as ``feed_dict``: it becomes ``{"x": batch, "y": labels}``, passed as
        ``step(**feed)``, so the fed values are still taken when the dict is built."""
        unit = plan.unit
        for stmt in unit.statements:
            if stmt.kind is not Kind.RUN:
                continue
            for assign in assignments(stmt.origin):
                target, value = assign.targets[0].target, assign.value
                if len(assign.targets) != 1 or not isinstance(target, cst.Name) or not isinstance(value, cst.Dict):
                    continue
                keys = [e.key for e in value.elements if isinstance(e, cst.DictElement)]
                if (
                    not keys
                    or len(keys) != len(value.elements)
                    or not all(
                        isinstance(k, cst.Name) and unit.kind(k.value, stmt.index) == Value.PLACEHOLDER for k in keys
                    )
                ):
                    continue
                if target.value in plan.local_feeds or unit.bindings.get(target.value, 0) > 1:
                    raise Decline(assign, f"feed dict `{target.value}` is built more than once")
                plan.local_feeds[target.value] = value
                if target.value == "feed_dict":
                    # Named after TF1's keyword it reads as session code left behind; it now
                    # holds function arguments.
                    plan.feed_names[target.value] = self._fresh(plan, "arguments")
                    plan.replacements[target] = cst.Name(plan.feed_names[target.value])
                plan.replacements[value] = value.with_changes(
                    elements=[e.with_changes(key=cst.SimpleString(f'"{e.key.value}"')) for e in value.elements]
                )

    def _plan_removals(self, plan: UnitPlan) -> None:
        for block in [*plan.unit.removed_blocks, *plan.unit.nested_blocks]:
            scope = tf_path(block.items[0].item.func, self.tf) if isinstance(block.items[0].item, cst.Call) else None
            why = (
                "it only named or placed ops, which TF2 functions do themselves"
                if scope in ("name_scope", "device", "variable_scope")
                else "TF2 has no sessions or default graphs"
            )
            plan.fixes.append((block.items[0], f"the block is dedented: {why}"))
        for stmt in plan.unit.statements:
            if stmt.kind is Kind.SESSION:
                plan.fixes.append((stmt.origin, "TF2 has no sessions"))
            elif stmt.kind is Kind.PLACEHOLDER:
                target = source(stmt.node.body[0].targets[0].target)
                fed_by = next((p.iterator for p in plan.unit.placeholders.values() if p.statement is stmt), None)
                plan.fixes.append(
                    (
                        stmt.origin,
                        f"`{target}` -> function parameters, fed `{fed_by}.get_next()` at each run"
                        if fed_by
                        else f"placeholder `{target}` -> function parameter",
                    )
                )
            elif stmt.kind is Kind.ITERATOR:
                plan.fixes.append((stmt.origin, "a TF1 dataset iterator -> `iter(dataset)`"))
            elif stmt.kind is Kind.SHAPE:
                message = "the shape set on the placeholder goes into its `tf.TensorSpec`"
                plan.fixes.append((stmt.origin, message))
            elif stmt.kind is Kind.RESET:
                plan.fixes.append((stmt.origin, "TF2 runs eagerly: no default graph to reset or switch to"))
            elif stmt.kind is Kind.FEED:
                plan.fixes.append((stmt.origin, "the feed dict's values become function arguments"))

    def _plan_site(self, plan: UnitPlan, stmt: Statement, site: "Site") -> None:
        unit = plan.unit
        if site.close:
            plan.smalls[site.small] = None
            plan.fixes.append((site.call, "the session is gone in TF2"))
            return
        printed = self._printed(plan, stmt, site)
        if printed is not None:
            plan.smalls[site.small] = cst.Expr(printed)
            plan.fixes.append((site.call, "`tf.Print` run for its log line -> `tf.print` (to stderr, as TF1)"))
            return
        elements, shape = fetched_elements(self.tf, unit, site.fetches, stmt.index)
        ops = [e for e in elements if e.kind == Value.OP]
        kinds = {e.kind for e in elements}
        if kinds == {Value.INIT}:
            plan.initialised[id(site.call)] = set().union(
                *(initialised(self.tf, unit, element.expr, stmt.index) for element in elements)
            )
            if site.context == "discard":
                plan.smalls[site.small] = None
            else:
                # ``out = sess.run(init)``: an initializer's value is None.
                place(plan, site, cst.Name("None"), site.targets)
            plan.fixes.append((site.call, INITIALISED))
            return
        if Value.INIT in kinds:
            raise Decline(site.call, "an initializer fetched together with other values")
        if kinds == {Value.ITERATOR} and len(elements) == 1 and site.context == "discard":
            restart_iterator(plan, site, elements[0].expr.value.value)
            return
        if Value.ITERATOR in kinds:
            raise Decline(site.call, "an iterator's initializer fetched together with other values or used")
        elements, shape, targets = without_ops(plan, site, elements, shape)
        overrides = feed_overrides(self.tf, self._module, plan, site)
        dynamic = ops or overrides or any(e.kind == Value.DYNAMIC for e in elements)
        if not dynamic:
            found = [tf_calls(element.expr, self.tf) for element in elements]
            called = {name for paths, methods in found for name, _ in (*paths, *methods)}
            updating = bool(called & set(STATEFUL_OPS))
            plan.eager_updates = plan.eager_updates or updating
            if updating:
                plan.updating.add(id(site.call))
            value = eager_value(
                self.tf,
                self.tf_expr,
                elements,
                shape,
                unit,
                stmt.index,
                numpy=site.context != "discard",
                targets=targets,
            )
            plan.fixes.append((site.call, "a fetch no placeholder feeds is its eager value"))
        elif (following := next_element(plan, site, elements, ops, overrides)) is not None:
            # The fetch is a dataset's next element as it is: no function to compute it.
            value = following
            if shape != Shape.NONE and wants_numpy(plan, site, targets):
                listed = shape == Shape.SINGLE and isinstance(targets, (cst.Tuple, cst.List))
                value = to_numpy(self.tf_expr, following, Shape.LIST if listed else shape, unit, elements, stmt.index)
            elif shape == Shape.LIST:
                value = cst.Call(cst.Name("list"), [cst.Arg(following)])
            plan.fixes.append((site.call, f"`{source(site.call)}` -> `{source(following)}`"))
        else:
            function = self._function_for(plan, stmt, elements, ops, shape, overrides, targets)
            function.sites.append(stmt.index)
            if any(member.stateful for member in function.body):
                plan.updating.add(id(site.call))
            call = converted_once(
                self.tf_expr,
                self._module,
                plan,
                stmt,
                site,
                function,
                run_call(self.tf, self._module, function, plan, site),
            )
            plan.step_calls.append((function, site, targets, call))
            value = call
            reads = None
            if shape != Shape.NONE:
                reads = reads_to_convert(self.state, self._module, plan, site, elements, targets, self.tf)
            if reads is not None:
                for read in reads:
                    plan.replacements[read] = numpy_call(read)
            elif shape != Shape.NONE and wants_numpy(plan, site, targets):
                listed = shape == Shape.SINGLE and (
                    isinstance(targets, (cst.Tuple, cst.List)) or unit.is_sequence(elements[0].expr)
                )
                value = to_numpy(self.tf_expr, call, Shape.LIST if listed else shape, unit, elements, stmt.index)
            elif shape in (Shape.LIST, Shape.TUPLE) and not returned_is(
                function, cst.List if shape == Shape.LIST else cst.Tuple
            ):
                value = cst.Call(cst.Name(str(shape)), [cst.Arg(call)])
            plan.fixes.append((site.call, f"`{source(site.call)}` -> `{function.name}(...)`"))
        place(plan, site, value, targets)

    def _printed(self, plan: UnitPlan, stmt: Statement, site: "Site") -> Optional[cst.Call]:
        """``sess.run(tf.Print(x, [x, y], "msg"))``, its value dropped, is run for the line it
        logs: ``tf.print("msg", x, y)`` of the same values, eager ones as they are, fed or
        updated ones computed by a function (``tf.print("msg", *compute_x_y(...))``), to stderr
        as TF1 did (TF2 formats them). None for any other run, which then declines."""
        call, unit, at = site.fetches, plan.unit, stmt.index
        if (
            site.context != "discard"
            or not isinstance(call, cst.Call)
            or tf_path(call.func, self.tf) != "Print"
            or any(a.star for a in call.args)
        ):
            return None
        keywords = {a.keyword.value for a in call.args if a.keyword is not None}
        if keywords - {"input_", "data", "message", "name"}:
            return None  # ``first_n`` and ``summarize`` count differently in ``tf.print``
        printed, data, message = argument(call, 0, "input_"), argument(call, 1, "data"), argument(call, 2, "message")
        if not isinstance(printed, cst.Name) or not isinstance(data, (cst.List, cst.Tuple)) or not data.elements:
            return None
        try:
            elements, _ = fetched_elements(self.tf, unit, data, at)
            input_kind = fetch_kind(self.tf, unit, printed, at)
        except Decline:
            return None
        tensors = (Value.STATIC, Value.VARIABLE, Value.DYNAMIC)
        if input_kind not in tensors or any(e.kind not in tensors for e in elements):
            return None
        overrides = feed_overrides(self.tf, self._module, plan, site)
        args = [cst.Arg(message)] if message is not None else []
        if not overrides and all(e.kind != Value.DYNAMIC for e in elements):
            args += [cst.Arg(e.expr.visit(AssignMethods(self.tf))) for e in elements]
        else:
            single = len(elements) == 1
            function = self._function_for(plan, stmt, elements, [], Shape.SINGLE if single else Shape.LIST, overrides)
            function.sites.append(at)
            args.append(cst.Arg(run_call(self.tf, self._module, function, plan, site), star="" if single else "*"))
        return cst.Call(self.tf_expr("print"), commas(args))


#: What ``t.eval()`` without ``session=`` runs in: the default session, the one the program
#: opened last (``with tf.Session() as sess:``) as far as a run after an initialisation goes.
DEFAULT_SESSION = "<default session>"


def _session_of(call: cst.Call, sessions: set[str]) -> Optional[str]:
    """The name of the session ``call`` runs in: ``sess`` in ``sess.run(...)`` or
    ``t.eval(session=sess)``, ``DEFAULT_SESSION`` for ``t.eval()`` / ``op.run()``; None when it
    is another (``t.eval(session=tf.Session())``)."""
    func = call.func
    if not isinstance(func, cst.Attribute):
        return None
    target = func.value
    if func.attr.value == "run" and isinstance(target, cst.Name) and target.value in sessions:
        return target.value
    # ``t.eval(feed_dict, session)``, ``op.run(feed_dict, session)``
    session = argument(call, 1, "session")
    if session is None:
        return DEFAULT_SESSION
    return session.value if isinstance(session, cst.Name) else None


#: The end of a decline's reason naming what the codemod does not follow.
UNDERSTOOD = "this codemod understands"


def _single_variable(unit: GraphUnit, name: str, at: int) -> bool:
    """Whether ``name`` holds one variable at the statement of index ``at`` (not a dict or
    list of them)."""
    made = unit.reaching(name, at)
    return any(variable.name == name and variable.statement is made for variable in unit.variables)
