"""TFM117 estimator-to-keras: the shapes it writes (beside the fixtures, which prove the numbers
against TF 1.15's Estimator), the shapes it declines with the reason, and the file's status
with estimator-removed (TFM119) in the whole catalogue."""

import pytest

from tfmodernize.engine import transform_text
from tfmodernize.registry import builtin_codemods
from tfmodernize.testing import assert_unchanged, rewrite

INPUT = """\
import numpy as np
import tensorflow as tf

x = np.ones([8, 2], np.float32)
y = np.ones([8, 1], np.float32)


def input_fn():
    return tf.data.Dataset.from_tensor_slices((x, y)).batch(4)


"""
MODEL_FN = """\
def model_fn(features, labels, mode, params):
    w = tf.get_variable("w", [2, 1], initializer=tf.zeros_initializer())
    loss = tf.reduce_mean(tf.square(tf.matmul(features, w) - labels))
    optimizer = tf.train.GradientDescentOptimizer(0.1)
    train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


"""
RUN = "est = tf.estimator.Estimator(model_fn, model_dir='m')\nest.train(input_fn, steps=2)\n"


def program(model_fn: str = MODEL_FN, run: str = RUN, head: str = INPUT) -> str:
    return head + model_fn + run


def test_the_program_becomes_a_module_a_step_and_checkpoints():
    result = rewrite("TFM117", program())
    code = result.code
    assert [f.code for f in result.fixes] == ["TFM117"]
    assert "estimator" not in code
    assert "class Model(tf.Module):" in code
    assert '        self.w = tf.Variable(tf.zeros([2, 1], dtype=tf.float32), name="w")\n' in code
    assert "        w = self.w\n" in code
    assert "optimizer = tf.keras.optimizers.SGD(learning_rate=0.1)\n" in code
    assert "checkpoint_manager = tf.train.CheckpointManager(checkpoint, 'm', max_to_keep=5)\n" in code
    assert "train(input_fn().take(2))\n" in code
    # Nothing evaluates: no metrics, no evaluation step.
    assert "eval_step" not in code and "def evaluate" not in code


SHAPES = [
    pytest.param(
        RUN.replace("steps=2", "max_steps=7"),
        "if int(global_step) < 7:\n    train(input_fn().take(7 - int(global_step)))\n",
        id="max-steps-counts-from-the-global-step",
    ),
    pytest.param(
        RUN.replace("steps=2", "") + "m = est.evaluate(input_fn, steps=1)\n",
        "train(input_fn())\nm = evaluate(input_fn().take(1))\n",
        id="no-steps-trains-until-the-data-ends",
    ),
    pytest.param(
        "cfg = tf.estimator.RunConfig(tf_random_seed=3, keep_checkpoint_max=1, save_checkpoints_steps=4)\n"
        "est = tf.estimator.Estimator(model_fn, config=cfg)\nest.train(input_fn)\n",
        "tf.random.set_seed(3)\n",
        id="run-config-seed",
    ),
    pytest.param(
        "cfg = tf.estimator.RunConfig(tf_random_seed=3, keep_checkpoint_max=1, save_checkpoints_steps=4)\n"
        "est = tf.estimator.Estimator(model_fn, config=cfg)\nest.train(input_fn)\n",
        "tf.train.CheckpointManager(checkpoint, tempfile.mkdtemp(), max_to_keep=1)\n",
        id="run-config-checkpoints-in-a-temporary-folder",
    ),
    pytest.param(
        "cfg = tf.estimator.RunConfig(tf_random_seed=3, keep_checkpoint_max=1, save_checkpoints_steps=4)\n"
        "est = tf.estimator.Estimator(model_fn, config=cfg)\nest.train(input_fn)\n",
        "        if int(global_step) % 4 == 0:\n            checkpoint_manager.save(checkpoint_number=global_step)\n",
        id="run-config-saves-every-n-steps",
    ),
    pytest.param(
        "est = tf.estimator.Estimator(model_fn, 'm', params={'lr': 0.1})\nest.train(lambda: input_fn(), steps=1)\n",
        "params = {'lr': 0.1}\n",
        id="params-bound-once",
    ),
    pytest.param(
        "est = tf.estimator.Estimator(model_fn, 'm', params={'lr': 0.1})\nest.train(lambda: input_fn(), steps=1)\n",
        "train(input_fn().take(1))\n",
        id="lambda-input-fn-called",
    ),
    pytest.param(
        "est = tf.estimator.Estimator(model_fn, 'm')\nest.train(input_fn, steps=1)\nr = [est.evaluate(input_fn)]\n",
        "r = [evaluate(input_fn())]\n",
        id="evaluate-inside-an-expression",
    ),
]


