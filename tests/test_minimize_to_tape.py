"""TFM102 minimize-to-tape: golden, finding and no-op tables; the optimizer table."""

import json
import re
import textwrap
from pathlib import Path

import pytest

from tfmodernize.analysis.optimizers import optimizer_table
from tfmodernize.testing import assert_rewrites, assert_unchanged, rewrite

HEAD = """\
import tensorflow as tf

W = tf.Variable(tf.zeros([3, 1]), name="W")
b = tf.Variable(tf.zeros([1]), name="b")
"""

STEP = (
    HEAD
    + """\
opt = {optimizer}


@tf.function
def train_step(x, y):
    cost = tf.reduce_mean(tf.square(tf.matmul(x, W) + b - y))
    train_op = opt.minimize(cost{arguments})
    return cost
"""
)

TAPED = (
    HEAD
    + """\
opt = {optimizer}


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        cost = tf.reduce_mean(tf.square(tf.matmul(x, W) + b - y))
    gradients = tape.gradient(cost, {variables})
    opt.apply_gradients(zip(gradients, {variables}))
{extra}    return cost
"""
)


#: TF1's Adam betas as TF1 read them (float32): Keras then computes TF1's ``1 - beta``.
TF1_BETAS = "beta_1=0.8999999761581421, beta_2=0.9990000128746033"


def without_fused(code: str) -> str:
    """``code`` without the classes minimize-to-tape writes for Adam and RMSProp (``fused``)."""
    # PEP 8's two blank lines stay before a definition, one before other code.
    code = re.sub(r"\n\n\nclass Fused\w+\((?:(?!\n\n\n).)*\n\n\n(?=def |class |@)", "\n\n\n", code, flags=re.DOTALL)
    return re.sub(r"\n\n\nclass Fused\w+\((?:(?!\n\n\n).)*\n\n\n(?=\S)", "\n\n", code, flags=re.DOTALL)


#: A row look-up: its gradient may be sparse, which TF1's RMSProp applied to those rows only,
#: so RMSProp stays Keras RMSprop in such a file.
LOOKUP = "rows = tf.gather(W, [0])\n"


def looking_rows_up(code: str) -> str:
    return code.replace(HEAD, HEAD + LOOKUP, 1)


# The tables train with ``GradientDescentOptimizer(FLAGS.rate)``: a learning rate that is not a
# constant keeps Keras SGD, the path most tests are about; gradient descent at a constant rate
# (each variable's ``assign_sub``, no optimizer) has its own tests at the end.


def step(optimizer, arguments=""):
    return STEP.format(optimizer=optimizer, arguments=arguments)


def taped(optimizer, variables="[W, b]", extra=""):
    return TAPED.format(optimizer=optimizer, variables=variables, extra=extra)


OPTIMIZERS = [
    pytest.param(
        "tf.train.GradientDescentOptimizer(FLAGS.rate)", "tf.keras.optimizers.SGD(learning_rate=FLAGS.rate)", id="sgd"
    ),
    pytest.param(
        "tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True)",
        "tf.keras.optimizers.SGD(learning_rate=0.1, momentum=0.9, nesterov=True)",
        id="momentum-nesterov",
    ),
    pytest.param("tf.train.AdamOptimizer()", "FusedAdam()", id="adam-defaults"),
    pytest.param(
        "tf.train.AdamOptimizer(0.01, beta1=0.8, epsilon=1e-4)",
        "FusedAdam(learning_rate=0.01, beta_1=0.8, epsilon=1e-4)",
        id="adam-given-epsilon",
    ),
    pytest.param(
        "tf.train.AdamOptimizer(2e-4, beta1=0.5, beta2=0.99)",
        "FusedAdam(learning_rate=2e-4, beta_1=0.5, beta_2=0.99)",
        id="adam-gan-betas-as-given",
    ),
    pytest.param(
        "tf.train.AdamOptimizer(lr, FLAGS.beta1)",
        "FusedAdam(learning_rate=lr, beta_1=FLAGS.beta1)",
        id="adam-beta-expression-kept",
    ),
    pytest.param(
        "tf.train.RMSPropOptimizer(0.01, 0.8, 0.5, 1e-6, centered=True, name='R')",
        "FusedRMSProp(learning_rate=0.01, rho=0.8, momentum=0.5, epsilon=1e-6, centered=True)",
        id="rmsprop-momentum-centered",
    ),
    pytest.param(
        "tf.train.AdagradOptimizer(0.3)", "tf.keras.optimizers.Adagrad(learning_rate=0.3, epsilon=0.0)", id="adagrad"
    ),
    pytest.param(
        "tf.train.AdadeltaOptimizer(rho=0.9)", "tf.keras.optimizers.Adadelta(rho=0.9, epsilon=1e-08)", id="adadelta"
    ),
    pytest.param(
        "tf.train.FtrlOptimizer(0.2, l1_regularization_strength=0.01, use_locking=True, name='F')",
        "tf.keras.optimizers.Ftrl(learning_rate=0.2, l1_regularization_strength=0.01, name='F')",
        id="ftrl",
    ),
    pytest.param(
        "tf.compat.v1.train.GradientDescentOptimizer(learning_rate=LR)",
        "tf.keras.optimizers.SGD(learning_rate=LR)",
        id="spelled-compat-v1",
    ),
]


def _unwrapped(code: str) -> str:
    """``code`` with the calls the rewrite wrapped to the file's width back on one line."""
    code = re.sub(r"\(\n\s+", "(", code)
    code = re.sub(r",?\n\s*\)", ")", code)
    return re.sub(r",\n\s+(?=\w+=)", ", ", code)


@pytest.mark.parametrize(("tf1", "keras"), OPTIMIZERS)
def test_optimizer_mapping(tf1, keras):
    """The table's mapping (the layout of a wide optimizer call is the fixtures' subject)."""
    result = rewrite("TFM102", step(tf1))
    # An optimizer keeping slots is built on its variables after the step (traced once then).
    stateless = "SGD(" in keras and "momentum" not in keras
    built = "" if stateless else "\n\nopt.build([W, b])\n"
    assert _unwrapped(without_fused(result.code)) == textwrap.dedent(taped(keras)) + built
    assert result.code.count("\nclass Fused") == ("Fused" in keras)
    assert rewrite("TFM102", result.code, dedent=False).code == result.code
    assert {f.code for f in result.fixes} == {"TFM102"} and result.findings == []


