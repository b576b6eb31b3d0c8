"""The TF2 code an Estimator's program becomes, for estimator-to-keras: the setup replacing the
Estimator's construction (``setup_code``: the model, its optimizer, the global step, the
checkpoint, the training, evaluation and prediction steps and the ``train`` / ``evaluate`` /
``predict`` functions) and what each use of it becomes (``site_code``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst

from tfmodernize.codemods.migrate.estimator_to_keras.driver import Driver, Site
from tfmodernize.syntax import parenthesized, source


@dataclass
class Names:
    """The names the driver's code binds, fresh in the module."""

    params: str
    model: str
    optimizer: str
    global_step: str
    checkpoint: str
    manager: str
    metrics: str
    train_step: str
    eval_step: str
    train: str
    evaluate: str
    predict_step: str
    predict: str


def take(dataset: cst.BaseExpression, steps: Optional[cst.BaseExpression]) -> str:
    """``dataset.take(steps)``, or the dataset when every batch is used."""
    text = source(dataset)
    return text if steps is None else f"{text}.take({source(steps)})"


def site_code(driver: Driver, site: Site, names: Names) -> str:
    """The statements a train or train_and_evaluate becomes; for an evaluate, the expression."""
    if site.kind == "evaluate":
        return f"{names.evaluate}({take(site.input, site.steps)})"
    if site.kind == "predict":
        return f"{names.predict}({source(site.input)})"
    code = _train_code(site.input, site.steps, site.max_steps, names)
    if site.kind == "train_and_evaluate":
        value = f"{names.evaluate}({take(site.eval_input, site.eval_steps)})"
        code += f"{source(site.target)} = {value}, []\n" if site.target is not None else f"{value}\n"
    return code


def _train_code(
    dataset: cst.BaseExpression,
    steps: Optional[cst.BaseExpression],
    max_steps: Optional[cst.BaseExpression],
    names: Names,
) -> str:
    if max_steps is None:
        return f"{names.train}({take(dataset, steps)})\n"
    limit = source(parenthesized(max_steps))
    return (
        f"if int({names.global_step}) < {limit}:\n"
        f"    {names.train}({source(dataset)}.take({limit} - int({names.global_step})))\n"
    )


