"""TFM116 contrib-to-slim.

What it does
    Points the ``tf.contrib`` names that live on in the tf-slim package at it: ``tf.contrib.slim``
    and what it re-exported from ``tf.contrib.layers`` (``conv2d``, ``fully_connected``,
    ``flatten``, ``max_pool2d``, ``repeat``, ``stack``...), ``tf.contrib.framework``
    (``arg_scope``, ``add_arg_scope``, ``get_variables_to_restore``, ``model_variable``...) and
    ``tf.contrib.metrics`` (the ``streaming_*`` metrics), the nets of ``tf.contrib.slim.nets``,
    and the deep module paths (``tensorflow.contrib.layers.python.layers.layers``):

    * an import of one becomes the same import of tf-slim, under the same local name:
      ``import tensorflow.contrib.slim as slim`` and ``from tensorflow.contrib import slim`` ->
      ``import tf_slim as slim``; ``from tensorflow.contrib.framework import arg_scope`` ->
      ``from tf_slim import arg_scope``; ``from tensorflow.contrib.slim.nets import resnet_v1``
      -> ``from tf_slim.nets import resnet_v1``;
    * a module-level ``slim = tf.contrib.slim`` -> ``import tf_slim as slim`` (a module-level
      name for a function, ``norm = tf.contrib.layers.batch_norm``, is a reference like any);
      such a line nothing in the file reads goes (it would be an unused import; a module
      listing its names in ``__all__`` keeps it). An import of tf-slim whose every use the
      functions written in the file took over stays: the file stays on TF1 with tf-slim, and a
      second run leaves it so (without it, session-to-function would migrate code that may
      read TF1's graph ops, ``var.op.name``);
    * a name written out through TensorFlow (``tf.contrib.layers.flatten(x)``) ->
      ``tf_slim.flatten(x)``, with ``import tf_slim``;
    * ``batch_norm`` (``slim.batch_norm``, ``normalizer_fn=slim.batch_norm``,
      ``tf.contrib.layers.batch_norm``), whose tf-slim version fails on TF 2.21: a file calling
      it (or passing it on) gets its own ``batch_norm`` after its imports, tf-slim's function
      written in ``tf.compat.v1`` ops (``batch_norm.py`` here), and its references point at it;
      a file only listing it in ``arg_scope`` keeps tf-slim's there, never called;
    * ``slim.learning.multiply_gradients`` and ``clip_gradient_norms``, whose tf-slim versions
      fail on TF 2.21 when called (they read ``ops.Tensor``/``ops.IndexedSlices``): the file gets
      its own after its imports, the same functions in TensorFlow ops (``learning.py`` here);
    * the arg scopes of tf-slim's nets (``resnet_utils.resnet_arg_scope``, the inception ones),
      which make tf-slim's batch_norm their layers' normalizer: the file gets the batch_norm
      written and a ``with_batch_norm`` wrapper putting it in their scopes in tf-slim's place
      (``with_batch_norm(resnet_utils.resnet_arg_scope)(weight_decay=1e-4)``);
    * the nets of tf-slim's that call its batch_norm themselves (resnet v2's ``resnet_v2``,
      ``resnet_v2_50``... and its ``bottleneck`` unit): the file gets the batch_norm written and a
      ``net_with_batch_norm`` wrapper building the net with it
      (``net_with_batch_norm(resnet_v2.resnet_v2_50)(images, 10)``);
    * TensorFlow's modules TF 1.15's slim modules bound, reached through them
      (``slim.learning.supervisor.Supervisor``, ``slim.learning.tf_saver.Saver``): tf-slim's
      modules bind the same ones, so they stay as written.

    Which names tf-slim has is read off the package itself (``tfmodernize/data/tf_slim.json``,
    see ``tfmodernize/analysis/contrib.py``). tf-slim's layers build TF1 graphs (variables
    through variable scopes, collections, arg scopes): the file stays on ``tf.compat.v1``, which
    compat-fallback (TFM113) and compat-v1-import (TFM112) see from the ``tf_slim`` import. Runs
    after the migrations, which
    read contrib names as TF1 code, and after contrib-to-core (TFM115), which replaces the
    contrib names core TensorFlow computes itself.

Why it matters
    No TensorFlow 2.x has ``tf.contrib``, and slim is the most used part of it in TF1-era
    codebases: every network of a model zoo built with ``slim.conv2d`` under ``arg_scope`` fails
    at import on TF 2.x. The code was not lost, it moved: with the import pointed at tf-slim
    (``pip install tf-slim``) the file runs on TF 2.x as the TF1 program it was, and the rest of
    its migration can go on.

Before
    import tensorflow as tf
    import tensorflow.contrib.slim as slim

    def net(images):
        with slim.arg_scope([slim.conv2d], padding="SAME"):
            return slim.fully_connected(slim.flatten(slim.conv2d(images, 8, [3, 3])), 10)

After
    import tensorflow.compat.v1 as tf
    import tf_slim as slim

    def net(images):
        with slim.arg_scope([slim.conv2d], padding="SAME"):
            return slim.fully_connected(slim.flatten(slim.conv2d(images, 8, [3, 3])), 10)

Fix safety
    tf-slim is contrib's slim moved out of TensorFlow, the same functions with the same
    defaults: the same variables (names included), the same random ops in the same order, the
    same numbers (the fixtures run the contrib original through tf-slim, as TF 1.15's
    ``tf.contrib.slim`` was, and the rewrite on plain TF 2.x). The ``batch_norm`` written in the
    file makes tf-slim's variables in its order, with its collections, update ops and numbers
    (fused where tf-slim fuses), and shares tf-slim's arg-scope key, so an ``arg_scope`` of
    ``slim.batch_norm`` set in another module (on tf-slim's or on its own) still reaches it.
    The gradient helpers written in the file scale and clip the same gradients with the same
    ops (dense and sparse), and raise tf-slim's errors. ``net_with_batch_norm`` puts the written
    batch_norm where tf-slim's nets read theirs (tf-slim's layers module) for the one call that
    builds the net and puts tf-slim's back after it, even when the call raises: tf-slim's own
    batch_norm, which cannot run there, is never called meanwhile (a graph built from several
    threads at once could see it swapped); the wrapped net keeps the net's attributes, its
    arg-scope key among them.

Declines when
    (the file keeps every contrib name, and a finding at each problem says what to do) a contrib
    name of these modules that tf-slim does not have (``tf.contrib.framework.nest``,
    ``tf.contrib.layers.real_valued_column``); a tf-slim function that fails on TensorFlow 2.21
    (``optimize_loss``, ``learning.add_gradients_summaries``, the metrics branching through
    ``control_flow_ops.cond`` such as ``streaming_dynamic_auc``: the finding says what to write
    instead);
    ``batch_norm`` in a file passing it an argument the written function does not reproduce
    (``batch_weights``, ``adjustment`` other than their defaults, ``renorm=True``; in a call or
    as a dict key); a function written in the file read before its imports end (a ``renorm``
    known only when run is taken, with a finding: the written batch_norm raises when it is
    true); a name written out through a deep module
    path (``tf.contrib.layers.python.layers.layers.conv2d``); a plain
    ``import tensorflow.contrib.slim`` (no ``as``) or an import sharing its line with another
    statement. One problem declines the whole file: a file half on tf-slim would still fail.
"""

