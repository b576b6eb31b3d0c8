"""TFM203 tape-scope: golden, finding and no-op tables."""

import textwrap

import pytest

from tfmodernize.registry import doc_sections, find_codemod
from tfmodernize.testing import assert_rewrites, assert_unchanged, rewrite

REWRITES = [
    pytest.param(
        "import tensorflow as tf\nwith tf.GradientTape() as tape:\n    logits = model(x)\ng = tape.gradient(logits[:, 7], x)\n",
        "import tensorflow as tf\nwith tf.GradientTape() as tape:\n    logits = model(x)\n    target = logits[:, 7]\ng = tape.gradient(target, x)\n",
        id="indexing-in-the-call",
    ),
    pytest.param(
        "import tensorflow as T\nwith T.GradientTape() as t:\n    a = f(x)\n    b = g(x)\nt.gradient(a + b, w)  # both\n",
        "import tensorflow as T\nwith T.GradientTape() as t:\n    a = f(x)\n    b = g(x)\n    target = a + b\nt.gradient(target, w)  # both\n",
        id="alias-sum-comment-kept",
    ),
    pytest.param(
        "import tensorflow as tf\ntarget = 1\nwith tf.GradientTape() as tape:\n    y = f(x)\ngrads = tape.gradient(target=tf.reduce_mean(y), sources=v)\n",
        "import tensorflow as tf\ntarget = 1\nwith tf.GradientTape() as tape:\n    y = f(x)\n    target_1 = tf.reduce_mean(y)\ngrads = tape.gradient(target=target_1, sources=v)\n",
        id="keywords-fresh-name",
    ),
    pytest.param(
        "import tensorflow as tf\ndef step():\n    with tf.GradientTape() as tape:\n        y = f(x)\n    loss = tf.reduce_mean(y)\n    scaled = loss * 2.0\n    return tape.gradient(scaled, v)\n",
        "import tensorflow as tf\ndef step():\n    with tf.GradientTape() as tape:\n        y = f(x)\n        loss = tf.reduce_mean(y)\n        scaled = loss * 2.0\n    return tape.gradient(scaled, v)\n",
        id="statements-in-between-move",
    ),
    pytest.param(
        "import tensorflow as tf\nwith tf.GradientTape() as tape:\n    y = f(x)\n\n# the mean\nloss = tf.reduce_mean(y)\ngrads = tape.gradient(loss, v)\n",
        "import tensorflow as tf\nwith tf.GradientTape() as tape:\n    y = f(x)\n    # the mean\n    loss = tf.reduce_mean(y)\n\ngrads = tape.gradient(loss, v)\n",
        id="blank-line-stays-comment-moves",
    ),
    pytest.param(
        "import tensorflow as tf\nwith tf.GradientTape() as tape:\n    y = f(x)\nopt.apply_gradients(zip(tape.gradient(tf.reduce_sum(y), v), v))\n",
        "import tensorflow as tf\nwith tf.GradientTape() as tape:\n    y = f(x)\n    target = tf.reduce_sum(y)\nopt.apply_gradients(zip(tape.gradient(target, v), v))\n",
        id="inside-apply-gradients",
    ),
    pytest.param(
        "import tensorflow.compat.v1 as tf\nwith tf.GradientTape() as tape:\n    y = f(x)\nloss = y * 2\nprint(loss)\ngrads = tape.gradient(loss, v)\n",
        "import tensorflow.compat.v1 as tf\nwith tf.GradientTape() as tape:\n    y = f(x)\n    loss = y * 2\n    print(loss)\ngrads = tape.gradient(loss, v)\n",
        id="compat-v1-order-kept",
    ),
]


@pytest.mark.parametrize(("before", "after"), REWRITES)
def test_rewrites(before, after):
    result = assert_rewrites("TFM203", before, after)
    assert [f.code for f in result.fixes] == ["TFM203"]
    assert result.findings == []


FINDINGS = [
    pytest.param(
        "import tensorflow as tf\nwith tf.GradientTape() as tape:\n    y = f(x)\nloss = y * 2\nif debug:\n    print(loss)\ngrads = tape.gradient(loss, v)\n",
        "not a plain computation",
        id="compound-statement-in-between",
    ),
    pytest.param(
        "import tensorflow as tf\nwith tf.GradientTape() as tape, tf.device('/cpu:0'):\n    y = f(x)\ngrads = tape.gradient(y[0], v)\n",
        "other context managers",
        id="other-context-manager",
    ),
    pytest.param(
        "import tensorflow as tf\nwith tf.GradientTape() as tape:\n    y = f(x)\nr = log(), tape.gradient(y[0], v)\n",
        "other parts of the statement run before",
        id="something-runs-first",
    ),
    pytest.param(
        "import tensorflow as tf\nwith tf.GradientTape() as tape:\n    y = f(x)\nif ok:\n    grads = tape.gradient(y[0], v)\n",
        "inside another statement",
        id="gradient-in-a-nested-block",
    ),
    pytest.param(
        "import tensorflow as tf\nwith tf.GradientTape() as tape:\n    y = f(x)\nloss = y * 2\ntape.stop_recording()\ngrads = tape.gradient(loss, v)\n",
        "uses `tape`",
        id="tape-used-in-between",
    ),
    pytest.param(
        "import tensorflow as tf\nwith tf.GradientTape() as tape:\n    y = f(x)\ngrads = tape.gradient((lambda: y[0])(), v)\n",
        "cannot be evaluated earlier",
        id="lambda-in-target",
    ),
]