def setup_code(
    driver: Driver,
    names: Names,
    *,
    tf: str,
    model: str,
    model_args: str,
    call_args: dict[str, str],
    keras_optimizer: str,
    optimizer_args: str,
    model_dir: str,
    bind_params: Optional[str],
    metrics: list[tuple[str, str]],
    metric_inputs: bool,
    predictions_dict: bool,
    depth: int,
    width: int,
) -> str:
    """The code the Estimator's construction becomes: the model, its optimizer, the global
    step, the checkpoint in ``model_dir``, the training, evaluation and prediction steps, and
    ``train`` / ``evaluate`` / ``predict`` functions the uses call. ``call_args``: the model's
    arguments in each mode (``"train"``, ``"eval"``, ``"infer"``); ``metrics``: ``(key, Keras
    metric class)`` of the evaluation; ``predictions_dict``: whether the PREDICT branch returns
    a dict of predictions (else one tensor)."""
    keep = "5" if driver.keep is None else source(driver.keep)
    lines = []
    if driver.seed is not None:
        lines.append(f"{tf}.random.set_seed({source(driver.seed)})")
    if bind_params is not None:
        lines.append(f"{names.params} = {bind_params}")
    lines += [
        f"{names.model} = {model}({model_args})",
        f"{names.optimizer} = {tf}.keras.optimizers.{keras_optimizer}({optimizer_args})",
        f'{names.global_step} = {tf}.Variable(0, dtype={tf}.int64, trainable=False, name="global_step")',
        f"{names.checkpoint} = {tf}.train.Checkpoint("
        f"model={names.model}, optimizer={names.optimizer}, global_step={names.global_step})",
        f"{names.manager} = {tf}.train.CheckpointManager({names.checkpoint}, {model_dir}, max_to_keep={keep})",
        f"{names.checkpoint}.restore({names.manager}.latest_checkpoint)",
    ]
    if driver.evaluates:
        entries = [f'"{key}": {tf}.keras.metrics.{keras}()' for key, keras in metrics]
        entries.append(f'"loss": {tf}.keras.metrics.Mean()')
        one_line = f"{names.metrics} = {{{', '.join(entries)}}}"
        if len(one_line) + 4 * depth > width:
            one_line = f"{names.metrics} = {{\n" + "".join(f"    {entry},\n" for entry in entries) + "}"
        lines.append(one_line)
    code = "\n".join(lines) + "\n"
    code += (
        f"\n\n@{tf}.function\n"
        f"def {names.train_step}(features, labels):\n"
        f"    with {tf}.GradientTape() as tape:\n"
        f"        loss = {names.model}({call_args['train']})\n"
        f"    gradients = tape.gradient(loss, {names.model}.trainable_variables)\n"
        f"    {names.optimizer}.apply_gradients(zip(gradients, {names.model}.trainable_variables))\n"
        f"    {names.global_step}.assign_add(1)\n"
        "    return loss\n"
    )
    save = f"{names.manager}.save(checkpoint_number={names.global_step})"
    periodic = ""
    if driver.save_steps is not None:
        periodic = (
            f"        if int({names.global_step}) % {source(parenthesized(driver.save_steps))} == 0:\n"
            f"            {save}\n"
        )
    code += (
        f"\n\ndef {names.train}(dataset):\n"
        "    for features, labels in dataset:\n"
        f"        {names.train_step}(features, labels)\n"
        f"{periodic}"
        f"    {save}\n"
    )
    if driver.evaluates:
        if metric_inputs:
            updates = f"    loss, metric_inputs = {names.model}({call_args['eval']})\n"
            updates += "".join(
                f'    {names.metrics}["{key}"].update_state(*metric_inputs["{key}"])\n' for key, _ in metrics
            )
            updates += f'    {names.metrics}["loss"].update_state(loss)\n'
        else:
            updates = f'    {names.metrics}["loss"].update_state({names.model}({call_args["eval"]}))\n'
        code += (
            f"\n\n@{tf}.function\n"
            f"def {names.eval_step}(features, labels):\n"
            f"{updates}"
            f"\n\ndef {names.evaluate}(dataset):\n"
            f"    for metric in {names.metrics}.values():\n"
            "        metric.reset_state()\n"
            "    for features, labels in dataset:\n"
            f"        {names.eval_step}(features, labels)\n"
            f"    results = {{key: metric.result().numpy() for key, metric in {names.metrics}.items()}}\n"
            f'    results["global_step"] = {names.global_step}.numpy()\n'
            "    return results\n"
        )
    if driver.predicts:
        code += _predict_code(names, tf, call_args["infer"], predictions_dict)
    return code + "\n\n"


def _predict_code(names: Names, tf: str, call_args: str, predictions_dict: bool) -> str:
    """The prediction step and ``predict``: a generator of each example's predictions, numpy
    values, as ``Estimator.predict`` yielded them (a dict per example for a dict)."""
    if predictions_dict:
        yielded = (
            f"        predictions = {names.predict_step}(features)\n"
            "        arrays = {key: value.numpy() for key, value in predictions.items()}\n"
            "        for index in range(len(next(iter(arrays.values())))):\n"
            "            yield {key: array[index] for key, array in arrays.items()}\n"
        )
    else:
        yielded = f"        yield from {names.predict_step}(features).numpy()\n"
    return (
        f"\n\n@{tf}.function\n"
        f"def {names.predict_step}(features):\n"
        f"    return {names.model}({call_args})\n"
        f"\n\ndef {names.predict}(dataset):\n"
        "    for features in dataset:\n"
        "        # (features, labels): the Estimator predicted from the features\n"
        "        if isinstance(features, tuple):\n"
        "            features = features[0]\n"
        f"{yielded}"
    )
