"""TFM101 session-to-function.

What it does
    Turns a TF1 program that builds a graph of placeholders, variables and ops and evaluates
    it with ``sess.run(fetches, feed_dict)`` into TF2 code, at module level or inside a
    function:

    - variables (``tf.Variable``, ``tf.get_variable``, dicts or lists of them, module
      functions returning one) stay where the graph created them, created once, eagerly, in
      the same order, with the random initial values they were drawn from;
    - each distinct fetch becomes one ``@tf.function`` whose parameters are the fed
      placeholders (same names, with an ``input_signature`` built from the placeholders'
      dtypes and shapes, so ``None`` batch sizes do not retrace and float64 feeds compute
      in the placeholder's dtype) and whose body is the backward slice of the fetched tensors,
      in program order; a sub-graph (two statements or more) needed by several functions
      becomes one helper function they call;
    - ``sess.run`` / ``t.eval()`` / ``op.run()`` call sites call those functions with the fed
      values, taking ``.numpy()`` where the program used the numpy result;
    - a fetch that no placeholder or variable feeds is its eager value (``t.numpy()``), a
      fetched variable is ``v.numpy()``, and ops built inside ``sess.run`` on no placeholder
      (``sess.run(tf.assign(w, v))``) are eager code where they stand (``w.assign(v)``);
    - sessions, ``sess.close()``, initializer runs, ``tf.reset_default_graph()``,
      ``tf.disable_eager_execution()`` / ``tf.disable_v2_behavior()`` and
      ``with tf.Graph().as_default():`` disappear (blocks are dedented); ``ConfigProto``
      options become the matching ``tf.config`` calls;
    - ``tf.placeholder_with_default`` becomes a parameter with a default;
    - a constant tensor fed at a run (TF1 replaced its value) becomes a parameter of that
      run's function, specified by the constant's own shape and dtype;
    - ``t.shape`` / ``t.get_shape()`` / ``t.dtype`` read outside the session are what TF1's
      graph knew: a placeholder's spec, a computed tensor's traced output shape.

    It declines, changing nothing in that program (or function) and reporting the construct
    and line: feeding a computed tensor or a variable, ``partial_run``, queue runners and
    dataset iterators, imported graphs and tensors looked up by name, sessions passed around,
    placeholders rebound, tensors used outside a session call (printed: TF1 printed their
    repr), variables initialised again after updates (a second session, or one opened in a
    loop), random ops run in several sessions, fetches of ops it does not understand (summaries, ``tf.no_op``),
    ``ConfigProto`` options with no ``tf.config`` equivalent, and code a tf.function would run
    on every trace that creates variables (``tf.layers``, RNN builders, functions defined
    elsewhere called on placeholder values), variables initialised again after an update.

    Contract with minimize-to-tape (TFM102) and gradients-to-tape (TFM103), which run after
    it: an ``opt.minimize(...)`` op (value ``None`` in ``sess.run``) or a ``tf.gradients``
    call is moved verbatim into the function that fetches it (the optimizer constructor stays
    where it was), and each moved statement places an obligation on TFM102 / TFM103. If those
    codemods do not complete the rewrite, the engine drops this one for the file. Collections
    (``tf.trainable_variables()``) are left to collections-to-tracking (TFM104).

Why it matters
    TF2 has no sessions and no placeholders: ``tf_upgrade_v2`` only renames them to
    ``tf.compat.v1``, which keeps graph mode alive and fails on TF 2.x's eager defaults at the
    first placeholder. Functions that take the fed values as arguments are the TF2 idiom, and
    trace once per input signature.

Before
    import numpy as np
    import tensorflow as tf

    x = tf.placeholder(tf.float32, [None, 2])
    W = tf.Variable([[1.0], [2.0]])
    y = tf.matmul(x, W)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        print(sess.run(y, feed_dict={x: np.ones((3, 2))}))

After
    import numpy as np
    import tensorflow as tf

    W = tf.Variable([[1.0], [2.0]])


    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    def compute_y(x):
        y = tf.matmul(x, W)
        return y


    print(compute_y(np.ones((3, 2))).numpy())

Fixtures: ``fixtures/session-to-function/``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Sequence, Union

import libcst as cst
from libcst.codemod.visitors import RemoveImportsVisitor
from libcst.metadata import ScopeProvider

from codemods import _training as training
from codemods._graph import (
    INITIALIZERS,
    UNKNOWN_OPS,
    PLACEHOLDERS,
    SESSIONS,
    STATEFUL_OPS,
    VARIABLE_MAKERS,
    Decline,
    GraphUnit,
    Kind,
    Statement,
    call_argument,
    names_used,
    tf_calls,
    tf_path,
)
from tfmodernize.codemod import TFCodemod
from tfmodernize.tfsymbols import TFNames, root_name
from tfmodernize.treewalk import contains

#: ``ConfigProto`` fields with a process-wide ``tf.config`` equivalent.
CONFIG_CALLS = {
    "log_device_placement": "debugging.set_log_device_placement",
    "allow_soft_placement": "config.set_soft_device_placement",
    "intra_op_parallelism_threads": "config.threading.set_intra_op_parallelism_threads",
    "inter_op_parallelism_threads": "config.threading.set_inter_op_parallelism_threads",
}
#: What the names of the old graph are that do not survive the migration outside functions.
GONE = ("placeholder", "dynamic", "op", "session", "init", "config", "graph", "feed")
#: Modules whose functions never create TF variables.
SAFE_MODULES = ("numpy", "math", "operator", "functools", "itertools")
#: Fix message of a removed initializer run (also counted: a second one after updates declines).
INITIALISED = "variables are initialised when created in TF2"
#: What a user can do about a fed tensor that is not a placeholder (TF1 overrides its value).
OVERRIDE_HINT = ("TF1 replaces that tensor's value for this run; make it "
                 "`tf.placeholder_with_default(<its expression>, <shape>)` and migrate again")
#: Method forms of TF1's ``tf.assign(ref, value)`` family.
ASSIGN_METHODS = {"assign": "assign", "assign_add": "assign_add", "assign_sub": "assign_sub"}
#: dtype of ``tf.placeholder_with_default``'s input when it is a Python literal.
LITERAL_DTYPES = {cst.Float: "float32", cst.Integer: "int32"}


@dataclass
class FunctionPlan:
    """One ``@tf.function`` to emit."""

    name: str
    params: list[str]
    body: list[Statement]
    returned: Optional[cst.BaseExpression]
    anchor: int  # index of the unit statement after which (or before which, if empty) it goes
    minimizes: int = 0
    gradients: int = 0
    #: the body as emitted: statements and calls of shared helpers, in dependency order
    steps: list[Union[Statement, Helper]] = field(default_factory=list)
    #: indices of the unit statements that call it
    sites: list[int] = field(default_factory=list)
    #: constant tensors the run feeds (TF1 replaced their value): parameters after the placeholders
    overrides: list[str] = field(default_factory=list)


@dataclass
class Helper:
    """A sub-graph several functions need: one plain function they all call."""

    name: str
    params: list[str]
    outputs: list[str]
    body: list[Statement]

    @property
    def anchor(self) -> int:
        return self.body[-1].index

    def call(self) -> cst.SimpleStatementLine:
        targets = [cst.Element(cst.Name(n)) for n in self.outputs]
        target = targets[0].value if len(targets) == 1 else cst.Tuple(_commas(targets), lpar=[], rpar=[])
        call = cst.Call(cst.Name(self.name), _commas([cst.Arg(cst.Name(p)) for p in self.params]))
        return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(target)], call)])


@dataclass
class Element:
    """One fetched value of a ``sess.run`` call (``key``: its key in a fetched dict)."""

    expr: cst.BaseExpression
    kind: str  # init | op | variable | static | dynamic
    key: Optional[cst.BaseExpression] = None


@dataclass
class UnitPlan:
    """Everything decided about one unit before anything is rewritten: a decline anywhere
    leaves the whole unit as it was."""

    unit: GraphUnit
    functions: dict[tuple, FunctionPlan] = field(default_factory=dict)
    calls: dict[cst.CSTNode, cst.BaseExpression] = field(default_factory=dict)
    smalls: dict[cst.CSTNode, Optional[cst.BaseSmallStatement]] = field(default_factory=dict)
    fixes: list[tuple[cst.CSTNode, str]] = field(default_factory=list)
    taken: set[str] = field(default_factory=set)
    config: dict[int, list[cst.BaseStatement]] = field(default_factory=dict)
    #: statements emitted before the unit statement of that index (inline session configs)
    prefix: dict[int, list[cst.BaseStatement]] = field(default_factory=dict)
    #: names read somewhere other than as a feed value
    numpy_uses: set[str] = field(default_factory=set)
    #: feed dicts built where the graph runs, by name, and the uses turned into ``**feed``
    local_feeds: dict[str, cst.Dict] = field(default_factory=dict)
    feed_uses: set[int] = field(default_factory=set)
    #: other nodes of run statements to replace (string-keyed feed dicts, their new names)
    replacements: dict[cst.CSTNode, cst.CSTNode] = field(default_factory=dict)
    #: local feed dicts renamed, old name -> new
    feed_names: dict[str, str] = field(default_factory=dict)
    helpers: list[Helper] = field(default_factory=list)
    reused: set[str] = field(default_factory=set)
    #: ids of run-statement calls inside a loop (they run more than once)
    repeated: set[int] = field(default_factory=set)
    #: a fetch built where the graph runs updates variables (``sess.run(w.assign_add(1))``)
    eager_updates: bool = False


def _paren(expr: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(expr, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) or expr.lpar:
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _numpy(expr: cst.BaseExpression) -> cst.Call:
    return cst.Call(cst.Attribute(_paren(expr), cst.Name("numpy")))


def _side_effect_free(expr: cst.BaseExpression) -> bool:
    """No call anywhere in ``expr`` (dropping it cannot lose an effect)."""
    found = []

    class Finder(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            found.append(node)

    expr.visit(Finder())
    return not found


class SessionToFunction(TFCodemod):
    __doc__ = __doc__
    code = "TFM101"
    name = "session-to-function"
    summary = "placeholders + Session.run(fetches, feed_dict) -> @tf.function functions called with the fed values"
    needles = ("Session", "placeholder", ".eval(")
    interests = (cst.Call,)
    requires_tf2 = True

    @classmethod
    def detect(cls, node: cst.CSTNode, names) -> bool:
        assert isinstance(node, cst.Call)
        return tf_path(node.func, names) in (*SESSIONS, *PLACEHOLDERS)

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        scopes = None
        if self.state.needs_scope and self.context.wrapper is not None:
            scopes = self.context.wrapper.resolve(ScopeProvider)
        self.tf = TFNames.for_module(tree, scopes)
        self._current_lines = None
        self._functions = self._user_functions(tree)
        self._graphs = 1
        owners = self._session_owners(tree)
        new_body = []
        for index, stmt in enumerate(tree.body):
            if isinstance(stmt, cst.FunctionDef) and index in owners:
                migrated = self._migrate(stmt.body.body, nested=True)
                if migrated is not None:
                    stmt = stmt.with_changes(body=stmt.body.with_changes(body=migrated))
            new_body.append(stmt)
        if any(not isinstance(tree.body[i], cst.FunctionDef) for i in owners):
            new_body = self._migrate_graphs(new_body)
        return tree.with_changes(body=new_body)

    def _migrate_graphs(self, body: list[cst.BaseStatement]) -> list[cst.BaseStatement]:
        """Module-level code, one graph at a time.

        A program that calls ``reset_default_graph()`` builds a new, independent graph after it
        (a second model, often reusing the first one's names: ``x = tf.placeholder(...)``
        again). Each stretch between resets is migrated as its own unit, its function and
        helper names picked apart from every name in the module (a function named after the op
        it replaces, ``train_step``, keeps that name in each stretch, as the op did).
        """
        segments: list[list[cst.BaseStatement]] = [[]]
        for stmt in body:
            # A reset before any session (a program's opening ``tf.reset_default_graph()``)
            # starts nothing new: the unit removes it like the other graph switches.
            if training.resets_graph(stmt, self.tf) and any(self._opens_session(s) for s in segments[-1]):
                segments.append([])
            segments[-1].append(stmt)
        reader = _UseReader()
        for stmt in body:
            stmt.visit(reader)
        taken = set(reader.names)
        self._graphs = len(segments)
        out: list[cst.BaseStatement] = []
        for position, segment in enumerate(segments):
            migrated = self._migrate(segment, nested=False, taken=taken)
            if migrated is None:
                out.extend(segment)
                continue
            if position > 0 and migrated:
                # The stretch keeps the blank lines and comments that separated it from the last.
                lines = [*segment[0].leading_lines, *migrated[0].leading_lines]
                migrated[0] = migrated[0].with_changes(leading_lines=_squeeze(lines, 2))
            out.extend(migrated)
        return out

    # -- finding the units ----------------------------------------------------------------------

    def _session_owners(self, tree: cst.Module) -> set[int]:
        """Indices of the top-level statements whose own code (outside nested definitions,
        except for a top-level function's body) opens a session."""
        owners: set[int] = set()
        names = self.tf

        class Finder(cst.CSTVisitor):
            def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
                return node is top

            def visit_ClassDef(self, node: cst.ClassDef) -> bool:
                return False

            def visit_Call(self, node: cst.Call) -> None:
                terminal = node.func.attr if isinstance(node.func, cst.Attribute) else node.func
                if isinstance(terminal, cst.Name) and terminal.value in SESSIONS and tf_path(node.func, names) in SESSIONS:
                    owners.add(index)

        for index, top in enumerate(tree.body):
            top.visit(Finder())
            if isinstance(top, cst.ClassDef) and self._opens_session(top):
                self.report(top, f"session program not migrated: sessions in the methods of `{top.name.value}` "
                                 "(graph state kept on the instance) are not migrated; move the graph into functions")
        return owners

    def _opens_session(self, node: cst.CSTNode) -> bool:
        found = []

        class Finder(cst.CSTVisitor):
            def visit_Call(self, call: cst.Call) -> None:
                terminal = call.func.attr if isinstance(call.func, cst.Attribute) else call.func
                if isinstance(terminal, cst.Name) and terminal.value in SESSIONS:
                    found.append(call)

        node.visit(Finder())
        return any(tf_path(call.func, self.tf) in SESSIONS for call in found)

    def _user_functions(self, tree: cst.Module) -> tuple[set[str], set[str], set[str]]:
        """Module functions building tensors, those creating variables, and the names whose
        calls surely create none (plain module functions, numpy and math)."""
        graph, variables, safe = set(), set(), set()
        for stmt in tree.body:
            if isinstance(stmt, cst.FunctionDef):
                calls, _ = tf_calls(stmt, self.tf)
                (graph if calls else safe).add(stmt.name.value)
                if any(p in VARIABLE_MAKERS or p.startswith(("layers.", "contrib.")) for p, _ in calls):
                    variables.add(stmt.name.value)
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.Import):
                        for alias in small.names:
                            module = _code(alias.name)
                            if module.split(".")[0] in SAFE_MODULES:
                                local = alias.asname.name if alias.asname else alias.name
                                safe.add(_code(local).split(".")[0])
        return graph, variables, safe

    def _migrate(
        self,
        body: Sequence[cst.BaseStatement],
        *,
        nested: bool,
        taken: Optional[set[str]] = None,
    ) -> Optional[list[cst.BaseStatement]]:
        """The new statements of one unit, or None when it is declined or suppressed."""
        try:
            unit = GraphUnit(body, self.tf, *self._functions)
            if not unit.sessions:
                return None
            plan = UnitPlan(unit)
            reader = _UseReader()
            for stmt in body:
                stmt.visit(reader)
            plan.taken, plan.numpy_uses = reader.names, reader.numpy_uses
            if taken is not None:
                # Shared with the module's other units: their functions' names are taken too.
                taken |= plan.taken
                plan.taken = taken
            self._plan_runs(plan)
            self._plan_static_reads(plan)
            self._plan_removals(plan)
            self._plan_config(plan)
            self._check_leftovers(plan)
            self._check_local_feeds(plan)
            self._check_functions(plan)
            self._plan_helpers(plan)
        except Decline as decline:
            self.report(decline.node, f"session program not migrated: {decline.message}")
            return None
        if not plan.fixes or any(self.suppressed(node) for node, _ in plan.fixes):
            return None
        for node, message in plan.fixes:
            self.fix(node, message)
        for stmt in plan.unit.statements:
            root = root_name(stmt.node.body[0].value.func) if stmt.kind is Kind.RESET and isinstance(
                stmt.node, cst.SimpleStatementLine) and isinstance(stmt.node.body[0], cst.Expr) else None
            if root is not None and (self.tf.qualify(root) or "").endswith(".framework.ops"):
                # ``from tensorflow.python.framework import ops`` was only there to reset the graph.
                module, _, name = self.tf.qualify(root).rpartition(".")
                RemoveImportsVisitor.remove_unused_import(self.context, module, name)
        for function in plan.functions.values():
            for _ in range(function.minimizes):
                self.oblige("TFM102", f"a TF1 optimizer step (`minimize`, `apply_gradients`) moved into `{function.name}`")
            for _ in range(function.gradients):
                self.oblige("TFM103", f"`tf.gradients` moved into `{function.name}`")
        return self._emit(plan, nested)

    # -- call sites ------------------------------------------------------------------------------

    def _plan_runs(self, plan: UnitPlan) -> None:
        unit = plan.unit
        self._plan_local_feeds(plan)
        for stmt in unit.statements:
            if stmt.kind is not Kind.RUN:
                continue
            sites = _RunSites(self, unit, stmt.index)
            stmt.origin.visit(sites)
            plan.repeated |= _calls_in_loops(stmt.origin)
            if sites.unexplained:
                raise Decline(sites.unexplained, f"session `{sites.unexplained.value}` is used other than to run the graph")
            for site in sites.sites:
                self._plan_site(plan, stmt, site)
        initializer_runs = [node for node, message in plan.fixes if message == INITIALISED]
        updates = [s for s in unit.statements if s.stateful] or plan.eager_updates
        again = initializer_runs[1:] or [node for node in initializer_runs if id(node) in plan.repeated]
        if again and updates:
            raise Decline(again[0], "variables are initialised again after ops that update them (a new session, "
                                    "or the same one run in a loop): TF2 variables are created once and keep "
                                    "their values; reset them with `v.assign(...)` by hand")

    def _plan_static_reads(self, plan: UnitPlan) -> None:
        """``x.shape`` / ``x.get_shape()`` / ``x.dtype`` outside the session: what TF1 knew of
        the tensor without running it. A placeholder's is its spec; a computed tensor's is what
        tracing its function infers (``get_concrete_function().output_shapes``), the same shape
        inference TF1 ran; a constant's or variable's is read from the eager value."""
        unit = plan.unit
        for stmt in unit.statements:
            for node, name, what in stmt.static_reads:
                kind = unit.kind(name, stmt.index)
                if kind == "placeholder":
                    placeholder = unit.placeholders[name]
                    if what == "shape":
                        shape = placeholder.shape if placeholder.shape is not None else cst.Name("None")
                        value = cst.Call(self.tf_expr("TensorShape"), [cst.Arg(shape)])
                    elif placeholder.dtype is not None:
                        value = cst.Call(self.tf_expr("as_dtype"), [cst.Arg(placeholder.dtype)])
                    else:
                        raise Decline(node, f"cannot tell the dtype of placeholder `{name}`")
                elif kind == "dynamic":
                    function = self._function_for(plan, stmt, [Element(cst.Name(name), "dynamic")], [], "single")
                    function.sites.append(stmt.index)
                    concrete = cst.Call(cst.Attribute(cst.Name(function.name), cst.Name("get_concrete_function")))
                    value = cst.Attribute(concrete, cst.Name("output_shapes" if what == "shape" else "output_dtypes"))
                elif kind in ("static", "variable"):
                    continue
                else:
                    raise Decline(node, f"`{name}` is read outside the session and is not a tensor this codemod understands")
                if isinstance(node, cst.Call):
                    plan.calls[node] = value
                else:
                    plan.replacements[node] = value
                plan.fixes.append((node, f"`{_code(node)}` outside the session: what TF1's graph knew of `{name}`"))

    def _plan_local_feeds(self, plan: UnitPlan) -> None:
        """``feed = {x: batch, y: labels}`` built where the graph runs (in a loop, typically)
        and used only as ``feed_dict``: it becomes ``{"x": batch, "y": labels}``, passed as
        ``step(**feed)``, so the fed values are still taken when the dict is built."""
        unit = plan.unit
        for stmt in unit.statements:
            if stmt.kind is not Kind.RUN:
                continue
            for assign in _assignments(stmt.origin):
                target, value = assign.targets[0].target, assign.value
                if len(assign.targets) != 1 or not isinstance(target, cst.Name) or not isinstance(value, cst.Dict):
                    continue
                keys = [e.key for e in value.elements if isinstance(e, cst.DictElement)]
                if not keys or len(keys) != len(value.elements) or not all(
                    isinstance(k, cst.Name) and unit.kind(k.value, stmt.index) == "placeholder" for k in keys
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
                plan.replacements[value] = value.with_changes(elements=[
                    e.with_changes(key=cst.SimpleString(f'"{e.key.value}"')) for e in value.elements
                ])

    def _plan_removals(self, plan: UnitPlan) -> None:
        for block in [*plan.unit.removed_blocks, *plan.unit.nested_blocks]:
            scope = tf_path(block.items[0].item.func, self.tf) if isinstance(block.items[0].item, cst.Call) else None
            why = ("it only named or placed ops, which TF2 functions do themselves" if scope in ("name_scope", "device")
                   else "TF2 has no sessions or default graphs")
            plan.fixes.append((block.items[0], f"the block is dedented: {why}"))
        for stmt in plan.unit.statements:
            if stmt.kind is Kind.SESSION:
                plan.fixes.append((stmt.origin, "TF2 has no sessions"))
            elif stmt.kind is Kind.PLACEHOLDER:
                plan.fixes.append((stmt.origin, f"placeholder `{_code(stmt.node.body[0].targets[0].target)}` -> function parameter"))
            elif stmt.kind is Kind.RESET:
                plan.fixes.append((stmt.origin, "TF2 runs eagerly: no default graph to reset or switch to"))
            elif stmt.kind is Kind.FEED:
                plan.fixes.append((stmt.origin, "the feed dict's values become function arguments"))

    def _plan_site(self, plan: UnitPlan, stmt: Statement, site: "_Site") -> None:
        unit = plan.unit
        if site.close:
            plan.smalls[site.small] = None
            plan.fixes.append((site.call, "the session is gone in TF2"))
            return
        elements, shape = self._elements(unit, site.fetches, stmt.index)
        ops = [e for e in elements if e.kind == "op"]
        kinds = {e.kind for e in elements}
        if kinds == {"init"}:
            if site.context != "discard":
                raise Decline(site.call, "the value of an initializer run is used")
            plan.smalls[site.small] = None
            plan.fixes.append((site.call, INITIALISED))
            return
        if "init" in kinds:
            raise Decline(site.call, "an initializer fetched together with other values")
        elements, shape, targets = self._without_ops(site, elements, shape)
        overrides = self._overrides(plan, site)
        dynamic = ops or overrides or any(e.kind == "dynamic" for e in elements)
        if not dynamic:
            plan.eager_updates = plan.eager_updates or any(
                method in STATEFUL_OPS for element in elements for method, _ in tf_calls(element.expr, self.tf)[1]
            ) or any(path in STATEFUL_OPS for element in elements for path, _ in tf_calls(element.expr, self.tf)[0])
            value = self._eager_value(elements, shape, unit, numpy=site.context != "discard")
            plan.fixes.append((site.call, "a fetch no placeholder feeds is its eager value"))
        else:
            function = self._function_for(plan, stmt, elements, ops, shape, overrides)
            function.sites.append(stmt.index)
            call = self._call(function, plan, site)
            value = call
            if shape != "none" and self._wants_numpy(plan, site, targets):
                listed = shape == "single" and (
                    isinstance(targets, (cst.Tuple, cst.List))
                    or isinstance(elements[0].expr, cst.Name) and elements[0].expr.value in unit.sequences
                )
                value = self._to_numpy(call, "list" if listed else shape)
            elif shape in ("list", "tuple") and not _returns(function, cst.List if shape == "list" else cst.Tuple):
                value = cst.Call(cst.Name(shape), [cst.Arg(call)])
            plan.fixes.append((site.call, f"`{_code(site.call)}` -> `{function.name}(...)`"))
        self._place(plan, site, value, targets)

    def _without_ops(self, site: "_Site", elements: list[Element], shape: str):
        """Fetched ops are run, not returned (their value is None): the elements, structure and
        assignment targets that remain. An op's value may only go to ``_`` or be discarded."""
        targets = site.targets
        if shape != "single" and isinstance(targets, (cst.Tuple, cst.List)):
            if len(targets.elements) != len(elements):
                raise Decline(site.call, "fetches and assignment targets differ in number")
            kept, kept_targets = [], []
            for element, target in zip(elements, targets.elements):
                if element.kind == "op":
                    if not (isinstance(target.value, cst.Name) and target.value.value == "_"):
                        raise Decline(site.call, "the value of a fetched op (None in TF1) is used")
                    continue
                kept.append(element)
                kept_targets.append(target)
            shape = "single" if len(kept) == 1 else ("unpacked" if kept else "none")
            if not kept:
                return kept, shape, None
            if len(kept_targets) == 1:
                return kept, shape, kept_targets[0].value
            return kept, shape, targets.with_changes(elements=_commas(kept_targets))
        if any(e.kind == "op" for e in elements):
            if site.context != "discard":
                raise Decline(site.call, "the value of a fetched op (None in TF1) is used")
            elements = [e for e in elements if e.kind != "op"]
            shape = "single" if len(elements) == 1 else ("unpacked" if elements else "none")
        return elements, shape, targets

    def _place(self, plan: UnitPlan, site: "_Site", value: Optional[cst.BaseExpression], targets) -> None:
        if site.context == "value":
            plan.calls[site.call] = value
        elif site.context == "discard" or targets is None:
            plan.smalls[site.small] = cst.Expr(value) if value is not None else None
        else:
            assert isinstance(site.small, cst.Assign)
            plan.smalls[site.small] = site.small.with_changes(
                targets=[site.small.targets[0].with_changes(target=targets)], value=value
            )

    def _elements(self, unit: GraphUnit, fetches: cst.BaseExpression, at: int) -> tuple[list[Element], str]:
        """The fetched values and the structure they were fetched in (single, list, tuple, dict)."""
        if isinstance(fetches, (cst.List, cst.Tuple)):
            shape = "list" if isinstance(fetches, cst.List) else "tuple"
            items = []
            for element in fetches.elements:
                if isinstance(element, cst.StarredElement):
                    raise Decline(element, "starred fetches")
                items.append(Element(element.value, ""))
        elif isinstance(fetches, cst.Dict):
            shape = "dict"
            items = []
            for element in fetches.elements:
                if not isinstance(element, cst.DictElement):
                    raise Decline(element, "`**` in a fetch dict")
                items.append(Element(element.value, "", element.key))
        else:
            shape, items = "single", [Element(fetches, "")]
        for item in items:
            if isinstance(item.expr, (cst.List, cst.Tuple, cst.Dict)):
                raise Decline(item.expr, "nested fetch structures")
            item.kind = self._fetch_kind(unit, item.expr, at)
        return items, shape

    def _fetch_kind(self, unit: GraphUnit, expr: cst.BaseExpression, at: int) -> str:
        if isinstance(expr, cst.Call) and tf_path(expr.func, self.tf) in INITIALIZERS:
            return "init"
        if (isinstance(expr, cst.Attribute) and expr.attr.value == "initializer"
                and isinstance(expr.value, cst.Name) and unit.kind(expr.value.value, at) == "variable"):
            return "init"  # ``sess.run(w.initializer)``
        if isinstance(expr, cst.Name):
            kind = unit.kind(expr.value, at)
            if kind == "unknown":
                raise Decline(expr, f"fetch `{expr.value}` is an op this codemod does not understand")
            if kind in ("init", "op", "variable", "static", "dynamic"):
                return kind
            if kind == "placeholder":
                raise Decline(expr, f"placeholder `{expr.value}` is fetched")
            raise Decline(expr, f"fetch `{expr.value}` is not a tensor or op this codemod understands")
        used = names_used(expr)
        kinds = {unit.kind(n, at) for n in used}
        if kinds & {"init", "session", "object", "config", "unknown", "graph"}:
            raise Decline(expr, f"fetch `{_code(expr)}` is not a tensor this codemod understands")
        calls, _ = tf_calls(expr, self.tf)
        builders = {c.func.value for c in training.calls(expr) if isinstance(c.func, cst.Name)} & unit.graph_functions
        if builders & unit.variable_functions:
            raise Decline(expr, f"fetch `{_code(expr)}` creates variables where the graph is run")
        if kinds & {"placeholder", "dynamic", "op"}:
            return "dynamic"
        if any(path.startswith("summary.") or path in UNKNOWN_OPS for path, _ in calls):
            raise Decline(expr, f"fetch `{_code(expr)}` builds new graph ops where the graph is run")
        if not calls and not builders and not kinds & {"static", "variable"}:
            raise Decline(expr, f"fetch `{_code(expr)}` is not a tensor of this graph")
        # Built and run at once (``sess.run(w.assign(v))``, ``sess.run(w * 2)``): eager code
        # computes the same where it stands.
        return "static"

    def _eager_value(
        self, elements: list[Element], shape: str, unit: GraphUnit, numpy: bool
    ) -> Optional[cst.BaseExpression]:
        if not numpy:
            # The value is dropped: what remains to do is the computation (``w.assign(v)``).
            effects = [e.expr.visit(_AssignMethods(self)) for e in elements if not isinstance(e.expr, cst.Name)]
            if not effects:
                return None
            return effects[0] if len(effects) == 1 else cst.Tuple(_commas([cst.Element(e) for e in effects]), lpar=[], rpar=[])
        values = [
            cst.ListComp(_numpy(cst.Name("t")), cst.CompFor(target=cst.Name("t"), iter=e.expr))
            if isinstance(e.expr, cst.Name) and e.expr.value in unit.sequences
            else _numpy(e.expr.visit(_AssignMethods(self)))
            for e in elements
        ]
        if shape == "single":
            return values[0]
        if shape == "dict":
            return cst.Dict([cst.DictElement(e.key, v) for e, v in zip(elements, values)])
        if shape == "unpacked":
            return cst.Tuple(_commas([cst.Element(v) for v in values]), lpar=[], rpar=[])
        if shape == "tuple":
            return cst.Tuple(_commas([cst.Element(v) for v in values]))
        return cst.List(_commas([cst.Element(v) for v in values]))

    # -- functions -------------------------------------------------------------------------------

    def _function_for(
        self, plan: UnitPlan, stmt: Statement, elements: list[Element], ops: list[Element], shape: str,
        overrides: Sequence[str] = (),
    ) -> FunctionPlan:
        """The function computing ``elements`` (running ``ops``) as fetched at ``stmt``: the
        backward slice of what they use, one function per distinct fetch set (and set of fed
        constant tensors, which become parameters)."""
        unit = plan.unit
        returned: Optional[cst.BaseExpression]
        if shape == "none":
            returned = None
        elif shape == "single":
            returned = elements[0].expr
        elif shape == "dict":
            returned = cst.Dict([cst.DictElement(e.key, e.expr) for e in elements])
        elif shape == "list":
            returned = cst.List(_commas([cst.Element(e.expr) for e in elements]))
        else:
            returned = cst.Tuple(_commas([cst.Element(e.expr) for e in elements]), lpar=[], rpar=[])
        wanted = set()
        for element in [*elements, *ops]:
            wanted |= names_used(element.expr)
        body = unit.backward_slice(wanted, stmt.index, fed=overrides)
        # Lists, tuples and unpacked fetches of the same tensors share one function.
        sequence = shape in ("list", "tuple", "unpacked")
        fetched = tuple(_code(e.expr) for e in elements) if sequence else _code(returned) if returned is not None else ""
        key = (sequence, fetched, tuple(s.index for s in body), tuple(_code(o.expr) for o in ops), tuple(overrides))
        if key in plan.functions:
            return plan.functions[key]
        used = set(wanted)
        # Placeholders as the statements reading them see them: a placeholder's name may later
        # be taken by a constant of another example in the same graph.
        fed_here = {n for n in wanted if unit.kind(n, stmt.index) == "placeholder"}
        for member in body:
            used |= member.uses
            fed_here |= {n for n in member.uses if unit.kind(n, member.index) == "placeholder"}
        params = [name for name in unit.placeholders if name in fed_here and name not in overrides]
        anchor = body[-1].index if body else stmt.index
        for fed in overrides:
            meant = unit.reaching(fed, stmt.index)
            readers = [m for m in body if fed in m.uses] + ([stmt] if fed in wanted else [])
            if unit.reaching(fed, anchor + 1) is not meant or any(unit.reaching(fed, m.index) is not meant for m in readers):
                raise Decline(meant.origin, f"`{fed}` is fed but rebound between the graph and the run: {OVERRIDE_HINT}")
            if fed in used:
                params.append(fed)
        recomputed = next((m for m in body if not m.dynamic and m.draws_random), None)
        if recomputed is not None:
            raise Decline(recomputed.origin, "a random value computed from a fed tensor would be drawn again: "
                                             f"{OVERRIDE_HINT}")
        name = self._function_name(plan, elements, ops, body)
        function = FunctionPlan(
            name, params, body, returned, anchor,
            minimizes=sum(s.minimizes for s in body), gradients=sum(s.gradients for s in body),
            overrides=[fed for fed in overrides if fed in params],
        )
        plan.functions[key] = function
        return function

    def _function_name(self, plan: UnitPlan, elements, ops, body) -> str:
        if any(s.minimizes for s in body) and ops:
            base = "train_step"
        else:
            words = [_describe(e.expr) for e in [*ops, *elements]]
            base = ("run_" if not elements else "compute_") + "_and_".join(w for w in words[:3] if w)
        # The name of a fetched op or tensor is free once its statement moves into the function.
        reusable = plan.unit.kind(base) in ("op", "dynamic")
        if reusable and base not in plan.reused:
            plan.reused.add(base)
            return base
        return self._fresh(plan, base)

    def _call(self, function: FunctionPlan, plan: UnitPlan, site: "_Site") -> cst.Call:
        unit = plan.unit
        fed: dict[str, cst.BaseExpression] = {}
        feed = site.feed
        if isinstance(feed, cst.Name) and feed.value == "None":
            feed = None
        at = site.statement
        if isinstance(feed, cst.Name) and feed.value in plan.local_feeds:
            keys = [e.key.value for e in plan.local_feeds[feed.value].elements]
            required = [n for n in function.params if n in function.overrides or unit.placeholders[n].default is None]
            if not set(required) <= set(keys):
                missing = sorted(set(required) - set(keys))[0]
                raise Decline(feed, f"feed dict `{feed.value}` does not feed `{missing}`, which `{function.name}` needs")
            plan.feed_uses.add(id(feed))
            local = cst.Name(plan.feed_names.get(feed.value, feed.value))
            if set(keys) <= set(function.params):
                return cst.Call(cst.Name(function.name), [cst.Arg(local, star="**")])
            # TF1 ignores fed placeholders the fetches do not need: pass only the needed ones.
            return cst.Call(cst.Name(function.name), _commas([
                cst.Arg(cst.Subscript(local, [cst.SubscriptElement(cst.Index(cst.SimpleString(f'"{key}"')))]),
                        keyword=cst.Name(key), equal=_no_space_equal())
                for key in keys if key in function.params
            ]))
        if isinstance(feed, cst.Name) and unit.kind(feed.value, at) == "feed":
            built = unit.reaching(feed.value, at)
            feed = unit.feeds[feed.value]
            for name in names_used(feed):
                if built is None or unit.reaching(name, built.index) is not unit.reaching(name, at):
                    raise Decline(site.feed, f"`{name}` in feed dict `{site.feed.value}` is rebound before the run")
        if feed is not None:
            if not isinstance(feed, cst.Dict):
                raise Decline(feed, "a feed_dict that is not a dict literal")
            for element in feed.elements:
                if not isinstance(element, cst.DictElement):
                    raise Decline(element, "`**` in a feed_dict")
                key = element.key
                if not (isinstance(key, cst.Name) and (unit.kind(key.value, at) == "placeholder"
                                                       or key.value in function.overrides)):
                    raise Decline(key, f"feeding `{_code(key)}`, which is not a placeholder: {OVERRIDE_HINT}")
                fed[key.value] = element.value
        for name, value in fed.items():
            if name not in function.params and not _side_effect_free(value):
                raise Decline(value, f"the value fed to `{name}` is computed but not needed by the fetches")
        for name in function.params:
            if name not in fed and unit.placeholders[name].default is None:
                raise Decline(site.call, f"placeholder `{name}` is not fed")
        for name in function.overrides:
            if name not in fed:
                raise Decline(site.call, f"`{name}` is fed at one run of `{function.name}` but not at another")
        # Positional while the fed values line up with the parameters, keywords after a gap
        # (a defaulted parameter not fed) and whenever the feed order differs from theirs, so
        # that the fed expressions are still evaluated in the program's order.
        order = [n for n in fed if n in function.params]
        expected = [n for n in function.params if n in fed]
        args: list[cst.Arg] = []
        positional = order == expected
        for position, name in enumerate(order):
            positional = positional and function.params[position] == name
            keyword = None if positional else cst.Name(name)
            args.append(cst.Arg(fed[name], keyword=keyword, equal=_no_space_equal() if keyword else cst.MaybeSentinel.DEFAULT))
        return cst.Call(cst.Name(function.name), _commas(args))

    def _overrides(self, plan: UnitPlan, site: "_Site") -> list[str]:
        """The constant tensors the site feeds, in feed order: TF1 replaced their value for that
        run (``sess.run(b, {a: 15})`` with ``a = tf.add(2, 5)``), so the fetch becomes a function
        taking them. Placeholders the fetch does not need are ignored, as in TF1; a fed variable
        or computed tensor declines."""
        feed, unit, at = site.feed, plan.unit, site.statement
        if feed is None or (isinstance(feed, cst.Name) and (feed.value == "None" or feed.value in plan.local_feeds)):
            return []
        if isinstance(feed, cst.Name) and unit.kind(feed.value, at) == "feed":
            feed = unit.feeds[feed.value]
        if not isinstance(feed, cst.Dict):
            raise Decline(feed, f"feed `{_code(feed)}` feeds tensors this codemod cannot tell: {OVERRIDE_HINT}")
        overrides = []
        for element in feed.elements:
            key = element.key if isinstance(element, cst.DictElement) else element
            kind = unit.kind(key.value, at) if isinstance(key, cst.Name) else None
            if kind == "static":
                overrides.append(key.value)
            elif kind != "placeholder":
                raise Decline(key, f"feeding `{_code(key)}`, which is not a placeholder: {OVERRIDE_HINT}")
        return overrides

    def _wants_numpy(self, plan: UnitPlan, site: "_Site", targets) -> bool:
        if site.context == "value":
            return True
        if site.context == "discard" or targets is None:
            return False
        return any(n.value in plan.numpy_uses for n in _target_names(targets))

    def _to_numpy(self, call: cst.Call, shape: str) -> cst.BaseExpression:
        """What ``sess.run`` returned: numpy values in the fetched structure."""
        if shape == "single":
            return _numpy(call)
        item = cst.Name("t")
        loop = cst.CompFor(target=item, iter=call)
        if shape == "dict":
            return cst.DictComp(cst.Name("k"), _numpy(cst.Name("t")), cst.CompFor(
                target=cst.Tuple([cst.Element(cst.Name("k"), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))), cst.Element(cst.Name("t"))], lpar=[], rpar=[]),
                iter=cst.Call(cst.Attribute(call, cst.Name("items")))))
        if shape == "tuple":
            return cst.Call(cst.Name("tuple"), [cst.Arg(cst.GeneratorExp(_numpy(item), loop, lpar=[], rpar=[]))])
        return cst.ListComp(_numpy(item), loop)

    # -- shared sub-graphs --------------------------------------------------------------------------

    def _plan_helpers(self, plan: UnitPlan) -> None:
        """Statements needed by the same several functions (two or more of them in a row: a
        sub-graph, not a one-liner) become one helper function those functions call.

        Variable updates and ``tf.gradients`` stay in the functions, where the tape codemods
        expect them. A statement's users include those of every statement depending on it, so
        helpers only depend on helpers with more users: calls can always be ordered."""
        functions = list(plan.functions.values())
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
                if len(shared) > 1 and not (stmt.stateful or stmt.gradients or stmt.uses & overridden) \
                        and stmt not in groups.get(shared, []):
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
            outputs = [n for n in _in_order(members) if n in needed]
            if not outputs:
                continue
            name = self._fresh(plan, "build_" + "_and_".join(outputs[:3]))
            plan.helpers.append(Helper(name, params, outputs, members))
        for function in functions:
            function.steps = _order_steps(function.body, plan.helpers)

    def _fresh(self, plan: UnitPlan, base: str) -> str:
        name, counter = base, 2
        while name in plan.taken:
            name, counter = f"{base}_{counter}", counter + 1
        plan.taken.add(name)
        return name

    # -- configuration ---------------------------------------------------------------------------

    def _plan_config(self, plan: UnitPlan) -> None:
        unit = plan.unit
        for config, position in unit.session_configs:
            if isinstance(config, cst.Call) and tf_path(config.func, self.tf) == "ConfigProto":
                owner = unit.statements[position] if position < len(unit.statements) else None
                if owner is None:
                    raise Decline(config, "a session opened on an empty block")
                lines = [line for arg in config.args for line in self._config_lines(arg.keyword.value if arg.keyword else None, arg.value, owner, unit)]
                plan.prefix.setdefault(position, []).extend(cst.parse_statement(line) for line in lines)
                plan.fixes.append((config, "ConfigProto options -> tf.config"))
            elif not (isinstance(config, cst.Name) and unit.kind(config.value) == "config"):
                raise Decline(config, "a session config that is not a `tf.ConfigProto`")
        for stmt in unit.statements:
            if stmt.kind is not Kind.CONFIG:
                continue
            small = stmt.node.body[0] if isinstance(stmt.node, cst.SimpleStatementLine) else None
            lines: list[str] = []
            if isinstance(small, cst.Assign) and isinstance(small.value, cst.Call):
                for arg in small.value.args:
                    lines.extend(self._config_lines(arg.keyword.value if arg.keyword else None, arg.value, stmt, unit))
            elif isinstance(small, cst.Assign) and _code(small.targets[0].target).endswith(".gpu_options.allow_growth"):
                lines.extend(self._config_lines("allow_growth", small.value, stmt, unit))
            else:
                raise Decline(stmt.origin, "a session config this codemod cannot translate to tf.config")
            if not lines:
                continue
            plan.config[stmt.index] = [cst.parse_statement(line) for line in lines]
            plan.fixes.append((stmt.origin, "ConfigProto options -> tf.config"))

    def _config_lines(self, field: Optional[str], value: cst.BaseExpression, stmt: Statement, unit: GraphUnit) -> list[str]:
        """``tf.config`` statements doing what one ``ConfigProto``/``GPUOptions`` field did."""
        if field in CONFIG_CALLS:
            return [f"{_code(self.tf_expr(CONFIG_CALLS[field]))}({_code(value)})"]
        if field == "allow_growth" and isinstance(value, cst.Name) and value.value == "True":
            config = _code(self.tf_expr("config"))
            gpu = next(n for n in ("gpu", "physical_gpu", "gpu_device") if n not in unit.bindings)
            return [f'for {gpu} in {config}.list_physical_devices("GPU"):\n    {config}.experimental.set_memory_growth({gpu}, True)\n']
        if field == "gpu_options" and isinstance(value, cst.Name) and unit.kind(value.value) == "config":
            return []  # a GPUOptions statement of its own, translated where it stands
        if field == "gpu_options" and isinstance(value, cst.Call) and tf_path(value.func, self.tf) == "GPUOptions":
            return [line for arg in value.args for line in self._config_lines(arg.keyword.value if arg.keyword else None, arg.value, stmt, unit)]
        raise Decline(stmt.origin, f"ConfigProto option `{field}` has no tf.config equivalent")

    # -- checks ----------------------------------------------------------------------------------

    def _check_leftovers(self, plan: UnitPlan) -> None:
        """Names of the old graph must not survive outside the functions."""
        unit = plan.unit
        for stmt in unit.statements:
            gone = {n for n in stmt.uses if unit.kind(n, stmt.index) in GONE} - {name for _, name, _ in stmt.static_reads}
            if stmt.kind in (Kind.VARIABLE, Kind.OBJECT, Kind.PLAIN) or (stmt.kind is Kind.GRAPH and not stmt.dynamic):
                if gone:
                    raise Decline(stmt.origin, f"`{sorted(gone)[0]}` is used outside a session call")
            if stmt.kind is Kind.RUN:
                leftover = _Leftovers(gone, plan)
                stmt.origin.visit(leftover)
                if leftover.found is not None:
                    raise Decline(leftover.found, f"`{leftover.found.value}` is used outside a session call")

    def _check_local_feeds(self, plan: UnitPlan) -> None:
        """A feed dict turned into ``**feed`` may not be used any other way."""
        if not plan.local_feeds:
            return
        for stmt in plan.unit.statements:
            for name in _names_in(stmt.origin):
                if name.value in plan.local_feeds and id(name) not in plan.feed_uses:
                    assign_targets = {id(a.targets[0].target) for a in _assignments(stmt.origin)}
                    if id(name) not in assign_targets:
                        raise Decline(name, f"feed dict `{name.value}` is used other than as a feed_dict")

    def _check_functions(self, plan: UnitPlan) -> None:
        unit = plan.unit
        openings = sum(1 for stmt in unit.statements if stmt.kind is Kind.SESSION) + sum(
            1 for block in [*unit.removed_blocks, *unit.nested_blocks]
            for item in block.items if isinstance(item.item, cst.Call) and tf_path(item.item.func, self.tf) in SESSIONS)
        for function in plan.functions.values():
            drawing = next((stmt for stmt in function.body if stmt.dynamic and stmt.draws_random), None)
            if drawing is not None and openings > 1:
                raise Decline(drawing.origin, "random ops run in more than one session: each TF1 session restarts their "
                                              "random state, a TF2 function keeps one; seed each draw explicitly "
                                              "(tf.random.stateless_*) to migrate it")
            self._check_free_names(unit, function)
            for name in function.params:
                placeholder = unit.placeholders.get(name)
                if placeholder is not None and placeholder.default is not None and self._literal_dtype(placeholder.default) is None:
                    raise Decline(placeholder.statement.origin, f"cannot tell the dtype of `{name}`'s default")

    def _check_free_names(self, unit: GraphUnit, function: FunctionPlan) -> None:
        """A name the function reads from the module must still name, wherever the function is
        called, what it named where TF1 built the graph (``W = 0.1`` before ``W = tf.Variable``
        is fine; ``b`` rebound between the graph and a run is not)."""
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
                built.extend((used, placeholder.statement) for used in sorted(names_used(part) if part is not None else ()))
        definition = function.anchor + 1 if function.body else function.anchor
        for name, reader in built:
            if unit.bindings.get(name, 0) < 2:
                continue
            meant = unit.reaching(name, reader.index)
            seen = [unit.reaching(name, site) for site in function.sites]
            if reader in (unit.placeholders[p].statement for p in function.params if p in unit.placeholders):
                seen.append(unit.reaching(name, definition))
            if any(binding is not meant for binding in seen) or any(
                    name in unit.statements[site].defs for site in function.sites):
                raise Decline(reader.origin, f"`{name}` is rebound after the graph used it: its TF1 value "
                                             "is not the one the function would see")

    def _literal_dtype(self, value: cst.BaseExpression) -> Optional[str]:
        if isinstance(value, cst.UnaryOperation):
            value = value.expression
        for kind, dtype in LITERAL_DTYPES.items():
            if isinstance(value, kind):
                return dtype
        if isinstance(value, cst.Name) and value.value in ("True", "False"):
            return "bool"
        return None

    # -- emitting --------------------------------------------------------------------------------

    def _emit(self, plan: UnitPlan, nested: bool) -> list[cst.BaseStatement]:
        unit = plan.unit
        blank = 1 if nested else 2
        by_anchor: dict[int, list[Union[Helper, FunctionPlan]]] = {}
        for helper in plan.helpers:
            by_anchor.setdefault(helper.anchor, []).append(helper)
        for function in plan.functions.values():
            by_anchor.setdefault(function.anchor, []).append(function)
        out: list[cst.BaseStatement] = []
        carried: list[cst.EmptyLine] = []
        after_def = False

        def put(stmt: cst.BaseStatement, is_def: bool = False) -> None:
            nonlocal carried, after_def
            lines = _squeeze([*carried, *stmt.leading_lines], blank)
            carried = []
            if (is_def or after_def) and out:
                lines = [cst.EmptyLine(indent=False)] * blank + [line for line in lines if line.comment is not None]
            elif not out:
                lines = _squeeze(lines, 0)
            out.append(stmt.with_changes(leading_lines=lines))
            after_def = is_def

        rewriter = _Rewriter(plan)
        for stmt in unit.statements:
            functions = by_anchor.get(stmt.index, [])
            moved = stmt.kind is Kind.GRAPH and stmt.dynamic
            for new in plan.prefix.get(stmt.index, []):
                put(new)
            if functions and not moved:
                for function in functions:
                    put(self._definition(function, unit), is_def=True)
            if moved:
                carried.extend(line for line in stmt.node.leading_lines if line.comment is None)
            elif stmt.kind in (Kind.PLACEHOLDER, Kind.SESSION, Kind.INIT, Kind.RESET, Kind.FEED):
                carried.extend(stmt.node.leading_lines)
            elif stmt.kind is Kind.CONFIG:
                replacement = plan.config.get(stmt.index, [])
                if not replacement:
                    carried.extend(stmt.node.leading_lines)
                for position, new in enumerate(replacement):
                    if position == 0:
                        new = new.with_changes(leading_lines=stmt.node.leading_lines)
                    put(new)
            elif stmt.kind is Kind.RUN:
                new = stmt.node.visit(rewriter)
                if isinstance(new, cst.RemovalSentinel) or (isinstance(new, cst.SimpleStatementLine) and not new.body):
                    carried.extend(stmt.node.leading_lines)
                else:
                    put(new)
            elif stmt.static_reads:
                put(stmt.node.visit(rewriter))
            else:
                put(stmt.node)
            if functions and moved:
                for function in functions:
                    put(self._definition(function, unit), is_def=True)
        if not out:
            out.append(cst.SimpleStatementLine([cst.Pass()], leading_lines=carried))
        return out

    def _body(self, steps: Sequence[Union[Statement, Helper]]) -> list[cst.BaseStatement]:
        body: list[cst.BaseStatement] = []
        for position, step in enumerate(steps):
            node = step.call() if isinstance(step, Helper) else step.node.visit(_AssignMethods(self))
            lines = [line for line in node.leading_lines if position > 0 or line.comment is not None]
            # A blank line keeps no indentation (it would leave trailing spaces in the body).
            lines = [line if line.comment is not None else cst.EmptyLine(indent=False) for line in lines]
            body.append(node.with_changes(leading_lines=lines))
        return body

    def _definition(self, definition: Union[Helper, FunctionPlan], unit: GraphUnit) -> cst.FunctionDef:
        if isinstance(definition, FunctionPlan):
            return self._function_def(definition, unit)
        outputs = [cst.Element(cst.Name(n)) for n in definition.outputs]
        returned = outputs[0].value if len(outputs) == 1 else cst.Tuple(_commas(outputs), lpar=[], rpar=[])
        body = [*self._body(definition.body), cst.SimpleStatementLine([cst.Return(returned)])]
        return cst.FunctionDef(
            name=cst.Name(definition.name),
            params=cst.Parameters(_commas([cst.Param(cst.Name(p)) for p in definition.params])),
            body=cst.IndentedBlock(body),
        )

    def _function_def(self, function: FunctionPlan, unit: GraphUnit) -> cst.FunctionDef:
        body = self._body(function.steps or function.body)
        if self._graphs > 1:
            # One of several graphs: ``minimize(loss)`` trained that graph's variables; say which,
            # since the program's other graphs' variables now live beside them.
            trainable = [v.name for v in unit.variables if v.trainable]
            body = [stmt.visit(_ExplicitVarList(trainable)) for stmt in body]
        if function.returned is not None:
            body.append(cst.SimpleStatementLine([cst.Return(function.returned)]))
        elif not body:
            body.append(cst.SimpleStatementLine([cst.Pass()]))
        params, specs = [], []
        for name in function.params:
            if name in function.overrides:
                # The constant's own shape and dtype, read from its eager value where the
                # function is defined: what TF1 checked a fed value against.
                params.append(cst.Param(cst.Name(name)))
                specs.append(cst.Element(cst.Call(self.tf_expr("TensorSpec"), _commas([
                    cst.Arg(cst.Attribute(cst.Name(name), cst.Name("shape"))),
                    cst.Arg(cst.Attribute(cst.Name(name), cst.Name("dtype")))]))))
                continue
            placeholder = unit.placeholders[name]
            default = placeholder.default
            if default is not None:
                dtype = self.tf_expr(self._literal_dtype(default))
                params.append(cst.Param(cst.Name(name), default=default,
                                        equal=_no_space_equal()))
            else:
                dtype = placeholder.dtype
                params.append(cst.Param(cst.Name(name)))
            shape = placeholder.shape if placeholder.shape is not None else cst.Name("None")
            specs.append(cst.Element(cst.Call(self.tf_expr("TensorSpec"), _commas([cst.Arg(shape), cst.Arg(dtype)]))))
        decorator: cst.BaseExpression = self.tf_expr("function")
        if specs:
            decorator = cst.Call(decorator, [cst.Arg(cst.List(_commas(specs)), keyword=cst.Name("input_signature"),
                                                      equal=_no_space_equal())])
        return cst.FunctionDef(
            name=cst.Name(function.name),
            params=cst.Parameters(_commas(params)),
            body=cst.IndentedBlock(body),
            decorators=[cst.Decorator(decorator)],
        )


