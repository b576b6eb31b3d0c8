"""TFM121 network-function-to-module: golden and no-op tables.

Numeric proofs (with session-to-function and minimize-to-tape after it) live in
``fixtures/network-function-to-module/``."""

import pytest

from tfmodernize.engine import transform_text
from tfmodernize.testing import assert_rewrites, assert_unchanged, resolve, rewrite

SESSION = "with tf.Session() as sess:\n    sess.run(tf.global_variables_initializer())\n"

REWRITES = [
    pytest.param(
        "import tensorflow as tf\n\n\n"
        "def net(x):\n"
        "    w = tf.Variable(tf.ones([2, 1]))\n"
        "    return tf.matmul(x, w)\n\n\n"
        "x = tf.placeholder(tf.float32, [None, 2])\n"
        "y = net(x)\n" + SESSION,
        "import tensorflow as tf\n\n\n"
        "class Net(tf.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.w = tf.Variable(tf.ones([2, 1]))\n\n"
        "    def __call__(self, x):\n"
        "        return tf.matmul(x, self.w)\n\n\n"
        "x = tf.placeholder(tf.float32, [None, 2])\n"
        "net = Net()\n"
        "y = net(x)\n" + SESSION,
        id="one-call-keeps-the-function-name-for-the-object",
    ),
    pytest.param(
        "import tensorflow as tf\n\n\n"
        "def layer(inputs, n_in, n_out, name):\n"
        "    shape = [n_in, n_out]\n"
        "    W = tf.Variable(tf.zeros(shape), name=name)\n"
        "    return tf.nn.relu(tf.matmul(inputs, W))\n\n\n"
        "def main():\n"
        "    x = tf.placeholder(tf.float32, [None, 2])\n"
        "    # two layers\n"
        "    h = layer(x, 2, 3, name='first')\n"
        "    out = layer(h, 3, 1, name='second')\n"
        "    with tf.Session() as sess:\n"
        "        sess.run(out, {x: [[1.0, 2.0]]})\n\n\n"
        "main()\n",
        "import tensorflow as tf\n\n\n"
        "class Layer(tf.Module):\n"
        "    def __init__(self, n_in, n_out, name):\n"
        "        super().__init__()\n"
        "        shape = [n_in, n_out]\n"
        "        self.W = tf.Variable(tf.zeros(shape), name=name)\n\n"
        "    def __call__(self, inputs):\n"
        "        return tf.nn.relu(tf.matmul(inputs, self.W))\n\n\n"
        "def main():\n"
        "    x = tf.placeholder(tf.float32, [None, 2])\n"
        "    # two layers\n"
        "    first_layer = Layer(2, 3, name='first')\n"
        "    h = first_layer(x)\n"
        "    second_layer = Layer(3, 1, name='second')\n"
        "    out = second_layer(h)\n"
        "    with tf.Session() as sess:\n"
        "        sess.run(out, {x: [[1.0, 2.0]]})\n\n\n"
        "main()\n",
        id="calls-in-the-program-function-named-after-their-scope-strings-under-their-comment",
    ),
    pytest.param(
        "import tensorflow as tf\n\n\n"
        "def head(x, units, act=tf.nn.relu):\n"
        "    w = tf.Variable(tf.ones([4, units]))\n"
        "    return act(tf.reshape(tf.matmul(x, w), [-1, units]))\n\n\n"
        "x = tf.placeholder(tf.float32, [None, 4])\n"
        "y = head(x, units=2)\n" + SESSION,
        "import tensorflow as tf\n\n\n"
        "class Head(tf.Module):\n"
        "    def __init__(self, units):\n"
        "        super().__init__()\n"
        "        self.w = tf.Variable(tf.ones([4, units]))\n"
        "        self.units = units\n\n"
        "    def __call__(self, x, act=tf.nn.relu):\n"
        "        return act(tf.reshape(tf.matmul(x, self.w), [-1, self.units]))\n\n\n"
        "x = tf.placeholder(tf.float32, [None, 4])\n"
        "head = Head(units=2)\n"
        "y = head(x)\n" + SESSION,
        id="a-parameter-both-parts-read-is-kept-on-the-object",
    ),
    pytest.param(
        "import tensorflow as tf\n\n\n"
        "def MLP(x):\n"
        "    w = tf.Variable(tf.ones([2, 1]))\n"
        "    return tf.matmul(x, w)\n\n\n"
        "x = tf.placeholder(tf.float32, [None, 2])\n"
        "y = MLP(x)\n" + SESSION,
        "import tensorflow as tf\n\n\n"
        "class MLPModule(tf.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.w = tf.Variable(tf.ones([2, 1]))\n\n"
        "    def __call__(self, x):\n"
        "        return tf.matmul(x, self.w)\n\n\n"
        "x = tf.placeholder(tf.float32, [None, 2])\n"
        "MLP = MLPModule()\n"
        "y = MLP(x)\n" + SESSION,
        id="a-function-named-like-a-class",
    ),
    pytest.param(
        "import tensorflow as tf\n\n\n"
        "def add_dense(x):\n"
        "    w = tf.Variable(tf.ones([2, 2]))\n"
        "    return tf.matmul(x, w)\n\n\n"
        "x = tf.placeholder(tf.float32, [None, 2])\n"
        "first, _ = tf.split(add_dense(x), 2)\n"
        "tf.identity(add_dense(x))\n" + SESSION,
        "import tensorflow as tf\n\n\n"
        "class AddDense(tf.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.w = tf.Variable(tf.ones([2, 2]))\n\n"
        "    def __call__(self, x):\n"
        "        return tf.matmul(x, self.w)\n\n\n"
        "x = tf.placeholder(tf.float32, [None, 2])\n"
        "add_dense_1 = AddDense()\n"
        "first, _ = tf.split(add_dense_1(x), 2)\n"
        "add_dense_2 = AddDense()\n"
        "tf.identity(add_dense_2(x))\n" + SESSION,
        id="several-calls-numbered-when-one-binds-no-name",
    ),
    pytest.param(
        "import tensorflow as tf\n\n\n"
        "def build_block(x):\n"
        "    w = tf.Variable(tf.ones([2, 2]))\n"
        "    return tf.matmul(x, w)\n\n\n"
        "x = tf.placeholder(tf.float32, [None, 2])\n"
        "g, _ = tf.split(build_block(x), 2)\n"
        "h_block = 1\n"
        "h = build_block(x)\n" + SESSION,
        "import tensorflow as tf\n\n\n"
        "class BuildBlock(tf.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.w = tf.Variable(tf.ones([2, 2]))\n\n"
        "    def __call__(self, x):\n"
        "        return tf.matmul(x, self.w)\n\n\n"
        "x = tf.placeholder(tf.float32, [None, 2])\n"
        "build_block_1 = BuildBlock()\n"
        "g, _ = tf.split(build_block_1(x), 2)\n"
        "h_block = 1\n"
        "build_block_2 = BuildBlock()\n"
        "h = build_block_2(x)\n" + SESSION,
        id="several-calls-numbered-when-the-names-clash",
    ),
    pytest.param(
        "import tensorflow as tf\n\n\n"
        "def create_new_conv_layer(x, n):\n"
        "    w = tf.Variable(tf.ones([2, n]))\n"
        "    return tf.matmul(x, w)\n\n\n"
        "x = tf.placeholder(tf.float32, [None, 2])\n"
        "layer1 = create_new_conv_layer(x, 2)\n"
        "layer2 = create_new_conv_layer(layer1, 1)\n" + SESSION,
        "import tensorflow as tf\n\n\n"
        "class CreateNewConvLayer(tf.Module):\n"
        "    def __init__(self, n):\n"
        "        super().__init__()\n"
        "        self.w = tf.Variable(tf.ones([2, n]))\n\n"
        "    def __call__(self, x):\n"
        "        return tf.matmul(x, self.w)\n\n\n"
        "x = tf.placeholder(tf.float32, [None, 2])\n"
        "layer1_module = CreateNewConvLayer(2)\n"
        "layer1 = layer1_module(x)\n"
        "layer2_module = CreateNewConvLayer(1)\n"
        "layer2 = layer2_module(layer1)\n" + SESSION,
        id="several-calls-binding-names-that-say-what-the-function-makes",
    ),
    pytest.param(
        "import tensorflow as tf\n\n\n"
        "def net(x):\n"
        "    # encoder\n"
        "    w1 = tf.Variable(tf.ones([2, 3]))\n"
        "    h = tf.matmul(x, w1)\n"
        "    # decoder\n"
        "    w2 = tf.Variable(tf.ones([3, 2]))\n"
        "    # the reconstruction\n"
        "    out = tf.matmul(h, w2)\n\n"
        "    # squashed\n"
        "    scale = tf.Variable(1.0)\n"
        "    return tf.nn.sigmoid(out) * scale\n\n\n"
        "x = tf.placeholder(tf.float32, [None, 2])\n"
        "y = net(x)\n" + SESSION,
        "import tensorflow as tf\n\n\n"
        "class Net(tf.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        # encoder\n"
        "        self.w1 = tf.Variable(tf.ones([2, 3]))\n"
        "        # decoder\n"
        "        self.w2 = tf.Variable(tf.ones([3, 2]))\n\n"
        "        # squashed\n"
        "        self.scale = tf.Variable(1.0)\n\n"
        "    def __call__(self, x):\n"
        "        # encoder\n"
        "        h = tf.matmul(x, self.w1)\n"
        "        # the reconstruction\n"
        "        out = tf.matmul(h, self.w2)\n\n"
        "        # squashed\n"
        "        return tf.nn.sigmoid(out) * self.scale\n\n\n"
        "x = tf.placeholder(tf.float32, [None, 2])\n"
        "net = Net()\n"
        "y = net(x)\n" + SESSION,
        id="headings-copied-to-the-other-method-a-statement-comment-stays-with-it",
    ),
]


