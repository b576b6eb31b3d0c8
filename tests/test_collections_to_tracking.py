"""TFM104 collections-to-tracking: golden, finding and no-op tables."""

import pytest

from tfmodernize.testing import assert_rewrites, assert_unchanged

VARS = """\
import tensorflow as tf

with tf.variable_scope("gen"):
    W_g = tf.get_variable("W", [3, 1])
    b_g = tf.Variable(tf.zeros([1]), name="b")
with tf.name_scope("disc"):
    W_d = tf.Variable(tf.zeros([1, 1]), name="W")
    h = tf.get_variable("h", [1])
step = tf.Variable(0, trainable=False)
"""

REWRITES = [
    pytest.param("import tensorflow as tf\ndef model():\n    return tf.get_variable('w', [1])\nw = model()\np = tf.trainable_variables()\n",
                 "import tensorflow as tf\ndef model():\n    return tf.get_variable('w', [1])\nw = model()\np = [w]\n",
                 id="variable-factory-function"),
    pytest.param("import tensorflow as tf\nweights = {'h1': tf.Variable(1.0), 'out': tf.Variable(2.0)}\nbiases = [tf.Variable(0.0)]\n"
                 "p = tf.trainable_variables()\n",
                 "import tensorflow as tf\nweights = {'h1': tf.Variable(1.0), 'out': tf.Variable(2.0)}\nbiases = [tf.Variable(0.0)]\n"
                 "p = [weights['h1'], weights['out'], biases[0]]\n",
                 id="variables-in-dict-and-list-literals"),
    pytest.param("import tensorflow as tf\nimport numpy as np\nW = tf.Variable(np.zeros(3))\ny = np.ones(3)\n"
                 "p = tf.trainable_variables()\n",
                 "import tensorflow as tf\nimport numpy as np\nW = tf.Variable(np.zeros(3))\ny = np.ones(3)\n"
                 "p = [W]\n", id="calls-into-numpy-keep-the-list-known"),
    pytest.param("import requests\nimport nltk\nimport tensorflow as tf\npage = requests.get(URL).text\n"
                 "words = nltk.word_tokenize(page)\nW = tf.Variable(1.0)\np = tf.trainable_variables()\n",
                 "import requests\nimport nltk\nimport tensorflow as tf\npage = requests.get(URL).text\n"
                 "words = nltk.word_tokenize(page)\nW = tf.Variable(1.0)\np = [W]\n",
                 id="calls-into-web-and-text-libraries-keep-the-list-known"),
    pytest.param(VARS + "params = tf.trainable_variables()\n", VARS + "params = [W_g, b_g, W_d, h]\n", id="trainable"),
    pytest.param(VARS + "params = tf.global_variables()\n", VARS + "params = [W_g, b_g, W_d, h, step]\n", id="global"),
    pytest.param(VARS + "g = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope='gen')\n",
                 VARS + "g = [W_g, b_g]\n", id="get-collection-variable-scope"),
    pytest.param(VARS + "d = tf.trainable_variables('disc')  # name_scope: get_variable names ignore it\n",
                 VARS + "d = [W_d]  # name_scope: get_variable names ignore it\n", id="name-scope"),
    pytest.param(VARS + "v = tf.get_collection('variables', 'gen/b')\n", VARS + "v = [b_g]\n", id="string-key"),
    pytest.param("import tensorflow as tf\na = tf.Variable(1.0)\nb = tf.Variable(2.0)\n"
                 "first = tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, scope='Variable_1')\n",
                 "import tensorflow as tf\na = tf.Variable(1.0)\nb = tf.Variable(2.0)\nfirst = [b]\n",
                 id="tf1-unique-names"),
    pytest.param("import tensorflow as tf\nW = tf.Variable(1.0)\nbefore = tf.trainable_variables()\n"
                 "c = tf.Variable(2.0)\nafter = tf.trainable_variables()\n",
                 "import tensorflow as tf\nW = tf.Variable(1.0)\nbefore = [W]\nc = tf.Variable(2.0)\nafter = [W, c]\n",
                 id="only-variables-created-so-far"),
    pytest.param("import tensorflow as tf\nW = tf.Variable(1.0)\n\n\n@tf.function\ndef step(x):\n"
                 "    return tf.add_n([tf.nn.l2_loss(v) for v in tf.trainable_variables()])\n",
                 "import tensorflow as tf\nW = tf.Variable(1.0)\n\n\n@tf.function\ndef step(x):\n"
                 "    return tf.add_n([tf.nn.l2_loss(v) for v in [W]])\n", id="in-function"),
    pytest.param("import tensorflow as tf\nupdates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)\n"
                 "regs = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)\n",
                 "updates = []\nregs = []\n", id="empty-update-ops-and-regularization"),
    pytest.param("import tensorflow.compat.v1 as tf\nW = tf.Variable(1.0)\n"
                 "# penalties\ntf.add_to_collection('penalties', tf.nn.l2_loss(W))\n"
                 "tf.add_to_collection('penalties', W * 2)\ntotal = tf.add_n(tf.get_collection('penalties'))\n",
                 "import tensorflow.compat.v1 as tf\nW = tf.Variable(1.0)\n"
                 "# penalties\npenalties_collection = []\npenalties_collection.append(tf.nn.l2_loss(W))\n"
                 "penalties_collection.append(W * 2)\ntotal = tf.add_n(list(penalties_collection))\n",
                 id="program-collection"),
    pytest.param("import tensorflow as tf\nW = tf.Variable(1.0)\ndef loss(x):\n"
                 "    tf.add_to_collection('terms', x * W)\n    return tf.add_n(tf.get_collection('terms'))\n",
                 "import tensorflow as tf\nW = tf.Variable(1.0)\ndef loss(x):\n    terms_collection = []\n"
                 "    terms_collection.append(x * W)\n    return tf.add_n(list(terms_collection))\n",
                 id="program-collection-in-function"),
]


