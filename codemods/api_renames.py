"""TFM109 api-renames.

What it does
    Applies TensorFlow's own TF1 -> TF2 upgrade tables (those of ``tf_upgrade_v2``, generated
    into ``tfmodernize/data/`` and checked against TF 2.21), under any import alias and for
    names imported with ``from tensorflow import x``:

    * symbol renames (``tf.random_normal`` -> ``tf.random.normal``, ``tf.log`` ->
      ``tf.math.log``, ``tf.segment_sum`` -> ``tf.math.segment_sum``, ...);
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
    message (and the TensorFlow Addons target where the peer names one); so do targets that no
    longer exist in TF 2.21. Under ``import tensorflow.compat.v1 as tf`` only argument and name
    changes that lead to TF2 are made, spelled ``tf.compat.v2.X`` until compat-v1-import
    (TFM112) switches the import.

    Deliberate differences from ``tf_upgrade_v2``:

    * it never rewrites to ``tf.compat.v1.*``: it leaves the code alone and reports instead,
      because code that still needs v1 is what this tool exists to remove;
    * renames whose target does not work on TF 2.21 are not applied: where the TF1 name still
      works (``tf.keras.optimizers.Adam``, which the peer sends to ``legacy.Adam``, a Keras 3
      placeholder that raises) nothing is said, otherwise a finding;
    * ``tf.set_random_seed`` becomes ``tf.random.set_seed`` (the peer keeps it on
      ``tf.compat.v1``), so that a program is not kept on v1 for its seed alone;
    * ``tf.image.resize_images``/``resize_bilinear``/... are reported, not renamed: TF2's
      ``tf.image.resize`` uses half-pixel centres and gives different numbers;
    * ``tf.div`` (Python 2 division: floor for integers) becomes ``tf.math.floordiv`` or
      ``tf.math.divide`` where its operands are literals that say their dtype (the peer keeps
      ``tf.compat.v1.div``); otherwise a finding;
    * TF1 queues (``tf.FIFOQueue``, ...) are reported, not renamed to ``tf.queue.*``: run
      eagerly, a dequeue from an empty queue blocks forever;
    * a deleted keyword passed a value TF2 does not behave as (``tf.cond(..., strict=False)``)
      is reported, where the peer drops it silently;
    * ``*.minimize``/``*.compute_gradients`` keyword edits and ``dataset.make_*_iterator()``
      are left to minimize-to-tape and to the data codemods: they match methods by name only;
    * ``tf.name_scope(name)`` with just a name is TF2-compatible here (the peer falls back to
      v1 because of graph-mode scope re-entry, which does not change any computed value);
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
    changed under the same spelling only in TF1 code.

Declines when
    a call passes ``*args``/``**kwargs`` whose names or order TF2 changed, a deleted keyword has a
    value TF2 does not assume, ``tf.div``'s dtype is not written, or the target exists only in
    ``tf.compat.v1`` (other codemods migrate those): a finding says what the peer would do.
"""

from __future__ import annotations

import re
from typing import Callable, Optional, Union

import libcst as cst

from tfmodernize.names import names_bound_here
from tfmodernize.treewalk import children, walk

from tfmodernize.codemods._upgrade_tables import (
    has_star_args,
    is_stop_gradient,
    keyword_names,
    literal_text,
    positional_count,
    tables,
    v1_requirement,
)
from tfmodernize.codemod import Decline, TFCodemod, find_codemod
from tfmodernize.tfsymbols import TFNames, TFSymbol, import_bindings, root_name
from tfmodernize.syntax import argument

