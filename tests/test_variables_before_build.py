import pytest

from tfmodernize.testing import assert_unchanged

SUBCLASS = """\
from tensorflow import keras

class Net(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(1)

    def call(self, x):
        return self.dense(x)
"""

POSITIVE = [
    pytest.param(
        "import tensorflow as tf\nmodel = tf.keras.Sequential([tf.keras.layers.Dense(1)])\nvar_list = model.trainable_variables\n",
        "`model.trainable_variables`",
        id="sequential",
    ),
    pytest.param(
        SUBCLASS
        + "\ndef train():\n    net = Net()\n    opt = keras.optimizers.SGD()\n    weights = net.trainable_weights\n",
        "`net.trainable_weights`",
        id="subclass-in-function",
    ),
    pytest.param(
        "from tensorflow.keras import layers as L\nlayer = L.Dense(4, input_shape=(3,))\nws = layer.weights\n",
        "`layer.weights`",
        id="layer-alias",
    ),
    pytest.param(
        "import tensorflow as T\nm = T.keras.models.Sequential()\nm.add(T.keras.layers.Dense(2))\nn = len(m.variables)\n",
        "`m.variables`",
        id="empty-sequential-add",
    ),
    pytest.param(
        "import tensorflow as tf\nhead = tf.keras.layers.Dense(2)\nhead.weights\nparams = head.weights\n",
        "`head.weights`",
        id="shown-then-kept-unbuilt",
    ),
]


@pytest.mark.parametrize(("source", "fragment"), POSITIVE)
def test_reports_premature_read(source, fragment):
    result = assert_unchanged("TFM301", source)
    assert [f.code for f in result.findings] == ["TFM301"]
    assert fragment in result.findings[0].message and "empty list" in result.findings[0].message


NOOP = [
    pytest.param(
        "import tensorflow as tf\nmodel = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(1)])\nv = model.trainable_variables\n",
        id="sequential-with-input",
    ),
    pytest.param(
        "import tensorflow as tf\nmodel = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])\nv = model.trainable_variables\n",
        id="first-layer-input-shape",
    ),
    pytest.param(
        "import tensorflow as tf\nmodel = tf.keras.Sequential([tf.keras.layers.Dense(1)])\nmodel.build((None, 3))\nv = model.trainable_variables\n",
        id="built",
    ),
    pytest.param(
        "import tensorflow as tf\nmodel = tf.keras.Sequential([tf.keras.layers.Dense(1)])\nmodel(tf.zeros((1, 3)))\nv = model.trainable_variables\n",
        id="called",
    ),
    pytest.param(
        "import tensorflow as tf\nmodel = tf.keras.Sequential([tf.keras.layers.Dense(1)])\nwarm_up(model)\nv = model.trainable_variables\n",
        id="handed-to-other-code",
    ),
    pytest.param(
        "import tensorflow as tf\nmodel = make_model()\nv = model.trainable_variables\n",
        id="unknown-origin",
    ),
    pytest.param(
        "import tensorflow as tf\nmodel = tf.keras.Sequential([tf.keras.layers.Dense(1)])\nv = model.trainable_variables  # tfmodernize: ignore[TFM301]\n",
        id="suppressed",
    ),
    pytest.param(
        "import tensorflow as tf\nhead = tf.keras.layers.Dense(2)\nhead.variables\n",
        id="shown-alone-as-a-statement",
    ),
    pytest.param(
        "import tensorflow as tf\nhead = tf.keras.layers.Dense(2)\nprint('before build:', head.trainable_weights)\n",
        id="printed",
    ),
]


@pytest.mark.parametrize("source", NOOP)
def test_leaves_alone(source):
    assert assert_unchanged("TFM301", source).findings == []
