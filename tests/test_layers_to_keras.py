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

from tfmodernize.codemods.migrate.layers_to_keras import layer_table
from tfmodernize.engine import run
from tfmodernize.settings import Settings
from tfmodernize.sources import Discovered
from tfmodernize.testing import assert_rewrites, assert_unchanged, rewrite

REPO = Path(__file__).resolve().parents[1]


#: What layers-to-keras writes after the imports of a file whose layers take TF1's default kernel
#: initializer, drawn as TF1 drew it: a line ``WRITTEN_GLOROT_UNIFORM`` of an expected rewrite
#: stands for it; ``WRITTEN_CELL_KERNEL`` for it and the class of TF1's RNN cell kernels.
GLOROT_UNIFORM = """\
def glorot_uniform(shape, dtype=tf.float32):
    \"\"\"TF1's default kernel initializer (Glorot uniform), drawn by
    tf.random.uniform as TF1 drew it, so the layers start from TF1's weights
    (Keras's GlorotUniform draws other numbers).\"\"\"
    receptive_field = math.prod(shape[:-2])
    fan_in = shape[-2] * receptive_field
    fan_out = shape[-1] * receptive_field
    scale = 1.0 / max(1.0, (fan_in + fan_out) / 2.0)
    limit = math.sqrt(3.0 * scale)
    return tf.random.uniform(shape, -limit, limit, dtype=dtype)
"""
CELL_KERNEL = """\
class CellKernel:
    \"\"\"TF1's RNN cell kernel: one Glorot-uniform matrix over the input and
    state rows, drawn as TF1 drew it, its gates' columns in Keras's order
    (`gates`: TF1's gate of each of Keras's). Keras asks for the input rows
    first (`inputs`), then the state rows (`state`).\"\"\"

    def __init__(self, gates=(0,)):
        self.gates = gates
        self.state_rows = None

    def inputs(self, shape, dtype=tf.float32):
        rows, columns = shape
        units = columns // len(self.gates)
        whole = glorot_uniform((rows + units, columns), dtype)
        blocks = tf.split(whole, len(self.gates), axis=1)
        whole = tf.concat([blocks[gate] for gate in self.gates], axis=1)
        self.state_rows = whole[rows:]
        return whole[:rows]

    def state(self, shape, dtype=tf.float32):
        return self.state_rows
"""
WRITTEN = {
    "WRITTEN_GLOROT_UNIFORM\n": f"import math\n\n\n{GLOROT_UNIFORM}\n\n",
    "WRITTEN_CELL_KERNEL\n": f"import math\n\n\n{GLOROT_UNIFORM}\n\n{CELL_KERNEL}\n\n",
}


def _written(text: str) -> str:
    """``text`` with the written code in place of the lines standing for it (``WRITTEN``)."""
    for marker, code in WRITTEN.items():
        text = text.replace(marker, code)
    return text


def _code(text: str) -> str:
    return _written(textwrap.dedent(text).lstrip("\n"))


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
        WRITTEN_GLOROT_UNIFORM
        hidden_layer = tf.keras.layers.Dense(
            8, activation=tf.nn.relu, kernel_initializer=glorot_uniform, name="hidden"
        )
        # the network
        hidden = hidden_layer(x)
        flatten = tf.keras.layers.Flatten()
        dense = tf.keras.layers.Dense(2, use_bias=False, kernel_initializer=glorot_uniform)
        logits = dense(flatten(hidden))
        """,
        id="dense-named-and-nested-flatten",
    ),
    pytest.param(
        """
        import tensorflow as tf

        hidden = tf.layers.dense(x, 8, activation=tf.nn.relu)
        logits = tf.layers.dense(hidden, 2)
        """,
        """
        import tensorflow as tf
        WRITTEN_GLOROT_UNIFORM
        hidden_dense = tf.keras.layers.Dense(
            8, activation=tf.nn.relu, kernel_initializer=glorot_uniform
        )
        hidden = hidden_dense(x)
        logits_dense = tf.keras.layers.Dense(2, kernel_initializer=glorot_uniform)
        logits = logits_dense(hidden)
        """,
        id="several-dense-named-after-what-they-bind",
    ),
    pytest.param(
        """
        import tensorflow as tf

        logits = tf.layers.dense(tf.layers.dense(x, 8), 2)
        """,
        """
        import tensorflow as tf
        WRITTEN_GLOROT_UNIFORM
        dense = tf.keras.layers.Dense(8, kernel_initializer=glorot_uniform)
        dense_2 = tf.keras.layers.Dense(2, kernel_initializer=glorot_uniform)
        logits = dense_2(dense(x))
        """,
        id="no-op-two-dense-on-one-line-binding-one-name-keep-their-kind",
    ),
    pytest.param(
        """
        import tensorflow as tf

        hidden_dense = 3
        hidden = tf.layers.dense(x, 8)
        logits = tf.layers.dense(hidden, 2)
        """,
        """
        import tensorflow as tf
        WRITTEN_GLOROT_UNIFORM
        hidden_dense = 3
        dense = tf.keras.layers.Dense(8, kernel_initializer=glorot_uniform)
        hidden = dense(x)
        logits_dense = tf.keras.layers.Dense(2, kernel_initializer=glorot_uniform)
        logits = logits_dense(hidden)
        """,
        id="no-op-a-bound-name-taken-keeps-the-kind",
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
        WRITTEN_GLOROT_UNIFORM
        conv2d = tf.keras.layers.Conv2D(
            16, [5, 5], padding="same", kernel_initializer=glorot_uniform
        )
        c = conv2d(images)
        max_pooling2d = tf.keras.layers.MaxPooling2D(pool_size=[2, 2], strides=2)
        p = max_pooling2d(c)
        dropout = tf.keras.layers.Dropout(0.5)
        d = dropout(p, training=False)
        """,
        id="conv-pool-dropout-tf1-default-rate-written-out",
    ),
]


REWRITES.append(
    pytest.param(
        """
    import tensorflow as tf


    def encoder(x):
        with tf.variable_scope("encoder"):
            return tf.layers.dense(x, 3, name="code")


    code = encoder(inputs)
    """,
        """
    import tensorflow as tf
    WRITTEN_GLOROT_UNIFORM
    encoder_code = tf.keras.layers.Dense(3, kernel_initializer=glorot_uniform, name="code")


    def encoder(x):
        return encoder_code(x)


    code = encoder(inputs)
    """,
        id="network-function-called-once",
    )
)


REWRITES.append(
    pytest.param(
        """
    import tensorflow as tf

    c = tf.layers.conv2d(images, 4, 3)
    n = tf.layers.batch_normalization(c, fused=False, epsilon=1e-5)
    """,
        """
    import tensorflow as tf
    WRITTEN_GLOROT_UNIFORM
    conv2d = tf.keras.layers.Conv2D(4, 3, kernel_initializer=glorot_uniform)
    c = conv2d(images)
    batch_normalization = tf.keras.layers.BatchNormalization(epsilon=1e-5)
    n = batch_normalization(c)
    """,
        id="batch-norm-inference-unfused",
    )
)

