"""TFM201 tf-range-loop: golden, finding and no-op tables."""

import textwrap

import pytest

from tfmodernize.registry import doc_sections, find_codemod
from tfmodernize.testing import assert_rewrites, assert_unchanged

CAST = "import tensorflow as tf\n@tf.function\ndef f(x, k):\n    return x * tf.cast(k, tf.float32)\n"


def loop(*lines: str, head: str = CAST, header: str = "for i in range(10):") -> str:
    return head + header + "\n" + "".join(f"    {line}\n" for line in lines)


REWRITES = [
    pytest.param(loop("f(x, i)"), loop("f(x, i)", header="for i in tf.range(10):"), id="only-argument-tf-range"),
    pytest.param(
        loop("y = f(x, k=i)  # step", "tf.print(i)", header="for i in range(1, 10, 2):"),
        loop("y = f(x, k=i)  # step", "tf.print(i)", header="for i in tf.range(1, 10, 2):"),
        id="keyword-and-tf-print-comment-kept",
    ),
    pytest.param(loop("f(x, i)", "print(i)"), loop("f(x, tf.constant(i))", "print(i)"), id="printed-constant-at-call"),
    pytest.param(
        loop("f(x, names[i])", "f(x, i)"),
        loop("f(x, names[i])", "f(x, tf.constant(i))"),
        id="indexes-list-constant-at-call",
    ),
    pytest.param(loop("f(x, i + 1)"), loop("f(x, tf.constant(i + 1))"), id="int-arithmetic-constant-at-call"),
    pytest.param(
        loop("f(x, i)", header="for i in range(len(rows) - 1):"),
        loop("f(x, i)", header="for i in tf.range(len(rows) - 1):"),
        id="len-bound-tf-range",
    ),
    pytest.param(
        loop("f(x, i)", header="for i in range(n):"),
        loop("f(x, tf.constant(i))", header="for i in range(n):"),
        id="unknown-bound-may-be-int64-constant-at-call",
    ),
    pytest.param(loop("f(x, i)") + "last = i\n", loop("f(x, tf.constant(i))") + "last = i\n", id="used-after-loop"),
    pytest.param(
        "import tensorflow as T\ndef g(n):\n    return T.range(n)\nstep = T.function(g, jit_compile=False)\nfor i in range(5):\n    step(i)\n",
        "import tensorflow as T\ndef g(n):\n    return T.range(n)\nstep = T.function(g, jit_compile=False)\nfor i in T.range(5):\n    step(i)\n",
        id="alias-wrapped-function",
    ),
    pytest.param(
        "import tensorflow.compat.v1 as tf\n@tf.function(reduce_retracing=True)\ndef f(rows, k):\n    return tf.gather(rows, k)\ndef run(rows):\n    for i in range(3):\n        f(rows, i)\n",
        "import tensorflow.compat.v1 as tf\n@tf.function(reduce_retracing=True)\ndef f(rows, k):\n    return tf.gather(rows, k)\ndef run(rows):\n    for i in tf.compat.v2.range(3):\n        f(rows, i)\n",
        id="compat-v1-gather-in-function",
    ),
]


SUMMARY = (
    "import tensorflow as tf\n@tf.function\ndef f(x, step):\n    with writer.as_default():\n"
    "        tf.summary.scalar('x', x, step=step){more}\n    return x\n"
)
REWRITES += [
    pytest.param(
        loop("f(x, i)", head=SUMMARY.format(more="")),
        loop("f(x, tf.constant(i, dtype=tf.int64))", head=SUMMARY.format(more="")),
        id="summary-step-int64-constant",
    ),
    pytest.param(
        loop("f(x, i)", head=SUMMARY.format(more="\n    tf.print(tf.cast(step, tf.float32))")),
        loop(
            "f(x, tf.constant(i, dtype=tf.int64))",
            head=SUMMARY.format(more="\n    tf.print(tf.cast(step, tf.float32))"),
        ),
        id="summary-step-and-cast",
    ),
    pytest.param(
        loop(
            "f(x, i)",
            head=SUMMARY.format(more="").replace(
                "tf.summary.scalar('x', x, step=step)", "tf.summary.experimental.set_step(step)"
            ),
        ),
        loop(
            "f(x, tf.constant(i, dtype=tf.int64))",
            head=SUMMARY.format(more="").replace(
                "tf.summary.scalar('x', x, step=step)", "tf.summary.experimental.set_step(step)"
            ),
        ),
        id="summary-set-step",
    ),
]


@pytest.mark.parametrize(("before", "after"), REWRITES)
def test_rewrites(before, after):
    result = assert_rewrites("TFM201", before, after)
    assert {f.code for f in result.fixes} == {"TFM201"}
    assert result.findings == []


def function(body: str) -> str:
    return f"import tensorflow as tf\n@tf.function\ndef f(x, k):\n    {body}\n"


