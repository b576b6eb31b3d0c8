import pytest

from tfmodernize.testing import assert_unchanged

HEAD = "import tensorflow as tf\n"

POSITIVE = [
    pytest.param(HEAD + "it = iter([1, 2])\n\n@tf.function\ndef f():\n    return next(it)\n", id="module-iter-list"),
    pytest.param(HEAD + "@tf.function\ndef f(xs):\n    return next(iter(range(3)))\n", id="inline-iter-range"),
    pytest.param(
        HEAD + "def gen():\n    yield 1\n\nbatches = gen()\n\n@tf.function\ndef f():\n    return next(batches)\n",
        id="generator",
    ),
    pytest.param(
        "import tensorflow as T\nit = iter(zip([1], [2]))\n\ndef g():\n    return next(it)\n\nf = T.function(g)\n",
        id="alias-wrapped",
    ),
]


@pytest.mark.parametrize("source", POSITIVE)
def test_reports_next_on_python_iterator(source):
    result = assert_unchanged("TFM302", source)
    assert [f.code for f in result.findings] == ["TFM302"]
    assert "runs only while tracing" in result.findings[0].message
    assert "tf.data.Dataset" in result.findings[0].message


NOOP = [
    pytest.param(HEAD + "it = iter([1, 2])\n\ndef f():\n    return next(it)\n", id="not-traced"),
    pytest.param(
        HEAD + "it = iter(tf.data.Dataset.range(3))\n\n@tf.function\ndef f():\n    return next(it)\n",
        id="dataset-iterator",
    ),
    pytest.param(
        HEAD + "ds = tf.data.Dataset.range(3).batch(2)\nit = iter(ds)\n\n@tf.function\ndef f():\n    return next(it)\n",
        id="dataset-through-name",
    ),
    pytest.param(HEAD + "@tf.function\ndef f(it):\n    return next(it)\n", id="unknown-origin"),
    pytest.param(
        HEAD + "from itertools import count as next\nit = iter([1])\n\n@tf.function\ndef f():\n    return next(it)\n",
        id="next-shadowed",
    ),
    pytest.param(
        HEAD + "it = iter([1, 2])\n\n@tf.function\ndef f():\n    return next(it)  # tfmodernize: ignore[TFM302]\n",
        id="suppressed",
    ),
]


@pytest.mark.parametrize("source", NOOP)
def test_leaves_alone(source):
    assert assert_unchanged("TFM302", source).findings == []
