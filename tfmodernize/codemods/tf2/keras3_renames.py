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

from typing import Callable, Optional

import libcst as cst

from tfmodernize.syntax import no_space_equal

from tfmodernize.codemod import TFCodemod
from tfmodernize.tfsymbols import dotted_name
from tfmodernize.treewalk import walk

#: Layers of ``keras.layers.experimental[.preprocessing]`` that Keras 3 has in ``keras.layers``.
MOVED_LAYERS = frozenset(
    {
        "CategoryEncoding",
        "CenterCrop",
        "Discretization",
        "EinsumDense",
        "Hashing",
        "IntegerLookup",
        "Normalization",
        "RandomContrast",
        "RandomCrop",
        "RandomFlip",
        "RandomHeight",
        "RandomRotation",
        "RandomTranslation",
        "RandomWidth",
        "RandomZoom",
        "Rescaling",
        "Resizing",
        "StringLookup",
        "TextVectorization",
    }
)

#: Removed ``*_generator`` methods: new name, keywords the new method accepts (old -> new),
#: and the old method's ``verbose`` default when it differs from the new one's.
GENERATOR_METHODS = {
    "fit_generator": (
        "fit",
        {
            "generator": "x",
            "steps_per_epoch": "steps_per_epoch",
            "epochs": "epochs",
            "verbose": "verbose",
            "callbacks": "callbacks",
            "validation_data": "validation_data",
            "validation_steps": "validation_steps",
            "validation_freq": "validation_freq",
            "class_weight": "class_weight",
            "shuffle": "shuffle",
            "initial_epoch": "initial_epoch",
        },
        None,
    ),
    "evaluate_generator": (
        "evaluate",
        {
            "generator": "x",
            "steps": "steps",
            "callbacks": "callbacks",
            "verbose": "verbose",
        },
        "0",
    ),
    "predict_generator": (
        "predict",
        {
            "generator": "x",
            "steps": "steps",
            "callbacks": "callbacks",
            "verbose": "verbose",
        },
        "0",
    ),
}

#: Keras 2 positional order of ``add_weight`` and the keywords Keras 3 accepts.
LAYER_ADD_WEIGHT = ("name", "shape", "dtype", "initializer", "regularizer", "trainable", "constraint")
LAYER_KEYWORDS = frozenset({*LAYER_ADD_WEIGHT, "aggregation", "autocast"})
METRIC_ADD_WEIGHT = ("name", "shape")
METRIC_KEYWORDS = frozenset({"name", "shape", "initializer", "dtype"})

#: Keras 2 layer arguments that Keras 3 rejects, and what to do when they are not the default.
REMOVED_LAYER_ARGUMENTS = {
    "time_major": "transpose the inputs to batch-major (`tf.transpose(x, [1, 0, 2])`) and drop it",
    "dynamic": "drop it; to run the layer eagerly compile the model with `run_eagerly=True`",
    "fused": "drop it (Keras 3 has no fused kernel; moving variance statistics may differ slightly)",
    "constants": "pass the constants as extra inputs of the cell instead",
}

MODEL_CONSTRUCTORS = frozenset(
    {
        "Model",
        "Sequential",
        "models.Model",
        "models.Sequential",
        "models.load_model",
        "saving.load_model",
    }
)


def _ctor_kind(path: Optional[str]) -> Optional[str]:
    """``metric`` / ``optimizer`` / ``model`` / ``layer`` for a Keras constructor path."""
    if path is None:
        return None
    leaf = path.rsplit(".", 1)[-1]
    if path in MODEL_CONSTRUCTORS:
        return "model"
    if not leaf[:1].isupper():
        return None
    if path.startswith("metrics."):
        return "metric"
    if path.startswith("optimizers.") and not path.startswith(("optimizers.schedules.", "optimizers.legacy.")):
        return "optimizer"
    if path.startswith("layers."):
        return "layer"
    return None


