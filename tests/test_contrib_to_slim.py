"""TFM116 contrib-to-slim: rewrites (imports, module names, names written out), no-ops and
declines, alone; what the generated tf-slim table says; and, with TensorFlow, that the functions
the table says fail on TF 2.x do fail while the rest runs."""

import json
import os
import re
import subprocess
import sys

import pytest

from tfmodernize.analysis.contrib import (
    DOES_NOT_RUN,
    PARTIALS,
    SLIM_HOMES,
    TF_MODULES,
    WRITTEN_IN_THE_FILE,
    NotInSlim,
    SlimName,
    slim_name,
)
from tfmodernize.codemods.migrate.contrib_to_slim.batch_norm import (
    ARG_SCOPES,
    HELPER,
    NET_HELPER,
    NETS,
    SCOPE_HELPER,
)
from tfmodernize.codemods.migrate.contrib_to_slim.learning import CLIP_GRADIENT_NORMS, MULTIPLY_GRADIENTS
from tfmodernize.registry import builtin_codemods
from tfmodernize.testing import assert_rewrites, assert_unchanged, rewrite
from tfmodernize.written_code import template_source

CODE = "TFM116"

REWRITES = [
    pytest.param(
        "import tensorflow as tf\nimport tensorflow.contrib.slim as slim\n\ny = slim.conv2d(x, 4, [3, 3])\n",
        "import tensorflow as tf\nimport tf_slim as slim\n\ny = slim.conv2d(x, 4, [3, 3])\n",
        id="import-as",
    ),
    pytest.param(
        "import tensorflow as tf\nfrom tensorflow.contrib import slim  # the layers\n\ny = slim.flatten(x)\n",
        "import tensorflow as tf\nimport tf_slim as slim  # the layers\n\ny = slim.flatten(x)\n",
        id="from-contrib-import-comment-kept",
    ),
    pytest.param(
        "import tensorflow as tf\nfrom tensorflow.contrib.framework import arg_scope, add_arg_scope\n\n"
        "@add_arg_scope\ndef f(x, k=1):\n    return x * k\n",
        "import tensorflow as tf\nfrom tf_slim import arg_scope, add_arg_scope\n\n"
        "@add_arg_scope\ndef f(x, k=1):\n    return x * k\n",
        id="framework-names",
    ),
    pytest.param(
        "import tensorflow as tf\nfrom tensorflow.contrib.slim.nets import resnet_v1 as resnet\n\n"
        "net = resnet.resnet_v1_50\n",
        "import tensorflow as tf\nfrom tf_slim.nets import resnet_v1 as resnet\n\nnet = resnet.resnet_v1_50\n",
        id="nets-module",
    ),
    pytest.param(
        "import tensorflow as tf\nfrom tensorflow.contrib.layers.python.layers import layers as layers_lib\n\n"
        "y = layers_lib.fully_connected(x, 3)\n",
        "import tensorflow as tf\nfrom tf_slim.layers import layers as layers_lib\n\n"
        "y = layers_lib.fully_connected(x, 3)\n",
        id="deep-module-import",
    ),
    pytest.param(
        "import tensorflow as tf\nslim = tf.contrib.slim\n\ny = slim.max_pool2d(x, [2, 2])\nz = tf.nn.relu(y)\n",
        "import tensorflow as tf\nimport tf_slim as slim\n\ny = slim.max_pool2d(x, [2, 2])\nz = tf.nn.relu(y)\n",
        id="module-name-line-becomes-import",
    ),
    pytest.param(
        "import tensorflow as tf\n\ny = tf.contrib.layers.flatten(tf.nn.relu(x))\n",
        "import tensorflow as tf\nimport tf_slim\n\ny = tf_slim.flatten(tf.nn.relu(x))\n",
        id="written-out-through-tf",
    ),
    pytest.param(
        "import tensorflow.compat.v1 as tf\n\nacc = tf.contrib.metrics.streaming_accuracy(p, tf.ones([2]))\n",
        "import tensorflow.compat.v1 as tf\nimport tf_slim.metrics\n\n"
        "acc = tf_slim.metrics.streaming_accuracy(p, tf.ones([2]))\n",
        id="metrics-through-compat-v1",
    ),
    pytest.param(
        "import tensorflow as tf\nslim = tf.contrib.slim\n\ny = slim.max_pool2d(x, [2, 2])\n",
        "import tf_slim as slim\n\ny = slim.max_pool2d(x, [2, 2])\n",
        id="tf-import-left-unread-goes",
    ),
    pytest.param(
        "import tensorflow as tf\nfrom tensorflow.contrib import slim, rnn\n\ny = slim.flatten(x)\n",
        "import tensorflow as tf\nfrom tensorflow.contrib import rnn\nimport tf_slim as slim\n\ny = slim.flatten(x)\n",
        id="other-contrib-name-stays-in-its-import",
    ),
    pytest.param(
        "import tensorflow as tf\n\nh = tf.contrib.layers.relu(x, 4)\ny = tf.contrib.layers.linear(h, 2)\n",
        "import tf_slim\n\nh = tf_slim.relu(x, 4)\ny = tf_slim.linear(h, 2)\n",
        id="fully-connected-shorthands-are-tf-slims-partials",
    ),
    pytest.param(
        "import tensorflow as tf\nslim = tf.contrib.slim\n\ny = slim.relu6(x, 4)\nslim.summarize_weights()\n",
        "import tf_slim as slim\n\ny = slim.relu6(x, 4)\nslim.summarize_weights()\n",
        id="slims-partials",
    ),
    pytest.param(
        "import tensorflow as tf\nfrom tensorflow.contrib.layers import summaries\n\n"
        "summaries.summarize_activation(y)\n",
        "import tensorflow as tf\nimport tf_slim as summaries\n\nsummaries.summarize_activation(y)\n",
        id="layers-summaries-module-is-tf-slims-top-level",
    ),
    pytest.param(
        "import tensorflow as tf\nslim = tf.contrib.slim\n\ntrain_op = slim.learning.create_train_op(loss, opt)\n",
        "import tf_slim as slim\n\ntrain_op = slim.learning.create_train_op(loss, opt)\n",
        id="create-train-op-runs-as-tf-slims",
    ),
    pytest.param(
        "import tensorflow as tf\nfrom tensorflow.contrib import slim\n\n"
        "saver = slim.learning.tf_saver.Saver(slim.get_variables_to_restore())\n"
        "sv = slim.learning.supervisor.Supervisor(logdir=None, saver=saver)\n",
        "import tensorflow as tf\nimport tf_slim as slim\n\n"
        "saver = slim.learning.tf_saver.Saver(slim.get_variables_to_restore())\n"
        "sv = slim.learning.supervisor.Supervisor(logdir=None, saver=saver)\n",
        id="tensorflow-modules-slim-learning-binds",
    ),
    pytest.param(
        "import tensorflow as tf\nfrom tensorflow.contrib.slim.nets import resnet_v2\n\n"
        "size = resnet_v2.resnet_v2.default_image_size\n"
        "block = resnet_v2.resnet_v2_block('b1', 4, 2, 1)\n",
        "import tensorflow as tf\nfrom tf_slim.nets import resnet_v2\n\n"
        "size = resnet_v2.resnet_v2.default_image_size\n"
        "block = resnet_v2.resnet_v2_block('b1', 4, 2, 1)\n",
        id="resnet-v2-attribute-and-block-need-no-batch-norm",
    ),
    pytest.param(
        "import tensorflow as tf\nslim = tf.contrib.slim\n\nnet = slim.nets.vgg.vgg_16\n",
        "import tf_slim as slim\nimport tf_slim.nets\n\nnet = slim.nets.vgg.vgg_16\n",
        id="nets-read-through-a-module-name-are-imported",
    ),
    pytest.param(
        "import tensorflow as tf\nimport tensorflow.contrib.slim as slim\n\n"
        "net = slim.nets.vgg.vgg_16\nstep = slim.learning.train\n",
        "import tensorflow as tf\nimport tf_slim as slim\nimport tf_slim.nets\n\n"
        "net = slim.nets.vgg.vgg_16\nstep = slim.learning.train\n",
        id="nets-read-through-an-imported-module-are-imported",
    ),
    pytest.param(
        "import tensorflow as tf\nslim = tf.contrib.slim\n\n\ndef halve(v):\n    return tf.div(v, 2.0)\n",
        "import tensorflow as tf\n\n\ndef halve(v):\n    return tf.div(v, 2.0)\n",
        id="module-name-line-nothing-reads-goes",
    ),
    pytest.param(
        "import tensorflow as tf\n\nlayers = tf.contrib.layers\n\n\ndef feed(session, fetch):\n"
        "    with tf.contrib.slim.queues.QueueRunners(session):\n        return session.run(fetch)\n",
        "import tf_slim\n\n\ndef feed(session, fetch):\n"
        "    with tf_slim.queues.QueueRunners(session):\n        return session.run(fetch)\n",
        id="unread-module-name-line-goes-beside-a-name-written-out",
    ),
    pytest.param(
        "import tensorflow as tf\n\n__all__ = ['slim', 'ONES']\nslim = tf.contrib.slim\nONES = tf.ones([3])\n",
        "import tensorflow as tf\n\n__all__ = ['slim', 'ONES']\nimport tf_slim as slim\nONES = tf.ones([3])\n",
        id="module-name-line-the-module-exports-stays",
    ),
    pytest.param(
        "import tensorflow as tf\nfrom tensorflow.contrib.slim.nets import vgg\n\nSIZE = 3\n",
        "import tensorflow as tf\nfrom tf_slim.nets import vgg\n\nSIZE = 3\n",
        id="import-unread-before-stays-a-package-may-export-it",
    ),
]

