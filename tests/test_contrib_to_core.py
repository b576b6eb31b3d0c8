"""TFM115 contrib-to-core: rewrites, no-ops and declines (with their findings), alone; the
float32 agreement of contrib's initializer formulas with core's; and, with TensorFlow, the same
numbers as tf-slim's copies of contrib under a graph-level seed."""

import math
import os
import subprocess
import sys
import textwrap

import pytest

from tfmodernize.registry import builtin_codemods
from tfmodernize.codemods.migrate.contrib_to_core.tables import TRUNCATION, handles
from tfmodernize.testing import assert_rewrites, assert_unchanged, rewrite

CODE = "TFM115"
C2 = f"{TRUNCATION} ** 2"


def _program(body: str, header: str = "import tensorflow as tf\n") -> str:
    return header + textwrap.dedent(body)


REWRITES = [
    pytest.param(
        "w = tf.get_variable('w', [3, 2], initializer=tf.contrib.layers.xavier_initializer())\n",
        "w = tf.get_variable('w', [3, 2], initializer=tf.glorot_uniform_initializer())\n",
        id="xavier",
    ),
    pytest.param(
        "init = tf.contrib.layers.xavier_initializer_conv2d(seed=3, dtype=tf.float32)\n",
        "init = tf.glorot_uniform_initializer(seed=3)\n",
        id="xavier-conv2d-seed-float32-dropped",
    ),
    pytest.param(
        "init = tf.contrib.layers.xavier_initializer(True, None, tf.float16)\n",
        "init = tf.glorot_uniform_initializer(dtype=tf.float16)\n",
        id="xavier-positional-dtype-kept",
    ),
    pytest.param(
        "init = tf.contrib.layers.xavier_initializer(uniform=False)\n",
        # Wider than the file's style (88) once rewritten: wrapped.
        f"init = tf.variance_scaling_initializer(\n    scale=1.3 * {C2},\n"
        '    mode="fan_avg",\n    distribution="truncated_normal",\n'
        f")  # contrib's stddev sqrt(1.3 * factor / n) as core's sqrt(scale / n) / {TRUNCATION}\n",
        id="xavier-normal-commented",
    ),
    pytest.param(
        "init = tf.contrib.layers.variance_scaling_initializer()  # He\n",
        f"init = tf.variance_scaling_initializer(\n    scale=2.0 * 1.3 * {C2},\n"
        '    mode="fan_in",\n    distribution="truncated_normal",\n)  # He\n',
        id="he-default-own-comment-kept",
    ),
    pytest.param(
        "init = tf.contrib.layers.variance_scaling_initializer(factor=1.5, mode='FAN_OUT', uniform=True)\n",
        'init = tf.variance_scaling_initializer(scale=1.5, mode="fan_out", distribution="uniform")\n',
        id="variance-scaling-uniform",
    ),
    pytest.param(
        "init = tf.contrib.layers.variance_scaling_initializer(1.0, 'FAN_AVG', True)\n",
        "init = tf.glorot_uniform_initializer()\n",
        id="variance-scaling-is-glorot",
    ),
    pytest.param(
        "GAIN = 3\ninit = tf.contrib.layers.variance_scaling_initializer(GAIN, uniform=True)\n",
        'GAIN = 3\ninit = tf.variance_scaling_initializer(\n    scale=GAIN, mode="fan_in", distribution="uniform"\n)\n',
        id="variance-scaling-module-constant",
    ),
    pytest.param(
        "flat = tf.contrib.framework.nest.flatten(structure)\n",
        "flat = tf.nest.flatten(structure)\n",
        id="contrib-nest-is-tf-nest",
    ),
    pytest.param(
        "class Hook(tf.estimator.SessionRunHook):\n    def before_run(self, context):\n"
        "        return tf.estimator.SessionRunArgs(loss)\n",
        "class Hook(tf.train.SessionRunHook):\n    def before_run(self, context):\n"
        "        return tf.train.SessionRunArgs(loss)\n",
        id="estimator-hooks-are-train-hooks",
    ),
    pytest.param(
        "reg = tf.contrib.layers.l2_regularizer(0.01)\n",
        "reg = lambda weights: 0.01 * tf.nn.l2_loss(weights)\n",
        id="l2",
    ),
    pytest.param(
        "reg = tf.contrib.layers.l1_regularizer(scale=1e-4, scope='l1')\n",
        "reg = lambda weights: 1e-4 * tf.reduce_sum(tf.abs(weights))\n",
        id="l1-scope-dropped",
    ),
    pytest.param(
        "DECAY = 5e-4\nreg = tf.contrib.layers.l2_regularizer(DECAY)\n",
        "DECAY = 5e-4\nreg = lambda weights: DECAY * tf.nn.l2_loss(weights)\n",
        id="l2-module-constant",
    ),
    pytest.param(
        "weights = 0.1\nreg = tf.contrib.layers.l2_regularizer(weights)\n",
        "weights = 0.1\nreg = lambda weights_: weights * tf.nn.l2_loss(weights_)\n",
        id="l2-parameter-name-free",
    ),
    pytest.param(
        "reg = tf.contrib.layers.l2_regularizer(0.0)\nw = tf.ones([2])\n",
        "reg = lambda _: None\nw = tf.ones([2])\n",
        id="l2-zero-makes-none",
    ),
    pytest.param(
        "loss = tf.contrib.layers.l2_regularizer(0.5)(w) + 1.0\n",
        "loss = 0.5 * tf.nn.l2_loss(w) + 1.0\n",
        id="l2-applied-at-once",
    ),
    pytest.param(
        "loss = 2.0 * tf.contrib.layers.l1_regularizer(0.5)(w)\n",
        "loss = 2.0 * (0.5 * tf.reduce_sum(tf.abs(w)))\n",
        id="l1-applied-at-once-parenthesized",
    ),
    pytest.param(
        "reg = tf.contrib.layers.l2_regularizer(0.1) if decay else None\n",
        "reg = (lambda weights: 0.1 * tf.nn.l2_loss(weights)) if decay else None\n",
        id="lambda-parenthesized",
    ),
    pytest.param("h = tf.contrib.layers.dropout(x)\n", "h = tf.nn.dropout(x, rate=0.5)\n", id="dropout-default"),
    pytest.param(
        "h = tf.contrib.layers.dropout(x, 0.8, seed=1)\n",
        "h = tf.nn.dropout(x, rate=1 - 0.8, seed=1)\n",
        id="dropout-positional-seed",
    ),
    pytest.param(
        "h = tf.contrib.layers.dropout(x, keep_prob=1 - drop, scope='d')\n",
        "h = tf.nn.dropout(x, rate=1 - (1 - drop))\n",
        id="dropout-expression-scope-dropped",
    ),
    pytest.param(
        "h = tf.contrib.layers.dropout(x, keep_prob, is_training=True)\n",
        "h = tf.nn.dropout(x, rate=1 - keep_prob)\n",
        id="dropout-training-written",
    ),
    pytest.param(
        "h = tf.contrib.layers.dropout(x, 0.5, is_training=False)\n",
        "h = tf.identity(x)\n",
        id="dropout-inference-is-identity",
    ),
    pytest.param(
        "h = tf.contrib.layers.dropout(tf.contrib.layers.dropout(x, 0.9), 0.8)\n",
        "h = tf.nn.dropout(tf.nn.dropout(x, rate=1 - 0.9), rate=1 - 0.8)\n",
        id="dropout-nested",
    ),
    pytest.param(
        "acc = tf.contrib.metrics.accuracy(tf.argmax(y, 1), labels)\n",
        "acc = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(y, 1), labels), tf.float32))\n",
        id="accuracy",
    ),
    pytest.param(
        "acc = tf.contrib.metrics.accuracy(labels=l, predictions=p, weights=None)\n",
        "acc = tf.reduce_mean(tf.cast(tf.equal(p, l), tf.float32))\n",
        id="accuracy-keywords-in-order",
    ),
    pytest.param(
        "step = tf.contrib.framework.get_or_create_global_step()\n",
        "step = tf.train.get_or_create_global_step()\n",
        id="global-step",
    ),
    pytest.param(
        "step = tf.contrib.framework.get_global_step(graph)\nmake = tf.contrib.framework.create_global_step\n",
        "step = tf.train.get_global_step(graph)\nmake = tf.train.create_global_step\n",
        id="global-step-uncalled-too",
    ),
    pytest.param(
        "cell = tf.contrib.rnn.MultiRNNCell([tf.contrib.rnn.BasicLSTMCell(4), tf.contrib.rnn.GRUCell(3)])\n",
        "cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(4), tf.nn.rnn_cell.GRUCell(3)])\n",
        id="cells",
    ),
    pytest.param(
        "ok = isinstance(s, tf.contrib.rnn.LSTMStateTuple)\nout, st = tf.contrib.rnn.static_rnn(c, xs, dtype=tf.float32)\n",
        "ok = isinstance(s, tf.nn.rnn_cell.LSTMStateTuple)\nout, st = tf.nn.static_rnn(c, xs, dtype=tf.float32)\n",
        id="state-tuple-and-static-rnn",
    ),
    pytest.param(
        "c = tf.contrib.rnn.DropoutWrapper(tf.contrib.rnn.LSTMCell(8), output_keep_prob=0.5)\n",
        "c = tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.LSTMCell(8), output_keep_prob=0.5)\n",
        id="wrapper",
    ),
    pytest.param(
        "t = tf.contrib.lookup.index_table_from_tensor(vocab, num_oov_buckets=0, dtype=tf.string)\n"
        "s = tf.contrib.lookup.index_to_string_table_from_tensor(['a', 'b'])\n",
        "t = tf.lookup.StaticHashTable(\n"
        "    tf.lookup.KeyValueTensorInitializer(\n"
        "        vocab, tf.range(tf.size(vocab, out_type=tf.int64)), key_dtype=tf.string\n"
        "    ),\n"
        "    -1,\n"
        ")\n"
        "s = tf.lookup.StaticHashTable(\n"
        "    tf.lookup.KeyValueTensorInitializer(\n"
        "        tf.range(tf.size(['a', 'b'], out_type=tf.int64)),\n"
        "        ['a', 'b'],\n"
        "        value_dtype=tf.string,\n"
        "    ),\n"
        '    "UNK",\n'
        ")\n",
        id="lookup-tables",
    ),
]

