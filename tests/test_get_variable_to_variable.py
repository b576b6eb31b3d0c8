"""TFM106 get-variable-to-variable: golden and no-op tables."""

import pytest

from tfmodernize.testing import assert_rewrites, assert_unchanged

HELPER = "import tensorflow as tf\ndef make(shape):\n    return tf.get_variable('w', shape, initializer=tf.zeros_initializer())\n"

GET_W = "w = tf.get_variable('w', [2], initializer=tf.zeros_initializer())"
MADE_W = "w = tf.Variable(tf.zeros([2], dtype=tf.float32), name='w')"
MAIN = f"import tensorflow as tf\ndef main():\n    {GET_W}\n    return w\n"

LAYER = (
    "import tensorflow as tf\ndef layer(x, n, tag):\n"
    "    w = tf.get_variable(tag + '_w', [2, n], initializer=tf.ones_initializer())\n"
    "    b = tf.get_variable(tag + '_b', [n], initializer=tf.zeros_initializer())\n"
    "    return tf.matmul(x, w) + b\n"
)
LAYER_MADE = (
    "import tensorflow as tf\ndef layer(x, n, tag):\n"
    "    w = tf.Variable(tf.ones([2, n], dtype=tf.float32), name=tag + '_w')\n"
    "    b = tf.Variable(tf.zeros([n], dtype=tf.float32), name=tag + '_b')\n"
    "    return tf.matmul(x, w) + b\n"
)

