"""TFM204 tape-watch: golden, unsafe, finding and no-op tables."""

import textwrap

import pytest

from tfmodernize.registry import doc_sections, find_codemod
from tfmodernize.testing import assert_rewrites, assert_unchanged, rewrite

REWRITES = [
    pytest.param(
        "import tensorflow as tf\nx = tf.constant(3.0)\nwith tf.GradientTape() as tape:\n    y = x * x\ndy_dx = tape.gradient(y, x)\n",
        "import tensorflow as tf\nx = tf.constant(3.0)\nwith tf.GradientTape() as tape:\n    tape.watch(x)\n    y = x * x\ndy_dx = tape.gradient(y, x)\n",
        id="constant",
    ),
    pytest.param(
        "import tensorflow as T\nx = T.random.normal([3])\nwith T.GradientTape() as g:\n    # cube it\n    y = x ** 3\ndy = g.gradient(y, x)  # d/dx\n",
        "import tensorflow as T\nx = T.random.normal([3])\nwith T.GradientTape() as g:\n    g.watch(x)\n    # cube it\n    y = x ** 3\ndy = g.gradient(y, x)  # d/dx\n",
        id="alias-random-comments-kept",
    ),
    pytest.param(
        "import tensorflow as tf\ndef grad(f, x, w):\n    with tf.GradientTape(persistent=True) as tape:\n        y = f(x) * w\n    return tape.gradient(y, [x, w])\n",
        "import tensorflow as tf\ndef grad(f, x, w):\n    with tf.GradientTape(persistent=True) as tape:\n        tape.watch(x)\n        tape.watch(w)\n        y = f(x) * w\n    return tape.gradient(y, [x, w])\n",
        id="function-arguments-list",
    ),
    pytest.param(
        "import tensorflow.compat.v1 as tf\nv = tf.Variable(1.0)\nx = tf.convert_to_tensor(data)\nwith tf.GradientTape() as tape:\n    y = v * x\ngv, gx = tape.gradient(y, (v, x))\n",
        "import tensorflow.compat.v1 as tf\nv = tf.Variable(1.0)\nx = tf.convert_to_tensor(data)\nwith tf.GradientTape() as tape:\n    tape.watch(x)\n    y = v * x\ngv, gx = tape.gradient(y, (v, x))\n",
        id="variable-left-alone-tensor-watched",
    ),
    pytest.param(
        "import tensorflow as tf\nx = tf.ones([2])\nwith tf.GradientTape() as tape: y = x * 2\ndy = tape.gradient(target=y, sources=x)\n",
        "import tensorflow as tf\nx = tf.ones([2])\nwith tf.GradientTape() as tape: tape.watch(x); y = x * 2\ndy = tape.gradient(target=y, sources=x)\n",
        id="one-line-block-keywords",
    ),
    pytest.param(
        "import tensorflow as tf\nx = tf.constant(1.0)\nwith tf.GradientTape(persistent=True) as tape:\n    y = x * x\na = tape.gradient(y, x)\nb = tape.gradient(y * y, x)\n",
        "import tensorflow as tf\nx = tf.constant(1.0)\nwith tf.GradientTape(persistent=True) as tape:\n    tape.watch(x)\n    y = x * x\na = tape.gradient(y, x)\nb = tape.gradient(y * y, x)\n",
        id="two-gradients-one-watch",
    ),
]


@pytest.mark.parametrize(("before", "after"), REWRITES)
def test_rewrites(before, after):
    result = assert_rewrites("TFM204", before, after)
    assert {f.code for f in result.fixes} == {"TFM204"}
    assert result.findings == []


UNKNOWN = (
    "import tensorflow as tf\nx = batch[0]\nwith tf.GradientTape() as tape:\n    y = x * x\ndy = tape.gradient(y, x)\n"
)