# -- visitors -------------------------------------------------------------------------------------


class _ExplicitVarList(cst.CSTTransformer):
    """``opt.minimize(loss)`` -> ``opt.minimize(loss, var_list=[W, b])`` with the graph's variables."""

    def __init__(self, variables: list[str]) -> None:
        self.variables = variables

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        if not (isinstance(updated.func, cst.Attribute) and updated.func.attr.value == "minimize"):
            return updated
        if len(updated.args) > 2 or any(a.star or (a.keyword is not None and a.keyword.value == "var_list")
                                        for a in updated.args):
            return updated
        listed = cst.List(_commas([cst.Element(cst.parse_expression(name)) for name in self.variables]))
        return updated.with_changes(args=_commas([*updated.args, cst.Arg(listed, keyword=cst.Name("var_list"),
                                                                         equal=_no_space_equal())]))


@dataclass
class _Site:
    call: cst.Call
    fetches: Optional[cst.BaseExpression]
    feed: Optional[cst.BaseExpression]
    context: str  # discard | assign | value
    small: Optional[cst.BaseSmallStatement] = None
    targets: Optional[cst.BaseExpression] = None
    close: bool = False
    statement: int = 0  # index of the unit statement holding the call


class _RunSites(cst.CSTVisitor):
    """The session calls of one statement, with the context each value is used in."""

    def __init__(self, codemod: SessionToFunction, unit: GraphUnit, statement: int) -> None:
        self.codemod = codemod
        self.unit = unit
        self.statement = statement
        self.sites: list[_Site] = []
        self.seen: set[int] = set()
        self.explained: set[int] = set()
        self.unexplained: Optional[cst.Name] = None

    def _site(self, call: cst.Call) -> Optional[_Site]:
        func = call.func
        if not isinstance(func, cst.Attribute):
            return None
        method, target = func.attr.value, func.value
        if isinstance(target, cst.Name) and target.value in self.unit.sessions:
            if method == "run":
                self.explained.add(id(target))
                fetches = call_argument(call, 0, "fetches")
                if fetches is None:
                    raise Decline(call, "`run` without fetches")
                extra = [a for a in call.args[2:] if a.keyword is None or a.keyword.value not in ("fetches", "feed_dict")]
                extra += [a for a in call.args[:2] if a.keyword is not None and a.keyword.value not in ("fetches", "feed_dict")]
                if extra or any(a.star for a in call.args):
                    raise Decline(call, "`run` with options, run metadata or unpacked arguments")
                return _Site(call, fetches, call_argument(call, 1, "feed_dict"), "value", statement=self.statement)
            if method == "close":
                self.explained.add(id(target))
                return _Site(call, None, None, "value", close=True, statement=self.statement)
            return None
        if method in ("eval", "run"):
            kinds = {self.unit.kind(n, self.statement) for n in names_used(target)}
            is_init = isinstance(target, cst.Call) and tf_path(target.func, self.codemod.tf) in INITIALIZERS
            if kinds & {"static", "dynamic", "variable", "op", "init"} or is_init:
                session = call_argument(call, 1, "session")
                if session is not None:
                    self.explained |= {id(n) for n in [session] if isinstance(n, cst.Name)}
                return _Site(call, target, call_argument(call, 0, "feed_dict"), "value", statement=self.statement)
        return None

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        for small in node.body:
            value = getattr(small, "value", None)
            if not isinstance(value, cst.Call):
                continue
            site = self._site(value)
            if site is None:
                continue
            if isinstance(small, cst.Expr):
                site.context, site.small = "discard", small
            elif isinstance(small, cst.Assign) and len(small.targets) == 1:
                site.context, site.small, site.targets = "assign", small, small.targets[0].target
            else:
                continue
            if site.close and site.context != "discard":
                raise Decline(value, "the value of `close()` is used")
            self.sites.append(site)
            self.seen.add(id(value))

    def visit_Call(self, node: cst.Call) -> None:
        if id(node) in self.seen:
            return
        site = self._site(node)
        if site is not None:
            if site.close:
                raise Decline(node, "the value of `close()` is used")
            self.sites.append(site)
            self.seen.add(id(node))
        for other in self.sites[:-1] if site is not None else ():
            if other.call is not node and contains(other.call, node):
                raise Decline(node, "a session call nested in another")

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None and _session_opened(node.item, self.codemod.tf):
            self.explained.add(id(node.asname.name))

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self.unit.sessions and id(node) not in self.explained and self.unexplained is None:
            self.unexplained = node