REWRITES = [
    # A layer helper making its variables on lines of its body, names read off a parameter: each
    # call (at top level, in a function the program runs once, or in a function called so) made new ones.
    pytest.param(
        LAYER + "h = layer(x, 2, 'a')\ny = layer(h, 2, 'b')\n",
        LAYER_MADE + "h = layer(x, 2, 'a')\ny = layer(h, 2, 'b')\n",
        id="layer-helper-called-twice-at-top-level",
    ),
    pytest.param(
        LAYER + "def main():\n    h = layer(x, 2, 'a')\n    return layer(h, 2, 'b')\n"
        "if __name__ == '__main__':\n    main()\n",
        LAYER_MADE + "def main():\n    h = layer(x, 2, 'a')\n    return layer(h, 2, 'b')\n"
        "if __name__ == '__main__':\n    main()\n",
        id="layer-helper-called-by-a-function-run-once",
    ),
    pytest.param(
        LAYER + "def block(x, tag):\n    with tf.name_scope(tag):\n        return layer(x, 2, tag)\n"
        "def build(x):\n    return block(block(x, 'a'), 'b')\nout = build(x)\n",
        LAYER_MADE + "def block(x, tag):\n    with tf.name_scope(tag):\n        return layer(x, 2, tag)\n"
        "def build(x):\n    return block(block(x, 'a'), 'b')\nout = build(x)\n",
        id="layer-helper-called-through-functions-called-so",
    ),
    # The default Glorot range over named sizes: written out, computed where the variable is made.
    pytest.param(
        "import tensorflow as tf\nimport math\nn = 3\nw = tf.get_variable('w', [n, 2])\n",
        # (wider than the file's lines: wrapped)
        "import tensorflow as tf\nimport math\nn = 3\nw = tf.Variable(\n    tf.random.uniform(\n        [n, 2],\n"
        "        -math.sqrt(3.0 * (1.0 / max(1.0, (n + 2) / 2.0))),\n"
        "        math.sqrt(3.0 * (1.0 / max(1.0, (n + 2) / 2.0))),\n        dtype=tf.float32,\n    ),\n    name='w',\n)\n",
        id="glorot-over-a-named-size",
    ),
    # A helper called by a module function the program calls twice at top level: each call made a new variable.
    pytest.param(
        HELPER + "def layer(tag):\n    with tf.variable_scope(tag):\n        w = make([2])\n    return w\n"
        "first = layer('a')\nsecond = layer('b')\n",
        "import tensorflow as tf\ndef make(shape):\n    return tf.Variable(tf.zeros(shape, dtype=tf.float32), name='w')\n"
        "def layer(tag):\n    with tf.variable_scope(tag):\n        w = make([2])\n    return w\n"
        "first = layer('a')\nsecond = layer('b')\n",
        id="helper-of-a-network-called-twice",
    ),
    # A line of a function the program runs once (from its __main__ block, or from such a function).
    pytest.param(
        MAIN + "if __name__ == '__main__':\n    main()\n",
        MAIN.replace(GET_W, MADE_W) + "if __name__ == '__main__':\n    main()\n",
        id="function-run-once-by-the-main-block",
    ),
    pytest.param(
        MAIN + "def run():\n    out = main()\n    return out\nresult = run()\n",
        MAIN.replace(GET_W, MADE_W) + "def run():\n    out = main()\n    return out\nresult = run()\n",
        id="function-run-once-by-a-function-run-once",
    ),
    # tf.app.run (or absl's) calls main once: passed to it, or found as the program's `main`.
    pytest.param(
        MAIN + "if __name__ == '__main__':\n    tf.app.run(main=main)\n",
        MAIN.replace(GET_W, MADE_W) + "if __name__ == '__main__':\n    tf.app.run(main=main)\n",
        id="function-run-by-app-run",
    ),
    pytest.param(
        MAIN + "if __name__ == '__main__':\n    tf.app.run()\n",
        MAIN.replace(GET_W, MADE_W) + "if __name__ == '__main__':\n    tf.app.run()\n",
        id="main-run-by-app-run-without-arguments",
    ),
    pytest.param(
        MAIN.replace("import tensorflow as tf\n", "import tensorflow as tf\nfrom absl import app\n")
        + "app.run(main)\n",
        MAIN.replace("import tensorflow as tf\n", "import tensorflow as tf\nfrom absl import app\n").replace(
            GET_W, MADE_W
        )
        + "app.run(main)\n",
        id="function-run-by-absl-app-run",
    ),
    # A condition runs it once or not at all: the variable is made once, or never, as in TF1.
    pytest.param(
        MAIN + "if __name__ == '__main__':\n    if flag:\n        main()\n    else:\n        print(0)\n",
        MAIN.replace(GET_W, MADE_W) + "if __name__ == '__main__':\n    if flag:\n        main()\n    else:\n"
        "        print(0)\n",
        id="function-run-at-most-once-under-a-condition",
    ),
    # A helper's lines, and its returned get_variable, when the program calls it once.
    pytest.param(
        "import tensorflow as tf\ndef make(shape):\n    "
        + GET_W.replace("'w'", "'b'").replace("w =", "b =")
        + "\n    return tf.get_variable('w', shape, initializer=tf.ones_initializer())\nv = make([2])\n",
        "import tensorflow as tf\ndef make(shape):\n    "
        + MADE_W.replace("'w'", "'b'").replace("w =", "b =")
        + "\n    return tf.Variable(tf.ones(shape, dtype=tf.float32), name='w')\nv = make([2])\n",
        id="helper-making-two-variables-called-once",
    ),
    pytest.param(
        "import tensorflow as tf\nc = tf.get_variable('c', [], tf.int64)\n",
        "import tensorflow as tf\nc = tf.Variable(tf.zeros([], dtype=tf.int64), name='c')\n",
        id="integer-default-zeros",
    ),
    pytest.param(
        "import tensorflow as tf\nb = tf.get_variable('b', [2], initializer=tf.zeros_initializer())\n",
        "import tensorflow as tf\nb = tf.Variable(tf.zeros([2], dtype=tf.float32), name='b')\n",
        id="zeros",
    ),
    pytest.param(
        "import tensorflow as T\nb = T.get_variable(name='b', shape=[2], initializer=T.constant_initializer(3), trainable=False)\n",
        "import tensorflow as T\nb = T.Variable(T.fill([2], T.constant(3, dtype=T.float32)), name='b', trainable=False)\n",
        id="alias-constant-not-trainable",
    ),
    pytest.param(
        "import tensorflow as tf\nw = tf.get_variable('w', initializer=tf.constant(0.0))\n",
        "import tensorflow as tf\nw = tf.Variable(tf.constant(0.0), name='w')\n",
        id="tensor-initial-value",
    ),
    pytest.param(
        "import tensorflow as tf\nw = tf.get_variable('w', dtype=tf.float64, initializer=tf.random_normal([2]))\n",
        "import tensorflow as tf\nw = tf.Variable(tf.random_normal([2]), name='w', dtype=tf.float64)\n",
        id="random-tensor-initial-value-with-dtype",
    ),
    # Random initializers: the TF2 op their __call__ ran; Glorot's range computed from the fans.
    pytest.param(
        "import tensorflow as tf\nw = tf.get_variable('w', [2, 2])\n",
        "import tensorflow as tf\nw = tf.Variable(\n    tf.random.uniform([2, 2], -1.224744871391589, 1.224744871391589, "
        "dtype=tf.float32),\n    name='w',\n)\n",
        id="float-default-glorot-uniform",
    ),
    pytest.param(
        "import tensorflow as tf\nw = tf.get_variable('w', [2], initializer=tf.random_normal_initializer())\n",
        "import tensorflow as tf\nw = tf.Variable(tf.random.normal([2], dtype=tf.float32), name='w')\n",
        id="random-normal-defaults",
    ),
    pytest.param(
        "import tensorflow as tf\nw = tf.get_variable('w', [3], tf.float64, tf.truncated_normal_initializer(stddev=s))\n",
        "import tensorflow as tf\nw = tf.Variable(tf.random.truncated_normal([3], stddev=s, dtype=tf.float64), name='w')\n",
        id="truncated-normal-positional-initializer",
    ),
    # A module function ending in ``return tf.get_variable(...)``, called in top-level code only.
    pytest.param(
        HELPER + "a = make([2])\nb = make([3])\n",
        "import tensorflow as tf\ndef make(shape):\n    return tf.Variable(tf.zeros(shape, dtype=tf.float32), name='w')\n"
        "a = make([2])\nb = make([3])\n",
        id="helper-called-at-top-level",
    ),
    pytest.param(
        "import tensorflow as tf\ndef make(name, shape):\n    init = tf.random_uniform_initializer(-0.5, 0.5)\n"
        "    return tf.get_variable('w_' + name, shape, initializer=init)\nv = make('v', [2])\n",
        "import tensorflow as tf\ndef make(name, shape):\n"
        "    return tf.Variable(\n        tf.random.uniform(shape, minval=-0.5, maxval=0.5, dtype=tf.float32),\n"
        "        name='w_' + name,\n    )\n"
        "v = make('v', [2])\n",
        id="helper-initializer-bound-before",
    ),
    pytest.param(
        "import tensorflow as tf\nstart = tf.truncated_normal_initializer(stddev=0.5)\n"
        "w = tf.get_variable('w', [2], initializer=start)\n",
        "import tensorflow as tf\nw = tf.Variable(tf.random.truncated_normal([2], stddev=0.5, dtype=tf.float32), name='w')\n",
        id="top-level-initializer-bound-before",
    ),
    # An initializer's argument computed by arithmetic only (TF ops, math, NumPy, a module helper doing only that).
    pytest.param(
        "import tensorflow as tf\nimport math\nimport numpy as np\n"
        'def spread(fan_in):\n    "He."\n    half = fan_in / 2.0\n    return 1.0 / tf.sqrt(half)\n'
        "a = tf.get_variable('a', [4, 2], initializer=tf.random_normal_initializer(stddev=spread(4)))\n"
        "b = tf.get_variable('b', [2], initializer=tf.truncated_normal_initializer(stddev=math.sqrt(float(2))))\n"
        "c = tf.get_variable('c', [2], initializer=tf.random_uniform_initializer(maxval=np.sqrt(3.0)))\n",
        "import tensorflow as tf\nimport math\nimport numpy as np\n"
        'def spread(fan_in):\n    "He."\n    half = fan_in / 2.0\n    return 1.0 / tf.sqrt(half)\n'
        "a = tf.Variable(tf.random.normal([4, 2], stddev=spread(4), dtype=tf.float32), name='a')\n"
        "b = tf.Variable(\n    tf.random.truncated_normal([2], stddev=math.sqrt(float(2)), dtype=tf.float32), name='b'\n)\n"
        "c = tf.Variable(tf.random.uniform([2], maxval=np.sqrt(3.0), dtype=tf.float32), name='c')\n",
        id="initializer-arguments-computed-by-arithmetic",
    ),
    pytest.param(
        "import tensorflow as tf\nb = tf.get_variable('b', [2], initializer=tf.constant_initializer())\n"
        "c = tf.get_variable('c', [2], initializer=tf.constant_initializer(value=-1))\n",
        "import tensorflow as tf\nb = tf.Variable(tf.zeros([2], dtype=tf.float32), name='b')\n"
        "c = tf.Variable(tf.fill([2], tf.constant(-1, dtype=tf.float32)), name='c')\n",
        id="constant-initializer-default-and-keyword",
    ),
]


