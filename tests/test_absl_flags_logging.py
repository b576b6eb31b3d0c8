"""TFM110 absl-flags-logging: golden, no-op and finding tables."""

import ast
import subprocess
import sys
import importlib.util
from pathlib import Path

import pytest

from tfmodernize.codemods.migrate.absl_flags_logging.tables import FLAG_KEYWORDS, LEVELS, LOGGING_FUNCTIONS
from tfmodernize.testing import assert_rewrites, assert_unchanged, rewrite

REWRITES = [
    pytest.param(
        "from tensorflow import app\n"
        "from tensorflow.python.platform import flags\n"
        "from tensorflow.python.platform import tf_logging as logging\n"
        "flags.DEFINE_integer('epochs', 2, 'passes over the data')\n"
        "FLAGS = flags.FLAGS\n"
        "def main(_):\n"
        "    logging.info('epochs: %d', FLAGS.epochs)\n"
        "if __name__ == '__main__':\n"
        "    app.run()\n",
        "from absl import app, flags, logging\n"
        "\n"
        "flags.DEFINE_integer('epochs', 2, 'passes over the data')\n"
        "FLAGS = flags.FLAGS\n"
        "def main(_):\n"
        "    logging.info('epochs: %d', FLAGS.epochs)\n"
        "if __name__ == '__main__':\n"
        "    app.run(main)\n",
        id="platform-modules-imported-by-path",
    ),
    pytest.param(
        "import tensorflow as tf\n"
        "tf.app.flags.DEFINE_integer('steps', 10, 'training steps')\n"
        "FLAGS = tf.app.flags.FLAGS\n"
        "def main(_):\n"
        "    tf.logging.set_verbosity(tf.logging.INFO)\n"
        "    tf.logging.info('steps: %d', FLAGS.steps)\n"
        "tf.app.run()\n",
        "from absl import app, flags, logging\n"
        "\n"
        "flags.DEFINE_integer('steps', 10, 'training steps')\n"
        "FLAGS = flags.FLAGS\n"
        "def main(_):\n"
        "    logging.set_verbosity(logging.INFO)\n"
        "    logging.info('steps: %d', FLAGS.steps)\n"
        "app.run(main)\n",
        id="program",
    ),
    pytest.param(
        "import tensorflow as tf\ntf.flags.DEFINE_string(flag_name='x', default_value='a', docstring='d')  # keep\n",
        "from absl import flags\n\nflags.DEFINE_string(name='x', default='a', help='d')  # keep\n",
        id="old-keyword-names",
    ),
    pytest.param(
        "import logging\nimport tensorflow as T\nlogging.info('stdlib')\nT.logging.warning('tf')\n",
        "import logging\nimport absl.logging\n\nlogging.info('stdlib')\nabsl.logging.warning('tf')\n",
        id="stdlib-logging-taken",
    ),
    pytest.param(
        "import tensorflow.compat.v1 as tf\nfrom tensorflow import logging as L\nL.error('x')\ntf.app.run(main=f, argv=['p'])\n",
        "from absl import app, logging\n\nlogging.error('x')\napp.run(main=f, argv=['p'])\n",
        id="v1-alias-and-from-import",
    ),
    pytest.param(
        "import tensorflow as tf\ntf.logging.log_every_n(tf.logging.WARN, 'x %d', 10, 1)\n",
        "from absl import logging\n\nlogging.log_every_n(logging.WARN, 'x %d', 10, 1)\n",
        id="level-constant-in-level-call",
    ),
    pytest.param(
        "from tensorflow.python.platform import flags\n"
        "flags.DEFINE_string('source', 'sine', 'where the tasks come from')\n"
        "FLAGS = flags.FLAGS\n"
        "def main():\n"
        "    print(FLAGS.source)\n"
        "if __name__ == '__main__':\n"
        "    main()\n",
        "import sys\n"
        "from absl import flags\n"
        "\n"
        "flags.DEFINE_string('source', 'sine', 'where the tasks come from')\n"
        "FLAGS = flags.FLAGS\n"
        "def main():\n"
        "    print(FLAGS.source)\n"
        "if __name__ == '__main__':\n"
        "    flags.FLAGS(sys.argv)\n"
        "    main()\n",
        id="program-run-without-app-run-parses-in-its-main-block",
    ),
    pytest.param(
        "import sys\nimport tensorflow as tf\ntf.app.flags.DEFINE_integer('n', 1, '')\n"
        "args = tf.app.flags.FLAGS\nprint(args.n)\n",
        "import sys\nfrom absl import flags\n\nflags.DEFINE_integer('n', 1, '')\n"
        "args = flags.FLAGS\nflags.FLAGS(sys.argv)\nprint(args.n)\n",
        id="module-level-read-parses-before-it",
    ),
]

