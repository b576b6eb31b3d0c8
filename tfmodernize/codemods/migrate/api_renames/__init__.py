"""TFM109 api-renames.

What it does
    Applies TensorFlow's own TF1 -> TF2 upgrade tables (those of ``tf_upgrade_v2``, generated
    into ``tfmodernize/data/`` and checked against TF 2.21), under any import alias and for
    names imported with ``from tensorflow import x``:

    * symbol renames (``tf.random_normal`` -> ``tf.random.normal``, ``tf.log`` ->
      ``tf.math.log``, ``tf.segment_sum`` -> ``tf.math.segment_sum``, ...);
    * contrib names TF 1.15 re-exported from TF's own TF1 API (``tf.contrib.tpu.rewrite`` ->
      ``tf.tpu.rewrite``, analysis/contrib.py ``REEXPORTED_TF1_API``): the same function, a TF1
      name, so compat-fallback keeps the file on ``tf.compat.v1``, where TF 2.x has it; an
      import of such a module or name (``from tensorflow.contrib import tpu``) is imported from
      ``tensorflow.compat.v1`` when every name the file reads through it is one of those;
    * keyword renames (``reduction_indices=``/``keep_dims=`` -> ``axis=``/``keepdims=``,
      ``dim=`` -> ``axis=``, ...), and positional arguments whose position changed become
      keywords first (the peer's reorders);
    * keyword deletions, only when the value passed is the one TF2 behaves as (the v1 default,
      or the value the peer's message says TF2 assumes); otherwise a finding;
    * the special calls that matter on TF 2.21: ``tf.to_float(x)`` and its siblings ->
      ``tf.cast(x, tf.float32)``, ``tf.nn.dropout(x, keep_prob)`` -> ``rate=1 - keep_prob``,
      ``tf.nn.softmax_cross_entropy_with_logits(labels=y, ...)`` -> labels wrapped in
      ``tf.stop_gradient`` (the v1 function did not back-propagate into labels),
      ``tf.zeros_like(..., optimize=True)`` and kin lose the argument.

    Names and calls whose meaning changed under the same spelling (``tf.nn.max_pool``,
    ``tf.where``, ``tf.nn.dropout``'s second argument, ``softmax_cross_entropy_with_logits``,
    reordered positional arguments) are rewritten or reported only in TF1 code: under a
    ``compat.v1`` import, or in a file that uses some TF1-only name or keyword elsewhere; in a
    file that already reads as TF2 they are TF2's and stay, silently.

    Targets inside ``tf.compat.v1`` are not applied: sessions, placeholders, optimizers,
    collections, variable scopes, layers, summaries, savers, flags and logging belong to the
    structural codemods; for any other such symbol (``tf.assert_equal``, ``tf.where``, ...) a
    finding says what the peer would do. ``tf.contrib.*`` gets a finding with the peer's
    message (and the TensorFlow Addons target where the peer names one), but for the names
    contrib-to-core (TFM115) replaces with core code or declines with its own finding; so do targets that no
    longer exist in TF 2.21. An import of a TF1 module that no TF 2.x install has, and that is no
    reason to keep a file on TF1 (``tensorflow.examples.tutorials.mnist``: it fails with or
    without compat.v1), gets a finding at the import saying what replaces it (Keras's MNIST
    loader, with what ``read_data_sets`` did: reshape, scaling, one-hot labels, the validation
    split and batches). Under ``import tensorflow.compat.v1 as tf`` only argument and name
    changes that lead to TF2 are made, spelled ``tf.compat.v2.X`` until compat-v1-import
    (TFM112) switches the import.

    A statement it rewrites keeps its author's layout (``tfmodernize.layout.relaid``):
    continuation lines aligned to a bracket the rename moved follow it (hanging indents stay),
    and a statement the rename made wider than the file's width is wrapped. Under a
    ``compat.v1`` alias, where the ``tf.compat.v2.X`` spelling is not final, the layout is left
    as it is.

    Deliberate differences from ``tf_upgrade_v2``:

    * it never rewrites to ``tf.compat.v1.*``: it leaves the code alone and reports instead,
      because code that still needs v1 is what this tool exists to remove;
    * renames whose target does not work on TF 2.21 are not applied: where the TF1 name still
      works (``tf.keras.optimizers.Adam``, which the peer sends to ``legacy.Adam``, a Keras 3
      placeholder that raises) nothing is said, otherwise a finding;
    * ``tf.set_random_seed`` becomes ``tf.random.set_seed`` (the peer keeps it on
      ``tf.compat.v1``), so that a program is not kept on v1 for its seed alone;
    * ``tf.image.resize_bilinear``/``resize_nearest_neighbor``/``resize_bicubic``/``resize_area``
      become the op each ran, ``tf.raw_ops.ResizeBilinear(images=..., size=...,
      align_corners=False, half_pixel_centers=False)`` and so on (TF2's ``tf.image.resize``
      uses half-pixel centres and gives different numbers; the peer keeps ``tf.compat.v1``);
      ``tf.image.resize_images`` too for the nearest-neighbour method of a batch the code shows
      is 4-D (other methods returned a same-size image unchanged, in its dtype, where the op
      returns float32); otherwise a finding;
    * ``variable.initialized_value()`` becomes ``variable.read_value()`` in a file that
      migrates (TF 2.x variables are initialised when made); in a file kept on TF1 it stays;
    * ``tf.div`` (Python 2 division: floor for integers) becomes ``tf.math.floordiv`` or
      ``tf.math.divide`` where the code says the first operand's dtype, which TF1 chose by
      (literals, ``tf.constant``, ``tf.placeholder(tf.float32)``, ``tf.cast``, float makers
      such as ``tf.random_normal``, ops that keep their input's dtype; the peer keeps
      ``tf.compat.v1.div``); otherwise a finding;
    * ``tf.random_normal_initializer``, ``random_uniform_initializer``, ``zeros_initializer``,
      ``ones_initializer`` and ``constant_initializer`` (and their ``tf.initializers.*`` names)
      become TF2's classes of the same name where those draw the same numbers (the peer keeps
      ``tf.compat.v1``): unseeded (TF2's seeded classes draw with stateless ops), TF1's defaults
      TF2 changed written out (``stddev=1.0``; ``minval=0.0, maxval=1.0``), a ``dtype`` dropped
      where it is float32 or the initializer is passed to a TF function making a variable (which
      calls it with the variable's dtype), a constant's value a number; otherwise a finding.
      ``tf.truncated_normal_initializer`` and the Glorot and variance-scaling initializers have no
      TF2 class drawing TF1's numbers (Keras's draw with their own seeds): a finding names the op
      that does, which get-variable-to-variable writes for the ``tf.get_variable`` it migrates;
    * the calls whose numbers change with the meaning (``tf.nn.dropout``'s second argument,
      initializers' defaults, ``softmax_cross_entropy_with_logits``' labels) are read as TF1's
      wherever the file was written as TF1 code, also once session-to-function took its TF1 names;
    * TF1 queues (``tf.FIFOQueue``, ...) are reported, not renamed to ``tf.queue.*``: run
      eagerly, a dequeue from an empty queue blocks forever;
    * a deleted keyword passed a value TF2 does not behave as (``tf.cond(..., strict=False)``)
      is reported, where the peer drops it silently;
    * ``*.minimize``/``*.compute_gradients`` keyword edits and ``dataset.make_*_iterator()``
      are left to minimize-to-tape and to the data codemods: they match methods by name only;
    * ``tf.name_scope(name)`` with just a name is TF2-compatible here (the peer falls back to
      v1 because of graph-mode scope re-entry, which does not change any computed value);
      TF1's ``tf.name_scope(name, default_name, values)`` becomes TF2's ``tf.name_scope`` of the
      name TF1 used (``scope if scope is not None else "Match"``; a literal ``None`` name: the
      default; ``values``, which only picked the graph, dropped when reading them does
      nothing), and where that is not proven (``values`` computed by a call, a name computed
      in the call) it is spelled ``tf.compat.v1.name_scope``, which TF 2.x has, with a
      finding, in a file headed for TF2 (the one rewrite to ``tf.compat.v1`` it makes: left
      as it was, the call would fail there);
    * calls with ``*args``/``**kwargs`` whose arguments would need rewriting are reported;
    * the same-name calls above are left alone in files with no other TF1 API (the peer
      assumes every input is TF1 and would, e.g., turn TF2's ``dropout(x, 0.2)`` into
      ``rate=1 - 0.2``), which also keeps the codemod idempotent.

Why it matters
    TF 2.x removed or moved about a thousand TF1 names and renamed many arguments; code using
    them fails with ``AttributeError``/``TypeError`` on TF 2.21. The renamed symbols compute
    the same values, which the numeric fixtures check.

Before
    import tensorflow as tf
    x = tf.random_normal([4, 3], seed=1)
    s = tf.reduce_sum(tf.to_float(x > 0), reduction_indices=1, keep_dims=True)

After
    import tensorflow as tf
    x = tf.random.normal([4, 3], seed=1)
    s = tf.reduce_sum(tf.cast(x > 0, tf.float32), axis=1, keepdims=True)

Fixtures: ``fixtures/api-renames/``.

Fix safety
    Renames come from TensorFlow's own upgrade tables, checked against the installed TF 2.21;
    keyword deletions only where the value passed is the one TF2 assumes; names whose meaning
    changed under the same spelling only in TF1 code. ``tf.div`` and resizes become the ops TF1
    ran for the operands the code shows (its dtype, read where the program as written had it).

Declines when
    a call passes ``*args``/``**kwargs`` whose names or order TF2 changed, a deleted keyword has a
    value TF2 does not assume, the code does not say ``tf.div``'s first operand's dtype, a
    ``tf.image.resize_images`` is not nearest-neighbour of a batch shown 4-D, an initializer is
    seeded, given a dtype TF2's class cannot take where it stands or a constant that is not a
    number, or the target exists only in ``tf.compat.v1`` (other codemods migrate those): a
    finding says what the peer would do, or what to do;
    ``tf.name_scope(name, default_name, values)`` whose TF2 form is not proven, in code that
    stays TF1 (in a file headed for TF2 it is spelled ``tf.compat.v1.name_scope``, with a finding).
"""

