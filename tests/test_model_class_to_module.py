"""TFM120 model-class-to-module: rewrites, declines and no-ops, in one file and across a project."""

from pathlib import Path

import pytest

from tfmodernize.engine import run
from tfmodernize.settings import Settings
from tfmodernize.sources import Discovered
from tfmodernize.testing import assert_rewrites, assert_unchanged, rewrite

#: A model class's opening: a placeholder, a variable, an optimizer passed in.
HEAD = (
    "import tensorflow as tf\n\n\nclass M(object):\n"
    "    def __init__(self, n, optimizer=tf.train.GradientDescentOptimizer(0.1)):\n"
    "        self.n = n\n"
    "        self.x = tf.placeholder(tf.float32, [None, 2])\n"
    "        self.w = tf.Variable(tf.zeros([2, 1]))\n"
)
SESSION = "        self.sess = tf.Session()\n        self.sess.run(tf.global_variables_initializer())\n"
PRODUCT = "        self.y = tf.matmul(self.x, self.w)\n"
LOSS = "        self.y = tf.reduce_sum(tf.matmul(self.x, self.w))\n        self.t = optimizer.minimize(self.y)\n"


GRAPH_METHOD = "\n    def _graph(self):\n        self.y = tf.matmul(self.x, self.w)\n"


def _class(*lines: str, methods: str = "", after: str = "") -> str:
    return HEAD + "".join(lines) + SESSION + methods + after


