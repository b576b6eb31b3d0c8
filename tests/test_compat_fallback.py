"""TFM113 compat-fallback: golden, no-op and finding tables; entry points; idempotence with TFM112;
a library module and its program run on TF 2.x after ``apply``."""

import os
import subprocess
import sys
import textwrap

import pytest

from tfmodernize.registry import builtin_codemods
from tfmodernize.engine import transform_text
from tfmodernize.testing import assert_rewrites, assert_unchanged, rewrite

SESSION = "x = tf.placeholder(tf.float32)\nwith tf.Session() as sess:\n    print(sess.run(x * 2, {x: 1.0}))\n"

REWRITES = [
    pytest.param(
        "import tensorflow as tf\n" + SESSION,
        "import tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()\n" + SESSION,
        id="module-level-session",
    ),
    pytest.param(
        "import tensorflow as T\n\n\ndef main(_):\n    s = T.Session()\n\n\nT.app.run(main)\n",
        "import tensorflow.compat.v1 as T\nT.disable_v2_behavior()\n\n\ndef main(_):\n    s = T.Session()\n\n\nT.app.run(main)\n",
        id="app-run-other-alias",
    ),
    pytest.param(
        "import tensorflow as tf\n\n\ndef main():\n    v = tf.get_variable('v', [1])\n\n\n"
        "if __name__ == '__main__':\n    main()\n",
        "import tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()\n\n\ndef main():\n    v = tf.get_variable('v', [1])\n\n\n"
        "if __name__ == '__main__':\n    main()\n",
        id="main-guard",
    ),
    pytest.param(
        "import tensorflow as tf\n\n\ndef train():\n    return tf.Session()\n\n\ntrain()\n",
        "import tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()\n\n\ndef train():\n    return tf.Session()\n\n\ntrain()\n",
        id="module-level-call-of-a-local-function",
    ),
    pytest.param(
        "import tensorflow as tf\n\nx = tf.placeholder(tf.float32, name='input')\ny = tf.identity(x * 2.0, name='output')\n"
        "print(y.name)\n",
        "import tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()\n\nx = tf.placeholder(tf.float32, name='input')\n"
        "y = tf.identity(x * 2.0, name='output')\nprint(y.name)\n",
        id="graph-built-in-top-level-code-without-a-session",
    ),
    pytest.param(
        "import tensorflow.compat.v1 as tf\n" + SESSION,
        "import tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()\n" + SESSION,
        id="compat-v1-import-without-the-switch",
    ),
    pytest.param(
        "import os\nimport tensorflow as tf\nh = tf.layers.dense(tf.placeholder(tf.float32, [1, 2]), 3)\n",
        'import os\nos.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # tf.layers: Keras 2, from tf-keras\n'
        "import tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()\nh = tf.layers.dense(tf.placeholder(tf.float32, [1, 2]), 3)\n",
        id="layers-script-reuses-os",
    ),
]


REWRITES.append(
    pytest.param(
        "import tensorflow as tf\nx = tf.compat.v1.placeholder(tf.float32)\nwith tf.compat.v1.Session() as s:\n    s.run(x, {x: 1.0})\n",
        "import tensorflow as tf\ntf.compat.v1.disable_v2_behavior()\nx = tf.compat.v1.placeholder(tf.float32)\n"
        "with tf.compat.v1.Session() as s:\n    s.run(x, {x: 1.0})\n",
        id="tf-upgrade-v2-output-gets-the-switch-it-forgot",
    )
)