class Keras3Renames(TFCodemod):
    __doc__ = __doc__
    code = "TFM208"
    name = "keras3-renames"
    summary = "Keras 2 spellings that Keras 3 rejects or ignores -> their Keras 3 names"
    needles = ("lr", "reset_states", "_generator", "add_weight", "experimental", "decay", *REMOVED_LAYER_ARGUMENTS)
    interests = (cst.Call, cst.Attribute, cst.ImportFrom, cst.FunctionDef)

    @classmethod
    def detect(cls, node: cst.CSTNode, names) -> bool:
        if isinstance(node, cst.ImportFrom):
            module = dotted_name(node.module) if node.module is not None else None
            return module is not None and ".layers.experimental" in module and not module.startswith("tf_keras")
        if isinstance(node, cst.FunctionDef):
            return node.name.value == "reset_states"
        if isinstance(node, cst.Attribute):
            if node.attr.value in ("lr", "reset_states", "add_weight") or node.attr.value in GENERATOR_METHODS:
                return True
            return (names.keras_path(node) or "").startswith("layers.experimental.")
        return isinstance(node, cst.Call) and any(
            a.keyword is not None and a.keyword.value in ("lr", "decay", *REMOVED_LAYER_ARGUMENTS) for a in node.args
        )

    # -- what objects are -------------------------------------------------------------------

    def visit_Module(self, node: cst.Module) -> bool:
        self._class_kinds = self._keras_classes(node)
        self._kinds = self._bindings(node)
        self._classes: list[tuple[cst.ClassDef, Optional[str]]] = []
        return True

    def _is_tf_keras(self, node: cst.CSTNode) -> bool:
        return (self.tf.qualify(node) or "").startswith("tf_keras")

    def _keras_classes(self, module: cst.Module) -> dict[str, str]:
        kinds: dict[str, str] = {}
        classes = [n for n in walk(module, code_only=True) if type(n) is cst.ClassDef]
        changed = True
        while changed:
            changed = False
            for cls in classes:
                if cls.name.value in kinds:
                    continue
                for base in cls.bases:
                    kind = None
                    if isinstance(base.value, cst.Name) and base.value.value in kinds:
                        kind = kinds[base.value.value]
                    elif not self._is_tf_keras(base.value):
                        kind = _ctor_kind(self.tf.keras_path(base.value))
                    if kind is not None:
                        kinds[cls.name.value] = kind
                        changed = True
                        break
        return kinds

    def _value_kind(self, value: cst.BaseExpression) -> Optional[str]:
        if not isinstance(value, cst.Call):
            return None
        if isinstance(value.func, cst.Name) and value.func.value in self._class_kinds:
            return self._class_kinds[value.func.value]
        if self._is_tf_keras(value.func):
            return "tf_keras" if _ctor_kind(self.tf.keras_path(value.func)) else None
        return _ctor_kind(self.tf.keras_path(value.func))

    def _bindings(self, module: cst.Module) -> dict[str, str]:
        """Name or ``self.attr`` -> kind, for names only ever bound to one kind of Keras object."""
        seen: dict[str, set[Optional[str]]] = {}
        for node in walk(module, code_only=True):
            if isinstance(node, cst.Assign):
                for target in node.targets:
                    key = dotted_name(target.target)
                    if key is not None:
                        seen.setdefault(key, set()).add(self._value_kind(node.value))
            elif isinstance(node, (cst.AnnAssign, cst.AugAssign, cst.For, cst.NamedExpr, cst.AsName)):
                target = node.name if isinstance(node, cst.AsName) else node.target
                key = dotted_name(target)
                if key is not None:
                    seen.setdefault(key, set()).add(None)
            elif isinstance(node, cst.Param):
                seen.setdefault(node.name.value, set()).add(None)
        return {key: next(iter(kinds)) for key, kinds in seen.items() if len(kinds) == 1 and None not in kinds}

    def _kind(self, expr: cst.BaseExpression) -> Optional[str]:
        """What Keras object ``expr`` is known to be, if any."""
        current = self._class_kind
        if isinstance(expr, cst.Name) and expr.value == "self":
            return current
        if isinstance(expr, cst.Call):
            if isinstance(expr.func, cst.Name) and expr.func.value == "super" and not expr.args:
                return current
            return self._value_kind(expr)
        if isinstance(expr, cst.Attribute) and expr.attr.value == "optimizer":
            owner = self._kind(expr.value)
            return {"model": "optimizer", "tf_keras": "tf_keras"}.get(owner or "")
        key = dotted_name(expr)
        return self._kinds.get(key) if key is not None else None

    @property
    def _class_kind(self) -> Optional[str]:
        return self._classes[-1][1] if self._classes else None

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self._classes.append((node, self._class_kinds.get(node.name.value)))
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
        kind = None if self._is_tf_keras(original.func) else _ctor_kind(self.tf.keras_path(original.func))
        if kind == "optimizer":
            edit = self._optimizer_arguments(original)
        elif kind == "layer" and any(
            a.keyword is not None and a.keyword.value in REMOVED_LAYER_ARGUMENTS for a in original.args
        ):
            edit = self._layer_arguments(original)
        elif not isinstance(original.func, cst.Attribute):
            return
        elif original.func.attr.value == "reset_states" and not original.args:
            edit = self._reset_states(original, original.func.value)
        elif original.func.attr.value in GENERATOR_METHODS:
            edit = self._generator_method(original, original.func.value, original.func.attr.value)
        elif (
            original.func.attr.value == "add_weight"
            and isinstance(original.func.value, cst.Name)
            and original.func.value.value == "self"
        ):
            edit = self._add_weight(original)
        else:
            return
        if edit is not None:
            self.replace(original, edit)

    def _optimizer_arguments(self, original: cst.Call) -> Optional[Callable[[cst.Call], cst.Call]]:
        keywords = {a.keyword.value for a in original.args if a.keyword is not None}
        if "lr" in keywords and "learning_rate" in keywords:
            return None
        rename = "lr" in keywords and self.fix(original, "Keras 3 optimizers take `learning_rate=`, not `lr=`")
        decay = self._decay(original) if "decay" in keywords else None
        if not rename and decay is None:
            return None

        def edit(updated: cst.Call) -> cst.Call:
            args = list(updated.args)
            if rename:
                args = [
                    a.with_changes(keyword=cst.Name("learning_rate"))
                    if a.keyword is not None and a.keyword.value == "lr"
                    else a
                    for a in args
                ]
            return updated.with_changes(args=decay(args) if decay is not None else args)

        return edit

    def _decay(self, original: cst.Call) -> Optional[Callable[[list[cst.Arg]], list[cst.Arg]]]:
        """Keras 2's ``decay=d`` (``lr / (1 + d * iterations)``), which Keras 3 ignores, as
        the equal ``InverseTimeDecay(lr, decay_steps=1, decay_rate=d)`` schedule."""
        args = list(original.args)
        index = next(i for i, a in enumerate(args) if a.keyword is not None and a.keyword.value == "decay")
        decay = args[index].value
        if isinstance(decay, (cst.Integer, cst.Float)) and float(decay.value) == 0:
            if self.fix(original, "Keras 3 optimizers have no `decay=` (ignored with a warning); it was 0"):
                return lambda args: _without(args, index)
            return None
        rate = next(
            (
                i
                for i, a in enumerate(args)
                if (a.keyword is None and i == 0 and not a.star)
                or (a.keyword is not None and a.keyword.value in ("learning_rate", "lr"))
            ),
            None,
        )
        hint = "pass `learning_rate=keras.optimizers.schedules.InverseTimeDecay(lr, decay_steps=1, decay_rate=decay)`"
        if rate is None:
            self.report(
                original,
                f"Keras 3 optimizers ignore `decay=` (Keras 2 divided the learning rate by 1 + decay * iterations): {hint} with the learning rate made explicit",
            )
            return None
        if isinstance(args[rate].value, cst.Call) or not isinstance(original.func, cst.Attribute):
            self.report(
                original,
                f"Keras 3 optimizers ignore `decay=` (Keras 2 divided the learning rate by 1 + decay * iterations): {hint}",
            )
            return None
        if not self.fix(
            original,
            "Keras 3 optimizers ignore `decay=`: the same decay is the InverseTimeDecay(lr, 1, decay) schedule",
        ):
            return None
        module = original.func.value

        def edit(args: list[cst.Arg]) -> list[cst.Arg]:
            schedule = cst.Call(
                cst.Attribute(cst.Attribute(module, cst.Name("schedules")), cst.Name("InverseTimeDecay")),
                [
                    cst.Arg(args[rate].value),
                    _keyword("decay_steps", cst.Integer("1")),
                    _keyword("decay_rate", args[index].value),
                ],
            )
            args[rate] = args[rate].with_changes(value=schedule)
            return _without(args, index)

        return edit

    def _layer_arguments(self, original: cst.Call) -> Optional[Callable[[cst.Call], cst.Call]]:
        """Keras 2 layer arguments Keras 3 rejects: dropped where they were the default."""
        dropped = []
        for name, advice in REMOVED_LAYER_ARGUMENTS.items():
            arg = next((a for a in original.args if a.keyword is not None and a.keyword.value == name), None)
            if arg is None:
                continue
            if isinstance(arg.value, cst.Name) and arg.value.value == "False" and name in ("time_major", "dynamic"):
                if self.fix(original, f"Keras 3 layers reject `{name}=`; `{name}=False` was the default"):
                    dropped.append(name)
            else:
                self.report(original, f"Keras 3 layers reject `{name}=`: {advice}")
        if not dropped:
            return None

        def edit(updated: cst.Call) -> cst.Call:
            args = list(updated.args)
            for name in dropped:
                args = _without(
                    args, next(i for i, a in enumerate(args) if a.keyword is not None and a.keyword.value == name)
                )
            return updated.with_changes(args=args)

        return edit

    def _reset_states(
        self, original: cst.Call, receiver: cst.BaseExpression
    ) -> Optional[Callable[[cst.Call], cst.Call]]:
        kind = self._kind(receiver)
        if kind == "metric":
            if self.fix(original, "Keras 3 metrics have `reset_state()`; `reset_states()` raises AttributeError"):
                return lambda updated: updated.with_changes(
                    func=updated.func.with_changes(attr=cst.Name("reset_state"))
                )
        elif kind == "model":
            self.report(
                original,
                "Keras 3 models have no `reset_states()`: call `reset_states()` on each stateful RNN layer (`for layer in model.layers`)",
            )
        elif kind is None:
            self.report(
                original,
                "if this is a Keras metric, Keras 3 only has `reset_state()` (`reset_states()` raises AttributeError); Keras 3 RNN layers keep `reset_states()`",
            )
        return None

    def _generator_method(self, original, receiver, method) -> Optional[Callable[[cst.Call], cst.Call]]:
        new_method, accepted, verbose_default = GENERATOR_METHODS[method]
        kind = self._kind(receiver)
        if self._is_tf_keras(receiver) or kind == "tf_keras":
            return None
        if kind != "model":
            self.report(
                original,
                f"`{method}` was removed in Keras 3: if this is a Keras model, call `{new_method}` (it takes generators and `keras.utils.PyDataset`)",
            )
            return None
        positional = [a for a in original.args if a.keyword is None]
        keywords = [a.keyword.value for a in original.args if a.keyword is not None]
        rejected = [k for k in keywords if k not in accepted]
        if len(positional) > 1 or any(a.star for a in original.args) or rejected:
            why = (
                f"`{', '.join(rejected)}` moved to `keras.utils.PyDataset`"
                if rejected
                else "pass the arguments after the data by keyword"
            )
            self.report(original, f"`{method}` was removed in Keras 3: call `{new_method}` ({why})")
            return None
        if not self.fix(original, f"`{method}` was removed in Keras 3: `{new_method}` takes the generator"):
            return None

        def edit(updated: cst.Call) -> cst.Call:
            args = [
                a.with_changes(keyword=cst.Name(accepted[a.keyword.value])) if a.keyword is not None else a
                for a in updated.args
            ]
            if verbose_default is not None and "verbose" not in keywords:
                args = [
                    *(a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in args),
                    _keyword("verbose", cst.Integer(verbose_default)),
                ]
            return updated.with_changes(func=updated.func.with_changes(attr=cst.Name(new_method)), args=args)

        return edit

    def _add_weight(self, original: cst.Call) -> Optional[Callable[[cst.Call], cst.Call]]:
        kind = self._class_kind
        if kind is None:
            return None
        order, accepted = (
            (METRIC_ADD_WEIGHT, METRIC_KEYWORDS) if kind == "metric" else (LAYER_ADD_WEIGHT, LAYER_KEYWORDS)
        )
        positional = [a for a in original.args if a.keyword is None]
        keywords = [a.keyword.value for a in original.args if a.keyword is not None]
        rejected = [k for k in keywords if k not in accepted]
        if rejected or any(a.star for a in original.args) or len(positional) > len(order):
            what = f"`{', '.join(rejected)}`" if rejected else "these positional arguments"
            self.report(
                original,
                f"Keras 3 `add_weight` does not take {what} (its signature is `add_weight(shape, initializer, dtype, ..., name=...)`): convert by hand",
            )
            return None
        if kind == "metric" and "initializer" not in keywords:
            self.report(original, 'Keras 3 metric weights need an explicit `initializer=` (e.g. "zeros")')
            return None
        if not positional:
            return None
        if not self.fix(
            original,
            "Keras 3 `add_weight` takes `shape, initializer, dtype` positionally: pass Keras 2's positional arguments by keyword",
        ):
            return None
        return lambda updated: updated.with_changes(
            args=[
                a.with_changes(keyword=cst.Name(order[i]), equal=no_space_equal()) if i < len(positional) else a
                for i, a in enumerate(updated.args)
            ]
        )

    def leave_Attribute(self, original: cst.Attribute) -> None:
        if original.attr.value == "lr":
            self._lr(original)
            return
        if self._is_tf_keras(original):
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


def _without(args: list[cst.Arg], index: int) -> list[cst.Arg]:
    """``args`` without ``args[index]``, the last argument keeping no trailing comma."""
    kept = args[:index] + args[index + 1 :]
    if kept and index == len(args) - 1:
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return kept


def _keyword(name: str, value: cst.BaseExpression) -> cst.Arg:
    return cst.Arg(value, keyword=cst.Name(name), equal=no_space_equal())
