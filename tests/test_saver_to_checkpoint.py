"""TFM105 saver-to-checkpoint: golden and no-op tables, and the proof that a checkpoint written
by a TF1 program restores into the migrated program."""

import importlib.util
import json
import os
import subprocess
import sys

import pytest

from tfmodernize.registry import builtin_codemods
from tfmodernize.engine import transform_text
from tfmodernize.testing import assert_rewrites, assert_unchanged

HEAD = "import tensorflow as tf\nw = tf.Variable(tf.zeros([2]))\nv = tf.Variable(1.0, name='scale')\n"

TRAIN = "def train():\n    saver = tf.train.Saver()\n    sess = tf.Session()\n    saver.save(sess, 'm.ckpt')\n"
TRAINED = (
    "def train():\n    saver = tf.train.Checkpoint(w=w, v=v)\n    sess = tf.Session()\n    saver.write('m.ckpt')\n"
)

REWRITES = [
    # Made in the function the program runs once: it saves what the top-level code made before that call.
    pytest.param(
        HEAD + TRAIN + "if __name__ == '__main__':\n    train()\n",
        HEAD + TRAINED + "if __name__ == '__main__':\n    train()\n",
        id="in-a-function-the-main-block-runs-once",
    ),
    pytest.param(
        HEAD + TRAIN + "train()\nlater = tf.Variable(2.0)\n",
        HEAD + TRAINED + "train()\nlater = tf.Variable(2.0)\n",
        id="in-a-function-run-once-before-more-variables",
    ),
    pytest.param(
        HEAD + TRAIN + "if __name__ == '__main__':\n    if mode == 'train':\n        train()\n",
        HEAD + TRAINED + "if __name__ == '__main__':\n    if mode == 'train':\n        train()\n",
        id="in-a-function-run-at-most-once-under-a-condition",
    ),
    pytest.param(
        HEAD + TRAIN.replace("def train():", "def main(_):") + "if __name__ == '__main__':\n    tf.app.run()\n",
        HEAD + TRAINED.replace("def train():", "def main(_):") + "if __name__ == '__main__':\n    tf.app.run()\n",
        id="in-the-main-app-run-runs",
    ),
    pytest.param(
        HEAD
        + "saver = tf.train.Saver(max_to_keep=0)\nsess = tf.Session()\nsaver.save(sess, folder, global_step=step)\n",
        HEAD.replace("import tensorflow as tf\n", "import tensorflow as tf\nimport os\n\n")
        + "saver = tf.train.Checkpoint(w=w, v=v)\nsess = tf.Session()\n"
        "tf.train.CheckpointManager(\n"
        "    saver,\n"
        "    os.path.dirname(folder) or os.curdir,\n"
        "    max_to_keep=None,\n"
        "    checkpoint_name=os.path.basename(folder),\n"
        ").save(checkpoint_number=step)\n",
        id="numbered-save-keeps-all",
    ),
    pytest.param(
        HEAD + "saver = tf.train.Saver()\nsess = tf.Session()\np = saver.save(sess, 'm.ckpt')\n",
        HEAD + "saver = tf.train.Checkpoint(w=w, v=v)\nsess = tf.Session()\np = saver.write('m.ckpt')\n",
        id="save-only-keeps-names-as-they-are",
    ),
    pytest.param(
        HEAD
        + "saver = tf.train.Saver([w], max_to_keep=2)\nsess = tf.Session()\nsaver.restore(sess, save_path='m.ckpt')\n",
        HEAD.replace("tf.zeros([2]))", 'tf.zeros([2]), name="Variable")')
        + "saver = tf.train.Checkpoint(w=w)\nsess = tf.Session()\nsaver.read('m.ckpt').assert_existing_objects_matched()\n",
        id="restore-writes-tf1-names",
    ),
    pytest.param(
        HEAD + "saver = tf.train.Saver({'weights': w, 'scale': v})\nsess = tf.Session()\nsaver.save(sess, 'm.ckpt')\n",
        HEAD + "saver = tf.train.Checkpoint(weights=w, scale=v)\nsess = tf.Session()\nsaver.write('m.ckpt')\n",
        id="dict-saves-under-its-keys",
    ),
    # The session and the path passed by keyword, in any order.
    pytest.param(
        HEAD + "saver = tf.train.Saver()\nsess = tf.Session()\nsaver.save(save_path='m.ckpt', sess=sess)\n",
        HEAD + "saver = tf.train.Checkpoint(w=w, v=v)\nsess = tf.Session()\nsaver.write('m.ckpt')\n",
        id="save-by-keywords",
    ),
    pytest.param(
        HEAD + "saver = tf.train.Saver({'weights': w})\nsess = tf.Session()\nsaver.restore(sess, 'm.ckpt')\n",
        HEAD.replace("tf.zeros([2]))", 'tf.zeros([2]), name="weights")')
        + "saver = tf.train.Checkpoint(weights=w)\nsess = tf.Session()\nsaver.read('m.ckpt').assert_existing_objects_matched()\n",
        id="dict-restore-names-the-variable-as-its-key",
    ),
    # TF1's Saver() saved the optimizer's slot variables: the optimizer is checkpointed beside them.
    pytest.param(
        HEAD + "opt = tf.train.AdamOptimizer().minimize(tf.reduce_sum(w))  # one step\ns = tf.train.Saver()\n",
        HEAD + "optimizer = tf.train.AdamOptimizer()\nopt = optimizer.minimize(tf.reduce_sum(w))  # one step\n"
        "s = tf.train.Checkpoint(w=w, v=v, optimizer=optimizer)\n",
        id="optimizer-made-inline-is-named-and-checkpointed",
    ),
    pytest.param(
        HEAD + "adam = tf.train.AdamOptimizer()\nstep = adam.minimize(w)\ns = tf.train.Saver(tf.global_variables())\n",
        HEAD
        + "adam = tf.train.AdamOptimizer()\nstep = adam.minimize(w)\ns = tf.train.Checkpoint(w=w, v=v, adam=adam)\n",
        id="every-global-variable-with-a-named-optimizer",
    ),
    pytest.param(
        "import tensorflow as tf\n\n\nclass Net(tf.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.w = tf.Variable(1.0)\n\n\nnet = Net()\ns = tf.train.Saver()\n",
        "import tensorflow as tf\n\n\nclass Net(tf.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.w = tf.Variable(1.0)\n\n\nnet = Net()\n"
        "s = tf.train.Checkpoint(net=net)\n",
        id="a-module-made-once-is-checkpointed-as-an-object",
    ),
]