@pytest.mark.parametrize(("run", "expected"), SHAPES)
def test_shapes(run, expected):
    code = rewrite("TFM117", program(run=run)).code
    assert expected in code, code
    assert "estimator" not in code


def test_modes_metrics_and_predictions():
    model_fn = MODEL_FN.replace(
        "    optimizer =",
        "    if mode == tf.estimator.ModeKeys.PREDICT:\n"
        "        return tf.estimator.EstimatorSpec(mode, predictions=loss)\n"
        "    acc = tf.metrics.accuracy(labels, features)\n"
        "    if mode == tf.estimator.ModeKeys.EVAL:\n"
        '        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={"acc": acc})\n'
        "    optimizer =",
    )
    code = rewrite("TFM117", program(model_fn, RUN + "m = est.evaluate(input_fn)\n")).code
    assert '        if mode == "infer":\n            return loss\n' in code
    assert '        if mode == "eval":\n            return loss, {"acc": (labels, features)}\n' in code
    assert 'eval_metrics = {"acc": tf.keras.metrics.Accuracy(), "loss": tf.keras.metrics.Mean()}\n' in code
    assert '    eval_metrics["acc"].update_state(*metric_inputs["acc"])\n' in code
    assert "acc = tf.metrics" not in code


#: A model_fn with a PREDICT branch returning a tensor bound to a name.
PREDICTING = MODEL_FN.replace(
    "    loss =",
    "    out = tf.matmul(features, w)\n"
    "    if mode == tf.estimator.ModeKeys.PREDICT:\n"
    "        return tf.estimator.EstimatorSpec(mode, predictions=out)\n"
    "    loss =",
)


def test_predict_yields_each_example_of_a_tensor_or_of_a_dict():
    code = rewrite("TFM117", program(PREDICTING, RUN + "p = list(est.predict(input_fn))\n")).code
    assert 'def predict_step(features):\n    return model(features, None, "infer", params)\n' in code
    assert "        yield from predict_step(features).numpy()\n" in code
    assert "p = list(predict(input_fn()))\n" in code
    as_dict = PREDICTING.replace("predictions=out", 'predictions={"y": out}')
    code = rewrite("TFM117", program(as_dict, RUN + "p = list(est.predict(input_fn))\n")).code
    assert "            yield {key: array[index] for key, array in arrays.items()}\n" in code


NUMPY_INPUTS = [
    pytest.param(
        "est.train(tf.estimator.inputs.numpy_input_fn(x, y, batch_size=4, num_epochs=3, shuffle=False))\n",
        "train(tf.data.Dataset.from_tensor_slices((x, y)).repeat(3).batch(4))\n",
        id="epochs-then-batches",
    ),
    pytest.param(
        "est.train(tf.estimator.inputs.numpy_input_fn({'x': x}, y, num_epochs=None, shuffle=False), steps=5)\n",
        "train(tf.data.Dataset.from_tensor_slices(({'x': x}, y)).repeat().batch(128).take(5))\n",
        id="forever-with-the-default-batch",
    ),
]


@pytest.mark.parametrize(("use", "expected"), NUMPY_INPUTS)
def test_numpy_input_fn_is_the_dataset_of_its_batches_in_order(use, expected):
    code = rewrite("TFM117", program(run="est = tf.estimator.Estimator(model_fn, model_dir='m')\n" + use)).code
    assert expected in code, code


def test_train_and_evaluate_in_a_function():
    run = (
        "def main():\n"
        "    spec = tf.estimator.TrainSpec(input_fn, max_steps=3)\n"
        "    est = tf.estimator.Estimator(model_fn, 'm')\n"
        "    result = tf.estimator.train_and_evaluate(est, spec, tf.estimator.EvalSpec(input_fn))\n"
        "    return result\n"
    )
    code = rewrite("TFM117", program(run=run)).code
    assert "    @tf.function\n    def train_step(features, labels):\n" in code
    assert "    result = evaluate(input_fn().take(100)), []\n" in code
    assert "TrainSpec" not in code


