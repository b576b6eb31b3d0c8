"""TFM301 variables-before-build (finding only).

What it does
    Reports a read of ``model.trainable_variables`` (or ``trainable_weights``,
    ``variables``, ``weights``) that comes, in the same block, after the model or layer was
    constructed and before anything built it. Tracked: ``keras.Sequential([...])`` without an
    ``Input``/``input_shape``, instances of a module class subclassing a Keras ``Model`` or
    ``Layer``, and Keras layers (``keras.layers.Dense(3)``). Calling the object, ``build``,
    ``fit``, ``predict``, ``evaluate``, ``*_on_batch``, ``summary``, adding an ``Input``, or
    passing it to any function counts as building it. A read that only shows the list (an
    expression statement of its own, as a notebook cell displays it, or a ``print`` argument)
    feeds no gradient or optimizer and is not reported.

Why it matters
    A Keras model creates its weights when it first sees an input shape. Until then its
    variable lists are empty, so ``var_list = model.trainable_variables`` taken right after
    construction is ``[]`` forever: ``tape.gradient(loss, var_list)`` returns nothing and
    ``optimizer.apply_gradients`` trains nothing, without an error. Build the model first
    (start a ``Sequential`` with ``keras.Input(shape=...)``, call ``model.build(input_shape)``
    or call the model once), or read ``model.trainable_variables`` inside the training step.

Before
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    var_list = model.trainable_variables

After
    model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(1)])
    var_list = model.trainable_variables

Fixtures: ``fixtures/variables-before-build/``.

Fix safety
    No fix: a finding only.

Declines when
    the read only shows the list (``model.variables`` alone as a statement, or printed): showing
    that it is empty before the build is not a bug.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tfmodernize.codemod import TFCodemod
from tfmodernize.treewalk import walk

VARIABLE_LISTS = {"trainable_variables", "trainable_weights", "variables", "weights"}
BUILDERS = {
    "build",
    "fit",
    "predict",
    "evaluate",
    "train_on_batch",
    "test_on_batch",
    "predict_on_batch",
    "summary",
    "__call__",
    "call",
}
_INPUT_KEYWORDS = {"input_shape", "input_dim", "batch_input_shape", "batch_shape"}

MESSAGE = (
    "`{name}.{attr}` is read before `{name}` is built, so it is an empty list: gradients and "
    "optimizer steps on it do nothing. Build the model first (a `keras.Input(shape=...)` "
    "first layer, `{name}.build(input_shape)`, or one call on data), or read "
    "`{name}.{attr}` inside the training step"
)


class VariablesBeforeBuild(TFCodemod):
    __doc__ = __doc__
    code = "TFM301"
    name = "variables-before-build"
    summary = "model variables read before the model is built are an empty list"
    needles = ("variables", "weights")
    interests = (cst.Attribute,)

    @classmethod
    def detect(cls, node: cst.CSTNode, names) -> bool:
        # ``tf.trainable_variables`` and friends are TF functions, not a model's attribute.
        return node.attr.value in VARIABLE_LISTS and names.qualify(node) is None

    def visit_Module(self, node: cst.Module) -> bool:
        self._keras_classes = {
            stmt.name.value for stmt in node.body if isinstance(stmt, cst.ClassDef) and self._keras_subclass(stmt)
        }
        self._scan_block(node.body)
        return True

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        if isinstance(node.body, cst.IndentedBlock):
            self._scan_block(node.body.body)
        return True

    def _keras_subclass(self, cls: cst.ClassDef) -> bool:
        for base in cls.bases:
            path = self.tf.keras_path(base.value)
            if path is not None and path.split(".")[-1] in ("Model", "Layer", "Sequential"):
                return not _builds_itself(cls)
        return False

    def _unbuilt(self, value: cst.BaseExpression) -> bool:
        """Whether ``value`` constructs a Keras model or layer that has no weights yet."""
        if not isinstance(value, cst.Call):
            return False
        if isinstance(value.func, cst.Name) and value.func.value in self._keras_classes:
            return True
        path = self.tf.keras_path(value.func)
        if path is None:
            return False
        leaf = path.split(".")[-1]
        if path in ("Sequential", "models.Sequential"):
            layers = value.args[0].value if value.args and value.args[0].keyword is None else None
            if isinstance(layers, (cst.List, cst.Tuple)) and layers.elements:
                first = layers.elements[0].value
                return not self._is_input(first)
            return True
        return path.startswith("layers.") and leaf[:1].isupper() and leaf not in ("Input", "InputLayer")

    def _is_input(self, node: cst.BaseExpression) -> bool:
        if not isinstance(node, cst.Call):
            return False
        path = self.tf.keras_path(node.func) or ""
        return path.split(".")[-1] in ("Input", "InputLayer") or any(
            a.keyword is not None and a.keyword.value in _INPUT_KEYWORDS for a in node.args
        )

    def _scan_block(self, statements) -> None:
        unbuilt: dict[str, cst.CSTNode] = {}
        for stmt in statements:
            for name in list(unbuilt):
                read = self._premature_read(stmt, name)
                if read is not None:
                    self.report(read, MESSAGE.format(name=name, attr=read.attr.value))
                if read is not None or self._builds(stmt, name):
                    del unbuilt[name]
            target, value = _assignment(stmt)
            if target is not None and value is not None and self._unbuilt(value):
                unbuilt[target] = stmt

    def _premature_read(self, stmt: cst.CSTNode, name: str) -> Optional[cst.Attribute]:
        if self._builds(stmt, name):
            return None
        shown = _shown(stmt)
        for node in walk(stmt):
            if (
                id(node) not in shown
                and isinstance(node, cst.Attribute)
                and node.attr.value in VARIABLE_LISTS
                and isinstance(node.value, cst.Name)
                and node.value.value == name
            ):
                return node
        return None

    def _builds(self, stmt: cst.CSTNode, name: str) -> bool:
        """Whether ``stmt`` may build ``name`` (or rebinds it, or hands it to other code)."""
        for node in walk(stmt):
            if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                continue
            if isinstance(node, cst.Call):
                func = node.func
                if isinstance(func, cst.Name) and func.value == name:
                    return True
                if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == name:
                    if func.attr.value in BUILDERS:
                        return True
                    if func.attr.value == "add" and node.args and self._is_input(node.args[0].value):
                        return True
                if any(isinstance(a.value, cst.Name) and a.value.value == name for a in node.args):
                    return True
            if isinstance(node, cst.AssignTarget) and isinstance(node.target, cst.Name) and node.target.value == name:
                return True
        return False


def _assignment(stmt: cst.CSTNode):
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
        small = stmt.body[0]
        if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
            return small.targets[0].target.value, small.value
    return None, None


def _shown(stmt: cst.CSTNode) -> set[int]:
    """Ids of the values ``stmt`` only shows: an expression statement of its own (a notebook
    displays it) or a plain argument of ``print``."""
    shown: set[int] = set()
    if not isinstance(stmt, cst.SimpleStatementLine):
        return shown
    for small in stmt.body:
        if not isinstance(small, cst.Expr):
            continue
        value = small.value
        named_call = isinstance(value, cst.Call) and isinstance(value.func, cst.Name)
        if named_call and value.func.value == "print":
            shown.update(id(a.value) for a in value.args if a.keyword is None and not a.star)
        else:
            shown.add(id(value))
    return shown


def _builds_itself(cls: cst.ClassDef) -> bool:
    """A class whose ``__init__`` calls ``self.build(...)`` is built on construction."""
    for stmt in cls.body.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == "__init__":
            return any(
                isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value == "build"
                for n in walk(stmt)
            )
    return False