def _session_opened(expr: cst.BaseExpression, names: TFNames) -> bool:
    return isinstance(expr, cst.Call) and tf_path(expr.func, names) in SESSIONS


class _Leftovers(cst.CSTVisitor):
    """Finds a graph name in a run statement outside the calls being replaced."""

    def __init__(self, gone: set[str], plan: UnitPlan) -> None:
        self.gone = gone
        self.replaced = {id(n) for n in [*plan.calls, *plan.smalls, *plan.replacements]}
        self.replaced |= {id(item) for block in plan.unit.nested_blocks for item in block.items}
        self.found: Optional[cst.Name] = None

    def on_visit(self, node: cst.CSTNode) -> bool:
        if id(node) in self.replaced or self.found is not None:
            return False
        if isinstance(node, cst.Name) and node.value in self.gone:
            self.found = node
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "eval":
            # ``t.eval()`` of a tensor built where the graph runs: nothing to call it on in TF2.
            self.found = node.func.attr
        if isinstance(node, cst.Attribute):
            node.value.visit(self)
            return False
        if isinstance(node, cst.Arg):
            # ``"{cost}".format(cost=sess.run(cost))``: a keyword is not a use of the name.
            node.value.visit(self)
            return False
        return True


class _UseReader(cst.CSTVisitor):
    """Names read other than as a value fed to a session call: a fetched result bound to such
    a name is used as numpy (printed, formatted, computed with), so the rewrite takes
    ``.numpy()``; values only fed back into the graph can stay tensors."""

    def __init__(self) -> None:
        self.feed_values: set[int] = set()
        self.targets: set[int] = set()
        self.numpy_uses: set[str] = set()
        self.names: set[str] = set()

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self.targets |= {id(n) for n in _target_names(target.target)}

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in ("run", "eval"):
            position = 0 if node.func.attr.value == "eval" else 1
            feed = call_argument(node, position, "feed_dict")
            if isinstance(feed, cst.Dict):
                self.feed_values |= {id(e.value) for e in feed.elements if isinstance(e, cst.DictElement)}

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)
        if id(node) not in self.feed_values and id(node) not in self.targets:
            self.numpy_uses.add(node.value)


