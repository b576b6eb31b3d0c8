import pytest

from tfmodernize.testing import assert_rewrites, assert_unchanged, rewrite

GOLDEN = [
    pytest.param(
        """\
        import tensorflow as tf

        @tf.function
        def f(x):
            print("x:", x)
            return x
        """,
        """\
        import tensorflow as tf
        import sys

        @tf.function
        def f(x):
            tf.print("x:", x, output_stream=sys.stdout)
            return x
        """,
        id="decorated",
    ),
    pytest.param(
        """\
        import sys
        import tensorflow as T

        @T.function(jit_compile=False)
        def f(x):
            print(x, sep=" | ", end="", file=sys.stderr)  # keep me
            return x
        """,
        """\
        import sys
        import tensorflow as T

        @T.function(jit_compile=False)
        def f(x):
            T.print(x, sep=" | ", end="", output_stream=sys.stderr)  # keep me
            return x
        """,
        id="alias-factory-keywords-comment",
    ),
    pytest.param(
        """\
        import tensorflow as tf

        def g(x):
            print(*x)
            return x

        f = tf.function(g)
        """,
        """\
        import tensorflow as tf
        import sys

        def g(x):
            tf.print(*x, output_stream=sys.stdout)
            return x

        f = tf.function(g)
        """,
        id="wrapped-by-call",
    ),
    pytest.param(
        """\
        import tensorflow as tf

        class M(tf.Module):
            def __init__(self):
                self.call = tf.function(self._call)

            def _call(self, x):
                print(f'x={x} {{raw}}')
                return x
        """,
        """\
        import tensorflow as tf
        import sys

        class M(tf.Module):
            def __init__(self):
                self.call = tf.function(self._call)

            def _call(self, x):
                tf.print('x=', x, ' {raw}', sep="", output_stream=sys.stdout)
                return x
        """,
        id="wrapped-method-fstring",
    ),
    pytest.param(
        """\
        from tensorflow import function
        import tensorflow as tf

        @function
        def f(x):
            print(x)
            return x
        """,
        """\
        from tensorflow import function
        import tensorflow as tf
        import sys

        @function
        def f(x):
            tf.print(x, output_stream=sys.stdout)
            return x
        """,
        id="from-import-function",
    ),
]


@pytest.mark.parametrize(("before", "after"), GOLDEN)
def test_rewrites(before, after):
    result = assert_rewrites("TFM206", before, after, unsafe_fixes=True)
    assert {f.code for f in result.fixes} == {"TFM206"}


NOOP = [
    pytest.param(
        """\
        import tensorflow as tf

        def f(x):
            print(x)
        """,
        id="plain-function",
    ),
    pytest.param(
        """\
        import tensorflow as tf

        @tf.function
        def f(x):
            def inner():
                print(x)
            return x
        """,
        id="nested-def",
    ),
    pytest.param(
        """\
        import tensorflow as tf

        class Tf:
            function = staticmethod(lambda f: f)

        tf_like = Tf()

        @tf_like.function
        def f(x):
            print(x)
        """,
        id="not-tf-function",
    ),
    pytest.param(
        """\
        import tensorflow
        from types import SimpleNamespace

        tf = SimpleNamespace(function=lambda f: f)

        @tf.function
        def f(x):
            print(x)
        """,
        id="non-tf-object-called-tf",
    ),
    pytest.param(
        """\
        import tensorflow as tf
        from rich import print

        @tf.function
        def f(x):
            print(x)
        """,
        id="print-shadowed",
    ),
    pytest.param(
        """\
        import tensorflow as tf

        @tf.function
        def f(x):
            print(x)  # tfmodernize: ignore[TFM206]
        """,
        id="suppressed",
    ),
    pytest.param(
        """\
        import tensorflow as tf

        @tf.function
        def f(x):
            tf.print(x)
            logger.print(x)
        """,
        id="already-tf-print",
    ),
    pytest.param(
        """\
        import tensorflow as tf

        def main():
            tf.config.experimental_run_functions_eagerly(True)

        @tf.function
        def f(x):
            print(x)
        """,
        id="functions-run-eagerly",
    ),
]


NOOP += [
    pytest.param(
        """\
        import tensorflow as tf

        @tf.function
        def f(x):
            print("Tracing f")
            print('traced', 2, "times?")
            return x
        """,
        id="literal-only-probe",
    ),
    pytest.param(
        """\
        import tensorflow as tf

        @tf.function
        def f(x):
            print("Tracing with", x)
            return x
        """,
        id="probe-saying-it-traces",
    ),
]


@pytest.mark.parametrize("source", NOOP)
def test_leaves_alone(source):
    result = assert_unchanged("TFM206", source, unsafe_fixes=True)
    assert result.findings == []


FINDINGS = [
    pytest.param('print("x=%s" % x)', "`%` string", id="percent"),
    pytest.param('print("x={}".format(x))', "`.format` string", id="format"),
    pytest.param('print(f"{x:.3f}")', "format spec", id="fstring-spec"),
    pytest.param('print("a", f"{x}")', "several arguments", id="fstring-among-others"),
    pytest.param("print(x, file=log)", "sys.stdout/sys.stderr", id="file"),
    pytest.param("print(x, flush=True)", "flush", id="flush"),
    pytest.param("print(**kw)", "**kwargs", id="kwargs"),
]


@pytest.mark.parametrize(("call", "fragment"), FINDINGS)
def test_reports_what_it_cannot_convert(call, fragment):
    source = f"import tensorflow as tf\n\n@tf.function\ndef f(x, log, kw):\n    {call}\n    return x\n"
    result = assert_unchanged("TFM206", source, unsafe_fixes=True)
    assert [f.code for f in result.findings] == ["TFM206"]
    assert fragment in result.findings[0].message


def test_a_value_print_mentioning_no_trace_is_still_converted():
    source = "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    print('retrace count', x)\n"
    result = rewrite("TFM206", source, unsafe_fixes=True)
    assert "tf.print('retrace count', x, output_stream=sys.stdout)" in result.code


XLA = [
    pytest.param(
        "import tensorflow as tf\n\n@tf.function(jit_compile=True)\ndef step(v):\n"
        "    for k in range(2):\n        print(f'pass {k}', v)\n    return v + 1.0\n",
        id="decorated",
    ),
    pytest.param(
        "import tensorflow as tf\n\ndef step(v):\n    print('value', v)\n    return v * 3.0\n\n"
        "fast_step = tf.function(step, jit_compile=True)\n",
        id="wrapped",
    ),
]


@pytest.mark.parametrize("source", XLA)
def test_xla_compiled_function_is_reported_not_converted(source):
    result = assert_unchanged("TFM206", source, unsafe_fixes=True)
    assert [f.code for f in result.findings] == ["TFM206"]
    assert "jit_compile=True" in result.findings[0].message


def test_jit_compile_false_is_still_converted():
    source = "import tensorflow as tf\n\n@tf.function(jit_compile=False)\ndef f(x):\n    print('x', x)\n"
    result = rewrite("TFM206", source, unsafe_fixes=True)
    assert "tf.print('x', x, output_stream=sys.stdout)" in result.code


def test_unsafe_fix_is_a_finding_without_unsafe_fixes():
    source = "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    print(x)\n"
    result = assert_unchanged("TFM206", source)
    assert [f.code for f in result.findings] == ["TFM206"]
    assert "--unsafe-fixes" in result.findings[0].message
