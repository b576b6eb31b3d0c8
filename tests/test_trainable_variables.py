"""TFM202 trainable-variables: golden, unsafe, finding and no-op tables."""

import textwrap

import pytest

from tfmodernize.registry import doc_sections, find_codemod
from tfmodernize.testing import assert_rewrites, assert_unchanged, rewrite

STEP = """\
import tensorflow as tf
model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
with tf.GradientTape() as tape:
    loss = model(x)
grads = tape.gradient(loss, model.{a})
opt.apply_gradients(zip(grads, model.{b}))
"""

REWRITES = [
    pytest.param(
        STEP.format(a="variables", b="variables"),
        STEP.format(a="trainable_variables", b="trainable_variables"),
        id="variables",
    ),
    pytest.param(
        STEP.format(a="weights", b="weights"),
        STEP.format(a="trainable_variables", b="trainable_variables"),
        id="weights",
    ),
    pytest.param(
        STEP.format(a="variables", b="weights"),
        STEP.format(a="trainable_variables", b="trainable_variables"),
        id="variables-then-weights",
    ),
    pytest.param(
        "import tensorflow as T\nnet = T.keras.Model(inputs, outputs)\nwith T.GradientTape() as g:\n    loss = net(x)\n"
        "opt.apply_gradients(zip(g.gradient(loss, net.variables), net.variables))\n",
        "import tensorflow as T\nnet = T.keras.Model(inputs, outputs)\nwith T.GradientTape() as g:\n    loss = net(x)\n"
        "opt.apply_gradients(zip(g.gradient(loss, net.trainable_variables), net.trainable_variables))\n",
        id="alias-inline-gradient",
    ),
    pytest.param(
        "from tensorflow import keras\nimport tensorflow as tf\nlayer = keras.layers.Dense(3)\n"
        "def step(x):\n    with tf.GradientTape() as tape:\n        loss = layer(x)  # forward\n"
        "    grads = tape.gradient(loss, layer.weights)  # all of them\n"
        "    opt.apply_gradients(grads_and_vars=zip(grads, layer.weights))\n",
        "from tensorflow import keras\nimport tensorflow as tf\nlayer = keras.layers.Dense(3)\n"
        "def step(x):\n    with tf.GradientTape() as tape:\n        loss = layer(x)  # forward\n"
        "    grads = tape.gradient(loss, layer.trainable_variables)  # all of them\n"
        "    opt.apply_gradients(grads_and_vars=zip(grads, layer.trainable_variables))\n",
        id="from-keras-layer-in-function-comments-kept",
    ),
    pytest.param(
        "import tensorflow as tf\nclass Net(tf.keras.Model):\n    pass\nclass Deeper(Net):\n    pass\n"
        "class Trainer:\n    def __init__(self):\n        self.model = Deeper()\n"
        "    def step(self, x):\n        with tf.GradientTape() as tape:\n            loss = self.model(x)\n"
        "        grads = tape.gradient(loss, self.model.variables)\n"
        "        self.opt.apply_gradients(zip(grads, self.model.variables))\n",
        "import tensorflow as tf\nclass Net(tf.keras.Model):\n    pass\nclass Deeper(Net):\n    pass\n"
        "class Trainer:\n    def __init__(self):\n        self.model = Deeper()\n"
        "    def step(self, x):\n        with tf.GradientTape() as tape:\n            loss = self.model(x)\n"
        "        grads = tape.gradient(loss, self.model.trainable_variables)\n"
        "        self.opt.apply_gradients(zip(grads, self.model.trainable_variables))\n",
        id="attribute-bound-to-subclass-instance",
    ),
    pytest.param(
        "import tensorflow.compat.v1 as tf\nclass Lin(tf.Module):\n    def __init__(self):\n        self.steps = tf.Variable(0, trainable=False)\nm = Lin()\n"
        "with tf.GradientTape(persistent=True) as tape:\n    loss = m(x)\n"
        "grads = tape.gradient(target=loss, sources=m.variables)\nopt.apply_gradients(zip(grads, m.variables))\n",
        "import tensorflow.compat.v1 as tf\nclass Lin(tf.Module):\n    def __init__(self):\n        self.steps = tf.Variable(0, trainable=False)\nm = Lin()\n"
        "with tf.GradientTape(persistent=True) as tape:\n    loss = m(x)\n"
        "grads = tape.gradient(target=loss, sources=m.trainable_variables)\nopt.apply_gradients(zip(grads, m.trainable_variables))\n",
        id="compat-v1-tf-module-keywords",
    ),
]


@pytest.mark.parametrize(("before", "after"), REWRITES)
def test_rewrites(before, after):
    result = assert_rewrites("TFM202", before, after)
    assert [f.code for f in result.fixes] == ["TFM202"]
    assert result.findings == []


UNKNOWN_OWNER = STEP.replace("tf.keras.Sequential([tf.keras.layers.Dense(1)])", "build_model()")