@pytest.mark.parametrize(("before", "after"), REWRITES)
def test_rewrites(before, after):
    assert_rewrites("TFM121", before, after)


def program(function: str, calls: str = "y = f(x)\n") -> str:
    return (
        "import tensorflow as tf\n\n\n" + function + "\n\nx = tf.placeholder(tf.float32, [None, 2])\n" + calls + SESSION
    )


NETWORK = "def f(x):\n    w = tf.Variable(tf.ones([2, 2]))\n    return tf.matmul(x, w)\n"

NO_OPS = [
    # Not networks: session-to-function reads these as they are.
    pytest.param(
        program("def f(shape):\n    return tf.Variable(tf.zeros(shape))\n", "w = f([2])\n"), None, id="factory"
    ),
    pytest.param(
        "import tensorflow as tf\n\n\ndef main():\n    w = tf.Variable(1.0)\n    y = w * 2.0\n"
        "    with tf.Session() as sess:\n        sess.run(y)\n\n\nmain()\n",
        None,
        id="the-program-run-in-a-function",
    ),
    pytest.param(
        "import tensorflow as tf\n\n\n" + NETWORK + "\n\ny = f(tf.ones([1, 2]))\n", None, id="no-session-tf2-code"
    ),
    pytest.param(
        program(
            "def f(loss):\n    step = tf.Variable(0, trainable=False)\n"
            "    return tf.train.AdamOptimizer(0.1).minimize(loss, global_step=step)\n",
            "y = f(tf.reduce_sum(x))\n",
        ),
        None,
        id="a-training-step-builder",
    ),
    pytest.param(program(NETWORK, "layers = [f]\n"), "used other than called", id="passed-as-a-value"),
    pytest.param(program(NETWORK, "ys = [f(x) for _ in range(2)]\n"), "comprehension", id="called-in-a-comprehension"),
    pytest.param(program(NETWORK, "for _ in range(2): y = f(x); z = y\n"), "several statements", id="line-of-two"),
    pytest.param(
        program("def f(*inputs):\n    w = tf.Variable(tf.ones([2, 2]))\n    return tf.matmul(inputs[0], w)\n"),
        "`*args`",
        id="star-args",
    ),
    pytest.param(
        program(
            "def f(x):\n    w = tf.Variable(tf.ones([2, 2]))\n"
            "    b = tf.get_variable('b', [2])\n    return tf.matmul(x, w) + b\n"
        ),
        "other than by `tf.Variable`",
        id="get-variable-too",
    ),
    pytest.param(
        program(
            "def g(shape):\n    return tf.Variable(tf.zeros(shape))\n\n\n"
            "def f(x):\n    w = tf.Variable(tf.ones([2, 2]))\n    return tf.matmul(x, w) + g([2])\n"
        ),
        "other than by `tf.Variable`",
        id="calls-a-function-making-variables",
    ),
    pytest.param(
        program("def f(x):\n    w = tf.Variable(tf.ones([2, 2]))\n    w = tf.matmul(x, w)\n    return w\n"),
        "more than once",
        id="variable-name-rebound",
    ),
    pytest.param(
        program("def f(x):\n    variables = tf.Variable(tf.ones([2, 2]))\n    return tf.matmul(x, variables)\n"),
        "would hide",
        id="variable-named-like-a-module-attribute",
    ),
    pytest.param(
        program(
            "def f(x, n):\n    w = tf.Variable(tf.ones([2, n]))\n    return tf.matmul(x, w)\n",
            "y = f(x, len([1, 2]))\n",
        ),
        "computed by a call",
        id="init-argument-computed-by-a-call",
    ),
    pytest.param(
        program(
            "def f(x, n):\n    w = tf.Variable(tf.ones([2, n]))\n    n = 3\n    return tf.matmul(x, w) * n\n",
            "y = f(x, 2)\n",
        ),
        "bound again",
        id="shared-parameter-rebound-by-the-ops",
    ),
    pytest.param(
        program(
            "def f(x):\n    a = tf.Variable(tf.ones([2, 2]))\n    h = tf.nn.dropout(tf.matmul(x, a), 0.5)\n"
            "    b = tf.Variable(tf.random_normal([2, 1]))\n    return tf.matmul(h, b)\n"
        ),
        "draws a random value",
        id="random-op-before-a-variable",
    ),
    pytest.param(
        program(
            "def f(x):\n    a = tf.Variable(tf.ones([2, 3]))\n    h = tf.matmul(x, a)\n    n = h.shape[1]\n"
            "    b = tf.Variable(tf.ones([n, 1]))\n    return tf.matmul(h, b)\n"
        ),
        "what the ops compute",
        id="initial-value-shaped-by-the-ops",
    ),
]