REWRITES = [
    pytest.param(
        step("tf.train.GradientDescentOptimizer(FLAGS.rate)", ", var_list=[W]"),
        taped("tf.keras.optimizers.SGD(learning_rate=FLAGS.rate)", "[W]"),
        id="explicit-var-list",
    ),
    pytest.param(
        step("tf.train.GradientDescentOptimizer(FLAGS.rate)", ", global_step=step_counter"),
        taped("tf.keras.optimizers.SGD(learning_rate=FLAGS.rate)", extra="    step_counter.assign_add(1)\n"),
        id="global-step",
    ),
    pytest.param(
        step("tf.train.GradientDescentOptimizer(FLAGS.rate)", ", var_list=model_variables()"),
        taped("tf.keras.optimizers.SGD(learning_rate=FLAGS.rate)", "variables").replace(
            "    gradients =", "    variables = model_variables()\n    gradients ="
        ),
        id="var-list-expression-bound-once",
    ),
    pytest.param(
        step(
            "tf.train.GradientDescentOptimizer(FLAGS.rate)",
            ", var_list=tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope='b')",
        ),
        taped("tf.keras.optimizers.SGD(learning_rate=FLAGS.rate)", "[b]"),
        id="var-list-collection-written-out",
    ),
    pytest.param(
        HEAD + "scale = tf.Variable(2.0, trainable=False)\n\n\ndef train_step(x, y):\n"
        '    """One step."""\n    # forward\n    cost = tf.reduce_mean(scale * tf.matmul(x, W) + b - y)\n'
        "    # update\n    optimizer = tf.train.GradientDescentOptimizer(FLAGS.rate).minimize(cost)  # SGD\n    return cost\n",
        HEAD
        + "scale = tf.Variable(2.0, trainable=False)\n\noptimizer = tf.keras.optimizers.SGD(learning_rate=FLAGS.rate)\n\n\n"
        'def train_step(x, y):\n    """One step."""\n    with tf.GradientTape() as tape:\n        # forward\n'
        "        cost = tf.reduce_mean(scale * tf.matmul(x, W) + b - y)\n    # update\n"
        "    gradients = tape.gradient(cost, [W, b])\n    optimizer.apply_gradients(zip(gradients, [W, b]))  # SGD\n"
        "    return cost\n",
        id="inline-optimizer-hoisted-eager-function-comments-docstring-non-trainable-excluded",
    ),
    pytest.param(
        HEAD + "opt = tf.train.MomentumOptimizer(0.1, 0.5)\n\n\ndef step(x):\n    cost = tf.reduce_sum(x * W) + b\n"
        "    grads, variables = zip(*opt.compute_gradients(cost))\n    grads, _ = tf.clip_by_global_norm(grads, 1.0)\n"
        "    opt.apply_gradients(zip(grads, variables), global_step=gs)\n",
        HEAD + "opt = tf.keras.optimizers.SGD(learning_rate=0.1, momentum=0.5)\n\n\ndef step(x):\n"
        "    with tf.GradientTape() as tape:\n        cost = tf.reduce_sum(x * W) + b\n"
        "    grads, variables = zip(*list(zip(tape.gradient(cost, [W, b]), [W, b])))\n"
        "    grads, _ = tf.clip_by_global_norm(grads, 1.0)\n    opt.apply_gradients(zip(grads, variables))\n"
        "    gs.assign_add(1)\n\n\nopt.build([W, b])\n",
        id="compute-clip-apply",
    ),
    pytest.param(
        "import tensorflow.compat.v1 as tf\nW = tf.get_variable('W', [2])\nopt = tf.train.MomentumOptimizer(0.1, 0.9)\n"
        "def step(x):\n    loss = tf.reduce_sum(W * x)\n    opt.minimize(loss)\n",
        "import tensorflow.compat.v1 as tf\nW = tf.get_variable('W', [2])\n"
        "opt = tf.compat.v2.keras.optimizers.SGD(learning_rate=0.1, momentum=0.9)\n"
        "def step(x):\n    with tf.compat.v2.GradientTape() as tape:\n        loss = tf.reduce_sum(W * x)\n"
        "    gradients = tape.gradient(loss, [W])\n    opt.apply_gradients(zip(gradients, [W]))\n"
        "\n\nopt.build([W])\n",
        id="compat-v1-import-get-variable",
    ),
    pytest.param(
        "import tensorflow as T\nW = T.Variable(1.0)\nopt = T.train.GradientDescentOptimizer(FLAGS.rate)\n"
        "def step(tape):\n    loss = W * W\n    opt.minimize(loss)\n",
        "import tensorflow as T\nW = T.Variable(1.0)\nopt = T.keras.optimizers.SGD(learning_rate=FLAGS.rate)\n"
        "def step(tape):\n    with T.GradientTape() as tape_2:\n        loss = W * W\n"
        "    gradients = tape_2.gradient(loss, [W])\n    opt.apply_gradients(zip(gradients, [W]))\n",
        id="alias-and-taken-name",
    ),
    pytest.param(
        HEAD
        + "opt = tf.train.GradientDescentOptimizer(FLAGS.rate)\nupdates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)\n"
        "def f(x):\n    c = tf.reduce_sum(x * W)\n    with tf.control_dependencies(updates):\n"
        "        train = opt.minimize(c)  # step\n    return c\n",
        HEAD
        + "opt = tf.keras.optimizers.SGD(learning_rate=FLAGS.rate)\nupdates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)\n"
        "def f(x):\n    with tf.GradientTape() as tape:\n        c = tf.reduce_sum(x * W)\n"
        "    gradients = tape.gradient(c, [W, b])\n    opt.apply_gradients(zip(gradients, [W, b]))  # step\n    return c\n",
        id="empty-update-ops-dependencies-dropped",
    ),
    pytest.param(
        HEAD + "opt = tf.train.GradientDescentOptimizer(FLAGS.rate)\ndef f(x):\n    c = tf.reduce_sum(x * W)\n"
        "    check = tf.debugging.assert_positive(c)\n    with tf.control_dependencies([check]):\n"
        "        opt.minimize(c)\n",
        HEAD
        + "opt = tf.keras.optimizers.SGD(learning_rate=FLAGS.rate)\ndef f(x):\n    with tf.GradientTape() as tape:\n"
        "        c = tf.reduce_sum(x * W)\n        check = tf.debugging.assert_positive(c)\n"
        "    with tf.control_dependencies([check]):\n        gradients = tape.gradient(c, [W, b])\n"
        "        opt.apply_gradients(zip(gradients, [W, b]))\n",
        id="other-dependencies-kept",
    ),
    pytest.param(
        "import tensorflow as tf\nmodel = tf.keras.Sequential([tf.keras.layers.Dense(1)])\n"
        "opt = tf.train.AdagradOptimizer(0.1)\ndef f(x):\n    c = tf.reduce_sum(model(x))\n    opt.minimize(c)\n",
        "import tensorflow as tf\nmodel = tf.keras.Sequential([tf.keras.layers.Dense(1)])\n"
        "opt = tf.keras.optimizers.Adagrad(learning_rate=0.1, epsilon=0.0)\ndef f(x):\n    with tf.GradientTape() as tape:\n"
        "        c = tf.reduce_sum(model(x))\n    gradients = tape.gradient(c, model.trainable_variables)\n"
        "    opt.apply_gradients(zip(gradients, model.trainable_variables))\n",
        id="keras-model-variables",
    ),
]