NO_OPS = [
    pytest.param(
        "import tensorflow as tf\nimport tf_slim as slim\n\ny = slim.conv2d(x, 4, [3, 3])\n", id="tf-slim-already"
    ),
    pytest.param("import tensorflow as tf\ncell = tf.contrib.rnn.LSTMCell(4)\n", id="contrib-rnn-is-not-slim"),
    pytest.param("import tensorflow as tf\nslim = object()\ny = slim.conv2d\n", id="a-name-of-its-own"),
]

DECLINES = [
    pytest.param(
        "import tensorflow as tf\nslim = tf.contrib.slim\n\nsv = slim.learning.coordinator.Coordinator()\n",
        "has no `coordinator` in tf_slim.learning",
        id="a-tensorflow-module-slim-learning-does-not-bind",
    ),
    pytest.param(
        "import tensorflow as tf\nimport tensorflow.contrib.slim as slim\n\ny = slim.batch_norm(x, renorm=True)\n",
        "passes it `renorm`",
        id="batch-norm-renorm-not-reproduced",
    ),
    pytest.param(
        "import tensorflow as tf\nslim = tf.contrib.slim\n\n"
        "params = {'decay': 0.9, 'renorm': True}\nnorm = dict(normalizer_fn=slim.batch_norm)\n",
        "passes it `renorm`",
        id="batch-norm-renorm-true-as-a-dict-key",
    ),
    pytest.param(
        "import tensorflow as tf\nslim = tf.contrib.slim\n\n"
        "params = {'adjustment': scale_and_shift}\nnorm = dict(normalizer_fn=slim.batch_norm)\n",
        "passes it `adjustment`",
        id="batch-norm-adjustment-as-a-dict-key",
    ),
    pytest.param(
        "import tensorflow as tf\nslim = tf.contrib.slim\n\ny = slim.batch_norm(x, batch_weights=w)\n",
        "passes it `batch_weights`",
        id="batch-norm-batch-weights",
    ),
    pytest.param(
        "import tensorflow.contrib.slim as slim\nnorm = slim.batch_norm\nimport tensorflow as tf\n",
        "before its imports end",
        id="batch-norm-read-before-the-imports-end",
    ),
    pytest.param(
        "import tensorflow as tf\nslim = tf.contrib.slim\n\ny = slim.optimize_loss(l, None, 0.1, 'SGD')\n",
        "minimize",
        id="optimize-loss-does-not-run",
    ),
    pytest.param(
        "import tensorflow as tf\nfrom tensorflow.contrib.framework import nest\n\nflat = nest.flatten(x)\n",
        "has no `nest`",
        id="framework-name-not-in-slim",
    ),
    pytest.param(
        "import tensorflow as tf\nslim = tf.contrib.slim\n\ns = slim.learning.add_gradients_summaries(pairs)\n",
        "ops.IndexedSlices",
        id="add-gradients-summaries-does-not-run",
    ),
    pytest.param(
        "import tensorflow.contrib.slim as slim\nclip = slim.learning.clip_gradient_norms\nimport tensorflow as tf\n",
        "the clip_gradient_norms written in its place",
        id="gradient-helper-read-before-the-imports-end",
    ),
    pytest.param(
        "import tensorflow as tf\n\nauc, update = tf.contrib.metrics.streaming_dynamic_auc(labels, scores)\n",
        "control_flow_ops.cond",
        id="dynamic-auc-does-not-run",
    ),
    pytest.param(
        "import tensorflow as tf\n\nr = tf.contrib.layers.summaries.summarize_nothing(y)\n",
        "has no `summarize_nothing` in tf_slim",
        id="layers-summaries-name-not-in-slim",
    ),
    pytest.param(
        "import tensorflow as tf\n\nc = tf.contrib.layers.real_valued_column('x')\n",
        "has no `real_valued_column`",
        id="layers-name-not-in-slim",
    ),
    pytest.param(
        "import tensorflow as tf\n\ny = tf.contrib.layers.python.layers.layers.flatten(x)\n",
        "deep module path",
        id="deep-path-written-out",
    ),
    pytest.param(
        "import tensorflow as tf; import tensorflow.contrib.slim as slim\n\ny = slim.flatten(x)\n",
        "line of its own",
        id="import-sharing-its-line",
    ),
]


@pytest.mark.parametrize(("before", "after"), REWRITES)
def test_rewrites(before, after):
    result = assert_rewrites(CODE, before, after)
    assert result.fixes and all(fix.code == CODE for fix in result.fixes)
    assert result.findings == []


@pytest.mark.parametrize("source", NO_OPS)
def test_leaves_alone(source):
    assert assert_unchanged(CODE, source).findings == []


@pytest.mark.parametrize(("source", "words"), DECLINES)
def test_declines_the_file_with_a_finding(source, words):
    result = assert_unchanged(CODE, source)
    assert result.findings and all(f.code == CODE for f in result.findings)
    assert any(words in f.message for f in result.findings), [f.message for f in result.findings]


def test_one_problem_keeps_every_contrib_name_of_the_file():
    source = (
        "import tensorflow as tf\nimport tensorflow.contrib.slim as slim\n\n"
        "y = slim.conv2d(x, 4, [3], normalizer_fn=slim.batch_norm)\nz = slim.batch_norm(y, renorm=True)\n"
    )
    result = rewrite(CODE, source)
    assert result.code == source and [f.line for f in result.findings] == [5]


