"""TFM205 predict-in-tape: golden, unsafe, finding and no-op tables."""

import textwrap

import pytest

from tfmodernize.registry import doc_sections, find_codemod
from tfmodernize.testing import assert_rewrites, assert_unchanged, rewrite

HEAD = "import tensorflow as tf\nmodel = tf.keras.Sequential([tf.keras.layers.Dense(1)])\n"
TAIL = "grads = tape.gradient(loss, model.trainable_variables)\n"


def step(*lines: str) -> str:
    return HEAD + "with tf.GradientTape() as tape:\n" + "".join(f"    {line}\n" for line in lines) + TAIL


REWRITES = [
    pytest.param(
        step("pred = model.predict(x)", "loss = tf.reduce_mean(pred)"),
        step("pred = model(x, training=False)", "loss = tf.reduce_mean(pred)"),
        id="plain",
    ),
    pytest.param(
        step("pred = tf.convert_to_tensor(model.predict(x, verbose=0))  # numpy!", "loss = tf.reduce_mean(pred)"),
        step("pred = model(x, training=False)  # numpy!", "loss = tf.reduce_mean(pred)"),
        id="convert-to-tensor-dropped-comment-kept",
    ),
    pytest.param(
        step("loss = loss_fn(y, model.predict(x=batch, batch_size=8))"),
        step("loss = loss_fn(y, model(batch, training=False))"),
        id="inline-keywords",
    ),
    pytest.param(
        step("pred = model.predict(x)", "loss = tf.reduce_mean(pred) / pred.shape[0]"),
        step("pred = model(x, training=False)", "loss = tf.reduce_mean(pred) / pred.shape[0]"),
        id="shape-is-fine-on-a-tensor",
    ),
    pytest.param(
        step("a = model.predict(x)", "b = a * 2", "c = 1", "loss = tf.reduce_sum(b)"),
        step("a = model(x, training=False)", "b = a * 2", "c = 1", "loss = tf.reduce_sum(b)"),
        id="reaches-through-statements",
    ),
    pytest.param(
        "import tensorflow as T\nfrom tensorflow import keras\nnet = keras.Model(i, o)\ndef f(x):\n    with T.GradientTape() as g:\n"
        "        loss = T.reduce_mean(T.convert_to_tensor(net.predict(x)))\n    return g.gradient(loss, net.trainable_variables)\n",
        "import tensorflow as T\nfrom tensorflow import keras\nnet = keras.Model(i, o)\ndef f(x):\n    with T.GradientTape() as g:\n"
        "        loss = T.reduce_mean(net(x, training=False))\n    return g.gradient(loss, net.trainable_variables)\n",
        id="alias-from-keras-in-function",
    ),
]


@pytest.mark.parametrize(("before", "after"), REWRITES)
def test_rewrites(before, after):
    result = assert_rewrites("TFM205", before, after)
    assert [f.code for f in result.fixes] == ["TFM205"]
    assert result.findings == []


UNKNOWN = step("pred = model.predict(x)", "loss = tf.reduce_mean(pred)").replace(
    "tf.keras.Sequential([tf.keras.layers.Dense(1)])", "load_model()"
)


def test_unknown_model_is_an_unsafe_fix():
    [finding] = assert_unchanged("TFM205", UNKNOWN).findings
    assert "not provably a Keras model" in finding.message and "--unsafe-fixes" in finding.message
    assert "pred = model(x, training=False)" in rewrite("TFM205", UNKNOWN, unsafe_fixes=True).code


def test_comment_inside_the_call_makes_it_unsafe():
    source = step("pred = model.predict(", "    x,  # inputs", ")", "loss = tf.reduce_mean(pred)")
    [finding] = assert_unchanged("TFM205", source).findings
    assert "drop the comments" in finding.message


FINDINGS = [
    pytest.param(
        step("pred = model.predict(x, steps=2)", "loss = tf.reduce_mean(pred)"),
        "arguments a model call does not take (steps)",
        id="steps",
    ),
    pytest.param(
        step("pred = model.predict(ds)", "loss = tf.reduce_mean(pred)").replace(
            "with tf", "ds = tf.data.Dataset.from_tensor_slices(x).batch(4)\nwith tf"
        ),
        "`tf.data` pipeline",
        id="dataset-input",
    ),
    pytest.param(
        "import numpy as np\n" + step("pred = np.array(model.predict(x))", "loss = tf.reduce_mean(pred)"),
        "goes through NumPy",
        id="numpy-wrapper",
    ),
    pytest.param(
        step("pred = model.predict(x)", "loss = tf.reduce_mean(pred.argmax(axis=1))"),
        "used as a NumPy array (`.argmax`)",
        id="numpy-method",
    ),
    pytest.param(
        step("pred = model.predict(x)", "loss = tf.reduce_mean(pred)") + "labels = pred.tolist()\n",
        "used as a NumPy array (`.tolist`)",
        id="numpy-method-after-the-block",
    ),
]


@pytest.mark.parametrize(("source", "fragment"), FINDINGS)
def test_findings(source, fragment):
    result = assert_unchanged("TFM205", source)
    assert [f.code for f in result.findings] == ["TFM205"]
    assert fragment in result.findings[0].message