# A batch normalisation in training mode, through a fed placeholder: its updates ran through
# UPDATE_OPS in the training step only, and every run turning training mode on fetches it.
BATCH_NORM_PROGRAM = """
    import tensorflow as tf

    x = tf.placeholder(tf.float32, [None, 3])
    is_training = tf.placeholder(tf.bool)
    h = tf.layers.batch_normalization(x, training=is_training)
    loss = tf.reduce_mean(h)
    # the updates first
    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    with tf.control_dependencies(update_ops):
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    with tf.Session() as sess:
        feed = {x: data, is_training: True}
        sess.run([train, loss], feed_dict=feed)
        sess.run(loss, {x: data, is_training: False})
    """
REWRITES.append(
    pytest.param(
        BATCH_NORM_PROGRAM,
        """
    import tensorflow as tf

    x = tf.placeholder(tf.float32, [None, 3])
    is_training = tf.placeholder(tf.bool)
    batch_normalization = tf.keras.layers.BatchNormalization()
    h = batch_normalization(x, training=is_training)
    loss = tf.reduce_mean(h)
    # the updates first
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    with tf.Session() as sess:
        feed = {x: data, is_training: True}
        sess.run([train, loss], feed_dict=feed)
        sess.run(loss, {x: data, is_training: False})
    """,
        id="batch-norm-training-update-ops-dependency-goes",
    )
)


REWRITES.append(
    pytest.param(
        """
    import tensorflow as tf


    def discriminator(x, reuse=False):
        with tf.variable_scope("discriminator", reuse=reuse):
            h = tf.layers.dense(x, 4, activation=tf.nn.relu, reuse=reuse)
            return tf.layers.dense(h, 1, name="logit")


    real_logits = discriminator(real)
    fake_logits = discriminator(fake, reuse=True)
    other_logits = discriminator(other, True)
    """,
        """
    import tensorflow as tf
    WRITTEN_GLOROT_UNIFORM
    discriminator_dense = tf.keras.layers.Dense(
        4, activation=tf.nn.relu, kernel_initializer=glorot_uniform
    )
    discriminator_logit = tf.keras.layers.Dense(
        1, kernel_initializer=glorot_uniform, name="logit"
    )


    def discriminator(x):
        h = discriminator_dense(x)
        return discriminator_logit(h)


    real_logits = discriminator(real)
    fake_logits = discriminator(fake)
    other_logits = discriminator(other)
    """,
        id="network-shared-through-its-variable-scope",
    )
)