def test_unknown_object_is_an_unsafe_fix():
    result = assert_unchanged("TFM202", UNKNOWN_OWNER.format(a="variables", b="variables"))
    [finding] = result.findings
    assert "not provably a Keras model" in finding.message and "--unsafe-fixes" in finding.message
    assert finding.suggestion == "model.trainable_variables"
    assert_rewrites(
        "TFM202",
        UNKNOWN_OWNER.format(a="variables", b="variables"),
        UNKNOWN_OWNER.format(a="trainable_variables", b="trainable_variables"),
        unsafe_fixes=True,
    )


PARAMETER_OWNER = (
    "import tensorflow as tf\ndef step(model, x):\n    with tf.GradientTape() as tape:\n        loss = model(x)\n"
    "    grads = tape.gradient(loss, model.variables)\n    opt.apply_gradients(zip(grads, model.variables))\n"
)


def test_function_argument_is_an_unsafe_fix():
    [finding] = assert_unchanged("TFM202", PARAMETER_OWNER).findings
    assert "unsafe fix" in finding.message
    assert "model.trainable_variables" in rewrite("TFM202", PARAMETER_OWNER, unsafe_fixes=True).code


FINDINGS = [
    pytest.param(
        STEP.format(a="variables", b="variables")
        .replace("grads = ", "grads = ")
        .replace("opt.apply_gradients", "grads = [tf.clip_by_norm(g, 1.0) for g in grads]\nopt.apply_gradients"),
        "also used elsewhere",
        id="gradient-list-used-elsewhere",
    ),
    pytest.param(STEP.format(a="variables", b="trainable_variables"), "line up only if", id="applied-to-trainable"),
    pytest.param(
        STEP.format(a="variables", b="variables").replace(
            "opt.apply_gradients(zip(grads, model.variables))", "print(grads)"
        ),
        "not passed straight",
        id="never-applied",
    ),
    pytest.param(
        STEP.format(a="variables", b="variables")
        .replace("grads = tape.gradient", "other = other_model.variables\ngrads = tape.gradient")
        .replace("zip(grads, model.variables)", "zip(grads, other_model.variables)"),
        "line up only if",
        id="applied-to-another-model",
    ),
    pytest.param(
        STEP.format(a="variables", b="variables").replace(
            "    loss = model(x)", "    tape.watch(model.variables)\n    loss = model(x)"
        ),
        "calls `watch`",
        id="explicit-watch",
    ),
    pytest.param(
        STEP.format(a="variables", b="variables").replace("zip(", "izip("), "not passed straight", id="not-builtin-zip"
    ),
    pytest.param(
        "import tensorflow as tf\nzip = my_zip\n" + STEP.format(a="variables", b="variables").split("\n", 1)[1],
        "not passed straight",
        id="zip-rebound",
    ),
]


@pytest.mark.parametrize(("source", "fragment"), FINDINGS)
def test_findings_instead_of_half_a_fix(source, fragment):
    result = assert_unchanged("TFM202", source)
    assert [f.code for f in result.findings] == ["TFM202"]
    assert fragment in result.findings[0].message


NO_OPS = [
    pytest.param(STEP.format(a="trainable_variables", b="trainable_variables"), id="already-trainable"),
    pytest.param(
        STEP.format(a="variables", b="variables").replace(
            "import tensorflow as tf\n", "import mylib as tf\nimport tensorflow\n"
        ),
        id="non-tf-tape",
    ),
    pytest.param(
        "import tensorflow\ntf = Fake()\nwith tf.GradientTape() as tape:\n    loss = m(x)\ngrads = tape.gradient(loss, m.variables)\nopt.apply_gradients(zip(grads, m.variables))\n",
        id="non-tf-object-called-tf",
    ),
    pytest.param(
        "import tensorflow as tf\ntape = Recorder()\ngrads = tape.gradient(loss, model.variables)\nopt.apply_gradients(zip(grads, model.variables))\n",
        id="not-a-gradient-tape",
    ),
    pytest.param(
        STEP.format(a="variables", b="variables").replace(
            "grads = tape.gradient(loss, model.variables)",
            "grads = tape.gradient(loss, model.variables)  # tfmodernize: ignore[TFM202]",
        ),
        id="suppressed-on-gradient",
    ),
    pytest.param(
        STEP.format(a="variables", b="variables").replace(
            "zip(grads, model.variables))", "zip(grads, model.variables))  # tfmodernize: ignore"
        ),
        id="suppressed-on-apply",
    ),
    pytest.param(
        STEP.format(a="variables", b="variables").replace(
            "grads = tape.gradient(loss, model.variables)",
            "grads = tape.gradient(loss, model.variables)  # tfmodernize: ignore[trainable-variables]",
        ),
        id="suppressed-by-name",
    ),
]


LINEAR = """\
import tensorflow as tf
class Linear(tf.Module):
    def __init__(self):
        self.ready = False
    def __call__(self, x):
        if not self.ready:
            self.width = x.shape[-1]
            self.w = tf.Variable(tf.ones([self.width, 1]){extra})
            self.b = tf.Variable(0.0)
            self.ready = True
        return tf.matmul(x, self.w) + self.b
line = Linear()
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(line(x) ** 2)
grads = tape.gradient(loss, line.variables)
for g, v in zip(grads, line.variables):
    v.assign_sub(0.1 * g)
"""