NO_OPS = [
    pytest.param(step("pred = model(x)", "loss = tf.reduce_mean(pred)"), id="already-a-call"),
    pytest.param(step("shown = model.predict(x)", "loss = tf.reduce_mean(model(x))"), id="prediction-not-in-target"),
    pytest.param(
        HEAD + "pred = model.predict(x)\nwith tf.GradientTape() as tape:\n    loss = tf.reduce_mean(pred * w)\n" + TAIL,
        id="predict-outside-the-tape",
    ),
    pytest.param(
        step("pred = model.predict(x)  # tfmodernize: ignore[TFM205]", "loss = tf.reduce_mean(pred)"), id="suppressed"
    ),
    pytest.param(
        step("pred = model.predict(x)  # tfmodernize: ignore[predict-in-tape]", "loss = tf.reduce_mean(pred)"),
        id="suppressed-by-name",
    ),
    pytest.param(
        "import mylib as tf\nimport tensorflow\nwith tf.GradientTape() as tape:\n    loss = f(model.predict(x))\ngrads = tape.gradient(loss, w)\n",
        id="non-tf-module-called-tf",
    ),
    pytest.param(
        "import tensorflow\ntf = Fake()\nwith tf.GradientTape() as tape:\n    loss = f(model.predict(x))\ngrads = tape.gradient(loss, w)\n",
        id="non-tf-object-called-tf",
    ),
    pytest.param(
        "import tensorflow as tf\nwith recorder() as tape:\n    loss = f(model.predict(x))\ngrads = tape.gradient(loss, w)\n",
        id="not-a-gradient-tape",
    ),
]


@pytest.mark.parametrize("source", NO_OPS)
def test_no_ops(source):
    result = assert_unchanged("TFM205", source)
    assert result.findings == []


def test_docstring_example_is_what_it_does():
    sections = doc_sections(find_codemod("TFM205"))
    before, after = (textwrap.dedent(sections[part]) + "\n" for part in ("Before", "After"))
    assert_rewrites(
        "TFM205", "import tensorflow as tf\n" + before, "import tensorflow as tf\n" + after, unsafe_fixes=True
    )


def test_numpy_reduction_of_the_prediction_becomes_tf():
    before = (
        "import numpy as np\nimport tensorflow as tf\nmodel = tf.keras.Sequential([tf.keras.layers.Dense(2)])\n"
        "with tf.GradientTape() as tape:\n    preds = model.predict(x)\n    loss = np.mean(preds[:, 0], axis=0)\n"
        "grads = tape.gradient(loss, model.trainable_variables)\n"
    )
    after = before.replace("model.predict(x)", "model(x, training=False)").replace("np.mean", "tf.reduce_mean")
    result = assert_rewrites("TFM205", before, after)
    assert "`np.mean` -> `tf.reduce_mean`" in result.fixes[0].message


def test_numpy_without_a_tf_op_declines():
    source = (
        "import numpy as np\nimport tensorflow as tf\nmodel = tf.keras.Sequential([tf.keras.layers.Dense(2)])\n"
        "with tf.GradientTape() as tape:\n    preds = model.predict(x)\n    loss = np.median(preds)\n"
        "grads = tape.gradient(loss, model.trainable_variables)\n"
    )
    [finding] = assert_unchanged("TFM205", source).findings
    assert "np.median" in finding.message and "still cut the gradient" in finding.message


# A plain class of the file (not Keras) with its own ``predict`` computing with TF ops: its
# result is a tensor the tape records, so there is nothing to report.
OWN_PREDICT = """\
import tensorflow as tf
class Ridge:
    def __init__(self):
        self.coef = tf.Variable(tf.fill([3, 1], 0.5))
    def predict(self, x):
        return tf.matmul(x, self.coef)
def loss_grad(estimator, x, y):
    with tf.GradientTape() as tape:
        guess = estimator.predict(x)
        loss = tf.reduce_sum((guess - y) ** 2)
    return tape.gradient(loss, estimator.coef)
{tail}
"""


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(
            OWN_PREDICT.format(tail="g = loss_grad(Ridge(), tf.ones([4, 3]), tf.zeros([4, 1]))"),
            id="parameter",
        ),
        pytest.param(
            OWN_PREDICT.format(
                tail="r = Ridge()\nwith tf.GradientTape() as t:\n"
                "    out = tf.reduce_sum(r.predict(tf.ones([1, 3])))\n"
                "g = t.gradient(out, r.coef)"
            ),
            id="bound-to-an-instance",
        ),
        pytest.param(
            OWN_PREDICT.replace("class Ridge:", "class Base(object):\n    pass\nclass Ridge(Base):").format(tail=""),
            id="subclass-of-a-plain-class",
        ),
    ],
)
def test_own_predict_of_a_plain_class_is_left_alone(source):
    assert assert_unchanged("TFM205", source).findings == []


def test_keras_model_beside_a_plain_class_is_still_fixed():
    source = OWN_PREDICT.format(
        tail="net = tf.keras.Sequential([tf.keras.layers.Dense(1)])\nwith tf.GradientTape() as t:\n"
        "    out = tf.reduce_sum(net.predict(tf.ones([1, 3])))\n"
        "g = t.gradient(out, net.trainable_variables)"
    )
    assert "net(tf.ones([1, 3]), training=False)" in rewrite("TFM205", source).code


def test_unknown_object_beside_a_plain_class_is_still_reported():
    source = OWN_PREDICT.format(
        tail="other = load_model()\nwith tf.GradientTape() as t:\n"
        "    out = tf.reduce_sum(other.predict(tf.ones([1, 3])))\n"
        "g = t.gradient(out, other.trainable_variables)"
    )
    assert [f.code for f in assert_unchanged("TFM205", source).findings] == ["TFM205"]