REWRITES = [
    # A variable ``__init__`` binds to a local is kept on the tf.Module, which must hold it.
    pytest.param(
        "import tensorflow as tf\n\n\nclass M:\n"
        "    def __init__(self):\n"
        "        self.x = tf.placeholder(tf.float32, [None, 2])\n"
        "        v = tf.Variable(tf.ones([1]))\n"
        "        self.y = tf.reduce_sum(self.x, axis=1) * v\n"
        "        self.sess = tf.Session()\n"
        "        self.sess.run(tf.global_variables_initializer())\n\n"
        "    def f(self, a):\n"
        "        return self.sess.run(self.y, feed_dict={self.x: a})\n",
        "import tensorflow as tf\n\n\nclass M(tf.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.v = tf.Variable(tf.ones([1]))\n\n"
        "    @tf.function(\n"
        "        input_signature=[tf.TensorSpec([None, 2], tf.float32)],\n"
        "        autograph=False,\n"
        "    )\n"
        "    def _y(self, x):\n"
        "        return tf.reduce_sum(x, axis=1) * self.v\n\n"
        "    def f(self, a):\n"
        "        return self._y(a).numpy()\n",
        id="variable-kept-in-a-local",
    ),
    pytest.param(
        "import tensorflow as tf\n\n\nclass M:\n"
        "    def __init__(self, optimizer):\n"
        "        self.x = tf.placeholder(tf.float32, [None, 2])\n"
        "        self.w = tf.Variable(tf.ones([2, 1]))\n"
        "        self.loss = tf.reduce_sum(tf.matmul(self.x, self.w))\n"
        "        self.step = optimizer.minimize(self.loss, var_list=[self.w])\n"
        "        self.sess = tf.Session()\n"
        "        self.sess.run(tf.global_variables_initializer())\n\n"
        "    def fit(self, v):\n"
        "        self.sess.run(self.step, feed_dict={self.x: v})\n\n\n"
        "m = M(tf.train.GradientDescentOptimizer(0.5))\n",
        "import tensorflow as tf\n\n\nclass M(tf.Module):\n"
        "    def __init__(self, optimizer):\n"
        "        super().__init__()\n"
        "        self.w = tf.Variable(tf.ones([2, 1]))\n"
        "        self.optimizer = optimizer\n\n"
        "    def _loss(self, x):\n"
        "        return tf.reduce_sum(tf.matmul(x, self.w))\n\n"
        "    @tf.function(\n"
        "        input_signature=[tf.TensorSpec([None, 2], tf.float32)],\n"
        "        autograph=False,\n"
        "    )\n"
        "    def _train_step(self, x):\n"
        "        with tf.GradientTape() as tape:\n"
        "            loss = self._loss(x)\n"
        "        gradients = tape.gradient(loss, [self.w])\n"
        "        self.optimizer.apply_gradients(zip(gradients, [self.w]))\n\n"
        "    def fit(self, v):\n"
        "        self._train_step(v)\n\n\n"
        "m = M(tf.keras.optimizers.SGD(learning_rate=0.5))\n",
        id="optimizer-passed-by-the-caller-with-a-var-list",
    ),
    pytest.param(
        "import tensorflow as tf\n\n\nclass M:\n"
        "    def __init__(self):\n"
        "        self.x = tf.placeholder(tf.float32, [None, 2])\n"
        "        self.w = tf.Variable(tf.ones([2, 1]))\n"
        "        self.loss = tf.reduce_sum(tf.matmul(self.x, self.w))\n"
        "        self.opt = tf.train.GradientDescentOptimizer(0.5)\n"
        "        self.step = self.opt.minimize(self.loss)\n"
        "        self.sess = tf.Session()\n"
        "        self.sess.run(tf.global_variables_initializer())\n\n"
        "    def noise(self):\n"
        "        return self.sess.run(tf.random_normal([2]))\n",
        "import tensorflow as tf\n\n\nclass M(tf.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.w = tf.Variable(tf.ones([2, 1]))\n"
        "        self.opt = tf.keras.optimizers.SGD(learning_rate=0.5)\n\n"
        "    def _loss(self, x):\n"
        "        return tf.reduce_sum(tf.matmul(x, self.w))\n\n"
        "    def noise(self):\n"
        "        return tf.random_normal([2]).numpy()\n",
        id="optimizer-kept-on-an-attribute-and-an-op-built-at-the-run",
    ),
    pytest.param(
        "import tensorflow as tf\n\n\nclass M:\n"
        "    def __init__(self):\n"
        "        self.x = tf.placeholder(tf.float32, [None, 2])\n"
        "        self.w = tf.Variable(tf.ones([2, 3]))\n"
        "        self.code = tf.nn.relu(tf.matmul(self.x, self.w))\n"
        "        self.out = tf.reduce_sum(self.code, 1)\n"
        "        self.sess = tf.Session()\n\n"
        "    def decode(self, code):\n"
        "        return self.sess.run(self.out, feed_dict={self.code: code})\n\n"
        "    def run(self, x):\n"
        "        return self.sess.run(self.out, feed_dict={self.x: x})\n",
        "import tensorflow as tf\n\n\nclass M(tf.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.w = tf.Variable(tf.ones([2, 3]))\n\n"
        "    def _code(self, x):\n"
        "        return tf.nn.relu(tf.matmul(x, self.w))\n\n"
        "    @tf.function(input_signature=[tf.TensorSpec(None, tf.float32)], autograph=False)\n"
        "    def _out(self, code):\n"
        "        return tf.reduce_sum(code, 1)\n\n"
        "    def decode(self, code):\n"
        "        return self._out(code).numpy()\n\n"
        "    @tf.function(\n"
        "        input_signature=[tf.TensorSpec([None, 2], tf.float32)],\n"
        "        autograph=False,\n"
        "    )\n"
        "    def _compute_out(self, x):\n"
        "        code = self._code(x)\n"
        "        out = self._out(code)\n"
        "        return out\n\n"
        "    def run(self, x):\n"
        "        return self._compute_out(x).numpy()\n",
        id="a-computed-tensor-fed-by-one-run-computed-by-another",
    ),
    pytest.param(
        "import tensorflow as tf\n\n\nclass M:\n"
        "    def __init__(self, size):\n"
        "        self.size = size\n"
        "        self.a = tf.placeholder(tf.float32, [None, size])\n"
        "        self.b = tf.placeholder(tf.float32, [None, size])\n"
        "        self.total = tf.reduce_sum(self.a * size + self.b)\n"
        "        self.sess = tf.Session()\n\n"
        "    def add(self, a, b):\n"
        "        return self.sess.run(self.total, feed_dict={self.b: b, self.a: a})\n",
        "import tensorflow as tf\n\n\nclass M(tf.Module):\n"
        "    def __init__(self, size):\n"
        "        super().__init__()\n"
        "        self.size = size\n\n"
        "    @tf.function(\n"
        "        input_signature=[\n"
        "            tf.TensorSpec([None, None], tf.float32),\n"
        "            tf.TensorSpec([None, None], tf.float32),\n"
        "        ],\n"
        "        autograph=False,\n"
        "    )\n"
        "    def _total(self, a, b):\n"
        "        return tf.reduce_sum(a * self.size + b)\n\n"
        "    def add(self, a, b):\n"
        "        return self._total(b=b, a=a).numpy()\n",
        id="a-parameter-the-graph-reads-through-its-attribute-fed-out-of-order",
    ),
]


@pytest.mark.parametrize("before, after", REWRITES)
def test_rewrites(before, after):
    assert_rewrites("TFM120", before, after)