REWRITES.append(
    pytest.param(
        """
    import tensorflow as tf
    from tensorflow.contrib import layers

    h = layers.fully_connected(layers.flatten(x), 3, weights_initializer=tf.zeros_initializer(), scope="hidden")
    y = tf.contrib.layers.fully_connected(h, 1, None, trainable=False)
    """,
        """
    import tensorflow as tf
    WRITTEN_GLOROT_UNIFORM
    flatten = tf.keras.layers.Flatten()
    hidden = tf.keras.layers.Dense(
        3, activation=tf.nn.relu, kernel_initializer=tf.zeros_initializer(), name="hidden"
    )
    h = hidden(flatten(x))
    fully_connected = tf.keras.layers.Dense(
        1, activation=None, kernel_initializer=glorot_uniform, trainable=False
    )
    y = fully_connected(h)
    """,
        id="contrib-fully-connected-and-flatten",
    )
)


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
        "not called from the program's top-level code only",
        id="network-function-never-called",
    ),
    pytest.param(
        """
        import tensorflow as tf

        def network(x):
            with tf.variable_scope("d"):
                return tf.layers.dense(x, 1)

        real = network(a)
        fake = network(b)
        """,
        "calls 2 times without sharing its variables",
        id="network-built-twice",
    ),
    pytest.param(
        """
        import tensorflow as tf

        def network(x, reuse=False):
            with tf.variable_scope("d", reuse=reuse):
                return tf.layers.dense(x, 1)

        real = network(a, reuse=True)
        fake = network(b, reuse=True)
        """,
        "called with `reuse` other than absent or False the first time and True after",
        id="network-reusing-on-its-first-call",
    ),
    pytest.param(
        """
        import tensorflow as tf

        def network(x, reuse=False):
            with tf.variable_scope("d", reuse=reuse):
                h = tf.layers.dense(x, 1)
            return h if reuse else h * 2.0

        real = network(a)
        fake = network(b, reuse=True)
        """,
        "`reuse` is used for more than sharing the variables",
        id="network-reuse-parameter-read-otherwise",
    ),
    pytest.param(
        """
        import tensorflow as tf

        def network(x, reuse=False):
            with tf.variable_scope("d", reuse=reuse), tf.device("/cpu:0"):
                return tf.layers.dense(x, 1)

        real = network(a)
        """,
        "a `with` block other than a variable or name scope",
        id="network-with-another-block",
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
        "it passes `reuse` outside a network function shared",
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


DECLINES += [
    pytest.param(
        """
        import tensorflow as tf

        n = tf.layers.batch_normalization(tf.layers.conv2d(images, 4, 3))
        """,
        "pass `fused=False` in TF1",
        id="batch-norm-fused-on-a-tensor-of-unknown-rank",
    ),
    pytest.param(
        BATCH_NORM_PROGRAM.replace(
            "sess.run(loss, {x: data, is_training: False})", "sess.run(loss, {x: data, is_training: True})"
        ),
        "a run turning training mode on does not fetch the step",
        id="batch-norm-training-run-without-the-step",
    ),
    pytest.param(
        BATCH_NORM_PROGRAM.replace("feed_dict=feed)", "feed_dict=feed)\n        show(feed)"),
        "a run turning training mode on does not fetch the step",
        id="batch-norm-feed-dict-used-elsewhere",
    ),
    pytest.param(
        BATCH_NORM_PROGRAM.replace("with tf.control_dependencies(update_ops):\n        train", "train")
        .replace("    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)\n", "")
        .replace("train = tf.train", "step = tf.train")
        .replace("[train, loss]", "[step, loss]"),
        "TF1 never updated the moving statistics",
        id="batch-norm-training-without-update-ops",
    ),
    pytest.param(
        BATCH_NORM_PROGRAM.replace("training=is_training", "training=True"),
        "is not a boolean placeholder the program feeds",
        id="batch-norm-always-training",
    ),
    pytest.param(
        BATCH_NORM_PROGRAM.replace(
            "is_training = tf.placeholder(tf.bool)", "is_training = tf.placeholder_with_default(True, [])"
        ),
        "it defaults to training mode",
        id="batch-norm-placeholder-defaults-to-training",
    ),
    pytest.param(
        """
        import tensorflow as tf

        n = tf.layers.batch_normalization(h, fused=False, virtual_batch_size=2)
        """,
        "`virtual_batch_size=2` has no Keras counterpart",
        id="batch-norm-tf1-only-parameter",
    ),
    pytest.param(
        """
        import tensorflow as tf

        n = tf.layers.batch_normalization(h, fused=False, renorm=True)
        """,
        "`renorm`",
        id="batch-norm-renorm",
    ),
]


DECLINES += [
    pytest.param(
        "import tensorflow as tf\nh = tf.contrib.layers.fully_connected(x, 3, normalizer_fn=tf.contrib.layers.batch_norm)\n",
        "it passes `normalizer_fn`, which Keras layers do not take",
        id="contrib-normalizer",
    ),
    pytest.param(
        "import tensorflow as tf\nh = tf.contrib.layers.fully_connected(x, 3, biases_initializer=None)\n",
        "it passes `biases_initializer=None`, which TF1 read as leaving that part out",
        id="contrib-no-bias",
    ),
    pytest.param(
        "import tensorflow as tf\nh = tf.contrib.layers.fully_connected(x, 3, outputs_collections=['o'])\n",
        "it passes `outputs_collections`",
        id="contrib-collections",
    ),
    pytest.param(
        "import tensorflow as tf\nh = tf.contrib.layers.fully_connected(x, 3, units=4)\n",
        "`units` is not a parameter of tf.contrib.layers.fully_connected",
        id="contrib-keras-spelling",
    ),
    # Top-level blocks that only name ops hold layers; others do not.
    pytest.param(
        "import tensorflow as tf\nwith tf.variable_scope('d', reuse=True):\n    h = tf.layers.dense(x, 3)\n",
        "other than top-level `with` blocks that only name ops",
        id="in-a-reusing-scope",
    ),
    pytest.param(
        "import tensorflow as tf\nwith tf.name_scope('d') as scope:\n    h = tf.layers.dense(x, 3)\n",
        "other than top-level `with` blocks that only name ops",
        id="in-a-named-scope-bound-as",
    ),
    pytest.param(
        "import tensorflow as tf\nwith tf.name_scope('d'):\n    if deep:\n        h = tf.layers.dense(x, 3)\n",
        "other than top-level `with` blocks that only name ops",
        id="in-a-condition-in-a-naming-block",
    ),
    pytest.param(
        "import tensorflow as tf\nwith tf.name_scope('d'):\n    width = 3\n    h = tf.layers.dense(x, width)\n",
        "its arguments read `width`, which the block binds",
        id="width-bound-in-the-naming-block",
    ),
]


@pytest.mark.parametrize(("source", "message"), DECLINES)
def test_declines_with_a_finding(source, message):
    result = assert_unchanged("TFM107", _code(source))
    assert [f.code for f in result.findings] == ["TFM107"]
    assert message in result.findings[0].message


NO_OPS = [
    pytest.param("import tensorflow as tf\nlayer = tf.keras.layers.Dense(3)\n", id="already-keras"),
    pytest.param("import tensorflow as tf\nh = tf.layers.separable_conv2d(x, 4, 3)\n", id="not-in-the-table"),
]


@pytest.mark.parametrize("source", NO_OPS)
def test_no_ops(source):
    assert assert_unchanged("TFM107", source).findings == []


def test_the_table_maps_every_tf1_parameter():
    for name, entry in layer_table().items():
        handled = {"inputs", *entry["constructor"], *entry["call"], *entry["declined"], *entry["tf1_only"]}
        spelled = {entry.get("renamed", {}).get(parameter, parameter) for parameter in entry["parameters"]}
        assert spelled == handled | set(entry["declined"]), name


@pytest.mark.skipif(importlib.util.find_spec("tf_keras") is None, reason="reads tf-keras's legacy tf.layers")
def test_committed_table_is_regenerated_identically(tmp_path):
    out = tmp_path / "layers.json"
    subprocess.run(
        [sys.executable, str(REPO / "scripts" / "generate_layer_table.py"), "--output", str(out)],
        check=True,
        capture_output=True,
        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"),
    )
    fresh, committed = (
        json.loads(out.read_text()),
        json.loads((REPO / "tfmodernize" / "data" / "layers.json").read_text()),
    )
    assert fresh == committed, "tfmodernize/data/layers.json is stale: run scripts/generate_layer_table.py"


# A network shared through its variable scope, trained on the variables one read picks.
SCOPED_LIST = """
import tensorflow as tf


def critic(x, reuse=False):
    with tf.variable_scope("critic", reuse=reuse):
        return tf.layers.dense(x, 1)


real_score = critic(real)
fake_score = critic(fake, reuse=True)
READ
step = tf.train.AdamOptimizer(0.1).minimize(loss, var_list=critic_vars)
"""


@pytest.mark.parametrize(
    "read",
    [
        pytest.param(
            'critic_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="critic")',
            id="get-collection-scope",
        ),
        pytest.param('critic_vars = tf.trainable_variables("crit")', id="trainable-variables-scope-prefix"),
        pytest.param(
            'all_vars = tf.trainable_variables()\ncritic_vars = [v for v in all_vars if v.name.startswith("critic/")]',
            id="comprehension-startswith",
        ),
        pytest.param(
            'critic_vars = [v for v in tf.trainable_variables() if "critic" in v.name]', id="comprehension-in"
        ),
    ],
)
def test_variable_lists_picked_by_scope_are_read_where_the_optimizer_uses_them(read):
    after = """
import tensorflow as tf
WRITTEN_GLOROT_UNIFORM
critic_dense = tf.keras.layers.Dense(1, kernel_initializer=glorot_uniform)


def critic(x):
    return critic_dense(x)


real_score = critic(real)
fake_score = critic(fake)
step = tf.train.AdamOptimizer(0.1).minimize(loss, var_list=critic_dense.trainable_variables)
"""
    result = assert_rewrites("TFM107", SCOPED_LIST.replace("READ", read), _written(after))
    assert result.findings == []


@pytest.mark.parametrize(
    ("read", "message"),
    [
        pytest.param(
            'critic_vars = [v for v in tf.trainable_variables() if "_1" in v.name]',
            "depends on the name TF1 gave its variables",
            id="test-on-the-uniquifying-suffix",
        ),
        pytest.param(
            'critic_vars = tf.trainable_variables("critic")\nprint(len(critic_vars))',
            "`critic_vars` is used other than as an optimizer's `var_list`",
            id="list-used-otherwise",
        ),
        pytest.param(
            'critic_vars = tf.trainable_variables("gen")', "it selects no layer's variables", id="selects-nothing"
        ),
    ],
)
def test_variable_lists_not_resolved_are_findings(read, message):
    result = rewrite("TFM107", SCOPED_LIST.replace("READ", read))
    made = "critic_dense = tf.keras.layers.Dense(1, kernel_initializer=glorot_uniform)"
    assert made in result.code
    assert "critic_vars = " in result.code
    assert [f.code for f in result.findings] == ["TFM107"] and message in result.findings[0].message


def test_a_variable_list_read_before_the_network_is_built_is_a_finding():
    early = SCOPED_LIST.replace("READ\n", "").replace(
        "real_score = critic(real)\n", 'critic_vars = tf.trainable_variables("critic")\nreal_score = critic(real)\n'
    )
    result = rewrite("TFM107", early)
    assert [f.code for f in result.findings] == ["TFM107"]
    assert "it is read before `critic_dense` made its variables" in result.findings[0].message


RNN_REWRITES = [
    pytest.param(
        """
        import tensorflow as tf

        cell = tf.nn.rnn_cell.LSTMCell(8, forget_bias=0.0)
        outputs, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
        final = tf.concat([state[1], state.c], axis=1)
        """,
        """
        import tensorflow as tf
        WRITTEN_CELL_KERNEL
        lstm_kernel = CellKernel(gates=(0, 2, 1, 3))
        lstm = tf.keras.layers.LSTM(
            8,
            unit_forget_bias=False,
            return_sequences=True,
            return_state=True,
            kernel_initializer=lstm_kernel.inputs,
            recurrent_initializer=lstm_kernel.state,
        )
        outputs, state_h, state_c = lstm(x)
        final = tf.concat([state_h, state_c], axis=1)
        """,
        id="lstm-state-reads-and-zero-forget-bias",
    ),
    pytest.param(
        """
        import tensorflow as tf

        cell = tf.contrib.rnn.GRUCell(num_units=6, name="encoder_cell")
        outputs, state = tf.nn.dynamic_rnn(cell=cell, inputs=x, dtype=tf.float32)
        """,
        """
        import tensorflow as tf

        encoder_cell = tf.keras.layers.GRU(
            6, reset_after=False, return_sequences=True, name="encoder_cell"
        )
        outputs = encoder_cell(x)
        """,
        id="gru-state-unused",
    ),
]


RNN_REWRITES += [
    pytest.param(
        """
        import tensorflow as tf

        # two layers
        stack = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.LSTMCell(8) for _ in range(2)])
        outputs, _ = tf.nn.dynamic_rnn(stack, x, dtype=tf.float32)
        """,
        """
        import tensorflow as tf

        # two layers
        stacked_rnn = tf.keras.layers.RNN(
            [tf.keras.layers.LSTMCell(8) for _ in range(2)], return_sequences=True
        )
        outputs = stacked_rnn(x)
        """,
        id="multi-rnn-cell-comprehension",
    ),
    pytest.param(
        """
        import tensorflow as tf

        forward = tf.nn.rnn_cell.GRUCell(4)
        backward = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.GRUCell(4), tf.nn.rnn_cell.GRUCell(3)])
        (ahead, behind), _ = tf.nn.bidirectional_dynamic_rnn(forward, backward, x, dtype=tf.float32)
        """,
        """
        import tensorflow as tf

        bidirectional = tf.keras.layers.Bidirectional(
            tf.keras.layers.GRU(4, reset_after=False, return_sequences=True),
            backward_layer=tf.keras.layers.RNN(
                [
                    tf.keras.layers.GRUCell(4, reset_after=False),
                    tf.keras.layers.GRUCell(3, reset_after=False),
                ],
                return_sequences=True,
                go_backwards=True,
            ),
            merge_mode=None,
        )
        (ahead, behind) = bidirectional(x)
        """,
        id="bidirectional-over-a-cell-and-a-stack",
    ),
]


RNN_REWRITES.append(
    pytest.param(
        """
    import tensorflow as tf

    steps = tf.unstack(x, 5, 1)
    cell = tf.nn.rnn_cell.BasicLSTMCell(8, forget_bias=1.0)
    outputs, states = tf.nn.static_rnn(cell, steps, dtype=tf.float32)
    last = outputs[-1]
    """,
        """
    import tensorflow as tf
    WRITTEN_CELL_KERNEL
    steps = tf.unstack(x, 5, 1)
    lstm_kernel = CellKernel(gates=(0, 2, 1, 3))
    lstm = tf.keras.layers.LSTM(
        8,
        return_sequences=True,
        kernel_initializer=lstm_kernel.inputs,
        recurrent_initializer=lstm_kernel.state,
    )
    outputs = tf.unstack(lstm(tf.stack(steps, axis=1)), axis=1)
    last = outputs[-1]
    """,
        id="static-rnn-over-a-list-of-steps",
    )
)


@pytest.mark.parametrize(("before", "after"), RNN_REWRITES)
def test_rnn_rewrites(before, after):
    result = assert_rewrites("TFM107", _code(before), _code(after))
    assert result.findings == []


RNN_PROGRAM = """
import tensorflow as tf

cell = tf.nn.rnn_cell.BasicLSTMCell(4)
outputs, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
h = state.h
"""


@pytest.mark.parametrize(
    ("source", "message"),
    [
        pytest.param(
            RNN_PROGRAM.replace("cell, x, dtype=tf.float32", "cell, x * 2.0, sequence_length=n, dtype=tf.float32"),
            "the mask for `sequence_length` needs their time dimension",
            id="sequence-length-of-computed-inputs",
        ),
        pytest.param(
            RNN_PROGRAM.replace("dynamic_rnn", "static_rnn"),
            "the state of a static RNN is read",
            id="static-rnn-state-read",
        ),
        pytest.param(
            RNN_PROGRAM.replace("dtype=tf.float32", "dtype=tf.float32, time_major=True"),
            "it passes `time_major`",
            id="time-major",
        ),
        pytest.param(
            RNN_PROGRAM.replace("BasicLSTMCell(4)", "BasicLSTMCell(4, forget_bias=0.5)"),
            "`forget_bias=0.5`",
            id="forget-bias-other-than-0-or-1",
        ),
        pytest.param(
            RNN_PROGRAM.replace("BasicLSTMCell(4)", "LSTMCell(4, use_peepholes=True)"),
            "`use_peepholes=True` has no Keras counterpart",
            id="peepholes",
        ),
        pytest.param(
            RNN_PROGRAM.replace("h = state.h", "h = process(state)"),
            "used other than as `.h`, `.c`, `[0]` or `[1]`",
            id="lstm-state-passed-whole",
        ),
        pytest.param(
            RNN_PROGRAM.replace("h = state.h", "again, _ = tf.nn.dynamic_rnn(cell, y, dtype=tf.float32)"),
            "is not made by a TF1 RNN cell on a line of its own before it",
            id="cell-run-twice",
        ),
        pytest.param(
            RNN_PROGRAM.replace(
                "tf.nn.rnn_cell.BasicLSTMCell(4)", "tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(4)])"
            ),
            "the state of a stacked or bidirectional RNN is read",
            id="multi-rnn-cell-state-read",
        ),
        pytest.param(
            RNN_PROGRAM.replace("tf.nn.rnn_cell.BasicLSTMCell(4)", "tf.nn.rnn_cell.MultiRNNCell(make_cells())"),
            "is not given a list of cells made in it",
            id="multi-rnn-cell-of-a-helper",
        ),
    ],
)
def test_rnn_declines(source, message):
    result = assert_unchanged("TFM107", source)
    assert result.findings and all(f.code == "TFM107" and message in f.message for f in result.findings)


def test_network_function_parameters_read_as_every_call_passes_them():
    before = """
import tensorflow as tf

HIDDEN = 8


def net(x, width, out=2):
    h = tf.layers.dense(x, width, name="h")
    return tf.layers.dense(h, out)


y = net(inputs, HIDDEN)
"""
    after = """
import tensorflow as tf
WRITTEN_GLOROT_UNIFORM
HIDDEN = 8


net_h = tf.keras.layers.Dense(HIDDEN, kernel_initializer=glorot_uniform, name="h")
net_dense = tf.keras.layers.Dense(2, kernel_initializer=glorot_uniform)


def net(x, width, out=2):
    h = net_h(x)
    return net_dense(h)


y = net(inputs, HIDDEN)
"""
    assert assert_rewrites("TFM107", before, _written(after)).findings == []


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(
            "def net(x):\n    size = int(x.shape[-1])\n    return tf.layers.dense(x, size)\n\n\ny = net(a)\n",
            id="local-computed",
        ),
        pytest.param(
            "def net(x):\n    size = 3\n    size += 1\n    return tf.layers.dense(x, size)\n\n\ny = net(a)\n",
            id="local-bound-twice",
        ),
        pytest.param(
            "def net(x, wide):\n    size = 3\n    if wide:\n        size = 6\n    return tf.layers.dense(x, size)\n\n\n"
            "y = net(a, True)\n",
            id="local-bound-in-a-condition",
        ),
        pytest.param(
            "def net(x):\n    h = tf.layers.dense(x, size)\n    size = 3\n    return h\n\n\ny = net(a)\n",
            id="local-bound-after",
        ),
        pytest.param(
            "def net(x, n, reuse=False):\n    with tf.variable_scope('s', reuse=reuse):\n"
            "        return tf.layers.dense(x, n)\n\n\ny = net(a, 2)\nz = net(b, 3, reuse=True)\n",
            id="parameter-differs-between-calls",
        ),
        pytest.param(
            "def net(x, n):\n    return tf.layers.dense(x, n)\n\n\nwidth = 4\ny = net(a, width)\n",
            id="parameter-bound-after-the-function",
        ),
    ],
)
def test_network_function_arguments_computed_inside_decline(source):
    result = assert_unchanged("TFM107", "import tensorflow as tf\n\n\n" + source)
    assert result.findings and "is computed in `net`" in result.findings[0].message