#: Which structural codemod (by name) owns the TF1 constructs whose peer target is
#: ``tf.compat.v1``: while it is in the catalogue, this codemod stays quiet about them.
OWNERS = {
    "session-to-function": (
        "Session", "InteractiveSession", "placeholder", "placeholder_with_default", "ConfigProto",
        "GPUOptions", "global_variables_initializer", "local_variables_initializer",
        "initialize_all_variables", "initialize_local_variables", "variables_initializer",
        "reset_default_graph", "get_default_graph", "tables_initializer", "get_default_session",
    ),
    "minimize-to-tape": ("train.Optimizer", "train.get_or_create_global_step", "train.get_global_step"),
    "collections-to-tracking": (
        "get_collection", "get_collection_ref", "add_to_collection", "add_to_collections",
        "trainable_variables", "global_variables", "local_variables", "all_variables", "GraphKeys",
        "model_variables", "moving_average_variables",
    ),
    "get-variable-to-variable": ("get_variable", "variable_scope", "get_variable_scope", "AUTO_REUSE"),
    "layers-to-keras": ("layers",),
    "summary-v2": ("summary",),
    "saver-to-checkpoint": ("train.Saver", "train.Checkpoint"),
    "absl-flags-logging": ("app", "flags", "logging"),
}

_CAST_DTYPES = {"float": "float32", "double": "float64"}
#: Renames where this codemod deliberately departs from the peer, which sends these to
#: ``tf.compat.v1``: TF2 has a name that does the same job, and keeping the v1 name would keep a
#: whole program on v1 for it. ``tf.random.set_seed`` sets the graph-level seed in graph mode, as
#: ``set_random_seed`` did, and the global seed in eager code; op seeds derive from it as in TF1.
OVERRIDES = {"set_random_seed": "random.set_seed"}
#: TF1 names that divide as Python 2 did (floor division for integers, true division for
#: floating values) and the TF2 name for each kind of operand, decided from literal operands.
DIVISIONS = {"div": {"int": "math.floordiv", "float": "math.divide"}}
_NAMES_DIV = re.compile(r"\bdiv\b")
#: TF1 names whose TF2 spelling the peer gives, but whose ops only work in a graph: run eagerly,
#: a dequeue from an empty queue blocks forever instead of failing. Not renamed; reported.
GRAPH_ONLY = {
    name: "queues block forever when run eagerly (a dequeue waits for an enqueue that never comes); "
          "build the input pipeline with tf.data instead"
    for name in ("FIFOQueue", "RandomShuffleQueue", "PaddingFIFOQueue", "PriorityQueue", "QueueBase")
}
#: Peer transformers whose TF2 target needs the call rewritten as a whole (name and arguments).
_CALL_REWRITES = ("cast_transformer", "add_summary_recording_cond_transformer")
#: Peer transformers whose TF2 target computes different numbers (measured: half-pixel centres).
_RESIZE = ("image.resize_images", "image.resize_area", "image.resize_bicubic",
           "image.resize_bilinear", "image.resize_nearest_neighbor")


def owner_of(path: str) -> Optional[str]:
    for owner, prefixes in OWNERS.items():
        for prefix in prefixes:
            if path == prefix or path.startswith(prefix + ".") or (
                prefix == "train.Optimizer" and path.startswith("train.") and path.endswith("Optimizer")
            ):
                return owner
    return None


def _parenthesized(node: cst.BaseExpression) -> cst.BaseExpression:
    atomic = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float, cst.SimpleString)
    if isinstance(node, atomic) or node.lpar:
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _keyword(name: str, value: cst.BaseExpression, like: Optional[cst.Arg] = None) -> cst.Arg:
    arg = cst.Arg(value=value, keyword=cst.Name(name), equal=cst.AssignEqual(
        whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))
    if like is not None:
        arg = arg.with_changes(comma=like.comma, whitespace_after_arg=like.whitespace_after_arg)
    return arg