def _calls_in_loops(node: cst.CSTNode) -> set[int]:
    """Ids of the calls inside ``for`` / ``while`` loops of ``node``."""
    found: set[int] = set()

    class Finder(cst.CSTVisitor):
        depth = 0

        def visit_For(self, loop: cst.For) -> None:
            self.depth += 1

        def leave_For(self, loop: cst.For) -> None:
            self.depth -= 1

        def visit_While(self, loop: cst.While) -> None:
            self.depth += 1

        def leave_While(self, loop: cst.While) -> None:
            self.depth -= 1

        def visit_Call(self, call: cst.Call) -> None:
            if self.depth:
                found.add(id(call))

    node.visit(Finder())
    return found


def _assignments(node: cst.CSTNode) -> list[cst.Assign]:
    found: list[cst.Assign] = []

    class Finder(cst.CSTVisitor):
        def visit_Assign(self, assign: cst.Assign) -> None:
            found.append(assign)

    node.visit(Finder())
    return found


def _names_in(node: cst.CSTNode) -> list[cst.Name]:
    """The ``Name`` nodes naming variables (not keywords or attributes) in ``node``."""
    found: list[cst.Name] = []

    class Finder(cst.CSTVisitor):
        def visit_Name(self, name: cst.Name) -> None:
            found.append(name)

        def visit_Arg(self, arg: cst.Arg) -> bool:
            arg.value.visit(self)
            return False

        def visit_Attribute(self, attribute: cst.Attribute) -> bool:
            attribute.value.visit(self)
            return False

    node.visit(Finder())
    return found


