"""TFM120 model-class-to-module.

What it does
    Turns a TF1 model class that owns its session into a ``tf.Module`` whose methods call
    ``tf.function``s. The class builds its graph in ``__init__`` (placeholders, variables, the
    tensors computed from them, ``optimizer.minimize(cost)``), opens ``self.sess =
    tf.Session()`` there and initialises its variables; its methods run the graph
    (``self.sess.run(self.cost, feed_dict={self.x: X})``). It becomes:

    - ``class Model(tf.Module)``: ``__init__`` keeps its plain values and makes its variables
      as TF1 did (same order, same initial values; a ``tf.get_variable`` written as the
      ``tf.Variable`` its initializer made, also in the methods ``__init__`` calls to make
      them), and the Keras optimizer with TF1's hyper-parameters (the shared TF1 -> Keras
      table), or for TF1's Adam the ``FusedAdam`` class minimize-to-tape writes (TF1's fused
      kernel), written once into the file: made there, or passed in (a TF1 optimizer as the
      parameter's default becomes ``None`` and the new one is made when none is passed);
    - each tensor ``__init__`` computed (``self.cost = ...``) becomes a method computing it
      from the placeholders it depends on (``_cost(self, x, y)``), calling the methods of the
      tensors it reads; locals only it reads are computed in it;
    - a run fetching one tensor calls its method, a ``tf.function`` with an input signature
      built from the placeholders' dtypes and shapes (sizes only ``__init__`` knew left open);
      a run of a train op calls a train step (``GradientTape`` over the loss, the optimizer's
      ``apply_gradients`` on the object's trainable variables, ``global_step`` incremented);
      a run fetching several tensors, a function returning them; a run feeding a computed
      tensor (``feed_dict={self.z: z}``) calls the methods reading it with the value fed
      (they take it as a parameter, computed by the callers that do not feed it);
    - ``__init__`` is read through what only arranges its graph code: a method it calls once to
      build the graph (``self.build_graph()``, a plain method called nowhere else) is read as
      its lines in place of the call, and goes; ``with tf.name_scope("loss"):`` and ``with
      tf.device("/cpu:0"):`` blocks are read as their lines (they name and place ops); a
      variable bound to a local (``embedding = tf.get_variable(...)``) is kept on the object
      (``self.embedding``), which must hold its variables;
    - the runs' values are numpy values as TF1 returned them (``.numpy()``), fetched
      variables are read eagerly (``self.w.numpy()``), ops built at the run on no placeholder
      are computed where they stand, the session and its ``close()`` go;
    - a graph class (its graph built in ``__init__`` as above, no session) whose graph a class
      owning the session runs (``self.net = Network()``, ``self.sess.run([self.net.train,
      self.net.loss], feed_dict={self.net.x: x})``), in the same module or a project module
      the run holds: the graph class becomes a tf.Module with a ``tf.function`` named after
      each tensor (``net.loss(x, y)``) and a step named after each train op, returning the
      loss it minimizes (``net.train(x, y)``); the class running it keeps its class and calls
      them where it ran the session;
    - summaries ``__init__`` makes of the model's tensors (``tf.summary.scalar("loss",
      self.loss)``), merged (``self.merged = tf.summary.merge_all()``) and written by a
      ``self.writer = tf.summary.FileWriter(logdir)``: the writer becomes
      ``tf.summary.create_file_writer(logdir)``, a run fetching the merged summary fetches the
      summarized tensors in its place (its function returns them) and each
      ``self.writer.add_summary(summary, step)`` writes them under ``self.writer.as_default()``
      at the step, with TF1's tags;
    - summaries a graph class's ``__init__`` makes of its tensors and variables, merged and
      written by the class running its graph in one of its methods (``merged =
      tf.summary.merge_all()``, ``writer = tf.summary.FileWriter(logdir, self.sess.graph)``,
      a run fetching ``merged`` with the train op, ``writer.add_summary(summary, step)``):
      the merge goes, the writer becomes ``tf.summary.create_file_writer(logdir)``, and the
      summarized values are those the run computed (a tensor it fetches is written from its
      value; another is computed before it from the values it feeds; a variable is written as
      it stands, or read before the run when another train run comes before the write),
      written under ``writer.as_default()`` at the step with TF1's tags;
    - a saver a method makes (``saver = tf.train.Saver(max_to_keep=10)``) and uses with the
      session, to save at a step (``saver.save(self.sess, path, global_step=step)``) or to
      restore (``saver.restore(self.sess, path)``), becomes a ``tf.train.Checkpoint`` of the
      objects holding the variables (this one, the graph objects it runs), each save a
      ``tf.train.CheckpointManager``'s keeping as many checkpoints (TF1's ``path-step`` files
      and state file, which ``tf.train.get_checkpoint_state`` and ``latest_checkpoint`` read
      as before), each restore a read of the checkpoint;
    - the code making objects of the class, in its module and in the files of the run
      importing it, passes Keras optimizers (or ``FusedAdam``, written into that file) where
      it passed TF1 ones.

Why it matters
    Real TF1 code keeps models in classes that own their graph and session, often several
    objects of one class (ensembles). TF2 has neither graphs nor sessions: a ``tf.Module``
    owning its variables, with functions computing from their inputs, is the TF2 shape of the
    same model, and its trainable variables are tracked on the object.

Before
    class Regressor(object):
        def __init__(self, n_in, optimizer=tf.train.AdamOptimizer(0.01)):
            self.x = tf.placeholder(tf.float32, [None, n_in])
            self.y = tf.placeholder(tf.float32, [None, 1])
            self.w = tf.Variable(tf.zeros([n_in, 1]))
            self.pred = tf.matmul(self.x, self.w)
            self.cost = tf.reduce_mean(tf.square(self.pred - self.y))
            self.train_op = optimizer.minimize(self.cost)
            self.sess = tf.Session()
            self.sess.run(tf.global_variables_initializer())

        def partial_fit(self, X, Y):
            cost, _ = self.sess.run((self.cost, self.train_op), feed_dict={self.x: X, self.y: Y})
            return cost

After
    class Regressor(tf.Module):
        def __init__(self, n_in, optimizer=None):
            super().__init__()
            self.w = tf.Variable(tf.zeros([n_in, 1]))
            if optimizer is None:
                optimizer = FusedAdam(learning_rate=0.01)  # written above the class
            self.optimizer = optimizer

        def _pred(self, x):
            return tf.matmul(x, self.w)

        def _cost(self, x, y):
            return tf.reduce_mean(tf.square(self._pred(x) - y))

        @tf.function(input_signature=[...], autograph=False)
        def _train_step(self, x, y):
            with tf.GradientTape() as tape:
                cost = self._cost(x, y)
            gradients = tape.gradient(cost, self.trainable_variables)
            self.optimizer.apply_gradients(zip(gradients, self.trainable_variables))
            return cost

        def partial_fit(self, X, Y):
            cost = self._train_step(X, Y).numpy()
            return cost

Fix safety
    Same values: the variables are made in ``__init__`` in TF1's order with the same initial
    values; each run computes the fetched tensors once from the fed values, a train step
    computes the fetched tensors before it updates the variables (as TF1's run did), with the
    optimizer TF1's hyper-parameters make in Keras (Adam: ``FusedAdam``, bit-identical to TF1);
    fetched values are numpy values. Each object
    has its own optimizer, as each TF1 object had its own session: an optimizer made once and
    passed to several objects is declined. A checkpoint holds the same variables and the
    optimizer's (under the objects' own names, not TF1's: a TF1 checkpoint does not restore into
    it); a manager is made at each save, as saver-to-checkpoint writes it, so it also rotates
    the checkpoints an earlier saver wrote to the folder. A graph object's variable summarized in
    a run of its train op is written as the step left it (TF1's run read it before or after the
    update, in no set order). ``minimize`` without ``var_list``
    trained the graph's trainable variables the loss reaches; the step trains the object's
    (those the loss does not reach get no gradient). A random op reading placeholders only
    (``eps = tf.random_normal(tf.stack([tf.shape(self.x)[0], n]))``, or inside an attribute's
    expression: ``self.x + scale * tf.random_normal((n,))``, ``tf.nn.dropout(self.x,
    self.keep_prob)``) is drawn apart: a tf.function with an input signature returns it,
    traced once in ``__init__`` where TF1 made the op (so its seed is TF1's and it keeps one
    random kernel), and each run calls it with what it fed before calling its own function,
    which takes the value: every run draws on from the one stream as TF1's runs did. Two
    exceptions are unsafe fixes (applied with ``--unsafe-fixes`` only, else a finding): other
    random ops in the graph (reading a tensor or a variable, the run feeding the placeholders
    they read computed values: TF1 drew each run from one op made in ``__init__``, each
    function draws from its own, the same distribution with other numbers), and optimizers
    whose Keras maths differ (the table says how). Input signatures leave open
    the sizes ``__init__`` computed (``[None, n_in]`` -> ``[None, None]``): the same values, a
    shape error found later.

Declines when
    the class has a base other than ``object``, is decorated or holds other statements than
    methods; its session is not ``self.<name> = tf.Session()`` made in ``__init__`` (a session
    passed in, made elsewhere); ``__init__`` builds the graph in blocks (``for``, ``if``,
    ``with``: scopes other than name and device scopes), calls methods that do more than make
    variables other than one building the graph it calls once without arguments (given
    arguments, returning a value, called elsewhere too, binding a name ``__init__`` uses), reads
    graph values through locals it does not keep on the object (a variable's local named as an
    attribute of the class or a member of tf.Module, bound twice), rebinds a graph value, runs
    its session for more than initialising; the graph calls what a function would compute
    otherwise (collections, summaries, savers, assignments, layers or anything making
    variables, shape reads of tensors); a method builds ops outside a run, reads a graph value outside a run,
    or rebinds a value the graph read; a run feeds something other than a placeholder or a
    tensor of the model, lacks a placeholder its fetches need, fetches placeholders, variables
    with tensors, or uses a train op's value (``None``); an optimizer's Keras counterpart
    starts its slots elsewhere (RMSProp) or is given values TF1 read as float32; a random value would be drawn twice where TF1 drew it once; a fed tensor's dtype
    cannot be read off the code (its input signature needs it); a class running a graph
    class's graph fetches more than one of its methods computes; code using the class
    passes an optimizer it cannot follow (made elsewhere, shared by several objects), reads
    the class's graph values (``model.cost``, ``model.sess``), or, in another file of the run,
    stays on TF1 (the file importing the class then keeps it, and the class, on TF1); a saver
    made in a method is given more than ``max_to_keep`` (a ``var_list``), is bound twice, used
    other than to save at a ``global_step`` or to restore, or has its restore's value read; a
    summary of ``__init__`` is of something other than a tensor of the model under a literal
    tag TF1 kept (an expression, a variable other than a graph class's, a tag an op took
    first), is made after the merge, or its merged summary is fetched other than unpacked into
    a name used only by ``add_summary`` of the class's writer; a method's ``merge_all`` merges
    the summaries of several graph objects (or of the class itself, or of other code of the
    module too), its merged summary or writer is used otherwise, or bound twice, the writer is
    given a graph other than its session's; a summary of a graph class is of a local of
    ``__init__`` or in a graph drawing random values, or its tensor needs a value the run does
    not feed or computes by a call (it would be computed twice); objects of a class making or
    merging summaries are made more than once (TF1 tagged the later ones' ``loss_1`` and
    merged them all).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tfmodernize.analysis.tf1_api import SESSIONS
from tfmodernize.analysis.variables import VariableValues, math_importable
from tfmodernize.codemod import Decline, TFCodemod
from tfmodernize.codemods.migrate.model_class_to_module.callers import (
    Callers,
    exported,
    imported_classes,
)
from tfmodernize.codemods.migrate.model_class_to_module.inline import builds_graph, flattened
from tfmodernize.codemods.migrate.model_class_to_module.model import opens_session
from tfmodernize.codemods.migrate.model_class_to_module.optimizers import Optimizers
from tfmodernize.codemods.migrate.model_class_to_module.plan import plan_class
from tfmodernize.codemods.migrate.model_class_to_module.reader import read_class
from tfmodernize.codemods.migrate.model_class_to_module.site_reader import read_sites
from tfmodernize.codemods.migrate.model_class_to_module.write import Writer
from tfmodernize.layout import style_width
from tfmodernize.syntax import source
from tfmodernize.treewalk import walk

#: The summary calls that merge and write what the summaries made, making none.
MERGING = ("summary.merge_all", "summary.FileWriter")


class ModelClassToModule(TFCodemod):
    __doc__ = __doc__
    code = "TFM120"
    name = "model-class-to-module"
    summary = (
        "a TF1 model class owning its session -> a tf.Module whose runs call tf.functions "
        "(expression methods, a GradientTape train step, a Keras optimizer)"
    )
    needles = ("Session", "placeholder")
    #: Only classes: one opening a session, or building its graph in ``__init__`` (placeholders)
    #: without one (a graph class, run elsewhere); a file with neither has nothing to migrate
    #: here unless a project module's class became a tf.Module (``wanted_by``).
    interests = (cst.ClassDef,)

    @classmethod
    def detect(cls, node: cst.CSTNode, names) -> bool:
        if not isinstance(node, cst.ClassDef):
            return False
        # ``builds_graph`` reads ``__init__`` only: asked first, it spares the walk of the class.
        return builds_graph(node, names) or opens_session(node, names)

    requires_tf2 = True
    #: The class must be a tf.Module before session-to-function reads the file (it leaves the
    #: methods of a class owning a session alone), and before summary-v2 and saver-to-checkpoint.
    runs_before = ("TFM100", "TFM101", "TFM105")

    @classmethod
    def wanted_by(cls, state) -> bool:
        # A project module's class became a tf.Module: the objects made here must follow it.
        return any(isinstance(summaries, dict) and summaries.get(cls.code) for summaries in state.project.values())

    def plan(self, module: cst.Module) -> None:
        self.file_module = module
        width = style_width(self.state.text)
        values = VariableValues(self.tf, self.tf_expr)
        self.optimizers = Optimizers(self, module)
        imported = imported_classes(module, self.state.project, self.code)
        foreign = {name: export.api for name, export in imported.items() if export.api is not None}
        # Graph classes first (their graph built in ``__init__``, run by other code): the classes
        # running their graph read what they become.
        graphs: dict[str, tuple] = {}
        owning = [s for s in module.body if isinstance(s, cst.ClassDef) and opens_session(s, self.tf)]
        for statement in module.body:
            if not isinstance(statement, cst.ClassDef) or any(statement is c for c in owning):
                continue
            if not builds_graph(statement, self.tf):
                continue
            try:
                graphs[statement.name.value] = (
                    statement,
                    *self._class(statement, values, width, graph_only=True),
                )
            except Decline as decline:
                if self.state.callers is not None:
                    self.declined(decline, f"graph class `{statement.name.value}` not migrated: ")
        foreign.update({name: graph[2].api for name, graph in graphs.items()})
        classes = []
        for statement in owning:
            try:
                classes.append((statement, *self._class(statement, values, width, foreign=foreign)))
            except Decline as decline:
                self.declined(decline, f"model class `{statement.name.value}` not migrated: ")
        # A graph class of this module goes with the classes running its graph here, or, when
        # nothing here names it, with the files of the run importing it.
        running = [c for c, _, _, _ in classes]
        for name, graph in list(graphs.items()):
            uses = [n for n in walk(module, code_only=True) if isinstance(n, cst.Name) and n.value == name]
            inside = {id(n) for cls in running for n in walk(cls)}
            others = [n for n in uses if n is not graph[0].name]
            if any(id(n) not in inside for n in others) or (not others and self.state.callers is None):
                del graphs[name]
        classes += list(graphs.values())
        migrated = {statement.name.value: export for statement, _, export, _ in classes}
        skip = [c for c, _, _, _ in classes]
        if classes and self._session_elsewhere(module, skip):
            # session-to-function would read calls of the objects' methods in that program as
            # graph ops (it takes a tf.Module's calls for ones): the classes wait for it.
            for statement in skip:
                self.report(
                    statement,
                    f"model class `{statement.name.value}` not migrated: the module's own session code "
                    "uses its objects; migrate that code first",
                )
            return
        # With no class migrated here, no use of one in this module can decline (two walks spared).
        own, _ = self._callers(module, dict(migrated), skip) if migrated else (None, None)
        if migrated and own is None:
            return
        theirs, declined = self._callers(module, imported, skip) if imported else (None, None)
        if declined is not None:
            # Kept on TF1, this file keeps the modules whose classes it calls there too.
            what = source(declined.node)
            what = what if len(what) <= 40 and "\n" not in what else what[:37].split("\n")[0] + "..."
            self.state.keep_on_v1(
                f"`{what}` (code using a project's model class)",
                self.state.position(declined.node)[0],
            )
            return
        fused: set[str] = set()
        first_use: Optional[cst.CSTNode] = None
        for statement, new, _, writer in classes:
            model = writer.model
            if model.graph_only:
                message = f"graph class `{model.name}` -> a tf.Module with a tf.function per tensor and train op"
            elif model.has_graph():
                message = f"model class `{model.name}` -> a tf.Module whose runs call tf.functions"
            else:
                message = f"model class `{model.name}`: its session runs -> calls of the tf.Module it runs"
            unsafe = writer.plan.random or writer.different
            if unsafe is not None and not self.fix(statement, f"{message}, but {unsafe}", safe=False):
                continue
            if unsafe is None and not self.fix(statement, message):
                continue
            self.replace(statement, new)
            if writer.fused:
                fused |= writer.fused
                first_use = _first(module, first_use, statement)
        if values.uses_math and math_importable(module):
            self.add_import("math")
        if migrated and self.state.callers is not None:
            self.state.exports.setdefault(self.code, {})["classes"] = {
                name: export.to_json() for name, export in migrated.items()
            }
        for callers in (own, theirs):
            for node, replacement, message in callers.edits if callers is not None else ():
                different = callers.different.get(id(node))
                text = f"{message}, but {different}" if different else message
                if self.fix(node, text, safe=different is None):
                    self.replace(node, replacement)
                    if id(node) in callers.fused:
                        fused.add(callers.fused[id(node)])
                        first_use = _first(module, first_use, self._top(module, node))
        if first_use is not None:
            self.optimizers.write(fused, first_use)

    def _class(
        self,
        cls: cst.ClassDef,
        values: VariableValues,
        width: int,
        *,
        graph_only: bool = False,
        foreign: Optional[dict] = None,
    ):
        """(the class rewritten, what its callers must know, its writer); or a ``Decline``."""
        if self.state.callers is not None and not self.state.exports_allowed:
            raise Decline(
                cls,
                f"its module is imported and {self.state.exports_refused}, where a tf.Module could not run",
            )
        flat = flattened(cls, self.tf)
        try:
            inlined = flat.inlined
            model = read_class(flat.cls, self.tf, graph_only=graph_only, foreign=foreign, inlined=inlined)
            sites = read_sites(model, self.tf)
            if any(logdir is None for logdir in sites.summary_lines.values()):
                self._check_merged(cls)
            plan = plan_class(model, sites, self.tf)
            writer = Writer(plan, self, values, width, self.optimizers)
            new = writer.class_def()
        except Decline as decline:
            # Reported where the code was written (a line read into ``__init__``, the class).
            raise Decline(flat.origin.get(id(decline.node), decline.node), decline.reason) from None
        summarizes = bool(model.summaries or sites.summary_lines)
        return new, exported(model, plan.api, summarizes), writer

    def _check_merged(self, cls: cst.ClassDef) -> None:
        """A class merging its graph object's summaries (``merge_all``): no other code of the
        module makes summaries, which TF1's merge would have taken too (the graph classes'
        ``__init__`` makes theirs)."""
        graphs = [
            statement
            for statement in self.file_module.body
            if isinstance(statement, cst.ClassDef) and builds_graph(statement, self.tf)
        ]
        theirs = {id(n) for graph in graphs if graph is not cls for n in walk(graph)}
        for node in walk(self.file_module, code_only=True):
            if not isinstance(node, cst.Call) or id(node) in theirs:
                continue
            symbol = self.tf.tf_symbol(node.func)
            path = symbol.path if symbol is not None else ""
            made = path.startswith("summary.") and path not in MERGING
            if made:
                why = "`merge_all` also merges the summaries other code of the module makes"
                raise Decline(node, why)

    def _top(self, module: cst.Module, node: cst.CSTNode) -> cst.CSTNode:
        """The top-level statement of ``module`` holding ``node``."""
        parents = self.state.parents(module)
        while parents.get(id(node)) is not module:
            node = parents[id(node)]
        return node

    def _session_elsewhere(self, module: cst.Module, classes: list[cst.ClassDef]) -> bool:
        """Whether code outside ``classes`` makes a session and names one of them."""
        inside = {id(n) for cls in classes for n in walk(cls)}
        names = {cls.name.value for cls in classes}
        outside = [n for n in walk(module, code_only=True) if id(n) not in inside]
        sessions = any(isinstance(n, cst.Call) and self.tf.is_tf(n.func, *SESSIONS) for n in outside)
        return sessions and any(isinstance(n, cst.Name) and n.value in names for n in outside)

    def _callers(
        self, module: cst.Module, classes: dict, skip: list[cst.ClassDef]
    ) -> tuple[Optional[Callers], Optional[Decline]]:
        """The uses of ``classes`` in this module, or why one cannot follow (reported)."""
        callers = Callers(self, module, classes, skip, self.optimizers)
        try:
            callers.check()
        except Decline as decline:
            self.declined(decline, "model class not migrated: ")
            return None, decline
        return callers, None


def _first(module: cst.Module, known: Optional[cst.CSTNode], statement: cst.CSTNode) -> cst.CSTNode:
    """Of the top-level statements ``known`` (if any) and ``statement``, the one coming first."""
    if known is None:
        return statement
    for candidate in module.body:
        if candidate is known or candidate is statement:
            return candidate
    return known