@pytest.mark.parametrize(("source", "finding"), NO_OPS)
def test_declines(source, finding):
    result = assert_unchanged("TFM121", source)
    messages = [f.message for f in result.findings]
    if finding is None:
        assert messages == []
    else:
        assert any(finding in message for message in messages), messages


LAYER = "def layer(x, n_in, n_out):\n    w = tf.Variable(tf.ones([n_in, n_out]))\n    return tf.matmul(x, w)\n"
LAYER_CLASS = (
    "class Layer(tf.Module):\n"
    "    def __init__(self, n_in, n_out):\n"
    "        super().__init__()\n"
    "        self.w = tf.Variable(tf.ones([n_in, n_out]))\n\n"
    "    def __call__(self, x):\n"
    "        return tf.matmul(x, self.w)\n"
)

COMPOSITES = [
    pytest.param(
        "import tensorflow as tf\n\n\n" + LAYER + "\n\n"
        "def net(x, width):\n"
        "    # hidden\n"
        "    h = tf.nn.relu(layer(x, 2, width))\n"
        "    return layer(h, width, 1) / width\n\n\n"
        "x = tf.placeholder(tf.float32, [None, 2])\n"
        "y = net(x, 3)\n" + SESSION,
        "import tensorflow as tf\n\n\n" + LAYER_CLASS + "\n\n"
        "class Net(tf.Module):\n"
        "    def __init__(self, width):\n"
        "        super().__init__()\n"
        "        self.layer_1 = Layer(2, width)\n"
        "        self.layer_2 = Layer(width, 1)\n"
        "        self.width = width\n\n"
        "    def __call__(self, x):\n"
        "        # hidden\n"
        "        h = tf.nn.relu(self.layer_1(x))\n"
        "        return self.layer_2(h) / self.width\n\n\n"
        "x = tf.placeholder(tf.float32, [None, 2])\n"
        "net = Net(3)\n"
        "y = net(x)\n" + SESSION,
        id="sub-modules-made-in-init-in-call-order-a-shared-parameter-kept",
    ),
    pytest.param(
        "import tensorflow as tf\n\n\n" + LAYER + "\n\n"
        "def block(x):\n"
        "    return layer(x, 2, 2)\n\n\n"
        "def net(x):\n"
        "    first = block(x)\n"
        "    second = block(first)\n"
        "    return layer(second, 2, 1)\n\n\n"
        "x = tf.placeholder(tf.float32, [None, 2])\n"
        "y = net(x)\n" + SESSION,
        "import tensorflow as tf\n\n\n" + LAYER_CLASS + "\n\n"
        "class Block(tf.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.layer = Layer(2, 2)\n\n"
        "    def __call__(self, x):\n"
        "        return self.layer(x)\n\n\n"
        "class Net(tf.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.first_block = Block()\n"
        "        self.second_block = Block()\n"
        "        self.layer = Layer(2, 1)\n\n"
        "    def __call__(self, x):\n"
        "        first = self.first_block(x)\n"
        "        second = self.second_block(first)\n"
        "        return self.layer(second)\n\n\n"
        "x = tf.placeholder(tf.float32, [None, 2])\n"
        "net = Net()\n"
        "y = net(x)\n" + SESSION,
        id="a-composite-of-composites",
    ),
]