def _with_batch_norm(head: str, tail: str, name: str = "batch_norm", tf: str = "tf", slim: str = "slim") -> str:
    """``head``, the batch_norm the rewrite writes (two blank lines above it), ``tail``."""
    return head + "\n\n" + template_source(HELPER, name=name, tf=tf, slim=slim) + "\n\n" + tail


BATCH_NORM = [
    pytest.param(
        "import tensorflow as tf\nslim = tf.contrib.slim\n\n\ndef net(x, training):\n"
        "    with slim.arg_scope([slim.conv2d], normalizer_fn=slim.batch_norm):\n"
        "        with slim.arg_scope([slim.batch_norm], is_training=training):\n"
        "            return slim.conv2d(x, 4, [3, 3])\n",
        _with_batch_norm(
            "import tensorflow as tf\nimport tf_slim as slim\n",
            "def net(x, training):\n"
            "    with slim.arg_scope([slim.conv2d], normalizer_fn=batch_norm):\n"
            "        with slim.arg_scope([batch_norm], is_training=training):\n"
            "            return slim.conv2d(x, 4, [3, 3])\n",
        ),
        id="normalizer-fn-and-arg-scope",
    ),
    pytest.param(
        "import tensorflow.compat.v1 as tf\n\ny = tf.contrib.layers.batch_norm(x, scale=True,\n"
        "                                 updates_collections=None)\n",
        _with_batch_norm(
            "import tensorflow.compat.v1 as tf\nimport tf_slim\n",
            "y = batch_norm(x, scale=True,\n               updates_collections=None)\n",
            slim="tf_slim",
        ),
        id="written-out-through-tf-continuation-realigned",
    ),
    pytest.param(
        "import tensorflow as tf\nfrom tensorflow.contrib.layers.python.layers import layers\n\n"
        "y = layers.batch_norm(layers.conv2d(x, 4, [3]))\n",
        _with_batch_norm(
            "import tensorflow as tf\nfrom tf_slim.layers import layers\nimport tf_slim\n",
            "y = batch_norm(layers.conv2d(x, 4, [3]))\n",
            slim="tf_slim",
        ),
        id="deep-module-import",
    ),
    pytest.param(
        "import tensorflow as tf\nfrom tensorflow.contrib.layers import batch_norm\n\ny = batch_norm(x)\n",
        _with_batch_norm("import tensorflow as tf\nimport tf_slim\n", "y = batch_norm(x)\n", slim="tf_slim"),
        id="the-name-imported-goes-and-is-the-function",
    ),
    pytest.param(
        "import tensorflow as v1\nfrom tensorflow.contrib.slim import batch_norm as bn, flatten\n\n"
        "y = flatten(bn(x, renorm=False, zero_debias_moving_mean=False))\n",
        _with_batch_norm(
            "import tensorflow as v1\nfrom tf_slim import flatten\nimport tf_slim\n",
            "y = flatten(batch_norm(x))\n",
            tf="v1",
            slim="tf_slim",
        ),
        id="renamed-import-and-default-arguments-dropped",
    ),
    pytest.param(
        "import tensorflow as tf\nslim = tf.contrib.slim\n\n\ndef batch_norm(x, batch_norm=True):\n"
        "    return slim.batch_norm(x) if batch_norm else x\n",
        _with_batch_norm(
            "import tensorflow as tf\nimport tf_slim as slim\n",
            "def batch_norm(x, batch_norm=True):\n    return batch_norm_2(x) if batch_norm else x\n",
            name="batch_norm_2",
        ),
        id="a-batch-norm-of-its-own-keeps-its-name",
    ),
    pytest.param(
        "import tensorflow.contrib.slim as slim\n\ny = slim.batch_norm(x)\n",
        _with_batch_norm("import tf_slim as slim\nimport tensorflow.compat.v1 as tf\n", "y = batch_norm(x)\n"),
        id="tensorflow-imported-for-it",
    ),
    pytest.param(
        "import tensorflow as tf\n\ny = tf.contrib.layers.batch_norm(x, zero_debias_moving_mean=True)\n",
        _with_batch_norm(
            "import tensorflow as tf\nimport tf_slim\n",
            "y = batch_norm(x, zero_debias_moving_mean=True)\n",
            slim="tf_slim",
        ),
        id="zero-debias-moving-mean-kept",
    ),
    pytest.param(
        "import tensorflow as tf\nslim = tf.contrib.slim\n\nnorm = tf.contrib.layers.batch_norm\n"
        "conv = tf.contrib.layers.conv2d\n\n\ndef f(x):\n"
        "    return norm(conv(x, 3, [3]), scale=True, zero_debias_moving_mean=False)\n",
        _with_batch_norm(
            "import tensorflow as tf\nimport tf_slim as slim\nimport tf_slim\n",
            "norm = batch_norm\nconv = tf_slim.conv2d\n\n\ndef f(x):\n    return norm(conv(x, 3, [3]), scale=True)\n",
        ),
        id="module-level-alias-of-functions",
    ),
]

#: tf-slim's nets' arg scopes make its batch_norm their layers' normalizer: the file gets the
#: batch_norm written and a wrapper putting it in their scopes in its place.
NET_ARG_SCOPES = [
    pytest.param(
        "import tensorflow as tf\nfrom tensorflow.contrib.slim.nets import resnet_v1, resnet_utils\n\n\n"
        "def features(images):\n"
        "    with tf.contrib.slim.arg_scope(resnet_utils.resnet_arg_scope()):\n"
        "        return resnet_v1.resnet_v1_50(images, 10)\n",
        "import tensorflow as tf\nfrom tf_slim.nets import resnet_v1, resnet_utils\nimport tf_slim\n",
        "def features(images):\n"
        "    with tf_slim.arg_scope(with_batch_norm(resnet_utils.resnet_arg_scope)()):\n"
        "        return resnet_v1.resnet_v1_50(images, 10)\n",
        id="module-imported",
    ),
    pytest.param(
        "import tensorflow as tf\nfrom tensorflow.contrib.slim.nets.inception import inception_v3_arg_scope\n\n"
        "SCOPES = {'v3': inception_v3_arg_scope}\n",
        "import tensorflow as tf\nfrom tf_slim.nets.inception import inception_v3_arg_scope\nimport tf_slim\n",
        "SCOPES = {'v3': with_batch_norm(inception_v3_arg_scope)}\n",
        id="name-imported-held-in-a-table",
    ),
    pytest.param(
        "import tensorflow as tf\n\nscope = tf.contrib.slim.nets.resnet_v1.resnet_arg_scope(weight_decay=0.1)\n",
        "import tensorflow as tf\nimport tf_slim\nimport tf_slim.nets\n",
        "scope = with_batch_norm(tf_slim.nets.resnet_v1.resnet_arg_scope)(weight_decay=0.1)\n",
        id="written-out-through-tf",
    ),
]


def _introduced_lint(before: str, after: str) -> list[tuple[str, str]]:
    """The pyflakes complaints ``after`` has and ``before`` had not: (kind, the local name),
    for an import's local name is what it keeps when it moves to tf-slim."""
    from pyflakes import api, reporter

    class Collect(reporter.Reporter):
        def __init__(self) -> None:
            self.messages: list[tuple[str, str]] = []

        def flake(self, message) -> None:
            name = str(message.message_args[0]) if message.message_args else ""
            local = name.rpartition(" as ")[2].rpartition(".")[2]
            self.messages.append((type(message).__name__, local))

    def lint(code: str) -> list[tuple[str, str]]:
        collect = Collect()
        api.check(code, "m.py", collect)
        return collect.messages

    old = lint(before)
    return [message for message in lint(after) if message not in old]


