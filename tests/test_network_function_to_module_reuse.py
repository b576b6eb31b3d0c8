"""Networks sharing their variables through ``reuse`` (``analysis/variable_reuse.py``), made
``tf.Module`` s by get-variable-to-variable and network-function-to-module together: which
shapes are read, and the ones left alone.

The numeric proof: ``fixtures/network-function-to-module/networks_shared_through_reuse``, and
its no-op twin ``declined_reuse_decided_at_run_time``."""

import libcst as cst
import pytest

from tfmodernize.analysis.variable_reuse import read_shared_networks
from tfmodernize.testing import assert_rewrites, rewrite
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import walk

HELPER = (
    "import tensorflow as tf\n\n\n"
    "def affine(x, n_in, n_out, label):\n"
    "    with tf.variable_scope(label, reuse=None):\n"
    "        w = tf.get_variable('w', shape=[n_in, n_out], initializer=tf.constant_initializer(0.5))\n"
    "        return tf.matmul(x, w)\n\n\n"
    "def score(x, reuse=False):\n"
    "    if reuse:\n"
    "        tf.get_variable_scope().reuse_variables()\n"
    "    with tf.name_scope('Score'):\n"
    "        return affine(x, 2, 1, 'sc_out')\n\n\n"
    "a = tf.placeholder(tf.float32, [None, 2])\n"
)
SESSION = "with tf.Session() as sess:\n    sess.run(tf.global_variables_initializer())\n"


def read(calls: str):
    module = cst.parse_module(HELPER + calls)
    return module, read_shared_networks(module, TFNames.for_module(module), _parents(module))


def _parents(module: cst.Module) -> dict:
    parents = {}
    stack = [module]
    while stack:
        node = stack.pop()
        for child in node.children:
            parents[id(child)] = node
            stack.append(child)
    return parents


def test_a_reusing_call_is_read_as_the_first_calls():
    module, shared = read(
        "with tf.variable_scope(tf.get_variable_scope()):\n"
        "    first = score(a)\n"
        "    second = score(a * 2.0, reuse=True)\n"
    )
    assert shared is not None and shared.networks == {"score"}
    calls = [n for n in walk(module) if isinstance(n, cst.Call) and getattr(n.func, "value", "") == "score"]
    assert shared.reusing == {id(calls[1]): calls[0]}
    assert len(shared.wrappers) == 1


@pytest.mark.parametrize(
    "calls",
    [
        pytest.param(
            "share = True\nwith tf.variable_scope(tf.get_variable_scope()):\n"
            "    first = score(a)\n    second = score(a, reuse=share)\n",
            id="reuse-decided-by-a-runtime-value",
        ),
        pytest.param("first = score(a)\nsecond = score(a, reuse=True)\n", id="reusing-call-outside-a-block"),
        pytest.param(
            "with tf.variable_scope(tf.get_variable_scope()):\n    second = score(a, reuse=True)\n",
            id="reusing-before-any-call-made-them",
        ),
        pytest.param(
            "with tf.variable_scope(tf.get_variable_scope()):\n"
            "    first = score(a)\n    second = score(a, reuse=True)\n    third = affine(a, 2, 2, 'x')\n",
            id="variables-asked-for-after-the-reuse-in-its-block",
        ),
        pytest.param(
            "first = score(a)\nwith tf.variable_scope('outer', reuse=tf.AUTO_REUSE):\n    second = score(a)\n",
            id="a-scope-reusing-by-hand",
        ),
        pytest.param("first = score(a)\nsecond = score(a)\n", id="made-twice"),
    ],
)
def test_other_sharing_is_not_read(calls):
    assert read(calls)[1] is None


def test_a_file_sharing_nothing_reads_none():
    module = cst.parse_module("import tensorflow as tf\nx = tf.get_variable('x', [1])\n")
    assert read_shared_networks(module, TFNames.for_module(module), _parents(module)) is None


def test_the_helper_stays_a_function_without_network_function_to_module():
    """A reusing call would make new variables: get-variable-to-variable needs the objects."""
    source = (
        HELPER + "with tf.variable_scope(tf.get_variable_scope()):\n"
        "    first = score(a)\n    second = score(a * 2.0, reuse=True)\n" + SESSION
    )
    result = rewrite("TFM106", source)
    assert result.code == source
    assert any("needs TFM121" in f.message for f in result.findings), [f.message for f in result.findings]