# -- tf.get_variable in network functions, under their variable scopes --------------------------


def test_scoped_variables_of_a_network_called_once_are_made_before_its_call():
    before = """
import tensorflow as tf

UNITS = 3


def encoder(x, units, scale=0.1):
    with tf.variable_scope("enc"):
        inner = 4
        w = tf.get_variable("w", shape=[inner, units], initializer=tf.random_normal_initializer(stddev=scale))
        b = tf.get_variable("b", [units], initializer=tf.zeros_initializer(), trainable=False)
        return tf.matmul(x, w) + b * inner


x = tf.ones([2, 4])
with tf.variable_scope("model"):
    y = encoder(x, UNITS)
"""
    after = """
import tensorflow as tf

UNITS = 3


def encoder(x, units, scale=0.1):
    inner = 4
    w = enc_w
    b = enc_b
    return tf.matmul(x, w) + b * inner


x = tf.ones([2, 4])
enc_w = tf.Variable(tf.random.normal([4, UNITS], stddev=0.1, dtype=tf.float32), name="model/enc/w")
enc_b = tf.Variable(tf.zeros([UNITS], dtype=tf.float32), name="model/enc/b", trainable=False)
with tf.variable_scope("model"):
    y = encoder(x, UNITS)
"""
    result = assert_rewrites("TFM107", before, after)
    assert [f.message for f in result.fixes] == [
        "tf.get_variable in `encoder`, under its variable scope -> tf.Variable made once, where TF1 first created it, "
        "and read by the function"
    ]