def test_the_helpers_written_shadow_no_name_the_file_imports():
    # The file imports the names the helpers' insides could take (an arg scope, tf-slim's layers
    # module) and reads none of them: a helper's parameter or local of the same name would
    # redefine an unused import.
    before = (
        "import tensorflow as tf\nfrom tensorflow.contrib.framework import arg_scope\n"
        "from tensorflow.contrib import layers\n"
        "from tensorflow.contrib.slim.nets import resnet_utils, resnet_v2\n\n\n"
        "def encode(pixels, training):\n"
        "    with tf.contrib.slim.arg_scope(resnet_utils.resnet_arg_scope(training)):\n"
        "        return resnet_v2.resnet_v2_50(pixels, 5)\n"
    )
    result = assert_rewrites(CODE, before, rewrite(CODE, before).code)
    assert "def with_batch_norm(" in result.code and "def net_with_batch_norm(" in result.code
    assert "from tf_slim import arg_scope" in result.code
    assert _introduced_lint(before, result.code) == []


@pytest.mark.parametrize(("before", "head", "tail"), NET_ARG_SCOPES)
def test_net_arg_scopes_get_the_batch_norm_written(before, head, tail):
    written = template_source(HELPER, name="batch_norm", tf="tf", slim="tf_slim")
    wrapper = template_source(SCOPE_HELPER, name="with_batch_norm", tf="tf", slim="tf_slim", norm="batch_norm")
    result = assert_rewrites(CODE, before, head + "\n\n" + written + "\n\n" + wrapper + "\n\n" + tail)
    assert result.fixes and result.findings == []


#: tf-slim's nets calling its batch_norm themselves (resnet v2's): the file gets the batch_norm
#: written and a wrapper building the net with it.
NETS_CALLING_BATCH_NORM = [
    pytest.param(
        "import tensorflow as tf\nfrom tensorflow.contrib.slim.nets import resnet_v2\n\n\n"
        "def features(images):\n"
        "    with tf.contrib.slim.arg_scope([resnet_v2.bottleneck], rate=1):\n"
        "        return resnet_v2.resnet_v2_50(images, 10)\n",
        "import tensorflow as tf\nfrom tf_slim.nets import resnet_v2\nimport tf_slim\n",
        "def features(images):\n"
        "    with tf_slim.arg_scope([net_with_batch_norm(resnet_v2.bottleneck)], rate=1):\n"
        "        return net_with_batch_norm(resnet_v2.resnet_v2_50)(images, 10)\n",
        id="module-imported",
    ),
    pytest.param(
        "import tensorflow as tf\n"
        "from tensorflow.contrib.slim.nets.resnet_v2 import resnet_v2_101 as deep\n\n"
        "NETS = {'deep': deep}\n",
        "import tensorflow as tf\nfrom tf_slim.nets.resnet_v2 import resnet_v2_101 as deep\nimport tf_slim\n",
        "NETS = {'deep': net_with_batch_norm(deep)}\n",
        id="name-imported-held-in-a-table",
    ),
    pytest.param(
        "import tensorflow as tf\n\nlogits, _ = tf.contrib.slim.nets.resnet_v2.resnet_v2(x, blocks)\n",
        "import tensorflow as tf\nimport tf_slim\nimport tf_slim.nets\n",
        "logits, _ = net_with_batch_norm(tf_slim.nets.resnet_v2.resnet_v2)(x, blocks)\n",
        id="written-out-through-tf",
    ),
]


@pytest.mark.parametrize(("before", "head", "tail"), NETS_CALLING_BATCH_NORM)
def test_nets_calling_batch_norm_build_with_the_batch_norm_written(before, head, tail):
    written = template_source(HELPER, name="batch_norm", tf="tf", slim="tf_slim")
    names = {"name": "net_with_batch_norm", "slim": "tf_slim", "norm": "batch_norm"}
    wrapper = template_source(NET_HELPER, **names)
    expected = head + "\n\n" + written + "\n\n" + wrapper + "\n\n" + tail
    result = assert_rewrites(CODE, before, expected)
    assert result.fixes and result.findings == []


def test_the_net_wrapper_takes_a_name_the_file_leaves_free():
    before = (
        "import tensorflow as tf\nfrom tensorflow.contrib.slim.nets import resnet_v2\n\n"
        "net_with_batch_norm = None\nlogits, _ = resnet_v2.resnet_v2_50(x)\n"
    )
    result = rewrite(CODE, before)
    assert "def net_with_batch_norm_2(net):" in result.code
    assert "logits, _ = net_with_batch_norm_2(resnet_v2.resnet_v2_50)(x)" in result.code


def test_the_nets_calling_batch_norm_are_those_tf_slim_has():
    origins = {
        slim_name(f"contrib.slim.nets.resnet_v2.{name}").origin
        for name in (
            "bottleneck",
            "resnet_v2",
            "resnet_v2_50",
            "resnet_v2_101",
            "resnet_v2_152",
            "resnet_v2_200",
        )
    }
    assert origins == NETS
    assert slim_name("contrib.slim.nets.resnet_v2.resnet_v2_block").origin not in NETS


def test_the_tensorflow_modules_slim_learning_binds_are_named_through_it():
    found = slim_name("contrib.slim.learning.supervisor.Supervisor")
    assert found.expression == "tf_slim.learning.supervisor.Supervisor"
    assert found.origin == "tensorflow.python.training.supervisor.Supervisor"
    assert slim_name("contrib.slim.learning.tf_saver").expression == "tf_slim.learning.tf_saver"


def test_the_net_arg_scopes_are_those_tf_slim_has():
    origins = {
        slim_name(f"contrib.slim.nets.{path}").origin
        for path in (
            "resnet_utils.resnet_arg_scope",
            "inception_v1.inception_v1_arg_scope",
            "inception_v2.inception_v2_arg_scope",
            "inception_v3.inception_v3_arg_scope",
        )
    }
    assert origins == ARG_SCOPES


#: ``renorm`` known only when the program runs: the batch_norm written takes it (and raises when
#: it is true), with a finding at each place passing it.
RENORM_UNKNOWN = [
    pytest.param(
        "import tensorflow as tf\nslim = tf.contrib.slim\n\n"
        "params = {'decay': 0.9, 'renorm': use_renorm}\nnorm = dict(normalizer_fn=slim.batch_norm)\n",
        _with_batch_norm(
            "import tensorflow as tf\nimport tf_slim as slim\n",
            "params = {'decay': 0.9, 'renorm': use_renorm}\nnorm = dict(normalizer_fn=batch_norm)\n",
        ),
        id="as-a-dict-key",
    ),
    pytest.param(
        "import tensorflow as tf\nslim = tf.contrib.slim\n\ny = slim.batch_norm(x, renorm=flags.renorm)\n",
        _with_batch_norm(
            "import tensorflow as tf\nimport tf_slim as slim\n", "y = batch_norm(x, renorm=flags.renorm)\n"
        ),
        id="as-an-argument",
    ),
]


#: tf-slim's batch_norm only listed in arg scopes is never called, only named: it stays, and its
#: arg scopes reach the batch_norm written in the files that call one (it shares its key).
BATCH_NORM_AS_A_KEY = [
    pytest.param(
        "import tensorflow as tf\nslim = tf.contrib.slim\n\n\ndef net(x, training):\n"
        "    with slim.arg_scope([slim.batch_norm, slim.dropout], is_training=training):\n"
        "        return tower(x)\n",
        "import tf_slim as slim\n\n\ndef net(x, training):\n"
        "    with slim.arg_scope([slim.batch_norm, slim.dropout], is_training=training):\n"
        "        return tower(x)\n",
        id="slim-module",
    ),
    pytest.param(
        "import tensorflow as tf\n\nwith tf.contrib.framework.arg_scope([tf.contrib.layers.batch_norm], decay=0.9):\n"
        "    y = tower(x)\n",
        "import tf_slim\n\nwith tf_slim.arg_scope([tf_slim.batch_norm], decay=0.9):\n    y = tower(x)\n",
        id="written-out-through-tf",
    ),
    pytest.param(
        "import tensorflow as tf\nfrom tensorflow.contrib.layers import arg_scope, batch_norm\n\n"
        "with arg_scope((batch_norm,), scale=True):\n    y = tower(x)\n",
        "import tensorflow as tf\nfrom tf_slim import arg_scope, batch_norm\n\n"
        "with arg_scope((batch_norm,), scale=True):\n    y = tower(x)\n",
        id="names-imported",
    ),
]