#: Other spellings: (source, expected), whole programs.
SPELLINGS = [
    pytest.param(
        "import tensorflow as tf\nfrom tensorflow.contrib import slim\n\nh = slim.dropout(x, 0.5)\n",
        "import tensorflow as tf\n\nh = tf.nn.dropout(x, rate=1 - 0.5)\n",
        id="from-contrib-import-slim",
    ),
    pytest.param(
        "import tensorflow as tf\nimport tensorflow.contrib.slim as slim\n\nr = slim.l2_regularizer(0.1)\n",
        "import tensorflow as tf\n\nr = lambda weights: 0.1 * tf.nn.l2_loss(weights)\n",
        id="import-slim-as",
    ),
    pytest.param(
        "import tensorflow as tf\nslim = tf.contrib.slim\ni = slim.xavier_initializer()\n",
        "import tensorflow as tf\ni = tf.glorot_uniform_initializer()\n",
        id="slim-module-name-line-goes",
    ),
    pytest.param(
        "import tensorflow as tf\nslim = tf.contrib.slim\ni = slim.xavier_initializer()\nc = slim.conv2d(x, 4, 3)\n",
        "import tensorflow as tf\nslim = tf.contrib.slim\ni = tf.glorot_uniform_initializer()\nc = slim.conv2d(x, 4, 3)\n",
        id="slim-module-name-still-read",
    ),
    pytest.param(
        "import tensorflow as tf\nfrom tensorflow.contrib.layers.python import layers as L\n\nh = L.dropout(x)\n",
        "import tensorflow as tf\n\nh = tf.nn.dropout(x, rate=0.5)\n",
        id="deep-layers-import",
    ),
    pytest.param(
        "import tensorflow as tf\nfrom tensorflow.contrib.layers import dropout\n\nh = dropout(x, 0.9)\n",
        "import tensorflow as tf\n\nh = tf.nn.dropout(x, rate=1 - 0.9)\n",
        id="from-import-dropout",
    ),
    pytest.param(
        "import tensorflow as tf\nfrom tensorflow.contrib.layers import xavier_initializer\n\ni = xavier_initializer()\n",
        "import tensorflow as tf\n\ni = tf.glorot_uniform_initializer()\n",
        id="from-import-function",
    ),
    pytest.param(
        "import tensorflow as tf\nfrom tensorflow.contrib.rnn import BasicLSTMCell, GRUCell\n\nc = BasicLSTMCell(4)\n",
        "import tensorflow as tf\nfrom tensorflow.contrib.rnn import GRUCell\n\nc = tf.nn.rnn_cell.BasicLSTMCell(4)\n",
        id="from-import-cell-other-kept",
    ),
    pytest.param(
        "import tensorflow as tf\nacc = tf.contrib.slim.metrics.accuracy(p, l)\nstep = tf.contrib.slim.get_or_create_global_step()\n",
        "import tensorflow as tf\nacc = tf.reduce_mean(tf.cast(tf.equal(p, l), tf.float32))\n"
        "step = tf.train.get_or_create_global_step()\n",
        id="slim-reexports",
    ),
    pytest.param(
        "import tensorflow.compat.v1 as tf\nh = tf.contrib.layers.dropout(x, 0.9)\ni = tf.contrib.layers.xavier_initializer()\n",
        "import tensorflow.compat.v1 as tf\nh = tf.nn.dropout(x, rate=1 - 0.9)\ni = tf.glorot_uniform_initializer()\n",
        id="through-compat-v1-alias",
    ),
    pytest.param(
        "import tensorflow as T\nh = T.contrib.layers.dropout(x, 0.9)\n",
        "import tensorflow as T\nh = T.nn.dropout(x, rate=1 - 0.9)\n",
        id="other-alias",
    ),
    pytest.param(
        "from tensorflow.contrib import slim\n\nh = slim.dropout(x, 0.9)\n",
        "import tensorflow as tf\n\nh = tf.nn.dropout(x, rate=1 - 0.9)\n",
        id="no-tensorflow-import-yet",
    ),
    pytest.param(
        "import tensorflow as tf\nh = tf.contrib.layers.dropout(\n    x,  # the input\n    0.9,\n)\n",
        "import tensorflow as tf\n# the input\nh = tf.nn.dropout(x, rate=1 - 0.9)\n",
        id="comment-inside-kept-above",
    ),
    pytest.param(
        "import tensorflow as tf\ndef f(x):\n    # hidden\n    return tf.contrib.layers.l2_regularizer(  # weight decay\n        0.1)(x)\n",
        "import tensorflow as tf\ndef f(x):\n    # hidden\n    # weight decay\n    return 0.1 * tf.nn.l2_loss(x)\n",
        id="comment-of-applied-regularizer-above",
    ),
]