def test_a_reusing_call_passing_other_sizes_is_declined():
    source = (
        "import tensorflow as tf\n\n\n"
        "def affine(x, n_in, n_out):\n"
        "    w = tf.Variable(tf.ones([n_in, n_out]))\n"
        "    return tf.matmul(x, w)\n\n\n"
        "def score(x, size, reuse=False):\n"
        "    if reuse:\n"
        "        tf.get_variable_scope().reuse_variables()\n"
        "    return affine(x, size, 1)\n\n\n"
        "a = tf.placeholder(tf.float32, [None, 2])\n"
        "with tf.variable_scope(tf.get_variable_scope()):\n"
        "    first = score(a, 2)\n    second = score(a, 3, reuse=True)\n" + SESSION
    )
    result = rewrite("TFM121", source)
    assert result.code == source
    assert any("passes another `size`" in f.message for f in result.findings), [f.message for f in result.findings]


def test_networks_built_in_a_function_call_their_first_objects():
    """The program's function (``train``) opening the blocks: each network's object is made where
    its first call was, the reusing calls call it, and the blocks go."""
    before = (
        "import tensorflow as tf\n\n\n"
        "def affine(x, n_in, n_out):\n"
        "    w = tf.Variable(tf.ones([n_in, n_out]))\n"
        "    return tf.matmul(x, w)\n\n\n"
        "def score(x, reuse=False):\n"
        "    if reuse:\n"
        "        tf.get_variable_scope().reuse_variables()\n"
        "    with tf.name_scope('Score'):\n"
        "        return affine(x, 2, 1)\n\n\n"
        "def train():\n"
        "    a = tf.placeholder(tf.float32, [None, 2])\n"
        "    with tf.variable_scope(tf.get_variable_scope()):\n"
        "        real = score(a)\n"
        "        # the same weights\n"
        "        fake = score(a * 2.0, reuse=True)\n"
        "    with tf.Session() as sess:\n"
        "        sess.run(tf.global_variables_initializer())\n\n\n"
        "train()\n"
    )
    after = (
        "import tensorflow as tf\n\n\n"
        "class Affine(tf.Module):\n"
        "    def __init__(self, n_in, n_out):\n"
        "        super().__init__()\n"
        "        self.w = tf.Variable(tf.ones([n_in, n_out]))\n\n"
        "    def __call__(self, x):\n"
        "        return tf.matmul(x, self.w)\n\n\n"
        "class Score(tf.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.affine = Affine(2, 1)\n\n"
        "    def __call__(self, x):\n"
        "        with tf.name_scope('Score'):\n"
        "            return self.affine(x)\n\n\n"
        "def train():\n"
        "    a = tf.placeholder(tf.float32, [None, 2])\n"
        "    score = Score()\n"
        "    real = score(a)\n"
        "    # the same weights\n"
        "    fake = score(a * 2.0)\n"
        "    with tf.Session() as sess:\n"
        "        sess.run(tf.global_variables_initializer())\n\n\n"
        "train()\n"
    )
    assert_rewrites("TFM121", before, after)


def _auto_reuse(second_label: str):
    source = (
        HELPER.replace("reuse=None", "reuse=tf.AUTO_REUSE") + "def judge(x, reuse=False):\n"
        "    if reuse:\n"
        "        tf.get_variable_scope().reuse_variables()\n"
        f"    return affine(x, 2, 1, {second_label!r})\n\n\n"
        "with tf.variable_scope(tf.get_variable_scope()):\n"
        "    first = score(a)\n    other = judge(a)\n    second = score(a, reuse=True)\n"
    )
    module = cst.parse_module(source)
    return read_shared_networks(module, TFNames.for_module(module), _parents(module))


def test_a_helper_scope_auto_reusing_is_read_when_its_calls_name_other_scopes():
    assert _auto_reuse("ju_out") is not None


def test_a_helper_scope_auto_reusing_under_one_name_twice_is_not_read():
    """``score`` and ``judge`` shared ``sc_out``'s weights through ``AUTO_REUSE`` in TF1."""
    assert _auto_reuse("sc_out") is None
