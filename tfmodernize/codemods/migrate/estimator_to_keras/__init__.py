"""TFM117 estimator-to-keras.

What it does
    Migrates a ``tf.estimator.Estimator`` program to TF2, as TensorFlow's guide "Migrate from
    Estimator to Keras APIs" does, for the shape that can be proven: one ``model_fn(features,
    labels, mode, params)`` making its variables (``tf.get_variable`` / ``tf.Variable``) at its
    top level, computing a loss and training it with one TF1 optimizer's
    ``minimize(loss, global_step=tf.train.get_global_step())``, input functions returning
    ``tf.data`` datasets (or ``tf.estimator.inputs.numpy_input_fn(x, y, ..., shuffle=False)``),
    and the Estimator used only by ``train(input_fn, steps= / max_steps=)``,
    ``evaluate(input_fn, steps=)``, ``predict(input_fn)`` and ``tf.estimator.train_and_evaluate``:

    * the model_fn becomes a ``tf.Module`` class: its variables made once in ``__init__`` (the
      same initial values, drawn in the same order), its computation in ``__call__``, which
      returns the loss to train, the loss and the eval metrics' inputs to evaluate, the
      predictions to predict, where it returned an ``EstimatorSpec``;
    * the Estimator becomes that model, the Keras optimizer with TF1's defaults, an int64
      ``global_step``, a ``tf.train.Checkpoint`` and ``CheckpointManager`` in ``model_dir`` (a
      temporary folder without one, as the Estimator made; RunConfig's ``keep_checkpoint_max``
      and ``save_checkpoints_steps`` carried over, the latest checkpoint restored), a
      ``tf.function`` training step with ``GradientTape``, an evaluation step updating Keras
      metrics (``tf.metrics.accuracy`` -> ``tf.keras.metrics.Accuracy``, the loss's mean), and
      ``train(dataset)`` / ``evaluate(dataset)`` functions;
    * ``estimator.train(input_fn, steps=N)`` -> ``train(input_fn().take(N))`` (``max_steps``:
      up to that global step), ``estimator.evaluate(input_fn, steps=N)`` ->
      ``evaluate(input_fn().take(N))``, which returns the Estimator's dict (each metric, the mean
      loss and the global step), ``train_and_evaluate`` -> training to the TrainSpec's
      ``max_steps`` and one evaluation of the EvalSpec's ``steps`` (100 by default);
    * ``estimator.predict(input_fn)`` -> ``predict(input_fn())``: a generator calling the model
      in mode ``"infer"`` with labels ``None`` (a ``tf.function`` step) on each batch's features
      (the first of a (features, labels) pair), yielding each example's predictions as numpy
      values, a dict per example where the PREDICT branch returns a dict;
    * ``tf.estimator.inputs.numpy_input_fn(x, y, batch_size=B, num_epochs=E, shuffle=False)`` ->
      ``tf.data.Dataset.from_tensor_slices((x, y)).repeat(E).batch(B)`` (``x`` alone without
      ``y``, to predict): the batches its queue gave, rows in order, epoch after epoch, the last
      batch shorter.

Why it matters
    ``tf.estimator`` is gone since TensorFlow 2.16, and the last ``tensorflow-estimator``
    (2.15) does not import on later TensorFlow: an Estimator program cannot run on TF 2.16+
    at all, not even on ``tf.compat.v1``.

Before
    def model_fn(features, labels, mode, params):
        w = tf.get_variable("w", [1, 1], initializer=tf.zeros_initializer())
        loss = tf.reduce_mean(tf.square(tf.matmul(features, w) - labels))
        optimizer = tf.train.GradientDescentOptimizer(params["learning_rate"])
        train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    estimator = tf.estimator.Estimator(model_fn, params={"learning_rate": 0.1})
    estimator.train(input_fn, steps=20)

After
    class Model(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(tf.zeros([1, 1], dtype=tf.float32), name="w")

        def __call__(self, features, labels, mode, params):
            w = self.w
            loss = tf.reduce_mean(tf.square(tf.matmul(features, w) - labels))
            return loss

    params = {"learning_rate": 0.1}
    model = Model()
    optimizer = tf.keras.optimizers.SGD(learning_rate=params["learning_rate"])
    ...  # global step, checkpoint, train_step (GradientTape), train(dataset)
    train(input_fn().take(20))

Fix safety
    The same numbers: the variables start from the values TF1 drew, made in the order it
    made them; the Keras optimizer computes TF1's update with TF1's defaults (the optimizer
    table); each step trains on the next batch, ``steps`` / ``max_steps`` counted as the
    Estimator counted them; evaluation accumulates each metric's total and count and the
    mean of the batch losses as TF1's streaming metrics did, and returns them as numpy values
    with the int64 global step. Checkpoints are TF2's object-based ones (a TF1 Estimator's
    checkpoint in ``model_dir`` is read by variable name where names match); with
    ``save_checkpoints_steps`` one is written every that many steps, and one at the end of each
    ``train`` (TF1's default of every 600 seconds is not timed). ``train_and_evaluate``
    evaluates once, at the end: TF1 also evaluated at the first checkpoint saved during
    training (then at most every ``throttle_secs``), which changes no trained value. ``predict``
    computes the PREDICT branch as the Estimator did, without labels, on the trained variables
    (the Estimator restored them from the checkpoint its last ``train`` wrote), and yields the
    same values example by example (a dict's values split along their first axis). Summaries
    and step logging of the Estimator's hooks are not written. The input functions' datasets
    are made after the model's variables, where TF1 made them before: a pipeline drawing
    random numbers (``shuffle``) draws others when seeds come from the op order.

Declines when
    the model_fn makes layers (``tf.layers``, Keras layers: variables each call), variables
    away from its top level, in a variable scope or from values it computes, reads the global
    step, collections, summaries or its ``config``, returns other than an ``EstimatorSpec`` of
    mode, predictions, loss, train_op and eval_metric_ops (``tf.metrics`` with a Keras
    counterpart), trains with other than one optimizer's ``minimize`` advancing the global step,
    or draws random numbers between its variables; the Estimator is made in a loop or
    condition, warm-starts, has a RunConfig with distribution or session settings or time-based
    checkpoints, is used other than by train / evaluate / predict / train_and_evaluate
    (``export_saved_model``, hooks), or evaluated or asked to predict before it is trained; it
    predicts with ``predict_keys``, ``checkpoint_path`` or whole batches
    (``yield_single_examples=False``), or from a model_fn without a PREDICT branch, or whose
    predictions are neither a dict written out nor one computed tensor; an input function takes
    parameters or does not provably return a ``tf.data`` dataset (an iterator's ``get_next()``,
    ``pandas_input_fn``); a ``numpy_input_fn`` shuffles (its queue's order is not a ``tf.data``
    shuffle's), feeds from several threads, or gives no labels to train or evaluate on. The estimator-removed finding (TFM119) then says the file
    cannot run on TF 2.16+.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tfmodernize.analysis.estimator import mode_key
from tfmodernize.analysis.variables import VariableValues
from tfmodernize.codemod import Decline, TFCodemod
from tfmodernize.codemods.migrate.estimator_to_keras.driver import Driver, read_driver
from tfmodernize.codemods.migrate.estimator_to_keras.driver_code import Names, setup_code, site_code
from tfmodernize.codemods.migrate.estimator_to_keras.model_class import model_class
from tfmodernize.codemods.migrate.estimator_to_keras.model_fn import ModelFn, read_model_fn
from tfmodernize.layout import fitted, style_width
from tfmodernize.names import fresh_name, names_bound_here, names_read
from tfmodernize.syntax import source
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import walk


class EstimatorToKeras(TFCodemod):
    __doc__ = __doc__
    code = "TFM117"
    name = "estimator-to-keras"
    summary = "tf.estimator.Estimator program -> a tf.Module model, a tf.function step and checkpoints"
    needles = ("estimator",)
    interests = (cst.Call,)
    detects = ("estimator.Estimator",)
    requires_tf2 = True
    # The model_fn's code moves into ``__call__`` before the codemods that migrate TF1 code.
    runs_before = (
        "TFM107",
        "TFM100",
        "TFM105",
        "TFM114",
        "TFM101",
        "TFM102",
        "TFM103",
        "TFM106",
        "TFM108",
        "TFM111",
        "TFM109",
        "TFM113",
    )

    def plan(self, module: cst.Module) -> None:
        parents = self.state.parents(module)
        self._width = style_width(self.state.text)
        values = VariableValues(self.tf, self.tf_expr)
        calls = [n for n in walk(module, code_only=True) if isinstance(n, cst.Call)]
        emitted: set[str] = set()
        for call in calls:
            if not self.tf.is_tf(call.func, "estimator.Estimator"):
                continue
            try:
                driver = read_driver(call, self.tf, parents, module)
                plan = read_model_fn(driver.model_fn, self.tf, values)
                self._check(driver, plan)
            except Decline as decline:
                self.declined(decline, "tf.estimator.Estimator not migrated: ")
                continue
            # Names the new code binds clash with none the rest of the module reads.
            self._taken = emitted.union(*(names_read(s) for s in module.body if s is not plan.function))
            if self.fix(
                call,
                "tf.estimator.Estimator (gone since TF 2.16) -> a tf.Module model with a tf.function "
                "training step, Keras metrics and a tf.train.CheckpointManager",
            ):
                self._write(driver, plan, parents)
                emitted |= self._taken  # a second Estimator's code takes other names
        if values.uses_math:
            self.add_import("math")

    @staticmethod
    def _check(driver: Driver, plan: ModelFn) -> None:
        if driver.evaluates and plan.spec_for("eval") is None:
            raise Decline(driver.call, "the program evaluates, but the model_fn returns no loss to evaluate")
        if driver.predicts:
            # The Estimator called the model_fn with labels None to predict: only a branch of
            # its own returns predictions computed without them.
            if "infer" not in plan.branches:
                reason = "the program predicts, but the model_fn has no PREDICT branch"
                raise Decline(driver.call, reason)
            _predictions_dict(plan)

    # -- writing -----------------------------------------------------------------------------

    def _write(self, driver: Driver, plan: ModelFn, parents: dict) -> None:
        tf = self.tf_root()
        function = plan.function.name.value
        base = function[: -len("_fn")] if function.endswith("_fn") else function
        class_name = "".join(part.capitalize() for part in base.split("_") if part) or "Model"
        if not class_name.endswith("Model"):
            class_name += "Model"
        class_name = fresh_name(class_name, self._taken)
        definition = model_class(plan, class_name, tf, self._modes_written, self._width)
        self.replace(plan.function, definition)

        params_given = driver.params
        bind = None
        if isinstance(params_given, cst.Name):
            params = params_given.value
        else:
            params = fresh_name("params", self._taken)
            bind = source(params_given) if params_given is not None else "{}"
        names = Names(
            params=params,
            model=fresh_name("model", self._taken),
            optimizer=fresh_name("optimizer", self._taken),
            global_step=fresh_name("global_step", self._taken),
            checkpoint=fresh_name("checkpoint", self._taken),
            manager=fresh_name("checkpoint_manager", self._taken),
            metrics=fresh_name("eval_metrics", self._taken),
            train_step=fresh_name("train_step", self._taken),
            eval_step=fresh_name("eval_step", self._taken),
            train=fresh_name("train", self._taken),
            evaluate=fresh_name("evaluate", self._taken),
            predict_step=fresh_name("predict_step", self._taken),
            predict=fresh_name("predict", self._taken),
        )
        optimizer_args = ", ".join(
            source(_renamed(arg, "params", params).with_changes(comma=cst.MaybeSentinel.DEFAULT)).strip()
            for arg in plan.keras.args
        )
        reads_params = "params" in plan.parameters or plan.init_reads_params or "params" in names_read(plan.optimizer)
        if not reads_params:
            bind = None
        if driver.model_dir is not None:
            model_dir = source(driver.model_dir)
        else:
            self.add_import("tempfile")
            model_dir = "tempfile.mkdtemp()"
        call_args = {
            mode: ", ".join(_argument(p, mode, params) for p in plan.parameters) for mode in ("train", "eval", "infer")
        }
        metrics = [(metric.key, metric.keras) for metric in plan.eval_metrics]
        depth = 0 if isinstance(parents.get(id(driver.line)), cst.Module) else 1
        code = setup_code(
            driver,
            names,
            tf=tf,
            model=class_name,
            model_args=params if plan.init_reads_params else "",
            call_args=call_args,
            keras_optimizer=plan.keras.keras,
            optimizer_args=optimizer_args,
            model_dir=model_dir,
            bind_params=bind,
            metrics=metrics,
            metric_inputs=bool(metrics),
            predictions_dict=driver.predicts and _predictions_dict(plan),
            depth=depth,
            width=self._width,
        )
        setup = self._statements(code, depth, driver.line)
        # The comments and blank lines above a RunConfig or spec that goes, right above the
        # Estimator, stay above the new code.
        carried = []
        block = parents.get(id(driver.line))
        body = list(block.body) if isinstance(block, (cst.Module, cst.IndentedBlock)) else []
        removed = {id(line) for line in driver.removed}
        at = body.index(driver.line) if driver.line in body else 0
        while at > 0 and id(body[at - 1]) in removed:
            at -= 1
            carried[:0] = body[at].leading_lines
        if carried:
            setup[0] = setup[0].with_changes(leading_lines=[*carried, *setup[0].leading_lines])
        self.replace(driver.line, cst.FlattenSentinel(setup))
        for line in driver.removed:
            self.remove(line)
        following = self._following(driver, parents)
        blank = [cst.EmptyLine(indent=False)] * (2 if depth == 0 else 1)
        for site in driver.sites:
            if site.line is None:
                self.replace(site.call, cst.parse_expression(site_code(driver, site, names)))
                continue
            statements = self._statements(site_code(driver, site, names), depth, site.line)
            if site.line is following:
                statements[0] = statements[0].with_changes(leading_lines=[*blank, *statements[0].leading_lines])
            self.replace(site.line, cst.FlattenSentinel(statements))
        if following is not None and all(site.line is not following for site in driver.sites):
            self.replace(
                following, lambda updated: updated.with_changes(leading_lines=[*blank, *updated.leading_lines])
            )

    @staticmethod
    def _following(driver: Driver, parents: dict) -> Optional[cst.BaseStatement]:
        """The statement after the Estimator's construction (the RunConfig and specs that go
        skipped), which follows the new definitions after a blank line."""
        block = parents.get(id(driver.line))
        body = list(block.body if isinstance(block, (cst.Module, cst.IndentedBlock)) else [])
        removed = {id(line) for line in driver.removed}
        after = body[body.index(driver.line) + 1 :] if driver.line in body else []
        return next((s for s in after if id(s) not in removed), None)

    def _statements(self, code: str, depth: int, replaced: cst.SimpleStatementLine) -> list[cst.BaseStatement]:
        """``code`` parsed into statements, ``replaced``'s comments above the first, calls
        wrapped to the file's width; definitions keep a blank line (two at the top level)."""
        body = list(cst.parse_module(code).body)
        blank = [cst.EmptyLine(indent=False)] * (2 if depth == 0 else 1)
        out = []
        for index, statement in enumerate(body):
            statement = fitted(statement, self._width, depth)
            if isinstance(statement, cst.FunctionDef):
                statement = statement.with_changes(leading_lines=blank)
            elif index and isinstance(body[index - 1], cst.FunctionDef):
                statement = statement.with_changes(leading_lines=blank)
            out.append(statement)
        out[0] = out[0].with_changes(leading_lines=[*replaced.leading_lines, *out[0].leading_lines])
        return out

    def _modes_written(self, node: cst.CSTNode) -> cst.CSTNode:
        """``node`` with ``tf.estimator.ModeKeys.X`` written as the string it is."""
        return node.visit(_ModeKeys(self.tf))