NO_OPS = [
    pytest.param(
        "import tensorflow as tf\ni = tf.glorot_uniform_initializer()\nh = tf.nn.dropout(x, rate=0.5)\n",
        id="core-already",
    ),
    pytest.param(
        "import tensorflow as tf\ncontrib = load()\ni = contrib.layers.xavier_initializer()\n",
        id="own-object-named-contrib",
    ),
    pytest.param("import mylib as tf\nh = tf.contrib.layers.dropout(x)\n", id="not-tensorflow"),
    pytest.param("import tensorflow as tf\n# h = tf.contrib.layers.dropout(x)\n", id="in-a-comment"),
    pytest.param(
        "import tensorflow as tf\nnet = tf.contrib.layers.fully_connected(x, 10)\n", id="contrib-name-not-ours"
    ),
    pytest.param(
        "import tensorflow as tf\nh = tf.contrib.layers.dropout(x)  # tfmodernize: ignore[TFM115]\n", id="suppressed"
    ),
    pytest.param(
        "import tensorflow as tf\ndef f(slim):\n    return slim.dropout(x)\nslim = tf.contrib.slim\n",
        id="module-name-also-a-parameter",
    ),
    pytest.param(
        "import tensorflow as tf\nd = tf.contrib.distributions.MultivariateNormalDiag([0.0], [1.0])\n",
        id="distribution-only-contrib-had",
    ),
]

