import pytest

from tfmodernize.testing import assert_rewrites, assert_unchanged

GOLDEN = [
    pytest.param(
        """\
        import tensorflow as tf


        @tf.function
        def f(x):
            v = tf.Variable(1.0)
            v.assign_add(x)
            return v.read_value()
        """,
        """\
        import tensorflow as tf


        v = tf.Variable(1.0)


        @tf.function
        def f(x):
            v.assign(1.0)
            v.assign_add(x)
            return v.read_value()
        """,
        id="module-function",
    ),
    pytest.param(
        """\
        import numpy as np
        import tensorflow as T

        v = None
        N = 3

        # the step
        @T.function(jit_compile=False)
        def step(x):
            v = T.Variable(np.zeros(N, np.float32), trainable=False)
            v.assign_add(x)
            return v
        """,
        """\
        import numpy as np
        import tensorflow as T

        v = None
        N = 3

        # the step
        step_v = T.Variable(np.zeros(N, np.float32), trainable=False)


        @T.function(jit_compile=False)
        def step(x):
            step_v.assign(np.zeros(N, np.float32))
            step_v.assign_add(x)
            return step_v
        """,
        id="alias-name-taken-comment-kept",
    ),
    pytest.param(
        """\
        import tensorflow as tf

        class Counter(tf.Module):
            def __init__(self):
                super().__init__()

            @tf.function
            def __call__(self, x):
                count = tf.Variable(0.0)
                count.assign_add(x)
                return count
        """,
        """\
        import tensorflow as tf

        class Counter(tf.Module):
            def __init__(self):
                super().__init__()
                self._count = None

            @tf.function
            def __call__(self, x):
                if self._count is None:
                    self._count = tf.Variable(0.0)
                else:
                    self._count.assign(0.0)
                self._count.assign_add(x)
                return self._count
        """,
        id="method-local",
    ),
    pytest.param(
        """\
        import tensorflow as tf

        class Model(tf.Module):
            def __init__(self, n):
                self.n = n

            def _run(self, x):
                self.w = tf.Variable(tf.ones([self.n]))
                return self.w * x

            def build(self):
                self.run = tf.function(self._run)
        """,
        """\
        import tensorflow as tf

        class Model(tf.Module):
            def __init__(self, n):
                self.n = n
                self.w = None

            def _run(self, x):
                if self.w is None:
                    self.w = tf.Variable(tf.ones([self.n]))
                else:
                    self.w.assign(tf.ones([self.n]))
                return self.w * x

            def build(self):
                self.run = tf.function(self._run)
        """,
        id="wrapped-method-attribute",
    ),
    pytest.param(
        """\
        import tensorflow as tf

        def g(x):
            acc = tf.Variable(initial_value=tf.zeros([2]))
            return acc.assign_add(x)

        f = tf.function(g)
        """,
        """\
        import tensorflow as tf

        acc = tf.Variable(initial_value=tf.zeros([2]))


        def g(x):
            acc.assign(tf.zeros([2]))
            return acc.assign_add(x)

        f = tf.function(g)
        """,
        id="wrapped-function-keyword-initial-value",
    ),
]


@pytest.mark.parametrize(("before", "after"), GOLDEN)
def test_rewrites(before, after):
    result = assert_rewrites("TFM209", before, after)
    assert {f.code for f in result.fixes} == {"TFM209"}


NOOP = [
    pytest.param(
        """\
        import tensorflow as tf

        def f(x):
            v = tf.Variable(1.0)
            return v
        """,
        id="not-traced",
    ),
    pytest.param(
        """\
        import tensorflow as tf

        class C(tf.Module):
            def __init__(self):
                self.v = None

            @tf.function
            def __call__(self, x):
                if self.v is None:
                    self.v = tf.Variable(1.0)
                return self.v * x
        """,
        id="already-guarded",
    ),
    pytest.param(
        """\
        import tensorflow as tf

        class Affine(tf.Module):
            def __init__(self):
                self.built = False

            @tf.function
            def __call__(self, x):
                if not self.built:
                    self.scale = tf.Variable(tf.ones([x.shape[-1]]))
                    self.shift = tf.Variable(tf.zeros([x.shape[-1]]))
                    self.built = True
                return x * self.scale + self.shift
        """,
        id="lazy-creation-under-not-built",
    ),
    pytest.param(
        """\
        import tensorflow as tf
        from types import SimpleNamespace

        tf2 = SimpleNamespace(Variable=list)

        @tf.function
        def f(x):
            v = tf2.Variable((1, 2))
            return x
        """,
        id="other-variable",
    ),
    pytest.param(
        """\
        import tensorflow as tf

        @tf.function
        def f(x):
            v = tf.Variable(1.0)  # tfmodernize: ignore[variable-in-function]
            return v
        """,
        id="suppressed",
    ),
]


@pytest.mark.parametrize("source", NOOP)
def test_leaves_alone(source):
    result = assert_unchanged("TFM209", source)
    assert result.findings == []


FINDINGS = [
    pytest.param(
        """\
        import tensorflow as tf

        @tf.function
        def f(x):
            v = tf.Variable(x * 2.0)
            return v
        """,
        "depends on x",
        id="depends-on-argument",
    ),
    pytest.param(
        """\
        import tensorflow as tf

        class C(tf.Module):
            def __init__(self):
                pass

            @tf.function
            def __call__(self, x):
                shape = tf.shape(x)
                v = tf.Variable(tf.zeros(shape))
                return v
        """,
        "depends on shape",
        id="method-depends-on-local",
    ),
    pytest.param(
        """\
        import tensorflow as tf

        @tf.function
        def f(x):
            for i in range(2):
                v = tf.Variable(1.0)
            return x
        """,
        "inside a loop",
        id="in-loop",
    ),
    pytest.param(
        """\
        import tensorflow as tf

        class C(tf.Module):
            def __init__(self):
                self.built = False

            @tf.function
            def __call__(self, x):
                if not self.built:
                    self.v = tf.Variable(1.0)
                return self.v * x
        """,
        "inside a loop, a branch",
        id="not-built-flag-never-set",
    ),
    pytest.param(
        """\
        import tensorflow as tf

        @tf.function
        def f(x):
            v = tf.Variable(tf.random.normal([2]))
            return v
        """,
        "random",
        id="random-initial-value",
    ),
    pytest.param(
        """\
        import tensorflow as tf

        class C(tf.Module):
            @tf.function
            def __call__(self, x):
                v = tf.Variable(1.0)
                return v
        """,
        "no `__init__`",
        id="no-init",
    ),
    pytest.param(
        """\
        import tensorflow as tf

        SCALE = 2.0

        @tf.function
        def f(x):
            v = tf.Variable(SCALE)
            return v

        SCALE = 3.0
        """,
        "depends on SCALE",
        id="module-name-rebound",
    ),
]


@pytest.mark.parametrize(("source", "fragment"), FINDINGS)
def test_reports_unsafe_creations(source, fragment):
    result = assert_unchanged("TFM209", source)
    assert [f.code for f in result.findings] == ["TFM209"]
    assert fragment in result.findings[0].message
    assert "raises when the function is traced again" in result.findings[0].message