NO_OPS.append(pytest.param(LINEAR.format(extra=""), id="tf-module-all-trainable"))
NO_OPS.append(pytest.param(LINEAR.format(extra=", trainable=True"), id="tf-module-trainable-true"))
FINDINGS.append(pytest.param(LINEAR.format(extra=", trainable=False"), "not passed straight", id="tf-module-frozen"))
FINDINGS.append(
    pytest.param(
        LINEAR.format(extra="").replace(
            "        self.ready = False\n",
            "        self.ready = False\n        self.inner = tf.keras.layers.BatchNormalization()\n",
        ),
        "not passed straight",
        id="tf-module-holding-a-layer",
    )
)


@pytest.mark.parametrize("source", NO_OPS)
def test_no_ops(source):
    result = assert_unchanged("TFM202", source)
    assert result.findings == []


def test_docstring_example_is_what_it_does():
    sections = doc_sections(find_codemod("TFM202"))
    before, after = (textwrap.dedent(sections[part]) + "\n" for part in ("Before", "After"))
    assert_rewrites(
        "TFM202", "import tensorflow as tf\n" + before, "import tensorflow as tf\n" + after, unsafe_fixes=True
    )


# A plain class of the file (no Keras, no tf.Module) whose ``weights`` is its own tuple of
# tensors: the tape watches them on purpose, and there is no non-trainable Keras state.
PLAIN_SCORER = """\
import tensorflow as tf
class Scorer:
    def __init__(self):
        self.weights = (tf.ones([4, 1]), tf.zeros([1]))
    def score(self, x):
        kernel, offset = self.weights
        return tf.matmul(x, kernel) + offset
def slopes(scorer, x):
    with tf.GradientTape() as tape:
        tape.watch(scorer.weights)
        total = tf.reduce_sum(scorer.score(x))
    return tape.gradient(total, scorer.weights)
g = slopes(Scorer(), tf.ones([2, 4]))
"""

# Models made of the file's own tf.Module classes, all variables trainable, handed to a step
# function as a parameter and updated by a hand-written rule (no ``apply_gradients(zip(...))``).
MODULE_FILE = """\
import tensorflow as tf
class Affine(tf.Module):
    def __init__(self, width, act=tf.identity):
        self.width = width
        self.act = act
        self.w = None
    def __call__(self, x):
        if self.w is None:
            self.w = tf.Variable(tf.ones([x.shape[-1], self.width]){extra})
        return self.act(tf.matmul(x, self.w))
{more}
def step(net, x, rule):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(net(x) ** 2)
    grads = tape.gradient(loss, net.variables)
    rule.update(grads, net.variables)
"""


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(PLAIN_SCORER, id="plain-class-own-weights-watched"),
        pytest.param(
            PLAIN_SCORER.replace("        tape.watch(scorer.weights)\n", ""),
            id="plain-class-own-weights",
        ),
        pytest.param(MODULE_FILE.format(extra="", more=""), id="parameter-in-a-file-of-trainable-modules"),
        pytest.param(
            MODULE_FILE.format(extra="", more="init = tf.keras.initializers.GlorotNormal()\n"),
            id="parameter-keras-initializer-only",
        ),
        pytest.param(
            MODULE_FILE.format(
                extra="",
                more="def reload(m, d):\n    tf.saved_model.save(m, d)\n    return tf.saved_model.load(d)\n",
            ),
            id="parameter-file-reloads-its-own-export",
        ),
    ],
)
def test_no_finding_on_plain_or_all_trainable_variables(source):
    assert assert_unchanged("TFM202", source).findings == []


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(MODULE_FILE.format(extra=", trainable=False", more=""), id="frozen-variable-in-the-file"),
        pytest.param(
            MODULE_FILE.format(extra="", more="norm = tf.keras.layers.LayerNormalization()\n"),
            id="keras-layer-in-the-file",
        ),
        pytest.param(
            MODULE_FILE.format(extra="", more="noise = tf.random.Generator.from_seed(3)\n"),
            id="generator-in-the-file",
        ),
        pytest.param(
            MODULE_FILE.format(extra="", more="pretrained = tf.saved_model.load('/models/base')\n"),
            id="savedmodel-from-elsewhere",
        ),
        pytest.param(
            MODULE_FILE.format(extra="", more="").replace("(tf.Module)", "(Base)"),
            id="no-tf-module-in-the-file",
        ),
        pytest.param(
            PLAIN_SCORER.replace(
                "g = slopes(Scorer()",
                "scorer = tf.keras.Sequential([tf.keras.layers.Dense(1)])\ng = slopes(scorer",
            )
            .replace("def slopes(scorer, x)", "def slopes(x)")
            .replace("slopes(scorer, ", "slopes("),
            id="keras-model-beside-a-plain-class",
        ),
    ],
)
def test_parameter_that_may_hold_non_trainable_state_is_reported(source):
    assert [f.code for f in assert_unchanged("TFM202", source).findings] == ["TFM202"]