def test_a_variable_named_like_a_module_member_gets_another_attribute():
    code = rewrite("TFM117", program(MODEL_FN.replace("w = ", "name = ").replace(", w)", ", name)"))).code
    assert "self.name_variable = tf.Variable(" in code
    assert "        name = self.name_variable\n" in code


DECLINED = [
    pytest.param(
        MODEL_FN.replace('w = tf.get_variable("w", [2, 1], initializer=tf.zeros_initializer())', "h = 1").replace(
            "tf.matmul(features, w)", "tf.layers.dense(features, 1)"
        ),
        RUN,
        "makes variables each time it is called",
        id="layers-in-the-model-fn",
    ),
    pytest.param(
        MODEL_FN,
        RUN + "p = list(est.predict(input_fn))\n",
        "the model_fn has no PREDICT branch",
        id="predict-no-branch",
    ),
    pytest.param(
        PREDICTING,
        RUN + "p = list(est.predict(input_fn, predict_keys=['y']))\n",
        "it is given `predict_keys`",
        id="predict-keys",
    ),
    pytest.param(
        PREDICTING,
        RUN + "p = list(est.predict(input_fn, yield_single_examples=False))\n",
        "`yield_single_examples` other than True",
        id="predict-whole-batches",
    ),
    pytest.param(
        PREDICTING,
        "est = tf.estimator.Estimator(model_fn, model_dir='m')\np = list(est.predict(input_fn))\n",
        "does not train the Estimator before anything else",
        id="predicted-before-training",
    ),
    pytest.param(
        PREDICTING.replace("predictions=out", "predictions=outputs[0]"),
        RUN + "p = list(est.predict(input_fn))\n",
        "predictions are not read as a dict written out nor as one tensor",
        id="predictions-of-unknown-kind",
    ),
    pytest.param(
        PREDICTING.replace("    out = tf", "    out = {}\n    out = tf"),
        RUN + "p = list(est.predict(input_fn))\n",
        "predictions are not read as a dict written out nor as one tensor",
        id="predictions-bound-to-a-dict-and-a-tensor",
    ),
    pytest.param(
        MODEL_FN,
        RUN.replace("est.train(input_fn", "est.evaluate(input_fn, steps=1)\nest.train(input_fn"),
        "does not train the Estimator before anything else",
        id="evaluated-before-training",
    ),
    pytest.param(
        MODEL_FN,
        RUN.replace("steps=2", "steps=2, hooks=[tf.train.StopAtStepHook(3)]"),
        "it is given `hooks`",
        id="hooks",
    ),
    pytest.param(
        MODEL_FN,
        "for lr in [1, 2]:\n    est = tf.estimator.Estimator(model_fn)\n    est.train(input_fn, steps=2)\n",
        "inside a loop",
        id="made-in-a-loop",
    ),
    pytest.param(
        MODEL_FN,
        "est = tf.estimator.Estimator(model_fn, config=tf.estimator.RunConfig(session_config=s))\n"
        "est.train(input_fn)\n",
        "sets `session_config`",
        id="run-config-session",
    ),
    pytest.param(
        MODEL_FN,
        "est = tf.estimator.Estimator(model_fn)\n"
        "est.train(tf.estimator.inputs.numpy_input_fn({'x': x}, y, shuffle=True), steps=2)\n",
        "does not set shuffle=False",
        id="numpy-input-fn-shuffled",
    ),
    pytest.param(
        MODEL_FN,
        "est = tf.estimator.Estimator(model_fn)\n"
        "est.train(tf.estimator.inputs.numpy_input_fn(x, y, shuffle=False, num_threads=2))\n",
        "more than one thread",
        id="numpy-input-fn-threads",
    ),
    pytest.param(
        MODEL_FN,
        "est = tf.estimator.Estimator(model_fn)\nest.train(tf.estimator.inputs.numpy_input_fn(x, shuffle=False))\n",
        "gives no labels",
        id="numpy-input-fn-to-train-without-labels",
    ),
    pytest.param(
        MODEL_FN,
        "est = tf.estimator.Estimator(model_fn)\n"
        "est.train(tf.estimator.inputs.pandas_input_fn(frame, shuffle=False), steps=2)\n",
        "pandas_input_fn",
        id="pandas-input-fn",
    ),
    pytest.param(
        MODEL_FN + "def it_fn():\n    return tf.data.make_one_shot_iterator(input_fn()).get_next()\n\n\n",
        "est = tf.estimator.Estimator(model_fn)\nest.train(it_fn, steps=2)\n",
        "not read as a tf.data dataset",
        id="input-fn-returns-tensors",
    ),
    pytest.param(
        MODEL_FN + "def params_fn(params):\n    return input_fn()\n\n\n",
        "est = tf.estimator.Estimator(model_fn)\nest.train(params_fn, steps=2)\n",
        "without parameters",
        id="input-fn-takes-params",
    ),
    pytest.param(
        MODEL_FN.replace("global_step=tf.train.get_global_step()", ""),
        RUN,
        "does not advance the Estimator's global step",
        id="global-step-not-advanced",
    ),
    pytest.param(
        MODEL_FN.replace("GradientDescentOptimizer(0.1)", "RMSPropOptimizer(0.1)"),
        RUN,
        "computes other numbers",
        id="rmsprop-starts-elsewhere",
    ),
    pytest.param(
        MODEL_FN.replace("    optimizer =", "    tf.summary.scalar('loss', loss)\n    optimizer ="),
        RUN,
        "writes summaries",
        id="summaries",
    ),
    pytest.param(
        MODEL_FN.replace("[2, 1]", "[n, 1]").replace("    w = ", "    n = features.shape[1]\n    w = "),
        RUN,
        "computed in the model_fn",
        id="variable-shaped-by-a-local",
    ),
    pytest.param(
        MODEL_FN.replace("    w = ", "    features = tf.nn.dropout(features, rate=0.5)\n    w = "),
        RUN,
        "a random op is made before",
        id="random-op-between-variables",
    ),
    pytest.param(
        MODEL_FN.replace("mode, params)", "mode, params, config)").replace(
            "GradientDescentOptimizer(0.1)", "GradientDescentOptimizer(config.x)"
        ),
        RUN,
        "RunConfig (`config`)",
        id="model-fn-reads-config",
    ),
    pytest.param(MODEL_FN, RUN + "other = model_fn\n", "used elsewhere too", id="model-fn-used-elsewhere"),
    pytest.param(
        MODEL_FN.replace("return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)", "return loss"),
        RUN,
        "other than a tf.estimator.EstimatorSpec",
        id="returns-no-spec",
    ),
    pytest.param(
        MODEL_FN.replace("train_op=train_op)", "train_op=train_op, scaffold=s)"),
        RUN,
        "passes `scaffold`",
        id="spec-with-a-scaffold",
    ),
]


