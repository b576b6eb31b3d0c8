"""TFM115 contrib-to-core on ``tf.contrib.image.bipartite_match``: the calls pointed at a
function written into the file (every import form), the declines and no-ops; and, with
TensorFlow, that function against verify's numpy copy of contrib's kernel (graph mode, eager,
``tf.function``) on random matrices, and equal distances taken in row-major order."""

import os
import subprocess
import sys
import textwrap

import pytest

from tfmodernize.codemods.migrate.contrib_to_core.bipartite_match import TEMPLATE
from tfmodernize.codemods.migrate.contrib_to_core.tables import handles
from tfmodernize.testing import assert_rewrites, assert_unchanged, rewrite
from tfmodernize.written_code import template_source

CODE = "TFM115"


def _written(name: str = "bipartite_match", tf: str = "tf") -> str:
    return "\n\n" + template_source(TEMPLATE, name=name, tf=tf) + "\n\n"


SPELLINGS = [
    pytest.param(
        "import tensorflow as tf\n\nm = tf.contrib.image.bipartite_match(d, -1)\n",
        "import tensorflow as tf\n" + _written() + "m = bipartite_match(d, -1)\n",
        id="written-out",
    ),
    pytest.param(
        "import tensorflow as tf\nfrom tensorflow.contrib.image.python.ops import image_ops\n\n"
        "def match(d, n):\n    return image_ops.bipartite_match(d, num_valid_rows=n, top_k=2)[1]\n",
        "import tensorflow as tf\n" + _written() + "def match(d, n):\n    return bipartite_match(d, n, top_k=2)[1]\n",
        id="deep-module-import-dropped",
    ),
    pytest.param(
        "import tensorflow.compat.v1 as tf\n"
        "from tensorflow.contrib.image import bipartite_match\n\n"
        "m = bipartite_match(d, 3.0)\n",
        "import tensorflow.compat.v1 as tf\n" + _written("bipartite_match_2") + "m = bipartite_match_2(d, 3.0)\n",
        id="name-imported-fresh-name",
    ),
    pytest.param(
        "import tensorflow as tf\nimport tensorflow.contrib.image as contrib_image\n\n"
        "m = contrib_image.bipartite_match(d, -1, 4, name='match')\n",
        "import tensorflow as tf\n" + _written() + "m = bipartite_match(d, -1, top_k=4)\n",
        id="module-alias-name-dropped",
    ),
    pytest.param(
        '"""Doc."""\nimport tensorflow as tf\nSIZE = 3\n\n\ndef f(d):\n'
        "    return tf.contrib.image.bipartite_match(d, SIZE)\n",
        '"""Doc."""\nimport tensorflow as tf\n' + _written() + "SIZE = 3\n\n\ndef f(d):\n"
        "    return bipartite_match(d, SIZE)\n",
        id="after-the-imports-before-the-code",
    ),
    pytest.param(
        "from tensorflow.contrib.image import bipartite_match\nm = bipartite_match(d, 1)\n",
        "import tensorflow as tf\n" + _written("bipartite_match_2") + "m = bipartite_match_2(d, 1)\n",
        id="no-tensorflow-import-added",
    ),
]


@pytest.mark.parametrize(("before", "after"), SPELLINGS)
def test_calls_point_at_the_written_function(before, after):
    result = assert_rewrites(CODE, before, after)
    assert result.fixes and all("greedy matching" in fix.message for fix in result.fixes)
    assert result.findings == []


def test_the_function_is_written_once_in_the_files_indentation():
    source = (
        "import tensorflow as tf\n\n\nclass Matcher:\n  def match(self, d):\n"
        "    a = tf.contrib.image.bipartite_match(d, -1)\n"
        "    return a, tf.contrib.image.bipartite_match(-d, 1)\n"
    )
    result = rewrite(CODE, source)
    assert result.code.count("def bipartite_match(") == 1 and len(result.fixes) == 2
    assert "\n  distance = tf.convert_to_tensor" in result.code  # two-space units, as the file
    compile(result.code, "<rewritten>", "exec")