@pytest.mark.parametrize(("before", "after"), REWRITES)
def test_rewrites(before, after):
    result = assert_rewrites("TFM102", before, after)
    assert result.findings == []


FINDINGS = [
    pytest.param(
        looking_rows_up(step("tf.train.RMSPropOptimizer(0.01)", ", var_list=params")) + "\n\nparams = [W, b]\n",
        "accumulator at 1.0",
        id="rmsprop-slots-not-settable-variables-listed-later",
    ),
    pytest.param(step("tf.train.GradientDescentOptimizer(FLAGS.rate)", ", grad_loss=g"), "grad_loss", id="grad-loss"),
    pytest.param(
        HEAD + "penalty = 0.05 * tf.nn.l2_loss(W)\nopt = tf.train.GradientDescentOptimizer(FLAGS.rate)\n"
        "def f(x):\n    c = tf.reduce_sum(x * W) + penalty\n    opt.minimize(c)\n",
        "computed once at module level from variables",
        id="loss-uses-frozen-module-tensor",
    ),
    pytest.param(
        HEAD + "penalty = tf.add_n([tf.nn.l2_loss(v) for v in tf.trainable_variables()])\n"
        "opt = tf.train.GradientDescentOptimizer(FLAGS.rate)\n"
        "def f(x):\n    c = tf.reduce_sum(x * W) + penalty\n    opt.minimize(c)\n",
        "`penalty`, computed once",
        id="loss-uses-module-tensor-from-collection",
    ),
    pytest.param(
        HEAD
        + "from nets import make\nc = make()\nparams = tf.trainable_variables()\n"
        + step("tf.train.GradientDescentOptimizer(FLAGS.rate)", ", var_list=params")[len(HEAD) :],
        "reads the trainable-variables collection",
        id="var-list-name-of-unlistable-collection",
    ),
    pytest.param(
        step("tf.train.GradientDescentOptimizer(FLAGS.rate)", ", var_list=tf.trainable_variables('nothing')"),
        "var_list is empty",
        id="empty-var-list",
    ),
    pytest.param(
        step("tf.train.GradientDescentOptimizer(FLAGS.rate)", ", global_step=tf.train.get_or_create_global_step()"),
        "not a variable created once",
        id="global-step-created-in-step",
    ),
    pytest.param(
        HEAD + "opt = tf.train.GradientDescentOptimizer(FLAGS.rate)\n"
        "def f(x):\n    h = tf.layers.batch_normalization(x * W, training=True)\n    c = tf.reduce_sum(h)\n"
        "    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):\n"
        "        opt.minimize(c, var_list=[W])\n",
        "batch normalisation",
        id="batch-norm-update-ops",
    ),
    pytest.param(
        step("tf.train.GradientDescentOptimizer(FLAGS.rate)").replace("    return cost", "    return train_op"),
        "`train_op` (a TF1 op) is used after it",
        id="op-used-later",
    ),
    pytest.param(
        step("tf.train.GradientDescentOptimizer(FLAGS.rate)") + "slot = opt.get_slot(W, 'm')\n",
        "`opt` is used here",
        id="optimizer-used-elsewhere",
    ),
    pytest.param(
        HEAD
        + "opt = tf.train.GradientDescentOptimizer(FLAGS.rate)\ncost = tf.reduce_sum(W)\ntrain_op = opt.minimize(cost)\n",
        "`opt` is used here",
        id="module-level-graph-code",
    ),
    pytest.param(
        HEAD
        + "h = tf.layers.dense(W, 3)\ntf.add_to_collection(tf.GraphKeys.TRAINABLE_VARIABLES, h)\n"
        + step("tf.train.GradientDescentOptimizer(FLAGS.rate)")[len(HEAD) :],
        "which `tf.add_to_collection` changes",
        id="trainable-collection-edited-implicit-var-list",
    ),
    pytest.param(
        HEAD
        + "h = tf.get_variable('h', [3], collections=['mine'])\nk = tf.layers.dense(W, 3)\n"
        + step("tf.train.GradientDescentOptimizer(FLAGS.rate)")[len(HEAD) :],
        "which `tf.get_variable` changes",
        id="variable-with-collections-implicit-var-list",
    ),
    pytest.param(
        HEAD
        + "h = tf.layers.dense(W, 3)\nopt = tf.train.GradientDescentOptimizer(FLAGS.rate)\n"
        + "@tf.function\ndef f(x):\n    c = tf.reduce_sum(W * x)\n    pairs = opt.compute_gradients(c)\n"
        + "    opt.apply_gradients(pairs)\n",
        "cannot be listed",
        id="compute-gradients-variables-not-listable",
    ),
    pytest.param(
        "import tensorflow as tf\n\ndef fit(rate):\n    w = tf.Variable(1.0)\n\n    @tf.function\n"
        "    def step(x):\n        c = w * x\n        tf.train.AdamOptimizer(rate).minimize(c)\n\n"
        "    rate = rate * 2\n    return step\n",
        "`fit` binds again after `step` is defined",
        id="optimizer-of-a-nested-step-reads-a-name-bound-after-it",
    ),
    pytest.param(
        HEAD + "opt = tf.train.GradientDescentOptimizer(FLAGS.rate)\ndef f(x):\n    opt.minimize(W * x)\n",
        "the loss is not a name computed earlier",
        id="loss-expression",
    ),
    pytest.param(
        HEAD + "def f(x, m):\n    c = W * x\n    o = tf.train.MomentumOptimizer(0.1, momentum=m).minimize(c)\n",
        "other than as its learning rate",
        id="inline-optimizer-uses-argument",
    ),
    pytest.param(
        HEAD + "def f(x):\n    c = W * x\n    lr = x * 2\n    o = tf.train.GradientDescentOptimizer(lr).minimize(c)\n",
        "only exists inside the function",
        id="inline-optimizer-uses-a-local",
    ),
    pytest.param(
        HEAD + "opt = tf.train.GradientDescentOptimizer(FLAGS.rate)\ndef f(x):\n    c = W * x\n    d = b * x\n"
        "    opt.minimize(c)\n    opt.minimize(d)\n",
        "two losses",
        id="two-losses-one-function",
    ),
    pytest.param(
        HEAD + "g_opt = tf.train.GradientDescentOptimizer(FLAGS.rate)\nd_opt = tf.train.AdamOptimizer(0.1)\n"
        "@tf.function\ndef f(x):\n    c = W * x\n    d = b * x\n"
        "    g_opt.minimize(c, var_list=[W])\n    d_opt.minimize(d, var_list=[b])\n",
        "two losses",
        id="two-optimizers-one-function",
    ),
    pytest.param(
        step("tf.train.AdamOptimizer(0.1, 0.9, 0.99, 1e-8, False, 'A', False, 3)"),
        "more positional arguments",
        id="too-many-arguments",
    ),
]