@pytest.mark.parametrize(("before", "after"), REWRITES)
def test_rewrites(before, after):
    assert_rewrites("TFM106", before, after)


NO_OPS = [
    # A function's line that may run other than once: each run asked TF1 for the same name again.
    pytest.param(
        MAIN + "a = main()\nb = main()\n", "which the program may run more than once", id="function-run-twice"
    ),
    pytest.param(
        MAIN + "for _ in range(2):\n    main()\n", "used in this file other than called", id="function-run-in-a-loop"
    ),
    pytest.param(
        MAIN + "with tf.variable_scope('s', reuse=tf.AUTO_REUSE):\n    main()\n",
        "shares variables through `reuse`",
        id="function-run-under-a-reusing-scope",
    ),
    pytest.param(
        "import tensorflow as tf\ntf.get_variable_scope().reuse_variables()\ndef main():\n    "
        + GET_W
        + "\n    return w\nmain()\n",
        "shares variables through `reuse`",
        id="function-run-once-after-the-root-scope-reuses",
    ),
    pytest.param(
        MAIN + "with tf.name_scope('outer'):\n    main()\n",
        "used in this file other than called",
        id="function-run-in-a-with-block",
    ),
    pytest.param(
        MAIN + "tf.app.run(main)\nrun(main)\n", "used in this file other than called", id="function-passed-as-a-value"
    ),
    pytest.param(MAIN + "tf.app.run()\ntf.app.run()\n", "called nowhere in this run", id="main-run-twice-by-app-run"),
    pytest.param(
        MAIN.replace("def main", "def train") + "tf.app.run()\n",
        "called nowhere in this run",
        id="app-run-of-another-main",
    ),
    pytest.param(MAIN, "called nowhere in this run", id="function-never-run"),
    pytest.param(
        MAIN + "def run():\n    main()\nrun()\nrun()\n",
        "which the program may run more than once",
        id="caller-run-twice",
    ),
    pytest.param(
        "import tensorflow as tf\ndef main(flag):\n    if flag:\n        " + GET_W + "\n    return 0\nmain(1)\n",
        "other than on a line of its body",
        id="line-under-a-condition",
    ),
    pytest.param(
        "import tensorflow as tf\nw = tf.get_variable('w', size)\n", "Glorot uniform", id="glorot-shape-held-in-a-name"
    ),
    pytest.param(
        "import tensorflow as tf\nw = tf.get_variable('w', [2], initializer=tf.random_normal_initializer(seed=3))\n",
        "`seed` is given to its initializer",
        id="random-initializer-with-seed",
    ),
    pytest.param(
        "import tensorflow as tf\nw = tf.get_variable('w', [2], initializer=tf.random_uniform_initializer(maxval=f()))\n",
        "calls `f`, which may draw random values",
        id="random-initializer-argument-computed",
    ),
    # An initializer's argument computed by a call: only arithmetic, where the variable is made.
    pytest.param(
        "import tensorflow as tf\ndef spread(n):\n    return tf.random_uniform([]) * n\n"
        "w = tf.get_variable('w', [2], initializer=tf.random_normal_initializer(stddev=spread(2)))\n",
        "calls `spread`, which may draw random values",
        id="initializer-argument-from-a-drawing-helper",
    ),
    pytest.param(
        "import tensorflow as tf\nimport numpy as np\n"
        "w = tf.get_variable('w', [2], initializer=tf.random_normal_initializer(stddev=np.random.rand()))\n",
        "calls `np.random.rand`",
        id="initializer-argument-from-numpy-random",
    ),
    pytest.param(
        "import tensorflow as tf\ndef spread(n):\n    if n > 2:\n        return 1.0\n    return 0.5\n"
        "w = tf.get_variable('w', [2], initializer=tf.random_normal_initializer(stddev=spread(2)))\n",
        "calls `spread`",
        id="initializer-argument-from-a-helper-with-a-condition",
    ),
    pytest.param(
        "import tensorflow as tf\ndef spread(n):\n    return spread(n - 1)\n"
        "w = tf.get_variable('w', [2], initializer=tf.random_normal_initializer(stddev=spread(2)))\n",
        "calls `spread`",
        id="initializer-argument-from-a-recursive-helper",
    ),
    pytest.param(
        "import tensorflow as tf\ndef spread(n):\n    sizes.append(n)\n    return 0.5\n"
        "w = tf.get_variable('w', [2], initializer=tf.random_normal_initializer(stddev=spread(2)))\n",
        "calls `spread`",
        id="initializer-argument-from-a-helper-with-effects",
    ),
    pytest.param(
        "import tensorflow as tf\n"
        "w = tf.get_variable('w', [2], initializer=tf.random_normal_initializer(stddev=tf.reduce_mean(v)))\n",
        "calls `tf.reduce_mean`",
        id="initializer-argument-from-an-op-not-known-arithmetic",
    ),
    pytest.param(
        "import tensorflow as tf\nw = tf.get_variable('w', [2, 2], initializer=tf.orthogonal_initializer())\n",
        "not one this migration maps",
        id="initializer-not-mapped",
    ),
    pytest.param(
        "import tensorflow as tf\nwith tf.variable_scope('s'):\n    c = tf.get_variable('c', [], tf.int32)\n",
        "variable_scope",
        id="in-a-variable-scope",
    ),
    pytest.param(
        "import tensorflow as tf\ndef f():\n    c = tf.get_variable('c', [], tf.int32)\n",
        "called nowhere in this run",
        id="in-a-function",
    ),
    pytest.param(
        "import tensorflow as tf\nc = [tf.get_variable('c', [], tf.int32)]\n",
        "on a line of its own",
        id="inside-an-expression",
    ),
    pytest.param(
        "import tensorflow as tf\nc = tf.get_variable('c', [], tf.int32, regularizer=reg)\n",
        "regularizer",
        id="regularizer",
    ),
    pytest.param(
        "import tensorflow as tf\nc = tf.get_variable(pick_name(), [], tf.int32)\n",
        "name is not a string",
        id="computed-name",
    ),
    pytest.param(
        "import tensorflow as tf\nc = tf.get_variable(rows, [2], tf.int32)\n",
        "name is not a string",
        id="name-not-a-string-at-top-level",
    ),
    pytest.param(
        "import tensorflow as tf\nc = tf.get_variable('c', initializer=start)\n",
        "not written out",
        id="initial-value-of-unknown-kind",
    ),
    pytest.param(
        "import tensorflow as tf\nclass Model:\n    def __init__(self):\n        with tf.variable_scope('m'):\n"
        "            self.w = tf.get_variable('w', [2])\n",
        "inside a function",
        id="in-a-scope-of-a-method",
    ),
    # Helpers returning get_variable: every use must be a call in top-level code, outside blocks.
    pytest.param(
        HELPER + "def build():\n    return make([2])\n",
        "used in this file other than called",
        id="helper-called-in-a-function",
    ),
    pytest.param(
        HELPER + "with tf.variable_scope('a'):\n    w = make([2])\n",
        "used in this file other than called",
        id="helper-called-in-a-scope",
    ),
    pytest.param(HELPER + "pick = make\n", "used in this file other than called", id="helper-passed-around"),
    pytest.param(
        "import tensorflow as tf\nfrom numpy import math\nn = 3\nw = tf.get_variable('w', [n, 2])\n",
        "computed with `math`, a name the file binds to something else",
        id="glorot-over-names-math-taken",
    ),
    pytest.param(
        "import tensorflow as tf\nw = tf.get_variable('w', [x.shape[0], 2])\n",
        "Glorot uniform, whose range needs the shape written out",
        id="glorot-over-a-read-shape",
    ),
    # Called by a module function: that function must run its line once per call, share nothing,
    # and be called only in top-level code (each of its calls then made new variables).
    pytest.param(
        HELPER + "def layer():\n    w = make([2])\n    return w\nfor _ in range(2):\n    layer()\n",
        "used in this file other than called",
        id="network-called-in-a-loop",
    ),
    pytest.param(
        HELPER + "def layer():\n    for _ in range(2):\n        w = make([2])\n    return w\nv = layer()\n",
        "used in this file other than called",
        id="helper-called-in-a-loop-of-the-network",
    ),
    pytest.param(
        HELPER + "def layer():\n    with tf.variable_scope('l', reuse=tf.AUTO_REUSE):\n        w = make([2])\n"
        "    return w\nv = layer()\n",
        "used in this file other than called",
        id="network-sharing-its-scope",
    ),
    pytest.param(
        HELPER + "def layer(reuse=False):\n    with tf.variable_scope('l'):\n        if reuse:\n"
        "            tf.get_variable_scope().reuse_variables()\n        w = make([2])\n    return w\nv = layer()\n",
        "used in this file other than called",
        id="network-switching-to-reuse",
    ),
    pytest.param(
        HELPER + "def layer():\n    w = make([2])\n    return w\n",
        "used in this file other than called",
        id="network-never-called",
    ),
    pytest.param(HELPER, "called nowhere in this run", id="helper-never-called"),
    pytest.param(
        "import tensorflow as tf\ndef make(shape):\n    w = tf.get_variable('w', shape, initializer=tf.zeros_initializer())\n"
        "    return w\nv = make([2])\nu = make([3])\n",
        "asking for `'w'` each time",
        id="helper-binding-then-returning",
    ),
    pytest.param(
        "import tensorflow as tf\ndef make(shape):\n    b = tf.get_variable('b', shape, initializer=tf.zeros_initializer())\n"
        "    return tf.get_variable('w', shape, initializer=tf.zeros_initializer())\nv = make([2])\nu = make([3])\n",
        "asking for `'b'` each time",
        id="helper-making-two-variables",
    ),
    pytest.param(
        "import tensorflow as tf\ndef make(shape):\n    init = tf.zeros_initializer()\n    print(init)\n"
        "    return tf.get_variable('w', shape, initializer=init)\nv = make([2])\n",
        "not written as a call",
        id="helper-initializer-read-twice",
    ),
    # Layer helpers: a variable in a block, a call in a loop or under a scope with options, a
    # fixed name asked for by a function run more than once.
    pytest.param(
        LAYER.replace("    b = tf.get_variable", "    if n:\n        b = tf.get_variable")
        + "h = layer(x, 2, 'a')\ny = layer(h, 2, 'b')\n",
        "some in a block of its body",
        id="layer-helper-variable-under-a-condition",
    ),
    pytest.param(
        LAYER + "def main():\n    h = x\n    for tag in 'ab':\n        h = layer(h, 2, tag)\n    return h\nmain()\n",
        "used in this file other than called",
        id="layer-helper-called-in-a-loop-of-a-function-run-once",
    ),
    pytest.param(
        LAYER + "def main():\n    with tf.variable_scope('m', initializer=tf.ones_initializer()):\n"
        "        return layer(x, 2, 'a')\nmain()\n",
        "used in this file other than called",
        id="layer-helper-under-a-scope-giving-an-initializer",
    ),
    pytest.param(
        LAYER.replace("tag + '_b'", "'b'") + "h = layer(x, 2, 'a')\ny = layer(h, 2, 'b')\n",
        "asking for `'b'` each time",
        id="layer-helper-fixed-name-called-twice",
    ),
]


@pytest.mark.parametrize(("source", "finding"), NO_OPS)
def test_declines(source, finding):
    result = assert_unchanged("TFM106", source)
    assert any(finding in f.message for f in result.findings), [f.message for f in result.findings]


def test_a_network_functions_variables_under_its_scope_are_left_to_layers_to_keras():
    # layers-to-keras migrates them, or says why not (tests/test_layers_to_keras.py): no second finding here.
    source = (
        "import tensorflow as tf\ndef net(x):\n    with tf.variable_scope('n'):\n"
        "        w = tf.get_variable('w', [2, 2])\n        return tf.matmul(x, w)\n\n\ny = net(a)\n"
    )
    result = assert_unchanged("TFM106", source)
    assert result.findings == []


def test_it_runs_before_network_function_to_module_and_session_to_function():
    # network-function-to-module makes tf.Modules of layer helpers whose tf.get_variable lines this
    # made tf.Variables, and session-to-function reads the variables as tf.Variable lines.
    from tfmodernize.registry import builtin_codemods

    order = [codemod.code for codemod in builtin_codemods()]
    assert order.index("TFM106") < order.index("TFM121") < order.index("TFM101")