@pytest.mark.parametrize(("before", "after"), REWRITES)
def test_rewrites(before, after):
    assert_rewrites("TFM105", before, after)


NO_OPS = [
    pytest.param(HEAD + TRAIN + "train()\ntrain()\n", "top-level code", id="in-a-function-run-twice"),
    pytest.param(
        HEAD + TRAIN + "for _ in range(2):\n    train()\n", "top-level code", id="in-a-function-run-in-a-loop"
    ),
    pytest.param(
        HEAD + "def run():\n    train()\n" + TRAIN + "run()\n",
        "top-level code",
        id="in-a-function-run-once-by-another-function",
    ),
    pytest.param(
        HEAD + TRAIN.replace("    saver =", "    u = tf.Variable(3.0)\n    saver =") + "train()\n",
        "may make variables (`tf.Variable`) before its Saver",
        id="in-a-function-making-a-variable-first",
    ),
    pytest.param(
        HEAD
        + "def layer():\n    return tf.layers.dense(w, 2)\n"
        + TRAIN.replace("    saver =", "    out = layer()\n    saver =")
        + "train()\n",
        "may make variables (`layer`) before its Saver",
        id="in-a-function-calling-a-variable-maker-first",
    ),
    pytest.param(
        HEAD.replace("\n", "\nfrom network import build\n", 1)
        + TRAIN.replace("    saver =", "    net = build()\n    saver =")
        + "train()\n",
        "may make variables (`build` (imported as network.build))",
        id="in-a-function-calling-imported-code-first",
    ),
    pytest.param(
        HEAD
        + TRAIN.replace("    saver =", "    step = tf.train.AdamOptimizer().minimize(w)\n    saver =")
        + "train()\n",
        "slot variables",
        id="in-a-function-after-an-optimizer-with-slots",
    ),
    pytest.param(
        HEAD + TRAIN + "if __name__ == '__main__':\n    u = tf.Variable(2.0)\n    train()\n",
        "cannot be listed",
        id="in-a-function-after-variables-of-the-main-block",
    ),
    pytest.param(
        HEAD + TRAIN + "with tf.Graph().as_default():\n    train()\n",
        "top-level code",
        id="in-a-function-run-in-a-with",
    ),
    pytest.param(HEAD + TRAIN + "    return saver\ntrain()\n", "used other than", id="in-a-function-returned"),
    pytest.param(HEAD + "def f():\n    return tf.train.Saver()\n", "top-level code", id="in-a-function"),
    pytest.param(
        HEAD + "s = tf.train.Saver()\nsess = tf.Session()\ns.save(sess, where(), global_step=3)\n",
        "a numbered save's path is not a name",
        id="numbered-save-of-a-computed-path",
    ),
    pytest.param(
        HEAD + "s = tf.train.Saver()\nsess = tf.Session()\ns.save(sess, 'm', write_meta_graph=False)\n",
        "passes options other than",
        id="other-save-options",
    ),
    pytest.param(
        HEAD + "s = tf.train.Saver()\nsess = tf.Session()\ns.save(sess, 'm')\nprint(tf.train.latest_checkpoint('.'))\n",
        "a save without `global_step`",
        id="state-read-after-an-unnumbered-save",
    ),
    pytest.param(HEAD + "s = tf.train.Saver()\nsaving = s\n", "used other than", id="saver-used-otherwise"),
    pytest.param("import tensorflow as tf\ns = tf.train.Saver()\n", "No variables to save", id="nothing-to-save"),
    pytest.param(HEAD + "s = tf.train.Saver(sharded=True)\n", "arguments other than", id="other-arguments"),
    pytest.param(
        HEAD + "s = tf.train.Saver({'a b': w})\n", "dict of identifier strings", id="dict-key-not-an-identifier"
    ),
    pytest.param(
        HEAD + "s = tf.train.Saver({'v': v})\nsess = tf.Session()\ns.restore(sess, 'm')\n",
        "named otherwise than the key",
        id="dict-restore-of-a-variable-named-otherwise",
    ),
    pytest.param(
        HEAD + "opt = tf.train.AdamOptimizer()\nstep = opt.minimize(tf.reduce_sum(w))\ns = tf.train.Saver()\n"
        "sess = tf.Session()\ns.restore(sess, 'm')\n",
        "checkpoints the TF1 program wrote would not restore",
        id="optimizer-slots-restored",
    ),
    pytest.param(
        HEAD + "opt = tf.train.AdamOptimizer()\nopt = tf.train.AdamOptimizer(0.1)\n"
        "step = opt.minimize(tf.reduce_sum(w))\ns = tf.train.Saver()\n",
        "bound more than once",
        id="optimizer-bound-twice",
    ),
    pytest.param(
        HEAD + "steps = [tf.train.AdamOptimizer().minimize(tf.reduce_sum(w))]\ns = tf.train.Saver()\n",
        "slot variables",
        id="optimizer-slots-in-an-expression",
    ),
    pytest.param(
        "import tensorflow as tf\n\ndef make():\n    return tf.Variable(1.0)\n\nk = make()\n"
        "s = tf.train.Saver([k])\nsess = tf.Session()\ns.restore(sess, 'm')\n",
        "not made by a `tf.Variable(...)`",
        id="restored-variable-made-by-a-helper",
    ),
]


