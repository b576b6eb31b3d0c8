"""TFM116 contrib-to-slim: rewrites (imports, module names, names written out), no-ops and
declines, alone; what the generated tf-slim table says; and, with TensorFlow, that the functions
the table says fail on TF 2.x do fail while the rest runs."""

import os
import re
import subprocess
import sys

import pytest

from tfmodernize.analysis.contrib import DOES_NOT_RUN, SLIM_HOMES, NotInSlim, SlimName, slim_name
from tfmodernize.registry import builtin_codemods
from tfmodernize.testing import assert_rewrites, assert_unchanged, rewrite

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
        "import tensorflow.contrib.slim as slim\n\ny = slim.batch_norm(x, is_training=True)\n",
        "batch_normalization",
        id="batch-norm-does-not-run",
    ),
    pytest.param(
        "import tensorflow.contrib.slim as slim\n\nnorm = dict(normalizer_fn=slim.batch_norm)\n",
        "batch_normalization",
        id="batch-norm-as-a-value",
    ),
    pytest.param(
        "import tensorflow as tf\nfrom tensorflow.contrib.framework import nest\n\nflat = nest.flatten(x)\n",
        "has no `nest`",
        id="framework-name-not-in-slim",
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
    source = "import tensorflow.contrib.slim as slim\n\ny = slim.conv2d(x, 4, [3])\nz = slim.batch_norm(y)\n"
    result = rewrite(CODE, source)
    assert result.code == source and [f.line for f in result.findings] == [4]


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
        "arg_scope": lambda: tf_slim.arg_scope([tf_slim.conv2d], padding="SAME").__enter__()}
fails = {"batch_norm": lambda: tf_slim.batch_norm(x, is_training=True),
         "optimize_loss": lambda: tf_slim.optimize_loss(tf.reduce_sum(tf_slim.fully_connected(
             tf_slim.flatten(x), 1)), None, tf.constant(0.1), "SGD"),
         "multiply_gradients": lambda: tf_slim.learning.multiply_gradients(
             [(tf.ones([1]), v)], {v: 2.0}) if (v := tf.Variable([1.0])) is not None else None}
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
    assert failed == '["batch_norm", "multiply_gradients", "optimize_loss"]'
    assert sorted(origin.rpartition(".")[2] for origin in DOES_NOT_RUN) == [
        "batch_norm",
        "multiply_gradients",
        "optimize_loss",
    ]


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

    (tmp_path / "gone.py").write_text("import tensorflow as tf\n\nd = tf.contrib.distributions.Normal(0.0, 1.0)\n")
    (tmp_path / "v1.py").write_text("import tensorflow as tf\n\nthreads = tf.train.start_queue_runners()\n")
    shown = CliRunner().invoke(app, ["diff", str(tmp_path), "--no-cache"]).output
    rows = dict(re.findall(r"│ ([a-zA-Z][^│]*?)\s+│\s+(\d+) │", shown))
    assert rows["cannot run on TF 2.x until its tf.contrib names are replaced"] == "1"
    assert rows["kept on tf.compat.v1 (runs on TF 2.x as TF1)"] == "1"