def test_scoped_variables_shared_through_auto_reuse_are_made_once():
    before = """
import tensorflow as tf


def head(x):
    with tf.variable_scope("head", reuse=tf.AUTO_REUSE):
        k = tf.get_variable("k", [2, 1])
        return tf.matmul(x, k)


first = head(tf.ones([1, 2]))
second = head(tf.zeros([1, 2]))
"""
    after = """
import tensorflow as tf


def head(x):
    k = head_k
    return tf.matmul(x, k)


head_k = tf.Variable(tf.random.uniform([2, 1], -1.4142135623730951, 1.4142135623730951, dtype=tf.float32), name="head/k")
first = head(tf.ones([1, 2]))
second = head(tf.zeros([1, 2]))
"""
    assert_rewrites("TFM107", before, after)


@pytest.mark.parametrize(
    "source, reason",
    [
        pytest.param(
            "def net(x):\n    with tf.variable_scope('n'):\n        w = tf.get_variable('w', [2, 2])\n"
            "        return tf.matmul(x, w)\n\n\na = net(p)\nb = net(q)\n",
            "calls 2 times without sharing",
            id="called-twice-without-reuse",
        ),
        pytest.param(
            "def net(x):\n    with tf.variable_scope('n'):\n        w = tf.get_variable('w', [2, 2])\n"
            "        return tf.layers.dense(tf.matmul(x, w), 2)\n\n\na = net(p)\n",
            "both with tf.get_variable and with tf.layers",
            id="mixed-with-layers",
        ),
        pytest.param(
            "def net(x, name):\n    with tf.variable_scope('n'):\n        w = tf.get_variable(name, [2, 2])\n"
            "        return tf.matmul(x, w)\n\n\na = net(p, 'w')\n",
            "not a string literal",
            id="name-not-a-literal",
        ),
        pytest.param(
            "def net(x):\n    with tf.variable_scope('n'):\n        return tf.matmul(x, tf.get_variable('w', [2, 2]))\n"
            "\n\na = net(p)\n",
            "on a line of its own",
            id="not-bound-on-its-own-line",
        ),
        pytest.param(
            "def net(x):\n    with tf.variable_scope('n'):\n        w = tf.get_variable('w', [x.get_shape()[1], 2])\n"
            "        return tf.matmul(x, w)\n\n\na = net(p)\n",
            "is computed in `net`",
            id="shape-from-the-input",
        ),
        pytest.param(
            "def net(x):\n    with tf.variable_scope('n'):\n        w = tf.get_variable('w', [2, 2])\n"
            "        return tf.matmul(x, w)\n\n\ndef main():\n    return net(p)\n",
            "not called from the program's top-level code only",
            id="called-in-a-function",
        ),
        pytest.param(
            "def net(x, reuse=False):\n    if reuse:\n        tf.get_variable_scope().reuse_variables()\n"
            "    with tf.variable_scope('n'):\n        w = tf.get_variable('w', [2, 2])\n"
            "        return tf.matmul(x, w)\n\n\na = net(p)\nb = net(q, reuse=True)\n",
            "calls 2 times without sharing",
            id="reuse-switch-outside-any-scope",
        ),
        pytest.param(
            "def net(x):\n    with tf.variable_scope('n'):\n        w = tf.get_variable('w', [2, 2])\n"
            "        return tf.matmul(x, w)\n\n\nwith tf.variable_scope(prefix):\n    a = net(p)\n",
            "not named by a literal",
            id="called-under-a-computed-scope",
        ),
        pytest.param(
            "def net(x):\n    with tf.variable_scope('n'):\n        w = tf.get_variable('w', [2, 2], regularizer=r)\n"
            "        return tf.matmul(x, w)\n\n\na = net(p)\n",
            "`regularizer`",
            id="regularizer",
        ),
        # Called several times without sharing: a class of this file, when each call names its variables apart.
        pytest.param(
            "def net(x, name):\n    with tf.variable_scope(name):\n        w = tf.get_variable('w', [2, 2])\n"
            "        return tf.matmul(x, w)\n\n\na = net(p, 'a')\nb = net(q, tag)\n",
            "that each call named its variables apart is not read here",
            id="apart-by-a-name-not-written-out",
        ),
        pytest.param(
            "def net(x, name):\n    with tf.variable_scope(name):\n        w = tf.get_variable('w', [2, 2])\n"
            "        tf.summary.histogram('w', w)\n        return tf.matmul(x, w)\n\n\na = net(p, 'a')\nb = net(q, 'b')\n",
            "summarizes its variables",
            id="apart-but-summarizing",
        ),
        pytest.param(
            "def net(x, name):\n    with tf.variable_scope(name):\n        w = tf.get_variable('w', [2, 2])\n"
            "        return tf.matmul(x, w)\n\n\na = net(p, 'a')\nfor n in 'bc':\n    b = net(q, n)\n",
            "a `with` block other than a variable or name scope given a name",
            id="apart-but-called-in-a-loop",
        ),
        pytest.param(
            "def net(x, name):\n    with tf.variable_scope(name):\n        w = tf.get_variable('w', [x.get_shape()[1], 2])\n"
            "        return tf.matmul(x, w)\n\n\na = net(p, 'a')\nb = net(q, 'b')\n",
            "shape is not written out",
            id="apart-sized-by-an-input-read-in-place",
        ),
        pytest.param(
            "def net(x, tag):\n    with tf.variable_scope(tag):\n        width = x.get_shape()[1]\n"
            "        w = tf.get_variable('w', [width, 2], initializer=tf.zeros_initializer())\n"
            "        return tf.matmul(x, w)\n\n\n"
            "a = net(p, 'a')\ns = tf.Variable(tf.random_normal([]))\nb = net(q, 'b')\n",
            "the file makes variables elsewhere too (`tf.Variable`)",
            id="apart-input-width-unknown-beside-a-variable",
        ),
        pytest.param(
            "def net(x, name, scope_name=None):\n    with tf.variable_scope(name):\n        width = x.get_shape()[1]\n"
            "        w = tf.get_variable('w', [width, 2], initializer=tf.zeros_initializer())\n"
            "        return tf.matmul(x, w)\n\n\n"
            "a = net(p, 'a')\nb = net(q, 'b')\n",
            "`name`, a parameter `net` would keep on its object, is an attribute",
            id="apart-input-width-unknown-scope-parameter-named-name-and-scope_name-taken",
        ),
        # Batch normalisations always in training mode: what is not read is declined.
        *(
            pytest.param(
                "def net(x):\n    with tf.variable_scope('n'):\n        w = tf.get_variable('w', [2, 3])\n"
                f"        h = tf.matmul(x, w)\n        return {norm}\n\n\na = net(p)\n{after}",
                reason,
                id=name,
            )
            for name, norm, after, reason in [
                ("norm-in-inference-mode", "tf.layers.batch_normalization(h)", "", "not always in training mode"),
                (
                    "norm-switched-by-a-placeholder",
                    "tf.contrib.layers.batch_norm(h, is_training=t)",
                    "",
                    "not always in training mode",
                ),
                (
                    "norm-statistics-saved",
                    "tf.contrib.layers.batch_norm(h)",
                    "saver = tf.train.Saver()\n",
                    "the file reads `tf.train.Saver`",
                ),
                (
                    "norm-update-ops-read",
                    "tf.contrib.layers.batch_norm(h)",
                    "u = tf.get_collection(tf.GraphKeys.UPDATE_OPS)\n",
                    "the file reads `tf.GraphKeys.UPDATE_OPS`",
                ),
                (
                    "norm-initializers",
                    "tf.contrib.layers.batch_norm(h, param_initializers={'beta': i})",
                    "",
                    "passes `param_initializers`",
                ),
                (
                    "norm-activation",
                    "tf.contrib.layers.batch_norm(h, activation_fn=tf.nn.relu)",
                    "",
                    "passes `activation_fn`",
                ),
                ("norm-input-computed", "tf.contrib.layers.batch_norm(h * 2.0)", "", "bind it to a name first"),
                ("norm-channels-unknown", "tf.contrib.layers.batch_norm(x)", "", "number of channels of `x`"),
                ("norm-epsilon-computed", "tf.contrib.layers.batch_norm(h, epsilon=e)", "", "not a number written out"),
            ]
        ),
        pytest.param(
            "def net(x):\n    with tf.variable_scope('n'):\n        w = tf.get_variable('w', [2, 3], tf.float64)\n"
            "        h = tf.matmul(x, w)\n        return tf.contrib.layers.batch_norm(h)\n\n\na = net(p)\n",
            "not float32",
            id="norm-of-float64-weights",
        ),
    ],
)
def test_scoped_variables_decline(source, reason):
    result = assert_unchanged("TFM107", "import tensorflow as tf\n\n\n" + source)
    assert any(reason in f.message for f in result.findings), [f.message for f in result.findings]


