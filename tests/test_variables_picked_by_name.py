"""TFM122 variables-picked-by-name: rewrite and no-op tables."""

import pytest

from tfmodernize.testing import assert_rewrites, assert_unchanged

HEAD = """\
import tensorflow.compat.v1 as tf

with tf.variable_scope("critic"):
    critic_w = tf.Variable(tf.zeros([4, 1]))
    critic_b = tf.Variable(tf.zeros([1]))
with tf.name_scope("actor"):
    actor_w = tf.Variable(tf.zeros([2, 4]), name="weights")
step = tf.Variable(0, trainable=False, name="critic_step")
"""
RUN = """
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
"""

REWRITES = [
    (
        "substring-of-the-scope",
        'picked = [v for v in tf.trainable_variables() if "critic" in v.name]\n',
        "picked = [critic_w, critic_b]\n",
    ),
    (
        "startswith-over-a-name-bound-once",
        'params = tf.trainable_variables()\npicked = [v for v in params if v.name.startswith("actor/")]\n',
        "params = tf.trainable_variables()\npicked = [actor_w]\n",
    ),
    (
        "graph-keys-collection",
        'picked = [v for v in tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES) if "weights" in v.name]\n',
        "picked = [actor_w]\n",
    ),
]


@pytest.mark.parametrize("read, written", [(r, w) for _, r, w in REWRITES], ids=[i for i, _, _ in REWRITES])
def test_rewrites(read: str, written: str) -> None:
    assert_rewrites("TFM122", HEAD + read + RUN, HEAD + written + RUN)


NO_OPS = [
    # The list read is changed in place before the filter: it is not the collection's.
    (
        "list-appended-to",
        HEAD + "params = tf.trainable_variables()\nparams.append(step)\n"
        'picked = [v for v in params if "critic" in v.name]\n' + RUN,
    ),
    # Inside a function: what the collection holds depends on when it runs.
    (
        "filter-in-a-function",
        HEAD + 'def picked():\n    return [v for v in tf.trainable_variables() if "critic" in v.name]\n' + RUN,
    ),
    # Library code (no entry point): the program importing it may make variables first.
    ("library-module", HEAD + 'picked = [v for v in tf.trainable_variables() if "critic" in v.name]\n'),
    # A test the shared name reader does not read (``not in``), nor one on anything but the name.
    ("not-in", HEAD + 'picked = [v for v in tf.trainable_variables() if "critic" not in v.name]\n' + RUN),
    # A test other than a literal on the name.
    ("other-test", HEAD + "picked = [v for v in tf.trainable_variables() if v.shape.ndims == 2]\n" + RUN),
    # A variable whose name is computed: its TF1 name cannot be read off the code.
    (
        "computed-name",
        HEAD + 'extra = tf.Variable(tf.ones([1]), name="critic_" + str(3))\n'
        'picked = [v for v in tf.trainable_variables() if "critic" in v.name]\n' + RUN,
    ),
    # Imported code may make variables before the read.
    (
        "variables-from-imported-code",
        "from networks import build\n" + HEAD + "net = build()\n"
        'picked = [v for v in tf.trainable_variables() if "critic" in v.name]\n' + RUN,
    ),
]


@pytest.mark.parametrize("source", [s for _, s in NO_OPS], ids=[i for i, _ in NO_OPS])
def test_no_op(source: str) -> None:
    assert_unchanged("TFM122", source)