#: (source, the finding's words): the call stays, with a finding saying why.
DECLINES = [
    pytest.param(
        "h = tf.contrib.layers.dropout(x, 0.5, is_training=training)\n",
        "`is_training` is not True or False",
        id="dropout-is-training-unknown",
    ),
    pytest.param(
        "h = tf.contrib.layers.dropout(x, 0.5, noise_shape=[1, 4])\n",
        "`noise_shape` is not None",
        id="dropout-noise-shape",
    ),
    pytest.param(
        "h = tf.contrib.layers.dropout(x, outputs_collections='outs')\n",
        "`outputs_collections`",
        id="dropout-collections",
    ),
    pytest.param(
        "with tf.contrib.framework.arg_scope([tf.contrib.layers.dropout], is_training=False):\n"
        "    h = tf.contrib.layers.dropout(x, 0.5)\n",
        "arg_scope",
        id="dropout-listed-in-an-arg-scope",
    ),
    pytest.param(
        "ops = [slim.conv2d, slim.dropout]\nh = slim.dropout(x, 0.5)\nslim = tf.contrib.slim\n",
        "other than to call it",
        id="dropout-named-as-a-value-elsewhere",
    ),
    pytest.param("h = tf.contrib.layers.dropout(*args)\n", "could not be read", id="star-args"),
    pytest.param("acc = tf.contrib.metrics.accuracy(p, l, weights=w)\n", "given `weights`", id="accuracy-weights"),
    pytest.param(
        "acc = tf.contrib.metrics.accuracy(p, l, name='acc')\nt = g.get_tensor_by_name('acc/Mean:0')\n",
        "reads graph elements by name",
        id="accuracy-name-read-by-name",
    ),
    pytest.param("reg = tf.contrib.layers.l2_regularizer(decay)\n", "unsafe fix", id="l2-scale-unknown-unsafe"),
    pytest.param("reg = tf.contrib.layers.l2_regularizer(1)\n", "raised ValueError", id="l2-integer-scale"),
    pytest.param("reg = tf.contrib.layers.l2_regularizer(-0.1)\n", "raised ValueError", id="l2-negative-scale"),
    pytest.param(
        "DECAY = 2\nreg = tf.contrib.layers.l2_regularizer(DECAY)\n",
        "raised ValueError",
        id="l2-integer-module-constant",
    ),
    pytest.param(
        "def f(decay):\n    decay = decay / 2\n    return tf.contrib.layers.l2_regularizer(decay)\n",
        "bound more than once",
        id="l2-name-bound-twice-in-its-scope",
    ),
    pytest.param(
        "decay = 0.1\nif big:\n    decay = 0.2\nreg = tf.contrib.layers.l2_regularizer(decay)\n",
        "bound more than once",
        id="l2-module-name-bound-twice",
    ),
    pytest.param(
        "def f(decay):\n    return tf.contrib.layers.l2_regularizer(decay)\ndecay = 0.1\n",
        "unsafe fix",
        id="l2-parameter-shadowing-a-module-name-unsafe",
    ),
    pytest.param(
        "def a(weight_decay=4e-5):\n    return tf.contrib.layers.l2_regularizer(weight_decay)\n"
        "def b(weight_decay=1e-4):\n    return tf.contrib.layers.l2_regularizer(weight_decay)\n",
        "unsafe fix",
        id="l2-two-functions-same-parameter-unsafe",
    ),
    pytest.param(
        "regs = [tf.contrib.layers.l2_regularizer(d) for d in decays]\n",
        "bound more than once",
        id="l2-loop-variable-read-later",
    ),
    pytest.param("reg = tf.contrib.layers.l2_regularizer(next(decays))\n", "computed", id="l2-computed-scale"),
    pytest.param("reg = tf.contrib.layers.l2_regularizer(FLAGS.weight_decay)\n", "unsafe fix", id="l2-flag-unsafe"),
    pytest.param("loss = tf.contrib.layers.l2_regularizer(0.0)(w)\n", "scale of 0", id="l2-zero-applied-at-once"),
    pytest.param(
        "i = tf.contrib.layers.xavier_initializer(uniform=flag)\n",
        "`uniform` is not True or False",
        id="xavier-uniform-unknown",
    ),
    pytest.param(
        "i = tf.contrib.layers.variance_scaling_initializer(factor=f)\n",
        "`factor` is not a positive number",
        id="variance-factor-unknown",
    ),
    pytest.param(
        "i = tf.contrib.layers.variance_scaling_initializer(mode=mode)\n", "`mode` is not", id="variance-mode-unknown"
    ),
    pytest.param(
        "i = tf.contrib.layers.variance_scaling_initializer(mode='fan_in')\n",
        "`mode` is not",
        id="variance-mode-lowercase-contrib-refused",
    ),
    pytest.param("i = tf.contrib.layers.xavier_initializer(dtype=tf.float64)\n", "names float64", id="xavier-float64"),
    pytest.param(
        "i = tf.contrib.layers.xavier_initializer()\nv = tf.get_variable('v', [4, 2], dtype=tf.float64)\n",
        "names float64",
        id="float64-elsewhere-in-the-file",
    ),
    pytest.param(
        "i = tf.contrib.layers.xavier_initializer()\np = tf.fixed_size_partitioner(3)\n",
        "partitions variables",
        id="partitioned",
    ),
    pytest.param(
        "scope = tf.contrib.framework.arg_scope([tf.contrib.layers.dropout], keep_prob=0.5)\n",
        "used as a value",
        id="function-as-value",
    ),
    pytest.param(
        "t = tf.contrib.lookup.index_table_from_tensor(vocab, num_oov_buckets=2)\n",
        "num_oov_buckets is not 0",
        id="lookup-oov-buckets",
    ),
    pytest.param(
        "t = tf.contrib.lookup.index_table_from_tensor(read(path))\n",
        "bind it to a name first",
        id="lookup-mapping-computed",
    ),
    pytest.param(
        "t = tf.contrib.lookup.index_table_from_tensor(ids, dtype=tf.int64)\n",
        "dtype is not tf.string",
        id="lookup-integer-vocabulary",
    ),
]