NO_OPS = [
    pytest.param("from matching import bipartite_match\nm = bipartite_match(d, 1)\n", id="not-contrib"),
    pytest.param("import tensorflow as tf\nm = tf.image.resize(x, [2, 2])\n", id="core-image"),
]


@pytest.mark.parametrize("source", NO_OPS)
def test_leaves_alone(source):
    assert assert_unchanged(CODE, source).findings == []


DECLINES = [
    pytest.param(
        "import tensorflow as tf\nfrom tensorflow.contrib.image.python.ops import image_ops\n"
        "m = image_ops.bipartite_match(d, -1)\nr = image_ops.rotate(x, 0.5)\n",
        "does not rewrite",
        id="other-contrib-image-name",
    ),
    pytest.param(
        "import tensorflow as tf\nm = tf.contrib.image.bipartite_match(d, -1)\nt = tf.contrib.image.transform(x, p)\n",
        "does not rewrite",
        id="other-name-written-out",
    ),
    pytest.param(
        "from tensorflow.contrib.image import bipartite_match\nm = bipartite_match(d, 1)\nimport tensorflow as tf\n",
        "before the file's imports end",
        id="called-before-the-imports-end",
    ),
    pytest.param(
        "import tensorflow as tf\nm = tf.contrib.image.bipartite_match(d)\n",
        "not passed",
        id="no-valid-rows",
    ),
    pytest.param(
        "import tensorflow as tf\nm = tf.contrib.image.bipartite_match(d, 1, name='m')\n"
        "t = g.get_tensor_by_name('m/BipartiteMatch:0')\n",
        "reads graph elements by name",
        id="name-read-by-name",
    ),
]


@pytest.mark.parametrize(("source", "words"), DECLINES)
def test_declines_with_a_finding(source, words):
    result = assert_unchanged(CODE, source)
    assert any(words in f.message for f in result.findings), [f.message for f in result.findings]


def test_owns_contribs_spellings_of_it():
    assert handles("contrib.image.bipartite_match")
    assert handles("contrib.image.python.ops.image_ops.bipartite_match")
    assert not handles("contrib.image.rotate") and not handles("image.resize")