NO_OPS = [
    pytest.param("import logging\nlogging.info('x')\n", id="no-tensorflow"),
    pytest.param("import tensorflow as tf\nfrom absl import logging\nlogging.info('x')\n", id="already-absl"),
    pytest.param("tf = object()\ntf.logging.info('x')\n", id="non-tf-object"),
    pytest.param("import tensorflow as tf\ntf.logging.info('x')  # tfmodernize: ignore[TFM110]\n", id="suppressed"),
    pytest.param("import tensorflow as tf\ntf.get_logger().info('x')\n", id="tf2-logger"),
    pytest.param(
        "import tensorflow as tf\n@tf.function\ndef f(x):\n    tf.compat.v1.logging.info(str(x))\n    return x\n",
        id="trace-time-logging-of-a-tensor",
    ),
]

FINDINGS = [
    pytest.param("import tensorflow as tf\ntf.logging.log(20, 'x')\n", "not a tf.logging constant", id="numeric-level"),
    pytest.param(
        "import tensorflow as tf\nok = tf.logging.get_verbosity() > 10\n", "get_verbosity", id="get-verbosity"
    ),
    pytest.param(
        "import tensorflow as tf\nquiet = level >= tf.logging.ERROR\n", "Python logging level", id="constant-compared"
    ),
    pytest.param("import tensorflow as tf\ntf.logging.vlog(1, 'x')\n", "vlog", id="vlog"),
    pytest.param("import tensorflow as tf\ntf.app.run()\n", "without a main", id="run-without-main"),
    pytest.param(
        "import tensorflow as tf\ntf.app.flags.DEFINE_integer('n', 1, '')\ndef show():\n"
        "    print(tf.app.flags.FLAGS.n)\nshow()\nprint(tf.app.flags.FLAGS.n)\n",
        "before anything parses the flags",
        id="module-level-read-after-a-function-of-the-file-ran",
    ),
    pytest.param(
        "import tensorflow as tf\ntf.app.flags.DEFINE_integer('n', 1, '')\ndef show():\n"
        "    print(tf.app.flags.FLAGS.n)\nshow()\n",
        "before anything parses the flags",
        id="function-of-the-file-reading-flags-run-at-module-level",
    ),
    pytest.param(
        "import tensorflow as tf\ntf.app.flags.DEFINE_integer('n', 1, '')\nprint(tf.app.flags.FLAGS.n)\n"
        "tf.app.flags.DEFINE_integer('m', 2, '')\n",
        "before anything parses the flags",
        id="flag-defined-after-the-first-read",
    ),
    pytest.param(
        "import tensorflow as tf\nsys = 'linux'\ntf.app.flags.DEFINE_integer('n', 1, '')\n"
        "print(tf.app.flags.FLAGS.n)\n",
        "before anything parses the flags",
        id="unparsed-read-where-sys-names-something-else",
    ),
]


def test_trace_time_logging_stays_and_is_not_counted_as_a_migration():
    source = (
        "import tensorflow as tf\n"
        "tf.logging.info('start')\n"
        "@tf.function\n"
        "def f(x):\n"
        "    tf.logging.info('probe')\n"
        "    tf.logging.info('x=%s', x)\n"
        "    return x\n"
    )
    result = rewrite("TFM110", source)
    assert "    tf.logging.info('x=%s', x)\n" in result.code
    assert "    logging.info('probe')\n" in result.code and "\nlogging.info('start')\n" in result.code
    assert [f.line for f in result.fixes] == [2, 5]
    assert result.findings == []


def test_logging_moves_whole_or_not_at_all():
    source = (
        "import tensorflow as tf\n"
        "tf.app.flags.DEFINE_integer('n', 1, '')\n"
        "tf.logging.set_verbosity(tf.logging.ERROR)\n"
        "tf.logging.log(20, 'python level')\n"
    )
    result = rewrite("TFM110", source)
    assert "tf.logging.set_verbosity(tf.logging.ERROR)\n" in result.code
    assert "from absl import flags\n" in result.code  # flags still move, logging does not
    assert "flags.DEFINE_integer('n', 1, '')" in result.code
    assert [f.line for f in result.findings] == [4]
    assert "left as it is" in result.findings[0].message