DECLINES = [
    pytest.param(
        _class(PRODUCT).replace("(object)", "(Base)"),
        "has a base class other than `object`",
        id="base",
    ),
    pytest.param(
        _class("        with tf.variable_scope('m'):\n            self.y = tf.matmul(self.x, self.w)\n"),
        "builds its graph in a block",
        id="variable-scope-block",
    ),
    pytest.param(_class(PRODUCT, "        self.saver = tf.train.Saver()\n"), "`tf.train.Saver`", id="saver"),
    # A saver made in a method is migrated when it only saves the session at a step and restores it.
    pytest.param(
        _class(
            LOSS,
            methods="\n    def keep(self, path):\n        saver = tf.train.Saver(var_list=[self.w])\n"
            "        saver.save(self.sess, path, global_step=1)\n",
        ),
        "given more than `max_to_keep`",
        id="saver-of-chosen-variables-in-a-method",
    ),
    pytest.param(
        _class(
            LOSS,
            methods="\n    def keep(self, path):\n        saver = tf.train.Saver()\n"
            "        saver.save(self.sess, path)\n",
        ),
        "is given no `global_step`",
        id="saver-saving-without-a-step",
    ),
    pytest.param(
        _class(
            LOSS,
            methods="\n    def keep(self, path):\n        saver = tf.train.Saver()\n        self.savers = [saver]\n",
        ),
        "used other than to save and restore",
        id="saver-kept-on-the-object",
    ),
    pytest.param(
        _class(
            LOSS,
            methods="\n    def keep(self, path):\n        saver = tf.train.Saver()\n"
            "        done = saver.restore(self.sess, path)\n",
        ),
        "the value of `saver.restore` (None) is used",
        id="saver-restore-value-used",
    ),
    pytest.param(
        _class(PRODUCT, "        tf.summary.histogram('w', self.w)\n"),
        "a summary of `__init__` is of something other than a tensor of the model",
        id="summary-of-a-variable",
    ),
    pytest.param(
        _class(PRODUCT, "        tf.summary.image('y', self.y)\n"),
        "`tf.summary.image`",
        id="summary-image",
    ),
    pytest.param(
        _class(
            PRODUCT,
            "        tf.summary.scalar('y', tf.reduce_sum(self.y))\n        self.merged = tf.summary.merge_all()\n",
        ),
        "of something other than a tensor of the model",
        id="summary-of-an-expression",
    ),
    pytest.param(
        _class(
            PRODUCT,
            "        tf.summary.scalar('y', self.y)\n        self.merged = tf.summary.merge_all()\n",
            methods="\n    def f(self, v):\n        return self.sess.run(self.merged, feed_dict={self.x: v})\n",
        ),
        "the merged summary is fetched other than unpacked into a name",
        id="merged-summary-returned",
    ),
    pytest.param(
        _class(PRODUCT, "        tf.add_to_collection('outputs', self.y)\n"),
        "`tf.add_to_collection`",
        id="collection",
    ),
    pytest.param(_class("        self.y = tf.layers.dense(self.x, 3)\n"), "makes variables", id="layer"),
    pytest.param(_class("        self.name = 'm'\n", PRODUCT), "member of tf.Module", id="module-member"),
    pytest.param(
        _class("        k = 2.0\n        self.y = tf.matmul(self.x, self.w) * k\n"),
        "reads `k`, a local of `__init__`",
        id="local-not-kept",
    ),
    pytest.param(
        _class(
            PRODUCT,
            "        self.z = tf.cast(self.y, tf.int32) * 2\n",
            "        self.u = self.z + 1\n",
            methods="\n    def f(self, v):\n        return self.sess.run(self.u, feed_dict={self.z: v})\n",
        ),
        "feeds `self.z`, a tensor whose dtype this migration cannot tell",
        id="feeds-a-computed-tensor-of-unknown-dtype",
    ),
    pytest.param(
        _class(PRODUCT, methods="\n    def f(self):\n        return self.sess.run(self.y)\n"),
        "does not feed `self.x`",
        id="placeholder-not-fed",
    ),
    pytest.param(
        _class(PRODUCT, methods="\n    def f(self):\n        print(self.y)\n"),
        "uses `self.y` (a tensor) outside a session run",
        id="tensor-read-outside-a-run",
    ),
    pytest.param(
        _class(
            LOSS,
            methods="\n    def f(self, v):\n        return self.sess.run(self.t, feed_dict={self.x: v})\n",
        ),
        "value of a train op's run",
        id="train-op-value-used",
    ),
    pytest.param(
        _class(
            "        self.h = tf.nn.dropout(self.x, 0.5)\n",
            "        self.y = tf.matmul(self.h, self.w) + tf.reduce_sum(self.h)\n",
            methods="\n    def f(self, v):\n        return self.sess.run([self.h, self.y], feed_dict={self.x: v})\n",
        ),
        "would be drawn several times",
        id="random-value-drawn-twice",
    ),
    pytest.param(
        _class(
            "        self.y = tf.reduce_sum(tf.matmul(self.x, self.w))\n",
            "        self.t = tf.train.RMSPropOptimizer(0.1).minimize(self.y)\n",
        ),
        "starts its slots elsewhere",
        id="rmsprop-slots",
    ),
    pytest.param(
        _class(
            "        self.y = tf.reduce_sum(tf.matmul(self.x, self.w))\n",
            "        self.t = tf.train.AdamOptimizer(lambda: 0.1, beta1=0.5).minimize(self.y)\n",
        ),
        "given `beta1`, which TF1 read as float32",
        # FusedAdam takes numbers: an Adam given a function stays Keras', which rounds the betas.
        id="adam-given-a-function-and-betas",
    ),
    pytest.param(
        _class(
            "        self.a = self._make()\n        self.b = self._make()\n",
            methods="\n    def _make(self):\n        return tf.Variable(tf.zeros([1]))\n",
        ),
        "called other than once",
        id="variable-helper-called-twice",
    ),
    pytest.param(
        _class(PRODUCT) + "        self.sess.run(self.w.assign(tf.ones([2, 1])))\n",
        "runs its session for something other than initialising",
        id="session-run-in-init",
    ),
    pytest.param(
        "import tensorflow as tf\nx = tf.placeholder(tf.float32)\ny = x * 2.0\n\n\nclass R:\n"
        "    def __init__(self):\n        self.sess = tf.Session()\n\n"
        "    def f(self, v):\n        return self.sess.run(y, feed_dict={x: v})\n",
        "feeds `x`, no placeholder or tensor of the model",
        id="runs-a-graph-built-outside-the-class",
    ),
    pytest.param(
        _class(PRODUCT, after="\n\nm = M(2)\nprint(m.y)\n"),
        "`m.y` reads `y`, a graph value",
        id="read-by-the-module",
    ),
    pytest.param(
        _class(PRODUCT, after="\n\nm = M(1)\nwith tf.Session() as s:\n    print(s.run(tf.ones([2])))\n"),
        "the module's own session code uses its objects",
        id="module-session-program-using-the-objects",
    ),
    pytest.param(
        _class(PRODUCT, after="\n\nclass N(M):\n    def show(self):\n        print(self.n)\n"),
        "`N` subclasses a model class",
        id="subclassed",
    ),
    pytest.param(
        _class(
            LOSS,
            after="\n\nopt = tf.train.AdamOptimizer()\na = M(1, optimizer=opt)\nb = M(2, optimizer=opt)\n",
        ),
        "not made once for it alone",
        id="optimizer-shared-by-two-objects",
    ),
    pytest.param(
        _class(
            LOSS,
            after="\n\nopt = tf.train.AdamOptimizer()\nfor i in range(2):\n    M(i, optimizer=opt)\n",
        ),
        "passed to every `M` made in a loop",
        id="optimizer-passed-in-a-loop",
    ),
    pytest.param(
        _class("        self.y = tf.reshape(self.x, [-1, self.x.shape[1]])\n"),
        "reads `.shape`",
        id="shape-read",
    ),
    pytest.param(
        _class(
            "        self.y = self._net(self.x)\n",
            methods="\n    def _net(self, x):\n        return tf.matmul(x, self.w)\n",
        ),
        "calls the method `_net`",
        id="graph-built-by-a-method",
    ),
    pytest.param(
        _class(
            "        self.y = tf.matmul(self.x, self.w) * self.n\n",
            methods="\n    def grow(self):\n        self.n = self.n + 1\n",
        ),
        "rebinds `self.n`, which the graph read",
        id="value-the-graph-read-rebound",
    ),
    pytest.param(
        _class(LOSS, "        self.opt = optimizer\n"),
        "`optimizer` is read other than by its `minimize`",
        id="optimizer-kept",
    ),
    pytest.param(
        _class(
            PRODUCT,
            methods="\n    def f(self, v):\n        return self.sess.run(self.x, feed_dict={self.x: v})\n",
        ),
        "fetches `self.x`, a placeholder",
        id="placeholder-fetched",
    ),
    pytest.param(
        HEAD + PRODUCT + "        self.sess = tf.Session(config=tf.ConfigProto())\n",
        "without options",
        id="session-with-a-config",
    ),
    pytest.param(
        _class(PRODUCT, methods="\n    def g(self):\n        return self.sess.graph\n"),
        "`self.sess` is used other than to run it",
        id="session-graph-read",
    ),
    pytest.param(
        _class(PRODUCT, methods="\n    def build(self):\n        self.z = tf.ones([2])\n"),
        "builds graph ops outside `__init__`",
        id="ops-built-in-a-method",
    ),
    # ``__init__`` reads the lines of a method building its graph only when nothing else runs them.
    pytest.param(
        _class("        self._graph()\n", methods=GRAPH_METHOD + "\n    def again(self):\n        self._graph()\n"),
        "builds the graph in a way this migration does not read",
        id="graph-method-also-called-by-another-method",
    ),
    pytest.param(
        _class("        self._graph(2)\n", methods=GRAPH_METHOD.replace("(self)", "(self, k)")),
        "builds the graph in a way this migration does not read",
        id="graph-method-given-arguments",
    ),
    pytest.param(
        _class("        k = 3\n        self._graph()\n", methods=GRAPH_METHOD + "        k = self.y\n"),
        "builds the graph in a way this migration does not read",
        id="graph-method-binding-a-name-init-binds",
    ),
    pytest.param(
        _class("        self.y = self._graph()\n", methods=GRAPH_METHOD + "        return self.y\n"),
        "calls a method that builds the graph",
        id="graph-method-returning-a-value",
    ),
    pytest.param(
        _class("        with tf.device(self.n):\n            self.y = tf.matmul(self.x, self.w)\n"),
        "builds its graph in a block",
        id="device-block-of-a-computed-name",
    ),
    pytest.param(
        _class(
            "        self._graph()\n",
            methods=GRAPH_METHOD,
            after="\n\nm = M(2)\nm._graph()\n",
        ),
        "reads `_graph`",
        id="graph-method-called-by-code-using-the-class",
    ),
    # A variable bound to a local is kept on the object only under a name the class leaves free.
    pytest.param(
        _class("        v = tf.Variable(tf.ones([2, 1]))\n        self.v = 1\n        self.y = tf.matmul(self.x, v)\n"),
        "the graph reads `v`, a variable not kept on the object",
        id="local-variable-named-as-an-attribute",
    ),
    pytest.param(
        _class("        variables = tf.Variable(tf.ones([2, 1]))\n        self.y = tf.matmul(self.x, variables)\n"),
        "the graph reads `variables`, a variable not kept on the object",
        id="local-variable-named-as-a-tf-module-member",
    ),
]