@pytest.mark.parametrize(("source", "fragment"), FINDINGS)
def test_findings(source, fragment):
    result = assert_unchanged("TFM102", source)
    assert result.findings and {f.code for f in result.findings} == {"TFM102"}
    assert all(fragment in f.message for f in result.findings)


def test_rmsprop_becomes_tf1s_fused_update_written_in_the_file():
    result = rewrite("TFM102", step("tf.train.RMSPropOptimizer(0.01, decay=0.8)"))
    expected = taped("FusedRMSProp(learning_rate=0.01, rho=0.8)") + "\n\nopt.build([W, b])\n"
    assert without_fused(result.code) == expected
    assert result.code.count("\nclass FusedRMSProp(tf.Module):\n") == 1
    assert "tf.raw_ops.ResourceApplyRMSProp(**arguments)" in result.code
    assert result.findings == [] and rewrite("TFM102", result.code, dedent=False).code == result.code


def test_rmsprop_in_a_file_looking_rows_up_stays_keras_with_accumulators_at_one():
    result = rewrite("TFM102", looking_rows_up(step("tf.train.RMSPropOptimizer(0.01, decay=0.8)")))
    keras = "tf.keras.optimizers.RMSprop(learning_rate=0.01, rho=0.8, epsilon=1e-10)"
    assert result.code == looking_rows_up(taped(keras)) + (
        "\n\n"
        "opt.build([W, b])\n"
        "# TF1's RMSPropOptimizer started these slots at 1.0; Keras starts them at 0.\n"
        "for slot in opt.variables:\n"
        '    if slot.name.endswith("_velocity"):\n'
        "        slot.assign(tf.ones_like(slot))\n"
    )


def test_rmsprop_with_variables_not_listable_is_a_safe_fused_fix():
    # The class makes its accumulators at 1.0 on the first update: nothing to set afterwards.
    source = step("tf.train.RMSPropOptimizer(0.01)", ", var_list=params") + "\n\nparams = [W, b]\n"
    result = rewrite("TFM102", source)
    assert "opt = FusedRMSProp(learning_rate=0.01)\n" in result.code
    assert ".build(" not in without_fused(result.code)


def test_rmsprop_with_variables_not_listable_is_an_unsafe_fix_when_rows_are_looked_up():
    source = step("tf.train.RMSPropOptimizer(0.01)", ", var_list=params") + "\n\nparams = [W, b]\n"
    result = rewrite("TFM102", looking_rows_up(source), unsafe_fixes=True)
    assert "tf.keras.optimizers.RMSprop(learning_rate=0.01, epsilon=1e-10)" in result.code
    assert ".build(" not in result.code


def test_rmsprop_over_keras_layers_is_an_unsafe_fix_when_rows_are_looked_up():
    # The layers make their variables on their first call, inside the step: the optimizer
    # cannot be built on them before it to start its slots at TF1's 1.0.
    source = (
        "import tensorflow as tf\nlayer = tf.keras.layers.Dense(1)\nrows = tf.gather(tf.ones([2]), [0])\n"
        "opt = tf.train.RMSPropOptimizer(0.01)\ndef f(x):\n    c = tf.reduce_sum(layer(x))\n    opt.minimize(c)\n"
    )
    assert not rewrite("TFM102", source).fixes
    result = rewrite("TFM102", source, unsafe_fixes=True)
    assert "tf.keras.optimizers.RMSprop(learning_rate=0.01, epsilon=1e-10)" in result.code
    assert ".build(" not in result.code
    fused = rewrite("TFM102", source.replace("rows = tf.gather(tf.ones([2]), [0])\n", ""))
    assert fused.fixes and "opt = FusedRMSProp(learning_rate=0.01)\n" in fused.code


MODULE_STEP = """\
import tensorflow as tf


class Net(tf.Module):
    def __init__(self):
        super().__init__()
{init}
    def __call__(self, x):
{call}        return tf.matmul(x, self.w)


net = Net()
opt = tf.train.RMSPropOptimizer(0.01)


@tf.function
def train_step(x):
    cost = tf.reduce_sum(net(x))
    train_op = opt.minimize(cost)
    return cost
"""

MADE_IN_INIT = "        self.w = tf.Variable(tf.ones([2, 1]))\n"
MADE_IN_CALL = "        if not hasattr(self, 'w'):\n            self.w = tf.Variable(tf.ones([2, 1]))\n"


def test_rmsprop_over_a_module_made_before_the_step_starts_its_accumulators():
    # A tf.Module making its variables in __init__ has them once its line ran: the optimizer is
    # built on them after the step, and TF1's 1.0 start written, as for plain variables.
    source = MODULE_STEP.format(init=MADE_IN_INIT, call="").replace("net = Net()\n", "net = Net()\n" + LOOKUP)
    result = rewrite("TFM102", source)
    assert "opt.build(net.trainable_variables)\n" in result.code
    assert 'if slot.name.endswith("_velocity"):\n' in result.code


def test_rmsprop_over_a_module_making_variables_when_called_is_an_unsafe_fix():
    # Its variables are made on its first call, inside the step: none to build on before it.
    source = MODULE_STEP.format(init="        pass\n", call=MADE_IN_CALL).replace(
        "net = Net()\n", "net = Net()\n" + LOOKUP
    )
    assert not rewrite("TFM102", source).fixes
    result = rewrite("TFM102", source, unsafe_fixes=True)
    assert "tf.keras.optimizers.RMSprop(learning_rate=0.01, epsilon=1e-10)" in result.code
    assert ".build(" not in result.code


def test_variables_not_listable_are_the_ones_the_tape_watched():
    # ``tf.layers.dense`` makes variables no inventory lists: TF1 trained the whole trainable
    # collection, the loss reads [W, b], and the tape watches exactly the ones it read.
    source = HEAD + "h = tf.layers.dense(W, 3)\n" + step("tf.train.GradientDescentOptimizer(FLAGS.rate)")[len(HEAD) :]
    result = rewrite("TFM102", source)
    assert result.code == taped("tf.keras.optimizers.SGD(learning_rate=FLAGS.rate)", "variables").replace(
        "\nopt = tf.keras", "\nh = tf.layers.dense(W, 3)\nopt = tf.keras"
    ).replace("    gradients = tape", "    variables = tape.watched_variables()\n    gradients = tape")


NESTED_STEP = """\
import tensorflow as tf


def fit(rate):
    w = tf.Variable(1.0)

    @tf.function
    def step(x):
{body}
    return step
"""


