"""What a TF1 graph-building program does, read statically: session-to-function's model
(layers-to-keras also reads its name scopes and its random-op and RNN tables).

A *unit* is a block of statements that builds a graph and runs it: a module body or a
function body. ``GraphUnit`` reads its top-level statements in program order (blocks
``with tf.Session() as sess:``, ``with tf.Graph().as_default():`` and
``with sess.as_default():`` are read through, as if dedented; such blocks nested in other
statements are listed in ``nested_blocks``) and classifies each one:

==============  ==========================================================================
``PLACEHOLDER``  ``x = tf.placeholder(...)`` / ``tf.placeholder_with_default(...)``
``VARIABLE``     ``w = tf.Variable(...)`` / ``tf.get_variable(...)``, a dict, list or tuple
                 literal of them, or a call of a module function making one: created once,
                 eagerly (random initial values they use are drawn eagerly too)
``OBJECT``       optimizers, savers, Keras layers and models, initializer objects: Python
                 objects built once where they are
``GRAPH``        any other statement building tensors; *dynamic* when its value changes
                 from run to run (depends on a placeholder, a variable, a random or stateful
                 op), *static* otherwise (a constant expression, computable once eagerly)
``SESSION``      ``sess = tf.Session(...)``, ``tf.InteractiveSession()``
``INIT``         ``init = tf.global_variables_initializer()`` and the other initializers
``CONFIG``       ``config = tf.ConfigProto(...)`` and assignments to its fields
``RESET``        ``tf.reset_default_graph()``, ``tf.disable_eager_execution()``, ``g = tf.Graph()``
``RUN``          a statement that runs the graph (``sess.run``, ``t.eval()``, ``op.run()``)
``FEED``         ``feed = {x: ..., y: ...}``: a feed dict built ahead of the runs
``ITERATOR``     ``it = dataset.make_initializable_iterator()`` (or one-shot): ``iter(dataset)``;
                 ``x, y = it.get_next()`` is a ``PLACEHOLDER`` statement whose names each run
                 feeds with the iterator's next element (``sess.run(it.initializer)``
                 restarts it)
``PLAIN``        Python that touches no graph (data, printing, imports, definitions)
==============  ==========================================================================

Public API, for codemods that need the same facts:

- ``GraphUnit(statements, names)`` raises ``Decline`` (node + reason) on programs this
  reading cannot follow; ``unit.variables`` lists the variables the program creates, in
  creation order, with their trainability; ``unit.placeholders`` the placeholders by name.
- ``unit.kind(name, at=index)``: what a name is at a statement (placeholder, variable,
  static or dynamic tensor, op, session, ...); a name may change kind as a program goes on.
- ``unit.backward_slice(names, before)``: the dynamic graph statements a set of names
  depends on, in program order.
- ``variables_created(statements, names)``: just the variables, in creation order, or None.
- ``names_used(node)`` / ``names_bound(node)`` (statement_reads.py): the Python names an
  expression or statement reads / binds.

Nothing here imports TensorFlow.
"""

from __future__ import annotations

import builtins
from typing import Iterable, Optional, Sequence

import libcst as cst

from tfmodernize import treewalk
from tfmodernize.treewalk import visit, walk

from tfmodernize.codemod import Decline

from tfmodernize.tfsymbols import TFNames
from tfmodernize.syntax import argument, source
from tfmodernize.names import name_nodes, target_names

from tfmodernize.analysis.variable_calls import Unknown, made_variable, trainable_flag
from tfmodernize.analysis.tf1_api import (
    INITIALIZERS,
    PLACEHOLDERS,
    RANDOM_OPS,
    SESSIONS,
    VARIABLE_MAKERS,
)
from tfmodernize.codemods.migrate.session_to_function.blocks import flatten, session_call
from tfmodernize.codemods.migrate.session_to_function.model import (
    CONFIGS,
    GRAPH_MODE_SWITCHES,
    IMPORTED_HINT,
    ITERATOR_MAKERS,
    ITERATOR_METHODS,
    Kind,
    LIST_FILLERS,
    LOOKUPS,
    OBJECTS_OVER_VARIABLES,
    Placeholder,
    RNN_PREFIXES,
    SEQUENCE_OPS,
    STATEFUL_OPS,
    STRUCTURES,
    STRUCTURE_METHODS,
    STRUCTURE_OPS,
    Statement,
    UNKNOWN_OPS,
    UNSUPPORTED,
    VALUELESS_OPS,
    VARIABLE_MAKING_OBJECTS,
    Value,
    Variable,
    builds_ops,
)
from tfmodernize.codemods.migrate.session_to_function.session_helpers import check_calls, session_helpers
from tfmodernize.codemods.migrate.session_to_function.statement_reads import (
    StatementReader,
    dotted,
    expression_of,
    free_names,
    graph_reads,
    inline_op,
    is_object_path,
    names_used,
    op_call,
    outside_use,
    refined_shape,
    single_assignment,
    static_reads,
    tf_calls,
    tf_path,
)

# -- the unit -----------------------------------------------------------------------------------