@pytest.mark.parametrize(("before", "after"), BATCH_NORM_AS_A_KEY)
def test_batch_norm_only_named_in_arg_scopes_stays_tf_slim_s(before, after):
    result = assert_rewrites(CODE, before, after)
    assert result.fixes and result.findings == []


@pytest.mark.parametrize(("before", "after"), BATCH_NORM)
def test_batch_norm_is_written_in_the_file(before, after):
    result = assert_rewrites(CODE, before, after)
    assert result.fixes and result.findings == []


@pytest.mark.parametrize(("before", "after"), RENORM_UNKNOWN)
def test_batch_norm_with_renorm_known_when_run_is_written_with_a_finding(before, after):
    result = assert_rewrites(CODE, before, after)
    assert result.fixes and [f.line for f in result.findings] == [4]
    assert "renorm=False only" in result.findings[0].message


def _written(template, name: str, tf: str = "tf") -> str:
    return template_source(template, name=name, tf=tf)


GRADIENT_HELPERS = [
    pytest.param(
        "import tensorflow as tf\nslim = tf.contrib.slim\n\n\ndef f(pairs, m):\n"
        "    return slim.learning.multiply_gradients(pairs, m)\n",
        # (``slim`` stays, as the file stays on TF1 with tf-slim: a second run leaves it so)
        "import tensorflow as tf\nimport tf_slim as slim\n\n\n"
        + _written(MULTIPLY_GRADIENTS, "multiply_gradients")
        + "\n\ndef f(pairs, m):\n    return multiply_gradients(pairs, m)\n",
        id="module-name-line",
    ),
    pytest.param(
        "import tensorflow.compat.v1 as tf\n\n\ndef f(pairs):\n"
        "    return tf.contrib.slim.learning.clip_gradient_norms(pairs, 2.0)\n",
        "import tensorflow.compat.v1 as tf\n\n\n"
        + _written(CLIP_GRADIENT_NORMS, "clip_gradient_norms")
        + "\n\ndef f(pairs):\n    return clip_gradient_norms(pairs, 2.0)\n",
        id="written-out-through-tf-no-tf-slim-import",
    ),
    pytest.param(
        "import tensorflow as tf\nfrom tensorflow.contrib.slim.python.slim.learning import multiply_gradients\n"
        "import tensorflow.contrib.slim as slim\n\nclip_gradient_norms = None\n\n\ndef f(pairs, m):\n"
        "    return slim.learning.clip_gradient_norms(multiply_gradients(pairs, m), 1.0)\n",
        "import tensorflow as tf\nimport tf_slim as slim\n\n\n"
        + _written(MULTIPLY_GRADIENTS, "multiply_gradients")
        + "\n\n"
        + _written(CLIP_GRADIENT_NORMS, "clip_gradient_norms_2")
        + "\n\nclip_gradient_norms = None\n\n\ndef f(pairs, m):\n"
        "    return clip_gradient_norms_2(multiply_gradients(pairs, m), 1.0)\n",
        id="imported-by-name-and-a-name-taken",
    ),
    pytest.param(
        "import tensorflow as tf\nimport tensorflow.contrib.slim as slim\n\n\ndef f(x, pairs, m):\n"
        "    return slim.batch_norm(x), slim.learning.multiply_gradients(pairs, m)\n",
        _with_batch_norm("import tensorflow as tf\nimport tf_slim as slim\n", "")[:-2]
        + "\n\n"
        + _written(MULTIPLY_GRADIENTS, "multiply_gradients")
        + "\n\ndef f(x, pairs, m):\n    return batch_norm(x), multiply_gradients(pairs, m)\n",
        id="after-the-batch-norm-written",
    ),
]


@pytest.mark.parametrize(("before", "after"), GRADIENT_HELPERS)
def test_gradient_helpers_are_written_in_the_file(before, after):
    result = assert_rewrites(CODE, before, after)
    assert result.fixes and result.findings == []


def test_the_partials_are_those_tf_slim_binds():
    pytest.importorskip("tf_slim")
    found = _tensorflow_child(LIST_PARTIALS)[-1]
    assert json.loads(found) == {module: sorted(names) for module, names in PARTIALS.items()}


LIST_PARTIALS = r"""
import functools, importlib, json
found = {}
for module in ("tf_slim", "tf_slim.layers", "tf_slim.layers.layers", "tf_slim.layers.summaries"):
    names = vars(importlib.import_module(module))
    found[module] = sorted(
        name for name, value in names.items()
        if isinstance(value, functools.partial) and value.func.__module__.startswith("tf_slim")
    )
print(json.dumps(found))
"""


def test_batch_norm_follows_the_file_s_indentation():
    source = "import tensorflow as tf\nslim = tf.contrib.slim\n\n\ndef f(x):\n  return slim.batch_norm(x)\n"
    result = rewrite(CODE, source)
    assert template_source(HELPER, "  ", name="batch_norm", tf="tf", slim="slim") in result.code
    assert "\n    inputs = tf.convert_to_tensor" not in result.code


def test_runs_after_the_migrations_and_before_the_compat_import_codemods():
    order = [c.code for c in builtin_codemods()]
    assert order.index("TFM111") < order.index(CODE) < order.index("TFM112") < order.index("TFM113")


def test_a_file_moved_to_tf_slim_stays_on_compat_v1_and_a_second_run_changes_nothing():
    """With the whole catalogue: the session program is kept TF1 (tf-slim builds TF1 graphs),
    switched at its entry point, and compat-v1-import does not take it back to plain TF."""
    from tfmodernize.engine import transform_text

    source = (
        "import tensorflow as tf\nimport tensorflow.contrib.slim as slim\n\n"
        "x = tf.placeholder(tf.float32, [None, 4])\ny = slim.fully_connected(x, 2)\n"
        "with tf.Session() as sess:\n    sess.run(tf.global_variables_initializer())\n"
    )
    first, state = transform_text(source, list(builtin_codemods()))
    assert first.startswith("import tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()\nimport tf_slim as slim\n")
    assert "with tf.Session() as sess:" in first and [c for c, _ in state.kept_on_v1][:1] == ["tf-slim"]
    second, _ = transform_text(first, list(builtin_codemods()))
    assert second == first


def test_the_table_names_what_tf_slim_has():
    assert slim_name("contrib.slim.conv2d") == SlimName(
        "tf_slim.conv2d", "tf_slim", origin="tf_slim.layers.layers.convolution2d"
    )
    assert slim_name("contrib.slim.nets.vgg").is_module == "tf_slim.nets.vgg"
    assert slim_name("contrib.layers.python.layers").by_attributes is False
    assert isinstance(slim_name("contrib.framework.nest"), NotInSlim)
    assert slim_name("contrib.rnn.LSTMCell") is None
    assert slim_name("contrib.slim").imported_as("slim") == "import tf_slim as slim"
    assert slim_name("contrib.framework.arg_scope").imported_as("scope") == "from tf_slim import arg_scope as scope"


