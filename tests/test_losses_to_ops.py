"""TFM108 losses-to-ops: golden and no-op tables."""

import pytest

from tfmodernize.testing import assert_rewrites, assert_unchanged, rewrite

TF1 = "import tensorflow as tf\nx = tf.placeholder(tf.float32)\n"
V1 = "import tensorflow.compat.v1 as tf\n"

REWRITES = [
    pytest.param(
        TF1 + "loss = tf.losses.mean_squared_error(y, p)\n",
        TF1
        + (
            "loss = tf.reduce_mean(\n"
            "    tf.math.squared_difference(tf.cast(p, tf.float32), tf.cast(y, tf.float32))\n"
            ")\n"
        ),
        id="mse-positional",
    ),
    pytest.param(
        TF1 + "loss = tf.losses.mean_squared_error(predictions=p, labels=tf.cast(y, tf.float32), scope='mse')\n",
        TF1
        + (
            "loss = tf.reduce_mean(\n"
            "    tf.math.squared_difference(tf.cast(p, tf.float32), tf.cast(y, tf.float32))\n"
            ")\n"
        ),
        id="mse-keywords-scope-dropped-cast-not-doubled",
    ),
    pytest.param(
        TF1 + "loss = tf.losses.absolute_difference(y, p, reduction=tf.losses.Reduction.SUM)\n",
        TF1 + "loss = tf.reduce_sum(tf.abs(tf.cast(p, tf.float32) - tf.cast(y, tf.float32)))\n",
        id="absolute-sum",
    ),
    pytest.param(
        TF1 + "loss = tf.losses.hinge_loss(y, z, weights=1.0, reduction=tf.losses.Reduction.NONE)\n",
        TF1 + "loss = tf.nn.relu(1 - (2 * tf.cast(y, tf.float32) - 1) * tf.cast(z, tf.float32))\n",
        id="hinge-per-element",
    ),
    pytest.param(
        TF1 + "loss = tf.losses.softmax_cross_entropy(onehot_labels=y, logits=z, label_smoothing=0)\n",
        TF1
        + (
            "loss = tf.reduce_mean(\n"
            "    tf.nn.softmax_cross_entropy_with_logits(labels=tf.stop_gradient(y), logits=z)\n"
            ")\n"
        ),
        id="softmax",
    ),
    pytest.param(
        TF1 + "loss = tf.losses.sigmoid_cross_entropy(y, z, reduction=tf.losses.Reduction.MEAN)\n",
        TF1 + "loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=z))\n",
        id="sigmoid-mean",
    ),
    pytest.param(
        TF1 + "loss = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=z)\n",
        TF1
        + ("loss = tf.reduce_mean(\n    tf.keras.losses.sparse_categorical_crossentropy(y, z, from_logits=True)\n)\n"),
        id="sparse",
    ),
    pytest.param(
        TF1 + "loss = tf.losses.softmax_cross_entropy(y, end_points['Logits'], label_smoothing=0.1)\n",
        TF1
        + (
            "loss = tf.reduce_mean(\n"
            "    tf.nn.softmax_cross_entropy_with_logits(\n"
            "        labels=tf.stop_gradient(\n"
            "            y * (1 - 0.1) + 0.1 / tf.cast(tf.shape(y)[-1], end_points['Logits'].dtype)\n"
            "        ),\n"
            "        logits=end_points['Logits'],\n"
            "    )\n"
            ")\n"
        ),
        id="softmax-smoothed-literal",
    ),
    pytest.param(
        TF1 + "loss = tf.losses.sigmoid_cross_entropy(tf.ones_like(z), z, label_smoothing=FLAGS.smoothing)\n",
        TF1
        + (
            "loss = tf.reduce_mean(\n"
            "    tf.nn.sigmoid_cross_entropy_with_logits(\n"
            "        labels=tf.ones_like(z) * (1 - FLAGS.smoothing) + 0.5 * FLAGS.smoothing, logits=z\n"
            "    )\n"
            ")\n"
        ),
        id="sigmoid-smoothed-by-a-name",
    ),
    pytest.param(
        TF1
        + "loss = tf.losses.sigmoid_cross_entropy(a + b, z, label_smoothing=0.2, reduction=tf.losses.Reduction.NONE)\n",
        TF1 + "loss = tf.nn.sigmoid_cross_entropy_with_logits(labels=(a + b) * (1 - 0.2) + 0.5 * 0.2, logits=z)\n",
        id="smoothed-labels-of-an-expression-parenthesized",
    ),
    pytest.param(
        TF1 + "loss = tf.losses.absolute_difference(y, tf.to_float(a - b))\n",
        TF1 + "loss = tf.reduce_mean(tf.abs(tf.to_float(a - b) - tf.cast(y, tf.float32)))\n",
        id="to-float-not-cast-again",
    ),
    pytest.param(
        TF1 + "loss = tf.losses.absolute_difference(y, p, weights=mask)\n",
        TF1
        + (
            "loss_per_element = tf.abs(tf.cast(p, tf.float32) - tf.cast(y, tf.float32))\n"
            "loss = tf.math.divide_no_nan(\n"
            "    tf.reduce_sum(loss_per_element * tf.cast(mask, tf.float32)),\n"
            "    tf.math.count_nonzero(\n"
            "        tf.broadcast_to(tf.cast(mask, tf.float32), tf.shape(loss_per_element)),\n"
            "        dtype=tf.float32,\n"
            "    ),\n"
            ")\n"
        ),
        id="weighted-mean-over-the-non-zero-weights",
    ),
    pytest.param(
        TF1
        + "def head(y, z, w):\n    loss = tf.losses.sigmoid_cross_entropy(y, z, weights=w, reduction=tf.losses.Reduction.MEAN)\n"
        "    return loss\n",
        TF1
        + (
            "def head(y, z, w):\n"
            "    loss_per_element = tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=z)\n"
            "    loss = tf.math.divide_no_nan(\n"
            "        tf.reduce_sum(loss_per_element * tf.cast(w, tf.float32)),\n"
            "        tf.reduce_sum(tf.ones_like(loss_per_element) * tf.cast(w, tf.float32)),\n"
            "    )\n"
            "    return loss\n"
        ),
        id="weighted-mean-divided-by-the-weights-in-a-function",
    ),
    pytest.param(
        TF1
        + "total = 2 * tf.losses.softmax_cross_entropy(y, z, weights=w[0] + 1, reduction=tf.losses.Reduction.SUM)\n",
        TF1
        + (
            "total = (\n"
            "    2\n"
            "    * tf.reduce_sum(tf.nn.softmax_cross_entropy_with_logits(labels=tf.stop_gradient(y), logits=z) * tf.cast(w[0] + 1, tf.float32))\n"
            ")\n"
        ),
        id="weighted-sum-anywhere",
    ),
    pytest.param(
        TF1 + "self.total += tf.losses.softmax_cross_entropy(y, aux['logits'], weights=0.4)\n",
        TF1
        + (
            "total_per_element = tf.nn.softmax_cross_entropy_with_logits(\n"
            "    labels=tf.stop_gradient(y), logits=aux['logits']\n"
            ")\n"
            "self.total += tf.math.divide_no_nan(\n"
            "    tf.reduce_sum(total_per_element * 0.4),\n"
            "    tf.math.count_nonzero(\n"
            "        tf.broadcast_to(0.4, tf.shape(total_per_element)), dtype=tf.float32\n"
            "    ),\n"
            ")\n"
        ),
        id="weighted-mean-added-to-an-attribute",
    ),
    pytest.param(
        TF1 + "loss = tf.losses.hinge_loss(y, z, weights=0.5, reduction=tf.losses.Reduction.NONE)\n",
        TF1 + "loss = tf.nn.relu(1 - (2 * tf.cast(y, tf.float32) - 1) * tf.cast(z, tf.float32)) * 0.5\n",
        id="number-weight-converted-by-the-product",
    ),
    pytest.param(
        V1 + "loss = tf.losses.mean_squared_error(y, p)\n",
        V1
        + (
            "loss = tf.compat.v2.reduce_mean(\n"
            "    tf.compat.v2.math.squared_difference(\n"
            "        tf.compat.v2.cast(p, tf.compat.v2.float32),\n"
            "        tf.compat.v2.cast(y, tf.compat.v2.float32),\n"
            "    )\n"
            ")\n"
        ),
        id="compat-v1-spelled-v2",
    ),
    pytest.param(
        "import tensorflow as tf\nloss = tf.compat.v1.losses.log_loss(y, p) + tf.compat.v1.losses.mean_squared_error(y, p)\n",
        "import tensorflow as tf\n"
        "loss = (\n"
        "    tf.compat.v1.losses.log_loss(y, p)\n"
        "    + tf.reduce_mean(tf.math.squared_difference(tf.cast(p, tf.float32), tf.cast(y, tf.float32)))\n"
        ")\n",
        id="compat-v1-spelling-is-tf1-log-loss-left",
    ),
]