class GraphUnit:
    """The graph a block of statements builds, and where it runs it. See the module doc."""

    def __init__(
        self,
        body: Sequence[cst.BaseStatement],
        names: TFNames,
        graph_functions: Iterable[str] = (),
        variable_functions: Iterable[str] = (),
        safe_names: Iterable[str] = (),
        object_classes: Iterable[str] = (),
        drawing: Iterable[str] = (),
    ) -> None:
        """``graph_functions``: user functions that build tensors; ``variable_functions``:
        those that also create variables (a tf.function could not call them); ``safe_names``:
        other names whose calls create no variables (numpy, math, plain local functions);
        ``object_classes``: classes whose objects own their variables (``tf.Module``, a Keras
        layer; ``ops.Net`` for a module's), made once like Keras layers; ``drawing``: names
        whose calls draw random values (a function, or an object, running ``tf.nn.dropout``)."""
        self.names = names
        self.variable_functions = frozenset(variable_functions)
        self.safe_names = frozenset(safe_names)
        self.object_classes = frozenset(object_classes)
        self.drawing = frozenset(drawing)
        self.graph_functions = frozenset(graph_functions) | self.variable_functions
        flat = flatten(body, names)
        self.removed_blocks = flat.removed_blocks
        self.nested_blocks = flat.nested_blocks
        self.scopes = flat.scopes
        self.sessions: set[str] = set(flat.sessions)
        self.session_configs = list(flat.session_configs)
        #: every session opened, in program order: (name, index of the statement it opens at)
        self.openings = list(flat.openings)
        self.statements: list[Statement] = []
        self.placeholders: dict[str, Placeholder] = {}
        self.variables: list[Variable] = []
        self.kind_of: dict[str, Value] = {}
        self._bound: set[str] = set()  # names the statement being read binds to graph values
        self.bindings: dict[str, int] = {}
        #: ``feed = {x: ..., y: ...}`` statements: name -> the dict
        self.feeds: dict[str, cst.Dict] = {}
        #: names bound to a list of tensors (``tf.gradients``, list literals)
        self.sequences: set[str] = set()
        #: functions of this block returning a tuple or list written out (``return loss, acc``)
        self.structure_functions: set[str] = set()
        #: objects whose method creates variables (``ema.apply``): name -> the method
        self.variable_methods: dict[str, str] = {}
        #: dataset iterators: name -> (the dataset expression, the statement making the iterator)
        self.iterators: dict[str, tuple[cst.BaseExpression, Statement]] = {}
        #: functions of this block given the session they run the graph in (``def test(sess):``)
        self.session_helpers = session_helpers([node for node, _ in flat.statements])
        for node, origin in flat.statements:
            self._add(node, origin)
        for block in self.nested_blocks:
            holders = [s.index for s in self.statements if treewalk.contains(s.node, block)]
            holder = holders[0] if holders else None
            for item in block.items if holder is not None else ():
                if session_call(item.item, names) is not None:
                    self.openings.append((item.asname.name.value, holder))
        self.openings.sort(key=lambda opening: opening[1])
        self._check_session_helpers()
        self._find_switches()

    def _check_session_helpers(self) -> None:
        """A function given the session (``session_helpers.py``) is called only with one of the
        program's, and what it reads of the graph is not bound again after its definition."""
        for helper in list(self.session_helpers.values()):
            if helper.index < 0:
                del self.session_helpers[helper.name]
                continue
            rebound = next(
                (n for s in self.statements[helper.index + 1 :] for n in sorted(helper.reads & s.defs)),
                None,
            )
            if rebound is not None or self.bindings.get(helper.name, 0) != 1:
                raise Decline(
                    self.statements[helper.index].origin,
                    f"`{helper.name}` runs the graph in the session it is given, and "
                    f"`{rebound or helper.name}` is bound again after it is defined",
                )
        check_calls(self.session_helpers, [s.node for s in self.statements], self.sessions, len(self.openings))

    def is_sequence(self, expr: cst.BaseExpression) -> bool:
        """Whether ``expr`` is a list or tuple of tensors: a name bound to one, or an op
        returning several (``tf.self_adjoint_eig(m)``: eigenvalues and eigenvectors)."""
        if isinstance(expr, cst.Name):
            return expr.value in self.sequences
        return isinstance(expr, cst.Call) and tf_path(expr.func, self.names) in SEQUENCE_OPS

    def holds_structure(self, expr: cst.BaseExpression, at: int) -> bool:
        """Whether ``expr``, read at the statement of index ``at``, may be a structure of tensors
        rather than one (its fetched value then has that structure, at any depth): a list,
        tuple or dict written out, or a list of tensors (``is_sequence``), an op returning
        several (``tf.nn.dynamic_rnn``'s outputs and state, ``tf.while_loop``'s variables),
        ``optimizer.compute_gradients``'s (gradient, variable) pairs, a function of this file
        returning a tuple or list, a comprehension, or a name bound to one of these."""
        if isinstance(expr, STRUCTURES) or self.is_sequence(expr):
            return True
        if isinstance(expr, cst.Name):
            stmt = self.reaching(expr.value, at)
            assignment = single_assignment(stmt.node) if stmt is not None else None
            return assignment is not None and self.holds_structure(assignment[1], stmt.index)
        if isinstance(expr, cst.Call):
            path = tf_path(expr.func, self.names)
            if path is not None:
                return path in STRUCTURE_OPS
            if isinstance(expr.func, cst.Attribute):
                return expr.func.attr.value in STRUCTURE_METHODS
            return isinstance(expr.func, cst.Name) and expr.func.value in self.structure_functions
        return False

    def _find_switches(self) -> None:
        """Marks the boolean placeholders the graph reads only as ``training=`` arguments."""
        for placeholder in self.placeholders.values():
            default = placeholder.default
            boolean = (
                tf_path(placeholder.dtype, self.names) == "bool"
                if placeholder.dtype is not None
                else isinstance(default, cst.Name) and default.value in ("True", "False")
            )
            if not boolean:
                continue
            uses = switches = 0
            for stmt in self.statements:
                if stmt.kind != Kind.GRAPH:
                    continue
                uses += sum(1 for n in name_nodes(stmt.node) if n.value == placeholder.name)
                switches += sum(
                    1
                    for n in walk(stmt.node, code_only=True)
                    if isinstance(n, cst.Arg)
                    and n.keyword is not None
                    and n.keyword.value == "training"
                    and isinstance(n.value, cst.Name)
                    and n.value.value == placeholder.name
                )
            placeholder.switch = uses > 0 and uses == switches

    # -- classification -------------------------------------------------------------------------

    def _add(self, node: cst.BaseStatement, origin: cst.BaseStatement) -> None:
        index = len(self.statements)
        reader = StatementReader(self.names)
        visit(node, reader)
        defs = frozenset(reader.stores)
        uses = frozenset(reader.loads - (reader.scoped - reader.stores))
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            # A definition reads what its body reads from outside: its own locals (``out = ...``
            # in a function, a method's) are not the graph's names they may share.
            uses = free_names(node)
        if isinstance(node, cst.For):
            # ``for i, x in enumerate(rows):`` binds its targets before the body reads them: a
            # graph name reused as a target is not read (the loop's iterable may still read it).
            uses -= target_names(node.target) - names_used(node.iter)
        calls, methods = reader.calls, reader.attribute_calls
        for name in defs:
            self.bindings[name] = self.bindings.get(name, 0) + 1
        for path, call in calls:
            for unsupported, what in UNSUPPORTED:
                if path == unsupported:
                    hint = f": {IMPORTED_HINT}" if what == "an imported graph" else ""
                    raise Decline(
                        call,
                        f"`{dotted(call.func)}` ({what or 'graph control flow'}) has no tf.function "
                        f"equivalent this codemod can write{hint}",
                    )
        for method, call in methods:
            if method in ("partial_run", "partial_run_setup"):
                raise Decline(call, "`partial_run` cannot be migrated automatically")
            if method == "get_next" and self._iterator_elements(node) is None:
                raise Decline(
                    call,
                    "`get_next()` other than as `x, y = iterator.get_next()` on an iterator made here: "
                    "iterate the dataset in TF2",
                )
            if method in LOOKUPS:
                raise Decline(
                    call,
                    f"tensors looked up by name (`{method}`) belong to a graph this codemod "
                    f"cannot read: {IMPORTED_HINT}",
                )
        stmt = Statement(index, node, origin, Kind.PLAIN, defs, uses)
        self._bound = set()
        assignment = single_assignment(node)
        expression = expression_of(node)
        call = assignment[1] if assignment else expression
        path = tf_path(call.func, self.names) if isinstance(call, cst.Call) else None
        graph_names = {
            n
            for n, k in self.kind_of.items()
            if k in (Value.PLACEHOLDER, Value.VARIABLE, Value.DYNAMIC, Value.STATIC, Value.OP)
        }

        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            stmt.kind = Kind.PLAIN
            name = node.name.value
            if any(p in VARIABLE_MAKERS or p.startswith(("layers.", "contrib.")) for p, _ in calls):
                self.variable_functions |= {name}
            elif isinstance(node, cst.FunctionDef):
                self.safe_names |= {name}
                if any(
                    isinstance(n, cst.Return) and isinstance(n.value, (cst.Tuple, cst.List, cst.Dict))
                    for n in walk(node.body, code_only=True)
                ):
                    self.structure_functions.add(name)
                self.graph_functions |= {name} if builds_ops(calls) else set()
            captured = uses & {
                n for n, k in self.kind_of.items() if k in (Value.PLACEHOLDER, Value.DYNAMIC, Value.OP, Value.SESSION)
            }
            helper = self.session_helpers.get(name)
            if helper is not None and helper.definition is node:
                # ``def test(sess): ... sess.run(accuracy, ...)``: runs the graph where it is called.
                stmt.kind = Kind.RUN
                helper.index, helper.reads = index, frozenset(uses & graph_names)
                stmt.static_reads = graph_reads(node, graph_names)[0]
            elif captured:
                raise Decline(
                    origin,
                    f"`{node.name.value}` uses `{sorted(captured)[0]}` from the graph: move it into the function by hand",
                )
        elif self._runs(uses, methods):
            stmt.kind = Kind.RUN
            rebuilt = defs & graph_names
            # A name the graph bound but nothing read (``outputs, _ = tf.nn.dynamic_rnn(...)``)
            # is free for the run's values (``_, cost = sess.run([train, loss])``).
            rebuilt = {n for n in rebuilt if n in uses or any(n in s.uses for s in self.statements)}
            if rebuilt and not self._rebound_to_result(node, rebuilt):
                raise Decline(origin, f"`{sorted(rebuilt)[0]}` is rebound where the graph is run")
            # ``print("y:", y, sess.run(y))``: the tensor beside the run is read as TF1's graph
            # knew it.
            stmt.static_reads = graph_reads(node, graph_names)[0]
        elif assignment and self._feed_dict(assignment[1]):
            stmt.kind = Kind.FEED
            self.feeds[assignment[0]] = assignment[1]
            self._bind(assignment[0], Value.FEED)
        elif assignment and self._dataset_of(assignment[1]) is not None:
            dataset = self._dataset_of(assignment[1])
            fed = names_used(dataset) & {
                n for n, k in self.kind_of.items() if k in (Value.PLACEHOLDER, Value.DYNAMIC, Value.OP)
            }
            if fed:
                raise Decline(
                    origin,
                    f"an iterator over a dataset built from `{sorted(fed)[0]}` (fed when the "
                    "iterator is initialised): build the dataset from the data itself in TF2",
                )
            stmt.kind = Kind.ITERATOR
            self.iterators[assignment[0]] = (dataset, stmt)
            self._bind(assignment[0], Value.ITERATOR)
        elif self._iterator_elements(node) is not None:
            iterator, targets = self._iterator_elements(node)
            stmt.kind = Kind.PLACEHOLDER
            for name in targets:
                if self.kind_of.get(name, Value.STATIC) != Value.STATIC:
                    raise Decline(origin, f"iterator element `{name}` rebinds a name")
                self.placeholders[name] = Placeholder(name, None, None, None, stmt, iterator, tuple(targets))
                self._bind(name, Value.PLACEHOLDER)
        elif assignment and path in PLACEHOLDERS:
            name = assignment[0]
            if self.kind_of.get(name, Value.STATIC) != Value.STATIC:
                raise Decline(
                    origin,
                    f"placeholder `{name}` rebinds a name the graph already uses for a "
                    f"{self.kind_of[name]} value, deleted in between or not (the functions' "
                    "parameters are named after their placeholders): give the placeholder a "
                    "name of its own and migrate again",
                )
            stmt.kind = Kind.PLACEHOLDER
            if path == "placeholder":
                placeholder = Placeholder(name, argument(call, 0, "dtype"), argument(call, 1, "shape"), None, stmt)
            else:
                placeholder = Placeholder(name, None, argument(call, 1, "shape"), argument(call, 0, "input"), stmt)
            self.placeholders[name] = placeholder
            self._bind(name, Value.PLACEHOLDER)
        elif assignment and self._variables_made(assignment[0], assignment[1]) is not None:
            name = assignment[0]
            self._settle_initial_values(uses, index)
            dynamic = uses & {n for n, k in self.kind_of.items() if k in (Value.PLACEHOLDER, Value.DYNAMIC, Value.OP)}
            if dynamic:
                value = assignment[1]
                maker = value.func.value if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) else None
                # ``conv1 = conv_layer(x, shape)``: a function making variables and computing from them.
                network = (
                    f": `{maker}` creates variables and computes from its arguments, and a tf.function "
                    "calling it would create them at every trace; make it a tf.Module whose object is "
                    "made once and called in the function"
                    if maker in self.variable_functions
                    else ""
                )
                raise Decline(
                    origin,
                    f"variable `{name}` is initialised from `{sorted(dynamic)[0]}`, which changes from run to run"
                    + network,
                )
            stmt.kind = Kind.VARIABLE
            for label, call in self._variables_made(name, assignment[1]):
                # A module function making the variable (``weight_variable(shape)``) is read by
                # the same ``trainable=`` policy as a ``tf.Variable`` call.
                made = made_variable(call, self.names) or trainable_flag(argument(call, None, "trainable"))
                if isinstance(made, Unknown):
                    raise Decline(origin, f"variable `{label}` cannot be listed: {made.reason}")
                self.variables.append(Variable(label, made if isinstance(made, bool) else made.trainable, stmt))
            self._bind(name, Value.VARIABLE)
        elif assignment and path in SESSIONS:
            stmt.kind = Kind.SESSION
            self.sessions.add(assignment[0])
            config = argument(call, 2, "config")
            if config is not None:
                self.session_configs.append((config, index))
            self.openings.append((assignment[0], index))
            self._bind(assignment[0], Value.SESSION)
        elif assignment and path in INITIALIZERS:
            stmt.kind = Kind.INIT
            self._bind(assignment[0], Value.INIT)
        elif assignment and path == "Graph":
            stmt.kind = Kind.RESET
            self._bind(assignment[0], Value.GRAPH)
        elif assignment and path in CONFIGS:
            stmt.kind = Kind.CONFIG
            self._bind(assignment[0], Value.CONFIG)
        elif expression is not None and (
            path in GRAPH_MODE_SWITCHES or (path or "").endswith(".ops.reset_default_graph")
        ):
            stmt.kind = Kind.RESET
        elif uses & {n for n, k in self.kind_of.items() if k == Value.CONFIG} and not defs:
            stmt.kind = Kind.CONFIG
        elif expression is not None and path in SESSIONS:
            stmt.kind = Kind.SESSION
        elif self._sets_placeholder_shape(expression, index):
            stmt.kind = Kind.SHAPE
        elif assignment and self.reads_average(assignment[1], index):
            # ``shadow = ema.average(w)``: the variable ``ema.apply([w])`` made, named again.
            stmt.kind = Kind.OBJECT
            self._bind(assignment[0], Value.VARIABLE)
        else:
            self._classify_graph(stmt, assignment, path, calls, methods, reader.name_calls, graph_names)
        for name in defs - self._bound:
            # Rebound to plain Python: no longer the graph value it was.
            self.kind_of.pop(name, None)
        for name in defs:
            self.variable_methods.pop(name, None)
        made = assignment[0] if assignment and path in VARIABLE_MAKING_OBJECTS else None
        if made is not None and self.kind_of.get(made) == Value.OBJECT:
            self.variable_methods[made] = VARIABLE_MAKING_OBJECTS[path]
        # (``stmt.defs``: a statement filling a list of tensors binds it, ``_lists_filled``)
        stmt.kinds = {name: self.kind_of[name] for name in stmt.defs if name in self.kind_of}
        self.statements.append(stmt)

    def _sets_placeholder_shape(self, expression: Optional[cst.BaseExpression], index: int) -> bool:
        """``x.set_shape([8, 2])`` on a placeholder no op or run read yet (only its shape or
        text was): the shape TF1 knows of it from there on, recorded as the placeholder's
        (``Placeholder.shapes``); its spec takes it, since every op is built after. A literal
        shape refining the declared one (same rank, its known sizes kept) only."""
        if not (
            isinstance(expression, cst.Call)
            and isinstance(expression.func, cst.Attribute)
            and expression.func.attr.value == "set_shape"
            and isinstance(expression.func.value, cst.Name)
            and self.kind_of.get(expression.func.value.value) == Value.PLACEHOLDER
        ):
            return False
        name = expression.func.value.value
        placeholder = self.placeholders.get(name)
        if placeholder is None or placeholder.iterator is not None:
            return False
        if placeholder.default is not None:
            return False
        readers = [s for s in self.statements if name in s.uses and s.kind is not Kind.PLAIN]
        if readers:
            raise Decline(
                expression,
                f"`{name}.set_shape(...)` after the graph read `{name}`: TF1's ops built "
                "before it keep the declared shape, a TF2 input spec would give them the new "
                "one; declare the shape in the placeholder",
            )
        shape = None
        if len(expression.args) == 1:
            shape = refined_shape(placeholder.shape, expression.args[0].value)
        if shape is None:
            raise Decline(
                expression,
                f"`{name}.set_shape(...)` with a shape other than a literal refining the "
                "declared one: declare the shape in the placeholder",
            )
        if not placeholder.shapes:
            placeholder.shapes.append((placeholder.statement.index, placeholder.shape))
        placeholder.shapes.append((index, shape))
        placeholder.shape = shape
        return True

    def _bind(self, name: str, kind: Value) -> None:
        """Record what ``name`` is from the statement being read on."""
        self.kind_of[name] = kind
        self._bound.add(name)

    def _runs(self, uses: frozenset[str], methods: list[tuple[str, cst.Call]]) -> bool:
        if uses & self.sessions:
            return True
        graph = {
            n
            for n, k in self.kind_of.items()
            if k in (Value.DYNAMIC, Value.STATIC, Value.VARIABLE, Value.OP, Value.INIT)
        }
        for method, call in methods:
            if method in ("eval", "run") and isinstance(call.func, cst.Attribute):
                target = call.func.value
                if names_used(target) & graph or (
                    isinstance(target, cst.Call) and tf_path(target.func, self.names) in INITIALIZERS
                ):
                    return True
                if method == "eval" and op_call(target, self.names):
                    return True  # ``tf.reduce_prod(values).eval()``: an op made from Python data
        return False

    def _rebound_to_result(self, node: cst.BaseStatement, rebound: set[str]) -> bool:
        """Whether a run statement rebinding graph names (``X = sess.run(X)``, ``a, b =
        sess.run([a, b])``, ``a = np.array(a.eval())``) binds them to what its run returned, and
        nothing else: one assignment, running the graph in its value and building no tensor
        outside the run, outside any loop (a unit's statement, session blocks read through).
        TF1 ran the graph's tensor; from then on the name holds a Python value, as it does once
        migrated."""
        if not (
            isinstance(node, cst.SimpleStatementLine)
            and len(node.body) == 1
            and isinstance(node.body[0], cst.Assign)
            and len(node.body[0].targets) == 1
        ):
            return False
        value = node.body[0].value
        calls, methods = tf_calls(value, self.names)
        if not self._runs(names_used(value), methods):
            return False
        # ``y = sess.run(y) + tf.constant(1.0)`` binds a new tensor: TF1 would print or run that.
        runs = [call for method, call in methods if method in ("run", "eval")]
        if any(not any(treewalk.contains(run, call) for run in runs) for _, call in calls):
            return False
        # A placeholder's name names the functions' parameters: it stays the placeholder's.
        return not any(self.kind_of.get(name) == Value.PLACEHOLDER for name in rebound)

    def _classify_graph(self, stmt, assignment, path, calls, methods, name_calls, graph_names) -> None:
        node, origin, uses, defs = stmt.node, stmt.origin, stmt.uses, stmt.defs
        tensor_calls = [p for p, _ in calls if not is_object_path(p)]
        user_graph_calls = {c.func.value for c in name_calls} & self.graph_functions
        if (
            assignment
            and not tensor_calls
            and not (uses & graph_names)
            and isinstance(assignment[1], cst.Call)
            and dotted(assignment[1].func) in self.object_classes
        ):
            # ``net = Network(10)``: an object owning its variables, made once, then called like a layer.
            stmt.kind = Kind.OBJECT
            self._bind(assignment[0], Value.OBJECT)
            return
        if not tensor_calls and not (uses & graph_names) and not user_graph_calls:
            stmt.kind = Kind.OBJECT if calls else Kind.PLAIN
            if calls:
                for name in defs:
                    self._bind(name, Value.OBJECT)
            return
        if isinstance(node, cst.SimpleStatementLine) and not tensor_calls and not user_graph_calls:
            reads = static_reads(node, graph_names)
            if reads is not None:
                # ``print(x.shape)``, ``n = h.get_shape()[1]``: what a tensor is, not its value,
                # which TF2 can still tell without running anything. The names bound are Python.
                stmt.kind, stmt.static_reads = Kind.PLAIN, reads
                return
        if isinstance(node, cst.SimpleStatementLine) and tensor_calls and not user_graph_calls:
            # ``print(tf.argmax(y, 1).shape)``: the ops built there are read for their shape only.
            reads = static_reads(node, graph_names, self.names) or []
            built = [op for op in map(inline_op, reads) if op is not None]
            if built and all(any(treewalk.contains(op, c) or op is c for op in built) for _, c in calls):
                stmt.kind, stmt.static_reads = Kind.PLAIN, reads
                return
        # ``apply_gradients`` (after ``compute_gradients``) is the other TF1 optimizer step.
        minimizes = [c for m, c in methods if m in ("minimize", "apply_gradients")]
        # An object built over variables (``tf.train.Checkpoint(w=w)``) is still an object.
        tensor_uses = {
            n
            for n in uses & graph_names
            if path not in OBJECTS_OVER_VARIABLES or self.kind_of.get(n) is not Value.VARIABLE
        }
        if assignment and not tensor_uses and path is not None and is_object_path(path) and not minimizes:
            stmt.kind = Kind.OBJECT
            self._bind(assignment[0], Value.OBJECT)
            return
        for made, call in calls:
            if made in PLACEHOLDERS or made in VARIABLE_MAKERS or made in SESSIONS:
                if isinstance(node, (cst.For, cst.While)) and made in VARIABLE_MAKERS:
                    loop = "for" if isinstance(node, cst.For) else "while"
                    raise Decline(
                        call,
                        f"`{dotted(call.func)}` made in a `{loop}` loop: each pass makes new "
                        "variables, and this codemod only follows variables made once by a "
                        f"`name = tf.{made}(...)` statement of their own; unroll the loop (one "
                        "such statement per variable) and migrate again",
                    )
                raise Decline(
                    call,
                    f"`{dotted(call.func)}` inside a larger statement or block: this codemod only follows `name = tf.{made}(...)` statements",
                )
        stmt.kind = Kind.GRAPH
        # An object owning variables (``net = Net()``; ``net.kernel`` read) computes from them: its
        # values change as they train, so what reads it is recomputed at each run, as in TF1.
        dynamic_names = {
            n
            for n, k in self.kind_of.items()
            if k in (Value.PLACEHOLDER, Value.VARIABLE, Value.DYNAMIC, Value.OP, Value.OBJECT)
        }
        stateful = [c for m, c in methods if m in STATEFUL_OPS] + [c for p, c in calls if p in STATEFUL_OPS]
        random = [c for p, c in calls if p in RANDOM_OPS or p.startswith("random.")]
        random += [c for c in name_calls if c.func.value in self.drawing]
        stmt.minimizes = len(minimizes)
        stmt.stateful = bool(stateful or minimizes)
        stmt.gradients = sum(1 for p, _ in calls if p == "gradients")
        stmt.dynamic = bool(uses & dynamic_names or stateful or random or minimizes or stmt.gradients)
        stmt.draws_random = bool(random)
        stmt.random_only = bool(random) and not (uses & dynamic_names or stateful or minimizes or stmt.gradients)
        stmt.valueless = bool(minimizes) or path in VALUELESS_OPS
        if stmt.dynamic:
            self._lists_filled(stmt, methods)
            creators = [
                c for p, c in calls if p.startswith(("layers.", "contrib.")) and p.rsplit(".", 1)[-1][:1].islower()
            ]
            creators += [c for p, c in calls if p in VARIABLE_MAKERS or p.startswith(RNN_PREFIXES)]
            creators += [c for c in name_calls if c.func.value in self.variable_functions]
            shadows = [c for m, c in methods if self._makes_variables(c, m)]
            if shadows and not creators:
                stmt.averages = self._averages_made_once(stmt, shadows)
                # Running it updates the averages; ``op = ema.apply(...)`` is an op (no value).
                stmt.stateful = True
                applied = assignment is not None and assignment[1] in shadows
                stmt.valueless = stmt.valueless or applied
            if creators:
                raise Decline(
                    creators[0],
                    f"`{dotted(creators[0].func)}` creates variables each time it runs: create them once (layers-to-keras) before migrating the session",
                )
            self._check_callees(node, calls, dynamic_names)
        if isinstance(node, cst.SimpleStatementLine) and any(isinstance(s, cst.Expr) for s in node.body):
            if not uses & graph_names and not user_graph_calls:
                # ``tf.set_random_seed(0)``, ``tf.logging.set_verbosity(...)``: runs as it is.
                stmt.kind, stmt.dynamic = Kind.OBJECT, False
                return
            if path is not None and path.startswith("summary.") and stmt.dynamic:
                return
            raise Decline(origin, outside_use(node, uses & graph_names))
        listed = assignment and isinstance(assignment[1], (cst.List, cst.Tuple, cst.ListComp))
        if assignment and (path in SEQUENCE_OPS or listed):
            self.sequences.add(assignment[0])
        unknown = path is not None and (path.startswith("summary.") or path in UNKNOWN_OPS)
        for name in defs:
            if unknown:
                self._bind(name, Value.UNKNOWN)
            else:
                self._bind(name, Value.OP if stmt.valueless else (Value.DYNAMIC if stmt.dynamic else Value.STATIC))

    def _averages_made_once(self, stmt: Statement, shadows: list[cst.Call]) -> list[cst.Call]:
        """``ema.apply([w, b])`` creates the averages' variables where TF1 built it (each
        starting from its variable's initial value) and updates them where it runs. Migrated,
        the same call is made once where it stands, eagerly: its variables still hold their
        initial values there (no run came before), so the update it also makes moves no
        average (``avg - (avg - w) * (1 - decay)`` is ``avg``); the functions running it update
        them. Variables named in the call only: an average of a tensor starts from zeros, and
        that first eager update would move it."""
        reason = None
        if not isinstance(stmt.node, cst.SimpleStatementLine) or len(stmt.node.body) != 1:
            reason = "in a statement of its own"
        elif any(s.kind is Kind.RUN for s in self.statements):
            reason = "before the graph first runs (the averages start from initial values)"
        for call in shadows:
            listed = self._averaged_variables(call)
            if reason is None and listed is None:
                reason = "over variables named in a list (`ema.apply([w, b])`)"
        if reason is None:
            return shadows
        raise Decline(
            shadows[0],
            f"`{dotted(shadows[0].func)}` creates the averages' variables where it is built and "
            "updates them where it runs; TF2 does both at each call, and this codemod makes "
            f"the averages once only for a call {reason}: not migrated",
        )

    def averaged(self, owner: str, before: int) -> set[str]:
        """The variables whose averages ``owner.apply([w, b])`` statements before the statement
        of index ``before`` made (``Statement.averages``): ``owner.average(w)`` is a variable."""
        made: set[str] = set()
        bound = self.reaching(owner, before)
        for stmt in self.statements[bound.index if bound is not None else 0 : before]:
            for call in stmt.averages:
                if isinstance(call.func, cst.Attribute) and dotted(call.func.value) == owner:
                    made |= set(self._averaged_variables(call) or ())
        return made

    def reads_average(self, expr: cst.BaseExpression, at: int) -> bool:
        """Whether ``expr``, read at the statement of index ``at``, is ``ema.average(w)`` once
        ``ema.apply([w])`` made ``w``'s average: the variable holding it."""
        if not (
            isinstance(expr, cst.Call)
            and isinstance(expr.func, cst.Attribute)
            and expr.func.attr.value == "average"
            and isinstance(expr.func.value, cst.Name)
            and len(expr.args) == 1
            and expr.args[0].keyword is None
            and isinstance(expr.args[0].value, cst.Name)
        ):
            return False
        averaged = expr.args[0].value.value
        made = self.averaged(expr.func.value.value, at)
        return averaged in made and self.kind(averaged, at) == Value.VARIABLE

    def _averaged_variables(self, call: cst.Call) -> Optional[list[str]]:
        """The variables ``ema.apply([w, b])`` averages, when each is a variable's name."""
        if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
            return None
        listed = call.args[0].value
        names = [listed]
        if isinstance(listed, (cst.List, cst.Tuple)):
            names = [element.value for element in listed.elements]
        variables = {n for n, k in self.kind_of.items() if k == Value.VARIABLE}
        if not names or not all(isinstance(n, cst.Name) and n.value in variables for n in names):
            return None
        return [n.value for n in names]

    def _makes_variables(self, call: cst.Call, method: str) -> bool:
        """``ema.apply(...)`` on an object whose method creates variables."""
        owner = call.func.value if isinstance(call.func, cst.Attribute) else None
        return isinstance(owner, cst.Name) and self.variable_methods.get(owner.value) == method

    def _lists_filled(self, stmt: Statement, methods: list[tuple[str, cst.Call]]) -> None:
        """A Python list filled by graph code that runs in a function (``states.append(h)`` in a
        loop unrolling an RNN) is graph code too: the empty list it starts from (``states =
        []``) is made in each function, as TF1 made it once with the graph (a list from
        elsewhere would keep the tensors of every trace), and the statement filling it binds it
        for what reads it later."""
        for method, call in methods:
            if method not in LIST_FILLERS or not isinstance(call.func.value, cst.Name):
                continue
            name = call.func.value.value
            if self.kind_of.get(name) == Value.DYNAMIC or name in stmt.defs:
                continue  # graph code already, or a list the statement makes itself
            made = self.reaching(name, stmt.index)
            assignment = single_assignment(made.node) if made is not None else None
            between = self.statements[made.index + 1 : stmt.index] if made is not None else []
            if (
                made is None
                or made.kind is not Kind.PLAIN
                or assignment is None
                or not isinstance(assignment[1], cst.List)
                or assignment[1].elements
                or any(name in other.uses for other in between)
            ):
                raise Decline(
                    call,
                    f"`{name}` (made outside the graph code) is filled with graph tensors",
                )
            made.kind, made.dynamic, made.kinds = Kind.GRAPH, True, {name: Value.DYNAMIC}
            self.sequences.add(name)
        for method, call in methods:
            if (
                method in LIST_FILLERS
                and isinstance(call.func.value, cst.Name)
                and call.func.value.value not in stmt.defs
            ):
                # What reads the list after this statement needs this statement: it binds it.
                name = call.func.value.value
                stmt.defs = stmt.defs | {name}
                self.bindings[name] = self.bindings.get(name, 0) + 1
                self._bind(name, Value.DYNAMIC)

    def _check_callees(self, node: cst.CSTNode, calls, dynamic_names: set[str]) -> None:
        """A statement moving into a tf.function may only call code known not to create
        variables: TF, Python builtins, numpy/math, functions of this module that create no
        variables, objects built once (Keras layers), methods of tensors."""
        tf_nodes = {id(call) for _, call in calls}
        safe = self.safe_names | self.graph_functions - self.variable_functions

        class Reader(cst.CSTVisitor):
            found: Optional[cst.Call] = None

            def visit_Call(reader, call: cst.Call) -> None:
                if id(call) in tf_nodes or reader.found is not None:
                    return
                root = call.func
                while isinstance(root, (cst.Attribute, cst.Subscript, cst.Call)):
                    root = root.value if not isinstance(root, cst.Call) else root.func
                name = root.value if isinstance(root, cst.Name) else None
                if name is None or name in safe or name in dir(builtins) or name in self.names.aliases:
                    return
                if self.kind_of.get(name) in (
                    Value.PLACEHOLDER,
                    Value.VARIABLE,
                    Value.DYNAMIC,
                    Value.STATIC,
                    Value.OBJECT,
                    Value.OP,
                ):
                    return
                if names_used(call) & dynamic_names:
                    reader.found = call

        reader = Reader()
        visit(node, reader)
        if reader.found is not None:
            raise Decline(
                reader.found,
                f"`{dotted(reader.found.func) or 'this call'}` is defined elsewhere: called in a tf.function it may create variables on every trace",
            )

    def _variables_made(self, name: str, value: cst.BaseExpression) -> Optional[list[tuple[str, cst.Call]]]:
        """``[(label, call)]`` when ``value`` is ``tf.Variable(...)`` / ``tf.get_variable(...)``
        or a dict, list or tuple literal of them (``weights = {"h1": tf.Variable(...)}``)."""

        def made(expr: cst.BaseExpression) -> bool:
            return isinstance(expr, cst.Call) and tf_path(expr.func, self.names) in VARIABLE_MAKERS

        if made(value):
            return [(name, value)]
        if (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Name)
            and value.func.value in self.variable_functions
        ):
            # ``W = weight_variable([5, 5, 1, 32])``: a module function making the variable.
            return [(name, value)]
        if isinstance(value, cst.Dict) and value.elements:
            pairs = [(e.key, e.value) for e in value.elements if isinstance(e, cst.DictElement)]
            if len(pairs) == len(value.elements) and all(made(v) for _, v in pairs):
                return [(f"{name}[{source(k)}]", v) for k, v in pairs]
        if isinstance(value, (cst.List, cst.Tuple)) and value.elements:
            if all(isinstance(e, cst.Element) and made(e.value) for e in value.elements):
                return [(f"{name}[{i}]", e.value) for i, e in enumerate(value.elements)]
        return None

    def _settle_initial_values(self, uses: frozenset[str], before: int) -> None:
        """``initial = tf.truncated_normal(...)`` feeding ``tf.Variable(initial)`` is drawn once,
        eagerly, where it was built: TF1 sampled it once, to initialise the variable."""
        for name in uses:
            stmt = self.reaching(name, before)
            if stmt is not None and stmt.random_only and stmt.dynamic:
                self._settle_initial_values(stmt.uses, stmt.index)
                stmt.dynamic = False
                stmt.kinds = {bound: Value.STATIC for bound in stmt.defs}
                self.kind_of.update(stmt.kinds)

    def _dataset_of(self, value: cst.BaseExpression) -> Optional[cst.BaseExpression]:
        """The dataset of ``dataset.make_initializable_iterator()`` /
        ``tf.data.make_one_shot_iterator(dataset)`` and the like, or None."""
        if not isinstance(value, cst.Call):
            return None
        if isinstance(value.func, cst.Attribute) and value.func.attr.value in ITERATOR_METHODS and not value.args:
            return value.func.value
        if (
            tf_path(value.func, self.names) in ITERATOR_MAKERS
            and len(value.args) == 1
            and value.args[0].keyword is None
        ):
            return value.args[0].value
        return None

    def _iterator_elements(self, node: cst.BaseStatement) -> Optional[tuple[str, list[str]]]:
        """``(iterator, [names])`` for ``x, y = it.get_next()`` (or ``batch = it.get_next()``)
        on an iterator this unit made, or None."""
        if not (
            isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1 and isinstance(node.body[0], cst.Assign)
        ):
            return None
        assign = node.body[0]
        call = assign.value
        if not (
            len(assign.targets) == 1
            and isinstance(call, cst.Call)
            and not call.args
            and isinstance(call.func, cst.Attribute)
            and call.func.attr.value == "get_next"
            and isinstance(call.func.value, cst.Name)
            and self.kind_of.get(call.func.value.value) == Value.ITERATOR
        ):
            return None
        target = assign.targets[0].target
        if isinstance(target, cst.Name):
            return call.func.value.value, [target.value]
        if (
            isinstance(target, (cst.Tuple, cst.List))
            and target.elements
            and all(isinstance(e, cst.Element) and isinstance(e.value, cst.Name) for e in target.elements)
        ):
            return call.func.value.value, [e.value.value for e in target.elements]
        return None

    def _feed_dict(self, value: cst.BaseExpression) -> bool:
        """A dict literal whose keys are all placeholders, or constant tensors whose value a
        run may replace (``{a: 15}`` where ``a = tf.add(2, 5)``)."""
        return (
            isinstance(value, cst.Dict)
            and bool(value.elements)
            and all(
                isinstance(e, cst.DictElement)
                and isinstance(e.key, cst.Name)
                and self.kind_of.get(e.key.value) in (Value.PLACEHOLDER, Value.STATIC)
                for e in value.elements
            )
        )

    # -- queries ----------------------------------------------------------------------------

    def kind(self, name: str, at: Optional[int] = None) -> Optional[Value]:
        """``placeholder``, ``variable``, ``static``, ``dynamic``, ``op``, ``object``,
        ``session``, ``init``, ``config``, ``feed``, ``graph``, ``unknown`` or None (plain
        Python); with ``at``, what ``name`` is at the statement of that index (a name may be a
        constant in one part of a program and a placeholder in a later one)."""
        if at is not None:
            stmt = self.reaching(name, at)
            if stmt is not None:
                return stmt.kinds.get(name)
        return self.kind_of.get(name)

    def session_at(self, name: Optional[str], at: int) -> Optional[int]:
        """Which session a run at the statement of index ``at`` runs in: the position (in
        ``openings``) of the last session named ``name`` opened by then; with ``name`` None, the
        last session opened (the default one, for ``t.eval()``). None when unknown."""
        found = None
        for position, (opened, index) in enumerate(self.openings):
            if index <= at and (name is None or opened == name):
                found = position
        return found

    def trainable_variables(self) -> list[Variable]:
        return [v for v in self.variables if v.trainable]

    def runs_in_a_session(self) -> bool:
        """Whether the unit runs its graph in a session: one it names, or one opened for a
        single run (``t.eval(session=tf.Session())``)."""
        if self.sessions:
            return True
        return any(
            isinstance(node, cst.Arg)
            and node.keyword is not None
            and node.keyword.value == "session"
            and isinstance(node.value, cst.Call)
            and tf_path(node.value.func, self.names) in SESSIONS
            for stmt in self.statements
            if stmt.kind is Kind.RUN
            for node in walk(stmt.node, code_only=True)
        )

    def reaching(self, name: str, before: int) -> Optional[Statement]:
        """The last statement before index ``before`` that binds ``name``."""
        for stmt in reversed(self.statements[:before]):
            if name in stmt.defs:
                return stmt
        return None

    def backward_slice(self, names: Iterable[str], before: int, fed: Iterable[str] = ()) -> list[Statement]:
        """The dynamic graph statements the values of ``names`` at index ``before`` depend
        on, in program order.

        ``fed``: tensors whose value the run replaces (a feed of a non-placeholder tensor). The
        slice stops at them, and also takes the constant statements computed from them, since
        those no longer compute what their eager values hold."""
        fed = frozenset(fed)
        chosen: dict[int, Statement] = {}
        work = [(name, before) for name in names]
        while work:
            name, position = work.pop()
            if name in fed:
                continue
            stmt = self.reaching(name, position)
            if stmt is None or stmt.kind is not Kind.GRAPH or stmt.index in chosen or not (stmt.dynamic or fed):
                continue
            chosen[stmt.index] = stmt
            work.extend((used, stmt.index) for used in stmt.uses)
        if fed:
            # A constant statement belongs to the slice only when it reads a fed tensor.
            overridden = set(fed)
            for index in sorted(chosen):
                stmt = chosen[index]
                if stmt.dynamic:
                    continue
                if stmt.uses & overridden:
                    overridden |= stmt.defs
                else:
                    del chosen[index]
        # A name the slice binds is local to the function: where the slice reads its earlier
        # value too (``state = tf.zeros(...)`` before a loop updating ``state``), that binding
        # is computed in the function as well, constant or plain Python as it is.
        grown = True
        while grown:
            grown = False
            bound = frozenset().union(*(stmt.defs for stmt in chosen.values()))
            for stmt in list(chosen.values()):
                for used in sorted(stmt.uses & bound):
                    earlier = self.reaching(used, stmt.index)
                    if earlier is None or earlier.index in chosen or not _local_start(earlier):
                        continue
                    chosen[earlier.index] = earlier
                    grown = True
        return [chosen[i] for i in sorted(chosen)]


def _local_start(stmt: Statement) -> bool:
    """Whether ``stmt`` may be computed again in a function whose code rebinds what it binds: a
    constant graph statement, or a plain assignment calling nothing (``total = 0``)."""
    if stmt.kind is Kind.GRAPH:
        return not stmt.dynamic and not stmt.draws_random
    assignment = single_assignment(stmt.node)
    return (
        stmt.kind is Kind.PLAIN
        and assignment is not None
        and not any(isinstance(n, cst.Call) for n in treewalk.walk(assignment[1], code_only=True))
    )


def variables_created(
    body: Sequence[cst.BaseStatement], names: TFNames, variable_functions: Iterable[str] = ()
) -> Optional[list[Variable]]:
    """The variables a block of statements creates, in creation order (``Variable.trainable``
    says which ones ``tf.trainable_variables()`` would list), or None when the block builds its
    graph in a way this reading cannot follow."""
    try:
        return GraphUnit(body, names, variable_functions=variable_functions).variables
    except Decline:
        return None
