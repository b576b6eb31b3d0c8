"""TFM103 gradients-to-tape: golden, finding and no-op tables."""

import pytest

from tfmodernize.testing import assert_rewrites, assert_unchanged

HEAD = "import tensorflow as tf\n\nW = tf.Variable(tf.zeros([3, 1]))\nb = tf.Variable(tf.zeros([1]))\n\n\n"

REWRITES = [
    pytest.param(
        HEAD + "@tf.function\ndef step(x):\n    cost = tf.reduce_sum(tf.matmul(x, W) + b)\n"
        "    grad_W, grad_b = tf.gradients(cost, [W, b])\n    return grad_W\n",
        HEAD + "@tf.function\ndef step(x):\n    with tf.GradientTape() as tape:\n"
        "        cost = tf.reduce_sum(tf.matmul(x, W) + b)\n    grad_W, grad_b = tape.gradient(cost, [W, b])\n"
        "    return grad_W\n",
        id="list-of-variables",
    ),
    pytest.param(
        HEAD + "def step(x):\n    cost = tf.reduce_sum(tf.matmul(x, W))\n    g = tf.gradients(cost, W)  # list\n",
        HEAD + "def step(x):\n    with tf.GradientTape() as tape:\n        cost = tf.reduce_sum(tf.matmul(x, W))\n"
        "    g = [tape.gradient(cost, W)]  # list\n",
        id="single-source-stays-a-list",
    ),
    pytest.param(
        HEAD
        + "def saliency(x):\n    score = tf.reduce_sum(tf.matmul(x, W))\n    g = tf.gradients(score, (x,), grad_ys=s)\n",
        HEAD + "def saliency(x):\n    with tf.GradientTape() as tape:\n        tape.watch(x)\n"
        "        score = tf.reduce_sum(tf.matmul(x, W))\n    g = tape.gradient(score, [x], output_gradients=s)\n",
        id="argument-watched-tuple-grad-ys",
    ),
    pytest.param(
        HEAD + "def step(x):\n    a = tf.reduce_sum(x * W)\n    c = a + tf.stop_gradient(b)\n"
        "    g = tf.gradients([a, c], tf.trainable_variables(), name='g')\n",
        HEAD + "def step(x):\n    with tf.GradientTape() as tape:\n        a = tf.reduce_sum(x * W)\n"
        "        c = a + tf.stop_gradient(b)\n    g = tape.gradient([a, c], [W, b])\n",
        id="several-targets-trainable-variables-stop-gradient",
    ),
    pytest.param(
        HEAD + "params = tf.trainable_variables()\n\n\ndef step(x):\n    cost = tf.reduce_sum(x * W) + b\n"
        "    capped, norm = tf.clip_by_global_norm(tf.gradients(cost, params), 1.0)\n    return capped\n",
        HEAD + "params = tf.trainable_variables()\n\n\ndef step(x):\n    with tf.GradientTape() as tape:\n"
        "        cost = tf.reduce_sum(x * W) + b\n"
        "    capped, norm = tf.clip_by_global_norm(tape.gradient(cost, params), 1.0)\n    return capped\n",
        id="call-inside-a-statement-over-the-trainable-collection",
    ),
    pytest.param(
        HEAD + "def nudge(x):\n    score = tf.reduce_sum(tf.matmul(x, W))\n"
        "    return x + 0.1 * tf.sign(tf.gradients(score, x)[0])\n",
        HEAD + "def nudge(x):\n    with tf.GradientTape() as tape:\n        tape.watch(x)\n"
        "        score = tf.reduce_sum(tf.matmul(x, W))\n    return x + 0.1 * tf.sign(tape.gradient(score, x))\n",
        id="first-gradient-of-a-call-inside-a-statement",
    ),
    pytest.param(
        HEAD + "def nudge(x):\n    score = tf.reduce_sum(tf.matmul(x, W))\n"
        "    return tf.sign(tf.gradients(score, [x, W])[0])\n",
        HEAD + "def nudge(x):\n    with tf.GradientTape() as tape:\n        tape.watch(x)\n"
        "        score = tf.reduce_sum(tf.matmul(x, W))\n    return tf.sign(tape.gradient(score, [x, W])[0])\n",
        id="first-of-several-gradients-inside-a-statement",
    ),
    pytest.param(
        "import tensorflow.compat.v1 as tf\nW = tf.Variable(1.0)\nupdate = tf.assign(W, 2.0, use_locking=True)\n"
        "inc = tf.assign_add(W, 1.0)\n",
        "import tensorflow.compat.v1 as tf\nW = tf.Variable(1.0)\nupdate = W.assign(2.0, use_locking=True)\n"
        "inc = W.assign_add(1.0)\n",
        id="assign-methods-compat-v1",
    ),
    pytest.param(
        "import tensorflow as T\nclass M:\n    def f(self):\n        T.assign_sub(self.v, self.lr * 2)\n",
        "class M:\n    def f(self):\n        self.v.assign_sub(self.lr * 2)\n",
        id="assign-sub-attribute-alias",
    ),
]