@pytest.mark.parametrize(("before", "after"), REWRITES)
def test_rewrites(before, after):
    result = assert_rewrites(CODE, _program(before), _program(after))
    assert result.fixes and all(fix.code == CODE for fix in result.fixes)
    assert result.findings == []


@pytest.mark.parametrize(("before", "after"), SPELLINGS)
def test_spellings(before, after):
    result = assert_rewrites(CODE, before, after)
    assert result.fixes and result.findings == []


@pytest.mark.parametrize("source", NO_OPS)
def test_leaves_alone(source):
    result = assert_unchanged(CODE, source)
    assert result.findings == []


@pytest.mark.parametrize(("source", "words"), DECLINES)
def test_declines_with_a_finding(source, words):
    result = assert_unchanged(CODE, _program(source))
    assert result.findings, "a decline says why"
    assert all(f.code == CODE for f in result.findings)
    assert any(words in f.message for f in result.findings), [f.message for f in result.findings]


def test_a_scale_read_from_a_name_is_an_unsafe_fix():
    source = _program("""\
        def arg_scope(weight_decay=0.0004):
            return tf.contrib.layers.l2_regularizer(weight_decay), tf.contrib.layers.l1_regularizer(weight_decay)(w)
    """)
    assert rewrite(CODE, source).code == source
    result = assert_rewrites(
        CODE,
        source,
        _program("""\
        def arg_scope(weight_decay=0.0004):
            return lambda weights: weight_decay * tf.nn.l2_loss(weights), weight_decay * tf.reduce_sum(tf.abs(w))
    """),
        unsafe_fixes=True,
    )
    assert len(result.fixes) == 2 and all("unless the scale is 0" in f.message for f in result.fixes)


