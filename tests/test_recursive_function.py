import pytest

from tfmodernize.testing import assert_unchanged

POSITIVE = [
    pytest.param(
        "import tensorflow as tf\n\n@tf.function\ndef fact(n):\n    return 1 if n == 0 else n * fact(n - 1)\n",
        "`fact`",
        id="decorated",
    ),
    pytest.param(
        "import tensorflow as T\n\nclass Tree(T.Module):\n    @T.function\n    def depth(self, node):\n"
        "        return 1 + self.depth(node - 1)\n",
        "`depth`",
        id="method-alias",
    ),
    pytest.param(
        "import tensorflow as tf\n\ndef walk(x):\n    return walk(x - 1)\n\nwalk_fn = tf.function(walk)\n",
        "`walk`",
        id="wrapped",
    ),
]


@pytest.mark.parametrize(("source", "fragment"), POSITIVE)
def test_reports_recursion(source, fragment):
    result = assert_unchanged("TFM305", source)
    assert [f.code for f in result.findings] == ["TFM305"]
    assert fragment in result.findings[0].message and "loop" in result.findings[0].message


NOOP = [
    pytest.param(
        "import tensorflow as tf\n\ndef fact(n):\n    return 1 if n == 0 else n * fact(n - 1)\n", id="not-traced"
    ),
    pytest.param(
        "import tensorflow as tf\n\ndef helper(n):\n    return 1 if n == 0 else helper(n - 1)\n\n@tf.function\ndef f(x):\n    return x * helper(3)\n",
        id="recursive-python-helper",
    ),
    pytest.param(
        "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    def f(y):\n        return y\n    return x\n",
        id="nested-def-same-name",
    ),
    pytest.param(
        "import tensorflow as tf\n\n@tf.function\ndef f(n):\n    return f(n - 1)  # tfmodernize: ignore[TFM305]\n",
        id="suppressed",
    ),
]


@pytest.mark.parametrize("source", NOOP)
def test_leaves_alone(source):
    assert assert_unchanged("TFM305", source).findings == []