@pytest.mark.parametrize("source, message", DECLINES)
def test_declines_with_a_finding(source, message):
    result = assert_unchanged("TFM120", source)
    assert any(message in f.message for f in result.findings), [f.message for f in result.findings]


@pytest.mark.parametrize(
    "line, run",
    [
        # The random op reads a variable: drawn apart, its value would lose the gradient.
        ("        self.y = tf.matmul(tf.nn.dropout(tf.matmul(self.x, self.w), 0.5), self.w)\n", "{self.x: v}"),
        # The run feeds a computed value the draw would read too: computed twice.
        ("        self.y = tf.matmul(tf.nn.dropout(self.x, 0.5), self.w)\n", "{self.x: np.tanh(v)}"),
        # Drawn from a tensor the graph computes.
        ("        h = tf.matmul(self.x, self.w)\n        self.y = h + tf.random_normal(tf.shape(h))\n", "{self.x: v}"),
    ],
    ids=["reads-a-variable", "computed-feed", "reads-a-tensor"],
)
def test_random_ops_in_the_graph_are_an_unsafe_fix(line, run):
    source = _class(line, methods=f"\n    def f(self, v):\n        return self.sess.run(self.y, feed_dict={run})\n")
    safe = assert_unchanged("TFM120", source)
    assert [f.unsafe_fix for f in safe.findings] == [True]
    assert "draws random values" in safe.findings[0].message
    unsafe = rewrite("TFM120", source, unsafe_fixes=True)
    assert "class M(tf.Module):" in unsafe.code
    assert "get_concrete_function" not in unsafe.code