class ApiRenames(TFCodemod):
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
            return (path in t.keyword_renames or path in t.keyword_deletions
                    or path in t.reorders or path in t.transformers)
        symbol = names.tf_symbol(node)
        if symbol is None:
            return False
        t = tables()
        return (t.rename_for(symbol.path) is not None or t.dead_for(symbol.path) is not None
                or symbol.path.startswith("contrib."))

    def __init__(self, context, state=None) -> None:
        super().__init__(context, state)
        self._inner: set[int] = set()
        self._call_funcs: set[int] = set()
        self._frozen: set[int] = set()
        self._tf1_file = False
        self._stays_tf1 = False
        self._from_imported: dict[str, str] = {}

    # -- bookkeeping: which Name/Attribute nodes are whole symbols ----------------------------

    def visit_Module(self, node: cst.Module) -> bool:
        # Only TF1's ``div`` reads them, and naming it takes the word ``div`` (``tf.div``, an import).
        self._constant_kinds = _constant_kinds(node, self.tf) if _NAMES_DIV.search(self.state.text) else {}
        self._tf1_file, self._stays_tf1 = _tf1_evidence(node, self.tf, self._constant_kinds)
        self._from_imported = {
            local: qualified
            for statement in node.body if isinstance(statement, cst.SimpleStatementLine)
            for small in statement.body if isinstance(small, cst.ImportFrom)
            for local, qualified in import_bindings(small)
        }
        return True

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        self._inner.add(id(node.value))
        self._inner.add(id(node.attr))
        return True

    def visit_Arg(self, node: cst.Arg) -> bool:
        if node.keyword is not None:
            self._inner.add(id(node.keyword))
        return True

    def visit_Call(self, node: cst.Call) -> bool:
        self._call_funcs.add(id(node.func))
        symbol = self.tf.tf_symbol(node.func)
        if symbol is not None and self.suppressed(node):
            # Silenced on any of its lines: its name stays too, or the call would be half TF2.
            self._frozen.add(id(node.func))
        elif symbol is not None:
            try:
                self._plan(node, symbol)
            except Decline as decline:
                # Leave the whole call as it is, name included: never half-migrate a call.
                self._frozen.add(id(node.func))
                if not symbol.v1:
                    self.declined(decline)
        return True

    # -- symbols --------------------------------------------------------------------------------

    def leave_Attribute(self, original: cst.Attribute) -> None:
        self._leave_symbol(original)

    def leave_Name(self, original: cst.Name) -> None:
        self._leave_symbol(original)

    def _leave_symbol(self, original: Union[cst.Attribute, cst.Name]) -> None:
        if id(original) in self._inner or id(original) in self._frozen:
            return
        symbol = self.tf.tf_symbol(original)
        if symbol is None:
            return
        path = symbol.path
        t = tables()
        called = id(original) in self._call_funcs
        transformer = t.transformers.get(path, {}).get("kind")
        if called and (transformer in _CALL_REWRITES or path in _RESIZE or path in DIVISIONS):
            return  # the call handles it
        if path in _RESIZE or transformer in _CALL_REWRITES:
            if not symbol.v1:
                self.report(original, f"tf.{path} used as a value: call sites are migrated one by one, "
                                      "this reference is left for you")
            return
        if path in GRAPH_ONLY:
            if not symbol.v1:
                self.report(original, f"tf.{path} is not renamed to its TF2 name: {GRAPH_ONLY[path]}")
            return
        renamed = _rename_for(path)
        if renamed is not None:
            key, target = renamed
            tf1 = symbol.v1 or (self._tf1_file and not symbol.v2)
            if not (tf1 or tables().tf1_only(key)):
                return  # a name TF2 has too, in a file that reads as TF2: TF2's meaning
            if target.startswith("compat.v1."):
                self._report_v1_target(original, symbol, key, target)
                return
            if not self.fix(original, f"tf.{key} is tf.{target} in TF2"):
                return
            self._drop_import(original)
            # In code that stays TF1 elsewhere (and so is kept on compat.v1 by compat-fallback),
            # a plain ``tf.argmax`` would read as TF1's own argmax on the next run or under the
            # compat.v1 import: a TF2 name written there says it is TF2's, ``tf.compat.v2.X``.
            self.replace(original, self.tf_expr(target, spell_v2=self._stays_tf1))
        dead = t.dead_for(path)
        if dead is not None:
            owner = owner_of(path)
            if not symbol.v1 and (owner is None or find_codemod(owner) is None):
                key, target = dead
                self.report(original, f"tf_upgrade_v2 maps tf.{key} to tf.{target}, which does not exist in "
                                      f"TensorFlow {t.tensorflow_version}: migrate by hand")
            return
        if path.startswith("contrib."):
            self._report_contrib(original, path)
        return

    def _report_v1_target(self, node: cst.CSTNode, symbol: TFSymbol, key: str, target: str) -> None:
        if symbol.v1:
            return  # already spelled through compat.v1: compat-v1-import lists it
        owner = owner_of(symbol.path)
        if owner is not None and find_codemod(owner) is not None:
            return
        # The peer's note, without its account of its own compat.v1 rewrite.
        message = tables().messages.get(key, {}).get("message", "").split("\n")[0]
        message = message.replace("<function name>", f"tf.{key}")
        self.report(node, f"tf.{key} has no TF2 equivalent that behaves the same; tf_upgrade_v2 would "
                          f"use tf.{target}. {message}".strip())

    def _report_contrib(self, node: cst.CSTNode, path: str) -> None:
        t = tables()
        addon = t.addons.get(path)
        if addon is not None:
            self.report(node, f"tf.{path} is gone from TF2; TensorFlow Addons has {addon} (the API may differ)")
            return
        message = t.messages.get(path, {}).get("message") or t.module_message(path) or "tf.contrib is gone from TF2"
        self.report(node, message.replace("<function name>", f"tf.{path}"))

    def _drop_import(self, replaced: cst.BaseExpression) -> None:
        """Drop ``from tensorflow... import x`` once the replaced expression was its last use."""
        root = root_name(replaced)
        if root is None or root.value not in self._from_imported:
            return
        module, _, obj = self._from_imported[root.value].rpartition(".")
        self.remove_import(module, obj, asname=root.value if root.value != obj else None)

    # -- calls ----------------------------------------------------------------------------------

    def leave_Call(self, original: cst.Call) -> None:
        if id(original.func) in self._frozen:
            return
        symbol = self.tf.tf_symbol(original.func)
        if symbol is None:
            return
        plan = self._plan(original, symbol)
        if plan is None:
            return
        message, build = plan
        if not self.fix(original, message):
            return
        self.replace(original, build)
        self._drop_import(original.func)  # goes only if nothing reads the name any more

    def _plan(self, call: cst.Call, symbol: TFSymbol) -> Optional[tuple[str, Callable[[cst.Call], cst.Call]]]:
        """``(message, build)`` for a call that needs rewriting, None if none; raises Decline."""
        t = tables()
        path = symbol.path
        transformer = t.transformers.get(path, {})
        kind = transformer.get("kind")
        if path in _RESIZE:
            raise Decline(call, f"tf.{path}: TF2's tf.image.resize samples at half-pixel centres and gives other "
                            "numbers; keep tf.compat.v1.image.* or resize with the new semantics by hand")
        if kind == "cast_transformer":
            return self._cast_plan(call, path)
        if path in DIVISIONS:
            return self._division_plan(call, path)
        if kind == "add_summary_recording_cond_transformer":
            return self._recording_plan(call, path, transformer["cond"])
        # Same name, other meaning in TF1 and TF2: only where the code is TF1 code.
        tf1 = symbol.v1 or (self._tf1_file and not symbol.v2)
        edits = []
        if has_star_args(call) and (path in t.reorders or path in t.keyword_renames
                                    or path in t.keyword_deletions or kind):
            raise Decline(call, f"tf.{path} is called with *args/**kwargs whose names or order TF2 changed: "
                            "migrate this call by hand")
        order = t.reorders.get(path) if tf1 or tables().tf1_only(path) else None
        if order is not None and positional_count(call) > order["positional"]:
            if positional_count(call) > order["positional"] + len(order["keywords"]):
                raise Decline(call, f"tf.{path} is called with more positional arguments than it takes")
            edits.append(("reorder", order))
        renames = t.keyword_renames.get(path, {})
        deletions = t.keyword_deletions.get(path, {})
        passed = {arg.keyword.value: arg for arg in call.args if arg.keyword is not None}
        if order is not None and edits:
            start = order["positional"]
            for index, arg in enumerate(a for a in call.args if a.keyword is None):
                if index >= start:
                    passed[order["keywords"][index - start]] = arg
        for old, entry in deletions.items():
            if old in passed and not self._deletable(entry, passed[old].value):
                message = entry.get("message") or f"TF2 has no `{old}` argument"
                raise Decline(call, f"tf.{path}({old}=...): {message.replace('<function name>', f'tf.{path}')} "
                                "This value is not the one TF2 behaves as: migrate by hand")
        for old, new in renames.items():
            if old in passed and new in passed:
                raise Decline(call, f"tf.{path} is passed both {old}= and {new}=")
        if order is not None and edits:
            moved = order["keywords"][: positional_count(call) - order["positional"]]
            clash = [name for name in moved if name in renames and order["positional"]
                     and renames[name] not in order["keywords"]]
            if clash:
                # ``reduce_sum(x, None, False, 'n', 1)``: the TF2 name of the 5th argument is the
                # 2nd parameter, which the call already fills positionally.
                raise Decline(call, f"tf.{path}: positional {clash[0]} would become {renames[clash[0]]}=, which an "
                                "earlier positional argument already fills: pass it by keyword")
        if set(passed) & (set(renames) | set(deletions)):
            edits.append(("keywords", renames, deletions))
        if kind == "dropout_transformer" and tf1:
            if positional_count(call) >= 2 or "keep_prob" in passed:
                edits.append(("dropout",))
        elif kind == "softmax_cross_entropy_with_logits_transformer" and tf1:
            labels = passed.get("labels")
            if labels is None:
                raise Decline(call, f"tf.{path} without labels=: cannot tell which argument to stop gradients on")
            if not is_stop_gradient(labels.value, self.tf):
                edits.append(("stop_gradient",))
        elif kind == "rename_if_arg_found_transformer":
            arg = next((a for a in call.args if a.keyword is not None
                        and a.keyword.value == transformer["arg_name"]), None)
            if arg is not None:
                if not self._arg_ok(transformer["ok"], arg.value):
                    raise Decline(call, transformer["message"].replace("converted to compat.v1", "left unchanged"))
                if transformer["remove_if_ok"]:
                    edits.append(("drop", transformer["arg_name"]))
        elif kind == "add_argument_transformer" and not path.startswith("keras."):
            # tf.nn.dilation2d/erosion2d: TF2 requires data_format; TF1 only knew NHWC.
            if positional_count(call) > 3:
                raise Decline(call, f"tf.{path}: positional arguments after strides changed order in TF2 "
                                "(rates/dilations and padding swapped): pass them by keyword")
            if transformer["arg_name"] not in passed:
                edits.append(("add", transformer["arg_name"], transformer["value"]))
        elif kind not in (None, "dropout_transformer", "softmax_cross_entropy_with_logits_transformer") \
                and not symbol.v1 and not path.startswith("contrib."):
            reason = v1_requirement(path, call, self.tf)
            if reason is not None and t.rename_for(path) is None:
                raise Decline(call, f"tf.{path}: {reason}; tf_upgrade_v2 handles it with its {kind}: migrate by hand")
        if not edits:
            return None
        target = self._target(path)

        def build(updated: cst.Call) -> cst.Call:
            for edit in edits:
                updated = self._apply(edit, updated)
            if (symbol.v1 or self._stays_tf1) and target is not None:
                # v2 arguments in code read as v1: name the v2 function explicitly.
                updated = updated.with_changes(func=self.tf_expr(target, spell_v2=self._stays_tf1))
            return updated

        names = ", ".join(sorted({e[0] for e in edits}))
        return f"tf.{path}: TF2 arguments ({names})", build

    def _target(self, path: str) -> Optional[str]:
        renamed = _rename_for(path)
        if renamed is None:
            return path
        return None if renamed[1].startswith("compat.v1.") else renamed[1]

    @staticmethod
    def _deletable(entry: dict, value: cst.BaseExpression) -> bool:
        text = literal_text(value)
        if text is None:
            return False
        behaves_as = entry.get("behaves_as")
        safe = set()
        if behaves_as is not None:
            safe.add(behaves_as)
        if "v1_default" in entry and (behaves_as is None or entry.get("level") == "info"):
            safe.add(entry["v1_default"])
        if entry.get("level") in ("warning", "error") and behaves_as is None:
            return False
        return text in safe

    @staticmethod
    def _arg_ok(ok: str, value: cst.BaseExpression) -> bool:
        if ok == "str":
            return isinstance(value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString))
        return isinstance(value, cst.Name) and value.value == ok

    def _apply(self, edit: tuple, call: cst.Call) -> cst.Call:
        kind = edit[0]
        if kind == "reorder":
            order = edit[1]
            args, index = [], 0
            for arg in call.args:
                if arg.keyword is None and not arg.star:
                    if index >= order["positional"]:
                        arg = _keyword(order["keywords"][index - order["positional"]], arg.value, arg)
                    index += 1
                args.append(arg)
            return call.with_changes(args=_fix_commas(args, call.args))
        if kind == "keywords":
            renames, deletions = edit[1], edit[2]
            args = []
            for arg in call.args:
                if arg.keyword is not None and arg.keyword.value in deletions:
                    continue
                if arg.keyword is not None and arg.keyword.value in renames:
                    arg = arg.with_changes(keyword=cst.Name(renames[arg.keyword.value]))
                args.append(arg)
            return call.with_changes(args=_fix_commas(args, call.args))
        if kind == "drop":
            args = [a for a in call.args if a.keyword is None or a.keyword.value != edit[1]]
            return call.with_changes(args=_fix_commas(args, call.args))
        if kind == "stop_gradient":
            args = [
                a.with_changes(value=cst.Call(func=self.tf_expr("stop_gradient"), args=[cst.Arg(a.value)]))
                if a.keyword is not None and a.keyword.value == "labels" else a
                for a in call.args
            ]
            return call.with_changes(args=args)
        if kind == "dropout":
            return self._dropout(call)
        if kind == "add":
            added = _keyword(edit[1], cst.parse_expression(edit[2]))
            return call.with_changes(args=_fix_commas([*call.args, added], call.args))
        raise AssertionError(kind)

    def _dropout(self, call: cst.Call) -> cst.Call:
        """``keep_prob`` (2nd positional or keyword) -> ``rate=1 - keep_prob``; later positionals
        (noise_shape, seed, name: same order in TF2) become keywords so they can follow it."""
        later = ("noise_shape", "seed", "name")
        args, index = [], 0
        rate = None
        for arg in call.args:
            if arg.keyword is None and not arg.star:
                if index == 1:
                    rate = arg
                elif index >= 2:
                    args.append(_keyword(later[index - 2], arg.value, arg))
                else:
                    args.append(arg)
                index += 1
            elif arg.keyword is not None and arg.keyword.value == "keep_prob":
                rate = arg
            else:
                args.append(arg)
        assert rate is not None
        value = cst.BinaryOperation(left=cst.Integer("1"), operator=cst.Subtract(), right=_parenthesized(rate.value))
        position = 1 if rate.keyword is None else len(args)
        args.insert(position, _keyword("rate", value, rate))
        return call.with_changes(args=_fix_commas(args, call.args))

    def _recording_plan(self, call: cst.Call, path: str, condition: str) -> tuple[str, Callable[[cst.Call], cst.Call]]:
        """``tf.contrib.summary.always_record_summaries()`` -> ``tf.summary.record_if(True)``."""
        if call.args:
            raise Decline(call, f"tf.{path} takes no arguments: migrate this call by hand")
        target = tables().renames[path]

        def build(updated: cst.Call) -> cst.Call:
            return updated.with_changes(func=self.tf_expr(target, spell_v2=self._stays_tf1),
                                        args=[cst.Arg(cst.Name(condition))])

        return f"tf.{path}() is tf.{target}({condition}) in TF2", build

    def _cast_plan(self, call: cst.Call, path: str) -> tuple[str, Callable[[cst.Call], cst.Call]]:
        dtype = path[len("to_"):]
        dtype = _CAST_DTYPES.get(dtype, dtype)
        positional = [a for a in call.args if a.keyword is None]
        keywords = {a.keyword.value: a for a in call.args if a.keyword is not None}
        if has_star_args(call) or len(positional) > 2 or set(keywords) - {"x", "name"}:
            raise Decline(call, f"tf.{path}: unusual arguments; write tf.cast(x, tf.{dtype}) by hand")
        value = positional[0] if positional else keywords.get("x")
        if value is None:
            raise Decline(call, f"tf.{path} without an argument")
        name = positional[1] if len(positional) > 1 else keywords.get("name")

        def build(updated: cst.Call) -> cst.Call:
            args = [cst.Arg(value=_arg_value(updated, value, call), keyword=value.keyword, equal=value.equal),
                    cst.Arg(value=self.tf_expr(dtype))]
            if name is not None:
                args.append(_keyword("name", _arg_value(updated, name, call)))
            if value.keyword is not None:
                args[1] = _keyword("dtype", args[1].value, args[1])
            return updated.with_changes(func=self.tf_expr("cast"), args=_fix_commas(args, call.args))

        return f"tf.{path}(x) is tf.cast(x, tf.{dtype}) in TF2", build


    def _division_plan(self, call: cst.Call, path: str) -> tuple[str, Callable[[cst.Call], cst.Call]]:
        """``tf.div(3, 4)`` -> ``tf.math.floordiv(3, 4)``; ``tf.div(3.0, 4)`` -> ``tf.math.divide``:
        TF1 chose by the dtype of the first operand (the second is converted to it)."""
        operand = _division_operand(call, self._constant_kinds)
        if operand is None:
            raise Decline(call, f"tf.{path} divides as Python 2 did (floor division for integer tensors, true "
                            "division for floating ones) and the operands' dtype is not written here: use "
                            "tf.math.floordiv or tf.math.divide, whichever your dtype asks for")
        target = DIVISIONS[path][operand]

        def build(updated: cst.Call) -> cst.Call:
            return updated.with_changes(func=self.tf_expr(target, spell_v2=self._stays_tf1))

        return f"tf.{path} of {operand} literals is tf.{target} in TF2", build


