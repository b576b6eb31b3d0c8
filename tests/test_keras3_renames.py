import pytest

from tfmodernize.testing import assert_rewrites, assert_unchanged

GOLDEN = [
    pytest.param(
        "import tensorflow as tf\nopt = tf.keras.optimizers.Adam(lr=1e-3, beta_1=0.8)\n",
        "import tensorflow as tf\nopt = tf.keras.optimizers.Adam(learning_rate=1e-3, beta_1=0.8)\n",
        id="optimizer-lr-keyword",
    ),
    pytest.param(
        "from tensorflow import keras\nopt = keras.optimizers.SGD(lr=0.1)\nopt.lr = 0.01  # decay\nprint(keras.backend.get_value(opt.lr))\n",
        "from tensorflow import keras\nopt = keras.optimizers.SGD(learning_rate=0.1)\nopt.learning_rate = 0.01  # decay\nprint(keras.backend.get_value(opt.learning_rate))\n",
        id="optimizer-lr-attribute-comment-kept",
    ),
    pytest.param(
        "import keras\nmodel = keras.Sequential([keras.layers.Dense(1)])\nmodel.optimizer.lr = 0.5\n",
        "import keras\nmodel = keras.Sequential([keras.layers.Dense(1)])\nmodel.optimizer.learning_rate = 0.5\n",
        id="model-optimizer-lr",
    ),
    pytest.param(
        "import tensorflow as T\nloss = T.keras.metrics.Mean()\nfor epoch in range(2):\n    loss.reset_states()\n",
        "import tensorflow as T\nloss = T.keras.metrics.Mean()\nfor epoch in range(2):\n    loss.reset_state()\n",
        id="metric-reset-states-alias",
    ),
    pytest.param(
        "import tensorflow as tf\n\nclass Trainer:\n    def __init__(self):\n        self.acc = tf.keras.metrics.SparseCategoricalAccuracy()\n\n"
        "    def epoch(self):\n        self.acc.reset_states()\n",
        "import tensorflow as tf\n\nclass Trainer:\n    def __init__(self):\n        self.acc = tf.keras.metrics.SparseCategoricalAccuracy()\n\n"
        "    def epoch(self):\n        self.acc.reset_state()\n",
        id="metric-attribute",
    ),
    pytest.param(
        "from tensorflow.keras import metrics\n\nclass Count(metrics.Metric):\n    def reset_states(self):\n        super().reset_states()\n",
        "from tensorflow.keras import metrics\n\nclass Count(metrics.Metric):\n    def reset_state(self):\n        super().reset_state()\n",
        id="metric-subclass-override",
    ),
    pytest.param(
        "import tensorflow as tf\nm = tf.keras.Model(i, o)\nm.fit_generator(gen, steps_per_epoch=10, epochs=2)\nr = m.evaluate_generator(generator=gen, steps=3)\n",
        "import tensorflow as tf\nm = tf.keras.Model(i, o)\nm.fit(gen, steps_per_epoch=10, epochs=2)\nr = m.evaluate(x=gen, steps=3, verbose=0)\n",
        id="generator-methods",
    ),
    pytest.param(
        "import tensorflow as tf\nm = tf.keras.models.load_model('m.keras')\np = m.predict_generator(gen, steps=3, verbose=1)\n",
        "import tensorflow as tf\nm = tf.keras.models.load_model('m.keras')\np = m.predict(gen, steps=3, verbose=1)\n",
        id="predict-generator-verbose-kept",
    ),
    pytest.param(
        "from tensorflow.keras import layers\n\nclass L(layers.Layer):\n    def build(self, s):\n        self.w = self.add_weight('w', (s[-1], 3), trainable=False)\n",
        "from tensorflow.keras import layers\n\nclass L(layers.Layer):\n    def build(self, s):\n        self.w = self.add_weight(name='w', shape=(s[-1], 3), trainable=False)\n",
        id="add-weight-positional",
    ),
    pytest.param(
        "import tensorflow as tf\nn = tf.keras.layers.experimental.preprocessing.Normalization()\ne = tf.keras.layers.experimental.EinsumDense('ab,bc->ac', 2)\n",
        "import tensorflow as tf\nn = tf.keras.layers.Normalization()\ne = tf.keras.layers.EinsumDense('ab,bc->ac', 2)\n",
        id="experimental-layers",
    ),
    pytest.param(
        "from keras.layers.experimental.preprocessing import Rescaling, StringLookup as Lookup\nimport keras\n",
        "from keras.layers import Rescaling, StringLookup as Lookup\nimport keras\n",
        id="experimental-import",
    ),
    pytest.param(
        "import keras\nopt = keras.optimizers.SGD(lr=0.1, decay=1e-4, momentum=0.9)\n",
        "import keras\nopt = keras.optimizers.SGD(learning_rate=keras.optimizers.schedules.InverseTimeDecay(0.1, decay_steps=1, decay_rate=1e-4), momentum=0.9)\n",
        id="decay-schedule",
    ),
    pytest.param(
        "import tensorflow as tf\nopt = tf.keras.optimizers.RMSprop(0.01, rho=0.9, decay=0.0)\n",
        "import tensorflow as tf\nopt = tf.keras.optimizers.RMSprop(0.01, rho=0.9)\n",
        id="zero-decay-dropped",
    ),
    pytest.param(
        "from tensorflow.keras import layers\nrnn = layers.LSTM(4, time_major=False, return_sequences=True)\nd = layers.Dense(1, dynamic=False)\n",
        "from tensorflow.keras import layers\nrnn = layers.LSTM(4, return_sequences=True)\nd = layers.Dense(1)\n",
        id="default-layer-arguments-dropped",
    ),
]