def _target_names(target: cst.CSTNode) -> list[cst.Name]:
    if isinstance(target, cst.Name):
        return [target]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in _target_names(e.value)]
    return []


class _Rewriter(cst.CSTTransformer):
    """Applies the planned call-site replacements to a run statement."""

    def __init__(self, plan: UnitPlan) -> None:
        self.plan = plan

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        return self.plan.calls.get(original, updated)

    def leave_Dict(self, original: cst.Dict, updated: cst.Dict) -> cst.BaseExpression:
        return self.plan.replacements.get(original, updated)

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        return self.plan.replacements.get(original, updated)

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        return self.plan.replacements.get(original, updated)

    def leave_With(self, original: cst.With, updated: cst.With):
        if original not in self.plan.unit.nested_blocks:
            return updated
        body = [s for s in updated.body.body if not isinstance(s, cst.SimpleStatementLine) or s.body]
        body = [s for s in body if not (isinstance(s, cst.SimpleStatementLine) and all(isinstance(x, cst.Pass) for x in s.body))]
        if not body:
            return cst.SimpleStatementLine([cst.Pass()], leading_lines=updated.leading_lines)
        body[0] = body[0].with_changes(leading_lines=[*updated.leading_lines, *body[0].leading_lines])
        return cst.FlattenSentinel(body)

    def _small(self, original, updated):
        if original in self.plan.smalls:
            replacement = self.plan.smalls[original]
            return cst.RemoveFromParent() if replacement is None else replacement
        return updated

    leave_Expr = _small
    leave_Assign = _small

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        if not updated.body:
            return updated.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])])
        return updated