@pytest.mark.parametrize(("source", "finding"), NO_OPS)
def test_declines(source, finding):
    result = assert_unchanged("TFM105", source)
    assert any(finding in f.message for f in result.findings), [f.message for f in result.findings]


DICT_WRITER = """\
import sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
table = tf.Variable([[0.5, 1.5], [2.5, -3.0]])
saver = tf.train.Saver({"embeddings": table})
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    saver.save(sess, sys.argv[1])
"""

DICT_READER = """\
import json
import sys
import tensorflow as tf

vectors = tf.Variable(tf.zeros([2, 2]))
saver = tf.train.Saver({"embeddings": vectors})
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    saver.restore(sess, sys.argv[1])
    restored = sess.run(vectors)
print(json.dumps(restored.tolist()))
"""

WRITER = """\
import sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
kernel = tf.Variable([[1.5, -2.0], [0.25, 4.0]])
with tf.name_scope("head"):
    shift = tf.Variable([0.5, -0.5])
saver = tf.train.Saver()
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    saver.save(sess, sys.argv[1])
"""

READER = """\
import json
import sys
import tensorflow as tf

kernel = tf.Variable(tf.zeros([2, 2]))
with tf.name_scope("head"):
    shift = tf.Variable(tf.zeros([2]))
saver = tf.train.Saver()
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    saver.restore(sess, sys.argv[1])
    restored_kernel, restored_shift = sess.run([kernel, shift])
print(json.dumps([restored_kernel.tolist(), restored_shift.tolist()]))
"""


