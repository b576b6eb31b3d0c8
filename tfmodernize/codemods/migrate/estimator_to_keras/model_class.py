"""A model_fn read (``ModelFn``) written as the ``tf.Module`` class it becomes
(``model_class``): its variables made once in ``__init__``, its computation in ``__call__``,
which returns what each mode needs (the loss to train, the loss and the metrics' inputs to
evaluate, the predictions to predict) instead of an ``EstimatorSpec``."""

from __future__ import annotations

from typing import Callable, Optional

import libcst as cst

from tfmodernize.codemods.migrate.estimator_to_keras.model_fn import ModelFn, Spec
from tfmodernize.layout import fitted
from tfmodernize.syntax import source, split_docstring


def model_class(
    plan: ModelFn,
    class_name: str,
    tf_root: str,
    rewrite_modes: Callable[[cst.CSTNode], cst.CSTNode],
    width: int,
) -> cst.ClassDef:
    """The ``tf.Module`` class the model_fn becomes; ``rewrite_modes`` writes the mode keys of
    the statements kept as their strings, ``width`` is the file's."""
    init_params = "self, params" if plan.init_reads_params else "self"
    variables = "".join(f"        self.{name} = {code}\n" for name, code in plan.variables)
    call_params = ", ".join(["self", *plan.parameters])
    text = (
        f"class {class_name}({tf_root}.Module):\n"
        f'    """The Estimator\'s `{plan.function.name.value}`, its variables made once."""\n'
        "\n"
        f"    def __init__({init_params}):\n"
        "        super().__init__()\n"
        f"{variables}"
        "\n"
        f"    def __call__({call_params}):\n"
        "        pass\n"
    )
    definition = cst.parse_statement(text)
    assert isinstance(definition, cst.ClassDef)
    init = definition.body.body[-2]
    assert isinstance(init, cst.FunctionDef)
    init = init.with_changes(
        body=init.body.with_changes(body=[fitted(line, width, 2, further=True) for line in init.body.body])
    )
    call = definition.body.body[-1]
    assert isinstance(call, cst.FunctionDef)
    body = [rewrite_modes(statement) for statement in _call_body(plan)]
    call = call.with_changes(body=call.body.with_changes(body=body))
    return definition.with_changes(
        body=definition.body.with_changes(body=[*definition.body.body[:-2], init, call]),
        leading_lines=plan.function.leading_lines,
    )


def _call_body(plan: ModelFn) -> list[cst.BaseStatement]:
    docstring, body = split_docstring(plan.function.body.body)
    out: list[cst.BaseStatement] = list(docstring)
    for statement in body:
        out.extend(_statement(plan, statement))
    return out


def _statement(plan: ModelFn, statement: cst.BaseStatement) -> list[cst.BaseStatement]:
    if id(statement) in plan.dropped:
        return []
    if id(statement) in plan.variable_lines:
        name = plan.variable_lines[id(statement)]
        line = cst.parse_statement(f"{name} = self.{plan.attributes[name]}\n")
        return [line.with_changes(leading_lines=statement.leading_lines)]
    for mode, spec in plan.branches.items():
        if isinstance(statement, cst.If) and statement.body.body and statement.body.body[-1] is spec.line:
            inner = [s for line in statement.body.body[:-1] for s in _statement(plan, line)]
            if not inner and _same_loss(spec, plan.final) and not spec.metrics and mode == "eval":
                return []  # ``if mode == EVAL: return EstimatorSpec(mode, loss=loss)``: the loss is returned anyway
            returned = _returns(plan, spec, (mode,))
            return [statement.with_changes(body=statement.body.with_changes(body=[*inner, *returned]))]
    if plan.final is not None and statement is plan.final.line:
        modes = tuple(m for m in ("train", "eval") if m not in plan.branches)
        if not modes:
            modes = ("infer",)
        return _returns(plan, plan.final, modes)
    return [statement]


def _same_loss(spec: Spec, final: Optional[Spec]) -> bool:
    loss = spec.arguments.get("loss")
    other = final.arguments.get("loss") if final is not None else None
    return loss is not None and other is not None and source(loss) == source(other)


def _returns(plan: ModelFn, spec: Spec, modes: tuple[str, ...]) -> list[cst.BaseStatement]:
    """What a spec's return becomes for the modes it serves (``infer`` only when no other)."""
    leading = spec.line.leading_lines
    if modes == ("infer",):
        lines = [f"return {source(spec.arguments['predictions'])}\n"]
    else:
        loss = source(spec.arguments["loss"])
        lines = [f"return {loss}\n"]
        if "eval" in modes and spec.metrics:
            inputs = ", ".join(
                f'"{metric.key}": ({", ".join(source(i) for i in metric.inputs)}{"," * (len(metric.inputs) == 1)})'
                for metric in spec.metrics
            )
            metrics_return = f"return {loss}, {{{inputs}}}\n"
            if modes == ("eval",):
                lines = [metrics_return]
            else:
                branch = cst.parse_statement(f'if mode == "eval":\n    {metrics_return}')
                return [branch.with_changes(leading_lines=leading), cst.parse_statement(lines[0])]
    return [cst.parse_statement(lines[0]).with_changes(leading_lines=leading)]