def test_optimizer_of_a_step_defined_in_a_function_is_made_where_the_step_is_defined():
    # The optimizer reads the enclosing function's ``rate``: made at module level it would not
    # find it; made before the step's definition it is made once per ``fit``, as TF1's was.
    source = NESTED_STEP.format(body="        c = w * x\n        tf.train.AdamOptimizer(rate).minimize(c)\n")
    result = rewrite("TFM102", source)
    keras = "FusedAdam(learning_rate=rate)"
    assert without_fused(result.code) == NESTED_STEP.replace(
        "\n    @tf.function", "\n    optimizer = {keras}\n\n    @tf.function"
    ).format(
        keras=keras,
        body=(
            "        with tf.GradientTape() as tape:\n            c = w * x\n"
            "        variables = tape.watched_variables()\n        gradients = tape.gradient(c, variables)\n"
            "        optimizer.apply_gradients(zip(gradients, variables))\n"
        ),
    )


def test_a_star_import_in_the_module_is_read_as_binding_no_name():
    # ``from ops import *`` (a real program's helper module) once crashed the module's bindings.
    source = "from ops import *\n" + step("tf.train.GradientDescentOptimizer(FLAGS.rate)")
    assert rewrite("TFM102", source).code.startswith("from ops import *\n")


NO_OPS = [
    pytest.param(
        step("tf.train.GradientDescentOptimizer(FLAGS.rate)")
        .replace("train_op = opt.minimize", "train_op = opt.minimize  # tfmodernize: ignore[TFM102]\n    (")
        .replace("cost)\n    return", "cost))\n    return"),
        id="suppressed-site",
    ),
    pytest.param(
        "import numpy as tf\nopt = tf.train.GradientDescentOptimizer(FLAGS.rate)\n"
        "def f(x):\n    c = x * 2\n    opt.minimize(c)\n",
        id="non-tf-alias",
    ),
    pytest.param(
        "import tensorflow as tf\nopt = make_optimizer()\ndef f(x):\n    c = x * 2\n    opt.minimize(c)\n",
        id="unknown-optimizer",
    ),
    pytest.param(
        "import tensorflow as tf\nopt = tf.keras.optimizers.SGD(0.1)\n"
        "def f(x):\n    c = x * 2\n    opt.minimize(c, [v])\n",
        id="keras-optimizer-minimize",
    ),
]


@pytest.mark.parametrize("source", NO_OPS)
def test_no_ops(source):
    assert_unchanged("TFM102", source)


def test_suppression_on_optimizer_line():
    source = step("tf.train.GradientDescentOptimizer(FLAGS.rate)  # tfmodernize: ignore[minimize-to-tape]")
    result = assert_unchanged("TFM102", source)
    assert result.findings == []


def test_table_is_generated_and_complete():
    data = json.loads((Path(__file__).resolve().parent.parent / "tfmodernize/data/optimizers.json").read_text())
    assert data["generated_by"] == "scripts/generate_optimizer_table.py"
    table = optimizer_table()
    assert set(table) == {
        "GradientDescentOptimizer",
        "MomentumOptimizer",
        "AdamOptimizer",
        "AdagradOptimizer",
        "RMSPropOptimizer",
        "AdadeltaOptimizer",
        "FtrlOptimizer",
    }
    assert table["AdamOptimizer"]["write_defaults"] == {
        "beta_1": 0.8999999761581421,
        "beta_2": 0.9990000128746033,
        "epsilon": 1e-08,
    }
    assert table["AdamOptimizer"]["float32_arguments"] == ["beta_1", "beta_2"]
    assert table["AdadeltaOptimizer"]["float32_arguments"] == []
    assert table["AdagradOptimizer"]["write_defaults"] == {"epsilon": 0.0}
    assert table["RMSPropOptimizer"]["different_maths"]
    assert table["RMSPropOptimizer"]["slot_starts"] == {"velocity": 1.0}
    assert table["AdamOptimizer"]["slot_starts"] == {}
    assert table["MomentumOptimizer"]["different_with_schedule"]
    assert data["schedules"]["exponential_decay"]["arguments"]["global_step"] == "@step"


def test_discharges_one_obligation_per_optimizer_step():
    import libcst as cst
    from libcst.codemod import CodemodContext

    from tfmodernize.file_state import FileState
    from tfmodernize.registry import find_codemod
    from tfmodernize.results import Obligation

    source = HEAD + (
        "opt = tf.train.GradientDescentOptimizer(FLAGS.rate)\ndef f(x):\n    c = tf.reduce_sum(x * W)\n"
        "    gv = opt.compute_gradients(c)\n    opt.apply_gradients(gv)\n"
        "def g(x):\n    d = tf.reduce_sum(x * b)\n    opt.minimize(d)\n"
    )
    state = FileState(text=source, obligations=[Obligation("TFM101", "TFM102", "step") for _ in range(3)])
    find_codemod("TFM102")(CodemodContext(), state).transform_module(cst.parse_module(source))
    assert len(state.fixes) == 4 and len(state.obligations) == 1


SCHEDULED = (
    HEAD
    + """\
step = tf.Variable(0, trainable=False)


@tf.function
def train_step(x):
    cost = tf.reduce_sum(x * W) + b
    lr = tf.train.exponential_decay(0.1, step, 100, 0.96, staircase=True)
    train = tf.train.{optimizer}(lr).minimize(cost, global_step=step)
{extra}"""
)


def test_decayed_learning_rate_becomes_a_schedule():
    assert_rewrites(
        "TFM102",
        SCHEDULED.format(optimizer="AdamOptimizer", extra=""),
        HEAD
        + """\
step = tf.Variable(0, trainable=False)

lr = tf.keras.optimizers.schedules.ExponentialDecay(
    initial_learning_rate=0.1, decay_steps=100, decay_rate=0.96, staircase=True
)
optimizer = tf.keras.optimizers.Adam(
    learning_rate=lr,
    beta_1=0.8999999761581421,
    beta_2=0.9990000128746033,
    epsilon=1e-08,
)


@tf.function
def train_step(x):
    with tf.GradientTape() as tape:
        cost = tf.reduce_sum(x * W) + b
    gradients = tape.gradient(cost, [W, b])
    optimizer.apply_gradients(zip(gradients, [W, b]))
    step.assign_add(1)


optimizer.build([W, b])
""",
    )


@pytest.mark.parametrize(
    ("optimizer", "extra", "fragment"),
    [
        pytest.param("MomentumOptimizer", "", "velocity", id="momentum-differs-once-lr-changes"),
        pytest.param("AdamOptimizer", "    step.assign_add(5)\n", "changed elsewhere", id="step-changed-elsewhere"),
        pytest.param("AdamOptimizer", "    return lr\n", "used for more than the optimizer", id="lr-used-elsewhere"),
    ],
)
def test_decayed_learning_rate_declines(optimizer, extra, fragment):
    source = SCHEDULED.format(optimizer=optimizer, extra=extra)
    if optimizer == "MomentumOptimizer":
        source = source.replace("MomentumOptimizer(lr)", "MomentumOptimizer(lr, 0.9)")
    result = assert_unchanged("TFM102", source)
    assert fragment in result.findings[0].message