class _ModeKeys(cst.CSTTransformer):
    def __init__(self, tf: TFNames) -> None:
        super().__init__()
        self.tf = tf

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        value = mode_key(original, self.tf)
        return updated if value is None else cst.SimpleString(f'"{value}"')


def _argument(parameter: str, mode: str, params: str) -> str:
    """What the model is called with for one of model_fn's parameters, in ``mode`` (the
    Estimator predicted without labels)."""
    labels = "None" if mode == "infer" else "labels"
    given = {"features": "features", "labels": labels, "mode": f'"{mode}"', "params": params}
    return given[parameter]


def _predictions_dict(plan: ModelFn) -> bool:
    """Whether the PREDICT branch returns a dict of predictions (``{"classes": ...}``, or a name
    the model_fn binds only to dicts) rather than one tensor (a TF call or arithmetic, or a name
    bound only to those); a ``Decline`` when it cannot tell."""
    spec = plan.branches["infer"]
    node = spec.arguments["predictions"]
    kind = _value_kind(node)
    if isinstance(node, cst.Name):
        binders = {id(n) for n in walk(plan.function.body) if node.value in names_bound_here(n)}
        values = [
            statement.value
            for statement in walk(plan.function.body)
            if isinstance(statement, cst.Assign)
            for target in statement.targets
            if id(target) in binders and isinstance(target.target, cst.Name)
        ]
        kinds = {_value_kind(value) for value in values}
        kind = kinds.pop() if len(values) == len(binders) and len(kinds) == 1 else None
    if kind is None:
        reason = "its predictions are not read as a dict written out nor as one tensor"
        raise Decline(spec.line, reason)
    return kind


def _value_kind(node: cst.BaseExpression) -> Optional[bool]:
    """True for a dict written out, False for a tensor computed (a call other than ``dict()``,
    arithmetic), None for what may be either."""
    if isinstance(node, cst.Dict):
        return True
    if isinstance(node, cst.Call):
        return None if isinstance(node.func, cst.Name) and node.func.value == "dict" else False
    return False if isinstance(node, (cst.BinaryOperation, cst.UnaryOperation)) else None


def _renamed(node: cst.CSTNode, old: str, new: str) -> cst.CSTNode:
    """``node`` with the name ``old`` read as ``new``."""
    if old == new:
        return node

    class Rename(cst.CSTTransformer):
        def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
            return updated.with_changes(value=new) if updated.value == old else updated

    return node.visit(Rename())