CHECK_TABLE = r"""
import importlib, json, sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
import tf_slim
x = tf.ones([2, 6, 6, 3])
runs = {"conv2d": lambda: tf_slim.conv2d(x, 2, [3, 3]), "flatten": lambda: tf_slim.flatten(x),
        "fully_connected": lambda: tf_slim.fully_connected(tf_slim.flatten(x), 2),
        "max_pool2d": lambda: tf_slim.max_pool2d(x, [2, 2]), "dropout": lambda: tf_slim.dropout(x, 0.5),
        "arg_scope": lambda: tf_slim.arg_scope([tf_slim.conv2d], padding="SAME").__enter__(),
        "layer_norm": lambda: tf_slim.layer_norm(x), "group_norm": lambda: tf_slim.group_norm(x, groups=3),
        "instance_norm": lambda: tf_slim.instance_norm(x)}
fails = {"batch_norm": lambda: tf_slim.batch_norm(x, is_training=True),
         "optimize_loss": lambda: tf_slim.optimize_loss(tf.reduce_sum(tf_slim.fully_connected(
             tf_slim.flatten(x), 1)), None, tf.constant(0.1), "SGD"),
         "multiply_gradients": lambda: tf_slim.learning.multiply_gradients(
             [(tf.ones([1]), v)], {v: 2.0}) if (v := tf.Variable([1.0])) is not None else None}
from tf_slim.training import training
v = tf.Variable([1.0])
for module in (tf_slim.learning, training):
    prefix = "" if module is tf_slim.learning else "training."
    fails[prefix + "clip_gradient_norms"] = lambda m=module: m.clip_gradient_norms([(tf.ones([1]), v)], 1.0)
    fails[prefix + "add_gradients_summaries"] = lambda m=module: m.add_gradients_summaries([(tf.ones([1]), v)])
fails["training.multiply_gradients"] = lambda: training.multiply_gradients([(tf.ones([1]), v)], {v: 2.0})
labels, scores = tf.constant([0, 1, 1, 0]), tf.constant([0.1, 0.8, 0.6, 0.3])
metrics = {"streaming_dynamic_auc": (labels, scores), "auc_with_confidence_intervals": (labels, scores),
           "streaming_concat": (scores,), "recall_at_precision": (labels, scores, 0.5),
           "precision_at_recall": (labels, scores, 0.5)}
for name, args in metrics.items():
    fails["metrics." + name] = lambda name=name, args=args: getattr(tf_slim.metrics, name)(*args)
runs["streaming_auc"] = lambda: tf_slim.metrics.streaming_auc(scores, labels)
layer_utils = importlib.import_module("tf_slim.layers.utils")
fails["utils.constant_value"] = lambda: layer_utils.constant_value(scores)
fails["utils.smart_cond"] = lambda: layer_utils.smart_cond(tf.constant(True), lambda: scores, lambda: scores)
runs["create_train_op"] = lambda: tf_slim.learning.create_train_op(
    tf.reduce_sum(v * v), tf.train.GradientDescentOptimizer(0.1))
from tf_slim.nets import inception_v1, inception_v2, inception_v3, resnet_utils, resnet_v2
scopes = {"resnet_arg_scope": resnet_utils.resnet_arg_scope, "inception_v1_arg_scope":
          inception_v1.inception_v1_arg_scope, "inception_v2_arg_scope": inception_v2.inception_v2_arg_scope,
          "inception_v3_arg_scope": inception_v3.inception_v3_arg_scope}
for name, scope in scopes.items():
    def under(scope=scope):
        with tf_slim.arg_scope(scope()):
            tf_slim.conv2d(x, 2, [3, 3])
    fails[name] = under
fails["resnet_v2_50"] = lambda: resnet_v2.resnet_v2_50(tf.zeros([1, 32, 32, 3]), 2)
for name, call in runs.items():
    call()
failed = []
for name, call in fails.items():
    try:
        call()
    except (AttributeError, ImportError):
        failed.append(name)
print(json.dumps(sorted(failed)))
"""