def test_a_random_op_reading_placeholders_is_drawn_apart_by_each_run():
    """One tf.function traced in ``__init__`` where TF1 made the op draws it; each run calls
    it and hands its value to the function it runs (a safe fix: TF1's numbers)."""
    source = _class(
        "        self.y = tf.matmul(tf.nn.dropout(self.x, 0.5), self.w)\n",
        methods="\n    def f(self, v):\n        return self.sess.run(self.y, feed_dict={self.x: v})\n",
    )
    result = rewrite("TFM120", source)
    assert "        self._draw_dropped.get_concrete_function()\n" in result.code
    assert "    def _draw_dropped(self, x):\n        return tf.nn.dropout(x, 0.5)\n" in result.code
    assert "return self._y(self._draw_dropped(v)).numpy()" in result.code
    assert not [f for f in result.findings if f.unsafe_fix]


NO_OPS = [
    pytest.param(
        "import tensorflow as tf\n\n\nclass M(object):\n    def __init__(self, sess):\n        self.sess = sess\n"
        "        self.x = tf.placeholder(tf.float32)\n\n"
        "    def f(self, v):\n        return self.sess.run(self.x * 2, feed_dict={self.x: v})\n",
        id="session-passed-in",
    ),
    pytest.param(
        "import tensorflow as tf\n\n\nclass M(object):\n    def __init__(self):\n"
        "        self.x = tf.placeholder(tf.float32)\n        self.y = self.x * 2\n",
        id="graph-class-without-a-session",
    ),
    pytest.param(
        "import requests\nimport tensorflow as tf\n\n\nclass Client:\n    def __init__(self):\n"
        "        self.sess = requests.Session()\n\n    def get(self, url):\n        return self.sess.get(url)\n",
        id="a-session-that-is-not-tensorflows",
    ),
    pytest.param(
        "import tensorflow as tf\n\n\nclass M(tf.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.w = tf.Variable(1.0)\n\n    @tf.function\n    def __call__(self, x):\n        return x * self.w\n",
        id="already-a-tf-module",
    ),
    pytest.param(
        "import tensorflow as tf\n\nx = tf.placeholder(tf.float32)\nwith tf.Session() as sess:\n"
        "    print(sess.run(x * 2, feed_dict={x: 1.0}))\n",
        id="a-session-program-without-classes",
    ),
]


