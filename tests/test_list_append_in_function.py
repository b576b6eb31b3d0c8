import pytest

from tfmodernize.testing import assert_rewrites, assert_unchanged

GOLDEN = [
    pytest.param(
        """\
        import tensorflow as tf

        @tf.function
        def f(xs):
            out = []  # collected per step
            for x in xs:
                out.append(tf.cast(x, tf.float32))
            return tf.stack(out)
        """,
        """\
        import tensorflow as tf

        @tf.function
        def f(xs):
            out = tf.TensorArray(tf.float32, size=0, dynamic_size=True)  # collected per step
            for x in xs:
                out = out.write(out.size(), tf.cast(x, tf.float32))
            return out.stack()
        """,
        id="stack-cast",
    ),
    pytest.param(
        """\
        import tensorflow as T

        def g(n):
            parts = []
            for i in T.range(n):
                piece = T.zeros([i], dtype=T.int64)
                parts.append(piece)
            return T.concat(parts, axis=0)

        f = T.function(g)
        """,
        """\
        import tensorflow as T

        def g(n):
            parts = T.TensorArray(T.int64, size=0, dynamic_size=True, infer_shape=False)
            for i in T.range(n):
                piece = T.zeros([i], dtype=T.int64)
                parts = parts.write(parts.size(), piece)
            return parts.concat()

        f = T.function(g)
        """,
        id="alias-wrapped-concat-through-name",
    ),
    pytest.param(
        """\
        import tensorflow as tf

        class M(tf.Module):
            @tf.function(reduce_retracing=True)
            def __call__(self, xs):
                ys = []
                for k in range(3):
                    ys.append(tf.cast(xs * k, dtype=tf.float64))
                return tf.convert_to_tensor(ys)
        """,
        """\
        import tensorflow as tf

        class M(tf.Module):
            @tf.function(reduce_retracing=True)
            def __call__(self, xs):
                ys = tf.TensorArray(tf.float64, size=0, dynamic_size=True)
                for k in range(3):
                    ys = ys.write(ys.size(), tf.cast(xs * k, dtype=tf.float64))
                return ys.stack()
        """,
        id="method-convert-to-tensor",
    ),
]


@pytest.mark.parametrize(("before", "after"), GOLDEN)
def test_rewrites(before, after):
    result = assert_rewrites("TFM210", before, after)
    assert {f.code for f in result.fixes} == {"TFM210"}


NOOP = [
    pytest.param(
        """\
        import tensorflow as tf

        def f(xs):
            out = []
            for x in xs:
                out.append(tf.cast(x, tf.float32))
            return tf.stack(out)
        """,
        id="not-traced",
    ),
    pytest.param(
        """\
        import tensorflow as tf

        @tf.function
        def f(xs):
            out = []
            out.append(tf.cast(xs, tf.float32))
            return tf.stack(out)
        """,
        id="append-outside-loop",
    ),
    pytest.param(
        """\
        import numpy as np
        import tensorflow as tf

        @tf.function
        def f(xs):
            out = []
            for x in xs:
                out.append(tf.cast(x, tf.float32))
            return np.stack(out)
        """,
        id="numpy-stack-lookalike",
    ),
    pytest.param(
        """\
        import tensorflow as tf

        @tf.function
        def f(xs):
            out = []  # tfmodernize: ignore[TFM210]
            for x in xs:
                out.append(tf.cast(x, tf.float32))
            return tf.stack(out)
        """,
        id="suppressed",
    ),
    pytest.param(
        """\
        import tensorflow as tf

        @tf.function(input_signature=[tf.TensorSpec([3], tf.float32)], autograph=False)
        def f(xs):
            out = []
            for k in range(3):
                out.append(tf.cast(xs[k], tf.float32))
            return tf.stack(out)
        """,
        id="traced-without-autograph",
    ),
]


@pytest.mark.parametrize("source", NOOP)
def test_leaves_alone(source):
    assert_unchanged("TFM210", source)


def _loop(body: str, tail: str = "return tf.stack(out)") -> str:
    return (
        "import tensorflow as tf\n\n@tf.function\ndef f(xs):\n    out = []\n"
        f"    for x in xs:\n        {body}\n    {tail}\n"
    )


