"""TFM106 get-variable-to-variable: golden and no-op tables."""

import pytest

from tfmodernize.testing import assert_rewrites, assert_unchanged

REWRITES = [
    pytest.param("import tensorflow as tf\nc = tf.get_variable('c', [], tf.int64)\n",
                 "import tensorflow as tf\nc = tf.Variable(tf.zeros([], dtype=tf.int64), name='c')\n", id="integer-default-zeros"),
    pytest.param("import tensorflow as tf\nb = tf.get_variable('b', [2], initializer=tf.zeros_initializer())\n",
                 "import tensorflow as tf\nb = tf.Variable(tf.zeros([2], dtype=tf.float32), name='b')\n", id="zeros"),
    pytest.param("import tensorflow as T\nb = T.get_variable(name='b', shape=[2], initializer=T.constant_initializer(3), trainable=False)\n",
                 "import tensorflow as T\nb = T.Variable(T.fill([2], T.constant(3, dtype=T.float32)), name='b', trainable=False)\n",
                 id="alias-constant-not-trainable"),
    pytest.param("import tensorflow as tf\nw = tf.get_variable('w', initializer=tf.constant(0.0))\n",
                 "import tensorflow as tf\nw = tf.Variable(tf.constant(0.0), name='w')\n", id="tensor-initial-value"),
    pytest.param("import tensorflow as tf\nw = tf.get_variable('w', dtype=tf.float64, initializer=tf.random_normal([2]))\n",
                 "import tensorflow as tf\nw = tf.Variable(tf.random_normal([2]), name='w', dtype=tf.float64)\n",
                 id="random-tensor-initial-value-with-dtype"),
    # Random initializers: the TF2 op their __call__ ran; Glorot's range computed from the fans.
    pytest.param("import tensorflow as tf\nw = tf.get_variable('w', [2, 2])\n",
                 "import tensorflow as tf\nw = tf.Variable(tf.random.uniform([2, 2], -1.224744871391589, 1.224744871391589, "
                 "dtype=tf.float32), name='w')\n", id="float-default-glorot-uniform"),
    pytest.param("import tensorflow as tf\nw = tf.get_variable('w', [2], initializer=tf.random_normal_initializer())\n",
                 "import tensorflow as tf\nw = tf.Variable(tf.random.normal([2], dtype=tf.float32), name='w')\n",
                 id="random-normal-defaults"),
    pytest.param("import tensorflow as tf\nw = tf.get_variable('w', [3], tf.float64, tf.truncated_normal_initializer(stddev=s))\n",
                 "import tensorflow as tf\nw = tf.Variable(tf.random.truncated_normal([3], stddev=s, dtype=tf.float64), name='w')\n",
                 id="truncated-normal-positional-initializer"),
]


@pytest.mark.parametrize(("before", "after"), REWRITES)
def test_rewrites(before, after):
    assert_rewrites("TFM106", before, after)


NO_OPS = [
    pytest.param("import tensorflow as tf\nw = tf.get_variable('w', [n, 2])\n", "Glorot uniform", id="glorot-shape-not-numbers"),
    pytest.param("import tensorflow as tf\nw = tf.get_variable('w', [2], initializer=tf.random_normal_initializer(seed=3))\n",
                 "`seed` is given to its initializer", id="random-initializer-with-seed"),
    pytest.param("import tensorflow as tf\nw = tf.get_variable('w', [2], initializer=tf.random_uniform_initializer(maxval=f()))\n",
                 "computed by calls", id="random-initializer-argument-computed"),
    pytest.param("import tensorflow as tf\nw = tf.get_variable('w', [2, 2], initializer=tf.orthogonal_initializer())\n",
                 "not one this migration maps", id="initializer-not-mapped"),
    pytest.param("import tensorflow as tf\nwith tf.variable_scope('s'):\n    c = tf.get_variable('c', [], tf.int32)\n",
                 "variable_scope", id="in-a-variable-scope"),
    pytest.param("import tensorflow as tf\ndef f():\n    c = tf.get_variable('c', [], tf.int32)\n", "inside a function",
                 id="in-a-function"),
    pytest.param("import tensorflow as tf\nc = [tf.get_variable('c', [], tf.int32)]\n", "on a line of its own",
                 id="inside-an-expression"),
    pytest.param("import tensorflow as tf\nc = tf.get_variable('c', [], tf.int32, regularizer=reg)\n", "regularizer",
                 id="regularizer"),
    pytest.param("import tensorflow as tf\nc = tf.get_variable(name, [], tf.int32)\n", "literal", id="computed-name"),
    pytest.param("import tensorflow as tf\nc = tf.get_variable('c', initializer=start)\n", "literal", id="initial-value-of-unknown-kind"),
]


@pytest.mark.parametrize(("source", "finding"), NO_OPS)
def test_declines(source, finding):
    result = assert_unchanged("TFM106", source)
    assert any(finding in f.message for f in result.findings), [f.message for f in result.findings]