def test_a_network_of_the_program_called_twice_apart_becomes_a_class_with_an_object_per_call():
    before = """
import tensorflow as tf


def dense(x, width, name):
    with tf.variable_scope(name):
        in_dim = x.get_shape()[1]
        w = tf.get_variable("w", [in_dim, width], initializer=tf.zeros_initializer())
        return tf.matmul(x, w)


x = tf.placeholder(tf.float32, [None, 3])
a = dense(x, 2, "first")
b = dense(a, 4, name="second")
"""
    after = """
import tensorflow as tf


class Dense(tf.Module):
    def __init__(self, in_dim, width, name):
        super().__init__()
        self.w = tf.Variable(
            tf.zeros([in_dim, width], dtype=tf.float32), name=f"{name}/w"
        )

    def __call__(self, x):
        w = self.w
        return tf.matmul(x, w)


x = tf.placeholder(tf.float32, [None, 3])
first_dense = Dense(3, 2, "first")
a = first_dense(x)
second_dense = Dense(2, 4, name="second")
b = second_dense(a)
"""
    assert_rewrites("TFM107", before, after)


def test_a_network_of_the_program_sized_by_its_input_and_called_once_becomes_a_class():
    before = """
import tensorflow as tf


def dense(x, width):
    with tf.variable_scope("layer"):
        in_dim = int(x.get_shape()[1])
        w = tf.get_variable("w", [in_dim, width], initializer=tf.zeros_initializer())
        return tf.matmul(x, w)


x = tf.placeholder(tf.float32, [None, 3])
a = dense(x, 2)
"""
    after = """
import tensorflow as tf


class Dense(tf.Module):
    def __init__(self, in_dim, width):
        super().__init__()
        self.w = tf.Variable(
            tf.zeros([in_dim, width], dtype=tf.float32), name="layer/w"
        )

    def __call__(self, x):
        w = self.w
        return tf.matmul(x, w)


x = tf.placeholder(tf.float32, [None, 3])
dense = Dense(3, 2)
a = dense(x)
"""
    assert_rewrites("TFM107", before, after)