def test_dropout_under_an_arg_scope_not_listing_it_is_replaced():
    assert_rewrites(
        CODE,
        _program("""\
        with tf.contrib.framework.arg_scope([tf.contrib.layers.conv2d], padding="SAME"):
            h = tf.contrib.layers.dropout(x, 0.5)
    """),
        _program("""\
        with tf.contrib.framework.arg_scope([tf.contrib.layers.conv2d], padding="SAME"):
            h = tf.nn.dropout(x, rate=1 - 0.5)
    """),
    )


def test_a_decline_leaves_the_other_calls_and_the_import_it_still_needs():
    source = _program("""\
        slim = tf.contrib.slim
        h = slim.dropout(x, 0.5, is_training=training)
        i = slim.xavier_initializer()
    """)
    result = rewrite(CODE, source)
    assert result.code == _program("""\
        slim = tf.contrib.slim
        h = slim.dropout(x, 0.5, is_training=training)
        i = tf.glorot_uniform_initializer()
    """)
    assert [f.line for f in result.findings] == [3]


def test_distributions_core_had_go_to_it_and_the_module_name_stays_for_the_rest():
    source = _program("""\
        tfd = tf.contrib.distributions
        a = tfd.Normal(0.0, 1.0).log_prob(x)
        b = tfd.MVNDiag([0.0], [1.0])
        c = tfd.kl_divergence(tfd.Bernoulli(probs=0.3), tfd.Bernoulli(probs=0.6))
    """)
    result = rewrite(CODE, source)
    assert result.code == _program("""\
        tfd = tf.contrib.distributions
        a = tf.distributions.Normal(0.0, 1.0).log_prob(x)
        b = tfd.MVNDiag([0.0], [1.0])
        c = tf.distributions.kl_divergence(tf.distributions.Bernoulli(probs=0.3), tf.distributions.Bernoulli(probs=0.6))
    """)
    assert len(result.fixes) == 4


def test_runs_before_every_other_migration():
    order = [c.code for c in builtin_codemods()]
    assert order.index(CODE) < min(order.index(c) for c in order if c.startswith("TFM1") and c != CODE)


def test_owns_the_names_it_rewrites_or_declines():
    assert handles("contrib.slim.dropout") and handles("contrib.rnn.LSTMCell") and handles("contrib.metrics.accuracy")
    assert not handles("contrib.layers.fully_connected") and not handles("contrib.slim.conv2d")
    assert handles("contrib.distributions.Normal") and handles("contrib.distributions.kl_divergence")
    assert not handles("contrib.distributions.MVNDiag") and not handles("contrib.distributions.bijectors.Exp")


