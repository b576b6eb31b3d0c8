import pytest

from tfmodernize.testing import assert_unchanged


def module(tail: str, head: str = "SCALE = 0.5\n", body: str = "return x * SCALE") -> str:
    return f"import tensorflow as tf\n{head}\n@tf.function\ndef f(x):\n    {body}\n\n{tail}\n"


POSITIVE = [
    pytest.param(module("SCALE = 2.0"), "line 8", id="rebound-later"),
    pytest.param(module("SCALE += 1"), "line 8", id="augmented"),
    pytest.param(module("for SCALE in (1, 2):\n    f(1.0)"), "line 8", id="loop-variable"),
    pytest.param(module("def set_scale(v):\n    global SCALE\n    SCALE = v"), "line 10", id="global-statement"),
    pytest.param(
        "import tensorflow as T\nLR = -1e-3\n\ndef g(x):\n    return x * LR\n\nf = T.function(g)\nLR = 1e-4\n",
        "line 8",
        id="alias-wrapped-negative-number",
    ),
    pytest.param(
        module("f(2.0)", head="calls = 0\n", body="global calls\n    calls += 1\n    return x + calls"),
        "line 7",
        id="counter-also-read-into-the-graph",
    ),
    pytest.param(
        module("y = f(1.0)\nSCALE = tf.Variable(2.0)"),
        "line 9",
        id="rebound-to-a-variable-after-a-call",
    ),
]


@pytest.mark.parametrize(("source", "fragment"), POSITIVE)
def test_reports_stale_global(source, fragment):
    result = assert_unchanged("TFM306", source)
    assert [f.code for f in result.findings] == ["TFM306"]
    assert fragment in result.findings[0].message and "baked into the graph" in result.findings[0].message


NOOP = [
    pytest.param(module("y = f(1.0)"), id="never-rebound"),
    pytest.param(module("SCALE = 2.0", head="SCALE = 0.5\nSCALE = 0.7\n", body="return x"), id="not-read"),
    pytest.param(module("SCALE = 2.0", body="SCALE = 3.0\n    return x * SCALE"), id="local-name"),
    pytest.param(module("SCALE = [2.0]", head="SCALE = [0.5]\n"), id="not-a-number"),
    pytest.param(module("SCALE = 2.0", body="return x * cfg.SCALE"), id="attribute-lookalike"),
    pytest.param(module("y = f(1.0)", head="SCALE = 0.1\nSCALE = 0.5\n"), id="rebound-before-definition"),
    pytest.param(module("SCALE = 2.0", body="return x * SCALE  # tfmodernize: ignore[TFM306]"), id="suppressed"),
    pytest.param(
        module(
            "f(1.0)\nf(tf.constant([1.0, 2.0]))\nseen = calls",
            head="calls = 0\n",
            body="global calls\n    calls += 1\n    return tf.square(x)",
        ),
        id="trace-counter-only-incremented",
    ),
    pytest.param(
        module("f(1.0)", head="n_runs = 0\n", body="global n_runs\n    n_runs -= 1\n    return x"),
        id="counter-only-decremented",
    ),
    pytest.param(
        module("SCALE = tf.Variable(2.0)\ny = f(1.0)\nSCALE.assign(3.0)"), id="rebound-to-a-variable-before-any-call"
    ),
]


@pytest.mark.parametrize("source", NOOP)
def test_leaves_alone(source):
    assert assert_unchanged("TFM306", source).findings == []