from __future__ import annotations

import re
from typing import Optional, Union

import libcst as cst

from tfmodernize.analysis.contrib import reexported_tf1_name
from tfmodernize.analysis.tables import tables
from tfmodernize.analysis.tf1_api import SHARED_INITIALIZERS
from tfmodernize.codemods.migrate.api_renames.policy import (
    CALL_REWRITES,
    DIVISIONS,
    GRAPH_ONLY,
    NAMES_DIV,
    RESIZE,
    gone_module,
    owner_of,
    rename_for,
)
from tfmodernize.codemods.migrate.api_renames.evidence import operand_kinds, tf1_evidence
from tfmodernize.analysis import tf_objects
from tfmodernize.codemods.migrate.absl_flags_logging import moves_to_absl
from tfmodernize.codemods.migrate.api_renames.call_plan import RenamesFile
from tfmodernize.codemods.migrate.api_renames.calls import plan_call
from tfmodernize.codemods.migrate.api_renames.contrib_imports import (
    ReexportedImport,
    all_read_through,
    from_v1,
    reexported_imports,
)
from tfmodernize.codemods.migrate.api_renames.findings import contrib_finding, v1_target_finding
from tfmodernize.codemod import Decline, TFCodemod
from tfmodernize.layout import depth, relaid, style_width
from tfmodernize.registry import find_codemod
from tfmodernize.names import WholeNames
from tfmodernize.syntax import statement_holding
from tfmodernize.tfsymbols import TFNames, dotted_name