def test_what_the_table_says_fails_on_tensorflow_fails_and_the_rest_runs():
    pytest.importorskip("tensorflow")
    pytest.importorskip("tf_slim")
    env = {k: v for k, v in os.environ.items() if k != "TF_USE_LEGACY_KERAS"} | {
        "TF_CPP_MIN_LOG_LEVEL": "3",
        "CUDA_VISIBLE_DEVICES": "-1",
    }
    ran = subprocess.run([sys.executable, "-c", CHECK_TABLE], env=env, capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr[-3000:]
    failed = ran.stdout.strip().splitlines()[-1]
    nets = ["inception_v1_arg_scope", "inception_v2_arg_scope", "inception_v3_arg_scope", "resnet_arg_scope"]
    helpers = ["add_gradients_summaries", "clip_gradient_norms", "multiply_gradients"]
    trained = [f"training.{name}" for name in helpers]
    metrics = [
        f"metrics.{name}"
        for name in (
            "auc_with_confidence_intervals",
            "precision_at_recall",
            "recall_at_precision",
            "streaming_concat",
            "streaming_dynamic_auc",
        )
    ]
    utilities = ["utils.constant_value", "utils.smart_cond"]
    every = ["batch_norm", "optimize_loss", *helpers, *trained, *metrics, *utilities]
    assert json.loads(failed) == sorted([*every, "resnet_v2_50", *nets])
    prefixes = {"tf_slim.training.": "training.", "tf_slim.metrics.": "metrics.", "tf_slim.layers.utils.": "utils."}
    names = sorted(
        next((short for prefix, short in prefixes.items() if origin.startswith(prefix)), "") + origin.rpartition(".")[2]
        for origin in DOES_NOT_RUN
        if not origin.startswith("tf_slim.nets.")
    )
    assert names == sorted(every)
    # The nets' arg scopes and resnet_v2's functions run tf-slim's batch_norm.
    assert {
        f"tf_slim.nets.{module}.{name}"
        for module, name in (
            ("resnet_utils", "resnet_arg_scope"),
            *((f"inception_v{n}", f"inception_v{n}_arg_scope") for n in (1, 2, 3)),
            ("resnet_v2", "resnet_v2_50"),
        )
    } <= set(DOES_NOT_RUN)
    assert set(WRITTEN_IN_THE_FILE) <= set(DOES_NOT_RUN)


def test_every_home_is_a_module_of_the_table():
    for home in SLIM_HOMES:
        found = slim_name(home)
        assert isinstance(found, SlimName) and found.is_module, home


def test_the_run_names_the_package_the_rewritten_code_needs(tmp_path):
    """`check` and `diff` sum up what the rewrites made the codebase need (tf-slim here, as
    many files as were pointed at it), in the JSON and under the summary."""
    import json

    from typer.testing import CliRunner

    from tfmodernize.cli import app

    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text(
            "import tensorflow as tf\nslim = tf.contrib.slim\n\ndef net(x):\n    return slim.flatten(tf.nn.relu(x))\n"
        )
    (tmp_path / "c.py").write_text("import tensorflow as tf\n\nx = tf.nn.relu(1.0)\n")
    runner = CliRunner()
    checked = runner.invoke(app, ["check", str(tmp_path), "--format", "json", "--no-cache", "--exit-zero"])
    assert json.loads(checked.stdout)["packages"] == {"tf-slim": 2}
    shown = runner.invoke(app, ["diff", str(tmp_path), "--no-cache"])
    assert "The rewritten code needs: tf-slim (2 files): pip install tf-slim" in shown.output


def test_the_summary_counts_apart_the_files_a_contrib_name_still_keeps_from_running(tmp_path):
    from typer.testing import CliRunner

    from tfmodernize.cli import app

    (tmp_path / "gone.py").write_text(
        "import tensorflow as tf\n\nd = tf.contrib.distributions.MultivariateNormalDiag([0.0], [1.0])\n"
    )
    (tmp_path / "v1.py").write_text("import tensorflow as tf\n\nthreads = tf.train.start_queue_runners()\n")
    shown = CliRunner().invoke(app, ["diff", str(tmp_path), "--no-cache"]).output
    rows = dict(re.findall(r"│ ([a-zA-Z][^│]*?)\s+│\s+(\d+) │", shown))
    assert rows["cannot run on TF 2.x: tf.contrib / tf.estimator left"] == "1"
    assert rows["kept on tf.compat.v1 (runs on TF 2.x as TF1)"] == "1"


#: The batch_norm the rewrite writes against tf-slim's own, made to run as TF 1.15 ran it (the
#: verify harness's patches, and ``control_flow_ops.cond`` for a tensor ``is_training``): per
#: case, the variables (names, order, collections), outputs, gradients and moving statistics
#: after steps of training (and of inference, for a tensor ``is_training``) must be bit-equal.
COMPARE_BATCH_NORM = r"""
import importlib, json, sys
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
from tensorflow.python.framework import ops, tensor
from tensorflow.python.ops import cond, control_flow_ops
ops.Tensor, control_flow_ops.cond = tensor.Tensor, cond.cond
for name in ("", ".base", ".core", ".convolutional", ".normalization", ".pooling"):
    module = importlib.import_module("tf_keras.src.legacy_tf_layers" + name)
    sys.modules["tf_keras.legacy_tf_layers" + name] = module
import tf_slim as slim
mine = {"tf": tf, "slim": slim}
exec(sys.argv[1], mine)
SHAPES = {2: (5, 3), 3: (4, 3, 3), 4: (4, 3, 3, 2), 5: (2, 3, 2, 2, 3)}
INIT = {"gamma": tf.constant_initializer(1.5), "beta": tf.constant_initializer(0.25),
        "moving_mean": tf.constant_initializer(0.1),
        "moving_variance": tf.constant_initializer(2.0)}
REG = {"gamma": lambda w: 0.5 * tf.reduce_sum(w), "beta": lambda w: tf.reduce_sum(w)}
CASES = [
    (4, "NHWC", True, {}), (4, "NHWC", "tensor", {"scale": True}),
    (4, "NCHW", False, {"scale": True}),
    (4, "NHWC", True, {"updates_collections": None, "scale": True}),
    (4, "NCHW", "tensor", {"updates_collections": None}),
    (2, "NHWC", True, {"scale": True, "decay": 0.9}),
    (2, "NCHW", "tensor", {"center": False, "scale": True}),
    (2, "NHWC", True, {"fused": False, "scale": True}), (3, "NHWC", "tensor", {"scale": True}),
    (3, "NHWC", True, {"updates_collections": None, "epsilon": 1e-5}),
    (3, "NCHW", True, {"updates_collections": "mine", "param_initializers": INIT, "scale": True}),
    (5, "NHWC", True, {"scale": True}),
    (5, "NCHW", "tensor", {"updates_collections": None, "scale": True}),
    (4, "NHWC", True, {"trainable": False, "scale": True}),
    (4, "NHWC", True, {"param_regularizers": REG, "scale": True, "activation_fn": tf.nn.relu,
                       "variables_collections": {"beta": ["vc"], "moving_mean": ["vc"]},
                       "outputs_collections": "out"}),
    (2, "NHWC", True, {"param_regularizers": REG, "scale": True, "variables_collections": ["vc"]}),
    (3, "NHWC", True, {"param_regularizers": REG, "updates_collections": "mine", "scale": True}),
    (4, "NHWC", "tensor", {"scoped": True, "scale": True, "decay": 0.5}),
    (4, "NHWC", True, {"zero_debias_moving_mean": True, "scale": True}),
    (4, "NCHW", "tensor", {"zero_debias_moving_mean": True, "fused": False, "decay": 0.9}),
    (2, "NHWC", "tensor", {"zero_debias_moving_mean": True, "updates_collections": None}),
    (3, "NHWC", True, {"zero_debias_moving_mean": True, "renorm": False, "renorm_decay": 0.5}),
    (5, "NHWC", "tensor", {"zero_debias_moving_mean": True, "scoped": True, "scale": True}),
    (4, "NHWC", False, {"zero_debias_moving_mean": True}),
]
STANDARD = ("variables", "trainable_variables", "model_variables")

def run(norm, rank, layout, training, kw):
    kw = dict(kw, data_format=layout)
    scoped = kw.pop("scoped", False)
    graph = tf.Graph()
    with graph.as_default():
        shape = SHAPES[rank]
        x = tf.placeholder(tf.float32, [None, *shape[1:]])
        train = tf.placeholder(tf.bool, []) if training == "tensor" else training
        if scoped:  # an arg scope of tf-slim's batch_norm, whichever batch_norm is called
            with slim.arg_scope([slim.batch_norm], **kw):
                y = norm(x, is_training=train, scope="bn")
        else:
            y = norm(x, is_training=train, scope="bn", **kw)
        forced = kw.get("updates_collections", 1) is None  # (two of them would race in a run)
        y2 = tf.zeros([])
        if not (forced or scoped):
            y2 = norm(x * 2.0, is_training=train, scope="bn", reuse=True, **kw)
        regularization = tf.add_n([tf.zeros([])] + tf.losses.get_regularization_losses())
        loss = tf.reduce_sum(tf.square(y)) + tf.reduce_sum(y2) + regularization
        grads = [g for g in tf.gradients(loss, [x] + tf.trainable_variables()) if g is not None]
        updates = tf.get_collection(kw.get("updates_collections") or tf.GraphKeys.UPDATE_OPS)
        collections = {
            k: [v.op.name if isinstance(v, tf.Variable) else "-" for v in graph.get_collection(k)]
            for k in graph.get_all_collection_keys() if k != "cond_context"}
        collections = {k: v if k in STANDARD else sorted(v) for k, v in collections.items() if v}
        values = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            rng = np.random.RandomState(0)
            for step in range(3):
                feed = {x: rng.randn(*shape).astype(np.float32) * 3 + 1}
                if training == "tensor":
                    feed[train] = step != 1
                values += sess.run([y, y2, loss] + grads, feed)
                for update in updates:
                    sess.run(update, feed)
            values += sess.run(tf.global_variables())
    return [v.op.name for v in graph.get_collection("variables")], collections, values

failed = []
for index, (rank, layout, training, kw) in enumerate(CASES):
    theirs = run(slim.batch_norm, rank, layout, training, kw)
    ours = run(mine["batch_norm"], rank, layout, training, kw)
    same = theirs[:2] == ours[:2] and len(theirs[2]) == len(ours[2]) and all(
        np.array_equal(a, b) for a, b in zip(theirs[2], ours[2]))
    if not same:
        failed.append([index, theirs[:2], ours[:2]])
print(json.dumps(failed))
"""

#: The batch_norm written in a file runs on TensorFlow 2.21 as a user installs it: nothing
#: patched, tf-keras never imported; tf-slim's arg scopes and normalizer_fn reach it.
RUN_BATCH_NORM = r"""
import sys
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
import tf_slim as slim
mine = {"tf": tf, "slim": slim}
exec(sys.argv[1], mine)
from tf_slim.nets import resnet_utils
x = tf.placeholder(tf.float32, [None, 4, 4, 3])
training = tf.placeholder(tf.bool, [])
with slim.arg_scope(mine["with_batch_norm"](resnet_utils.resnet_arg_scope)()):
    slim.conv2d(x, 2, [3, 3], scope="net")
with slim.arg_scope([slim.batch_norm], is_training=training, scale=True):
    with slim.arg_scope([slim.conv2d], normalizer_fn=mine["batch_norm"]):
        y = slim.conv2d(x, 2, [3, 3], scope="conv")
z = mine["batch_norm"](
    slim.flatten(y), updates_collections=None, is_training=training, scope="dense")
z = mine["batch_norm"](z, is_training=training, zero_debias_moving_mean=True, scope="debiased")
try:
    mine["batch_norm"](z, renorm=True)
except ValueError as error:
    print("renorm:", error)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for flag in (True, False):
        updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        sess.run([z] + updates, {x: np.ones([2, 4, 4, 3]), training: flag})
print([v.op.name for v in tf.global_variables()])
print(any(name.startswith("tf_keras") for name in sys.modules))
"""


#: tf-slim's dropout switched by a tensor ``is_training``, as contrib-to-slim leaves it
#: (``tf_slim.dropout``), on TensorFlow 2.21 as a user installs it: TensorFlow's own TF1 Dropout
#: layer takes the tensor (tf-slim's ``smart_cond``, which needs the ``control_flow_ops.cond``
#: TensorFlow 2.21 lacks, is only on batch_norm's path, written in the file instead).
RUN_DROPOUT = r"""
import sys
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
from tensorflow.python.ops import control_flow_ops
import tf_slim
x = tf.ones([4, 50])
training = tf.placeholder(tf.bool, [])
y = tf_slim.dropout(x, keep_prob=0.5, is_training=training)
with tf.Session() as sess:
    kept = sess.run(y, {training: True})
    passed = sess.run(y, {training: False})
print(sorted(set(kept.ravel().tolist())), bool((passed == 1.0).all()), hasattr(control_flow_ops, "cond"))
"""


def test_tf_slim_dropout_with_a_tensor_is_training_runs_on_tensorflow_as_installed():
    pytest.importorskip("tensorflow")
    pytest.importorskip("tf_slim")
    assert _tensorflow_child(RUN_DROPOUT)[-1] == "[0.0, 2.0] True False"


def _tensorflow_child(script: str, *args: str) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "TF_USE_LEGACY_KERAS"} | {
        "TF_CPP_MIN_LOG_LEVEL": "3",
        "CUDA_VISIBLE_DEVICES": "-1",
    }
    ran = subprocess.run([sys.executable, "-c", script, *args], env=env, capture_output=True, text=True, timeout=600)
    assert ran.returncode == 0, ran.stderr[-3000:]
    return ran.stdout.strip().splitlines()