REWRITES += [
    pytest.param(
        "import tensorflow as tf\n\n\ndef main():\n    tf.enable_eager_execution()\n    print(tf.ones([2]).numpy())\n\n\nmain()\n",
        "import tensorflow as tf\n\n\ndef main():\n    print(tf.ones([2]).numpy())\n\n\nmain()\n",
        id="eager-request-in-tf2-code-goes",
    ),
    pytest.param(
        "import tensorflow as tf\n\ntf.enable_eager_execution()\nsaver = tf.train.Saver([tf.Variable(1.0)])\n"
        "if __name__ == '__main__':\n    saver.save(None, '/tmp/x')\n",
        "import tensorflow.compat.v1 as tf\n\ntf.enable_eager_execution()\nsaver = tf.train.Saver([tf.Variable(1.0)])\n"
        "if __name__ == '__main__':\n    saver.save(None, '/tmp/x')\n",
        id="eager-program-kept-on-v1-stays-eager",
    ),
    pytest.param(
        # TF1's TPU functions only build graphs (run eagerly, tpu.rewrite fails), however imported.
        "import tensorflow as tf\nfrom tensorflow.compat.v1 import tpu\n\n\ndef main():\n"
        "    return tpu.rewrite(fn, [tf.ones([2])])\n\n\nmain()\n",
        "import tensorflow as tf\ntf.compat.v1.disable_v2_behavior()\n"
        "from tensorflow.compat.v1 import tpu\n\n\n"
        "def main():\n    return tpu.rewrite(fn, [tf.ones([2])])\n\n\nmain()\n",
        id="tpu-graph-function-from-compat-v1-gets-the-switch",
    ),
]


@pytest.mark.parametrize(("before", "after"), REWRITES)
def test_rewrites(before, after):
    assert_rewrites("TFM113", before, after)


NO_OPS = [
    pytest.param(
        "import tensorflow as tf\nopt = tf.compat.v1.train.MomentumOptimizer(0.1, momentum=0.9)\n",
        id="v1-name-spelled-out-in-tf2-code-runs-as-is",
    ),
    pytest.param("import tensorflow as tf\ny = tf.reduce_sum(tf.ones([2]))\n", id="tf2-file"),
    pytest.param("import tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()\n" + SESSION, id="already-switched"),
    pytest.param(
        "import tensorflow as tf\ny = tf.compat.v2.nn.softmax_cross_entropy_with_logits(labels=a, logits=b)\n",
        id="compat-v2-spelled-names-are-tf2",
    ),
    pytest.param("import tensorflow as tf  # tfmodernize: ignore[compat-fallback]\n" + SESSION, id="suppressed"),
    pytest.param("import numpy as tf\ns = tf.Session()\n", id="not-tensorflow"),
    pytest.param(
        "import tensorflow as tf\nfrom tensorflow.compat.v1 import tpu\n\n\ndef main():\n"
        "    return tpu.experimental.TPUSystemMetadata\n\n\nmain()\n",
        id="tpu-name-tf2-has-too-from-compat-v1",
    ),
]


@pytest.mark.parametrize("source", NO_OPS)
def test_no_ops(source):
    assert_unchanged("TFM113", source)


def test_library_module_is_switched_without_the_global_switch_and_says_so():
    source = (
        "import tensorflow as tf\n\n\ndef build(x):\n    w = tf.get_variable('w', [2, 1])\n    return tf.matmul(x, w)\n"
    )
    result = assert_rewrites(
        "TFM113", source, source.replace("import tensorflow as tf", "import tensorflow.compat.v1 as tf")
    )
    assert any("no entry point" in f.message and "disable_v2_behavior" in f.message for f in result.findings)


def test_contrib_is_named_and_the_rest_still_switched():
    result = rewrite("TFM113", "import tensorflow as tf\nfrom_contrib = tf.contrib.layers.flatten\n" + SESSION)
    assert result.code.startswith("import tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()\n")
    assert any("tf.contrib.layers.flatten is gone" in f.message for f in result.findings)


def test_tf_keras_needed_is_a_finding():
    result = rewrite("TFM113", "import tensorflow as tf\nh = tf.layers.dense(x, 3)\n")
    assert any("pip install tf-keras" in f.message for f in result.findings)


def test_import_not_at_module_level_is_declined_with_a_finding():
    source = "import sys\nif sys.version_info >= (3,):\n    import tensorflow as tf\n" + SESSION
    result = assert_unchanged("TFM113", source)
    assert any("import tensorflow.compat.v1 by hand" in f.message for f in result.findings)