@pytest.mark.parametrize(("before", "after"), REWRITES)
def test_rewrites(before, after):
    result = assert_rewrites("TFM110", before, after)
    assert result.findings == []


@pytest.mark.parametrize("source", NO_OPS)
def test_no_ops(source):
    result = assert_unchanged("TFM110", source)
    assert result.findings == []


@pytest.mark.parametrize(("source", "fragment"), FINDINGS)
def test_findings_leave_the_code_alone(source, fragment):
    result = assert_unchanged("TFM110", source)
    assert result.findings and all(f.code == "TFM110" for f in result.findings)
    assert any(fragment in f.message for f in result.findings)


def test_flag_keywords_are_tensorflows():
    spec = importlib.util.find_spec("tensorflow")  # locates it without importing it
    if spec is None:
        pytest.skip("compares with the installed tensorflow's flags wrapper")
    source = Path(spec.origin).parent / "python" / "platform" / "flags.py"
    tree = ast.parse(source.read_text())
    renamed = next(
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "_RENAMED_ARGUMENTS"
    )
    assert renamed == FLAG_KEYWORDS


def test_absl_has_every_target():
    absl_logging = pytest.importorskip("absl.logging")
    assert all(hasattr(absl_logging, name) for name in LOGGING_FUNCTIONS | LEVELS)


def test_fatal_logs_without_aborting_as_tf1_did(tmp_path):
    """TF1's ``tf.logging.fatal`` logged at CRITICAL and went on; absl's ``logging.fatal`` aborts."""
    result = rewrite("TFM110", "import tensorflow as tf\ntf.logging.fatal('bad %s', 'input')\n")
    assert "logging.get_absl_logger().critical('bad %s', 'input')" in result.code
    script = tmp_path / "fatal.py"
    script.write_text(result.code.replace("import tensorflow as tf\n", "") + "print('went on')\n")
    ran = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0 and "went on" in ran.stdout
    assert "bad input" in ran.stderr


def test_an_import_the_rewrite_orphans_goes_one_unused_before_stays():
    source = (
        "import tensorflow as tf\nimport tensorflow.compat.v1 as unused_before\n\n"
        "tf.app.flags.DEFINE_integer('steps', 3, 'n')\nFLAGS = tf.app.flags.FLAGS\n"
    )
    result = rewrite("TFM110", source)
    assert "import tensorflow as tf" not in result.code
    assert "import tensorflow.compat.v1 as unused_before" in result.code
    assert "flags.DEFINE_integer('steps', 3, 'n')" in result.code


def test_a_tf_import_of_the_same_name_is_replaced_not_shadowed():
    """``from tensorflow import app`` + absl's ``app`` would bind ``app`` twice (a redefinition)."""
    source = (
        "from tensorflow import app, gfile\n\n\ndef main(_):\n    return gfile.Exists('x')\n\n\n"
        "if __name__ == '__main__':\n    app.run()\n"
    )
    result = rewrite("TFM110", source)
    assert result.code.startswith("from tensorflow import gfile\nfrom absl import app\n")
    assert "app.run(main)" in result.code


def test_a_declined_use_keeps_the_tf_import():
    source = "from tensorflow import app\n\napp.run()\n"  # no main: declined
    result = rewrite("TFM110", source)
    assert result.code == source


def test_tf_logging_imported_by_its_module_path_is_tf_logging():
    # ``tensorflow.python.platform.tf_logging`` is the module behind ``tf.logging``: both move.
    source = (
        "import tensorflow as tf\nfrom tensorflow.python.platform import tf_logging as logging\n\n"
        "logging.info('a')\ntf.logging.info('b')\n"
    )
    result = rewrite("TFM110", source)
    assert result.code == "from absl import logging\n\nlogging.info('a')\nlogging.info('b')\n"


def test_logging_bound_by_another_tf_import_is_taken():
    source = (
        "import tensorflow as tf\nfrom tensorflow.python.ops import logging_ops as logging\n\ntf.logging.info('b')\n"
    )
    result = rewrite("TFM110", source)
    assert "import absl.logging" in result.code and "absl.logging.info('b')" in result.code
    assert "from absl import logging" not in result.code  # would rebind `logging`