@pytest.mark.parametrize("source", NO_OPS)
def test_no_ops(source):
    result = assert_unchanged("TFM120", source)
    assert result.findings == []


# -- across a project --------------------------------------------------------------------------

MODEL = (
    "import tensorflow as tf\n\n\nclass Net(object):\n"
    "    def __init__(self, optimizer=None):\n"
    "        self.x = tf.placeholder(tf.float32, [None, 2])\n"
    "        self.w = tf.Variable(tf.ones([2, 1]))\n"
    "        self.loss = tf.reduce_sum(tf.matmul(self.x, self.w))\n"
    "        self.train = optimizer.minimize(self.loss)\n"
    "        self.sess = tf.Session()\n"
    "        self.sess.run(tf.global_variables_initializer())\n\n"
    "    def fit(self, v):\n"
    "        return self.sess.run([self.loss, self.train], feed_dict={self.x: v})[0]\n"
)


def _project(tmp_path: Path, main: str, model: str = MODEL) -> dict:
    (tmp_path / "model.py").write_text(model, encoding="utf-8")
    (tmp_path / "main.py").write_text(main, encoding="utf-8")
    settings = Settings(jobs=1, select=("TFM120", "TFM101", "TFM102", "TFM109", "TFM112", "TFM113"))
    paths = [tmp_path / "main.py", tmp_path / "model.py"]
    return {o.path.name: o for o in run([Discovered(p) for p in paths], settings)}


def test_a_caller_passing_a_tf1_optimizer_gets_the_keras_one(tmp_path):
    model = MODEL.replace(
        "        return self.sess.run([self.loss, self.train], feed_dict={self.x: v})[0]\n",
        "        loss, _ = self.sess.run([self.loss, self.train], feed_dict={self.x: v})\n        return loss\n",
    )
    found = _project(
        tmp_path,
        "import tensorflow as tf\nfrom model import Net\n\nnets = [Net(tf.train.GradientDescentOptimizer(0.1)) "
        "for _ in range(2)]\n",
        model,
    )
    assert "class Net(tf.Module):" in found["model.py"].new
    assert "Net(tf.keras.optimizers.SGD(learning_rate=0.1))" in found["main.py"].new
    assert not found["main.py"].kept_on_v1 and not found["model.py"].kept_on_v1


