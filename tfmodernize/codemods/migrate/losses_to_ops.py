"""TFM108 losses-to-ops.

What it does
    Rewrites a call of one of TF1's loss functions as the TF2 ops it computes, reduced the way
    TF1 reduced it (``reduction``, default: the mean over every element):

    * ``tf.losses.mean_squared_error(labels, predictions)`` ->
      ``tf.reduce_mean(tf.math.squared_difference(tf.cast(predictions, tf.float32), tf.cast(labels, tf.float32)))``;
    * ``absolute_difference`` -> ``tf.abs(predictions - labels)`` (both cast to float32, as TF1 did);
    * ``hinge_loss(labels, logits)`` -> ``tf.nn.relu(1 - (2 * labels - 1) * logits)`` (cast likewise);
    * ``sigmoid_cross_entropy(multi_class_labels, logits)`` ->
      ``tf.nn.sigmoid_cross_entropy_with_logits(labels=..., logits=...)``;
    * ``softmax_cross_entropy(onehot_labels, logits)`` ->
      ``tf.nn.softmax_cross_entropy_with_logits(labels=tf.stop_gradient(...), logits=...)``;
    * ``sparse_softmax_cross_entropy(labels, logits)`` ->
      ``tf.keras.losses.sparse_categorical_crossentropy(labels, logits, from_logits=True)``,
      which drops a trailing dimension of 1 from the labels as TF1 did.

    ``reduction=tf.losses.Reduction.SUM`` becomes ``tf.reduce_sum``, ``NONE`` the per-element
    losses, and ``MEAN``, ``SUM_OVER_BATCH_SIZE`` and the default ``SUM_BY_NONZERO_WEIGHTS``
    ``tf.reduce_mean``. ``scope=`` only named ops and goes. ``label_smoothing`` of the sigmoid
    and softmax cross-entropies is TF1's formula written out: ``y * (1 - s) + 0.5 * s``, and
    ``y * (1 - s) + s / tf.cast(tf.shape(y)[-1], logits.dtype)`` (``s`` divided among the
    classes). ``weights`` are TF1's weighted reduction written out: the per-element losses
    times the weights (cast to float32), summed, and divided by how many weights, broadcast to
    the losses, are not zero (by default), by their sum (``MEAN``) or by the losses' count
    (``SUM_OVER_BATCH_SIZE``); where the losses are read twice they are bound to
    ``<loss>_per_element`` on a line before the loss's.

Why it matters
    TF 2.x has no ``tf.losses.mean_squared_error``: TF2's ``tf.losses`` is Keras's, whose
    functions take other arguments and average over the last axis only. ``tf_upgrade_v2``
    writes ``tf.compat.v1.losses.*``, which adds each loss to a graph collection and keeps the
    whole program on TF1 for one line.

Before
    loss = tf.losses.softmax_cross_entropy(onehot_labels=y, logits=logits)

After
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=tf.stop_gradient(y), logits=logits))

Fix safety
    TF1 summed the per-element losses and divided by their count (``weights`` 1, the default):
    ``tf.reduce_mean`` gives the same float32 bits (checked on TensorFlow, and by the fixtures
    numerically, weighted reductions with zero weights included). The ops are TF1's own: TF1 cast labels and predictions of the regression
    losses to float32 and stopped the gradient into softmax labels, and so does the rewrite.
    Two differences are left on purpose: TF1 reduced float16/float64 cross-entropies in float32
    (the rewrite reduces in their own dtype, a rounding difference), and TF1 cast
    cross-entropy labels to the logits' dtype (TF2's op raises on integer labels instead of
    computing, loudly).

Declines when
    a ``loss_collection`` other than None is given; ``reduction`` is not a ``tf.losses.Reduction``
    member written out; ``weights`` of ``sparse_softmax_cross_entropy`` (TF1 squeezed them to the
    labels' rank), or, where the weighted reduction reads the losses and the weights twice,
    weights computed by an expression or a loss that is not ``name = tf.losses.X(...)`` on a
    line of its own; the arguments hide behind ``*args``/``**kwargs``. ``label_smoothing`` that is
    not a literal of zero or more nor a name, or softmax labels or logits computed by a call
    (the formula reads them twice: bind them to a name).
    Every call of the file, when it reads the loss collection the TF1 functions add to
    (``tf.losses.get_total_loss()``, ``get_losses``, ``GraphKeys.LOSSES``); in a module other
    files of the run import, a call inside a function when an importing file stays on TF1 (it
    may read the collection). A name spelled ``tf.compat.v2.losses.*`` is Keras's and is left.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst

from tfmodernize.codemod import Decline, TFCodemod
from tfmodernize.layout import depth, fitted, style_width
from tfmodernize.analysis.tables import literal_text
from tfmodernize.analysis.variable_calls import arguments
from tfmodernize.names import fresh_name, used_names
from tfmodernize.syntax import (
    ancestors,
    argument,
    is_none,
    parenthesized,
    source,
    statement_holding,
)
from tfmodernize.tfsymbols import dotted_name
from tfmodernize.treewalk import walk

#: The options every TF1 loss function takes after its two tensors.
OPTIONS = ("weights", "scope", "loss_collection", "reduction")


@dataclass(frozen=True)
class Loss:
    """One TF1 loss function: its parameters in order, and the code of its per-element losses
    (``{tf}``: TF2's top level; ``{labels}``, ``{values}``: the two tensors, cast to float32
    first when ``to_float``); ``smoothed``: the code of the labels ``label_smoothing``
    (``{smoothing}``) smooths, TF1's formula (``{labels}`` and ``{values}`` are read twice
    when written twice)."""

    parameters: tuple[str, ...]
    elements: str
    to_float: bool = False
    smoothed: Optional[str] = None


LOSSES = {
    "losses.mean_squared_error": Loss(
        ("labels", "predictions", *OPTIONS), "{tf}.math.squared_difference({values}, {labels})", to_float=True
    ),
    "losses.absolute_difference": Loss(
        ("labels", "predictions", *OPTIONS), "{tf}.abs({values} - {labels})", to_float=True
    ),
    "losses.hinge_loss": Loss(
        ("labels", "logits", *OPTIONS), "{tf}.nn.relu(1 - (2 * {labels} - 1) * {values})", to_float=True
    ),
    "losses.sigmoid_cross_entropy": Loss(
        ("multi_class_labels", "logits", "weights", "label_smoothing", "scope", "loss_collection", "reduction"),
        "{tf}.nn.sigmoid_cross_entropy_with_logits(labels={labels}, logits={values})",
        smoothed="{labels} * (1 - {smoothing}) + 0.5 * {smoothing}",
    ),
    "losses.softmax_cross_entropy": Loss(
        ("onehot_labels", "logits", "weights", "label_smoothing", "scope", "loss_collection", "reduction"),
        "{tf}.nn.softmax_cross_entropy_with_logits(labels={tf}.stop_gradient({labels}), logits={values})",
        smoothed="{labels} * (1 - {smoothing}) + {smoothing} / {tf}.cast({tf}.shape({labels})[-1], {values}.dtype)",
    ),
    "losses.sparse_softmax_cross_entropy": Loss(
        ("labels", "logits", *OPTIONS),
        "{tf}.keras.losses.sparse_categorical_crossentropy({labels}, {values}, from_logits=True)",
    ),
}
#: The code of ``tf.losses.Reduction`` members' reductions of the per-element losses ``{E}``:
#: without weights, and with weights ``{W}`` (cast to float32, as TF1 did). ``MEAN`` divided
#: by the sum of the weights, the default ``SUM_BY_NONZERO_WEIGHTS`` by how many of them,
#: broadcast to the losses, are not zero; without weights all three are the mean.
NONZERO = (
    "{tf}.math.divide_no_nan({tf}.reduce_sum({E} * {W}), "
    "{tf}.math.count_nonzero({tf}.broadcast_to({W}, {tf}.shape({E})), dtype={tf}.float32))"
)
REDUCTIONS = {
    "NONE": ("{E}", "{E} * {W}"),
    "SUM": ("{tf}.reduce_sum({E})", "{tf}.reduce_sum({E} * {W})"),
    "MEAN": (
        "{tf}.reduce_mean({E})",
        "{tf}.math.divide_no_nan({tf}.reduce_sum({E} * {W}), {tf}.reduce_sum({tf}.ones_like({E}) * {W}))",
    ),
    "SUM_OVER_BATCH_SIZE": (
        "{tf}.reduce_mean({E})",
        "{tf}.math.divide_no_nan({tf}.reduce_sum({E} * {W}), {tf}.cast({tf}.size({E}), {tf}.float32))",
    ),
    "SUM_BY_NONZERO_WEIGHTS": ("{tf}.reduce_mean({E})", NONZERO),
    "SUM_OVER_NONZERO_WEIGHTS": ("{tf}.reduce_mean({E})", NONZERO),
}
#: What reads the collection TF1's loss functions add their result to.
COLLECTION_READERS = ("losses.get_total_loss", "losses.get_losses", "GraphKeys.LOSSES")


def _repeatable(node: cst.BaseExpression) -> bool:
    """Whether reading ``node`` twice computes nothing twice: a name, an attribute of one, or a
    subscript of one by a literal (``end_points["Logits"]``)."""
    if dotted_name(node) is not None:
        return True
    return (
        isinstance(node, cst.Subscript)
        and _repeatable(node.value)
        and len(node.slice) == 1
        and isinstance(node.slice[0].slice, cst.Index)
        and isinstance(node.slice[0].slice.value, (cst.SimpleString, cst.Integer))
    )


class LossesToOps(TFCodemod):
    __doc__ = __doc__
    code = "TFM108"
    name = "losses-to-ops"
    summary = "tf.losses.mean_squared_error/softmax_cross_entropy/... -> the TF2 ops they compute, reduced as TF1 did"
    needles = ("losses",)
    interests = (cst.Call,)
    detects = tuple(LOSSES)
    requires_tf2 = True

    def plan(self, module: cst.Module) -> None:
        calls = [node for node in walk(module, code_only=True) if isinstance(node, cst.Call)]
        losses = [
            (call, symbol)
            for call in calls
            for symbol in [self.tf.tf_symbol(call.func)]
            if symbol is not None and symbol.path in LOSSES
        ]
        if not losses:
            return
        reader = self._collection_reader(module)
        parents = self.state.parents(module)
        self._taken: Optional[set[str]] = None  # the file's names, read when a loss needs a new one
        self._fitted: set[int] = set()  # the statements wrapped to the file's width
        for call, symbol in losses:
            if self.suppressed(call) or symbol.v2:
                continue
            try:
                if reader is not None:
                    raise Decline(
                        call,
                        f"the file reads the loss collection TF1's loss functions add to ({reader}): "
                        "migrate that read first (sum the losses you mean)",
                    )
                self._rewrite(module, call, symbol.path, parents)
            except Decline as decline:
                self.declined(decline, f"tf.{symbol.path} not migrated: ")

    def _collection_reader(self, module: cst.Module) -> Optional[str]:
        """``tf.losses.get_total_loss (line N)`` when the file reads TF1's loss collection."""
        for node in walk(module, code_only=True):
            if isinstance(node, cst.Attribute):
                symbol = self.tf.tf_symbol(node)
                if symbol is not None and symbol.path in COLLECTION_READERS:
                    return f"tf.{symbol.path} on line {self.state.position(node)[0]}"
            elif isinstance(node, cst.Call) and self.tf.is_tf(node.func, "get_collection", "get_collection_ref"):
                key = node.args[0].value if node.args else None
                if isinstance(key, cst.SimpleString) and key.evaluated_value == "losses":
                    return f"tf.get_collection('losses') on line {self.state.position(node)[0]}"
        return None

    def _rewrite(self, module: cst.Module, call: cst.Call, path: str, parents: dict) -> None:
        loss = LOSSES[path]
        args = arguments(call, loss.parameters, what="this loss function")
        if not is_none(args.get("loss_collection")):
            raise Decline(
                call, "it is added to a collection of its own (`loss_collection=`), which TF2 has no equivalent of"
            )
        labels, values = loss.parameters[0], loss.parameters[1]
        if labels not in args or values not in args:
            raise Decline(call, "its labels or its predictions are not passed")
        smoothing = args.get("label_smoothing")
        if smoothing is not None and literal_text(smoothing) in ("0", "0.0"):
            smoothing = None
        if smoothing is not None:
            self._check_smoothing(call, loss, smoothing, {"labels": args[labels], "values": args[values]})
        reduction = self._reduction(call, args.get("reduction"))
        weights = args.get("weights")
        if weights is not None and literal_text(weights) in ("1", "1.0"):
            weights = None
        bound = self._check_weights(call, path, weights, reduction, parents) if weights is not None else None
        if (
            any(isinstance(n, (cst.FunctionDef, cst.Lambda)) for n in ancestors(call, parents))
            and self.state.callers is not None
        ):
            # A file importing this module may read the collection the loss is added to: it
            # stays on TF1 (and could read it) only if it could not follow this export.
            if not self.state.exports_allowed:
                raise Decline(
                    call,
                    f"its module is imported and {self.state.exports_refused}, where the loss "
                    "collection TF1 added it to may be read",
                )
            self.state.exports.setdefault(self.code, {})["losses"] = True
        how = {"NONE": "per element", "SUM": "the sum"}.get(reduction, "the mean over every element")
        if weights is not None:
            how = {
                "NONE": "per element, weighted",
                "SUM": "the weighted sum",
                "MEAN": "divided by the sum of the weights",
                "SUM_OVER_BATCH_SIZE": "the weighted sum over the count",
            }.get(reduction, "the weighted mean over the non-zero weights")
        if not self.fix(call, f"TF1 loss function -> the TF2 ops it computes, reduced as TF1 did ({how})"):
            return
        tf = self.tf_root()

        def elements_of(new: dict[str, cst.BaseExpression]) -> str:
            texts = {key: source(parenthesized(new[key])) for key in (labels, values)}
            if loss.to_float:
                texts = {
                    key: text if self._float32(new[key]) else f"{tf}.cast({text}, {tf}.float32)"
                    for key, text in texts.items()
                }
            if smoothing is not None:
                texts[labels] = loss.smoothed.format(
                    tf=tf, labels=texts[labels], values=texts[values], smoothing=source(new["label_smoothing"])
                )
            return loss.elements.format(tf=tf, labels=texts[labels], values=texts[values])

        unweighted, weighted = REDUCTIONS[reduction]
        if weights is None:
            self.replace(
                call,
                lambda updated: cst.parse_expression(
                    unweighted.format(
                        tf=tf, E=elements_of(arguments(updated, loss.parameters, what="this loss function"))
                    )
                ),
            )
            self._fit(call, parents)
            return
        elements = elements_of(args)
        # A number is converted to float32 by the product, as TF1's cast did.
        cast = (
            source(weights)
            if isinstance(weights, (cst.Integer, cst.Float))
            else f"{tf}.cast({source(weights)}, {tf}.float32)"
        )
        if bound is not None:
            # The per-element losses are read twice: bound to a name on a line before.
            name, line = bound
            if self._taken is None:
                self._taken = used_names(module)
            per_element = fresh_name(f"{name}_per_element", self._taken)
            bound_line = cst.parse_statement(f"{per_element} = {elements}")
            limit, deep = style_width(self.state.text), depth(line, parents)
            self.insert_before(line, [fitted(bound_line, limit, deep, further=True)])
            elements = per_element
        self.replace(call, cst.parse_expression(weighted.format(tf=tf, E=parenthesized_text(elements), W=cast)))
        self._fit(call, parents)

    def _fit(self, call: cst.Call, parents: dict) -> None:
        """The statement holding ``call``, rewritten, wrapped to the file's width where it grew
        wider (once, however many losses it holds)."""
        line = statement_holding(call, parents)
        if line is None or id(line) in self._fitted:
            return
        self._fitted.add(id(line))
        deep, width = depth(line, parents), style_width(self.state.text)
        self.replace(line, lambda updated: fitted(updated, width, deep, further=True))

    def _check_weights(
        self, call: cst.Call, path: str, weights: cst.BaseExpression, reduction: str, parents: dict
    ) -> Optional[tuple[str, cst.SimpleStatementLine]]:
        """Declines ``weights`` the rewrite cannot write TF1's weighted reduction with; returns
        ``(name, line)`` of ``name = <the loss>`` (or ``name += <the loss>``; the name a target
        other than a name ends with, else ``loss``) when that reduction reads the per-element
        losses twice (they are bound to ``<name>_per_element`` on a line before it)."""
        if path == "losses.sparse_softmax_cross_entropy":
            raise Decline(
                call,
                "it is given `weights`, which TF1 squeezed to the labels' rank here: write the weighted mean by hand",
            )
        if reduction in ("NONE", "SUM"):
            return None
        if literal_text(weights) is None and not _repeatable(weights):
            raise Decline(
                call,
                "its `weights` are computed here and TF1's weighted mean reads them twice: bind them to a name first",
            )
        small = parents.get(id(call))
        line = parents.get(id(small))
        if not (
            isinstance(small, (cst.Assign, cst.AugAssign))
            and small.value is call
            and isinstance(line, cst.SimpleStatementLine)
            and len(line.body) == 1
            and (isinstance(small, cst.AugAssign) or len(small.targets) == 1)
        ):
            raise Decline(
                call,
                "it is given `weights` inside a larger expression, and TF1's weighted mean reads the "
                "per-element losses twice: bind the loss to a name on a line of its own",
            )
        target = small.target if isinstance(small, cst.AugAssign) else small.targets[0].target
        name = dotted_name(target)
        return (name.rpartition(".")[2] if name is not None else "loss"), line

    @staticmethod
    def _check_smoothing(
        call: cst.Call, loss: Loss, smoothing: cst.BaseExpression, tensors: dict[str, cst.BaseExpression]
    ) -> None:
        """Declines a ``label_smoothing`` TF1's formula cannot be written out with: a number
        not written as a literal of zero or more or as a name (TF1 smoothed only above zero,
        and with 0 the formula gives the labels exactly), or labels or logits the formula reads
        twice that a call computes."""
        if loss.smoothed is None:
            raise Decline(call, "it smooths its labels (`label_smoothing=`): write the smoothed labels by hand")
        number = literal_text(smoothing)
        if number is not None and (not isinstance(smoothing, (cst.Integer, cst.Float)) or float(number) < 0):
            raise Decline(call, "its `label_smoothing` is not a number of zero or more")
        if number is None and dotted_name(smoothing) is None:
            raise Decline(call, "its `label_smoothing` is computed here: bind it to a name first")
        # The smoothed labels stand in the losses' formula where the labels stood.
        reads = {
            "labels": loss.smoothed.count("{labels}"),
            "values": loss.smoothed.count("{values}") + loss.elements.count("{values}"),
        }
        if any(reads[role] > 1 and not _repeatable(tensor) for role, tensor in tensors.items()):
            raise Decline(
                call,
                "TF1's label smoothing reads its labels (or logits) twice, and a call computes them "
                "here: bind them to a name first",
            )

    def _float32(self, value: cst.BaseExpression) -> bool:
        """Whether ``value`` is written as a cast to float32 already (``tf.cast(x, tf.float32)``)."""
        if not (isinstance(value, cst.Call) and self.tf.is_tf(value.func, "cast", "to_float")):
            return False
        dtype = argument(value, 1, "dtype")
        symbol = self.tf.tf_symbol(dtype) if dtype is not None else None
        return self.tf.is_tf(value.func, "to_float") or (symbol is not None and symbol.path == "float32")

    def _reduction(self, call: cst.Call, reduction: Optional[cst.BaseExpression]) -> str:
        """The ``tf.losses.Reduction`` member passed (TF1's default when none is)."""
        if reduction is None:
            return "SUM_BY_NONZERO_WEIGHTS"
        symbol = self.tf.tf_symbol(reduction)
        member = (
            symbol.path.rpartition(".")[2]
            if symbol is not None and symbol.path.startswith("losses.Reduction.")
            else None
        )
        if member not in REDUCTIONS:
            raise Decline(call, "its `reduction` is not a tf.losses.Reduction member written out")
        return member


def parenthesized_text(code: str) -> str:
    """``code`` as an operand of ``*``: in parentheses unless it is atomic."""
    return source(parenthesized(cst.parse_expression(code)))
