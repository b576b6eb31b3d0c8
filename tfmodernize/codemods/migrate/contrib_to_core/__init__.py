"""TFM115 contrib-to-core.

What it does
    Replaces ``tf.contrib`` calls with the core TensorFlow code that computes the same values,
    under whatever alias the file imported TensorFlow with, and for the other ways TF1 code
    reached them: ``slim.X`` after ``from tensorflow.contrib import slim``,
    ``import tensorflow.contrib.slim as slim`` or a module-level ``slim = tf.contrib.slim``
    (any contrib module holding a name it replaces: ``nest = tf.contrib.framework.nest``);
    ``L.dropout`` after ``from tensorflow.contrib.layers.python import layers as L``; a name
    imported from a contrib module. Such an import (or ``slim = ...`` line) goes once nothing
    reads it; comments written between a replaced call's arguments go above its line.

    * ``xavier_initializer()`` / ``xavier_initializer_conv2d()`` -> ``tf.glorot_uniform_initializer()``
      (``uniform=False``: the truncated normal below, ``scale=1.3 * 0.87962566103423978 ** 2``);
    * ``variance_scaling_initializer(factor, mode, uniform)`` ->
      ``tf.variance_scaling_initializer(scale=factor, mode="fan_in", distribution="uniform")``
      (``glorot_uniform_initializer()`` for ``factor=1.0, mode='FAN_AVG', uniform=True``); not
      uniform (contrib's default): ``distribution="truncated_normal"`` with
      ``scale=factor * 1.3 * 0.87962566103423978 ** 2``, the line commented: contrib drew a
      truncated normal of standard deviation ``sqrt(1.3 * factor / n)``, core's is
      ``sqrt(scale / n) / 0.87962566103423978``;
    * ``l2_regularizer(scale)`` -> ``lambda weights: scale * tf.nn.l2_loss(weights)``,
      ``l1_regularizer(scale)`` -> ``lambda weights: scale * tf.reduce_sum(tf.abs(weights))``
      (``scale * tf.nn.l2_loss(w)`` where the regularizer is applied at once:
      ``l2_regularizer(scale)(w)``; a scale of 0: ``lambda _: None``, contrib's regularizer that
      adds nothing);
    * ``dropout(x, keep_prob)`` (``is_training`` True, the default) ->
      ``tf.nn.dropout(x, rate=1 - keep_prob)``; ``is_training=False`` -> ``tf.identity(x)``;
    * ``tf.contrib.metrics.accuracy(predictions, labels)`` ->
      ``tf.reduce_mean(tf.cast(tf.equal(predictions, labels), tf.float32))``;
    * what ``tf.contrib`` re-exported from core, renamed wherever it is named:
      ``tf.contrib.framework.get_or_create_global_step`` / ``get_global_step`` /
      ``create_global_step`` -> ``tf.train.*`` (contrib's were deprecated wrappers calling
      them); ``tf.contrib.rnn.BasicLSTMCell`` and the other core cells, wrappers and
      ``LSTMStateTuple`` -> ``tf.nn.rnn_cell.*``, ``tf.contrib.rnn.static_rnn`` (and
      ``static_bidirectional_rnn``, ``static_state_saving_rnn``) -> ``tf.nn.*``: the same objects;
      so were ``tf.estimator``'s session-run hooks (``tf.estimator.SessionRunHook``,
      ``LoggingTensorHook``, ``SessionRunArgs``, ...) -> ``tf.train.*``, which TF 2.x still has
      (under ``tf.compat.v1``) while ``tf.estimator`` is gone since TensorFlow 2.16; and
      ``tf.contrib.framework.nest.flatten`` (``map_structure``, ``pack_sequence_as``,
      ``assert_same_structure``) -> ``tf.nest.*``;
      ``tf.contrib.compiler.jit.experimental_jit_scope`` -> ``tf.xla.experimental.jit_scope``
      and ``tf.contrib.tfprof.model_analyzer.Profiler`` -> ``tf.profiler.Profiler``;
      ``tf.contrib.distributions.Normal`` (``Bernoulli``, ``Categorical``, ``kl_divergence`` and
      the other names TF1's ``tf.distributions`` has: TF 1.15's contrib star-imported them from
      core) -> ``tf.distributions.*``, a TF1 name, so the file stays on ``tf.compat.v1``;
    * ``tf.contrib.tfprof.model_analyzer.print_model_analysis(graph, run_meta, op_log,
      tfprof_cmd, tfprof_options)`` -> ``tf.profiler.profile(graph, run_meta=..., op_log=...,
      cmd=..., options=...)`` (``advise`` -> ``tf.profiler.advise``), and its option dicts
      ``TRAINABLE_VARS_PARAMS_STAT_OPTIONS`` / ``FLOAT_OPS_OPTIONS`` ->
      ``tf.profiler.ProfileOptionBuilder.trainable_variables_parameter()`` /
      ``float_operation()``;
    * ``tf.contrib.image.bipartite_match(distance_mat, num_valid_rows, top_k)`` (also
      ``image_ops.bipartite_match`` from ``tensorflow.contrib.image.python.ops``), contrib's C++
      greedy matcher, which no TF 2.x nor maintained package has -> a call of the file's own
      ``bipartite_match``, written once after its imports: the same matching in TensorFlow ops
      (``bipartite_match.py``), in names that mean the same in TF1 and TF2;
    * ``reader.read_saved_model(saved_model_dir)`` (``reader`` imported from
      ``tensorflow.contrib.saved_model.python.saved_model``), whose function TF 2.x keeps in a
      private module only -> a call of the file's own ``read_saved_model``, written once after its
      imports (``saved_model_reader.py``): the same parsing of the folder's ``saved_model.pb``
      (else ``saved_model.pbtxt``) into ``saved_model_pb2.SavedModel``, with ``tf.io.gfile`` and
      protobuf's parsers, and the same ``IOError`` when there is none or it cannot be parsed;
    * ``tf.contrib.lookup.index_table_from_tensor(mapping)`` /
      ``index_to_string_table_from_tensor(mapping)`` (TF1's ``lookup_ops`` functions, which TF
      2.x exports nowhere) -> ``tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
      ...))`` of the vocabulary and its int64 positions (``tf.range(tf.size(mapping,
      out_type=tf.int64))``), the table they made (its default: ``-1``, ``"UNK"``).

    The initializers, global-step functions, cells, static RNNs and TF1 profiler have no TF2
    name: they are written as TF1's core names (``tf.glorot_uniform_initializer``) through the
    file's alias.
    A file that stays TF1 keeps them, on ``tf.compat.v1`` (compat-fallback), where they run; in
    a file that migrates, the codemods after this one turn them into TF2 code
    (get-variable-to-variable writes ``glorot_uniform_initializer()`` as the ``tf.random.uniform``
    it draws, layers-to-keras takes the cells a ``dynamic_rnn`` runs), and a name none of them
    takes (``tf.train.get_or_create_global_step()``, for one) keeps the file on
    ``tf.compat.v1``. The rest (dropout, accuracy, regularizers) is TF2 code with the same
    meaning under ``tf.compat.v1``. Runs first, so that every other codemod sees core code.

Why it matters
    No TensorFlow 2.x has ``tf.contrib``: a file using it fails at import, whatever else is
    migrated, and ``tf_upgrade_v2`` only comments on it (or rewrites initializers into
    ``tf.compat.v1.keras`` ones that draw other numbers). Among the contrib names a 2019 model
    zoo uses most, the initializers, regularizers, dropout, the global step and the RNN cells
    are core code under another name: replaced, a file that used only those runs again.

Before
    w = tf.get_variable("w", [784, 10], initializer=tf.contrib.layers.xavier_initializer(),
                        regularizer=tf.contrib.layers.l2_regularizer(0.01))
    h = tf.contrib.layers.dropout(tf.matmul(x, w), keep_prob=0.8)
    acc = tf.contrib.metrics.accuracy(tf.argmax(h, 1), labels)

After
    w = tf.get_variable("w", [784, 10], initializer=tf.glorot_uniform_initializer(),
                        regularizer=lambda weights: 0.01 * tf.nn.l2_loss(weights))
    h = tf.nn.dropout(tf.matmul(x, w), rate=1 - 0.8)
    acc = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(h, 1), labels), tf.float32))

Fix safety
    Each replacement runs the ops contrib ran, with the same arguments, in the same order, so
    the same random numbers are drawn (read off TF 1.15's contrib sources, and run against
    tf-slim's copies of them, which the fixtures and the tests use as the original): dropout is
    the ``nn.dropout`` call contrib's layer made, at ``rate = 1 - keep_prob``; accuracy is
    contrib's cast of ``equal`` and ``reduce_mean``; a regularizer is ``scale`` times contrib's
    ``l2_loss`` (or sum of absolute values), the scale converted to the weights' dtype and
    multiplied first, as contrib did. The initializers draw from the same random op; contrib
    computed the limit as ``sqrt(3 * factor / n)`` and the standard deviation as
    ``sqrt(1.3 * factor / n)``, core as ``sqrt(3 * (scale / n))`` and
    ``sqrt(scale / n) / 0.8796...``: the float64 results differ in the last place for some fans,
    but rounded to float32 (and float16) they are the same for every fan ``n`` up to 2^22 and
    48 factors checked (the tests check every ``n`` up to 2^20), so float32 weights get the same
    bits. Each replacement makes as many random ops as contrib did, so the numbers are the same
    under a graph-level seed too (``tf.set_random_seed``: TF 2.x counts a graph's random ops
    for their seeds; the tests check it without TensorFlow's test tool). The written
    ``bipartite_match`` matches pairs as contrib's kernel did, from the smallest distance up,
    among the rows it counted (``num_valid_rows + 0.1`` truncated), up to ``top_k``, and returns
    the same int32 vectors; equal distances it takes in row-major order, where contrib's heap
    took them in an order of its own: if equal distances compete for a row or a column, the
    matching can differ (the tests check it against a numpy copy of the kernel's heap). The
    written ``read_saved_model`` reads what contrib's did, checked against TensorFlow's own parser
    on a binary, a text, a corrupt and a missing proto (its messages name the paths as text where
    contrib's showed bytes). Names only
    (contrib's ``scope``/``name``) are dropped: the ops are named otherwise. contrib's
    ``experimental_jit_scope`` and tfprof's ``Profiler`` were TensorFlow's own objects, re-exported;
    ``jit_scope`` raises when run eagerly, as it did, so it works where TF1 code used it (graph
    code, or a ``tf.function`` session-to-function makes of it). contrib.tfprof's
    ``print_model_analysis`` and ``advise`` passed their arguments on to TensorFlow's own
    ``profile`` and ``advise``; the builder's dicts give the same profiler options as contrib's
    (the keys they add hold the values read when absent; the tests check the options built),
    though each read makes a new dict where contrib shared one: a program changing contrib's dict
    in place and reading the change back through the module would not see it. The lambda written
    for a regularizer whose scale is a name is exact unless that scale is 0 (contrib then made
    a regularizer returning None, which added no regularization loss): an unsafe fix.

Declines when
    (a finding says why, and the call stays) an argument whose value decides the code is not
    written out: dropout's ``is_training`` other than ``True``/``False``, an initializer's
    ``factor`` other than a number (or a module constant bound once to one), ``uniform`` other
    than ``True``/``False``, ``mode`` other than one of contrib's three strings; a scale or
    factor contrib refused (an integer or negative scale); ``*args``/``**kwargs``; dropout with
    ``noise_shape`` or ``outputs_collections``, or in a file naming contrib's dropout other than
    to call it (an ``arg_scope([slim.dropout], is_training=...)`` list: the scope gives the call
    its arguments); accuracy with ``weights``; an initializer in a file naming float64 (the
    limits differ in the last place there) or partitioned variables (core reads the whole
    variable's shape, contrib the part's); a ``scope``/``name`` in a file reading graph elements
    by name; a contrib name used as a value rather than called (``fn = slim.dropout``); a
    regularizer's scale computed in the call or read from a name bound more than once (a loop's):
    the lambda would read it when applied, contrib read it when the regularizer was made. A
    regularizer whose scale is read from a name bound once (``l2_regularizer(weight_decay)``,
    ``FLAGS.weight_decay``) is an unsafe fix (``--unsafe-fixes``): contrib made no regularizer for
    a scale of 0, which only the run knows. contrib.tfprof's ``print_model_analysis`` or
    ``advise`` without its graph; its ``PRINT_ALL_TIMING_MEMORY`` (no builder method returns
    those options: api-renames reports it). A function of a project module called inside another
    file's ``arg_scope`` listing
    dropout is not seen from its own file. ``bipartite_match`` in a file reading another name of
    ``tf.contrib.image`` (``rotate``, ``transform``: the contrib import would stay), or called
    before the file's imports end, or without its number of valid rows. ``read_saved_model`` in a
    file reading another name of ``tf.contrib.saved_model`` (``get_saved_model_tag_sets``), or
    naming ``os``, ``message``, ``text_format`` or ``saved_model_pb2`` other than by the import
    the written function reads, or called before the file's imports end. A vocabulary table with
    ``num_oov_buckets`` other than 0, a ``hasher_spec``, a ``dtype`` other than ``tf.string``, or
    a mapping computed in the call (the table reads it twice).
"""