def _division_operand(call: cst.Call, constants: dict[str, str]) -> Optional[str]:
    """``int`` or ``float``: what ``tf.div``'s first operand is, when both are numeric literals
    (or lists of them) that TF1 converts to one dtype, or names only ever bound to
    ``tf.constant`` of such literals (``constants``); None when the code does not say."""
    if has_star_args(call):
        return None
    x, y = argument(call, 0, "x"), argument(call, 1, "y")

    def kind(operand: Optional[cst.BaseExpression]) -> Optional[str]:
        if isinstance(operand, cst.Name):
            return constants.get(operand.value)
        return _literal_kind(operand) if operand is not None else None

    kinds = [kind(x), kind(y)]
    if kinds[0] == "int" and kinds[1] == "int":
        return "int"
    if kinds[0] == "float" and kinds[1] is not None:
        return "float"
    return None


def _constant_kinds(module: cst.Module, names: TFNames) -> dict[str, str]:
    """Names every binding of which is ``tf.constant(<int or float literal>)`` (its dtype
    unwritten, or written as an integer or floating dtype): name -> ``int`` or ``float``."""
    kinds: dict[str, set[Optional[str]]] = {}
    read: set[int] = set()
    for node in walk(module, code_only=True):
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            kinds.setdefault(node.targets[0].target.value, set()).add(_constant_kind(node.value, names))
            read.add(id(node.targets[0]))
            continue
        if id(node) in read:
            continue
        for bound in names_bound_here(node) | ({node.name.value} if isinstance(node, cst.Param) else set()):
            kinds.setdefault(bound, set()).add(None)
    return {name: found.pop() for name, found in kinds.items() if len(found) == 1 and None not in found}


