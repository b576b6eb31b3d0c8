"""TFM112 compat-v1-import: golden, no-op and finding tables, and its place after TFM109."""

import pytest

from tfmodernize.analysis.tables import v1_requirement
from tfmodernize.registry import builtin_codemods, find_codemod
from tfmodernize.engine import transform_text
from tfmodernize.testing import assert_rewrites, assert_unchanged

REWRITES = [
    pytest.param(
        "import tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()\ny = tf.reduce_sum(tf.ones([2]), axis=0)\n",
        "import tensorflow as tf\ny = tf.reduce_sum(tf.ones([2]), axis=0)\n",
        id="switch-and-drop-mode",
    ),
    pytest.param(
        "import tensorflow.compat.v1 as tf\ntf.disable_eager_execution()  # graph mode\nx = tf.compat.v2.random.normal([2])\n",
        "import tensorflow as tf\nx = tf.random.normal([2])\n",
        id="compat-v2-shortened",
    ),
    pytest.param(
        "import numpy as np, tensorflow.compat.v1 as T\nT.enable_eager_execution()\nx = T.constant(np.ones(2))\n",
        "import numpy as np, tensorflow as T\nx = T.constant(np.ones(2))\n",
        id="other-alias-in-multi-import",
    ),
    pytest.param(
        "import tensorflow.compat.v1 as tf\nif True:\n    tf.disable_v2_behavior()\nx = tf.ones([2])\n",
        "import tensorflow as tf\nif True:\n    pass\nx = tf.ones([2])\n",
        id="emptied-block-gets-pass",
    ),
    pytest.param(
        "import tensorflow.compat.v1 as tf\nfrom tensorflow.compat.v1 import nn\ny = nn.relu(tf.ones([2]))\n",
        "import tensorflow as tf\nfrom tensorflow import nn\ny = nn.relu(tf.ones([2]))\n",
        id="from-import",
    ),
    pytest.param(
        "from tensorflow.compat import v1 as tf\ntf.disable_v2_behavior()\nx = tf.compat.v2.ones([2])\n",
        "import tensorflow as tf\nx = tf.ones([2])\n",
        id="from-compat-import-v1",
    ),
    pytest.param(
        "import tensorflow as tf\nx = tf.compat.v1.reduce_sum(tf.ones([2]), axis=0)\n",
        "import tensorflow as tf\nx = tf.reduce_sum(tf.ones([2]), axis=0)\n",
        id="spelled-compat-v1-under-tf2-import",
    ),
    pytest.param(
        "import tensorflow as tf\ntf.compat.v1.disable_eager_execution()\nx = tf.ones([2])\n",
        "import tensorflow as tf\nx = tf.ones([2])\n",
        id="spelled-mode-switch-under-tf2-import",
    ),
    pytest.param(
        "import tensorflow.compat.v1 as tf\ny = tf.nn.dropout(x, rate=0.1)\nl = tf.nn.softmax_cross_entropy_with_logits(labels=tf.stop_gradient(a), logits=b)\n",
        "import tensorflow as tf\ny = tf.nn.dropout(x, rate=0.1)\nl = tf.nn.softmax_cross_entropy_with_logits(labels=tf.stop_gradient(a), logits=b)\n",
        id="transformed-calls-are-tf2",
    ),
    pytest.param(
        "import tensorflow.compat.v1 as tf  # TF1 style\n# tf.placeholder would need v1\nx = tf.ones([2])\n",
        "import tensorflow as tf  # TF1 style\n# tf.placeholder would need v1\nx = tf.ones([2])\n",
        id="comments-kept",
    ),
]

NO_OPS = [
    # Not a TF2 name, nor TF 2.21's compat.v1 one: shortening it would write a name that does not exist.
    pytest.param("import tensorflow as tf\nLSTM = tf.compat.v1.CuDNNLSTM\n", id="spelled-compat-v1-unknown-name"),
    pytest.param("import tensorflow as tf\nx = tf.ones([2])\n", id="already-tf2"),
    pytest.param("import mylib.compat.v1 as tf\ntf.disable_v2_behavior()\n", id="not-tensorflow"),
    pytest.param(
        "import tensorflow.compat.v1 as tf  # tfmodernize: ignore\ntf.disable_v2_behavior()\nx = tf.compat.v2.ones([2])\n",
        id="suppressed-import-keeps-the-file",
    ),
]