from __future__ import annotations

from collections import Counter
from functools import cached_property
from typing import Optional, Union

import libcst as cst

from tfmodernize.codemod import Decline, TFCodemod
from tfmodernize.analysis.variable_calls import arguments
from tfmodernize.codemods.migrate.contrib_to_core import bipartite_match, saved_model_reader
from tfmodernize.codemods.migrate.contrib_to_core.file_facts import ContribFile, reads_through_local_module
from tfmodernize.codemods.migrate.contrib_to_core.rewrites import ContribPlan, Rewrite, rewrite
from tfmodernize.codemods.migrate.contrib_to_core.tables import (
    BIPARTITE,
    CALLS,
    READER,
    PROFILE_OPTIONS,
    RENAMES,
    SAFE_PLACES,
    canonical,
    handles,
)
from tfmodernize.names import WholeNames, name_nodes
from tfmodernize.layout import depth, fitted, style_width
from tfmodernize.syntax import source, statement_of
from tfmodernize.tfsymbols import TFNames, dotted_name, root_name
from tfmodernize.treewalk import walk
from tfmodernize.written_code import imports_only, template_statements, two_blank_lines


class ContribToCore(WholeNames, TFCodemod):
    __doc__ = __doc__
    code = "TFM115"
    name = "contrib-to-core"
    summary = (
        "tf.contrib initializers, regularizers, dropout, accuracy, global step and RNN cells, "
        "tf.estimator's session-run hooks, nest, jit_scope, tfprof's model analyzer -> "
        "the core TensorFlow code they ran; contrib's bipartite_match and saved_model reader -> "
        "functions in the file"
    )
    needles = ("contrib", "estimator")
    interests = (cst.Call, cst.Attribute, cst.Name, cst.Module)
    detects_tf_names_only = True
    #: Every other migration reads what it writes (initializers, cells, the global step).
    runs_before = ("TFM107", "TFM100", "TFM101", "TFM102", "TFM106", "TFM109", "TFM113")

    @classmethod
    def detect(cls, node: cst.CSTNode, names: TFNames) -> bool:
        if isinstance(node, cst.Module):  # ``slim = tf.contrib.slim`` and ``slim.dropout`` read
            return reads_through_local_module(node, names)
        target = node.func if isinstance(node, cst.Call) else node
        symbol = names.tf_symbol(target)
        return symbol is not None and handles(symbol.path)

    def plan(self, module: cst.Module) -> None:
        self._inner: set[int] = set()  # WholeNames: the inner parts of dotted names
        self._calls: dict[int, cst.Call] = {}  # id(func) -> the call of it
        self._applied: set[int] = set()  # regularizer calls applied at once: ``l2_regularizer(s)(w)``
        self._replaced_roots: Counter[str] = Counter()  # local module names whose reads went
        #: id(statement) -> [statement, the comment to end it with, comments to put above it]
        self._notes: dict[int, list] = {}
        self._import_roots: set[str] = set()  # import aliases some replaced name started from
        #: contrib functions replaced by a function written into the file, in the order replaced
        self._written: list[str] = []
        #: What the file binds and names, read when a rewrite first asks.
        self._file = ContribFile(self.tf.module, self.tf, self.state.text, lambda: self._parents)
        self._plan = ContribPlan(
            file=self._file,
            names=self.tf,
            text=self.state.text,
            calls=self._calls,
            applied=self._applied,
            root=self._root,
        )
        self._from_imported = self.from_imports(module)
        super().plan(module)
        if self._written:
            self._write_functions(module)
        self._comment_statements()
        self._drop_local_modules(module)
        self._drop_plain_imports(module)

    @cached_property
    def _parents(self) -> dict:
        return self.state.parents(self.tf.module)

    def _write_functions(self, module: cst.Module) -> None:
        """contrib's ``bipartite_match`` and ``read_saved_model`` as the file's own functions,
        after its imports (the imports they read added)."""
        position = self._file.written_place
        tf = self._root(v1=False)
        statements = []
        for found in self._written:
            if found == BIPARTITE:
                name = self._file.written_name("bipartite_match")
                statements += template_statements(bipartite_match.TEMPLATE, module, name=name, tf=tf)
            else:
                name = self._file.written_name("read_saved_model")
                statements += template_statements(saved_model_reader.TEMPLATE, module, name=name, tf=tf)
                for local, qualified in saved_model_reader.IMPORTS.items():
                    module_name, _, obj = qualified.rpartition(".")
                    if local == qualified:
                        self.add_import(local)
                    else:
                        self.add_import(module_name, obj)
        if position == len(module.body):
            self.insert_after(module.body[-1], statements)
            return
        following = module.body[position]
        self.insert_before(following, statements)
        if not imports_only(following):
            self.replace(following, two_blank_lines)

    # -- emitting -----------------------------------------------------------------------------

    def _root(self, *, v1: bool) -> str:
        """The code naming TensorFlow's top level for an emitted name: a TF1-only name (``v1``)
        through the file's ``compat.v1`` alias or its plain one (compat-fallback turns that into
        ``compat.v1`` if the name stays); a name meaning the same in both through either."""
        plain = self.tf.alias_of("tensorflow")
        old = self.tf.alias_of("tensorflow.compat.v1")
        first, second = (old, plain) if v1 else (plain, old)
        if first or second:
            return first or second
        v2 = self.tf.alias_of("tensorflow.compat.v2")
        if v2 and v1:
            return f"{v2}.compat.v1"
        return self.tf_root()

    # -- the walk -------------------------------------------------------------------------------

    def visit_Call(self, node: cst.Call) -> bool:
        self._calls[id(node.func)] = node
        if isinstance(node.func, cst.Call):
            self._applied.add(id(node.func))
        return True

    def leave_whole_name(self, node: Union[cst.Attribute, cst.Name]) -> None:
        path = self._file.path(node)
        found = canonical(path)
        if found is None:
            return
        if found in RENAMES:
            target = RENAMES[found]
            if self.fix(node, f"tf.{path} is tf.{target} (TF 1.15's contrib re-exported it)"):
                self._count_root(node)
                self.replace(node, cst.parse_expression(f"{self._root(v1=True)}.{target}"))
        elif found in PROFILE_OPTIONS:
            method = f"profiler.ProfileOptionBuilder.{PROFILE_OPTIONS[found]}"
            message = f"tf.{path} is the dict tf.{method}() returns: the same profiling options"
            if self.fix(node, message):
                self._count_root(node)
                self.replace(node, cst.parse_expression(f"{self._root(v1=True)}.{method}()"))
        elif found in CALLS and id(node) not in self._calls:
            self.report(
                node,
                f"`{source(node)}` is used as a value, not called: only its calls are replaced "
                "by core code; this use is left (tf.contrib is gone from TF 2.x)",
            )

    def leave_Call(self, call: cst.Call) -> None:
        path = self._file.path(call.func)
        found = canonical(path)
        if found not in CALLS:
            return
        try:
            args = arguments(call, CALLS[found], what=f"`{source(call.func)}`")
            done = rewrite(self._plan, call, found, args)
        except Decline as decline:
            self.declined(decline, f"`{source(call.func)}` not replaced: ")
            return
        if done.applied is not None:
            self._replace_applied(call, done)
            return
        if not self.fix(call, done.fix_message, safe=done.unsafe is None):
            return
        self._count_root(call.func)
        self._keep_comments(call, done.why)
        self._replace_call(call, found, args, done.code)
        if found in (BIPARTITE, READER) and found not in self._written:
            self._written.append(found)

    def _replace_applied(self, call: cst.Call, done: Rewrite) -> None:
        """``l2_regularizer(scale)(w)``: the call applying the regularizer becomes ``done.code``."""
        outer = done.applied
        if not self.fix(outer, done.fix_message, safe=done.unsafe is None):
            return
        self._count_root(call.func)
        self._keep_comments(outer, None, inner=call)

        def build(rebuilt: cst.Call) -> cst.BaseExpression:
            inner = rebuilt.func
            scale = next(a.value for a in inner.args if a.keyword is None or a.keyword.value == "scale")
            code = done.code.format(scale=source(scale), weights=source(rebuilt.args[0].value))
            return self._placed(outer, rebuilt, cst.parse_expression(code))

        self.replace(outer, build)

    def _count_root(self, node: cst.CSTNode) -> None:
        """Note the name a replaced dotted name started from (``slim`` of ``slim.dropout``)."""
        root = root_name(node)
        if root is not None and root.value in self._file.local:
            self._replaced_roots[root.value] += 1
        elif root is not None:
            self._import_roots.add(root.value)
            self.drop_from_import_of(node, self._from_imported)  # ``from tensorflow.contrib.rnn import LSTMCell``

    def _replace_call(self, call: cst.Call, found: str, args: dict, code: str) -> None:
        """``call`` becomes ``code`` (``{name}``: the source of argument ``name`` as rebuilt)."""
        names = [arg.keyword.value if arg.keyword is not None else CALLS[found][i] for i, arg in enumerate(call.args)]

        def build(rebuilt: cst.Call) -> cst.BaseExpression:
            values = {name: source(arg.value) for name, arg in zip(names, rebuilt.args)}
            return self._placed(call, rebuilt, cst.parse_expression(code.format(**values)))

        self.replace(call, build)
        line = statement_of(call, self._parents)
        if line is not None:  # a line of its own the core code made wider than the file's: wrapped
            deep, width = depth(line[1], self._parents), style_width(self.state.text)
            self.replace(line[1], lambda updated: fitted(updated, width, deep, further=True))

    def _placed(self, call: cst.Call, rebuilt: cst.Call, new: cst.BaseExpression) -> cst.BaseExpression:
        """``new`` in the place of ``call``: in the parentheses ``call`` had, or in new ones where
        an operator or a lambda would bind otherwise (``reg if c else None``, ``-reg(w)``)."""
        if rebuilt.lpar:
            return new.with_changes(lpar=rebuilt.lpar, rpar=rebuilt.rpar)
        parent = self._parents.get(id(call))
        if isinstance(new, (cst.Call, cst.Attribute, cst.Name)) or isinstance(parent, SAFE_PLACES):
            return new
        if (
            isinstance(new, cst.BinaryOperation)
            and isinstance(new.operator, cst.Multiply)
            and isinstance(parent, cst.BinaryOperation)
            and isinstance(parent.operator, (cst.Add, cst.Subtract))
        ):
            return new  # ``scale * loss + 2.0``: the product binds first anyway
        return new.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])

    def _holder(self, node: cst.CSTNode) -> Optional[cst.BaseStatement]:
        holder = self._parents.get(id(node))
        while holder is not None and not isinstance(holder, cst.BaseStatement):
            holder = self._parents.get(id(holder))
        return holder

    def _keep_comments(self, call: cst.Call, why: Optional[str], inner: Optional[cst.Call] = None) -> None:
        """The comments written inside ``call`` but outside the arguments it keeps (after a comma,
        between lines; those of ``inner`` too, whose arguments are kept as well) go above its
        statement, ``why`` at the end of it when it has no comment."""
        kept = {id(n) for c in (call, inner) if c is not None for arg in c.args for n in walk(arg.value)}
        comments = [n.value for n in walk(call) if isinstance(n, cst.Comment) and id(n) not in kept]
        holder = self._holder(call)
        if holder is None or not (comments or why):
            return
        note = self._notes.setdefault(id(holder), [holder, None, []])
        note[2].extend(comments)
        if why and isinstance(holder, cst.SimpleStatementLine) and holder.trailing_whitespace.comment is None:
            note[1] = why

    def _comment_statements(self) -> None:
        for statement, trailing, leading in self._notes.values():

            def commented(rebuilt: cst.BaseStatement, trailing=trailing, leading=leading) -> cst.BaseStatement:
                if trailing is not None:
                    rebuilt = rebuilt.with_changes(
                        trailing_whitespace=cst.TrailingWhitespace(
                            whitespace=cst.SimpleWhitespace("  "),
                            comment=cst.Comment(trailing),
                            newline=rebuilt.trailing_whitespace.newline,
                        )
                    )
                if leading:
                    rebuilt = rebuilt.with_changes(
                        leading_lines=[
                            *rebuilt.leading_lines,
                            *(cst.EmptyLine(comment=cst.Comment(c)) for c in leading),
                        ]
                    )
                return rebuilt

            self.replace(statement, commented)

    # -- imports and local module names that go -----------------------------------------------

    def _drop_local_modules(self, module: cst.Module) -> None:
        """``slim = tf.contrib.slim`` goes when every read of ``slim`` was replaced."""
        for name, replaced in self._replaced_roots.items():
            _, statement = self._file.local[name]
            target = statement.body[0].targets[0].target
            reads = sum(1 for n in name_nodes(module, imports=False) if n.value == name and n is not target)
            if reads == replaced:
                self.remove(statement)

    def _drop_plain_imports(self, module: cst.Module) -> None:
        """``import tensorflow.contrib.slim as slim`` goes when nothing reads ``slim`` any more
        (``from`` imports of TF go by themselves: ``TFCodemod._drop_orphaned_imports``)."""
        for statement in module.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if isinstance(small, cst.Import):
                    for alias in small.names:
                        imported = dotted_name(alias.name)
                        if (
                            (imported or "").startswith("tensorflow.contrib.")
                            and alias.asname is not None
                            and isinstance(alias.asname.name, cst.Name)
                            and alias.asname.name.value in self._import_roots
                        ):
                            self.remove_import(imported, asname=alias.asname.name.value)
