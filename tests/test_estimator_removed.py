"""TFM119 estimator-removed: mode keys written as their strings, every other tf.estimator name
reported once (the file counted as kept on TF1 for it), the hooks left to contrib-to-core."""

import pytest

from tfmodernize.engine import transform_text
from tfmodernize.registry import find_codemod
from tfmodernize.testing import assert_rewrites, assert_unchanged

REWRITES = [
    pytest.param(
        "import tensorflow as tf\n_TRAIN, _EVAL = tf.estimator.ModeKeys.TRAIN, tf.estimator.ModeKeys.EVAL\n",
        '_TRAIN, _EVAL = "train", "eval"\n',
        id="module-constants-and-the-import-nothing-reads-then",
    ),
    pytest.param(
        "import tensorflow as tf\ndef f(mode=tf.estimator.ModeKeys.PREDICT):\n"
        "    return tf.constant(mode == tf.compat.v1.estimator.ModeKeys.TRAIN)\n",
        'import tensorflow as tf\ndef f(mode="infer"):\n    return tf.constant(mode == "train")\n',
        id="default-argument-and-compat-v1",
    ),
    pytest.param(
        "import tensorflow.compat.v1 as tf\nMODES = {tf.estimator.ModeKeys.EVAL: tf.Session}\n",
        'import tensorflow.compat.v1 as tf\nMODES = {"eval": tf.Session}\n',
        id="through-compat-v1-import",
    ),
    pytest.param(
        "from tensorflow import estimator\nimport tensorflow as tf\nx = estimator.ModeKeys.TRAIN\ny = tf.constant(1)\n",
        'import tensorflow as tf\nx = "train"\ny = tf.constant(1)\n',
        id="imported-module-goes-once-unread",
    ),
]


@pytest.mark.parametrize(("before", "after"), REWRITES)
def test_mode_keys_become_strings(before, after):
    result = assert_rewrites("TFM119", before, after)
    assert result.findings == []


REPORTED = [
    pytest.param("c = tf.estimator.RunConfig()\n", "tf.estimator.RunConfig", "Model.fit", id="run-config"),
    pytest.param("c = tf.estimator.DNNClassifier([3], [])\n", "tf.estimator.DNNClassifier", "Dense", id="canned"),
    pytest.param(
        "r = tf.estimator.export.ServingInputReceiver({}, {})\n",
        "tf.estimator.export.ServingInputReceiver",
        "tf.saved_model.save",
        id="serving-export",
    ),
    pytest.param(
        "f = tf.estimator.inputs.numpy_input_fn({})\n",
        "tf.estimator.inputs.numpy_input_fn",
        "tf.data.Dataset",
        id="numpy-input",
    ),
    pytest.param("k = tf.estimator.ModeKeys\n", "tf.estimator.ModeKeys", '"train"', id="mode-keys-class"),
    pytest.param(
        "class E(tf.estimator.Estimator):\n    pass\n", "tf.estimator.Estimator", "custom training loop", id="subclass"
    ),
]


@pytest.mark.parametrize(("code", "name", "instead"), REPORTED)
def test_other_names_are_reported(code, name, instead):
    source = "import tensorflow as tf\n" + code + code.replace("= ", "= 1 or ", 1)
    new, state = transform_text(source, [find_codemod("TFM119")])
    assert new == source
    messages = [f.message for f in state.findings]
    assert len(messages) == 1, messages  # once per name
    assert messages[0].startswith(f"{name} is gone since TensorFlow 2.16")
    assert "cannot run on TF 2.16+" in messages[0] and instead in messages[0]
    # TF2 code (no TF1-only name): not kept on compat.v1, which TF2's estimator never needed.
    assert state.kept_on_v1 == []


def test_a_file_kept_on_compat_v1_is_kept_by_its_estimator_names_too():
    source = "import tensorflow as tf\nx = tf.placeholder(tf.float32)\nc = tf.estimator.RunConfig()\n"
    codemods = [find_codemod("TFM113"), find_codemod("TFM119")]
    new, state = transform_text(source, codemods)
    assert state.kept_on_v1 == [("tf.placeholder", 2), ("tf.estimator.RunConfig", 3)]
    assert new.startswith("import tensorflow.compat.v1 as tf\n")


NO_OPS = [
    pytest.param("import tensorflow as tf\nh = tf.estimator.SessionRunHook\n", id="hooks-are-contrib-to-cores"),
    pytest.param("import tensorflow as tf\nestimator = object()\nm = estimator.ModeKeys.TRAIN\n", id="not-tf"),
    pytest.param("import tensorflow as tf\nx = tf.constant(1)  # estimator\n", id="no-estimator-name"),
]


@pytest.mark.parametrize("source", NO_OPS)
def test_unchanged(source):
    result = assert_unchanged("TFM119", source)
    assert result.findings == []