def test_a_network_named_by_a_name_parameter_sized_by_a_reshape_keeps_the_name_as_scope_name():
    before = """
import tensorflow as tf


def dense(x, width, name):
    with tf.variable_scope(name):
        in_dim = x.get_shape()[1]
        w = tf.get_variable("w", [in_dim, width], initializer=tf.zeros_initializer())
        return tf.matmul(x, w)


x = tf.placeholder(tf.float32, [None, 2, 3])
flat = tf.reshape(x, [-1, 6])
a = dense(flat, 2, "first")
"""
    after = """
import tensorflow as tf


class Dense(tf.Module):
    def __init__(self, width, name):
        super().__init__()
        self.width = width
        self.scope_name = name
        self.w = None

    def build(self, x):
        in_dim = x.shape[1]
        self.w = tf.Variable(
            tf.zeros([in_dim, self.width], dtype=tf.float32),
            name=f"{self.scope_name}/w",
        )

    def __call__(self, x):
        if self.w is None:
            self.build(x)
        w = self.w
        return tf.matmul(x, w)


x = tf.placeholder(tf.float32, [None, 2, 3])
flat = tf.reshape(x, [-1, 6])
dense = Dense(2, "first")
a = dense(flat)
"""
    assert_rewrites("TFM107", before, after)


def test_scoped_variables_of_two_networks_first_called_in_one_statement_decline_the_second():
    source = """
import tensorflow as tf


def inner(x):
    with tf.variable_scope("i"):
        w = tf.get_variable("w", [2, 2])
        return tf.matmul(x, w)


def outer(x):
    with tf.variable_scope("o"):
        v = tf.get_variable("v", [2, 2])
        return tf.matmul(x, v)


y = outer(inner(tf.ones([1, 2])))
"""
    result = rewrite("TFM107", source)
    assert "i_w = " in result.code and "o_v = " not in result.code
    assert any("first called in the statement that first calls `inner`" in f.message for f in result.findings)


UNIT = """import tensorflow as tf


def head(x):
    with tf.variable_scope("head"):
        k = tf.get_variable("k", [2, 1], initializer=tf.zeros_initializer())
        return tf.matmul(x, k)


def main():
    x = tf.ones([1, 2])
    return head(x)


"""


def test_scoped_variables_of_a_network_called_by_a_guarded_main_are_made_before_main():
    after = """import tensorflow as tf


def head(x):
    k = head_k
    return tf.matmul(x, k)


head_k = tf.Variable(tf.zeros([2, 1], dtype=tf.float32), name="head/k")


def main():
    x = tf.ones([1, 2])
    return head(x)


if __name__ == "__main__":
    main()
"""
    assert_rewrites("TFM107", UNIT + 'if __name__ == "__main__":\n    main()\n', after)


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        pytest.param(
            UNIT.replace("x = tf.ones([1, 2])", "x = tf.random_normal([1, 2])") + "main()\n",
            "random values or variables are made (`tf.random_normal`)",
            id="unit-draws-first",
        ),
        pytest.param(
            UNIT + "noise = tf.random_uniform([2])\nmain()\n",
            "random values or variables are made (`tf.random_uniform`)",
            id="drawn-between-definition-and-call",
        ),
        pytest.param(
            UNIT.replace("    return head(x)\n", "    for _ in range(2):\n        y = head(x)\n    return y\n")
            + "main()\n",
            "not called from the program's top-level code only",
            id="called-in-a-loop-of-the-unit",
        ),
        pytest.param(
            UNIT + "main()\nmain()\n", "not called from the program's top-level code only", id="unit-called-twice"
        ),
        pytest.param(
            UNIT.replace("    return head(x)\n", "    if x is not None:\n        return head(x)\n") + "main()\n",
            "not called from the program's top-level code only",
            id="called-in-a-condition-of-the-unit",
        ),
        pytest.param(
            UNIT.replace("    return head(x)\n", "    return [head(v) for v in [x]]\n") + "main()\n",
            "not called from the program's top-level code only",
            id="called-in-a-comprehension-of-the-unit",
        ),
        pytest.param(
            UNIT.replace("def main():\n    x = tf.ones([1, 2])\n    return head(x)\n", "")
            + "if ready:\n    y = head(tf.ones([1, 2]))\n",
            "first called inside a loop, a condition or a `try`",
            id="first-called-in-a-top-level-condition",
        ),
    ],
)
def test_scoped_variables_of_a_network_called_by_a_unit_decline(source, reason):
    result = assert_unchanged("TFM107", source)
    assert any(reason in f.message for f in result.findings), [f.message for f in result.findings]


def test_an_initializer_a_network_binds_once_moves_into_its_variables():
    before = """
import tensorflow as tf


def dense(x):
    with tf.variable_scope("dense"):
        start = tf.truncated_normal_initializer(stddev=0.01)
        w = tf.get_variable("w", [3, 2], initializer=start)
        v = tf.get_variable("v", [2, 2], initializer=start)
        return tf.matmul(tf.matmul(x, w), v)


y = dense(tf.ones([1, 3]))
"""
    after = """
import tensorflow as tf


def dense(x):
    w = dense_w
    v = dense_v
    return tf.matmul(tf.matmul(x, w), v)


dense_w = tf.Variable(tf.random.truncated_normal([3, 2], stddev=0.01, dtype=tf.float32), name="dense/w")
dense_v = tf.Variable(tf.random.truncated_normal([2, 2], stddev=0.01, dtype=tf.float32), name="dense/v")
y = dense(tf.ones([1, 3]))
"""
    assert_rewrites("TFM107", before, after)


TUPLE_CONSTANTS = """
import tensorflow as tf


def encoder(x):
    with tf.variable_scope("enc"):
        rows, cols = 4, 3
        w = tf.get_variable("w", [rows, cols], initializer=tf.zeros_initializer())
        return tf.matmul(x, w)READ


y = encoder(tf.ones([2, 4]))
"""


@pytest.mark.parametrize(
    ("read", "kept"),
    [
        pytest.param("", False, id="read-by-the-shape-only"),
        pytest.param(" * cols", True, id="one-name-read-elsewhere"),
    ],
)
def test_constants_bound_together_are_substituted_and_their_line_goes_when_nothing_else_reads_them(read, kept):
    new = rewrite("TFM107", TUPLE_CONSTANTS.replace("READ", read)).code
    assert 'enc_w = tf.Variable(tf.zeros([4, 3], dtype=tf.float32), name="enc/w")' in new, new
    assert ("rows, cols = 4, 3" in new) is kept


