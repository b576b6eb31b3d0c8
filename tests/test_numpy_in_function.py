import pytest

from tfmodernize.testing import assert_unchanged

POSITIVE = [
    pytest.param("import tensorflow as tf\n\n@tf.function\ndef f(x):\n    return x.numpy()\n", id="decorated"),
    pytest.param(
        "import tensorflow as T\n\n@T.function(jit_compile=True)\ndef f(x):\n    y = x * 2\n    return float(y.numpy()) + 1\n",
        id="alias-factory",
    ),
    pytest.param(
        "import tensorflow as tf\n\nclass M(tf.Module):\n    def __init__(self):\n        self.run = tf.function(self._run)\n\n"
        "    def _run(self, x):\n        return x.numpy()\n",
        id="wrapped-method",
    ),
]


@pytest.mark.parametrize("source", POSITIVE)
def test_reports_numpy_call(source):
    result = assert_unchanged("TFM303", source)
    assert [f.code for f in result.findings] == ["TFM303"]
    assert "symbolic" in result.findings[0].message and "outside" in result.findings[0].message


NOOP = [
    pytest.param("import tensorflow as tf\n\ndef f(x):\n    return x.numpy()\n", id="eager-function"),
    pytest.param(
        "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    return x\n\ny = f(1).numpy()\n", id="outside-call"
    ),
    pytest.param(
        "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    return x.numpy(1)\n", id="numpy-with-arguments"
    ),
    pytest.param(
        "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    return x.numpy()  # tfmodernize: ignore\n",
        id="suppressed",
    ),
    pytest.param(
        "import tensorflow as tf\ntf.config.run_functions_eagerly(True)\n\n@tf.function\ndef f(x):\n    return x.numpy()\n",
        id="functions-run-eagerly",
    ),
]


@pytest.mark.parametrize("source", NOOP)
def test_leaves_alone(source):
    assert assert_unchanged("TFM303", source).findings == []