def _constant_kind(value: cst.BaseExpression, names: TFNames) -> Optional[str]:
    if not (isinstance(value, cst.Call) and names.is_tf(value.func, "constant")):
        return None
    literal = _literal_kind(argument(value, 0, "value"))
    dtype = argument(value, 1, "dtype")
    if dtype is None:
        return literal
    symbol = names.tf_symbol(dtype)
    written = None if symbol is None else "float" if re.fullmatch(r"b?float\d+", symbol.path) else \
        "int" if re.fullmatch(r"u?int\d+", symbol.path) else None
    return written if literal is not None else None


def _literal_kind(expr: Optional[cst.BaseExpression]) -> Optional[str]:
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
        expr = expr.expression
    if isinstance(expr, cst.Integer):
        return "int"
    if isinstance(expr, cst.Float):
        return "float"
    if isinstance(expr, (cst.List, cst.Tuple)) and expr.elements:
        kinds = {_literal_kind(e.value) if isinstance(e, cst.Element) else None for e in expr.elements}
        return kinds.pop() if len(kinds) == 1 else None
    return None


def _rename_for(path: str) -> Optional[tuple[str, str]]:
    """``(key, target)`` of the rename this codemod applies to ``tf.<path>``, if any."""
    if path in OVERRIDES:
        return path, OVERRIDES[path]
    if path in GRAPH_ONLY:
        return None
    return tables().rename_for(path)