@pytest.mark.parametrize(("model_fn", "run", "reason"), DECLINED)
def test_declines_with_the_reason(model_fn, run, reason):
    result = assert_unchanged("TFM117", program(model_fn, run))
    messages = [f.message for f in result.findings if f.code == "TFM117"]
    assert len(messages) == 1 and reason in messages[0], messages
    assert messages[0].startswith("tf.estimator.Estimator not migrated: ")


def test_no_estimator_no_change():
    assert_unchanged("TFM117", "import tensorflow as tf\nestimator = 3\nestimator.train(1)\n")


def test_in_the_catalogue_a_migrated_program_is_tf2_and_a_declined_one_cannot_run():
    migrated, state = transform_text(program(), builtin_codemods())
    assert "estimator" not in migrated and not state.kept_on_v1
    declined = program(run=RUN + "p = list(est.predict(input_fn))\n")
    new, state = transform_text(declined, builtin_codemods())
    codes = [f.code for f in state.findings]
    assert "TFM117" in codes and "TFM119" in codes
    # The model_fn is TF1 code (compat-fallback keeps it on compat.v1), and its Estimator names
    # keep it there too: the file cannot run on TF 2.16+.
    assert state.kept_on_v1[0][0] == "tf.get_variable"
    assert ("tf.estimator.Estimator", 20) in state.kept_on_v1
    assert "tf.estimator.Estimator(model_fn" in new


def test_two_estimators_take_other_names():
    second = MODEL_FN.replace("def model_fn", "def other_fn")
    run = RUN + "est2 = tf.estimator.Estimator(other_fn, model_dir='n')\nest2.train(input_fn, steps=1)\n"
    code = rewrite("TFM117", program(MODEL_FN + second, run)).code
    assert "class Model(tf.Module):" in code and "class OtherModel(tf.Module):" in code
    assert "model_2 = OtherModel()\n" in code and "def train_2(dataset):" in code
    assert "train_2(input_fn().take(1))\n" in code