@pytest.mark.parametrize(("before", "after"), COMPOSITES)
def test_composites(before, after):
    assert_rewrites("TFM121", before, after)


COMPOSITES_DECLINED = [
    pytest.param(
        "def net(x):\n    h = tf.nn.dropout(layer(x, 2, 2), 0.5)\n    return layer(h, 2, 1)\n",
        "draws a random value before",
        id="dropout-between-two-layers",
    ),
    pytest.param(
        "def net(x, deep):\n    h = layer(x, 2, 2)\n    if deep:\n        h = layer(h, 2, 2)\n    return h\n",
        "other than in a line of its body",
        id="a-layer-in-a-block",
    ),
    pytest.param(
        "def net(x):\n    n = x.shape[1]\n    return layer(x, n, 1)\n",
        "which the ops compute",
        id="a-sub-module-shaped-by-the-ops",
    ),
    pytest.param(
        "def net(x):\n    return layer(layer(x, 2, 2), 2, 1)\n",
        "two network functions in one statement",
        id="two-layers-in-one-statement",
    ),
    pytest.param(
        "def net(x):\n    h = layer(x, 2, 2)\n    b = tf.get_variable('b', [1])\n    return layer(h, 2, 1) + b\n",
        "other than by calling network functions",
        id="other-variables-too",
    ),
]