def test_a_caller_sharing_one_optimizer_keeps_the_project_on_tf1(tmp_path):
    model = MODEL.replace(
        "        return self.sess.run([self.loss, self.train], feed_dict={self.x: v})[0]\n",
        "        loss, _ = self.sess.run([self.loss, self.train], feed_dict={self.x: v})\n        return loss\n",
    )
    found = _project(
        tmp_path,
        "import tensorflow as tf\nfrom model import Net\n\nopt = tf.train.GradientDescentOptimizer(0.1)\n"
        "a = Net(opt)\nb = Net(opt)\n",
        model,
    )
    assert "class Net(object):" in found["model.py"].new
    assert found["main.py"].kept_on_v1 and found["model.py"].kept_on_v1
    refused = [f.message for f in found["model.py"].findings if f.code == "TFM120"]
    assert any("main.py calls it and stays on TF1" in m and "not made once for it alone" in m for m in refused)


def test_a_caller_reading_a_graph_value_keeps_the_project_on_tf1(tmp_path):
    model = MODEL.replace(
        "        return self.sess.run([self.loss, self.train], feed_dict={self.x: v})[0]\n",
        "        loss, _ = self.sess.run([self.loss, self.train], feed_dict={self.x: v})\n        return loss\n",
    )
    found = _project(
        tmp_path,
        "import tensorflow as tf\nimport model\n\nnet = model.Net(tf.train.GradientDescentOptimizer(0.1))\n"
        "print(net.loss)\n",
        model,
    )
    assert "class Net(object):" in found["model.py"].new and found["main.py"].kept_on_v1
    refused = [f.message for f in found["model.py"].findings if f.code == "TFM120"]
    assert any("main.py calls it and stays on TF1" in m and "`net.loss` reads `loss`" in m for m in refused)


# -- a graph class, run by a class owning the session ------------------------------------------

GRAPH = (
    "import tensorflow as tf\n\n\nclass Net:\n"
    "    def __init__(self):\n"
    "        self.x = tf.placeholder(tf.float32, [None, 2])\n"
    "        self.w = tf.Variable(tf.ones([2, 1]))\n"
    "        self.loss = tf.reduce_sum(tf.matmul(self.x, self.w))\n"
    "        self.train = tf.train.GradientDescentOptimizer(0.1).minimize(self.loss)\n"
)


def _trainer(run: str) -> str:
    return GRAPH + (
        "\n\nclass Trainer:\n"
        "    def __init__(self):\n"
        "        self.net = Net()\n"
        "        self.sess = tf.Session()\n"
        "        self.sess.run(tf.global_variables_initializer())\n\n"
        f"    def step(self, v):\n        {run}\n"
    )


def test_a_trainer_in_the_graph_class_module_calls_its_methods():
    result = rewrite(
        "TFM120",
        _trainer("_, loss = self.sess.run([self.net.train, self.net.loss], {self.net.x: v})\n        return loss"),
    )
    assert "class Net(tf.Module):" in result.code
    assert "    def train(self, x):\n        with tf.GradientTape() as tape:\n" in result.code
    assert "        loss = self.net.train(v).numpy()\n        return loss\n" in result.code
    assert "class Trainer:\n    def __init__(self):\n        self.net = Net()\n\n" in result.code


def test_a_graph_class_building_its_graph_in_a_method_init_calls_is_one():
    built = GRAPH.replace(
        "    def __init__(self):\n        self.x",
        "    def __init__(self):\n        self.build()\n\n    def build(self):\n        self.x",
    )
    run = "_, loss = self.sess.run([self.net.train, self.net.loss], {self.net.x: v})\n        return loss"
    result = rewrite("TFM120", _trainer(run).replace(GRAPH, built))
    assert "class Net(tf.Module):" in result.code and "def build(" not in result.code
    assert "        loss = self.net.train(v).numpy()\n        return loss\n" in result.code


@pytest.mark.parametrize(
    "run, message",
    [
        pytest.param(
            "return self.sess.run([self.net.train, self.net.loss, self.net.w], {self.net.x: v})",
            "variables or new ops together",
            id="train-op-with-a-variable",
        ),
        pytest.param(
            "print(self.net.loss)",
            "uses `self.net.loss`, a value of a graph, outside a session run",
            id="graph-value-read-outside-a-run",
        ),
        pytest.param("return self.sess.run(self.net.loss)", "does not feed `x`", id="placeholder-not-fed"),
    ],
)
def test_a_trainer_declines(run, message):
    result = assert_unchanged("TFM120", _trainer(run))
    assert any(message in f.message for f in result.findings), [f.message for f in result.findings]


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(GRAPH, id="a-graph-class-nothing-here-runs"),
        pytest.param(
            GRAPH
            + "\n\nnet = Net()\nwith tf.Session() as sess:\n    print(sess.run(net.loss, {net.x: [[1.0, 2.0]]}))\n",
            id="a-graph-class-run-by-the-module-session-program",
        ),
    ],
)
def test_graph_classes_left_to_others(source):
    result = assert_unchanged("TFM120", source)
    assert [f for f in result.findings if f.code == "TFM120"] == []