# (source, fragments the finding must list)
FINDINGS = [
    pytest.param(
        "import tensorflow.compat.v1 as tf\nimport tensorflow.contrib.slim as slim\ny = tf.reduce_sum(slim.flatten(x), axis=0)\n",
        ["tf.contrib.slim.flatten (line 3"],
        id="contrib-through-another-import-keeps-the-file-on-v1",
    ),
    pytest.param(
        "import tensorflow.compat.v1 as tf\ntf.disable_eager_execution()\n\n\nclass T(tf.test.TestCase):\n"
        "    def test_a(self):\n        with self.cached_session() as s:\n            s.run(tf.constant(1))\n",
        ["self.cached_session() (line 7", "TF1 mode"],
        id="test-case-session-keeps-the-mode-switch",
    ),
    pytest.param(
        "import tensorflow.compat.v1 as tf\ntf.enable_eager_execution(config=cfg)\ny = tf.constant(1)\n",
        ["tf.enable_eager_execution(...) (line 2"],
        id="mode-switch-with-arguments",
    ),
    pytest.param(
        "try:\n    import tensorflow.compat.v1 as tf\nexcept ImportError:\n    import tensorflow as tf\ny = tf.log(2.0)\n",
        ["imported both as tensorflow and as tensorflow.compat.v1"],
        id="try-except-import-fallback",
    ),
    pytest.param(
        "import tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()\nx = tf.placeholder(tf.float32)\nwith tf.Session() as s:\n    pass\n",
        ["tf.placeholder (line 3", "tf.Session (line 4"],
        id="v1-only-names",
    ),
    pytest.param(
        "import tensorflow.compat.v1 as tf\ny = tf.reduce_sum(x, keep_dims=True)\n",
        ["keep_dims"],
        id="old-keyword",
    ),
    pytest.param(
        "import tensorflow.compat.v1 as tf\nw = tf.where(c)\n", ["tf.where", "tf.compat.v1.where"], id="renamed-to-v1"
    ),
    pytest.param("import tensorflow.compat.v1 as tf\nm = tf.argmax(x, 1, 'n')\n", ["another order"], id="reordered"),
    pytest.param(
        "import tensorflow.compat.v1 as tf\nd = tf.nn.dropout(x, 0.5)\n", ["keep_prob"], id="dropout-keep-prob"
    ),
    pytest.param(
        "import tensorflow.compat.v1 as tf\nl = tf.nn.softmax_cross_entropy_with_logits(labels=a, logits=b)\n",
        ["stop_gradient"],
        id="softmax-xent-labels",
    ),
    pytest.param("import tensorflow.compat.v1 as tf\nn = x.shape[0].value\n", ["Dimension"], id="shape-value"),
    pytest.param(
        "import tensorflow.compat.v1 as tf\nit = ds.make_one_shot_iterator()\n",
        ["make_one_shot_iterator"],
        id="iterator",
    ),
    pytest.param(
        "import tensorflow.compat.v1 as tf\nz = tf.zeros_like(x, optimize=False)\n",
        ["optimize"],
        id="arg-changed-meaning",
    ),
    pytest.param(
        "from tensorflow.compat import v1 as tf, v2\nx = tf.compat.v2.ones([2])\n",
        ["own line"],
        id="mixed-compat-import",
    ),
    pytest.param(
        "import tensorflow as tf\nx = tf.compat.v1.placeholder(tf.float32)\ny = tf.compat.v1.reduce_sum(x, axis=0)\n",
        ["tf.placeholder (line 2"],
        id="spelled-compat-v1-still-needed",
    ),
]


@pytest.mark.parametrize(("before", "after"), REWRITES)
def test_rewrites(before, after):
    result = assert_rewrites("TFM112", before, after)
    assert result.findings == []


@pytest.mark.parametrize("source", NO_OPS)
def test_no_ops(source):
    result = assert_unchanged("TFM112", source)
    assert result.findings == []


@pytest.mark.parametrize(("source", "fragments"), FINDINGS)
def test_still_needs_v1(source, fragments):
    result = assert_unchanged("TFM112", source)
    assert [f.code for f in result.findings] == ["TFM112"]
    lines = source.splitlines()
    v1_import = [
        i for i, line in enumerate(lines, 1) if "import tensorflow.compat.v1" in line or "compat import v1" in line
    ]
    # At the v1 import; a file spelling tf.compat.v1.X out has none, and the finding sits at the first use.
    assert result.findings[0].line == (v1_import[0] if v1_import else 2)
    for fragment in fragments:
        assert fragment in result.findings[0].message


def test_runs_after_every_migration_but_the_compat_fallback():
    # estimator-removed comes last on purpose: it reads compat-fallback's decision (a file kept on
    # compat.v1 that names tf.estimator cannot run either), and the mode keys it writes as
    # strings are no TF1-only names compat-v1-import would have to see.
    migrations = [c.name for c in builtin_codemods() if c.code.startswith("TFM1")]
    assert migrations[-3:] == ["compat-v1-import", "compat-fallback", "estimator-removed"]


def test_after_api_renames_the_file_switches():
    before = (
        "import tensorflow.compat.v1 as tf\n"
        "tf.disable_v2_behavior()\n"
        "x = tf.random_normal([2, 2], seed=1)\n"
        "y = tf.reduce_sum(tf.to_float(x > 0), reduction_indices=1)\n"
    )
    new, state = transform_text(before, [find_codemod("TFM109"), find_codemod("TFM112")])
    assert new == (
        "import tensorflow as tf\n"
        "x = tf.random.normal([2, 2], seed=1)\n"
        "y = tf.reduce_sum(tf.cast(x > 0, tf.float32), axis=1)\n"
    )
    assert state.findings == []


def test_v1_requirement_is_none_for_plain_tf2_calls():
    from tfmodernize.tfsymbols import TFNames
    import libcst as cst

    module = cst.parse_module("import tensorflow.compat.v1 as tf\ntf.reduce_sum(x, axis=1)\n")
    call = module.body[1].body[0].value
    assert v1_requirement("reduce_sum", call, TFNames.for_module(module)) is None