@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="needs the verify extra (TensorFlow)")
def test_a_checkpoint_the_tf1_program_wrote_restores_into_the_migrated_program(tmp_path):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="-1")
    checkpoint = str(tmp_path / "tf1" / "model.ckpt")
    (tmp_path / "writer.py").write_text(WRITER)
    subprocess.run([sys.executable, str(tmp_path / "writer.py"), checkpoint], check=True, env=env, capture_output=True)

    migrated, state = transform_text(READER, builtin_codemods(), path="reader.py")
    assert "TFM105" in {fix.code for fix in state.fixes}
    assert "compat.v1" not in migrated and "Session" not in migrated, migrated
    assert 'name="Variable"' in migrated and 'name="head/Variable"' in migrated  # TF1's names, scope included
    (tmp_path / "reader.py").write_text(migrated)
    run = subprocess.run(
        [sys.executable, str(tmp_path / "reader.py"), checkpoint], check=True, env=env, capture_output=True, text=True
    )
    assert json.loads(run.stdout.strip().splitlines()[-1]) == [[[1.5, -2.0], [0.25, 4.0]], [0.5, -0.5]]


@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="needs the verify extra (TensorFlow)")
def test_a_checkpoint_saved_under_dict_keys_restores_into_the_migrated_program(tmp_path):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="-1")
    checkpoint = str(tmp_path / "tf1" / "embeddings.ckpt")
    (tmp_path / "writer.py").write_text(DICT_WRITER)
    subprocess.run([sys.executable, str(tmp_path / "writer.py"), checkpoint], check=True, env=env, capture_output=True)

    migrated, _ = transform_text(DICT_READER, builtin_codemods(), path="reader.py")
    assert "tf.train.Checkpoint(embeddings=vectors)" in migrated and 'name="embeddings"' in migrated, migrated
    assert "compat.v1" not in migrated and "Session" not in migrated, migrated
    (tmp_path / "reader.py").write_text(migrated)
    run = subprocess.run(
        [sys.executable, str(tmp_path / "reader.py"), checkpoint], check=True, env=env, capture_output=True, text=True
    )
    assert json.loads(run.stdout.strip().splitlines()[-1]) == [[0.5, 1.5], [2.5, -3.0]]