from __future__ import annotations

from typing import Union

import libcst as cst

from tfmodernize.analysis.contrib import (
    PACKAGE,
    WRITTEN_IN_THE_FILE,
    NotInSlim,
    SlimName,
    slim_home,
    slim_name,
    written_in_the_file,
)
from tfmodernize.codemod import TFCodemod
from tfmodernize.codemods.migrate.contrib_to_slim.batch_norm import helper_statements, without_keywords
from tfmodernize.codemods.migrate.contrib_to_slim.learning import TEMPLATES
from tfmodernize.codemods.migrate.contrib_to_slim.plan import Functions, Norm, plan_batch_norm, plan_functions
from tfmodernize.codemods.migrate.contrib_to_slim.reading import (
    Binding,
    Reading,
    local_name,
    module_assignments,
)
from tfmodernize.layout import depth, relaid, style_width
from tfmodernize.names import WholeNames
from tfmodernize.syntax import source, statement_holding
from tfmodernize.tfsymbols import TFNames, dotted_name
from tfmodernize.written_code import imports_only, template_statements, two_blank_lines


class ContribToSlim(WholeNames, TFCodemod):
    __doc__ = __doc__
    code = "TFM116"
    name = "contrib-to-slim"
    summary = (
        "tf.contrib.slim and the contrib layers, arg scopes, variables and metrics it "
        "re-exported -> the tf-slim package, the same code (the file stays on tf.compat.v1); "
        "batch_norm written in the file"
    )
    needles = ("contrib",)
    interests = (cst.Attribute, cst.Name)
    detects_tf_names_only = True
    #: After the migrations (they read contrib names as TF1 code), before compat-v1-import and
    #: compat-fallback (a file using tf-slim stays on tf.compat.v1).
    runs_before = ("TFM112", "TFM113")

    @classmethod
    def detect(cls, node: cst.CSTNode, names: TFNames) -> bool:
        symbol = names.tf_symbol(node)
        return symbol is not None and slim_home(symbol.path) is not None

    def plan(self, module: cst.Module) -> None:
        self._inner = set()
        self._reading = reading = Reading.start(module, self.tf)
        self._laid_out: set[int] = set()
        super().plan(module)
        reading.finish()
        wanted = reading.norms or reading.scopes or reading.nets
        self._norm = plan_batch_norm(module, reading) if wanted and not reading.problems else None
        learning = reading.learning and not reading.problems
        self._functions = plan_functions(module, reading, self._norm) if learning else Functions({})
        if reading.problems:
            for node, why in reading.problems:
                self.report(node, f"tf.contrib is gone from TF 2.x and this file is not moved to tf-slim: {why}")
            return
        self._rewrite_imports(module)
        self._rewrite_inline(module)
        self._import_submodules()
        statements = self._write_batch_norm(module, self._norm) if self._norm is not None else []
        statements += self._write_functions(module)
        if statements:
            self._insert_written(module, statements)

    def leave_whole_name(self, node: Union[cst.Attribute, cst.Name]) -> None:
        self._reading.read_name(node)

    # -- the rewrite ------------------------------------------------------------------------------

    def _rewrite_imports(self, module: cst.Module) -> None:
        """Each import statement binding tf-slim's contrib modules or names becomes the imports
        of tf-slim binding the same names (the other names it binds stay in it)."""
        by_statement: dict[int, list[Binding]] = {}
        for binding in self._reading.bindings.values():
            by_statement.setdefault(id(binding.statement), []).append(binding)
        for bindings in by_statement.values():
            statement = bindings[0].statement
            small = statement.body[0]
            lines = []
            for binding in bindings:
                found = slim_name(binding.path)
                line = found.imported_as(binding.local)
                if line not in lines and not self._in_file(found):
                    lines.append(line)
            moved = {binding.local for binding in bindings}
            first = bindings[0]
            if not self.fix(
                statement,
                f"tf.{first.path} is written in this file: tf-slim's does not run on TF 2.x"
                if self._in_file(slim_name(first.path))
                else f"tf.{first.path} is tf-slim's {slim_name(first.path).expression} "
                f"now (pip install {PACKAGE}): the same code, moved out of TensorFlow",
            ):
                continue
            new = [cst.parse_statement(line) for line in _merged(lines)]
            kept = (
                [alias for alias in small.names if local_name(alias) not in moved]
                if not isinstance(small.names, cst.ImportStar)
                else []
            )
            if kept:
                kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                new.insert(0, statement.with_changes(body=[small.with_changes(names=kept)]))
            if not new:  # it imported batch_norm alone
                self.remove(statement)
                continue
            new[0] = new[0].with_changes(leading_lines=statement.leading_lines)
            new[-1] = new[-1].with_changes(trailing_whitespace=statement.trailing_whitespace)
            self.replace(statement, cst.FlattenSentinel(new))

    def _import_submodules(self) -> None:
        """``import tf_slim.nets`` for each tf-slim module a name reaches through a module the
        file binds (``slim.nets.resnet_v1`` after ``import tf_slim as slim``), which importing
        the package does not load."""
        reads = list(self._reading.local_reads)
        for binding in self._reading.bindings.values():
            reads += [(binding.path, path) for _, path in binding.uses]
        for home, path in reads:
            own, found = slim_name(home), slim_name(path)
            if isinstance(own, SlimName) and own.is_module and isinstance(found, SlimName):
                if found.module.startswith(own.is_module + "."):
                    self.add_import(found.module)

    def _rewrite_inline(self, module: cst.Module) -> None:
        """``tf.contrib.layers.flatten`` -> ``tf_slim.flatten``; a module-level
        ``slim = tf.contrib.slim`` becomes ``import tf_slim as slim``."""
        assigned = module_assignments(module)
        scopes = {id(node) for node in self._reading.scopes}
        nets = {id(node) for node in self._reading.nets}
        for node, path in self._reading.inline:
            found = slim_name(path)
            if self._in_file(found):  # (the file's own batch_norm)
                continue
            if not self.fix(
                node,
                f"tf.{path} is tf-slim's {found.expression} now (pip install {PACKAGE}): "
                "the same code, moved out of TensorFlow",
            ):
                continue
            statement = assigned.get(id(node))
            if statement is not None and found.is_module is not None:
                target = statement.body[0].targets[0].target.value
                line = cst.parse_statement(found.imported_as(target))
                read = any(home == self._reading.local_modules.get(target) for home, _ in self._reading.local_reads)
                if not read and "__all__" not in self.state.text:  # (an alias it lists is exported)
                    # An alias nothing reads would be an unused import: it goes. One whose every
                    # read the file's own functions took over stays: the file stays on TF1 with
                    # tf-slim, as it did, and a second run leaves it so.
                    self._drop_if_unread(found.imported_as(target))
                self.replace(
                    statement,
                    line.with_changes(
                        leading_lines=statement.leading_lines, trailing_whitespace=statement.trailing_whitespace
                    ),
                )
                continue
            new = cst.parse_expression(found.expression)
            if self._norm is not None and self._norm.scope is not None and id(node) in scopes:
                new = _called(self._norm.scope, new)
            if self._norm is not None and self._norm.net is not None and id(node) in nets:
                new = _called(self._norm.net, new)
            self.replace(node, new)
            self.add_import(found.module)

    def _drop_if_unread(self, line: str) -> None:
        """The import ``line`` (of tf-slim, written by this rewrite) goes once the edits are made
        if nothing reads the name it binds."""
        small = cst.parse_statement(line).body[0]
        alias = small.names[0]
        asname = alias.asname.name.value if alias.asname is not None else None
        if isinstance(small, cst.Import):
            self.remove_import(dotted_name(alias.name), asname=asname)
        else:
            self.remove_import(dotted_name(small.module), dotted_name(alias.name), asname)

    def _in_file(self, found: "SlimName | NotInSlim | None") -> bool:
        """Whether ``found`` is a function written in this file (not one of tf-slim's)."""
        if written_in_the_file(found) is None:
            return False
        return found.origin in self._functions.names if found.origin in TEMPLATES else self._norm is not None

    def _write_batch_norm(self, module: cst.Module, norm: Norm) -> list[cst.CSTNode]:
        """The references point at the file's own batch_norm: its statements, to write after
        the imports."""
        written = False
        for node in self._reading.norms:
            if isinstance(node, cst.Name) and node.value == norm.name:
                written = True  # ``from tensorflow.contrib.layers import batch_norm``: same name
                continue
            if self.fix(
                node,
                f"`{source(node)}` is tf-slim's batch_norm, which does not run on TF 2.x: the "
                f"file's own `{norm.name}` now, the same function in TensorFlow ops (same "
                "variables and arguments)",
            ):
                self.replace(node, cst.Name(norm.name))
                self._lay_out(module, node)
                written = True
        inline = {id(node) for node, _ in self._reading.inline}
        # Arg scopes normalising with tf-slim's batch_norm, and nets calling it themselves: each
        # goes through its wrapper, which lends it the file's own batch_norm.
        wrapped = [
            (
                self._reading.scopes,
                norm.scope,
                "makes tf-slim's batch_norm, which does not run on TF 2.x, the normalizer of its "
                f"layers: through `{norm.scope}`, the file's own `{norm.name}` is",
            ),
            (
                self._reading.nets,
                norm.net,
                "calls tf-slim's batch_norm, which does not run on TF 2.x: through "
                f"`{norm.net}`, it calls the file's own `{norm.name}` instead while it builds",
            ),
        ]
        for nodes, wrapper, why in wrapped:
            for node in nodes:
                if id(node) in inline:  # (a name written out through tf: _rewrite_inline wraps it)
                    written = True
                elif self.fix(node, f"`{source(node)}` {why} (the same function in TensorFlow ops)"):
                    self.replace(node, lambda new, wrapper=wrapper: _called(wrapper, new))
                    self._lay_out(module, node)
                    written = True
        if not written:
            return []
        for node, argument in norm.renorm_unknown:
            self.report(
                node,
                f"`{argument}` gets a value known only when the program runs: the batch_norm "
                "written in this file computes tf-slim's with renorm=False only, and raises when "
                "it is true: normalize with tf.keras.layers.BatchNormalization(renorm=True) "
                "where you need it",
            )
        for call, names in norm.dropped:
            self.replace(call, lambda new, names=names: without_keywords(new, names))
            self._lay_out(module, call)
        if norm.tf is None:
            self.add_import("tensorflow.compat.v1", asname="tf")
        if norm.slim is None:
            self.add_import("tf_slim")
        tf, slim = norm.tf or "tf", norm.slim or "tf_slim"
        return helper_statements(norm.name, tf, slim, module, norm.scope, norm.net)

    def _write_functions(self, module: cst.Module) -> list[cst.CSTNode]:
        """The references point at the file's own functions (``Functions``): their
        statements, to write after the imports."""
        statements: list[cst.CSTNode] = []
        for origin, name in self._functions.names.items():
            written = False
            for node in self._reading.learning[origin]:
                if isinstance(node, cst.Name) and node.value == name:
                    written = True  # ``from tensorflow.contrib.slim.learning import ...``: same name
                elif self.fix(
                    node,
                    f"`{source(node)}` is tf-slim's {WRITTEN_IN_THE_FILE[origin]}, which does not run on "
                    f"TF 2.x: the file's own `{name}` now, the same function in TensorFlow ops",
                ):
                    self.replace(node, cst.Name(name))
                    self._lay_out(module, node)
                    written = True
            if written:
                statements += template_statements(TEMPLATES[origin], module, name=name, tf=self._functions.tf or "tf")
        if statements and self._functions.tf is None:
            self.add_import("tensorflow.compat.v1", asname="tf")
        return statements

    def _insert_written(self, module: cst.Module, statements: list[cst.CSTNode]) -> None:
        """The functions written in the file, after its imports (and the names they use)."""
        positions = [self._norm.position] if self._norm is not None else []
        position = max(positions + ([self._functions.position] if self._functions.names else []))
        if position == len(module.body):
            self.insert_after(module.body[-1], statements)
            return
        following = module.body[position]
        self.insert_before(following, statements)
        if not imports_only(following) and id(following) not in self._reading.module_lines:
            self.replace(following, two_blank_lines)

    def _lay_out(self, module: cst.Module, node: cst.CSTNode) -> None:
        """The statement holding ``node``, which the rewrite changed, in its author's layout:
        lines aligned to a bracket that moved follow it, and a line the rewrite made wider than
        the file's width is wrapped (a ``with`` statement's item too: ``layout.relaid``)."""
        parents = self.state.parents(module)
        statement = statement_holding(node, parents)
        if not isinstance(statement, (cst.SimpleStatementLine, cst.With)) or id(statement) in self._laid_out:
            return
        self._laid_out.add(id(statement))
        written = self.state.origin.get(statement, statement)
        limit, deep = style_width(self.state.text), depth(statement, parents)
        self.replace(statement, lambda updated: relaid(written, updated, limit, deep))


def _called(function: str, argument: cst.BaseExpression) -> cst.Call:
    """``function(argument)``."""
    return cst.Call(func=cst.Name(function), args=[cst.Arg(argument)])


def _merged(lines: list[str]) -> list[str]:
    """``from m import a`` and ``from m import b`` -> ``from m import a, b``, in first-seen order."""
    merged: dict[str, list[str]] = {}
    for line in lines:
        if line.startswith("from "):
            package, _, names = line[len("from ") :].partition(" import ")
            merged.setdefault(f"from {package} import ", []).append(names)
        else:
            merged.setdefault(line, [])
    return [head + ", ".join(names) if names else head for head, names in merged.items()]
