"""Keras-3-renames' call rewrites, each a function of the call, what its receiver is known to
be and the codemod's ``Findings``: an edit of the call as rebuilt, or None (a finding said why)."""

from __future__ import annotations

from typing import Callable, Optional, Protocol

import libcst as cst

from tfmodernize.codemods.tf2.keras3_renames.tables import (
    GENERATOR_METHODS,
    LAYER_ADD_WEIGHT,
    LAYER_KEYWORDS,
    METRIC_ADD_WEIGHT,
    METRIC_KEYWORDS,
    REMOVED_LAYER_ARGUMENTS,
)
from tfmodernize.syntax import no_space_equal


class Findings(Protocol):
    """What the call rewrites ask a fix and report a finding with (``TFCodemod``'s)."""

    def fix(self, node: cst.CSTNode, message: str) -> bool: ...

    def report(self, node: cst.CSTNode, message: str) -> None: ...


def optimizer_arguments(
    original: cst.Call,
    findings: Findings,
) -> Optional[Callable[[cst.Call], cst.Call]]:
    """An optimizer constructor's ``lr=`` -> ``learning_rate=``, and its ``decay=``."""
    keywords = {a.keyword.value for a in original.args if a.keyword is not None}
    if "lr" in keywords and "learning_rate" in keywords:
        return None
    rename = "lr" in keywords and findings.fix(original, "Keras 3 optimizers take `learning_rate=`, not `lr=`")
    decay = _decay(original, findings) if "decay" in keywords else None
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


def _decay(
    original: cst.Call,
    findings: Findings,
) -> Optional[Callable[[list[cst.Arg]], list[cst.Arg]]]:
    """Keras 2's ``decay=d`` (``lr / (1 + d * iterations)``), which Keras 3 ignores, as
    the equal ``InverseTimeDecay(lr, decay_steps=1, decay_rate=d)`` schedule."""
    args = list(original.args)
    index = next(i for i, a in enumerate(args) if a.keyword is not None and a.keyword.value == "decay")
    decay = args[index].value
    if isinstance(decay, (cst.Integer, cst.Float)) and float(decay.value) == 0:
        if findings.fix(original, "Keras 3 optimizers have no `decay=` (ignored with a warning); it was 0"):
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
        findings.report(
            original,
            f"Keras 3 optimizers ignore `decay=` (Keras 2 divided the learning rate by 1 + decay * iterations): {hint} with the learning rate made explicit",
        )
        return None
    if isinstance(args[rate].value, cst.Call) or not isinstance(original.func, cst.Attribute):
        findings.report(
            original,
            f"Keras 3 optimizers ignore `decay=` (Keras 2 divided the learning rate by 1 + decay * iterations): {hint}",
        )
        return None
    if not findings.fix(
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


def layer_arguments(
    original: cst.Call,
    findings: Findings,
) -> Optional[Callable[[cst.Call], cst.Call]]:
    """Keras 2 layer arguments Keras 3 rejects: dropped where they were the default."""
    dropped = []
    for name, advice in REMOVED_LAYER_ARGUMENTS.items():
        arg = next((a for a in original.args if a.keyword is not None and a.keyword.value == name), None)
        if arg is None:
            continue
        if isinstance(arg.value, cst.Name) and arg.value.value == "False" and name in ("time_major", "dynamic"):
            if findings.fix(original, f"Keras 3 layers reject `{name}=`; `{name}=False` was the default"):
                dropped.append(name)
        else:
            findings.report(original, f"Keras 3 layers reject `{name}=`: {advice}")
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


def reset_states(
    original: cst.Call, kind: Optional[str], findings: Findings
) -> Optional[Callable[[cst.Call], cst.Call]]:
    """``receiver.reset_states()`` of a metric -> ``reset_state()``; ``kind``: what Keras object
    the receiver is known to be."""
    if kind == "metric":
        if findings.fix(original, "Keras 3 metrics have `reset_state()`; `reset_states()` raises AttributeError"):
            return lambda updated: updated.with_changes(func=updated.func.with_changes(attr=cst.Name("reset_state")))
    elif kind == "model":
        findings.report(
            original,
            "Keras 3 models have no `reset_states()`: call `reset_states()` on each stateful RNN layer (`for layer in model.layers`)",
        )
    elif kind is None:
        findings.report(
            original,
            "if this is a Keras metric, Keras 3 only has `reset_state()` (`reset_states()` raises AttributeError); Keras 3 RNN layers keep `reset_states()`",
        )
    return None


def generator_method(
    original: cst.Call, method: str, kind: Optional[str], findings: Findings
) -> Optional[Callable[[cst.Call], cst.Call]]:
    """``model.fit_generator(...)`` and the like -> ``model.fit(...)``; ``kind``: what Keras
    object the receiver is known to be (``tf_keras`` for one of ``tf_keras``)."""
    new_method, accepted, verbose_default = GENERATOR_METHODS[method]
    if kind == "tf_keras":
        return None
    if kind != "model":
        findings.report(
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
        findings.report(original, f"`{method}` was removed in Keras 3: call `{new_method}` ({why})")
        return None
    if not findings.fix(original, f"`{method}` was removed in Keras 3: `{new_method}` takes the generator"):
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


def add_weight(
    original: cst.Call,
    kind: Optional[str],
    findings: Findings,
) -> Optional[Callable[[cst.Call], cst.Call]]:
    """``self.add_weight("w", shape, ...)`` in a Keras class of ``kind`` -> keywords."""
    if kind is None:
        return None
    order, accepted = (METRIC_ADD_WEIGHT, METRIC_KEYWORDS) if kind == "metric" else (LAYER_ADD_WEIGHT, LAYER_KEYWORDS)
    positional = [a for a in original.args if a.keyword is None]
    keywords = [a.keyword.value for a in original.args if a.keyword is not None]
    rejected = [k for k in keywords if k not in accepted]
    if rejected or any(a.star for a in original.args) or len(positional) > len(order):
        what = f"`{', '.join(rejected)}`" if rejected else "these positional arguments"
        findings.report(
            original,
            f"Keras 3 `add_weight` does not take {what} (its signature is `add_weight(shape, initializer, dtype, ..., name=...)`): convert by hand",
        )
        return None
    if kind == "metric" and "initializer" not in keywords:
        findings.report(original, 'Keras 3 metric weights need an explicit `initializer=` (e.g. "zeros")')
        return None
    if not positional:
        return None
    if not findings.fix(
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


def _without(args: list[cst.Arg], index: int) -> list[cst.Arg]:
    """``args`` without ``args[index]``, the last argument keeping no trailing comma."""
    kept = args[:index] + args[index + 1 :]
    if kept and index == len(args) - 1:
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return kept


def _keyword(name: str, value: cst.BaseExpression) -> cst.Arg:
    return cst.Arg(value, keyword=cst.Name(name), equal=no_space_equal())
