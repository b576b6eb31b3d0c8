"""TFM208 keras3-renames.

What it does
    Rewrites Keras 2 spellings that TensorFlow 2.16+ (``tf.keras`` is Keras 3) rejects or
    silently ignores, where the object is known to be a Keras one (built from a Keras
    constructor in the file, ``self`` in a Keras subclass, or ``model.optimizer`` of such
    a model):

    - optimizer constructors: ``lr=`` -> ``learning_rate=`` (Keras 3: ``ValueError:
      Argument(s) not recognized: {'lr': ...}``);
    - ``optimizer.lr`` -> ``optimizer.learning_rate`` (Keras 3 has no ``lr``: reading it
      raises ``AttributeError``, and ``opt.lr = 0.01`` silently creates an unused attribute);
    - ``metric.reset_states()`` -> ``metric.reset_state()``, and in a ``Metric`` subclass
      ``def reset_states(self)`` -> ``def reset_state(self)`` (Keras 3 never calls the old
      name, so an override of it is silently skipped);
    - ``model.fit_generator`` / ``evaluate_generator`` / ``predict_generator`` -> ``fit`` /
      ``evaluate`` / ``predict`` (removed in Keras 3), when only arguments those accept are
      passed; ``verbose=0``, the old methods' default, is kept explicit for evaluate/predict;
    - ``self.add_weight("w", shape, ...)`` with positional arguments -> keywords (Keras 3's
      positional order is ``shape, initializer, dtype`` and a positional name raises);
    - ``keras.layers.experimental.preprocessing.X`` and ``keras.layers.experimental.X`` ->
      ``keras.layers.X`` (the ``experimental`` namespace is gone; the layers kept their
      names), also in ``from ... import`` statements;
    - optimizer ``decay=d``, which Keras 3 ignores with only a warning, -> the schedule
      computing the same ``lr / (1 + d * iterations)``:
      ``learning_rate=keras.optimizers.schedules.InverseTimeDecay(lr, decay_steps=1,
      decay_rate=d)`` (``decay=0`` is dropped);
    - layer arguments Keras 3 rejects, dropped where they held the default:
      ``time_major=False`` (RNN layers) and ``dynamic=False``.

    Code using ``tf_keras`` (Keras 2 kept as a package) is left alone. Where the receiver
    is not known to be a Keras object, or the arguments cannot be carried over, it reports a
    finding instead (``reset_states()`` on an unknown object, ``fit_generator(...,
    workers=4)``, ``model.optimizer.lr`` on an unknown model, removed layers such as
    ``RandomFourierFeatures``, ``decay=`` without an explicit learning rate,
    ``time_major=True``, ``fused=``, ``constants=``). The list follows Keras 3's migration guide and breaking-change
    notes, each entry checked to fail on TF 2.21 with Keras 3.15.

Why it matters
    Since TF 2.16 ``tf.keras`` is Keras 3. These Keras 2 spellings either raise on the
    first run or, worse, are silently ignored (a learning-rate change or decay that never
    happens, a metric reset that never runs). The new spellings also work on Keras 2.6+.

Before
    optimizer = tf.keras.optimizers.SGD(lr=0.1)
    optimizer.lr = 0.05
    train_loss = tf.keras.metrics.Mean()
    train_loss.reset_states()

After
    optimizer = tf.keras.optimizers.SGD(learning_rate=0.1)
    optimizer.learning_rate = 0.05
    train_loss = tf.keras.metrics.Mean()
    train_loss.reset_state()

Fixtures: ``fixtures/keras3-renames/``.

Fix safety
    Each rename is Keras 3's spelling of the same setting; a removed argument goes only where it was
    the default, and Keras 2's ``decay`` becomes the schedule that computes the same rate.

Declines when
    the receiver is not known to be a Keras object, or the arguments cannot be carried over (a
    finding says how to convert by hand).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tfmodernize.codemod import TFCodemod
from tfmodernize.codemods.tf2.keras3_renames.calls import (
    add_weight,
    generator_method,
    layer_arguments,
    optimizer_arguments,
    reset_states,
)
from tfmodernize.codemods.tf2.keras3_renames.objects import KerasObjects
from tfmodernize.codemods.tf2.keras3_renames.tables import (
    GENERATOR_METHODS,
    MOVED_LAYERS,
    REMOVED_LAYER_ARGUMENTS,
    ctor_kind,
)
from tfmodernize.tfsymbols import dotted_name


#: The attributes (``opt.lr``, ``layer.reset_states``) and call keywords (``lr=``) ``detect``
#: looks for.
_ATTRIBUTES = frozenset(("lr", "reset_states", "add_weight"))
_KEYWORDS = frozenset(("lr", "decay", *REMOVED_LAYER_ARGUMENTS))


def _names_experimental(node: cst.Attribute, names) -> bool:
    """Whether a part of ``node``'s dotted name before its last (an attribute, or what its root
    name is imported as) is ``experimental``: only then can it name ``layers.experimental.X``.
    A cheap test asked first: most attributes of a file are no such name."""
    part = node.value
    while type(part) is cst.Attribute:
        if part.attr.value == "experimental":
            return True
        part = part.value
    return type(part) is cst.Name and "experimental" in (names.qualify(part) or "")


class Keras3Renames(TFCodemod):
    __doc__ = __doc__
    code = "TFM208"
    name = "keras3-renames"
    summary = "Keras 2 spellings that Keras 3 rejects or ignores -> their Keras 3 names"
    needles = ("lr", "reset_states", "_generator", "add_weight", "experimental", "decay", *REMOVED_LAYER_ARGUMENTS)
    interests = (cst.Call, cst.Attribute, cst.ImportFrom, cst.FunctionDef)

    @classmethod
    def detect(cls, node: cst.CSTNode, names) -> bool:
        # Asked about most of a file's nodes: the node's type is read once, attributes first.
        kind = type(node)
        if kind is cst.Attribute:
            if node.attr.value in _ATTRIBUTES or node.attr.value in GENERATOR_METHODS:
                return True
            return _names_experimental(node, names) and (names.keras_path(node) or "").startswith(
                "layers.experimental."
            )
        if kind is cst.Call:
            return any(a.keyword is not None and a.keyword.value in _KEYWORDS for a in node.args)
        if kind is cst.ImportFrom:
            module = dotted_name(node.module) if node.module is not None else None
            return module is not None and ".layers.experimental" in module and not module.startswith("tf_keras")
        return kind is cst.FunctionDef and node.name.value == "reset_states"

    # -- what objects are -------------------------------------------------------------------

    def visit_Module(self, node: cst.Module) -> bool:
        self._objects = KerasObjects.read(node, self.tf)
        self._classes: list[tuple[cst.ClassDef, Optional[str]]] = []
        return True

    @property
    def _class_kind(self) -> Optional[str]:
        return self._classes[-1][1] if self._classes else None

    def _kind(self, expr: cst.BaseExpression) -> Optional[str]:
        """What Keras object ``expr`` is known to be, if any."""
        return self._objects.kind(expr, self._class_kind)

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self._classes.append((node, self._objects.classes.get(node.name.value)))
        return True

    def leave_ClassDef(self, original: cst.ClassDef) -> None:
        self._classes.pop()

    # -- rewrites: decided on the original nodes, applied to them as rebuilt -------------------

    def leave_FunctionDef(self, original: cst.FunctionDef) -> None:
        if original.name.value != "reset_states" or self._class_kind != "metric":
            return
        cls = self._classes[-1][0]
        methods = {s.name.value for s in cls.body.body if isinstance(s, cst.FunctionDef)}
        if original not in cls.body.body or "reset_state" in methods:
            return
        if self.fix(
            original.name, "Keras 3 metrics call `reset_state()`: an override named `reset_states` is never called"
        ):
            self.replace(original.name, cst.Name("reset_state"))

    def leave_Call(self, original: cst.Call) -> None:
        kind = None if self._objects.is_tf_keras(original.func) else ctor_kind(self.tf.keras_path(original.func))
        if kind == "optimizer":
            edit = optimizer_arguments(original, self)
        elif kind == "layer" and any(
            a.keyword is not None and a.keyword.value in REMOVED_LAYER_ARGUMENTS for a in original.args
        ):
            edit = layer_arguments(original, self)
        elif not isinstance(original.func, cst.Attribute):
            return
        elif original.func.attr.value == "reset_states" and not original.args:
            edit = reset_states(original, self._kind(original.func.value), self)
        elif original.func.attr.value in GENERATOR_METHODS:
            receiver = original.func.value
            kind = "tf_keras" if self._objects.is_tf_keras(receiver) else self._kind(receiver)
            edit = generator_method(original, original.func.attr.value, kind, self)
        elif (
            original.func.attr.value == "add_weight"
            and isinstance(original.func.value, cst.Name)
            and original.func.value.value == "self"
        ):
            edit = add_weight(original, self._class_kind, self)
        else:
            return
        if edit is not None:
            self.replace(original, edit)

    def leave_Attribute(self, original: cst.Attribute) -> None:
        if original.attr.value == "lr":
            self._lr(original)
            return
        if self._objects.is_tf_keras(original):
            return
        path = self.tf.keras_path(original) or ""
        for namespace in ("layers.experimental.preprocessing.", "layers.experimental."):
            leaf = path[len(namespace) :]
            if path.startswith(namespace) and "." not in leaf and leaf != "preprocessing":
                self._moved_layer(original, leaf, namespace.count("."))
                return

    def _lr(self, original: cst.Attribute) -> None:
        kind = self._kind(original.value)
        if kind == "optimizer":
            if self.fix(
                original,
                "Keras 3 optimizers have `learning_rate`, not `lr` (reading `lr` raises, setting it does nothing)",
            ):
                self.replace(original.attr, cst.Name("learning_rate"))
        elif kind is None and isinstance(original.value, cst.Attribute) and original.value.attr.value == "optimizer":
            self.report(
                original,
                "if this is a Keras optimizer, Keras 3 has `learning_rate`, not `lr` (reading `lr` raises, setting it does nothing)",
            )

    def _moved_layer(self, original: cst.Attribute, layer: str, depth: int) -> None:
        if layer not in MOVED_LAYERS:
            self.report(
                original,
                f"`{layer}` is not in Keras 3 (the `layers.experimental` namespace was removed): keep it by depending on `tf_keras` or copy its implementation",
            )
            return
        layers_node: cst.BaseExpression = original
        for _ in range(depth):
            layers_node = layers_node.value if isinstance(layers_node, cst.Attribute) else layers_node
        if not (isinstance(layers_node, cst.Attribute) and layers_node.attr.value == "layers") and not (
            isinstance(layers_node, cst.Name) and layers_node.value == "layers"
        ):
            self.report(original, f"`layers.experimental` was removed in Keras 3: import `{layer}` from `keras.layers`")
            return
        if self.fix(original, f"`layers.experimental` was removed in Keras 3: `{layer}` is `keras.layers.{layer}`"):
            self.replace(original, cst.Attribute(value=layers_node, attr=cst.Name(layer)))

    def leave_ImportFrom(self, original: cst.ImportFrom) -> None:
        module = dotted_name(original.module) if original.module is not None else None
        if module is None or module.startswith("tf_keras") or isinstance(original.names, cst.ImportStar):
            return
        for suffix in (".layers.experimental.preprocessing", ".layers.experimental"):
            if module.endswith(suffix):
                break
        else:
            return
        names = [dotted_name(alias.name) for alias in original.names]
        unknown = [n for n in names if n not in MOVED_LAYERS]
        if unknown:
            self.report(
                original,
                f"`{module}` was removed in Keras 3: import the layers from `{module[: -len(suffix)]}.layers` ({', '.join(map(str, unknown))} must be replaced by hand)",
            )
            return
        if self.fix(
            original, f"`{module}` was removed in Keras 3: the layers are in `{module[: -len(suffix)]}.layers`"
        ):
            self.replace(original.module, cst.parse_expression(f"{module[: -len(suffix)]}.layers"))