FINDINGS = [
    pytest.param(_loop("out.append(x * 2)"), "dtype is not stated", id="dtype-unknown"),
    pytest.param(
        _loop("out.append(tf.cast(x, tf.float32))", "return tf.stack(out), len(out)"), "used other than", id="other-use"
    ),
    pytest.param(
        _loop("out.append(tf.cast(x, tf.float32))", "return tf.stack(out, axis=1)"),
        "used other than",
        id="stack-axis-1",
    ),
    pytest.param(_loop("out.append(tf.cast(x, tf.float32))", "return out"), "used other than", id="returned-as-list"),
    pytest.param(
        _loop("if x > 0:\n            out.append(tf.cast(x, tf.float32))"),
        "directly in a loop",
        id="conditional-append",
    ),
    pytest.param(
        _loop(
            "out.append(tf.cast(x, tf.float32))",
            "for y in xs:\n        out.append(tf.cast(y, tf.float32))\n    return tf.stack(out)",
        ),
        "more than one loop",
        id="two-loops",
    ),
]


def _array(body: str, tail: str, dtype: str = "tf.float32") -> str:
    return (
        f"import tensorflow as tf\n\n@tf.function\ndef f(xs):\n    out = tf.TensorArray({dtype}, size=0, dynamic_size=True)\n"
        f"    for x in xs:\n        {body}\n    {tail}\n"
    )


INFERRED = [
    pytest.param(
        _loop("out.append(tf.square(x) * 2.0)", "return tf.add_n(out)").replace(
            "for x in xs", "for x in tf.unstack(xs)"
        ),
        None,
        id="dtype-unknown-through-square",
    ),
    pytest.param(
        _loop("out.append(tf.cast(x, tf.float32) * 2.0)", "return tf.add_n(out)"),
        _array(
            "out = out.write(out.size(), tf.cast(x, tf.float32) * 2.0)", "return tf.reduce_sum(out.stack(), axis=0)"
        ),
        id="add-n-dtype-through-product",
    ),
    pytest.param(
        _loop("out.append(0.5)", "return tf.reduce_sum(out)"),
        _array("out = out.write(out.size(), 0.5)", "return tf.reduce_sum(out.stack())"),
        id="reduce-sum-float-literal",
    ),
    pytest.param(
        _loop(
            "y = tf.zeros([3])\n        out.append(tf.reduce_max(y + 1, axis=0))",
            "return tf.reduce_mean(out, axis=0, keepdims=True)",
        ),
        _array(
            "y = tf.zeros([3])\n        out = out.write(out.size(), tf.reduce_max(y + 1, axis=0))",
            "return tf.reduce_mean(out.stack(), axis=0, keepdims=True)",
        ),
        id="reduce-mean-float32-maker-through-name",
    ),
    pytest.param(
        _loop("out.append(i * 2)", "return tf.stack(out)").replace(
            "for x in xs", "for i in tf.range(3, dtype=tf.int64)"
        ),
        _array("out = out.write(out.size(), i * 2)", "return out.stack()", dtype="tf.int64").replace(
            "for x in xs", "for i in tf.range(3, dtype=tf.int64)"
        ),
        id="range-variable-dtype",
    ),
    pytest.param(
        _loop("out.append(tf.cast(x, tf.int32) / 2)", "return tf.add_n(out)"),
        None,
        id="integer-division-is-float64",
    ),
    pytest.param(
        _loop("out.append(tf.zeros([2], tf.int32) + tf.constant(1, tf.int32))"),
        _array(
            "out = out.write(out.size(), tf.zeros([2], tf.int32) + tf.constant(1, tf.int32))",
            "return out.stack()",
            dtype="tf.int32",
        ),
        id="dtype-passed-by-position",
    ),
    pytest.param(
        _loop("out.append(tf.stop_gradient(tf.math.negative(tf.cast(x, tf.float64))))"),
        _array(
            "out = out.write(out.size(), tf.stop_gradient(tf.math.negative(tf.cast(x, tf.float64))))",
            "return out.stack()",
            dtype="tf.float64",
        ),
        id="ops-keeping-the-first-operand-dtype",
    ),
    pytest.param(
        _loop("out.append(tf.linspace(x, 1.0, 3))"),
        None,
        id="linspace-of-an-unknown-start",
    ),
]


@pytest.mark.parametrize(("before", "after"), INFERRED)
def test_infers_dtype_and_reductions(before, after):
    if after is None:
        result = assert_unchanged("TFM210", before)
        assert [f.code for f in result.findings] == ["TFM210"]
        assert "dtype is not stated" in result.findings[0].message
    else:
        assert_rewrites("TFM210", before, after)


@pytest.mark.parametrize(("source", "fragment"), FINDINGS)
def test_reports_lists_it_cannot_replace(source, fragment):
    result = assert_unchanged("TFM210", source)
    assert [f.code for f in result.findings] == ["TFM210"]
    assert fragment in result.findings[0].message