@pytest.mark.parametrize(("source", "fragment"), FINDINGS)
def test_findings(source, fragment):
    result = assert_unchanged("TFM203", source)
    assert [f.code for f in result.findings] == ["TFM203"]
    assert fragment in result.findings[0].message and "gradient is None" in result.findings[0].message


NO_OPS = [
    pytest.param(
        "import tensorflow as tf\nwith tf.GradientTape() as tape:\n    loss = f(x)\ngrads = tape.gradient(loss, v)\n",
        id="target-computed-in-block",
    ),
    pytest.param(
        "import tensorflow as tf\nwith tf.GradientTape() as tape:\n    loss = f(x)\ngrads = tape.gradient(loss * 2 if False else loss, v)  # tfmodernize: ignore[TFM203]\n",
        id="suppressed",
    ),
    pytest.param(
        "import tensorflow as tf\nloss = f(x)\nwith tf.GradientTape() as tape:\n    y = g(x)\ngrads = tape.gradient(loss[0], v)\n",
        id="target-from-before-the-block",
    ),
    pytest.param(
        "import tensorflow as tf\nwith tf.GradientTape() as tape:\n    y = f(x)\nz = other(w)\ngrads = tape.gradient(z, v)\n",
        id="in-between-not-from-taped-results",
    ),
    pytest.param(
        "import tensorflow as tf\nwith tf.GradientTape() as tape:\n    y = f(x)\n    grads = tape.gradient(y[0], v)\n",
        id="gradient-inside-block",
    ),
    pytest.param(
        "import tensorflow as tf\nwith tf.GradientTape() as tape:\n    loss = f(x)\nif ok:\n    grads = tape.gradient(loss, v)\n",
        id="taped-name-in-a-nested-block",
    ),
    pytest.param(
        "import mylib as tf\nimport tensorflow\nwith tf.GradientTape() as tape:\n    y = f(x)\ngrads = tape.gradient(y[0], v)\n",
        id="non-tf-module-called-tf",
    ),
    pytest.param(
        "import tensorflow\ntf = Fake()\nwith tf.GradientTape() as tape:\n    y = f(x)\ngrads = tape.gradient(y[0], v)\n",
        id="non-tf-object-called-tf",
    ),
    pytest.param(
        "import tensorflow as tf\nwith recorder() as tape:\n    y = f(x)\ngrads = tape.gradient(y[0], v)\n",
        id="not-a-gradient-tape",
    ),
    pytest.param(
        "import tensorflow as tf\ndef step(net, batch):\n    with tf.GradientTape() as tape:\n"
        "        parts = score_parts(net, batch)\n"
        "    return tape.gradient(parts['sum'], net.trainable_variables)\n",
        id="string-key-lookup-of-a-taped-dict",
    ),
    pytest.param(
        "import tensorflow as tf\nwith tf.GradientTape() as tape:\n    out = heads(x)\n"
        "g = tape.gradient(out['main']['loss'], v)\n",
        id="nested-string-key-lookup",
    ),
]


def test_integer_index_of_a_taped_result_is_still_moved():
    source = "import tensorflow as tf\nwith tf.GradientTape() as tape:\n    out = f(x)\ng = tape.gradient(out[0], v)\n"
    result = rewrite("TFM203", source)
    assert "    target = out[0]\n" in result.code and "tape.gradient(target, v)" in result.code


@pytest.mark.parametrize("source", NO_OPS)
def test_no_ops(source):
    result = assert_unchanged("TFM203", source)
    assert result.findings == []


def test_docstring_example_is_what_it_does():
    sections = doc_sections(find_codemod("TFM203"))
    before, after = (textwrap.dedent(sections[part]) + "\n" for part in ("Before", "After"))
    assert_rewrites(
        "TFM203", "import tensorflow as tf\n" + before, "import tensorflow as tf\n" + after, unsafe_fixes=True
    )


def test_numpy_on_taped_results_moves_in_as_tf_ops():
    before = (
        "import numpy as np\nimport tensorflow as tf\nwith tf.GradientTape() as tape:\n    h = layer(w)\n"
        "g = tape.gradient(np.sum(np.square(h), axis=0), w)\n"
    )
    after = (
        "import numpy as np\nimport tensorflow as tf\nwith tf.GradientTape() as tape:\n    h = layer(w)\n"
        "    target = tf.reduce_sum(tf.square(h), axis=0)\ng = tape.gradient(target, w)\n"
    )
    result = assert_rewrites("TFM203", before, after)
    assert "np.sum" in result.fixes[0].message


def test_numpy_without_a_tf_op_is_a_finding():
    source = (
        "import numpy as np\nimport tensorflow as tf\nwith tf.GradientTape() as tape:\n    h = layer(w)\n"
        "score = np.percentile(h, 5)\ng = tape.gradient(score, w)\n"
    )
    [finding] = assert_unchanged("TFM203", source).findings
    assert "np.percentile" in finding.message and "cannot record" in finding.message