def test_in_a_file_that_migrates_the_glorot_initializer_becomes_the_uniform_draw():
    """With get-variable-to-variable after it, a TF2 program: no v1 name is left."""
    from tfmodernize.registry import find_codemod
    from tfmodernize.engine import transform_text

    source = _program("""\
        w = tf.get_variable("w", [4, 2], initializer=tf.contrib.layers.xavier_initializer())
        h = tf.contrib.layers.dropout(tf.matmul(tf.ones([3, 4]), w), keep_prob=0.9)
    """)
    new, state = transform_text(source, [find_codemod(c) for c in ("TFM115", "TFM106", "TFM109", "TFM113")])
    assert "contrib" not in new and "compat" not in new and not state.kept_on_v1
    assert 'tf.random.uniform([4, 2], -1.0, 1.0, dtype=tf.float32), name="w"' in new


# -- the initializers' arithmetic: contrib's and core's formulas, rounded to float32 ----------


@pytest.mark.parametrize("factor", [1.0, 2.0, 0.5, 1.3])
def test_contrib_and_core_initializer_scales_agree_in_float32_for_every_fan(factor):
    np = pytest.importorskip("numpy")
    n = np.arange(2, 2**21 + 1) / 2.0  # every fan, and every (fan_in + fan_out) / 2, up to 2^20
    c = float(TRUNCATION)
    pairs = {
        # contrib: sqrt(3.0 * factor / n); core: scale /= max(1., n); sqrt(3.0 * scale)
        "uniform limit": (np.sqrt(3.0 * factor / n), np.sqrt(3.0 * (factor / n))),
        # contrib: sqrt(1.3 * factor / n); core with the scale written: sqrt(scale / n) / c
        "truncated stddev": (np.sqrt(1.3 * factor / n), np.sqrt(factor * 1.3 * c**2 / n) / c),
    }
    for what, (contrib, core) in pairs.items():
        assert (contrib.astype(np.float32) == core.astype(np.float32)).all(), what
    assert math.sqrt(3.0 * factor / 3.0) == math.sqrt(3.0 * (factor / 3.0))


# -- the same numbers as contrib (tf-slim's copy), with a graph-level seed and no test tool ----

SAME_NUMBERS = r"""
import os
os.environ["TF_USE_LEGACY_KERAS"] = "1"
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
import tf_slim
from tensorflow.python.framework import ops, tensor
if not hasattr(ops, "Tensor"):
    ops.Tensor = tensor.Tensor

def run(build):
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(1)
        x = tf.ones([4, 6]) * tf.range(6.0)
        labels = tf.constant([1, 2, 3, 2], tf.int64)
        made = build(x, labels)
        later = tf.random_normal([3])  # drawn after: the random-op count must agree
        with tf.Session() as sess:
            return sess.run([made, later])

C = 0.87962566103423978
CASES = {
    "dropout": (lambda x, l: tf_slim.dropout(x, 0.8), lambda x, l: tf.nn.dropout(x, rate=1 - 0.8)),
    "dropout default": (lambda x, l: tf_slim.dropout(x), lambda x, l: tf.nn.dropout(x, rate=0.5)),
    "dropout keep 1": (lambda x, l: tf_slim.dropout(x, 1.0), lambda x, l: tf.nn.dropout(x, rate=1 - 1.0)),
    "dropout off": (lambda x, l: tf_slim.dropout(x, 0.8, is_training=False), lambda x, l: tf.identity(x)),
    "xavier": (lambda x, l: tf_slim.xavier_initializer()([30, 50]), lambda x, l: tf.glorot_uniform_initializer()([30, 50])),
    "xavier normal": (lambda x, l: tf_slim.xavier_initializer(uniform=False)([7, 5, 30, 50]),
                      lambda x, l: tf.variance_scaling_initializer(scale=1.3 * C ** 2, mode="fan_avg",
                                                                   distribution="truncated_normal")([7, 5, 30, 50])),
    "he": (lambda x, l: tf_slim.variance_scaling_initializer()([3, 3, 16, 50]),
           lambda x, l: tf.variance_scaling_initializer(scale=2.0 * 1.3 * C ** 2, mode="fan_in",
                                                        distribution="truncated_normal")([3, 3, 16, 50])),
    "uniform fan_out": (lambda x, l: tf_slim.variance_scaling_initializer(0.7, "FAN_OUT", True)([9, 11]),
                        lambda x, l: tf.variance_scaling_initializer(scale=0.7, mode="fan_out",
                                                                     distribution="uniform")([9, 11])),
    "l2": (lambda x, l: tf_slim.l2_regularizer(0.1)(x), lambda x, l: 0.1 * tf.nn.l2_loss(x)),
    "l1": (lambda x, l: tf_slim.l1_regularizer(0.3)(x), lambda x, l: 0.3 * tf.reduce_sum(tf.abs(x))),
    "accuracy": (lambda x, l: tf_slim.metrics.accuracy(l, l * 0 + 2),
                 lambda x, l: tf.reduce_mean(tf.cast(tf.equal(l, l * 0 + 2), tf.float32))),
}
for name, (old, new) in CASES.items():
    a, b = run(old), run(new)
    assert all(p.dtype == q.dtype and np.array_equal(p, q) for p, q in zip(a, b)), name
print("same", len(CASES))
"""