class _AssignMethods(cst.CSTTransformer):
    """``tf.assign(ref, value)`` -> ``ref.assign(value)`` (TF2 has only the method)."""

    def __init__(self, codemod: SessionToFunction) -> None:
        self.codemod = codemod

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        path = tf_path(original.func, self.codemod.tf)
        if path not in ASSIGN_METHODS or len(updated.args) < 2 or any(a.keyword for a in updated.args[:2]):
            return updated
        ref, value = updated.args[0].value, updated.args[1]
        return cst.Call(cst.Attribute(_paren(ref), cst.Name(ASSIGN_METHODS[path])),
                        [value.with_changes(comma=cst.MaybeSentinel.DEFAULT), *updated.args[2:]])


def _describe(expr: cst.BaseExpression) -> str:
    """A name-like word for a fetched expression: ``y``, ``reduce_max`` for ``tf.reduce_max(y)``."""
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Call):
        func = expr.func
        return func.attr.value if isinstance(func, cst.Attribute) else _describe(func)
    if isinstance(expr, cst.Subscript):
        return _describe(expr.value)
    if isinstance(expr, cst.Attribute):
        return expr.attr.value
    return "value"


def _returns(function: FunctionPlan, container: type) -> bool:
    return isinstance(function.returned, container)


def _in_order(statements: Sequence[Statement]) -> list[str]:
    """Names the statements bind, by first binding."""
    seen: list[str] = []
    for stmt in statements:
        for name in sorted(stmt.defs):
            if name not in seen:
                seen.append(name)
    return seen