NO_OPS = [
    pytest.param(
        "import tensorflow as tf\nloss = tf.compat.v2.losses.mean_squared_error(y, p)\n", id="spelled-v2-keras"
    ),
    pytest.param(
        TF1 + "loss = 2 * tf.losses.mean_squared_error(y, p, weights=mask)\n", id="weighted-mean-in-an-expression"
    ),
    pytest.param(
        TF1 + "loss = tf.losses.mean_squared_error(y, p, weights=tf.sign(y))\n", id="weights-computed-read-twice"
    ),
    pytest.param(
        TF1 + "loss = tf.losses.sparse_softmax_cross_entropy(k, z, weights=mask)\n", id="sparse-weights-squeezed"
    ),
    pytest.param(
        TF1 + "loss = tf.losses.softmax_cross_entropy(tf.one_hot(k, 3), z, label_smoothing=0.1)\n",
        id="label-smoothing-of-computed-labels",
    ),
    pytest.param(TF1 + "loss = tf.losses.softmax_cross_entropy(y, z, label_smoothing=-0.1)\n", id="negative-smoothing"),
    pytest.param(
        TF1 + "loss = tf.losses.softmax_cross_entropy(y, tf.matmul(h, w), label_smoothing=0.1)\n",
        id="label-smoothing-of-computed-logits-read-for-their-dtype",
    ),
    pytest.param(
        TF1 + "loss = tf.losses.softmax_cross_entropy(y, z, label_smoothing=get())\n", id="computed-smoothing"
    ),
    pytest.param(TF1 + "loss = tf.losses.mean_squared_error(y, p, loss_collection='mine')\n", id="own-collection"),
    pytest.param(TF1 + "loss = tf.losses.mean_squared_error(y, p, reduction=how)\n", id="reduction-not-written"),
    pytest.param(TF1 + "loss = tf.losses.mean_squared_error(*pair)\n", id="star-args"),
    pytest.param(
        TF1 + "a = tf.losses.mean_squared_error(y, p)\ntotal = tf.losses.get_total_loss()\n", id="collection-read"
    ),
    pytest.param(
        TF1 + "a = tf.losses.mean_squared_error(y, p)\nall = tf.get_collection(tf.GraphKeys.LOSSES)\n",
        id="collection-read-by-key",
    ),
    pytest.param(
        TF1 + "a = tf.losses.mean_squared_error(y, p)\nall = tf.get_collection('losses')\n",
        id="collection-read-by-string",
    ),
    pytest.param(TF1 + "a = tf.losses.huber_loss(y, p)\n", id="huber-not-in-table"),
    pytest.param(TF1 + "a = tf.losses.mean_squared_error(y, p)  # tfmodernize: ignore[TFM108]\n", id="suppressed"),
    pytest.param(TF1 + "a = tf.reduce_mean(tf.square(y - p))\n", id="already-ops"),
]


@pytest.mark.parametrize(("before", "after"), REWRITES)
def test_rewrites(before, after):
    assert_rewrites("TFM108", before, after)


@pytest.mark.parametrize("source", NO_OPS)
def test_no_ops(source):
    assert_unchanged("TFM108", source)


def test_declines_say_why():
    messages = [
        f.message for f in rewrite("TFM108", TF1 + "a = 2 * tf.losses.mean_squared_error(y, p, weights=m)\n").findings
    ]
    assert messages == [
        "tf.losses.mean_squared_error not migrated: it is given `weights` inside a larger expression, and "
        "TF1's weighted mean reads the per-element losses twice: bind the loss to a name on a line of its own"
    ]
    messages = [
        f.message
        for f in rewrite("TFM108", TF1 + "a = tf.losses.hinge_loss(y, p)\nb = tf.losses.get_losses()\n").findings
    ]
    assert messages == [
        "tf.losses.hinge_loss not migrated: the file reads the loss collection TF1's loss functions add to "
        "(tf.losses.get_losses on line 4): migrate that read first (sum the losses you mean)"
    ]