def test_decay_on_a_step_not_starting_at_zero_declines():
    source = SCHEDULED.format(optimizer="AdamOptimizer", extra="").replace("tf.Variable(0,", "tf.Variable(10,")
    assert "created at 0" in assert_unchanged("TFM102", source).findings[0].message


NESTED_SCHEDULE = """\
import tensorflow as tf


def fit():
    w = tf.Variable(1.0)
    tick = {counter}

    @tf.function
    def rate_now():
        lr = tf.train.exponential_decay(0.1, tick, 10, 0.5)
        return lr

    @tf.function
    def step(x):
        c = w * x
        lr = tf.train.exponential_decay(0.1, tick, 10, 0.5)
        tf.train.GradientDescentOptimizer(lr).minimize(c, global_step=tick)

    return step, rate_now
"""


def test_decay_of_a_counter_the_enclosing_function_makes_is_made_there_and_read_at_the_counter():
    result = rewrite("TFM102", NESTED_SCHEDULE.format(counter="tf.Variable(0)"))
    assert "        lr = lr_schedule(tick)\n        return lr\n" in result.code
    assert (
        "    lr_schedule = tf.keras.optimizers.schedules.ExponentialDecay(\n"
        "        initial_learning_rate=0.1, decay_steps=10, decay_rate=0.5\n    )\n"
        "    optimizer = tf.keras.optimizers.SGD(learning_rate=lr_schedule)\n\n    @tf.function\n    def step(x):\n"
    ) in result.code
    assert "        tick.assign_add(1)\n" in result.code


def test_decay_read_by_a_function_called_before_the_schedule_is_made_stays():
    # ``rate_now`` runs before the schedule exists in ``fit``: its decay is not rewritten, the
    # file keeps a TF1 name and the step is not migrated alone.
    source = NESTED_SCHEDULE.format(counter="tf.Variable(0)").replace(
        "    @tf.function\n    def step(x):", "    first = rate_now()\n\n    @tf.function\n    def step(x):"
    )
    result = rewrite("TFM102", source)
    assert "        lr = tf.train.exponential_decay(0.1, tick, 10, 0.5)\n        return lr\n" in result.code
    assert "lr_schedule(tick)" not in result.code


def test_decay_read_outside_the_function_making_the_schedule_stays():
    # The schedule is made in ``fit`` (its counter is fit's): a module function cannot read it.
    source = NESTED_SCHEDULE.format(counter="tf.Variable(0)") + (
        "\n\ndef elsewhere(tick):\n    return tf.train.exponential_decay(0.1, tick, 10, 0.5)\n"
    )
    result = rewrite("TFM102", source)
    assert "    return tf.train.exponential_decay(0.1, tick, 10, 0.5)\n" in result.code
    assert "        lr = lr_schedule(tick)\n" in result.code


@pytest.mark.parametrize(
    "counter",
    [
        pytest.param("tf.Variable(3)", id="starts-elsewhere"),
        pytest.param("tf.Variable(0.0)", id="float-counter"),
        pytest.param("make_counter()", id="unknown-counter"),
    ],
)
def test_decay_of_an_enclosing_function_counter_not_at_zero_declines(counter):
    result = assert_unchanged("TFM102", NESTED_SCHEDULE.format(counter=counter))
    assert "created at 0" in result.findings[0].message


def test_inline_optimizer_applying_gradients_moves_to_module_level():
    source = (
        HEAD
        + "\n\n@tf.function\ndef apply(grads):\n    tf.train.GradientDescentOptimizer(FLAGS.rate).apply_gradients(zip(grads, [W, b]))\n"
    )
    assert_rewrites(
        "TFM102",
        source,
        HEAD
        + "\napply_optimizer = tf.keras.optimizers.SGD(learning_rate=FLAGS.rate)\n\n\n@tf.function\ndef apply(grads):\n"
        "    apply_optimizer.apply_gradients(zip(grads, [W, b]))\n",
    )


def test_inline_stateful_optimizer_applying_gradients_in_an_eager_function_declines():
    source = HEAD + "\n\ndef apply(grads):\n    tf.train.AdamOptimizer(0.1).apply_gradients(zip(grads, [W, b]))\n"
    assert "builds a new optimizer each time" in assert_unchanged("TFM102", source).findings[0].message


def test_optimizer_made_inside_the_function_moves_to_module_level():
    before = HEAD + (
        "\n\n@tf.function\ndef step(x):\n    c = tf.reduce_sum(x * W)\n    opt = tf.train.AdagradOptimizer(0.1)\n"
        "    grads_and_vars = opt.compute_gradients(c)\n    opt.apply_gradients(grads_and_vars)\n"
    )
    after = HEAD + (
        "\nopt = tf.keras.optimizers.Adagrad(learning_rate=0.1, epsilon=0.0)\n\n\n@tf.function\ndef step(x):\n"
        "    with tf.GradientTape() as tape:\n        c = tf.reduce_sum(x * W)\n"
        "    grads_and_vars = list(zip(tape.gradient(c, [W, b]), [W, b]))\n    opt.apply_gradients(grads_and_vars)\n"
        "\n\nopt.build([W, b])\n"
    )
    assert_rewrites("TFM102", before, after)


def test_stateful_optimizer_made_in_an_eager_function_declines():
    source = HEAD + "def step(x):\n    c = tf.reduce_sum(x * W)\n    tf.train.AdamOptimizer(0.1).minimize(c)\n"
    assert "builds a new optimizer each time it runs" in assert_unchanged("TFM102", source).findings[0].message


def test_optimizer_made_inside_the_function_and_used_otherwise_declines():
    source = HEAD + (
        "def step(x):\n    c = tf.reduce_sum(x * W)\n    opt = tf.train.AdagradOptimizer(0.1)\n"
        "    opt.minimize(c)\n    return opt.get_slot(W, 'accumulator')\n"
    )
    assert "`opt` is used here" in assert_unchanged("TFM102", source).findings[0].message


def test_graph_program_declines():
    source = (
        step("tf.train.GradientDescentOptimizer(FLAGS.rate)") + "with tf.Session() as sess:\n    sess.run(train_step)\n"
    )
    assert "still a TF1 graph program (it uses `tf.Session`)" in assert_unchanged("TFM102", source).findings[0].message


FED_RATE = (
    HEAD
    + """\


@tf.function
def train_step(x, y, rate):
    cost = tf.reduce_mean(tf.square(tf.matmul(x, W) + b - y)){extra}
    train_op = tf.train.AdamOptimizer(rate).minimize(cost)
    return cost
"""
)