@pytest.mark.parametrize(("composite", "finding"), COMPOSITES_DECLINED)
def test_composites_declined(composite, finding):
    """The caller stays a function (the layer's calls in it make their objects there, as a
    program function's do) and a finding says why."""
    source = "import tensorflow as tf\n\n\n" + LAYER + "\n\n" + composite + "\n\n"
    source += "x = tf.placeholder(tf.float32, [None, 2])\ny = net(x)\n" + SESSION
    result = rewrite("TFM121", source)
    assert "\ndef net(" in result.code and "class Net(" not in result.code
    messages = [f.message for f in result.findings]
    assert any(finding in message and "`net`" in message for message in messages), messages


def test_a_layer_drawing_when_called_is_declined_before_another_layer():
    """Its dropout, drawn when called, came before the next layer's variables in TF1."""
    source = (
        "import tensorflow as tf\n\n\n"
        "def layer(x, n):\n    w = tf.Variable(tf.ones([2, n]))\n    return tf.nn.dropout(tf.matmul(x, w), 0.5)\n\n\n"
        "def net(x):\n    h = layer(x, 2)\n    return layer(h, 2)\n\n\n"
        "x = tf.placeholder(tf.float32, [None, 2])\ny = net(x)\n" + SESSION
    )
    result = rewrite("TFM121", source)
    assert "class Net(" not in result.code
    assert any("draws a random value when called" in f.message for f in result.findings)