def test_unknown_source_is_an_unsafe_fix():
    [finding] = assert_unchanged("TFM204", UNKNOWN).findings
    assert finding.code == "TFM204"
    assert "not provably a tensor" in finding.message and "--unsafe-fixes" in finding.message
    assert finding.suggestion == "tape.watch(x)"
    assert "    tape.watch(x)\n" in rewrite("TFM204", UNKNOWN, unsafe_fixes=True).code


def test_constant_made_in_block_is_a_finding():
    source = "import tensorflow as tf\nwith tf.GradientTape() as tape:\n    x = tf.constant(2.0)\n    y = x * x\ndy = tape.gradient(y, x)\n"
    [finding] = assert_unchanged("TFM204", source).findings
    assert "inside the tape block" in finding.message


def test_reassigned_in_block_is_a_finding():
    source = "import tensorflow as tf\nx = tf.constant(1.0)\nwith tf.GradientTape() as tape:\n    x = x + 1\n    y = x * x\ndy = tape.gradient(y, x)\n"
    [finding] = assert_unchanged("TFM204", source).findings
    assert "reassigned inside the tape block" in finding.message


NO_OPS = [
    pytest.param(
        "import tensorflow as tf\nx = tf.constant(3.0)\nwith tf.GradientTape() as tape:\n    tape.watch(x)\n    y = x * x\ndy = tape.gradient(y, x)\n",
        id="already-watched",
    ),
    pytest.param(
        "import tensorflow as tf\nw = tf.Variable([1.0, 2.0])\nwith tf.GradientTape() as tape:\n    h = w * 3.0\n"
        "    y = tf.reduce_sum(h * h)\ndy_dh = tape.gradient(y, h)\n",
        id="intermediate-computed-in-the-block",
    ),
    pytest.param(
        "import tensorflow as tf\n@tf.function\ndef step(w, x, opt):\n    with tf.GradientTape() as tape:\n"
        "        loss = tf.reduce_sum((w * x) ** 2)\n    grads = tape.gradient(loss, [w])\n"
        "    opt.apply_gradients(zip(grads, [w]))\n",
        id="argument-applied-gradients-is-a-variable",
    ),
    pytest.param(
        "import tensorflow as tf\ndef step(image):\n    with tf.GradientTape() as tape:\n        loss = score(image)\n"
        "    grad = tape.gradient(loss, image)\n    image.assign_add(0.1 * grad)\n",
        id="argument-assigned-is-a-variable",
    ),
    pytest.param(
        "import tensorflow as tf\ndef saliency(net, batch):\n    with tf.GradientTape() as tape:\n"
        "        hidden, logits = net(batch)\n        top = tf.reduce_max(logits)\n"
        "    d_hidden = tape.gradient(top, hidden)\n    hidden = hidden[0]\n"
        "    return tf.reduce_sum(hidden * d_hidden)\n",
        id="unpacked-intermediate-rebound-after-the-gradient",
    ),
    pytest.param(
        "import tensorflow as tf\n@tf.function\ndef grad_of(canvas, scale):\n"
        "    with tf.GradientTape() as tape:\n        energy = tf.reduce_sum(canvas * scale)\n"
        "    return tape.gradient(energy, canvas)\n"
        "canvas = tf.Variable(tf.ones([4]))\nfor _ in range(3):\n    g = grad_of(canvas, 2.0)\n"
        "g = grad_of(scale=0.5, canvas=canvas)\n",
        id="every-caller-passes-a-variable",
    ),
    pytest.param(
        "import tensorflow as tf\nx = tf.constant(3.0)\nwith tf.GradientTape() as tape:\n    tape.watch([x, z])\n    y = x * x\ndy = tape.gradient(y, x)\n",
        id="watched-in-a-list",
    ),
    pytest.param(
        "import tensorflow as tf\nx = tf.Variable(3.0)\nwith tf.GradientTape() as tape:\n    y = x * x\ndy = tape.gradient(y, x)\n",
        id="variable",
    ),
    pytest.param(
        "import tensorflow as tf\nx = tf.Variable(3.0, trainable=False)\nwith tf.GradientTape() as tape:\n    y = x * x\ndy = tape.gradient(y, x)\n",
        id="non-trainable-variable-on-purpose",
    ),
    pytest.param(
        "import tensorflow as tf\nx = tf.constant(3.0)\nwith tf.GradientTape() as tape:\n    y = z * z\ndy = tape.gradient(y, x)\n",
        id="source-not-used-in-block",
    ),
    pytest.param(
        "import tensorflow as tf\nx = tf.constant(3.0)\nwith tf.GradientTape() as tape:\n    y = self.x * 2\ndy = tape.gradient(y, x)\n",
        id="only-an-attribute-of-that-name",
    ),
    pytest.param(
        "import mylib as tf\nimport tensorflow\nx = tf.constant(3.0)\nwith tf.GradientTape() as tape:\n    y = x * x\ndy = tape.gradient(y, x)\n",
        id="non-tf-module-called-tf",
    ),
    pytest.param(
        "import tensorflow\ntf = Fake()\nx = tf.constant(3.0)\nwith tf.GradientTape() as tape:\n    y = x * x\ndy = tape.gradient(y, x)\n",
        id="non-tf-object-called-tf",
    ),
    pytest.param(
        "import tensorflow as tf\nx = tf.constant(3.0)\nwith recorder() as tape:\n    y = x * x\ndy = tape.gradient(y, x)\n",
        id="not-a-gradient-tape",
    ),
    pytest.param(
        "import tensorflow as tf\nx = tf.constant(3.0)\nwith tf.GradientTape() as tape:\n    y = x * x\ndy = tape.gradient(y, x)  # tfmodernize: ignore[TFM204]\n",
        id="suppressed",
    ),
    pytest.param(
        "import tensorflow as tf\nx = tf.constant(3.0)\nwith tf.GradientTape() as tape:\n    y = x * x\ndy = tape.gradient(y, x)  # tfmodernize: ignore[tape-watch]\n",
        id="suppressed-by-name",
    ),
]


