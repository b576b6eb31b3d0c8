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
      becomes one helper function they call; it is traced without AutoGraph
      (``autograph=False``): TF1 ran the graph code's Python loops and branches once, while
      building the graph, as such a trace does (AutoGraph stays on where a loop or branch
      tests a parameter or ``tf.range``);
    - a fetch the program runs once, or a few times, outside any loop, comprehension or
      definition, is a plain Python function run eagerly, each fed value converted to its
      placeholder's dtype (``x = tf.convert_to_tensor(x, tf.float32)``, as TF1's feed converted
      it): tracing a ``tf.function`` costs more than running its ops at those calls. It stays a
      ``tf.function`` when it is run more than once and draws random values, when it
      trains, writes summaries, is fed a constant, has its trace read
      (``get_concrete_function()``), or would compute something else eagerly: a graph-only
      call (``tf.gradients``), a tensor's ``name`` or ``op``, a ``print`` of a tensor (in it or
      in the module functions it calls), a random op inside ``tf.cond`` / ``tf.while_loop``
      (traced once, taken or not), or a function of another module;
    - ``sess.run`` / ``t.eval()`` / ``op.run()`` call sites call those functions with the fed
      values, taking ``.numpy()`` where the program used the numpy result: at the call, or, for
      a step in a loop whose values are read only some steps or after it, where each is read
      (never, for a value never read or unpacked into ``_``; a summary written from it takes
      the tensor); a list of number literals fed at every pass is a tensor made once, before
      the loop;
    - summaries written right after a step's only call in a loop, from values it returned
      (``with writer.as_default(): tf.summary.scalar(tag, v, step=s)`` as summary-v2 leaves
      them, maybe under ``if s % 10 == 0:``), are written inside the function instead, at a
      ``step`` parameter the loop passes (``with writer.as_default(step=step),
      tf.summary.record_if(step % 10 == 0):``), and no longer returned;
    - a fetch that no placeholder or variable feeds is its eager value (``t.numpy()``), a
      fetched variable is ``v.numpy()``, and ops built inside ``sess.run`` on no placeholder
      (``sess.run(tf.assign(w, v))``) are eager code where they stand (``w.assign(v)``);
    - sessions, ``sess.close()``, initializer runs, ``tf.reset_default_graph()``,
      ``tf.disable_eager_execution()`` / ``tf.disable_v2_behavior()`` and
      ``with tf.Graph().as_default():`` disappear (blocks are dedented); ``ConfigProto``
      options become the matching ``tf.config`` calls;
    - ``tf.placeholder_with_default`` becomes a parameter with a default; ``x.set_shape(s)``
      on a placeholder no op read yet is part of its spec (shape reads before it still see the
      declared shape), and placeholders the module makes for the graph one function builds and
      runs (read by nothing else) are taken into that function's unit;
    - a module function's name given to the tensor built with it (``spread = spread(x)``) is
      the function inside the tf.functions, the tensor a local of its own (``spread_result``);
    - a program with no session statement evaluating ``t.eval(session=tf.Session())`` is a
      session program too;
    - a boolean placeholder the graph reads only as ``training=`` of layers (a Keras layer
      branches on it in Python) becomes a Python bool parameter, fed the literal True or False
      at each run; its functions have no ``input_signature`` (one trace per value);
    - a constant tensor fed at a run (TF1 replaced its value) becomes a parameter of that
      run's function, specified by the constant's own shape and dtype;
    - ``t.shape`` / ``t.get_shape()`` / ``t.dtype`` read outside the session are what TF1's
      graph knew: a placeholder's spec, a computed tensor's traced output shape (an op built
      only to be read so, ``tf.argmax(y, 1).shape``, is computed by a function traced for it); a tensor
      printed or formatted outside a run (TF1 wrote its description, never its value) is
      written as its ``tf.TensorSpec`` (a computed tensor: its function's traced tensor), and
      ``type(t)`` of a placeholder or computed tensor is ``tf.Tensor``;
    - a name graph code binds but nothing reads (``outputs, _ = tf.nn.dynamic_rnn(...)``) may
      take the runs' values (``_, cost = sess.run([train, loss])``);
    - a placeholder fetched at the run feeding it is the value fed (the function returns its
      parameter); ``t = sess.run(t)`` (one assignment) binds the name to the value from then
      on, as in TF1; ``out = sess.run(init)`` is ``out = None``, and an op's None bound to a
      name nothing reads is left out, or taken by no literal index or slice of the values
      (``sess.run([step, w, b])[1:]``: the subscript is renumbered over the values the function
      returns); ``tf.argmax(labels, 1).eval()`` on Python data is eager;
    - a random op built from constants that no run computes stays where it was built, drawn
      once, eagerly (TF1 seeded it there: the random ops built after it keep their seeds);
    - a Python list filled with tensors by graph code (an RNN unrolled by hand) is made in the
      function that fills it, and so is a start value that code rebinds (``state =
      tf.zeros(...)`` before ``state = cell(x, state)``);
    - an ``if __name__ == "__main__":`` block that builds and runs a graph of its own is a unit,
      as a function body is, and so is module-level code from a placeholder taking again a name
      the graph above gave a tensor, once that graph ran in a session (a second demo reusing
      ``x``), when that graph made no variables and the code below reads none of its names;
      variables initialised again by a new session before any update (a first session only
      reading the initial values) are created once;
    - a dataset iterator (``dataset.make_initializable_iterator()``, one-shot) is
      ``iter(dataset)``, ``sess.run(it.initializer)`` a fresh ``iter(dataset)``, and the names
      ``x, y = it.get_next()`` binds are parameters of the functions using them, called with
      ``it.get_next()`` at each run: one element per run, ``OutOfRangeError`` at the end.
    - ``op = ema.apply([w, b])`` is made once where it stands (the averages start from the
      variables' initial values; that first update moves none), the functions running ``op``
      update them, and ``ema.average(w)`` is the average's variable.
    - a function defined with the graph and handed the session it runs it in (``def
      test(sess): ... sess.run(accuracy, {x: ...})``, called ``test(sess)``), reading the
      graph's tensors by closure, is run code like any other: its runs call the functions, and
      the session goes from its parameters and its calls (``def test():``, ``test()``);
    - a function of a script building a graph from placeholders that runs nothing, returns
      nothing and that no code calls (a second model left for later) gets a ``tf.function`` for
      each tensor or op its graph ends in (read by nothing after it: its training op, its
      accuracy), defined where the graph was built, for the program to call.

    It declines, changing nothing in that program (or function) and reporting the construct
    and line: feeding a computed tensor or a variable, ``partial_run``, queue runners,
    ``get_next()`` used other than as ``x, y = it.get_next()``, iterators over a dataset built
    from placeholders, imported graphs and tensors looked up by name, sessions passed around,
    placeholders rebound, tensors used outside a session call other than printed or as
    ``t.shape`` / ``t.dtype``, variables initialised again after updates (a second session, or
    one opened in a loop) or by the same session (TF1 draws random initial values anew), random
    ops run in several sessions, ``ExponentialMovingAverage.apply`` other than
    ``op = ema.apply([w, b])`` over variables, in a statement of its own, before the graph first
    runs, in a program that neither lists nor saves its variables, fetches of ops it does not
    understand (summaries, ``tf.no_op``), ``ConfigProto`` options with no ``tf.config``
    equivalent, and code a tf.function would run on every trace that creates variables
    (``tf.layers``, RNN builders, functions defined elsewhere called on placeholder values),
    variables initialised again after an update.

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
        for batch in (np.ones((3, 2)), np.zeros((1, 2))):
            print(sess.run(y, feed_dict={x: batch}))

After
    import numpy as np
    import tensorflow as tf

    W = tf.Variable([[1.0], [2.0]])


    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)], autograph=False)
    def compute_y(x):
        y = tf.matmul(x, W)
        return y


    for batch in (np.ones((3, 2)), np.zeros((1, 2))):
        print(compute_y(batch).numpy())