@pytest.mark.parametrize(
    "calls",
    [
        pytest.param("y = f(tf.nn.dropout(x, 0.5))\n", id="an-argument-drawn"),
        pytest.param("y = tf.random_normal([1, 2]) + f(x)\n", id="drawn-before-the-call"),
    ],
)
def test_a_line_drawing_before_the_call_is_declined(calls):
    """The object is made before the line: its variables would come before the value drawn."""
    source = program("def f(x):\n    w = tf.Variable(tf.random_normal([2, 2]))\n    return tf.matmul(x, w)\n", calls)
    result = assert_unchanged("TFM121", source)
    assert any("draws a random value before the call" in f.message for f in result.findings)


def test_a_draw_after_the_call_on_its_line_is_kept():
    source = program(
        "def f(x):\n    w = tf.Variable(tf.random_normal([2, 2]))\n    return tf.matmul(x, w)\n",
        "y = tf.nn.dropout(f(x), 0.5)\n",
    )
    assert "f = F()\ny = tf.nn.dropout(f(x), 0.5)\n" in rewrite("TFM121", source).code


def test_a_draw_after_the_last_sub_module_is_kept_in_the_call():
    source = (
        "import tensorflow as tf\n\n\n" + LAYER + "\n\n"
        "def net(x):\n    h = layer(x, 2, 2)\n    return tf.nn.dropout(layer(h, 2, 1), 0.5)\n\n\n"
        "x = tf.placeholder(tf.float32, [None, 2])\ny = net(x)\n" + SESSION
    )
    code = rewrite("TFM121", source).code
    assert "        return tf.nn.dropout(self.layer_2(h), 0.5)\n" in code


REUSED_IN_ITS_SCOPE = (
    "import tensorflow as tf\n\n\n"
    "def dense(x, n_in, n_out):\n"
    '    w = tf.get_variable("w", [n_in, n_out], initializer=tf.ones_initializer())\n'
    "    return tf.matmul(x, w)\n\n\n"
    "def net(x):\n"
    '    with tf.variable_scope("first"):\n'
    "        h = dense(x, 2, 3)\n"
    '    with tf.variable_scope("second"):\n'
    "        return dense(h, 3, 1)\n\n\n"
    "x = tf.placeholder(tf.float32, [None, 2])\n"
    'with tf.variable_scope("pair") as scope:\n'
    "    a = net(x)\n"
    "{lines}"
    "    scope.reuse_variables()\n"
    "    b = net(x * 2.0)\n" + SESSION
)


@pytest.mark.parametrize(
    ("lines", "kept"),
    [
        ("    # Reuse the weights made above.\n", "a = net(x)\nb = net(x * 2.0)\n"),
        (
            "    # The nets below share their weights.\n\n    # Reuse the weights made above.\n",
            "a = net(x)\n# The nets below share their weights.\n\nb = net(x * 2.0)\n",
        ),
    ],
    ids=["its-own-comment-goes-with-it", "no-op-a-comment-heading-a-section-stays"],
)
def test_the_reuse_line_takes_its_own_comment_with_it(lines, kept) -> None:
    source = REUSED_IN_ITS_SCOPE.replace("{lines}", lines)
    code, _ = transform_text(source, [resolve("TFM106"), resolve("TFM121")])
    assert f"net = Net()\n{kept}with tf.Session()" in code
    assert "Reuse the weights" not in code