def test_constant_rebound_after_the_gradient_is_still_watched():
    source = (
        "import tensorflow as tf\ndef f():\n    x = tf.constant(2.0)\n"
        "    with tf.GradientTape() as tape:\n"
        "        y = x * x\n    g = tape.gradient(y, x)\n    x = g + 1.0\n    return x\n"
    )
    result = rewrite("TFM204", source)
    assert "        tape.watch(x)\n        y = x * x\n" in result.code


def test_rebinding_later_in_a_loop_still_reaches_the_gradient():
    source = (
        "import tensorflow as tf\nx = tf.constant(2.0)\nfor _ in range(3):\n"
        "    with tf.GradientTape() as tape:\n        y = x * x\n    g = tape.gradient(y, x)\n"
        "    x = tf.Variable(g)\n"
    )
    result = rewrite("TFM204", source)
    assert "tape.watch" not in result.code and result.findings == []


def test_parameter_given_a_tensor_by_one_caller_is_still_watched():
    source = (
        "import tensorflow as tf\ndef grad_of(canvas):\n    with tf.GradientTape() as tape:\n"
        "        energy = tf.reduce_sum(canvas ** 2)\n    return tape.gradient(energy, canvas)\n"
        "held = tf.Variable([1.0, 2.0])\nplain = tf.constant([3.0])\n"
        "a = grad_of(held)\nb = grad_of(plain)\n"
    )
    result = rewrite("TFM204", source)
    assert "        tape.watch(canvas)\n" in result.code
    assert {f.code for f in result.fixes} == {"TFM204"}


@pytest.mark.parametrize("source", NO_OPS)
def test_no_ops(source):
    result = assert_unchanged("TFM204", source)
    assert result.findings == []


def test_docstring_example_is_what_it_does():
    sections = doc_sections(find_codemod("TFM204"))
    before, after = (textwrap.dedent(sections[part]) + "\n" for part in ("Before", "After"))
    assert_rewrites(
        "TFM204", "import tensorflow as tf\n" + before, "import tensorflow as tf\n" + after, unsafe_fixes=True
    )