def test_a_fed_learning_rate_is_assigned_each_step():
    result = rewrite("TFM102", FED_RATE.format(extra=""))
    assert f"optimizer = tf.keras.optimizers.Adam(learning_rate=0.0, {TF1_BETAS}, epsilon=1e-08)" in _unwrapped(
        result.code
    )
    assert "optimizer.learning_rate.assign(tf.reshape(rate, []))" in result.code
    assert result.code.index("learning_rate.assign") < result.code.index("optimizer.apply_gradients")


def test_a_fed_learning_rate_used_for_more_than_the_optimizer_is_declined():
    result = assert_unchanged("TFM102", FED_RATE.format(extra="\n    cost = cost * rate"))
    assert any("is used for more than the optimizer" in f.message for f in result.findings)


def test_optimizer_of_a_step_named_by_a_number_is_a_valid_name():
    """``train_step_2`` serves nothing nameable: its optimizer is ``optimizer``, not the
    invalid ``2_optimizer``."""
    source = HEAD + "\n\n@tf.function\ndef train_step_2(x):\n    c = tf.reduce_sum(x * W)\n"
    source += "    tf.train.GradientDescentOptimizer(FLAGS.rate).minimize(c, var_list=[W])\n"
    after = HEAD + "\noptimizer = tf.keras.optimizers.SGD(learning_rate=FLAGS.rate)\n\n\n@tf.function\n"
    after += "def train_step_2(x):\n    with tf.GradientTape() as tape:\n"
    after += "        c = tf.reduce_sum(x * W)\n    gradients = tape.gradient(c, [W])\n"
    after += "    optimizer.apply_gradients(zip(gradients, [W]))\n"
    assert_rewrites("TFM102", source, after)


def test_optimizer_named_after_the_part_of_the_step_after_a_number():
    source = HEAD + "\n\n@tf.function\ndef train_2_critic(x):\n    c = tf.reduce_sum(x * W)\n"
    source += "    tf.train.GradientDescentOptimizer(FLAGS.rate).minimize(c, var_list=[W])\n"
    assert "critic_optimizer = tf.keras.optimizers.SGD(" in rewrite("TFM102", source).code


#: One train op in two functions, as session-to-function copies it into each function made of
#: a ``sess.run`` fetching it: ``{op}`` is the statement, ``{params}`` more parameters.
COPIES = (
    HEAD
    + """\


@tf.function
def train_step(x{params}):
    cost = tf.reduce_sum(x * W)
    {op}
    return cost


@tf.function
def train_step_2(x{params}):
    cost = tf.reduce_sum(x * W)
    {op}
    return x * W
"""
)


def test_copies_of_one_train_op_share_one_keras_optimizer():
    op = "train_op = tf.train.AdamOptimizer(0.1).minimize(cost)"
    result = rewrite("TFM102", COPIES.format(op=op, params=""))
    assert result.code.count("= FusedAdam(") == 1
    assert result.code.count("    optimizer.apply_gradients(zip(gradients, [W, b]))\n") == 2
    assert rewrite("TFM102", result.code, dedent=False).code == result.code


def test_copies_of_one_train_op_share_its_fed_learning_rate():
    op = "train_op = tf.train.AdamOptimizer(rate).minimize(cost)"
    result = rewrite("TFM102", COPIES.format(op=op, params=", rate"))
    assert result.code.count("tf.keras.optimizers.Adam(") == 1  # a fed rate: Keras Adam
    assert result.code.count("optimizer.learning_rate.assign(tf.reshape(rate, []))") == 2


def test_train_ops_training_different_variables_keep_their_optimizers():
    """The same text with another var_list in each function is two train ops (two graphs)."""
    op = "train_op = tf.train.AdamOptimizer(0.1).minimize(cost, var_list=[W])"
    source = COPIES.format(op=op, params="")
    source = source.replace("var_list=[W])\n    return x * W", "var_list=[b])\n    return x * W")
    result = rewrite("TFM102", source)
    assert result.code.count("= FusedAdam(") == 2
    assert "optimizer_2.apply_gradients(zip(gradients, [b]))" in result.code


RATE_VARIABLE = HEAD + "rate = tf.Variable(0.1)\nopt = {optimizer}\n\n\n@tf.function\n"
RATE_VARIABLE += "def train_step(x):\n    cost = tf.reduce_sum(x * W)\n"
RATE_VARIABLE += "    train_op = opt.minimize(cost, var_list=[W])\n    return cost\n"


def test_a_learning_rate_held_in_a_variable_is_read_at_each_update():
    result = rewrite("TFM102", RATE_VARIABLE.format(optimizer="tf.train.AdamOptimizer(rate)"))
    assert "opt = tf.keras.optimizers.Adam(learning_rate=lambda: rate, " in _unwrapped(result.code)


def test_a_learning_rate_variable_with_maths_differing_when_it_changes_declines():
    source = RATE_VARIABLE.format(optimizer="tf.train.MomentumOptimizer(rate, 0.9)")
    message = assert_unchanged("TFM102", source).findings[0].message
    assert "its learning rate is the variable `rate`, which may change" in message


def test_a_fed_learning_rate_named_like_a_module_variable_is_the_fed_one():
    source = HEAD + "rate = tf.Variable(0.1)\n\n\n@tf.function\ndef train_step(x, rate):\n"
    source += "    cost = tf.reduce_sum(x * W)\n"
    source += "    train_op = tf.train.AdamOptimizer(rate).minimize(cost, var_list=[W])\n"
    result = rewrite("TFM102", source)
    assert "lambda" not in result.code
    assert "optimizer.learning_rate.assign(tf.reshape(rate, []))" in result.code


def test_copies_of_a_stateful_train_op_one_run_eagerly_decline():
    source = COPIES.format(op="train_op = tf.train.AdamOptimizer(0.1).minimize(cost)", params="")
    source = source.replace("@tf.function\ndef train_step_2", "def train_step_2")
    result = assert_unchanged("TFM102", source)
    assert "`train_step_2` runs the train op of a stateful optimizer eagerly" in result.findings[0].message


def test_an_optimizer_keeping_slots_is_built_on_its_variables_after_the_step():
    # Built there, Adam has its moments before the step first runs: made in its first
    # ``apply_gradients`` instead, they would make the tf.function step trace twice.
    result = rewrite("TFM102", step("tf.train.AdamOptimizer(0.01)"))
    assert without_fused(result.code) == taped("FusedAdam(learning_rate=0.01)") + "\n\nopt.build([W, b])\n"
    assert rewrite("TFM102", result.code, dedent=False).code == result.code