@pytest.mark.parametrize(("before", "after"), REWRITES)
def test_rewrites(before, after):
    result = assert_rewrites("TFM104", before, after)
    assert result.findings == [] and {f.code for f in result.fixes} == {"TFM104"}


FINDINGS = [
    pytest.param("import tensorflow as tf\nW = tf.Variable(1.0)\nh = tf.layers.dense(x, 3)\np = tf.trainable_variables()\n",
                 "cannot be listed", id="layers"),
    pytest.param("import tensorflow as tf\nW = tf.Variable(1.0)\nW = tf.Variable(2.0)\np = tf.trainable_variables()\n",
                 "bound more than once", id="rebound"),
    pytest.param("import tensorflow as tf\nW = tf.Variable(1.0)\nopt = tf.train.AdamOptimizer()\n"
                 "v = tf.global_variables()\n", "slot variables", id="global-with-optimizer"),
    pytest.param("import tensorflow as tf\nW = tf.Variable(1.0)\np = tf.trainable_variables(scope=prefix)\n",
                 "not a string literal", id="scope-not-literal"),
    pytest.param("import tensorflow as tf\ny = tf.layers.batch_normalization(x, training=True)\n"
                 "u = tf.get_collection(tf.GraphKeys.UPDATE_OPS)\n", "update ops", id="batch-norm-update-ops"),
    pytest.param("import tensorflow as tf\nw = tf.get_variable('w', [1], regularizer=r)\n"
                 "u = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)\n", "regularizers", id="regularizer"),
    pytest.param("import tensorflow as tf\nl = tf.get_collection(tf.GraphKeys.LOSSES)\n", "implicitly", id="losses"),
    pytest.param("import tensorflow as tf\nu = tf.get_collection(key)\n", "not a literal", id="key-not-literal"),
    pytest.param("import tensorflow as tf\nt = tf.get_collection('terms')\ntf.add_to_collection('terms', 1.0)\n",
                 "read before anything is added", id="collection-read-first"),
    pytest.param("import tensorflow as tf\nm = tf.keras.Sequential()\np = tf.trainable_variables(scope='dense')\n",
                 "Keras layers make their variables on their first call", id="keras-scope"),
    # A layer object the program calls in its functions has no variables at module level yet.
    pytest.param("from tensorflow import keras\nimport tensorflow as tf\nmodel = keras.Sequential([keras.layers.Dense(1)])\n"
                 "p = tf.trainable_variables()\n", "the list would be empty here", id="keras-model-not-built-yet"),
    pytest.param("import tensorflow as tf\nW = tf.Variable(1.0)\nbn = tf.keras.layers.BatchNormalization()\n"
                 "p = tf.trainable_variables()\n", "the list would be empty here", id="keras-layer-not-built-yet"),
    pytest.param("import tensorflow as tf\ndef a(x):\n    tf.add_to_collection('terms', x)\n"
                 "def b():\n    return tf.get_collection('terms')\n", "more than one function", id="collection-two-functions"),
    # Never an empty list where the file cannot prove the collection empty (issue 17, item 1).
    pytest.param("import tensorflow as tf\nx = tf.constant(1.0)\nopt_vars = tf.trainable_variables()\n",
                 "no variable is created", id="nothing-created-is-not-empty"),
    pytest.param("import tensorflow as tf\ndef params():\n    return tf.trainable_variables()\n",
                 "no variable is created", id="helper-returning-the-collection"),
    pytest.param("import tensorflow as tf\nW = tf.Variable(1.0)\ndef params():\n    return tf.global_variables()\n"
                 "b = tf.Variable(2.0)\n", "created after that function", id="read-in-function-before-later-variables"),
    pytest.param("import tensorflow as tf\nfrom model import build\nW = tf.Variable(1.0)\nlogits = build(W)\n"
                 "p = tf.trainable_variables()\n", "`build` (imported as model.build) may create variables", id="imported-builder"),
    pytest.param("import tensorflow as tf\nimport nets\nlogits = nets.resnet(x)\n"
                 "u = tf.get_collection(tf.GraphKeys.UPDATE_OPS)\n", "`nets.resnet` (imported as nets)", id="imported-update-ops"),
    pytest.param("import tensorflow as tf\nfrom . import layers_lib as L\nh = L.dense(x)\n"
                 "r = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)\n", "`L.dense` (imported as .layers_lib)",
                 id="relative-import-regularization"),
    pytest.param("import tensorflow as tf\nslim = tf.contrib.slim\nh = slim.conv2d(x, 8, 3)\n"
                 "p = tf.trainable_variables()\n", "no variable is created", id="slim-alias"),
]


@pytest.mark.parametrize(("source", "fragment"), FINDINGS)
def test_findings(source, fragment):
    result = assert_unchanged("TFM104", source)
    assert result.findings and all(f.code == "TFM104" for f in result.findings)
    assert fragment in result.findings[0].message


NO_OPS = [
    pytest.param("import numpy as tf\nW = tf.Variable(1.0)\np = tf.trainable_variables()\n", id="non-tf-alias"),
    pytest.param("import tensorflow as tf\nm = tf.keras.Sequential()\np = m.trainable_variables\n", id="keras-attribute"),
    pytest.param("import tensorflow as tf\nW = tf.Variable(1.0)\np = tf.trainable_variables()  # tfmodernize: ignore[TFM104]\n",
                 id="suppressed"),
]


@pytest.mark.parametrize("source", NO_OPS)
def test_no_ops(source):
    assert_unchanged("TFM104", source)