@pytest.mark.parametrize(("before", "after"), REWRITES)
def test_rewrites(before, after):
    result = assert_rewrites("TFM103", before, after)
    assert result.findings == [] and {f.code for f in result.fixes} == {"TFM103"}


FINDINGS = [
    pytest.param(
        HEAD + "cost = tf.reduce_sum(W)\ng = tf.gradients(cost, W)\n",
        "not a `name = tf.gradients(...)` statement",
        id="graph-code",
    ),
    pytest.param(
        HEAD + "def f(x):\n    c = tf.reduce_sum(x)\n    g = tf.gradients(c, [W], stop_gradients=[x])\n",
        "`stop_gradients`",
        id="stop-gradients",
    ),
    pytest.param(
        HEAD + "def f(x):\n    h = x * 2\n    c = tf.reduce_sum(h * W)\n    g = tf.gradients(c, h)\n",
        "neither a trainable variable nor a function argument",
        id="intermediate-tensor",
    ),
    pytest.param(
        HEAD + "def f(x):\n    g = tf.gradients(outer, [W])\n", "not a name computed earlier", id="outer-target"
    ),
    pytest.param(
        HEAD + "norm = tf.norm(W)\ndef f(x):\n    c = tf.reduce_sum(x * W) * norm\n    g = tf.gradients(c, [W])\n",
        "computed once at module level",
        id="frozen-module-tensor",
    ),
    pytest.param(
        HEAD + "def f(x):\n    c = tf.reduce_sum(x * W)\n    g = tf.gradients(c, [W])\n    h = tf.gradients(c, [b])\n",
        "takes gradients twice",
        id="two-calls",
    ),
    pytest.param(
        HEAD + "def f(x):\n    c = tf.reduce_sum(x * W)\n    g = [tf.gradients(c, [v]) for v in (W, b)]\n",
        "not a `name = tf.gradients(...)` statement",
        id="call-in-a-comprehension",
    ),
    pytest.param(
        HEAD + "def f(x):\n    c = tf.reduce_sum(x * W)\n    g = tf.gradients(c, [W]) + tf.gradients(c, [b])\n",
        "not a `name = tf.gradients(...)` statement",
        id="two-calls-in-one-statement",
    ),
    pytest.param(
        HEAD + "h = tf.layers.dense(W, 2)\nparams = tf.trainable_variables()\n\n\ndef f(x):\n"
        "    c = tf.reduce_sum(x * W)\n    g = tf.gradients(c, params)\n",
        "`params` reads the trainable-variables collection, and the file's variables cannot be listed",
        id="trainable-collection-not-listable",
    ),
    pytest.param(
        "import tensorflow as tf\nv = tf.Variable(1.0)\nop = tf.assign(v, [1.0, 2.0], validate_shape=False)\n",
        "validate_shape",
        id="assign-validate-shape",
    ),
    pytest.param(
        "import tensorflow as tf\nop = tf.assign(get_var(), 1.0)\n",
        "not a plain variable name",
        id="assign-computed-ref",
    ),
]


@pytest.mark.parametrize(("source", "fragment"), FINDINGS)
def test_findings(source, fragment):
    result = assert_unchanged("TFM103", source)
    assert result.findings and all(f.code == "TFM103" for f in result.findings)
    assert fragment in result.findings[0].message


NO_OPS = [
    pytest.param(
        "import numpy as tf\ndef f(x):\n    c = x\n    g = tf.gradients(c, x)\n    tf.assign(a, b)\n", id="non-tf-alias"
    ),
    pytest.param(
        "import tensorflow as tf\nv = tf.Variable(1.0)\nv.assign(2.0)\nopt.apply_gradients(zip(g, [v]))\n",
        id="already-tf2",
    ),
    pytest.param(
        "import tensorflow as tf\nv = tf.Variable(1.0)\nop = tf.assign(v, 2.0)  # tfmodernize: ignore\n",
        id="suppressed",
    ),
]


@pytest.mark.parametrize("source", NO_OPS)
def test_no_ops(source):
    assert_unchanged("TFM103", source)


def test_graph_program_declines():
    source = (
        HEAD + "x = tf.placeholder(tf.float32)\ndef f(x):\n    c = tf.reduce_sum(x * W)\n    g = tf.gradients(c, [W])\n"
    )
    assert "it uses `tf.placeholder`" in assert_unchanged("TFM103", source).findings[0].message