# -- a graph class's summaries, merged and written by the class running its graph ---------------

SUMMARIZED = "".join(
    [
        GRAPH,
        '        tf.summary.scalar("loss", self.loss)\n',
        '        tf.summary.histogram("w", self.w)\n',
    ]
)


def _writing_trainer(fit: str, second: str = "") -> str:
    return SUMMARIZED + (
        "\n\nclass Trainer:\n"
        "    def __init__(self, folder):\n"
        f"        self.net = Net()\n{second}"
        "        self.folder = folder\n"
        "        self.sess = tf.Session()\n"
        "        self.sess.run(tf.global_variables_initializer())\n\n"
        "    def fit(self, v, steps):\n"
        "        merged = tf.summary.merge_all()\n"
        "        writer = tf.summary.FileWriter(self.folder, self.sess.graph)\n"
        f"{fit}"
    )


FIT = (
    "        for i in range(steps):\n"
    "            _, summary = self.sess.run([self.net.train, merged], {self.net.x: v})\n"
    "            writer.add_summary(summary, i)\n"
)


def test_a_trainer_writes_the_summaries_of_its_graph_object():
    result = rewrite("TFM120", _writing_trainer(FIT))
    assert "        writer = tf.summary.create_file_writer(self.folder)\n" in result.code
    assert "merge_all" not in result.code and "tf.Session" not in result.code
    assert (
        "            summary_loss = self.net.loss(v).numpy()\n"
        "            self.net.train(v)\n"
        "            with writer.as_default():\n"
        '                tf.summary.scalar("loss", summary_loss, step=i)\n'
        '                tf.summary.histogram("w", self.net.w, step=i)\n'
    ) in result.code


def test_a_variable_summarized_is_read_before_another_train_run():
    fit = FIT.replace(
        "            writer.add_summary(summary, i)\n",
        "".join(
            [
                "            self.sess.run(self.net.train, {self.net.x: v})\n",
                "            writer.add_summary(summary, i)\n",
            ]
        ),
    )
    result = rewrite("TFM120", _writing_trainer(fit))
    read = "            summary_w = self.net.w.numpy()\n            self.net.train(v)\n"
    assert read in result.code
    assert '                tf.summary.histogram("w", summary_w, step=i)\n' in result.code


@pytest.mark.parametrize(
    "fit, second, message",
    [
        pytest.param(
            FIT,
            "        self.other = Net()\n",
            "merges other summaries",
            id="two-objects-merged",
        ),
        pytest.param(
            FIT + "        return summary\n",
            "",
            "`summary` is used other than written",
            id="summary-returned",
        ),
        pytest.param(
            FIT + "        return writer\n",
            "",
            "used other than fetched and written",
            id="writer-returned",
        ),
        pytest.param(
            FIT.replace("{self.net.x: v}", "{self.net.x: v.next()}"),
            "",
            "would compute a fed value twice",
            id="feed-computed-by-a-call",
        ),
    ],
)
def test_a_trainer_writing_summaries_declines(fit, second, message):
    result = assert_unchanged("TFM120", _writing_trainer(fit, second))
    assert any(message in f.message for f in result.findings), [f.message for f in result.findings]


def test_a_trainer_writing_summaries_made_twice_declines():
    source = _writing_trainer(FIT) + '\n\nfirst = Trainer("a")\nsecond = Trainer("b")\n'
    result = assert_unchanged("TFM120", source)
    messages = [f.message for f in result.findings]
    assert any("made more than once" in m for m in messages), messages


def test_a_trainer_merging_summaries_the_module_also_makes_declines():
    source = _writing_trainer(FIT) + '\n\ntf.summary.scalar("rate", tf.constant(0.1))\n'
    result = assert_unchanged("TFM120", source)
    messages = [f.message for f in result.findings]
    wanted = "merges the summaries other code of the module makes"
    assert any(wanted in m for m in messages), messages