def _renamed_to_tf2(path: str) -> bool:
    """Whether this codemod turns ``tf.<path>`` into TF2 code (a rename, or a call rewrite)."""
    t = tables()
    renamed = _rename_for(path)
    return (renamed is not None and not renamed[1].startswith("compat.v1.")) or (
        t.transformers.get(path, {}).get("kind") in _CALL_REWRITES)



def _tf1_evidence(module: cst.Module, names: TFNames, constants: dict[str, str]) -> tuple[bool, bool]:
    """Whether the file uses the TF1 API somewhere (a name TF2 lacks, a keyword TF2 renamed, or
    a ``compat.v1`` spelling), which decides what ``tf.nn.dropout(x, 0.5)``, ``tf.nn.max_pool``
    and other names whose meaning changed under the same spelling mean in this file; and
    whether evidence this codemod leaves in place remains (a TF1 name it cannot rename to a TF2
    one, a ``compat.v1`` spelling), i.e. whether the file still reads as TF1 on the next run.

    One walk over the code for both: the evidence left in place is judged on whole names
    (``tf.contrib.summary`` inside a renamed ``tf.contrib.summary.always_record_summaries`` goes
    with it), the rest on every name and call."""
    t = tables()
    shows = stays = False
    rewritten: set[int] = set()  # ``tf.div`` calls that become TF2 divisions whatever the file is
    stack: list[tuple[cst.CSTNode, bool]] = [(module, False)]  # (node, under a whole TF name)
    while stack and not (shows and stays):
        node, inside = stack.pop()
        kind = type(node)  # exact types: this runs on every node of the file
        if kind is cst.Import or kind is cst.ImportFrom:
            continue
        if kind is cst.Call:
            symbol = names.tf_symbol(node.func)
            if symbol is not None:
                if symbol.path in DIVISIONS and _division_operand(node, constants) is not None:
                    rewritten.add(id(node.func))
                if not shows:
                    old = set(t.keyword_renames.get(symbol.path, ())) | set(t.keyword_deletions.get(symbol.path, ()))
                    shows = bool(keyword_names(node) & old)
        elif kind is cst.Attribute or kind is cst.Name:
            symbol = names.tf_symbol(node)
            if symbol is not None:
                tf1 = symbol.v1 or t.tf1_only(symbol.path)
                shows = shows or tf1
                if not inside and not stays and id(node) not in rewritten:
                    stays = tf1 and not _renamed_to_tf2(symbol.path) and v1_requirement(symbol.path, None, names) is not None
                inside = True
            if kind is cst.Name:
                continue
        stack.extend((child, inside) for child in reversed(children(node, code_only=True)))
    return shows, shows and stays


def _arg_value(updated: cst.Call, original_arg: cst.Arg, original: cst.Call) -> cst.BaseExpression:
    """The (already transformed) value of ``original_arg`` in ``updated``."""
    return updated.args[list(original.args).index(original_arg)].value


def _fix_commas(args: list[cst.Arg], before: tuple[cst.Arg, ...]) -> list[cst.Arg]:
    """Separate ``args`` with commas, keeping the call's trailing-comma style."""
    fixed = []
    for index, arg in enumerate(args):
        if index == len(args) - 1:
            arg = arg.with_changes(comma=before[-1].comma if before else cst.MaybeSentinel.DEFAULT)
        elif not isinstance(arg.comma, cst.Comma):
            arg = arg.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        fixed.append(arg)
    return fixed
