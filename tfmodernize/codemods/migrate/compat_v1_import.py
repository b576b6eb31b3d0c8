"""TFM112 compat-v1-import.

What it does
    Runs after every other migration (codes order the catalogue). When nothing in the file needs
    ``tf.compat.v1`` any more, it turns ``import tensorflow.compat.v1 as tf`` into
    ``import tensorflow as tf`` (and ``from tensorflow.compat.v1 import x`` into
    ``from tensorflow import x``), deletes the ``tf.disable_v2_behavior()`` /
    ``tf.disable_eager_execution()`` / ``tf.enable_eager_execution()`` /
    ``tf.enable_v2_behavior()`` statements, and shortens the ``tf.compat.v2.X`` spellings that
    other codemods emitted through the v1 alias to ``tf.X``; ``tf.compat.v1.X`` spelled out
    under ``import tensorflow as tf`` becomes ``tf.X`` too. Otherwise it changes nothing and
    reports, at the import, every use that still needs v1.

    "Needs v1" is decided from TensorFlow's own upgrade tables (``tfmodernize/data/``, see
    ``tfmodernize/analysis/tables.py::v1_requirement``), for every name reached through
    ``tensorflow.compat.v1``:

    * the name does not exist in TF 2.21 (``v1_only``, measured on the installed TensorFlow
      when the tables are generated), e.g. ``tf.placeholder``, ``tf.Session``, ``tf.layers``;
    * the peer renames it (TF2 spells it differently, or maps it to ``tf.compat.v1`` because
      TF2's namesake behaves differently: ``tf.where``, ``tf.assert_equal``, initialisers);
    * the call passes a keyword TF2 renamed or dropped, or positional arguments beyond those
      TF2 keeps in place;
    * the peer needs a custom transformer for the call and the call does not already have the
      TF2 shape (``tf.nn.dropout`` with ``keep_prob``, ``softmax_cross_entropy_with_logits``
      without ``tf.stop_gradient`` on the labels, ``tf.strings.split``, ...);
    * method calls only v1 has: ``.make_one_shot_iterator()``, ``.make_initializable_iterator()``,
      and ``.value`` of a shape dimension (``x.shape[0].value``).

    Not visible by name, so not checked: logic that relies on graph mode itself rather than
    on a v1 name (``Tensor.__eq__`` comparing identity, Keras 2 behaviour of ``tf.keras``
    under the v1 alias, which is Keras 3 once the import is TF2). A file that still runs a
    session names ``tf.Session`` and so stays on v1.

    Differences from ``tf_upgrade_v2 --upgrade_compat_v1_import``: the peer switches the import
    unconditionally and then renames everything it can, leaving ``tf.compat.v1.*`` spellings
    behind; this codemod only switches when the file runs on TF2 as it is, so it never leaves a
    file that is neither v1 nor v2.

Why it matters
    ``import tensorflow.compat.v1 as tf`` with ``disable_v2_behavior()`` runs the whole program
    in TF1 graph mode: no eager execution, no ``tf.function`` benefits, and an API that may be
    removed. Once the code is TF2 code, the import is all that keeps it in v1.

Before
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    x = tf.compat.v2.random.normal([2, 2], seed=1)
    y = tf.reduce_sum(x, axis=0)

After
    import tensorflow as tf
    x = tf.random.normal([2, 2], seed=1)
    y = tf.reduce_sum(x, axis=0)

Fixtures: ``fixtures/compat-v1-import/``.

Fix safety
    Only once nothing in the file needs v1: every name it uses through the alias exists in TF2 with
    the same meaning.

Declines when
    some name still needs v1 (the finding lists each, with its line), the alias is imported twice with
    two meanings, the v1 import is silenced, or the file belongs to a project kept on TF1 (a
    script and the project modules it imports switch together).
"""

from __future__ import annotations

from typing import Optional, Union

import libcst as cst

from tfmodernize.treewalk import import_statements, visit

from tfmodernize.analysis.tf1_api import V2_OFF, V2_ON, tf1_package
from tfmodernize.analysis.tables import tables, v1_requirement
from tfmodernize.names import WholeNames
from tfmodernize.codemod import TFCodemod
from tfmodernize.tfsymbols import TFNames, dotted_name, import_bindings

V1 = "tensorflow.compat.v1"
#: Switches of the global TF1 mode; once nothing needs v1, TF2's defaults are what they asked for
#: (eager on) or what the rest of the file no longer depends on (eager off).
MODE_SWITCHES = (*V2_OFF, *V2_ON)
#: Methods that exist only on TF1 objects.
V1_METHODS = ("make_one_shot_iterator", "make_initializable_iterator")
#: ``tf.test.TestCase`` methods that open a graph-mode session: their tests need v1 behaviour.
SESSION_TEST_METHODS = ("session", "cached_session", "test_session")
_LISTED = 12