def test_whole_catalogue_keeps_a_saver_program_it_cannot_map_on_v1_and_a_second_run_changes_nothing():
    source = textwrap.dedent("""\
        import tensorflow as tf
        w = tf.Variable(tf.random_normal([2, 2], seed=1))
        m = tf.arg_max(w, 1, tf.int64)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            saver.save(sess, "/tmp/model", write_meta_graph=False)
    """)
    codemods = builtin_codemods()
    once, state = transform_text(source, codemods)
    assert once.startswith("import tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()\n")
    # TF2 names written into a file kept on v1 say they are TF2's.
    assert "tf.compat.v2.random.normal([2, 2], seed=1)" in once and "tf.compat.v2.argmax(w, 1, tf.int64)" in once
    assert [construct for construct, _ in state.kept_on_v1] == [
        "tf.train.Saver",
        "tf.Session",
        "tf.global_variables_initializer",
    ]
    twice, again = transform_text(once, codemods)
    assert twice == once and again.fixes == []


def test_a_file_whose_tf_import_a_tf2_rewrite_took_is_kept_on_v1_whole():
    """session-to-function took the last read of ``tf`` (and its import) from a file whose TPU
    graph keeps it on TF1: kept on v1, it is rewritten again without the TF2 codemods."""
    source = textwrap.dedent("""\
        import tensorflow as tf
        from tensorflow.contrib import tpu


        def run(fn, xs):
            with tf.Session() as sess:
                return sess.run(tpu.rewrite(fn, xs))
    """)
    new, state = transform_text(source, builtin_codemods())
    switched = source.replace("import tensorflow as tf", "import tensorflow.compat.v1 as tf")
    assert new == switched.replace("tensorflow.contrib", "tensorflow.compat.v1")
    assert [construct for construct, _ in state.kept_on_v1] == ["tf.Session", "tf.tpu.rewrite"]


def test_a_migrated_file_is_not_kept_on_v1():
    source = "import tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()\ny = tf.reduce_sum(tf.ones([2]), axis=0)\n"
    new, state = transform_text(source, builtin_codemods())
    assert new.startswith("import tensorflow as tf\n") and state.kept_on_v1 == []


LIBRARY = """\
import tensorflow as tf


def build(x):
    w = tf.get_variable("w", [x.get_shape()[1], 1], initializer=tf.constant_initializer(0.5))
    return tf.matmul(x, w)
"""

PROGRAM = """\
import numpy as np
import tensorflow as tf

from model import build

x = tf.placeholder(tf.float32, [None, 2])
y = build(x)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    print(sess.run(y, feed_dict={x: np.ones((1, 2))}).tolist())
"""


def test_library_and_program_run_on_tf2_after_apply(tmp_path):
    pytest.importorskip("tensorflow")
    (tmp_path / "model.py").write_text(LIBRARY)
    (tmp_path / "train.py").write_text(PROGRAM)
    applied = subprocess.run(
        [sys.executable, "-m", "tfmodernize", "apply", "--no-cache", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert applied.returncode in (0, 1), applied.stderr
    assert (tmp_path / "model.py").read_text().startswith("import tensorflow.compat.v1 as tf\n\n")
    assert "tf.disable_v2_behavior()" in (tmp_path / "train.py").read_text()
    env = {k: v for k, v in os.environ.items() if k != "TF_USE_LEGACY_KERAS"} | {"TF_CPP_MIN_LOG_LEVEL": "3"}
    ran = subprocess.run(
        [sys.executable, "train.py"], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300
    )
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert ran.stdout.strip().splitlines()[-1] == "[[1.0]]"


def test_a_blocker_moved_into_a_function_by_an_earlier_rewrite_is_cited_at_its_own_line():
    source = (
        "import numpy as np\nimport tensorflow as tf\n\nx = tf.placeholder(tf.float32, [None, 1])\n"
        "w = tf.Variable(tf.zeros([1, 1]))\n\nloss = tf.losses.huber_loss(x, tf.matmul(x, w))\n"
        "with tf.Session() as sess:\n    sess.run(tf.global_variables_initializer())\n"
        "    print(sess.run(loss, feed_dict={x: np.ones((2, 1))}))\n"
    )
    _, state = transform_text(source, builtin_codemods(), path="huber.py", unsafe_fixes=False)
    not_applied = [f.message for f in state.findings if f.code == "TFM101"]
    assert not_applied and all(
        "tf.losses.huber_loss (line 7) keeps the file on tf.compat.v1" in m for m in not_applied
    ), not_applied
