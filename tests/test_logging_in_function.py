"""TFM211 logging-in-function: golden, finding and no-op tables."""

import pytest

from tfmodernize.testing import assert_rewrites, assert_unchanged


def traced(line: str, imports: str = "from absl import logging\n") -> str:
    return f"import tensorflow as tf\n{imports}\n@tf.function\ndef f(x):\n    {line}\n    return x\n"


REWRITES = [
    pytest.param(
        traced("logging.info('x %s', x)"),
        traced("tf.print('x ', x, sep=\"\", output_stream=logging.info)"),
        id="absl-lazy-args",
    ),
    pytest.param(
        traced("tf.compat.v1.logging.info(str(x))"),
        traced("tf.print(x, output_stream=tf.compat.v1.logging.info)"),
        id="tf-compat-str",
    ),
    pytest.param(
        traced("logging.warning(f'x={x} done')"),
        traced("tf.print('x=', x, ' done', sep=\"\", output_stream=logging.warning)"),
        id="fstring",
    ),
    pytest.param(
        traced("logging.error('x ' + str(x))"),
        traced("tf.print('x ', x, sep=\"\", output_stream=logging.error)"),
        id="concatenation",
    ),
    pytest.param(
        traced("logging.info('%s and %s (100%%)' % (x, x))"),
        traced("tf.print(x, ' and ', x, ' (100%)', sep=\"\", output_stream=logging.info)"),
        id="percent-tuple",
    ),
    pytest.param(
        traced("absl.logging.info(x)", imports="import absl.logging\n"),
        traced("tf.print(x, output_stream=absl.logging.info)", imports="import absl.logging\n"),
        id="absl-module",
    ),
]


@pytest.mark.parametrize(("before", "after"), REWRITES)
def test_rewrites(before, after):
    result = assert_rewrites("TFM211", before, after, unsafe_fixes=True)
    assert {f.code for f in result.fixes} == {"TFM211"}


FINDINGS = [
    pytest.param(traced("logging.info('x %s', x)"), "unsafe fix", id="unsafe-without-option"),
    pytest.param(
        traced("logging.info('x %s', x)", imports="import logging\n"), "Python's logging", id="python-logging"
    ),
    pytest.param(traced("tf.get_logger().info(x)", imports=""), "Python's logging", id="tf-get-logger"),
    pytest.param(traced("logging.debug(x)"), "cannot log at `debug`", id="debug-level"),
    pytest.param(traced("logging.info('%.3f', x)"), "only `%s` placeholders", id="format-spec"),
    pytest.param(traced("logging.info('x', x)"), "only `%s` placeholders", id="extra-argument"),
    pytest.param(traced("logging.info('x {}'.format(x))"), "computed at trace time", id="format-method"),
    pytest.param(traced("logging.info(x, exc_info=True)"), "keyword", id="keyword"),
]


@pytest.mark.parametrize(("source", "fragment"), FINDINGS)
def test_findings(source, fragment):
    result = assert_unchanged("TFM211", source)
    assert [f.code for f in result.findings] == ["TFM211"]
    assert "runs once, while tracing" in result.findings[0].message
    assert fragment in result.findings[0].message


NO_OPS = [
    pytest.param(traced("logging.info('tracing f')"), id="literal-only-probe"),
    pytest.param(traced("tf.print(x, output_stream=logging.info)"), id="already-tf-print"),
    pytest.param(
        "import tensorflow as tf\nfrom absl import logging\ndef f(x):\n    logging.info('x %s', x)\n", id="not-traced"
    ),
    pytest.param(
        "import tensorflow as tf\nfrom absl import logging\ntf.config.run_functions_eagerly(True)\n"
        "@tf.function\ndef f(x):\n    logging.info('x %s', x)\n",
        id="functions-run-eagerly",
    ),
    pytest.param(traced("logger.info(x)", imports="logger = make_logger()\n"), id="unknown-logger"),
    pytest.param(traced("logging.info('x %s', x)  # tfmodernize: ignore[TFM211]"), id="suppressed"),
]


@pytest.mark.parametrize("source", NO_OPS)
def test_no_ops(source):
    result = assert_unchanged("TFM211", source, unsafe_fixes=True)
    assert result.findings == []