def _order_steps(body: Sequence[Statement], helpers: Sequence[Helper]) -> list[Union[Statement, Helper]]:
    """A function body with its helpers' statements replaced by calls, ordered so that every
    step comes after the steps binding the names it uses (program order otherwise)."""
    owner: dict[int, Helper] = {}
    for helper in helpers:
        for stmt in helper.body:
            owner[stmt.index] = helper
    if not any(stmt.index in owner for stmt in body):
        return list(body)
    steps: list[Union[Statement, Helper]] = []
    step_of: dict[int, int] = {}
    for stmt in body:
        step = owner.get(stmt.index, stmt)
        if step not in steps:
            steps.append(step)
        step_of[stmt.index] = steps.index(step)
    needs: list[set[int]] = [set() for _ in steps]
    binder: dict[str, int] = {}
    for stmt in sorted(body, key=lambda s: s.index):
        here = step_of[stmt.index]
        needs[here] |= {step_of[binder[n]] for n in stmt.uses if n in binder} - {here}
        binder.update((name, stmt.index) for name in stmt.defs)
    ordered: list[int] = []
    while len(ordered) < len(steps):
        ready = [i for i in range(len(steps)) if i not in ordered and needs[i] <= set(ordered)]
        if not ready:
            stuck = steps[next(i for i in range(len(steps)) if i not in ordered)]
            first = stuck.body[0] if isinstance(stuck, Helper) else stuck
            raise Decline(first.origin, "shared sub-graphs depend on each other both ways")
        ordered.append(ready[0])
    return [steps[i] for i in ordered]


def _no_space_equal() -> cst.AssignEqual:
    return cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))


def _squeeze(lines: list[cst.EmptyLine], most: int) -> list[cst.EmptyLine]:
    """Leading lines with runs of blank lines cut to ``most``."""
    out: list[cst.EmptyLine] = []
    run = 0
    for line in lines:
        run = run + 1 if line.comment is None else 0
        if line.comment is not None or run <= most:
            out.append(line)
    return out


def _commas(items: list) -> list:
    """Items with ``, `` separators (LibCST wants them on the nodes)."""
    return [
        item.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) if index < len(items) - 1 else item
        for index, item in enumerate(items)
    ]


def _code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)