@pytest.mark.parametrize(
    ("body", "channels", "rank"),
    [
        (
            "w = tf.get_variable('w', [3, 3, 1, K])\n    c = tf.get_variable('c', [K])\n"
            "    y = tf.nn.conv2d(x, w, [1, 1, 1, 1], 'SAME') + c",
            8,
            4,
        ),
        # A bias of a shape not known may broadcast the result to anything.
        ("w = tf.get_variable('w', [3, 3, 1, K])\n    y = tf.nn.conv2d(x, w, [1, 1, 1, 1], 'SAME') + b", None, None),
        (
            "w = tf.get_variable('w', [3, 3, K, 16])\n    y = tf.nn.conv2d_transpose(x, w, [n, 14, 14, K], [1, 2, 2, 1])",
            8,
            4,
        ),
        ("w = tf.get_variable('w', [4, K * 2])\n    y = tf.nn.relu(tf.matmul(x, w))", 16, None),
        ("y = tf.reshape(x, [-1, 7, 7, K])", 8, 4),
        ("w = tf.get_variable('w', [3, 3, 1, K])\n    y = helper(x, w)", 8, 4),
        ("w = tf.get_variable('w', [3, 3, 1, K])\n    y = helper(x, w, name='h')", 8, 4),
        (
            "w = tf.get_variable('w', [3, 3, 1, K])\n    y = tf.nn.conv2d(x, w, [1, 1, 1, 1], 'SAME', data_format='NCHW')",
            None,
            None,
        ),
        ("y = tf.nn.relu(x)", None, None),
    ],
)
def test_static_shapes_read_the_channels_a_network_function_computes(body, channels, rank):
    import libcst as cst

    from tfmodernize.codemods.migrate.layers_to_keras.static_shapes import StaticShapes
    from tfmodernize.tfsymbols import TFNames

    code = (
        "import tensorflow as tf\n\n\ndef helper(x, w, name=None):\n    with tf.name_scope('h'):\n"
        "        return tf.maximum(tf.nn.conv2d(x, w, [1, 1, 1, 1], 'SAME'), 0.0)\n\n\n"
        f"def net(x, b, n):\n    K = 8\n    {body}\n    return y\n"
    )
    module = cst.parse_module(code)
    names = TFNames.for_module(module)
    function = module.body[-1]
    variables = {}
    for node in function.body.body:
        small = node.body[0] if isinstance(node, cst.SimpleStatementLine) else None
        if (
            isinstance(small, cst.Assign)
            and isinstance(small.value, cst.Call)
            and len(small.value.args) > 1
            and cst.Module([]).code_for_node(small.value.func) == "tf.get_variable"
        ):
            variables[small.targets[0].target.value] = small.value.args[1].value
    shapes = StaticShapes(module, names, variables)
    assert shapes.channels(function, cst.Name("y")) == (channels, rank)


def test_layers_given_initializers_or_no_kernel_get_no_written_initializer():
    before = """
import tensorflow as tf

h = tf.layers.dense(x, 4, kernel_initializer=tf.zeros_initializer())
p = tf.layers.max_pooling2d(images, 2, 2)
"""
    after = """
import tensorflow as tf

dense = tf.keras.layers.Dense(4, kernel_initializer=tf.zeros_initializer())
h = dense(x)
max_pooling2d = tf.keras.layers.MaxPooling2D(pool_size=2, strides=2)
p = max_pooling2d(images)
"""
    assert_rewrites("TFM107", before, after)


def test_the_written_initializer_takes_a_name_the_file_leaves_free():
    before = """
import tensorflow as tf

glorot_uniform = "the file's own"
h = tf.layers.dense(x, 4, kernel_initializer=None)
"""
    new = rewrite("TFM107", before).code
    assert "def glorot_uniform_2(shape, dtype=tf.float32):" in new
    assert "dense = tf.keras.layers.Dense(4, kernel_initializer=glorot_uniform_2)" in new
    assert 'glorot_uniform = "the file\'s own"' in new


# -- across a project --------------------------------------------------------------------------

RNN_MODULE = """\
import tensorflow as tf


def recurrent_scores(sequences, units):
    cell = tf.nn.rnn_cell.BasicRNNCell(units)
    outputs, _ = tf.nn.dynamic_rnn(cell, sequences, dtype=tf.float32)
    return tf.layers.dense(outputs[:, -1], 1)
"""

RNN_MAIN = """\
import numpy as np
import tensorflow as tf
from nets import recurrent_scores

sequences = tf.placeholder(tf.float32, [None, 3, 2])
scores = recurrent_scores(sequences, 4)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    print(sess.run(scores, {sequences: np.ones([1, 3, 2])}))
"""


def _recurrent_project(tmp_path, module: str, unsafe_fixes: bool) -> dict:
    (tmp_path / "nets.py").write_text(module, encoding="utf-8")
    (tmp_path / "main.py").write_text(RNN_MAIN, encoding="utf-8")
    paths = [tmp_path / "main.py", tmp_path / "nets.py"]
    outcomes = run([Discovered(p) for p in paths], Settings(jobs=1, unsafe_fixes=unsafe_fixes))
    return {o.path.name: o for o in outcomes}


def test_a_recurrent_network_function_other_files_call_is_an_unsafe_fix(tmp_path):
    # Its class starts from the TF1 cell's weights, but Keras's cell rounds its sums otherwise.
    found = _recurrent_project(tmp_path, RNN_MODULE, unsafe_fixes=False)
    assert "def recurrent_scores(sequences, units):" in found["nets.py"].new
    assert "tf.keras.layers" not in found["nets.py"].new
    refused = [f.message for f in found["nets.py"].findings if f.code == "TFM107"]
    assert any("the same numbers to rounding" in m and "(unsafe fix: " in m for m in refused)
    assert found["main.py"].kept_on_v1 and found["nets.py"].kept_on_v1


def test_a_recurrent_network_class_draws_the_tf1_cell_kernel_as_one_file_does(tmp_path):
    found = _recurrent_project(tmp_path, RNN_MODULE, unsafe_fixes=True)
    nets = found["nets.py"].new
    assert "class RecurrentScores(tf.keras.layers.Layer):" in nets
    assert "self.simple_rnn_kernel = CellKernel()" in nets
    assert "kernel_initializer=self.simple_rnn_kernel.inputs" in nets
    assert "recurrent_initializer=self.simple_rnn_kernel.state" in nets
    assert "def build(self, input_shape):" in nets
    assert not found["main.py"].kept_on_v1 and not found["nets.py"].kept_on_v1


def test_a_gru_network_function_other_files_call_stays_on_tf1_with_them(tmp_path):
    # A GRU's Keras layer class would start from Keras's initial weights, not the TF1 cell's.
    module = RNN_MODULE.replace("BasicRNNCell", "GRUCell")
    found = _recurrent_project(tmp_path, module, unsafe_fixes=True)
    assert "def recurrent_scores(sequences, units):" in found["nets.py"].new
    refused = [f.message for f in found["nets.py"].findings if f.code == "TFM107"]
    assert any("starts from Keras's initial weights" in m for m in refused)
    assert found["main.py"].kept_on_v1 and found["nets.py"].kept_on_v1