def _is_v1_import(node: cst.CSTNode) -> bool:
    if isinstance(node, cst.Import):
        return any(dotted_name(a.name) == V1 for a in node.names)
    if isinstance(node, cst.ImportFrom) and node.module is not None and not node.relative:
        return dotted_name(node.module) == V1 or _v1_from_compat(node) is not None
    return False


def _v1_from_compat(node: cst.ImportFrom) -> Optional[cst.ImportAlias]:
    """The ``v1`` alias of ``from tensorflow.compat import v1 [as tf]``, if that is the form."""
    if node.module is None or dotted_name(node.module) != "tensorflow.compat" or isinstance(node.names, cst.ImportStar):
        return None
    return next((a for a in node.names if dotted_name(a.name) == "v1"), None)


class _Needs(WholeNames, cst.CSTVisitor):
    """Collects the uses that still need ``tf.compat.v1`` (``(node, what, why)``)."""

    def __init__(self, names: TFNames) -> None:
        self.names = names
        self.found: list[tuple[cst.CSTNode, str, str]] = []
        self._inner: set[int] = set()
        self._calls: dict[int, cst.Call] = {}

    def visit_Import(self, node: cst.Import) -> bool:
        self._package(node)
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        self._package(node)
        return False

    def _package(self, node: "cst.Import | cst.ImportFrom") -> None:
        package = tf1_package(node)
        if package is not None:
            self.found.append((node, package, "its code builds TF1 graphs"))

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        super().visit_Attribute(node)
        if node.attr.value == "value" and isinstance(node.value, cst.Subscript):
            inner = node.value.value
            if (isinstance(inner, cst.Attribute) and inner.attr.value == "shape") or (
                isinstance(inner, cst.Call)
                and isinstance(inner.func, cst.Attribute)
                and inner.func.attr.value == "get_shape"
            ):
                self.found.append((node, "<shape>[i].value", "TF2 shape dimensions are ints, not Dimension"))
        return True

    def visit_Call(self, node: cst.Call) -> bool:
        self._calls[id(node.func)] = node
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in V1_METHODS:
            self.found.append((node, f".{node.func.attr.value}()", "a TF1 dataset method"))
        func = node.func
        if (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value == "self"
            and func.attr.value in SESSION_TEST_METHODS
        ):
            self.found.append((node, f"self.{func.attr.value}()", "a test session runs the graph in TF1 mode"))
        symbol = self.names.tf_symbol(node.func)
        if symbol is not None and symbol.v1 and symbol.path in MODE_SWITCHES and node.args:
            # ``enable_eager_execution(config=...)``: TF2 has no such call to keep the arguments in.
            self.found.append((node, f"tf.{symbol.path}(...)", "its arguments configure TF1's runtime"))
        return True

    def leave_whole_name(self, node: Union[cst.Attribute, cst.Name]) -> None:
        symbol = self.names.tf_symbol(node)
        if symbol is None or symbol.path in MODE_SWITCHES:
            return
        if not symbol.v1:
            # Through another import (``import tensorflow.contrib.slim as slim``): a name TF 2.x
            # lacks keeps the whole file TF1 code, whatever ``tf`` is bound to.
            if tables().v1_only_name(symbol.path) or symbol.path.startswith("contrib."):
                self.found.append((node, f"tf.{symbol.path}", "no TF2 equivalent of this name"))
            return
        why = v1_requirement(symbol.path, self._calls.get(id(node)), self.names)
        if why is not None:
            self.found.append((node, f"tf.{symbol.path}", why))


