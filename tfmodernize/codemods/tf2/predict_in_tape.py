"""TFM205 predict-in-tape.

What it does
    Inside a ``with tf.GradientTape() as tape:`` block, rewrites ``model.predict(x)`` whose
    result reaches the target of ``tape.gradient`` to ``model(x, training=False)``, and drops a
    now-pointless ``tf.convert_to_tensor(...)`` around it. ``verbose=`` and ``batch_size=``
    arguments go (they only matter to ``predict``'s own batching loop); any other argument
    (``steps``, ``callbacks``), or an input built with ``tf.data`` (which ``predict``
    iterates but a model call does not take), leaves the call alone with a finding.

    Fix safety: safe when ``model`` is provably a Keras model or layer (bound in the file to
    ``keras.Sequential(...)``, ``keras.Model(...)``, a ``keras.layers`` layer or an instance
    of a Keras subclass of the file); otherwise unsafe, as another object's ``predict`` may
    not be its ``__call__``; also unsafe when comments inside the call would be lost. A
    prediction used as a NumPy array anywhere (``pred.argmax()``, ``pred.tolist()``) is
    reported instead: as a tensor it would break. NumPy calls on the way from the prediction to
    the gradient target in the block become the TF op computing the same (``np.mean`` ->
    ``tf.reduce_mean``, ``np.sum``, ``np.square``, ...), so the rewritten code computes the
    gradient; a NumPy call with no such op (``np.median``) leaves the call alone with a finding.

Why it matters
    ``predict`` runs its own loop and returns a NumPy array: the tape cannot record through
    it, so every gradient is ``None`` (and ``apply_gradients`` fails with "No gradients
    provided for any variable"). Calling the model runs the same inference-mode computation
    as tensors the tape records.

Before
    with tf.GradientTape() as tape:
        pred = tf.convert_to_tensor(model.predict(x, verbose=0))
        loss = tf.reduce_mean((pred - y) ** 2)
    grads = tape.gradient(loss, model.trainable_variables)

After
    with tf.GradientTape() as tape:
        pred = model(x, training=False)
        loss = tf.reduce_mean((pred - y) ** 2)
    grads = tape.gradient(loss, model.trainable_variables)

Fix safety
    Safe when the object is provably a Keras model or layer: ``model(x, training=False)`` computes
    what ``predict`` computed, as a tensor the tape records; otherwise unsafe.

Declines when
    ``predict`` is given ``batch_size``, callbacks, a generator or a ``tf.data`` dataset, or comments
    inside the call would be lost. Says nothing when the object may be an instance of a plain
    class of the file (not Keras) defining its own ``predict`` (one of its bindings makes one, or
    it is only a function's parameter): that ``predict`` need not return NumPy.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst
from libcst.metadata import ParentNodeProvider, ScopeProvider

from tfmodernize.analysis.bindings import (
    bindings,
    keras_classes,
    may_be_plain_instance,
    plain_classes_owning,
    provably_keras,
    references,
)
from tfmodernize.treewalk import walk
from tfmodernize.analysis.tape import GradientCall, gradient_calls, numpy_as_tf, numpy_function, tape_with
from tfmodernize.names import bound_names, names_read
from tfmodernize.codemod import TFCodemod
from tfmodernize.syntax import source
from tfmodernize.tfsymbols import dotted_name

#: ``predict`` arguments that do not change the values it returns.
DROPPABLE = ("verbose", "batch_size")
#: Attributes that NumPy arrays and tensors both have with the same meaning.
ARRAY_AND_TENSOR = ("shape", "dtype", "ndim")


def _predict_call(node: cst.CSTNode) -> bool:
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "predict"
        and dotted_name(node.func.value) is not None
    )


class PredictInTape(TFCodemod):
    __doc__ = __doc__
    code = "TFM205"
    name = "predict-in-tape"
    summary = "model.predict(x) (numpy, no gradient) inside a tape -> model(x, training=False)"
    needles = ("predict",)
    required_text = ("GradientTape",)
    interests = (cst.Call,)
    METADATA_DEPENDENCIES = (ScopeProvider, ParentNodeProvider)

    @classmethod
    def detect(cls, node: cst.CSTNode, names) -> bool:
        return _predict_call(node)

    def visit_Module(self, node: cst.Module) -> None:
        self._scopes = self.metadata[ScopeProvider]
        self._parents = self.metadata[ParentNodeProvider]
        self._module = node
        self._classes = keras_classes(node, self.tf)
        self._plain = plain_classes_owning(node, self._classes, ("predict",))
        #: node to replace (the predict call or its convert_to_tensor wrapper) -> predict call
        self._replace: dict[cst.Call, cst.Call] = {}
        #: NumPy call on the way to a gradient target -> the TF op replacing its function
        self._numpy: dict[cst.Call, str] = {}
        done: set[cst.Call] = set()
        for call in gradient_calls(node, self.tf, self._scopes, self._parents):
            block = tape_with(call.tape, self._scopes, self._parents)
            if block is None or not isinstance(block.body, cst.IndentedBlock):
                continue
            for predict, tainted in self._predictions_reaching(block, call):
                if predict not in done:
                    done.add(predict)
                    self._plan(predict, block, tainted)

    def _predictions_reaching(self, block: cst.With, call: GradientCall) -> list[tuple[cst.Call, set[str]]]:
        """The ``predict`` calls of the block whose result flows into the gradient target, each
        with the names its result flows through."""
        statements = list(block.body.body)
        target_names = names_read(call.target)
        found = []
        for index, statement in enumerate(statements):
            calls = [n for n in walk(statement) if _predict_call(n)]
            if not calls:
                continue
            tainted = bound_names(statement)
            for later in statements[index + 1 :]:
                if names_read(later) & tainted:
                    tainted |= bound_names(later)
            if tainted & target_names:
                found.extend((c, tainted) for c in calls)
        return found

    def _numpy_on_the_way(
        self, predict: cst.Call, block: cst.With, tainted: set[str]
    ) -> tuple[dict[cst.Call, str], Optional[str]]:
        """The NumPy calls between the prediction and the gradient target, each with the TF op
        computing the same on a tensor; or the one that has none (then the gradient would
        stay None)."""
        converted: dict[cst.Call, str] = {}
        for node in walk(block.body):
            if not isinstance(node, cst.Call) or node is predict:
                continue
            function = numpy_function(node.func, self._scopes, self._parents)
            if function is None:
                continue
            operands = [n for a in node.args for n in walk(a.value)]
            if not (
                any(n is predict for n in operands)
                or names_read(cst.Tuple([cst.Element(a.value) for a in node.args])) & tainted
            ):
                continue
            tf_path = numpy_as_tf(node, function)
            if tf_path is None:
                return {}, (
                    f"the prediction goes through NumPy (`{dotted_name(node.func) or source(node.func)}`), "
                    "which has no TF op here and would still cut the gradient"
                )
            converted[node] = tf_path
        return converted, None

    def _plan(self, predict: cst.Call, block: cst.With, tainted: set[str]) -> None:
        owner = predict.func.value
        spelled = dotted_name(owner)
        safe = provably_keras(owner, self._module, self.tf, self._scopes, self._parents, self._classes)
        if not safe and may_be_plain_instance(owner, self._module, self._plain, self._scopes, self._parents):
            return  # a class of the file that is not Keras has its own `predict`
        why = self._why_not(predict)
        converted: dict[cst.Call, str] = {}
        if why is None:
            converted, why = self._numpy_on_the_way(predict, block, tainted)
        if why is not None:
            self.report(
                predict,
                f"`{spelled}.predict(...)` inside the tape returns NumPy, so the gradient through it is "
                f"None; not rewritten because {why}: call `{spelled}(x, training=False)` instead",
            )
            return
        message = (
            f"`{spelled}.predict(...)` returns NumPy, which the tape cannot record (gradient None): "
            f"use `{spelled}(x, training=False)`"
        )
        if not safe:
            message += f"; `{spelled}` is not provably a Keras model or layer in this file"
        replaced = self._converter(predict) or predict
        if any(isinstance(node, cst.Comment) for node in walk(replaced)):
            safe = False
            message += "; the rewrite would drop the comments inside the call"
        if converted:
            names = ", ".join(sorted({f"`{dotted_name(c.func)}` -> `tf.{p}`" for c, p in converted.items()}))
            message += f"; the NumPy on the way to the gradient target becomes TF ({names})"
        if not self.fix(predict, message, safe=safe, suggestion=f"{spelled}(x, training=False)"):
            return
        self._replace[replaced] = predict
        self._numpy.update(converted)

    def _why_not(self, predict: cst.Call) -> Optional[str]:
        inputs = [a for a in predict.args if a.keyword is None or a.keyword.value == "x"]
        others = [
            a.keyword.value for a in predict.args if a.keyword is not None and a.keyword.value not in ("x", *DROPPABLE)
        ]
        if any(a.star for a in predict.args) or len(inputs) != 1 or others:
            return f"`predict` gets arguments a model call does not take ({', '.join(others) or 'positional'})"
        if self._from_tf_data(inputs[0].value):
            return "its input is a `tf.data` pipeline, which `predict` iterates but a model call does not take"
        wrapper = self._converter(predict) or predict
        parent = self._parents.get(wrapper)
        if isinstance(parent, cst.Assign):
            for target in parent.targets:
                if not isinstance(target.target, cst.Name):
                    continue
                for use in references(target.target, self._scopes) or ():
                    user = self._parents.get(use)
                    if (
                        isinstance(user, cst.Attribute)
                        and user.value is use
                        and user.attr.value not in ARRAY_AND_TENSOR
                    ):
                        return f"the prediction is used as a NumPy array (`.{user.attr.value}`)"
        return None

    def _from_tf_data(self, expr: cst.BaseExpression) -> bool:
        """Whether ``expr``, or what a name in it is bound to, is built with ``tf.data``."""
        values = [expr]
        if isinstance(expr, cst.Name):
            values.extend(b.value for b in bindings(expr, self._scopes, self._parents) if b.value is not None)
        for value in values:
            for node in walk(value):
                symbol = self.tf.tf_symbol(node) if isinstance(node, (cst.Name, cst.Attribute)) else None
                if symbol is not None and symbol.path.startswith("data."):
                    return True
        return False

    def _converter(self, predict: cst.Call) -> Optional[cst.Call]:
        """The ``tf.convert_to_tensor(predict)`` call around ``predict``, if that is all it does."""
        parent = self._parents.get(predict)
        if not isinstance(parent, cst.Arg):
            return None
        outer = self._parents.get(parent)
        if (
            isinstance(outer, cst.Call)
            and self.tf.is_tf(outer.func, "convert_to_tensor")
            and len(outer.args) == 1
            and outer.args[0] is parent
            and parent.keyword is None
        ):
            return outer
        return None

    def leave_Call(self, original: cst.Call) -> None:
        tf_path = self._numpy.get(original)
        if tf_path is not None:
            self.replace(original.func, self.tf_expr(tf_path))
            return
        predict = self._replace.get(original)
        if predict is None:
            return
        inputs = next(a for a in predict.args if a.keyword is None or a.keyword.value == "x")
        self.replace(
            original,
            cst.Call(
                func=predict.func.value,
                args=[
                    cst.Arg(inputs.value),
                    cst.Arg(
                        cst.Name("False"),
                        keyword=cst.Name("training"),
                        equal=cst.AssignEqual(
                            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
                        ),
                    ),
                ],
            ),
        )