@pytest.mark.parametrize(("before", "after"), GOLDEN)
def test_rewrites(before, after):
    result = assert_rewrites("TFM208", before, after)
    assert {f.code for f in result.fixes} == {"TFM208"}


NOOP = [
    pytest.param("import tensorflow as tf\nparser.add_argument('--lr')\nlr = args.lr\nconfig.lr = 3\n", id="config-lr"),
    pytest.param(
        "import tensorflow as tf\nopt = tf.keras.optimizers.SGD(learning_rate=0.1)\nopt.learning_rate = 0.2\n",
        id="already-keras3",
    ),
    pytest.param(
        "import tf_keras\nopt = tf_keras.optimizers.SGD(lr=0.1)\nopt.lr = 0.2\nm = tf_keras.metrics.Mean()\nm.reset_states()\n",
        id="tf-keras-package",
    ),
    pytest.param(
        "import tf_keras\nm = tf_keras.Sequential()\nm.fit_generator(g)\nm.optimizer.lr = 0.1\n", id="tf-keras-model"
    ),
    pytest.param(
        "import tensorflow as tf\nlstm = tf.keras.layers.LSTM(3, stateful=True)\nlstm.reset_states()\n",
        id="rnn-layer-reset-states",
    ),
    pytest.param("import tensorflow as tf\nopt = torch.optim.SGD(params, lr=0.1)\n", id="non-keras-optimizer"),
    pytest.param(
        "import tensorflow as tf\n\nclass L:\n    def f(self):\n        self.add_weight('w', (3,))\n",
        id="add-weight-non-keras-class",
    ),
    pytest.param(
        "import tensorflow as tf\nopt = tf.keras.optimizers.SGD(lr=0.1)  # tfmodernize: ignore[keras3-renames]\n",
        id="suppressed",
    ),
]


@pytest.mark.parametrize("source", NOOP)
def test_leaves_alone(source):
    assert assert_unchanged("TFM208", source).findings == []


FINDINGS = [
    pytest.param(
        "import tensorflow as tf\nmetric.reset_states()\n", "only has `reset_state()`", id="unknown-reset-states"
    ),
    pytest.param(
        "import tensorflow as tf\nm = tf.keras.Sequential()\nm.reset_states()\n",
        "models have no `reset_states()`",
        id="model-reset-states",
    ),
    pytest.param(
        "import tensorflow as tf\nmodel.fit_generator(g)\n", "if this is a Keras model", id="unknown-fit-generator"
    ),
    pytest.param(
        "import tensorflow as tf\nm = tf.keras.Sequential()\nm.fit_generator(g, 10, epochs=2)\n",
        "pass the arguments",
        id="positional-steps",
    ),
    pytest.param(
        "import tensorflow as tf\nm = tf.keras.Sequential()\nm.fit_generator(g, workers=4, use_multiprocessing=True)\n",
        "`workers, use_multiprocessing` moved",
        id="workers",
    ),
    pytest.param(
        "import tensorflow as tf\nmodel.optimizer.lr = 0.1\n",
        "if this is a Keras optimizer",
        id="unknown-model-optimizer-lr",
    ),
    pytest.param(
        "import tensorflow as tf\nf = tf.keras.layers.experimental.RandomFourierFeatures(4)\n",
        "not in Keras 3",
        id="removed-layer",
    ),
    pytest.param(
        "from tensorflow.keras.layers.experimental import preprocessing\n",
        "must be replaced by hand",
        id="import-namespace",
    ),
    pytest.param(
        "import tensorflow as tf\n\nclass L(tf.keras.layers.Layer):\n    def build(self, s):\n        self.w = self.add_weight('w', (3,), use_resource=True)\n",
        "`use_resource`",
        id="add-weight-keras2-keyword",
    ),
    pytest.param(
        "import tensorflow as tf\n\nclass M(tf.keras.metrics.Metric):\n    def __init__(self):\n        self.t = self.add_weight('t')\n",
        "explicit `initializer=`",
        id="metric-weight-without-initializer",
    ),
    pytest.param(
        "import tensorflow as tf\nopt = tf.keras.optimizers.Adam(decay=0.01)\n",
        "learning rate made explicit",
        id="decay-default-rate",
    ),
    pytest.param(
        "import tensorflow as tf\nr = tf.keras.layers.GRU(3, time_major=True)\n",
        "transpose the inputs",
        id="time-major-true",
    ),
    pytest.param(
        "import tensorflow as tf\nb = tf.keras.layers.BatchNormalization(fused=True)\n", "no fused kernel", id="fused"
    ),
]


@pytest.mark.parametrize(("source", "fragment"), FINDINGS)
def test_reports_what_it_cannot_prove(source, fragment):
    result = assert_unchanged("TFM208", source)
    assert [f.code for f in result.findings] == ["TFM208"]
    assert fragment in result.findings[0].message