def test_an_optimizer_without_slots_is_not_built():
    result = rewrite("TFM102", step("tf.train.GradientDescentOptimizer(FLAGS.rate)"))
    assert ".build(" not in result.code


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(
            HEAD + "h = tf.layers.dense(W, 3)\n" + step("tf.train.AdamOptimizer(0.1)")[len(HEAD) :],
            id="variables-only-the-tape-knows",
        ),
        pytest.param(
            "import tensorflow as tf\nlayer = tf.keras.layers.Dense(1)\n"
            "opt = tf.train.AdamOptimizer(0.01)\n@tf.function\ndef f(x):\n"
            "    c = tf.reduce_sum(layer(x))\n"
            "    opt.minimize(c, var_list=layer.trainable_variables)\n",
            id="keras-layer-variables-made-in-the-step",
        ),
        pytest.param(
            HEAD + "def fit(rate):\n    @tf.function\n    def f(x):\n"
            "        c = tf.reduce_sum(x * W)\n"
            "        tf.train.AdamOptimizer(rate).minimize(c, var_list=[W])\n    return f\n",
            id="optimizer-made-where-a-nested-step-is-defined",
        ),
    ],
)
def test_an_optimizer_whose_variables_are_not_there_after_the_step_is_not_built(source):
    result = rewrite("TFM102", source)
    assert result.fixes and "FusedAdam(learning_rate=" in result.code
    assert ".build(" not in without_fused(result.code)


#: The step of ``STEP`` once gradient descent at a constant rate is written out by hand.
DESCENT = (
    HEAD
    + """\


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        cost = tf.reduce_mean(tf.square(tf.matmul(x, W) + b - y))
    gradients = tape.gradient(cost, {variables})
    for variable, gradient in zip({variables}, gradients):
{update}{extra}    return cost
"""
)


def descent(rate, variables="[W, b]", extra="", implicit=True):
    update = f"        variable.assign_sub({rate} * gradient)\n"
    if implicit:
        update = f"        if gradient is not None:\n    {update}"
    return DESCENT.format(variables=variables, update=update, extra=extra)


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        pytest.param("", descent("0.1"), id="implicit-variables-skip-a-missing-gradient"),
        pytest.param(", var_list=[W]", descent("0.1", "[W]", implicit=False), id="explicit-var-list"),
        pytest.param(
            ", global_step=step_counter",
            descent("0.1", extra="    step_counter.assign_add(1)\n"),
            id="global-step-after-the-update",
        ),
    ],
)
def test_gradient_descent_at_a_constant_rate_subtracts_the_scaled_gradient(arguments, expected):
    """No Keras optimizer: TF1's update, written as a TF2 engineer writes it, and cheaper."""
    result = assert_rewrites("TFM102", step("tf.train.GradientDescentOptimizer(0.1)", arguments), expected)
    assert [fix.message for fix in result.fixes] == [
        "tf.train.GradientDescentOptimizer -> each variable's `assign_sub` of the learning rate times its gradient"
    ]


def test_gradient_descent_made_in_the_step_at_a_module_rate_reads_the_rate():
    source = (
        HEAD + "rate = 0.05\n\n\n@tf.function\ndef train_step(x, y):\n"
        "    cost = tf.reduce_mean(tf.square(tf.matmul(x, W) + b - y))\n"
        "    # one step down the gradient\n"
        "    tf.train.GradientDescentOptimizer(rate).minimize(cost, var_list=[W, b])  # SGD\n"
        "    return cost\n"
    )
    expected = (
        HEAD + "rate = 0.05\n\n\n@tf.function\ndef train_step(x, y):\n"
        "    with tf.GradientTape() as tape:\n"
        "        cost = tf.reduce_mean(tf.square(tf.matmul(x, W) + b - y))\n"
        "    # one step down the gradient\n"
        "    gradients = tape.gradient(cost, [W, b])\n"
        "    for variable, gradient in zip([W, b], gradients):  # SGD\n"
        "        variable.assign_sub(rate * gradient)\n"
        "    return cost\n"
    )
    assert_rewrites("TFM102", source, expected)


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(step("tf.train.GradientDescentOptimizer(FLAGS.rate)"), id="rate-not-a-constant"),
        pytest.param(
            step("tf.train.GradientDescentOptimizer(rate)").replace("opt =", "rate = 0.1\nrate = rate / 2\nopt =", 1),
            id="rate-bound-twice",
        ),
        pytest.param(
            step("tf.train.GradientDescentOptimizer(0.1)").replace("tf.zeros([1])", "tf.zeros([1], tf.float64)"),
            id="a-float64-in-the-file",
        ),
        pytest.param(looking_rows_up(step("tf.train.GradientDescentOptimizer(0.1)")), id="rows-looked-up"),
        pytest.param(
            HEAD + "opt = tf.train.GradientDescentOptimizer(0.1)\n\n\n@tf.function\ndef step(x):\n"
            "    cost = tf.reduce_sum(x * W)\n    pairs = opt.compute_gradients(cost, [W])\n"
            "    opt.apply_gradients(pairs)\n",
            id="gradients-computed-and-applied",
        ),
    ],
)
def test_gradient_descent_keeps_keras_sgd(source):
    """Where the rate may change, the optimizer applies gradients computed apart, TF1 cast the
    rate to another dtype or scattered a sparse gradient, Keras SGD (which does as TF1) stays."""
    result = rewrite("TFM102", source)
    assert "tf.keras.optimizers.SGD(" in result.code and "assign_sub" not in result.code


def test_gradient_descent_names_a_variable_list_too_wide_to_write_twice():
    names = [f"{part}_{kind}_variable" for part in ("encoder", "decoder", "output") for kind in ("kernel", "offset")]
    made = "".join(f"{name} = tf.Variable(1.0)\n" for name in names)
    source = (
        f"import tensorflow as tf\n\n{made}\n\n@tf.function\ndef train_step(x):\n"
        f"    cost = tf.reduce_sum(x * tf.add_n([{', '.join(names)}]))\n"
        f"    tf.train.GradientDescentOptimizer(0.1).minimize(cost, var_list=[{', '.join(names)}])\n"
    )
    result = rewrite("TFM102", source)
    elements = "".join(f"        {name},\n" for name in names)
    assert result.code.endswith(
        f"    variables = [\n{elements}    ]\n"
        "    gradients = tape.gradient(cost, variables)\n"
        "    for variable, gradient in zip(variables, gradients):\n"
        "        variable.assign_sub(0.1 * gradient)\n"
    )
    assert rewrite("TFM102", result.code, dedent=False).code == result.code


def test_gradient_descent_in_a_file_calling_a_subscripted_function():
    """A call of ``layers[0](x)`` names no function: not a row look-up (the check used to crash)."""
    source = step("tf.train.GradientDescentOptimizer(0.1)", ", var_list=[W]") + "scale = [tf.abs][0](W)\n"
    result = rewrite("TFM102", source)
    assert "variable.assign_sub(0.1 * gradient)" in result.code