FINDINGS = [
    pytest.param(loop("f(x, i)", head=function("return x * k")), "`x * k`", id="float-maths-with-int"),
    pytest.param(loop("f(x, i)", head=function("print(k)\n    return x")), "`print(k)`", id="print-in-function"),
    pytest.param(loop("f(x, i)", head=function("return x[k]")), "`x[k]`", id="python-indexing-in-function"),
    pytest.param(loop("f(x, i)", head=function("return k + 1")), "`k + 1`", id="python-arithmetic-in-function"),
    pytest.param(
        loop("f(x, i)", head=function("for _ in range(k):\n        x = x * 2\n    return x")),
        "`range(k)`",
        id="python-range-in-function",
    ),
    pytest.param(
        loop("f(x, i)", head=function("return tf.range(k, dtype=tf.float32)")),
        "tf.range(k, dtype=tf.float32)",
        id="conversion-dtype",
    ),
    pytest.param(loop("f(x, i / 10)"), "Python float", id="float-expression"),
    pytest.param(
        loop("f(x, i)", head=CAST.replace("@tf.function", "@tf.function(jit_compile=True)")), "XLA", id="jit-compile"
    ),
    pytest.param(
        CAST + "lr = 0.1\nfor i in range(3):\n    f(lr, 2)\n    lr *= 0.9\n",
        "`lr` is a Python number",
        id="number-changing-per-call",
    ),
    pytest.param(loop("i = i * 2", "f(x, i)"), "reassigns", id="loop-variable-reassigned"),
]


FINDINGS += [
    pytest.param(
        loop("f(x, i)", head=SUMMARY.format(more="\n    x = x * step")),
        "int64 tensor",
        id="summary-step-also-python-number",
    ),
    pytest.param(
        loop("f(x, i)", head=SUMMARY.format(more="\n    tf.fill([2], step)")),
        "int64 tensor",
        id="summary-step-and-int32-use",
    ),
]


@pytest.mark.parametrize(("source", "fragment"), FINDINGS)
def test_findings(source, fragment):
    result = assert_unchanged("TFM201", source)
    assert [f.code for f in result.findings] == ["TFM201"]
    assert fragment in result.findings[0].message


NO_OPS = [
    pytest.param(loop("f(x, i)", header="for i in tf.range(10):"), id="already-tf-range"),
    pytest.param(loop("f(x, tf.constant(i))", "print(i)"), id="already-a-tensor"),
    pytest.param(loop("f(batches[i], 3)"), id="tensor-from-a-list"),
    pytest.param(loop("g(x, i)"), id="not-a-tf-function"),
    pytest.param(
        loop("f(x, i)", head=CAST.replace("@tf.function", "@tf.function(input_signature=[spec, spec])")),
        id="input-signature",
    ),
    pytest.param(loop("f(x, i)", head=CAST.replace("@tf.function", "@tf.function\n@other")), id="another-decorator"),
    pytest.param("range = my_range\n" + loop("f(x, i)"), id="range-rebound"),
    pytest.param(
        loop("f(x, i)", head=CAST.replace("import tensorflow as tf", "import mylib as tf\nimport tensorflow")),
        id="non-tf-module-called-tf",
    ),
    pytest.param(
        loop("f(x, i)", head="import tensorflow\ntf = Fake()\n" + CAST.split("\n", 1)[1]), id="non-tf-object-called-tf"
    ),
    pytest.param(
        "import tensorflow as tf\n@tf.function\ndef outer(x):\n    for i in range(3):\n        x = inner(x, i)\n    return x\n@tf.function\ndef inner(x, k):\n    return x * tf.cast(k, tf.float32)\n",
        id="loop-inside-a-tf-function",
    ),
    pytest.param(
        CAST
        + "def outer(x):\n    for i in range(3):\n        x = f(x, i)\n    return x\nouter_fn = tf.function(outer)\n",
        id="loop-inside-a-wrapped-function",
    ),
    pytest.param(
        loop("f(x, i)  # tfmodernize: ignore[TFM201]", header="for i in range(10):  # tfmodernize: ignore[TFM201]"),
        id="suppressed",
    ),
    pytest.param(
        loop("f(x, i)", header="for i in range(10):  # tfmodernize: ignore[tf-range-loop]"), id="suppressed-by-name"
    ),
]


@pytest.mark.parametrize("source", NO_OPS)
def test_no_ops(source):
    result = assert_unchanged("TFM201", source)
    assert result.findings == []


def test_docstring_example_is_what_it_does():
    sections = doc_sections(find_codemod("TFM201"))
    before, after = (textwrap.dedent(sections[part]) + "\n" for part in ("Before", "After"))
    assert_rewrites(
        "TFM201", "import tensorflow as tf\n" + before, "import tensorflow as tf\n" + after, unsafe_fixes=True
    )
