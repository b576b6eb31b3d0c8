"""TFM107 layers-to-keras: golden rewrites (TFM107 alone: layer objects created once and
called where TF1 applied the functions), declines with findings, no-ops, and the committed
layer table is what the generator reads off TF1's and Keras's signatures."""

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tfmodernize.codemods.layers_to_keras import layer_table
from tfmodernize.testing import assert_rewrites, assert_unchanged

REPO = Path(__file__).resolve().parents[1]


def _code(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


REWRITES = [
    pytest.param(
        """
        import tensorflow as tf

        # the network
        hidden = tf.layers.dense(x, 8, activation=tf.nn.relu, name="hidden")
        logits = tf.layers.dense(tf.layers.flatten(hidden), 2, use_bias=False)
        """,
        """
        import tensorflow as tf

        # the network
        hidden_layer = tf.keras.layers.Dense(8, activation=tf.nn.relu, name="hidden")
        hidden = hidden_layer(x)
        flatten = tf.keras.layers.Flatten()
        dense = tf.keras.layers.Dense(2, use_bias=False)
        logits = dense(flatten(hidden))
        """,
        id="dense-named-and-nested-flatten",
    ),
    pytest.param(
        """
        import tensorflow as tf

        c = tf.layers.conv2d(inputs=images, filters=16, kernel_size=[5, 5], padding="same")
        p = tf.layers.max_pooling2d(c, pool_size=[2, 2], strides=2)
        d = tf.layers.dropout(p, training=False)
        """,
        """
        import tensorflow as tf

        conv2d = tf.keras.layers.Conv2D(16, [5, 5], padding="same")
        c = conv2d(images)
        max_pooling2d = tf.keras.layers.MaxPooling2D(pool_size=[2, 2], strides=2)
        p = max_pooling2d(c)
        dropout = tf.keras.layers.Dropout(0.5)
        d = dropout(p, training=False)
        """,
        id="conv-pool-dropout-tf1-default-rate-written-out",
    ),
]


REWRITES.append(pytest.param(
    """
    import tensorflow as tf


    def encoder(x):
        with tf.variable_scope("encoder"):
            return tf.layers.dense(x, 3, name="code")


    code = encoder(inputs)
    """,
    """
    import tensorflow as tf


    encoder_code = tf.keras.layers.Dense(3, name="code")


    def encoder(x):
        return encoder_code(x)


    code = encoder(inputs)
    """,
    id="network-function-called-once",
))


@pytest.mark.parametrize(("before", "after"), REWRITES)
def test_rewrites(before, after):
    assert_rewrites("TFM107", _code(before), _code(after))


DECLINES = [
    pytest.param(
        """
        import tensorflow as tf

        def network(x):
            return tf.layers.dense(x, 4)
        """,
        "not called exactly once from the program's top-level code",
        id="network-function-never-called",
    ),
    pytest.param(
        """
        import tensorflow as tf

        def network(x, reuse=False):
            with tf.variable_scope("d", reuse=reuse):
                return tf.layers.dense(x, 1)

        real = network(a)
        fake = network(b, reuse=True)
        """,
        "not called exactly once from the program's top-level code",
        id="network-shared-with-reuse",
    ),
    pytest.param(
        """
        import tensorflow as tf

        def network(x):
            for width in (4, 8):
                x = tf.layers.dense(x, width)
            return x

        y = network(a)
        """,
        "inside a loop, a condition or a nested definition",
        id="network-function-with-a-loop",
    ),
    pytest.param(
        """
        import tensorflow as tf

        for width in (4, 8):
            h = tf.layers.dense(x, width)
        """,
        "applied inside a class or a block",
        id="in-a-loop",
    ),
    pytest.param(
        """
        import tensorflow as tf

        h = tf.layers.dense(x, 4, name="shared", reuse=True)
        """,
        "`reuse` (variable sharing)",
        id="reuse",
    ),
    pytest.param(
        """
        import tensorflow as tf

        d = tf.layers.dropout(h, 0.3, training=is_training)
        """,
        "`training=is_training`",
        id="dropout-in-training-mode",
    ),
    pytest.param(
        """
        import tensorflow as tf

        h = tf.layers.dense(x, 4, **options)
        """,
        "`*args` or `**kwargs`",
        id="kwargs",
    ),
]


@pytest.mark.parametrize(("source", "message"), DECLINES)
def test_declines_with_a_finding(source, message):
    result = assert_unchanged("TFM107", _code(source))
    assert [f.code for f in result.findings] == ["TFM107"]
    assert message in result.findings[0].message


NO_OPS = [
    pytest.param("import tensorflow as tf\nlayer = tf.keras.layers.Dense(3)\n", id="already-keras"),
    pytest.param("import tensorflow as tf\nh = tf.layers.batch_normalization(x)\n", id="not-in-the-table"),
]


@pytest.mark.parametrize("source", NO_OPS)
def test_no_ops(source):
    assert assert_unchanged("TFM107", source).findings == []


def test_the_table_maps_every_tf1_parameter():
    for name, entry in layer_table().items():
        handled = {"inputs", *entry["constructor"], *entry["call"], *entry["declined"]}
        assert set(entry["parameters"]) == handled, name


@pytest.mark.skipif(importlib.util.find_spec("tf_keras") is None, reason="reads tf-keras's legacy tf.layers")
def test_committed_table_is_regenerated_identically(tmp_path):
    out = tmp_path / "layers.json"
    subprocess.run([sys.executable, str(REPO / "scripts" / "generate_layer_table.py"), "--output", str(out)],
                   check=True, capture_output=True, env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
    fresh, committed = json.loads(out.read_text()), json.loads((REPO / "tfmodernize" / "data" / "layers.json").read_text())
    assert fresh == committed, "tfmodernize/data/layers.json is stale: run scripts/generate_layer_table.py"