#: The words a use of ``tf.app``, ``tf.flags`` or ``tf.logging`` takes (absl-flags-logging's).
ABSL_TEXT = re.compile(r"\b(app|flags|logging)\b")
IGNORE = "tfmodernize: ignore"


class ApiRenames(WholeNames, TFCodemod):
    __doc__ = __doc__
    code = "TFM109"
    name = "api-renames"
    summary = "TF1 symbol, keyword and argument-order renames from TensorFlow's own upgrade tables"
    interests = (cst.Attribute, cst.Name, cst.Call)
    detects_tf_names_only = True

    @classmethod
    def detect(cls, node: cst.CSTNode, names: TFNames) -> bool:
        if isinstance(node, cst.Call):
            symbol = names.tf_symbol(node.func)
            if symbol is None:
                return False
            t = tables()
            path = symbol.path
            return (
                path in t.keyword_renames or path in t.keyword_deletions or path in t.reorders or path in t.transformers
            )
        symbol = names.tf_symbol(node)
        if symbol is None:
            return False
        t = tables()
        return (
            t.rename_for(symbol.path) is not None
            or t.dead_for(symbol.path) is not None
            or symbol.path.startswith("contrib.")
            or gone_module(symbol.path) is not None
        )

    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            self._report_gone_module(node, dotted_name(alias.name))
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        if node.module is not None and not node.relative:
            module = dotted_name(node.module)
            names = [] if isinstance(node.names, cst.ImportStar) else [dotted_name(a.name) for a in node.names]
            for name in names or [""]:
                self._report_gone_module(node, f"{module}.{name}".rstrip("."))
        return False

    def _report_gone_module(self, node: cst.CSTNode, imported: str) -> None:
        """A finding at an import of a module no TF 2.x install has (``GONE_MODULES``), once per import."""
        if not imported.startswith("tensorflow."):
            return
        message = gone_module(imported.removeprefix("tensorflow."))
        if message is not None and id(node) not in self._gone_reported:
            self._gone_reported.add(id(node))
            self.report(node, message)

    def __init__(self, context, state=None) -> None:
        super().__init__(context, state)
        self._inner: set[int] = set()
        self._call_funcs: set[int] = set()
        self._frozen: set[int] = set()
        self._file: Optional[RenamesFile] = None  # what visit_Module reads of the file
        self._from_imported: dict[str, str] = {}
        self._reexported: dict[str, ReexportedImport] = {}
        self._gone_reported: set[int] = set()
        self._laid_out: set[int] = set()
        self._module: cst.Module = cst.Module(body=[])
        self._width = 0
        self._provisional = True

    # -- bookkeeping: which Name/Attribute nodes are whole symbols ----------------------------

    def visit_Module(self, node: cst.Module) -> bool:
        # Only TF1's ``div`` reads them, and naming it takes the word ``div`` (``tf.div``, an import).
        text = self.state.text
        div = ("div" in text and NAMES_DIV.search(text)) or "resize_images" in text
        kinds = operand_kinds(node, self.tf, self.state.parsed) if div else None
        # What absl-flags-logging, which runs next, moves to absl leaves no TF1 (a use silenced
        # by an ignore comment would stay: then nothing is assumed).

        def absl() -> frozenset[str]:  # asked only when nothing else settles the evidence
            moves = ABSL_TEXT.search(text) and IGNORE not in text
            return moves_to_absl(node, self.tf) if moves else frozenset()

        tf1_file, stays_tf1 = tf1_evidence(node, self.tf, kinds, absl)
        # Where an earlier codemod took the file's TF1 names (session-to-function its sessions
        # and placeholders), the names it left were written as TF1's all the same: the calls
        # that compute other numbers under TF2's meaning (dropout's keep_prob, initializers'
        # defaults) are read as TF1's.
        written_tf1 = tf1_file or (node is not self.state.parsed and tf1_evidence(self.state.parsed, self.tf, None)[0])
        # A file of a project kept on TF1 is kept on compat.v1 with it (compat-fallback).
        stays_tf1 = stays_tf1 or self.state.project_on_v1 is not None
        self._file = RenamesFile(
            tf=self.tf,
            tf_expr=self.tf_expr,
            tf1_file=tf1_file,
            written_tf1=written_tf1,
            stays_tf1=stays_tf1,
            operand_kinds=kinds,
            parent_of=lambda: self.state.parents(node),
        )
        self._from_imported = self.from_imports(node)
        # ``v.initialized_value()`` read the value once the variable was initialised; TF 2.x
        # variables are initialised when made, so it is their value: ``v.read_value()``. In a file
        # kept on TF1 the member stays (an initialiser run beside v's would read v uninitialised).
        self._initialized_values = (
            {
                id(attribute)
                for attribute, what in tf_objects.v1_only_members(node, self.tf)
                if what == "variable.initialized_value"
            }
            if "initialized_value" in self.state.text and not stays_tf1
            else set()
        )
        self._reexported = reexported_imports(node) if "contrib" in self.state.text else {}
        self._module = node
        self._width = style_width(self.state.text)
        # Under ``import tensorflow.compat.v1 as tf`` a TF2 name is written ``tf.compat.v2.X``,
        # which compat-v1-import shortens if the file switches: the layout is not final here.
        self._provisional = self.tf.tf2_prefix()[0].endswith(".compat.v2")
        return True

    def visit_Call(self, node: cst.Call) -> bool:
        self._call_funcs.add(id(node.func))
        symbol = self.tf.tf_symbol(node.func)
        if symbol is not None and self.suppressed(node):
            # Silenced on any of its lines: its name stays too, or the call would be half TF2.
            self._frozen.add(id(node.func))
        elif symbol is not None:
            try:
                plan_call(self._file, node, symbol)
            except Decline as decline:
                # Leave the whole call as it is, name included: never half-migrate a call.
                self._frozen.add(id(node.func))
                if not symbol.v1:
                    self.declined(decline)
        return True

    def leave_Call(self, original: cst.Call) -> None:
        if id(original.func) in self._initialized_values and not original.args:
            if self.fix(original, "a TF 2.x variable is initialised when made: its initialized_value is read_value"):
                self.replace(
                    original.func,
                    lambda updated: updated.with_changes(attr=updated.attr.with_changes(value="read_value")),
                )
            return
        if id(original.func) in self._frozen:
            return
        symbol = self.tf.tf_symbol(original.func)
        if symbol is None:
            return
        rewrite = plan_call(self._file, original, symbol)
        if rewrite is None or not self.fix(original, rewrite.message):
            return
        self.replace(original, rewrite.build)
        self.lay_out(original)
        self._drop_import(original.func)  # goes only if nothing reads the name any more
        if rewrite.left is not None:
            self.report(original, rewrite.left)

    # -- symbols --------------------------------------------------------------------------------

    def leave_whole_name(self, original: Union[cst.Attribute, cst.Name]) -> None:
        if id(original) in self._frozen:
            return
        symbol = self.tf.tf_symbol(original)
        if symbol is None:
            return
        path = symbol.path
        t = tables()
        called = id(original) in self._call_funcs
        transformer = t.transformers.get(path, {}).get("kind")
        rewritten_calls = transformer in CALL_REWRITES or path in RESIZE or path in DIVISIONS
        if called and (rewritten_calls or path in SHARED_INITIALIZERS):
            return  # the call handles it
        if path in RESIZE or transformer in CALL_REWRITES:
            if not symbol.v1:
                self.report(
                    original,
                    f"tf.{path} used as a value: call sites are migrated one by one, this reference is left for you",
                )
            return
        if path in GRAPH_ONLY:
            if not symbol.v1:
                self.report(original, f"tf.{path} is not renamed to its TF2 name: {GRAPH_ONLY[path]}")
            return
        renamed = rename_for(path)
        if renamed is not None:
            key, target = renamed
            tf1 = symbol.v1 or (self._file.tf1_file and not symbol.v2)
            if not (tf1 or tables().tf1_only(key)):
                return  # a name TF2 has too, in a file that reads as TF2: TF2's meaning
            tf1_name = reexported_tf1_name(key, target)
            root = original
            while isinstance(root, cst.Attribute):
                root = root.value
            imported = self._reexported.get(root.value) if isinstance(root, cst.Name) else None
            if tf1_name is not None and imported is not None:
                # Read through ``from tensorflow.contrib import tpu``: the import moves to
                # compat.v1 if every name read through it is such a name (``leave_Module``).
                imported.uses.append((original, key, target))
                return
            if tf1_name is not None and self.tf.qualify(root) in ("tensorflow", "tensorflow.compat.v1"):
                # TF 1.15's contrib re-exported TF's own function: the file (TF1 code, kept on
                # compat.v1 for it by compat-fallback) names it where TensorFlow 2.x still has it.
                if self.fix(original, f"tf.{key} is TF1's tf.{tf1_name} (contrib re-exported it)"):
                    self.replace(original, cst.parse_expression(f"{root.value}.{tf1_name}"))
                    self.lay_out(original)
                return
            if target.startswith("compat.v1."):
                self._say(original, v1_target_finding(symbol, key, target))
                return
            if not self.fix(original, f"tf.{key} is tf.{target} in TF2"):
                return
            self._drop_import(original)
            # In code that stays TF1 elsewhere (and so is kept on compat.v1 by compat-fallback),
            # a plain ``tf.argmax`` would read as TF1's own argmax on the next run or under the
            # compat.v1 import: a TF2 name written there says it is TF2's, ``tf.compat.v2.X``.
            self.replace(original, self.tf_expr(target, spell_v2=self._file.stays_tf1))
            self.lay_out(original)
        dead = t.dead_for(path)
        if dead is not None:
            owner = owner_of(path)
            if not symbol.v1 and (owner is None or find_codemod(owner) is None):
                key, target = dead
                self.report(
                    original,
                    f"tf_upgrade_v2 maps tf.{key} to tf.{target}, which does not exist in "
                    f"TensorFlow {t.tensorflow_version}: migrate by hand",
                )
            return
        if path.startswith("contrib."):
            self._say(original, contrib_finding(path))
        return

    def leave_Module(self, original: cst.Module) -> None:
        for imported in {id(i): i for i in self._reexported.values()}.values():
            if all_read_through(original, imported):
                path = imported.first_path
                v1_path = path.removeprefix("contrib.")
                message = (
                    f"tf.{path} is TF1's tf.compat.v1.{v1_path} for the names this file reads "
                    "(TF 1.15's contrib re-exported them): imported from there"
                )
                if self.fix(imported.statement, message):
                    self.replace(imported.statement, from_v1(imported))
                continue
            for node, key, target in imported.uses:
                self._say(node, v1_target_finding(self.tf.tf_symbol(node), key, target))

    def _say(self, node: cst.CSTNode, finding: Optional[str]) -> None:
        if finding is not None:
            self.report(node, finding)

    def lay_out(self, node: cst.CSTNode) -> None:
        """Keep the layout of the statement holding ``node``, which this codemod rewrites: lines
        aligned to a bracket the rewrite moved follow it, and it is wrapped if it became wider
        than the file's width (``layout.relaid``)."""
        if self._provisional:
            return
        parents = self.state.parents(self._module)
        statement = statement_holding(node, parents)
        if not isinstance(statement, cst.SimpleStatementLine) or id(statement) in self._laid_out:
            return
        self._laid_out.add(id(statement))
        written = self.state.origin.get(statement, statement)
        limit, deep = self._width, depth(statement, parents)
        self.replace(statement, lambda updated: relaid(written, updated, limit, deep))

    def _drop_import(self, replaced: cst.BaseExpression) -> None:
        """Drop ``from tensorflow... import x`` once the replaced expression was its last use."""
        self.drop_from_import_of(replaced, self._from_imported)