def test_the_replacements_draw_contribs_numbers_under_a_graph_seed():
    pytest.importorskip("tensorflow")
    pytest.importorskip("tf_slim")
    env = {k: v for k, v in os.environ.items() if k != "TF_USE_LEGACY_KERAS"} | {
        "TF_CPP_MIN_LOG_LEVEL": "3",
        "CUDA_VISIBLE_DEVICES": "-1",
        "TF_ENABLE_ONEDNN_OPTS": "0",
    }
    ran = subprocess.run([sys.executable, "-c", SAME_NUMBERS], env=env, capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert ran.stdout.strip().splitlines()[-1] == "same 11"


LOOKUP_SOURCE = """import tensorflow as tf

words = ["low", "mid", "high"]
ids_table = tf.contrib.lookup.index_table_from_tensor(mapping=words)
strings_table = tf.contrib.lookup.index_to_string_table_from_tensor(words, default_value="none")
unk_table = tf.contrib.lookup.index_to_string_table_from_tensor(mapping=words)
ids = ids_table.lookup(tf.constant(["mid", "x", "high", "low"]))
back = strings_table.lookup(tf.constant([2, 0, 7], tf.int64))
unk = unk_table.lookup(tf.constant([-1, 1], tf.int64))
"""

#: Runs a program (argv[2]) as TF 1.15 did (argv[1] ``v1``: graph mode, ``tf.contrib.lookup``
#: being TF1's own ``lookup_ops`` functions under the parameter name ``mapping``, as contrib's
#: were) or on TF 2.x (``v2``), and prints its tables' lookups.
LOOKUP_RUN = """
import json
import sys
import types
import tensorflow as tf
from tensorflow.python.ops import lookup_ops

mode, program = sys.argv[1], sys.argv[2]
if mode == "v1":
    tf = tf.compat.v1
    tf.disable_v2_behavior()
    tf.contrib = types.SimpleNamespace(lookup=types.SimpleNamespace(
        index_table_from_tensor=lambda mapping, **kw: lookup_ops.index_table_from_tensor(mapping, **kw),
        index_to_string_table_from_tensor=lambda mapping, **kw: (
            lookup_ops.index_to_string_table_from_tensor(mapping, **kw)
        ),
    ))
space = {}
exec(compile(program.replace("import tensorflow as tf", ""), "program", "exec"), {"tf": tf}, space)
fetched = [space["ids"], space["back"], space["unk"]]
if mode == "v1":
    with tf.Session() as sess:
        sess.run(tf.tables_initializer())
        values = sess.run(fetched)
else:
    values = [t.numpy() for t in fetched]
print(json.dumps([[v.decode() if isinstance(v, bytes) else int(v) for v in value] for value in values]))
"""


def test_lookup_tables_are_the_tables_contrib_made():
    pytest.importorskip("tensorflow")
    after = rewrite("TFM115", LOOKUP_SOURCE).code
    assert "contrib" not in after and after.count("StaticHashTable") == 3
    env = {k: v for k, v in os.environ.items() if k != "TF_USE_LEGACY_KERAS"} | {
        "TF_CPP_MIN_LOG_LEVEL": "3",
        "CUDA_VISIBLE_DEVICES": "-1",
    }
    runs = {}
    for mode, program in (("v1", LOOKUP_SOURCE), ("v2", after)):
        ran = subprocess.run(
            [sys.executable, "-c", LOOKUP_RUN, mode, program], env=env, capture_output=True, text=True, timeout=300
        )
        assert ran.returncode == 0, ran.stderr[-3000:]
        runs[mode] = ran.stdout.strip().splitlines()[-1]
    assert runs["v1"] == runs["v2"]
