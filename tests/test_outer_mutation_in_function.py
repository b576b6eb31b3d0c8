import pytest

from tfmodernize.testing import assert_unchanged


def traced(body: str, head: str = "history = []\ncache = {}\n") -> str:
    return f"import tensorflow as tf\n{head}\n@tf.function\ndef f(x, items):\n    {body}\n    return x\n"


POSITIVE = [
    pytest.param(traced("history.append(x)"), "`history`", id="append-global"),
    pytest.param(traced("cache['k'] = x"), "`cache`", id="setitem-global"),
    pytest.param(traced("del cache['k']"), "`cache`", id="delitem-global"),
    pytest.param(traced("history += [x]"), "`history`", id="augassign-list"),
    pytest.param(traced("items.extend([x])"), "`items`", id="argument"),
    pytest.param(
        "import tensorflow as tf\n\nclass M(tf.Module):\n    @tf.function\n    def __call__(self, x):\n"
        "        self.seen.append(x)\n        return x\n",
        "`self.seen`",
        id="self-attribute",
    ),
]


@pytest.mark.parametrize(("source", "fragment"), POSITIVE)
def test_reports_outer_mutation(source, fragment):
    result = assert_unchanged("TFM304", source)
    assert [f.code for f in result.findings] == ["TFM304"]
    assert fragment in result.findings[0].message
    assert "once while tracing" in result.findings[0].message


NOOP = [
    pytest.param(traced("out = []\n    out.append(x)\n    d = {}\n    d['k'] = x"), id="local-containers"),
    pytest.param("import tensorflow as tf\nhistory = []\n\ndef f(x):\n    history.append(x)\n", id="not-traced"),
    pytest.param(traced("x = x + 1"), id="no-mutation"),
    pytest.param(traced("tf.keras.backend.clear_session()"), id="tf-call"),
    pytest.param(traced("history.append(x)  # tfmodernize: ignore[outer-mutation-in-function]"), id="suppressed"),
]


@pytest.mark.parametrize("source", NOOP)
def test_leaves_alone(source):
    assert assert_unchanged("TFM304", source).findings == []
