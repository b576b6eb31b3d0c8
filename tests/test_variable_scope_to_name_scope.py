"""TFM111 variable-scope-to-name-scope: golden and no-op tables."""

import pytest

from tfmodernize.testing import assert_rewrites, assert_unchanged

TF = "import tensorflow as tf\n"

REWRITES = [
    pytest.param(
        TF + "def act(x):\n    with tf.variable_scope('act'):\n        return tf.nn.relu(x)\n",
        TF + "def act(x):\n    with tf.name_scope('act'):\n        return tf.nn.relu(x)\n",
        id="ops-only",
    ),
    # Weights passed in are applied, not made.
    pytest.param(
        TF + "def conv(x, w, b):\n    with tf.variable_scope('conv'):\n"
        "        return tf.nn.conv2d(x, w, [1, 1, 1, 1], 'SAME') + b\n",
        TF + "def conv(x, w, b):\n    with tf.name_scope('conv'):\n"
        "        return tf.nn.conv2d(x, w, [1, 1, 1, 1], 'SAME') + b\n",
        id="weights-passed-in",
    ),
    # A module helper followed to its body; NumPy, built-ins and shape methods make nothing.
    pytest.param(
        "import numpy as np\n" + TF + "def k(a):\n    return np.float32(a)\n"
        "def f(x):\n    with tf.variable_scope('f'):\n        n = int(np.prod(x.get_shape().as_list()[1:]))\n"
        "        return tf.reshape(x, [-1, n]) * k(2)\n",
        "import numpy as np\n" + TF + "def k(a):\n    return np.float32(a)\n"
        "def f(x):\n    with tf.name_scope('f'):\n        n = int(np.prod(x.get_shape().as_list()[1:]))\n"
        "        return tf.reshape(x, [-1, n]) * k(2)\n",
        id="helpers-numpy-builtins-shapes",
    ),
    # Under another alias, at top level, and recursion in helpers terminates.
    pytest.param(
        "import tensorflow as T\ndef g(x):\n    return g(x - 1) if x else x\n"
        "with T.variable_scope('input'):\n    y = T.identity(g(3))\n",
        "import tensorflow as T\ndef g(x):\n    return g(x - 1) if x else x\n"
        "with T.name_scope('input'):\n    y = T.identity(g(3))\n",
        id="alias-top-level-recursive-helper",
    ),
]


@pytest.mark.parametrize(("before", "after"), REWRITES)
def test_rewrites(before, after):
    assert_rewrites("TFM111", before, after)


NO_OPS = [
    # Not this codemod's scopes: variables made under them, or the scope read (silent).
    pytest.param(
        TF + "def net(x):\n    with tf.variable_scope('n'):\n        w = tf.get_variable('w', [2, 2])\n"
        "        return tf.matmul(x, w)\n",
        None,
        id="get-variable",
    ),
    pytest.param(
        TF + "def net(x):\n    with tf.variable_scope('n'):\n        return tf.layers.dense(x, 2)\n", None, id="layer"
    ),
    pytest.param(
        TF + "def net(x):\n    with tf.variable_scope('n'):\n        return x * tf.Variable(1.0)\n",
        None,
        id="tf-variable",
    ),
    pytest.param(
        TF + "def mk():\n    return tf.get_variable('w', [2])\n"
        "def net(x):\n    with tf.variable_scope('n'):\n        return x * mk()\n",
        None,
        id="helper-making-a-variable",
    ),
    pytest.param(
        TF + "def net(x):\n    with tf.variable_scope('n'):\n"
        "        print(tf.get_variable_scope().name)\n        return x\n",
        None,
        id="scope-read",
    ),
    pytest.param(
        TF + "def step(loss):\n    with tf.variable_scope('opt'):\n"
        "        return tf.train.AdamOptimizer().minimize(loss)\n",
        None,
        id="optimizer-slots",
    ),
    # More than a name: left as written (silent).
    pytest.param(
        TF + "def f(x, reuse):\n    with tf.variable_scope('f', reuse=reuse):\n        return tf.nn.relu(x)\n",
        None,
        id="reuse",
    ),
    pytest.param(
        TF + "def f(x):\n    with tf.variable_scope('f') as scope:\n        return tf.nn.relu(x)\n",
        None,
        id="as-target",
    ),
    pytest.param(
        TF + "def f(x, name):\n    with tf.variable_scope(name):\n        return tf.nn.relu(x)\n",
        None,
        id="name-not-a-literal",
    ),
    pytest.param(
        TF + "def f(x):\n    with tf.variable_scope(None, default_name='f'):\n        return tf.nn.relu(x)\n",
        None,
        id="default-name",
    ),
    # A file kept on TF1 (a second run over one): its scopes stay TF1's.
    pytest.param(
        "import tensorflow.compat.v1 as tf\ndef act(x):\n    with tf.variable_scope('act'):\n"
        "        return tf.nn.relu(x)\n",
        None,
        id="spelled-through-compat-v1",
    ),
    # Code it cannot read: declined, naming the call.
    pytest.param(
        TF + "from nets import block\ndef f(x):\n    with tf.variable_scope('f'):\n        return block(x)\n",
        "the block calls `block`, defined elsewhere",
        id="imported-function",
    ),
    pytest.param(
        TF + "def f(x, layer):\n    with tf.variable_scope('f'):\n        return layer.apply(x)\n",
        "the block calls `layer.apply`",
        id="method-of-an-object",
    ),
    pytest.param(
        TF + "def f(x):\n    with tf.variable_scope('f'):\n        def g(y):\n            return y\n"
        "        return g(x)\n",
        "the block defines `g`",
        id="defines-a-function",
    ),
    pytest.param(TF + "def f(xs):\n    with tf.variable_scope('f'):\n        yield xs\n", "suspends", id="yields"),
]


@pytest.mark.parametrize(("source", "finding"), NO_OPS)
def test_declines(source, finding):
    result = assert_unchanged("TFM111", source)
    messages = [f.message for f in result.findings]
    if finding is None:
        assert messages == []
    else:
        assert any(finding in m for m in messages), messages