Fixtures: ``fixtures/session-to-function/``.

Fix safety
    Same values: variables keep their creation order and TF1 random draws (design §9), fetched values are
    returned and converted to numpy where the program used numpy, placeholder specs become the
    functions' input signatures. Every rewrite is planned for a whole graph unit first; a unit it
    cannot follow is left unchanged. One exception is an unsafe fix (applied with
    ``--unsafe-fixes`` only, else a finding): a random op drawn in runs of different fetches
    (also inside a function or an object the statement calls: ``tf.nn.dropout`` in a network
    class's ``__call__``). TF1 drew every run's values from that one op; each TF2 function
    draws from its own, the same distribution with other numbers. TF2 has no op shared by
    functions: a ``tf.random.Generator`` is, and ``from_state([0, seed2, seed], "philox")``
    draws TF1's very stream, but TF2 names an op's seeds (``get_seed``) only in
    ``tf.compat.v1``. So is a random op a function computes built before a random value TF2
    draws eagerly (``tf.nn.dropout`` between two layers' random initial weights): TF1 seeded
    them in that order, TF2 seeds the eager value first and the op when the function is first
    traced. A dropout whose keep probability every run computing it feeds the literal 1.0 (or
    ``rate`` 0) keeps every element whatever it draws: not an unsafe fix.

Declines when
    the unit feeds a computed tensor or a variable, uses partial_run, queues, an iterator over a
    dataset fed from placeholders (or one whose function also takes placeholders), imported
    graphs or tensors looked up by name, passes sessions around (but to a function of its own
    that only runs the graph in it, called with its one session, the graph names it reads not
    bound again below it), re-initialises variables after updating them, runs random ops in several sessions, or calls code defined
    elsewhere that may create variables (a function imported from a project module given in the
    same run is read through the project pre-pass; a project module that still needs TF1 keeps
    the program on TF1), or feeds a layers' training switch something other than the literal
    True or False; a graph never run declines when code of it binds nothing its results read
    (a summary, a collection); each finding names the construct and its line.
"""

from __future__ import annotations

import dataclasses
from typing import Optional, Sequence

import libcst as cst

from tfmodernize.treewalk import visit, walk
from tfmodernize.names import bound_names, target_names

from tfmodernize.analysis import module_variables
from tfmodernize.analysis.program import resets_graph
from tfmodernize.analysis.program import main_guard
from tfmodernize.analysis.project_facts import FunctionFacts, ModuleFacts, imported_functions
from tfmodernize.analysis.variable_calls import MadeVariable, made_variable
from tfmodernize.analysis.tf1_api import PLACEHOLDERS, SESSIONS, VARIABLE_MAKERS
from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.session_to_function.graph import GraphUnit
from tfmodernize.codemods.migrate.session_to_function.model import Kind, Value, builds_ops
from tfmodernize.codemods.migrate.session_to_function.statement_reads import (
    draws_random,
    free_names,
    names_used,
    tf_calls,
    tf_path,
)
from tfmodernize.analysis.tables import tables
from tfmodernize.codemod import TFCodemod
from tfmodernize.tfsymbols import TFNames, root_name
from tfmodernize.syntax import source, split_docstring
from tfmodernize.codemods.migrate.session_to_function.config import Config
from tfmodernize.codemods.migrate.session_to_function.emit import Emitter
from tfmodernize.codemods.migrate.session_to_function.functions import Functions
from tfmodernize.codemods.migrate.session_to_function import module_placeholders
from tfmodernize.layout import style_width
from tfmodernize.codemods.migrate.session_to_function.plan import SAFE_MODULES, UnitPlan
from tfmodernize.codemods.migrate.session_to_function.reading import UseReader
from tfmodernize.codemods.migrate.session_to_function.sites import RunSites
from tfmodernize.codemods.migrate.session_to_function.summaries import Summaries
from tfmodernize.codemods.migrate.session_to_function.unrun_graphs import UnrunGraphs


class SessionToFunction(RunSites, Summaries, Functions, Config, Emitter, UnrunGraphs, TFCodemod):
    __doc__ = __doc__
    code = "TFM101"
    name = "session-to-function"
    summary = "placeholders + Session.run(fetches, feed_dict) -> @tf.function functions called with the fed values"
    needles = ("Session", "placeholder", ".eval(")
    interests = (cst.Call,)
    requires_tf2 = True

    #: Read by other codemods too (``PROJECT_FACTS``): which functions create variables.
    summarizes = True

    @classmethod
    def summarize(cls, module: cst.Module, names: TFNames) -> dict:
        """For a file importing this one: which module functions build tensors and which create
        variables, and the first TF1-only name the module uses (it then stays on compat.v1,
        where TF2 code cannot call into it)."""
        factories = module_variables.variable_factories(module, names)
        functions = {
            stmt.name.value: dataclasses.replace(
                _function_facts(stmt, names), factory=_trainable(factories.get(stmt.name.value), names)
            )
            for stmt in module.body
            if isinstance(stmt, cst.FunctionDef)
        }
        # A function calling one of the module's that creates variables (or draws) does too
        # (``conv_layer`` calling ``weight_variable``): read through the calls.
        definitions = {stmt.name.value: stmt for stmt in module.body if isinstance(stmt, cst.FunctionDef)}
        grown = True
        while grown:
            grown = False
            for name, definition in definitions.items():
                called = [
                    functions[c.func.value]
                    for c in walk(definition.body, code_only=True)
                    if isinstance(c, cst.Call) and isinstance(c.func, cst.Name) and c.func.value in functions
                ]
                facts = functions[name]
                wider = dataclasses.replace(
                    facts,
                    variables=facts.variables or any(f.variables for f in called),
                    draws=facts.draws or any(f.draws for f in called),
                )
                if wider != facts:
                    functions[name], grown = wider, True
        # Variables made when the module is imported (its top-level code) join the importer's graph.
        top_level = [stmt for stmt in module.body if not isinstance(stmt, (cst.FunctionDef, cst.ClassDef))]
        on_import = any(
            p in VARIABLE_MAKERS or p.startswith(("layers.", "contrib."))
            for stmt in top_level
            for p, _ in tf_calls(stmt, names)[0]
        )
        tf1 = None
        for node in walk(module, code_only=True):
            symbol = names.tf_symbol(node) if isinstance(node, (cst.Attribute, cst.Name)) else None
            if symbol is not None and (symbol.v1 or tables().tf1_only(symbol.path)):
                tf1 = f"tf.{symbol.path}"
                break
        # Classes whose objects own their variables, made once (``tf.Module``, Keras layers and models).
        objects = [
            stmt.name.value
            for stmt in module.body
            if isinstance(stmt, cst.ClassDef) and module_variables.owns_variables(stmt, names)
        ]
        built = [
            stmt.name.value
            for stmt in module.body
            if isinstance(stmt, cst.ClassDef)
            and stmt.name.value in objects
            and module_variables.made_in_init(stmt, names)
        ]
        drawing = [
            stmt.name.value for stmt in module.body if isinstance(stmt, cst.ClassDef) and _calls_draw(stmt, names)
        ]
        return ModuleFacts(
            functions=functions,
            objects=tuple(objects),
            built=tuple(built),
            drawing=tuple(drawing),
            tf1=tf1,
            variables_on_import=on_import,
        ).to_json()

    @classmethod
    def detect(cls, node: cst.CSTNode, names) -> bool:
        assert isinstance(node, cst.Call)
        return tf_path(node.func, names) in (*SESSIONS, *PLACEHOLDERS)

    def plan(self, tree: cst.Module) -> None:
        """Each unit (a graph and its sessions) planned and written out as a whole: the module's
        new statements replace the old ones where a unit was migrated."""
        self._imported: dict[str, tuple[str, bool]] = {}  # local name -> (project module, in the run)
        self._module = tree
        self._functions = self._user_functions(tree)
        self._graphs = 1
        self._width = style_width(self.state.text)
        self._traced_names: set[str] = set()  # the locals traced shapes are read into (sites.py)
        owners = self._session_owners(tree)
        unrun = self._unrun_builders(tree, owners)
        mains = {i for i in owners if self._own_graph_block(tree.body, i)}
        moves = module_placeholders.placeholders_to_move(tree.body, owners, self.tf)
        moved: set[int] = set()  # module placeholders a function's migrated unit took in
        new_body = []
        for index, stmt in enumerate(tree.body):
            if isinstance(stmt, cst.FunctionDef) and (index in owners or index in unrun):
                # Its functions shadow none of the module's (the function itself included).
                defined = {s.name.value for s in tree.body if isinstance(s, (cst.FunctionDef, cst.ClassDef))}
                taken_in = [tree.body[i] for i in moves.get(index, [])]
                head, rest = split_docstring(stmt.body.body)
                migrated = self._migrate([*head, *taken_in, *rest], nested=True, taken=defined, unrun=index in unrun)
                if migrated is not None:
                    stmt = stmt.with_changes(body=stmt.body.with_changes(body=migrated))
                    moved |= set(moves.get(index, []))
            elif index in mains:
                # Module-level code: its functions take no name the module reads.
                reader = UseReader()
                visit(tree, reader)
                body, taken, reads = stmt.body.body, set(reader.names), reader.reads
                migrated = self._migrate(body, nested=True, taken=taken, reads=reads, block=True)
                if migrated is not None:
                    stmt = stmt.with_changes(body=stmt.body.with_changes(body=migrated))
            new_body.append(stmt)
        new_body = [stmt for index, stmt in enumerate(new_body) if index not in moved]
        if any(not isinstance(tree.body[i], cst.FunctionDef) and i not in mains for i in owners):
            new_body = self._migrate_graphs(new_body)
        if len(new_body) != len(tree.body) or any(new is not old for new, old in zip(new_body, tree.body)):
            self.replace(tree, lambda updated: updated.with_changes(body=new_body))

    def _migrate_graphs(self, body: list[cst.BaseStatement]) -> list[cst.BaseStatement]:
        """Module-level code, one graph at a time.

        A program that calls ``reset_default_graph()`` builds a new, independent graph after it
        (a second model, often reusing the first one's names: ``x = tf.placeholder(...)``
        again). Each stretch between resets is migrated as its own unit, its function and
        helper names picked apart from every name the program reads, but free to be those of an
        earlier stretch's functions, as the program binds its own names again (``compute_loss``
        in each): that stretch has run by then, unless code of its own (a function, a lambda)
        calls them later.
        """
        segments: list[list[cst.BaseStatement]] = [[]]
        for stmt in body:
            # A reset before any session (a program's opening ``tf.reset_default_graph()``)
            # starts nothing new: the unit removes it like the other graph switches.
            if resets_graph(stmt, self.tf) and any(self._opens_session(s) for s in segments[-1]):
                segments.append([])
            segments[-1].append(stmt)
        split = self._split_at_new_placeholders
        segments = [part for segment in segments for part in split(segment)]
        reader = UseReader()
        for stmt in body:
            visit(stmt, reader)
        program = set(reader.names)
        # The names of earlier stretches' functions that code defined there may call later.
        held: set[str] = set()
        self._graphs = len(segments)
        out: list[cst.BaseStatement] = []
        for position, segment in enumerate(segments):
            taken = program | held
            # A stretch after the first keeps the blank lines that separated it from the last.
            migrated = self._migrate(
                segment, nested=False, taken=taken, reads=reader.reads, opening=2 if position else 0
            )
            if migrated is None:
                out.extend(segment)
                continue
            held |= _called_later(segment, migrated, taken - program)
            out.extend(migrated)
        return out

    def _split_at_new_placeholders(self, segment: list[cst.BaseStatement]) -> list[list]:
        """A stretch of module-level code cut where a placeholder takes a name the graph above
        it already gave a tensor (``x = tf.placeholder(...)`` again, for a second demo), when
        that graph ran in a session, made no variables or ops this codemod cannot follow
        (summaries), and the code from there on reads none of its names before binding them
        again: each part is a graph of its own, as after ``reset_default_graph()`` (TF1's one
        graph held both; the second part never reads the first's nodes)."""
        opened, bound = False, set()
        for index, stmt in enumerate(segment):
            simple = isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
            small = stmt.body[0] if simple else None
            if (
                opened
                and isinstance(small, cst.Assign)
                and isinstance(small.value, cst.Call)
                and tf_path(small.value.func, self.tf) in PLACEHOLDERS
                and target_names(small.targets[0].target) & bound
            ):
                head = segment[:index]
                try:
                    above = GraphUnit(head, self.tf, *self._functions)
                except Decline:
                    return [segment]
                kinds = above.kind_of
                objects = (Value.OBJECT, Value.CONFIG)
                built = {name for name, kind in kinds.items() if kind not in objects}
                if target_names(small.targets[0].target) & built:
                    if above.variables or Value.UNKNOWN in kinds.values():
                        return [segment]
                    # A function reading the graph above, wherever it is called from.
                    defined = (cst.FunctionDef, cst.ClassDef)
                    definitions = [s for s in segment if isinstance(s, defined)]
                    if any(free_names(definition) & built for definition in definitions):
                        return [segment]
                    if _read_before_bound(segment[index:], built, set()):
                        return [segment]
                    return [head, *self._split_at_new_placeholders(segment[index:])]
            opened = opened or self._opens_session(stmt)
            bound |= bound_names(stmt)
        return [segment]

    def _own_graph_block(self, body: Sequence[cst.BaseStatement], index: int) -> bool:
        """Whether ``body[index]`` is an ``if __name__ == "__main__":`` block that builds and runs
        a graph of its own: its statements read no graph value the code above it built (a
        placeholder, variable or tensor). It is then a unit by itself, as a function body is."""
        block = body[index]
        if not main_guard(block) or block.orelse is not None:
            return False
        try:
            above = GraphUnit(body[:index], self.tf, *self._functions)
        except Decline:
            return False
        objects = (Value.OBJECT, Value.CONFIG)
        built = {name for name, kind in above.kind_of.items() if kind not in objects}
        return not (names_used(block.body) & built)

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
                if (
                    isinstance(terminal, cst.Name)
                    and terminal.value in SESSIONS
                    and tf_path(node.func, names) in SESSIONS
                ):
                    owners.add(index)

        for index, top in enumerate(tree.body):
            visit(top, Finder())
            if isinstance(top, cst.ClassDef) and self._opens_session(top):
                self.report(
                    top,
                    f"session program not migrated: sessions in the methods of `{top.name.value}` "
                    "(graph state kept on the instance) are not migrated; move the graph into functions",
                )
        return owners

    def _opens_session(self, node: cst.CSTNode) -> bool:
        found = []

        class Finder(cst.CSTVisitor):
            def visit_Call(self, call: cst.Call) -> None:
                terminal = call.func.attr if isinstance(call.func, cst.Attribute) else call.func
                if isinstance(terminal, cst.Name) and terminal.value in SESSIONS:
                    found.append(call)

        visit(node, Finder())
        return any(tf_path(call.func, self.tf) in SESSIONS for call in found)

    def _user_functions(self, tree: cst.Module) -> tuple[set[str], set[str], set[str], set[str], set[str]]:
        """Module functions building tensors, those creating variables, the names whose
        calls surely create none (plain module functions, numpy and math), the classes whose
        objects own variables (``tf.Module``, Keras layers and models, of this module or a
        project module), and the names whose calls draw random values (functions, classes and
        module-level objects of those classes)."""
        graph, variables, safe, drawing = set(), set(), set(), set()
        imported = imported_functions(tree, self.state.project)
        objects = {local for local, function in imported.items() if function.facts.object}
        drawing |= {local for local, function in imported.items() if function.facts.draws}
        for stmt in tree.body:
            if isinstance(stmt, cst.ClassDef) and module_variables.owns_variables(stmt, self.tf):
                objects.add(stmt.name.value)
            if isinstance(stmt, cst.ClassDef) and _calls_draw(stmt, self.tf):
                drawing.add(stmt.name.value)
            if isinstance(stmt, cst.FunctionDef):
                facts = _function_facts(stmt, self.tf)
                (graph if facts.graph else safe).add(stmt.name.value)
                if facts.variables:
                    variables.add(stmt.name.value)
                if facts.draws:
                    drawing.add(stmt.name.value)
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.ImportFrom):
                        self._read_project_import(small, graph, variables, safe)
                    if isinstance(small, cst.Import):
                        for alias in small.names:
                            module = source(alias.name)
                            if module.split(".")[0] in SAFE_MODULES:
                                local = alias.asname.name if alias.asname else alias.name
                                safe.add(source(local).split(".")[0])
        # ``net = Net(4)`` at module level, bound once: an object owning its variables, made
        # once, which the functions of a unit (``main()``) may call.
        for stmt in tree.body:
            if (
                isinstance(stmt, cst.SimpleStatementLine)
                and len(stmt.body) == 1
                and isinstance(stmt.body[0], cst.Assign)
                and len(stmt.body[0].targets) == 1
                and isinstance(stmt.body[0].targets[0].target, cst.Name)
                and isinstance(stmt.body[0].value, cst.Call)
                and source(stmt.body[0].value.func) in objects
                and module_variables.module_assignment(tree, stmt.body[0].targets[0].target.value) is not None
            ):
                safe.add(stmt.body[0].targets[0].target.value)
                # Called, it draws random values when its class does (``tf.nn.dropout`` in ``__call__``).
                if source(stmt.body[0].value.func) in drawing:
                    drawing.add(stmt.body[0].targets[0].target.value)
        # A module function calling one that creates variables (or makes an object owning
        # them) creates them too (``build`` calling ``layer``): read through the calls.
        functions = {stmt.name.value: stmt for stmt in tree.body if isinstance(stmt, cst.FunctionDef)}
        grown = True
        while grown:
            grown = False
            for name, function in functions.items():
                if name not in variables and any(
                    isinstance(call, cst.Call)
                    and isinstance(call.func, cst.Name)
                    and call.func.value in variables | objects
                    for call in walk(function.body, code_only=True)
                ):
                    variables.add(name)
                    safe.discard(name)
                    grown = True
        return graph, variables, safe, objects, drawing

    def _read_project_import(
        self, statement: cst.ImportFrom, graph: set[str], variables: set[str], safe: set[str]
    ) -> None:
        """``from model import build``, ``model`` a module of the project: what the pre-pass said of
        ``build`` (builds tensors, creates variables) is what a function of this file would say."""
        if statement.relative or statement.module is None:
            return
        module = source(statement.module)
        known, stored = self.local_module(module)
        if not known:
            return
        summary = ModuleFacts.from_json(stored) if stored is not None else None
        if summary is not None and summary.tf1:
            raise Decline(
                statement,
                f"`{module}` (a module of this project) still needs TF1 ({summary.tf1}): it stays on "
                "tf.compat.v1, and TF2 code cannot call into it; migrate it first",
            )
        if isinstance(statement.names, cst.ImportStar):
            # ``from ops import *``: every function the summary lists (unknown without one).
            imported = [(name, name) for name in (summary.functions if summary is not None else {})]
        else:
            imported = [
                (source(alias.name), source(alias.asname.name) if alias.asname is not None else source(alias.name))
                for alias in statement.names
            ]
        for name, local in imported:
            self._imported[local] = (module, summary is not None)
            facts = summary.functions.get(name) if summary is not None else None
            if facts is None:
                continue
            (graph if facts.graph else safe).add(local)
            if facts.variables:
                variables.add(local)

    def _with_project_hint(self, decline: Decline) -> Decline:
        """A decline about a function imported from a project module left out of the run says
        which file to add."""
        root = root_name(decline.node.func) if isinstance(decline.node, cst.Call) else None
        imported = self._imported.get(root.value) if root is not None else None
        if imported is None or imported[1]:
            return decline
        return Decline(
            decline.node,
            f"{decline.reason} (`{root.value}` comes from `{imported[0]}`, a module beside this "
            f"file that is not in this run: include {imported[0].replace('.', '/')}.py in the run "
            "so that its functions can be read)",
        )

    def _migrate(
        self,
        body: Sequence[cst.BaseStatement],
        *,
        nested: bool,
        taken: Optional[set[str]] = None,
        opening: int = 0,
        reads: Optional[set[str]] = None,
        block: bool = False,
        unrun: bool = False,
    ) -> Optional[list[cst.BaseStatement]]:
        """The new statements of one unit, or None when it is declined or suppressed. ``reads``:
        the names read where the unit's names are visible, when more than its own body (the
        module, for module-level code); ``block``: module-level code in a block (``if __name__
        == "__main__":``); ``unrun``: a function of a script building a graph that nothing calls
        (``unrun_graphs.py``)."""
        try:
            unit = GraphUnit(body, self.tf, *self._functions)
            if not unrun and not unit.runs_in_a_session():
                return None
            plan = UnitPlan(unit, in_block=block)
            reader = UseReader()
            for stmt in body:
                visit(stmt, reader)
            plan.taken, plan.numpy_uses = reader.names, reader.numpy_uses
            plan.reads = reads if reads is not None else reader.reads
            if taken is not None:
                # Shared with the module's other units: their functions' names are taken too.
                taken |= plan.taken
                plan.taken = taken
            self._plan_runs(plan)
            if unrun:
                self._plan_unrun(plan)
            self._plan_static_reads(plan)
            self._plan_removals(plan)
            self._plan_config(plan)
            self._check_leftovers(plan)
            self._check_local_feeds(plan)
            self._check_functions(plan)
            self._plan_helpers(plan)
            self._plan_moved_starts(plan)
            self._plan_summaries(plan)
        except Decline as decline:
            self.declined(self._with_project_hint(decline), "session program not migrated: ")
            return None
        if not plan.fixes or any(self.suppressed(node) for node, _ in plan.fixes):
            return None
        if plan.unsafe is not None and not self.fix(
            plan.unsafe[0], "session program migrated drawing other random numbers: " + plan.unsafe[1], safe=False
        ):
            return None
        for node, message in plan.fixes:
            self.fix(node, message)
        for stmt in plan.unit.statements:
            root = (
                root_name(stmt.node.body[0].value.func)
                if stmt.kind is Kind.RESET
                and isinstance(stmt.node, cst.SimpleStatementLine)
                and isinstance(stmt.node.body[0], cst.Expr)
                else None
            )
            if root is not None and (self.tf.qualify(root) or "").endswith(".framework.ops"):
                # ``from tensorflow.python.framework import ops`` was only there to reset the graph.
                module, _, name = self.tf.qualify(root).rpartition(".")
                self.remove_import(module, name)
        for function in plan.functions.values():
            for _ in range(function.minimizes):
                self.oblige(
                    "TFM102", f"a TF1 optimizer step (`minimize`, `apply_gradients`) moved into `{function.name}`"
                )
            for _ in range(function.gradients):
                self.oblige("TFM103", f"`tf.gradients` moved into `{function.name}`")
        return self._emit(plan, nested, opening)


def _called_later(
    original: Sequence[cst.BaseStatement], statements: Sequence[cst.BaseStatement], made: set[str]
) -> set[str]:
    """The names of ``made`` (what the migrated ``statements`` of a stretch of module code
    defined) read inside a function, class or lambda of the ``original`` code's own, which may
    run after the next stretch: a name the next stretch cannot define again. The stretch's
    other reads run before it, its new functions' bodies only from them."""
    own: set[str] = set()
    for stmt in original:
        own |= {n.name.value for n in walk(stmt) if isinstance(n, (cst.FunctionDef, cst.ClassDef))}
    deferred: set[str] = set()
    for stmt in statements:
        for node in walk(stmt):
            if isinstance(node, (cst.FunctionDef, cst.ClassDef)) and node.name.value in own:
                deferred |= names_used(node) & made
            elif isinstance(node, cst.Lambda):
                deferred |= names_used(node) & made
    return deferred


def _read_before_bound(statements: Sequence[cst.BaseStatement], names: set, bound: set) -> bool:
    """Whether ``statements``, run in order, may read one of ``names`` before binding it
    themselves (``bound``: bound so far). A ``with`` block's body runs on from its items; a
    name another compound statement binds may stay unbound (a branch not taken)."""
    for stmt in statements:
        if isinstance(stmt, cst.With):
            for item in stmt.items:
                if names_used(item.item) & names - bound:
                    return True
                if item.asname is not None:
                    bound |= target_names(item.asname.name)
            if _read_before_bound(stmt.body.body, names, bound):
                return True
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if names_used(small) & names - bound:
                    return True
                bound |= bound_names(small)
        else:
            if names_used(stmt) & names - bound:
                return True
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                bound.add(stmt.name.value)
    return False


def _trainable(made: Optional[cst.Call], names: TFNames) -> bool:
    """Whether a factory's returned ``tf.Variable(...)`` is read as a trainable variable."""
    variable = made_variable(made, names) if made is not None else None
    return isinstance(variable, MadeVariable) and variable.trainable


def _calls_draw(cls: cst.ClassDef, names: TFNames) -> bool:
    """Whether calling an object of ``cls`` draws random values (a method other than
    ``__init__`` runs a random op: ``tf.nn.dropout`` in ``__call__``)."""
    return any(
        isinstance(method, cst.FunctionDef)
        and method.name.value != "__init__"
        and draws_random(tf_calls(method, names)[0])
        for method in cls.body.body
    )


def _function_facts(function: cst.FunctionDef, names: TFNames) -> FunctionFacts:
    """Whether a module function builds TF ops (calls other than to the host-only API: reading
    the tutorials' MNIST makes numpy arrays), and whether it creates variables."""
    calls, _ = tf_calls(function, names)
    return FunctionFacts(
        graph=builds_ops(calls),
        variables=any(p in VARIABLE_MAKERS or p.startswith(("layers.", "contrib.")) for p, _ in calls),
        draws=draws_random(calls),
    )