class CompatV1Import(TFCodemod):
    __doc__ = __doc__
    code = "TFM112"
    name = "compat-v1-import"
    summary = "import tensorflow.compat.v1 as tf -> import tensorflow as tf once nothing needs v1"
    needles = ("compat.v1", "compat import v1")
    interests = (cst.Import, cst.ImportFrom, cst.Call, cst.Attribute)

    @classmethod
    def detect(cls, node: cst.CSTNode, names: TFNames) -> bool:
        if isinstance(node, cst.Attribute):
            return node.attr.value == "v1" and names.qualify(node) == V1
        if isinstance(node, cst.Call):
            symbol = names.tf_symbol(node.func)
            return symbol is not None and symbol.v1 and symbol.path in MODE_SWITCHES
        return _is_v1_import(node)

    def visit_Module(self, node: cst.Module) -> bool:
        for statement in _imports(node):
            local = next((name for name, _ in import_bindings(statement) if name in self.tf.ambiguous), None)
            if _is_v1_import(statement) and local is not None:
                self.report(
                    statement,
                    f"`{local}` is imported both as {' and as '.join(sorted(self.tf.ambiguous[local]))}; "
                    "which API the code means cannot be told: keep one import to let the file switch",
                )
                return False
        if self.state.project_on_v1 is not None:
            # The modules it shares the process with stay on TF1: so does this file (compat-fallback).
            return False
        needs = _Needs(self.tf)
        visit(node, needs)
        if needs.found:
            self._report_needs(node, needs.found)
            return False
        for statement in _imports(node):
            if not _is_v1_import(statement):
                continue
            # A silenced v1 import keeps the whole file on v1: no half switch.
            if self.suppressed(statement):
                return False
            if isinstance(statement, cst.ImportFrom) and _v1_from_compat(statement) and len(statement.names) > 1:
                # ``from tensorflow.compat import v1, v2``: the split is not worth guessing at.
                self.report(
                    statement,
                    "nothing else needs v1: import it on its own line "
                    "(import tensorflow.compat.v1 as tf) to let the file switch to TF2",
                )
                return False
        return True

    def _report_needs(self, module: cst.Module, found: list[tuple[cst.CSTNode, str, str]]) -> None:
        anchor = next((s for s in _imports(module) if _is_v1_import(s)), None)
        seen: dict[str, tuple[int, str]] = {}
        for node, what, why in found:
            if what not in seen:
                seen[what] = (self.state.position(node)[0], why)
        listed = [f"{what} (line {line}: {why})" for what, (line, why) in list(seen.items())[:_LISTED]]
        more = f" and {len(seen) - _LISTED} more" if len(seen) > _LISTED else ""
        self.report(
            anchor if anchor is not None else found[0][0], f"still needs tf.compat.v1: {'; '.join(listed)}{more}"
        )

    # -- the switch -----------------------------------------------------------------------------

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def leave_Import(self, original: cst.Import) -> None:
        if not any(dotted_name(a.name) == V1 for a in original.names):
            return
        if not self.fix(original, "nothing here needs tf.compat.v1 any more: import TF2"):
            return
        # ``import tensorflow.compat.v1`` binds ``tensorflow``: plain ``import tensorflow``.
        self.replace(
            original,
            lambda updated: updated.with_changes(
                names=[
                    alias.with_changes(name=cst.Name("tensorflow")) if dotted_name(alias.name) == V1 else alias
                    for alias in updated.names
                ]
            ),
        )

    def leave_ImportFrom(self, original: cst.ImportFrom) -> None:
        if not _is_v1_import(original):
            return
        v1 = _v1_from_compat(original)
        if not self.fix(original, "nothing here needs tf.compat.v1 any more: import from TF2"):
            return
        if v1 is not None:
            local = v1.asname.name if v1.asname is not None else cst.Name("v1")
            self.replace(
                original,
                cst.Import(names=[cst.ImportAlias(name=cst.Name("tensorflow"), asname=cst.AsName(name=local))]),
            )
        else:
            self.replace(original, lambda updated: updated.with_changes(module=cst.Name("tensorflow")))

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine) -> None:
        for statement in original.body:
            if self._is_mode_switch(statement) and self.fix(statement, "TF2 runs eagerly: drop the TF1 mode switch"):
                self.remove(statement)

    def _is_mode_switch(self, statement: cst.BaseSmallStatement) -> bool:
        if not (isinstance(statement, cst.Expr) and isinstance(statement.value, cst.Call)):
            return False
        symbol = self.tf.tf_symbol(statement.value.func)
        return symbol is not None and symbol.v1 and symbol.path in MODE_SWITCHES and not statement.value.args

    def leave_Attribute(self, original: cst.Attribute) -> None:
        shortened = self._without_compat_v2(original)
        if shortened is not None and self.fix(original, "TF2 names need no compat prefix"):
            self.replace(original, lambda updated: updated.with_changes(value=shortened.value))

    def _without_compat_v2(self, node: cst.Attribute) -> Optional[cst.BaseExpression]:
        """``tf.compat.v2.X`` through the v1 alias, or ``tf.compat.v1.X`` through the TF2 one
        -> ``tf.X`` (the alias is, or becomes, TF2's)."""
        value = node.value
        if not (
            isinstance(value, cst.Attribute)
            and isinstance(value.value, cst.Attribute)
            and value.value.attr.value == "compat"
        ):
            return None
        alias = value.value.value
        if not isinstance(alias, cst.Name):
            return None
        spelled = (self.tf.qualify(alias), value.attr.value)
        if spelled not in ((V1, "v2"), ("tensorflow", "v1")):
            return None
        if spelled == ("tensorflow", "v1") and not tables().shared_with_tf2(node.attr.value):
            return None  # not a TF2 name (or not TensorFlow's at all): ``tf.X`` would not exist
        return node.with_changes(value=alias)


def _imports(module: cst.Module) -> list["cst.Import | cst.ImportFrom"]:
    """Every import statement of the module, nested ones (``try:``/``if``) included, in order."""
    return list(import_statements(module))