def test_the_batch_norm_written_computes_tf_slim_s_on_tensorflow():
    pytest.importorskip("tensorflow")
    pytest.importorskip("tf_slim")
    assert (
        _tensorflow_child(COMPARE_BATCH_NORM, template_source(HELPER, name="batch_norm", tf="tf", slim="slim"))[-1]
        == "[]"
    )


def test_the_batch_norm_written_runs_on_tensorflow_as_installed():
    pytest.importorskip("tensorflow")
    pytest.importorskip("tf_slim")
    written = template_source(HELPER, name="batch_norm", tf="tf", slim="slim") + template_source(
        SCOPE_HELPER, name="with_batch_norm", tf="tf", slim="slim", norm="batch_norm"
    )
    renorm, names, keras = _tensorflow_child(RUN_BATCH_NORM, written)[-3:]
    assert renorm.startswith("renorm: batch renormalization is not written here")
    assert names == str(
        [
            "net/weights",
            "net/BatchNorm/gamma",
            "net/BatchNorm/beta",
            "net/BatchNorm/moving_mean",
            "net/BatchNorm/moving_variance",
            "conv/weights",
            "conv/BatchNorm/gamma",
            "conv/BatchNorm/beta",
            "conv/BatchNorm/moving_mean",
            "conv/BatchNorm/moving_variance",
            "dense/beta",
            "dense/moving_mean",
            "dense/moving_variance",
            "debiased/beta",
            "debiased/moving_mean",
            "debiased/moving_variance",
            "debiased/debiased/moving_mean/biased",
            "debiased/debiased/moving_mean/local_step",
        ]
    )
    assert keras == "False"


#: tf-slim's resnet v2 pieces, each built through the net wrapper written in a file, on TensorFlow
#: 2.21 as a user installs it: they build calling the batch_norm written beside it, tf-slim's is
#: back in place after each build (a failing one included), and the wrapped bottleneck is still
#: a key of tf-slim's arg scopes.
RUN_NETS = r"""
import json
import sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
import tf_slim as slim
from tf_slim.nets import resnet_v2
mine = {"tf": tf, "slim": slim}
exec(sys.argv[1], mine)
wrap, theirs = mine["net_with_batch_norm"], slim.layers.batch_norm
x = tf.zeros([2, 8, 8, 3])
blocks = [resnet_v2.resnet_v2_block("b1", base_depth=2, num_units=1, stride=2)]
with slim.arg_scope([wrap(resnet_v2.bottleneck)], rate=1):
    wrap(resnet_v2.resnet_v2)(x, blocks, 4, include_root_block=False, scope="generic")
    wrap(resnet_v2.bottleneck)(x, 8, 2, 1, scope="unit")
try:
    wrap(resnet_v2.resnet_v2)(x, blocks, 4, scope="generic")  # (the same scope: variables exist)
except ValueError:
    pass
unit = [v.op.name for v in tf.global_variables() if v.op.name.startswith("unit/")]
print(json.dumps([
    slim.layers.batch_norm is theirs,
    sys.modules["tf_slim.nets.resnet_v2"].layers is slim.layers,
    unit,
    any(name.startswith("tf_keras") for name in sys.modules),
]))
"""


def test_the_net_wrapper_builds_tf_slim_s_resnet_v2_on_tensorflow_as_installed():
    pytest.importorskip("tensorflow")
    pytest.importorskip("tf_slim")
    written = template_source(HELPER, name="batch_norm", tf="tf", slim="slim") + template_source(
        NET_HELPER, name="net_with_batch_norm", slim="slim", norm="batch_norm"
    )
    restored, read_there, unit, keras = json.loads(_tensorflow_child(RUN_NETS, written)[-1])
    assert restored and read_there and not keras
    # (the unit's pre-activation batch_norm, tf-slim's defaults: no gamma; a shortcut conv, as
    # its input has other channels)
    assert unit == [
        "unit/preact/beta",
        "unit/preact/moving_mean",
        "unit/preact/moving_variance",
        "unit/shortcut/weights",
        "unit/shortcut/biases",
        "unit/conv1/weights",
        "unit/conv1/biases",
        "unit/conv2/weights",
        "unit/conv2/biases",
        "unit/conv3/weights",
        "unit/conv3/biases",
    ]


#: The TensorFlow modules ``TF_MODULES`` says tf-slim's modules bind, as they are bound there.
CHECK_TF_MODULES = r"""
import importlib
import json
import sys
bound = {}
for module, names in json.loads(sys.argv[1]).items():
    for name in names:
        bound.setdefault(module, {})[name] = getattr(importlib.import_module(module), name).__name__
print(json.dumps(bound))
"""


def test_the_tensorflow_modules_tf_slim_binds_are_those_the_table_names():
    pytest.importorskip("tensorflow")
    pytest.importorskip("tf_slim")
    assert json.loads(_tensorflow_child(CHECK_TF_MODULES, json.dumps(TF_MODULES))[-1]) == TF_MODULES