SAME_MATCHES = """
import sys
import numpy as np
import tensorflow as tf
from tfmodernize.codemods.migrate.contrib_to_core.bipartite_match import TEMPLATE
from tfmodernize.verify.contrib_image import greedy_match
from tfmodernize.written_code import template_source

mode = sys.argv[1]
if mode == "v1":
    tf = tf.compat.v1
    tf.disable_v2_behavior()
space = {}
exec(template_source(TEMPLATE, name="match", tf="tf"), {"tf": tf}, space)
match = space["match"]


def row_major(distance, valid, top_k):
    # the greedy matching, equal distances taken lowest row first, then lowest column
    rows, columns = distance.shape
    valid = rows if valid < 0 else int(np.float32(valid) + np.float32(0.1))
    limit = top_k if top_k > 0 else valid * columns
    order = np.lexsort((np.arange(valid * columns), distance[:valid].reshape(-1)))
    row_to_col, col_to_row = np.full(rows, -1, np.int32), np.full(columns, -1, np.int32)
    for cell in order:
        row, column = divmod(int(cell), columns)
        if row_to_col[row] < 0 and col_to_row[column] < 0 and (row_to_col >= 0).sum() < limit:
            row_to_col[row], col_to_row[column] = column, row
    return row_to_col, col_to_row


cases = []
for seed in range(3):
    rng = np.random.RandomState(seed)
    for rows, columns in ((4, 9), (9, 4), (6, 6), (1, 5), (5, 1), (0, 3), (3, 0)):
        uniform = rng.uniform(-1, 1, size=(rows, columns)).astype(np.float32)
        tied = rng.randint(0, 3, size=(rows, columns)).astype(np.float32)
        for valid in (-1, rows, max(rows - 2, 0), 1.0 if rows else 0):
            for top_k in (-1, 0, 1, 3):
                cases.append((uniform, valid, top_k, greedy_match(uniform, valid, top_k)))
                cases.append((tied, valid, top_k, row_major(tied, valid, top_k)))
print("cases", len(cases))

if mode == "v1":
    distance, valid = tf.placeholder(tf.float32, [None, None]), tf.placeholder(tf.float32, [])
    graphs = {top_k: match(distance, valid, top_k) for top_k in (-1, 0, 1, 3)}
    assert graphs[-1][1].shape.as_list() == [None]
    assert match(tf.zeros([3, 4]), -1)[1].shape.as_list() == [4]
    with tf.Session() as sess:
        got = [sess.run(graphs[k], {distance: d, valid: v}) for d, v, k, _ in cases]
        try:
            sess.run(match(tf.zeros([2, 3]), 3.0))
            raise AssertionError("more valid rows than rows ran")
        except tf.errors.InvalidArgumentError:
            pass
else:
    traced = tf.function(match, reduce_retracing=True)
    got = [tuple(t.numpy() for t in match(tf.constant(d), v, k)) for d, v, k, _ in cases]
    traced_got = [
        tuple(t.numpy() for t in traced(tf.constant(d), tf.constant(v, tf.float32), k))
        for d, v, k, _ in cases
    ]
    for x, y in zip(got, traced_got):
        assert all(a.dtype == np.int32 and np.array_equal(a, b) for a, b in zip(x, y))
for (d, v, k, expected), result in zip(cases, got):
    same = all(a.dtype == np.int32 and np.array_equal(a, b) for a, b in zip(result, expected))
    assert same, (d, v, k, result, expected)
print("same", mode)
"""


@pytest.mark.parametrize("mode", ["v1", "v2"])
def test_the_written_function_matches_as_contribs_kernel(mode):
    """Random distances (no ties): the numpy copy of contrib's heap; integer distances (ties):
    the row-major order the function documents."""
    pytest.importorskip("tensorflow")
    env = os.environ | {"TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": "-1"}
    script = textwrap.dedent(SAME_MATCHES)
    command = [sys.executable, "-c", script, mode]
    ran = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert ran.stdout.strip().splitlines()[-1] == f"same {mode}"


def test_the_numpy_kernel_takes_equal_distances_in_its_heaps_order():
    """contrib's priority queue does not take equal distances row-major: on some matrices of
    ties its matching differs from the row-major one (which the written function makes)."""
    np = pytest.importorskip("numpy")
    from tfmodernize.verify.contrib_image import greedy_match

    rng = np.random.RandomState(0)
    differ = 0
    for _ in range(100):
        d = rng.randint(0, 2, size=(4, 4)).astype(np.float32)
        row_to_col, free = np.full(4, -1), set(range(4))
        for cell in np.lexsort((np.arange(16), d.reshape(-1))):
            row, column = divmod(int(cell), 4)
            if row_to_col[row] < 0 and column in free:
                row_to_col[row] = column
                free.discard(column)
        differ += not np.array_equal(greedy_match(d, -1)[0], row_to_col)
    assert differ > 0


def test_the_numpy_kernel_reads_its_arguments_as_contrib_did():
    np = pytest.importorskip("numpy")
    from tfmodernize.verify.contrib_image import greedy_match

    d = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert greedy_match(d, 1.95)[0].tolist() == [0, 1, -1]  # 1.95 + 0.1 truncated: 2 rows
    assert greedy_match(d, [-1.0], top_k=1)[1].tolist() == [0, -1, -1, -1]
    with pytest.raises(ValueError, match="at least 4 rows"):
        greedy_match(d, 4)
