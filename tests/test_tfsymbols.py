"""TF name resolution: every import form of the contract, rebinding, and what is emitted."""

import libcst as cst
import pytest

from tfmodernize.file_state import FileState
from tfmodernize.tfsymbols import TFNames, needs_scope_analysis, tf_import_aliases


def resolve(source: str, expr_line: int = -1):
    """Qualify the expression statement on line ``expr_line`` of ``source``."""
    module = cst.parse_module(source)
    state = FileState(text=source, needs_scope=needs_scope_analysis(source, tf_import_aliases(module)))
    names = state.names(module)
    found = []

    class Collect(cst.CSTVisitor):
        def visit_Expr(self, node: cst.Expr) -> None:
            found.append(node.value)

    module.visit(Collect())
    return names, found[expr_line]


@pytest.mark.parametrize(
    ("source", "qualified", "path", "v1"),
    [
        ("import tensorflow as tf\ntf.nn.relu\n", "tensorflow.nn.relu", "nn.relu", False),
        ("import tensorflow as T\nT.nn.relu\n", "tensorflow.nn.relu", "nn.relu", False),
        ("import tensorflow\ntensorflow.nn.relu\n", "tensorflow.nn.relu", "nn.relu", False),
        (
            "import tensorflow.compat.v1 as tf\ntf.placeholder\n",
            "tensorflow.compat.v1.placeholder",
            "placeholder",
            True,
        ),
        (
            "from tensorflow.compat import v1 as tf\ntf.placeholder\n",
            "tensorflow.compat.v1.placeholder",
            "placeholder",
            True,
        ),
        (
            "import tensorflow.compat.v1\ntensorflow.compat.v1.placeholder\n",
            "tensorflow.compat.v1.placeholder",
            "placeholder",
            True,
        ),
        (
            "from tensorflow import keras\nkeras.layers.Dense\n",
            "tensorflow.keras.layers.Dense",
            "keras.layers.Dense",
            False,
        ),
        (
            "from tensorflow.keras import layers as L\nL.Dense\n",
            "tensorflow.keras.layers.Dense",
            "keras.layers.Dense",
            False,
        ),
        ("import tensorflow.keras as K\nK.Model\n", "tensorflow.keras.Model", "keras.Model", False),
        ("from tensorflow import placeholder\nplaceholder\n", "tensorflow.placeholder", "placeholder", False),
        (
            "import tensorflow as tf\ntf.compat.v1.placeholder\n",
            "tensorflow.compat.v1.placeholder",
            "placeholder",
            True,
        ),
        (
            "import tensorflow.compat.v1 as tf\ntf.compat.v2.range\n",
            "tensorflow.compat.v1.compat.v2.range",
            "range",
            False,
        ),
    ],
)
def test_qualifies_every_import_form(source, qualified, path, v1):
    names, expr = resolve(source)
    assert names.qualify(expr) == qualified
    symbol = names.tf_symbol(expr)
    assert (symbol.path, symbol.v1) == (path, v1)


@pytest.mark.parametrize(
    ("source", "keras_path"),
    [
        ("from tensorflow import keras\nkeras.layers.Dense\n", "layers.Dense"),
        ("import keras\nkeras.layers.Dense\n", "layers.Dense"),
        ("import tensorflow as tf\ntf.keras.optimizers.Adam\n", "optimizers.Adam"),
        ("import tf_keras\ntf_keras.Model\n", "Model"),
        ("import tensorflow as tf\ntf.nn.relu\n", None),
    ],
)
def test_keras_path(source, keras_path):
    names, expr = resolve(source)
    assert names.keras_path(expr) == keras_path


@pytest.mark.parametrize(
    "source",
    [
        pytest.param("tf = object()\ntf.nn.relu\n", id="no-import"),
        pytest.param("import numpy as tf\ntf.nn.relu\n", id="other-module"),
        pytest.param("import tensorflow as tf\ntf = Mock()\ntf.nn.relu\n", id="rebound-module-level"),
        pytest.param("import tensorflow as tf\ndef f(tf):\n    tf.nn.relu\n", id="parameter-shadows"),
        pytest.param("import tensorflow as tf\nfor tf in things:\n    tf.nn.relu\n", id="loop-target"),
        pytest.param("import tensorflow as tf\nfrom mocks import fake as tf\ntf.nn.relu\n", id="reimported"),
        pytest.param("import tensorflow as tf\nwith ctx() as tf:\n    tf.nn.relu\n", id="with-target"),
    ],
)
def test_non_tf_names_do_not_resolve(source):
    names, expr = resolve(source)
    assert names.qualify(expr) is None


def test_shadowing_is_scoped():
    source = "import tensorflow as tf\ndef f(tf):\n    tf.nn.relu\ntf.nn.relu\n"
    names, inner = resolve(source, 0)
    assert names.qualify(inner) is None
    names, outer = resolve(source, 1)
    assert names.qualify(outer) == "tensorflow.nn.relu"


def test_plain_files_use_the_fast_path():
    source = "import tensorflow as tf\nx = tf.constant(1)\ntfx = 2\n"
    aliases = tf_import_aliases(cst.parse_module(source))
    assert not needs_scope_analysis(source, aliases)


@pytest.mark.parametrize(
    ("body", "rebinds"),
    [
        ("tf = Mock()\n", True),
        ("a, tf = pair\n", True),
        ("tf: object = None\n", True),
        ("if (tf := load()):\n    pass\n", True),
        ("def f(tf):\n    pass\n", True),
        ("def f(\n    x,\n    tf=None,\n):\n    pass\n", True),
        ("g = lambda tf: tf\n", True),
        ("for tf in things:\n    pass\n", True),
        ("xs = [1 for tf in things]\n", True),
        ("def tf():\n    pass\n", True),
        ("class tf:\n    pass\n", True),
        ("def f():\n    global tf\n", True),
        ("try:\n    pass\nexcept E as tf:\n    pass\n", True),
        ("with ctx() as tf:\n    pass\n", True),
        ("from mocks import fake as tf\n", True),
        # near misses: reads, attributes, other names
        ("x = tf.constant(1)\n", False),
        ("tfx = 2\nmy_tf = 3\n", False),
        ("obj.tf = 1\n", False),
        ("def f(x, y=tf.float32):\n    pass\n", False),
        ("for x in tf.range(3):\n    pass\n", False),
        ("with tf.name_scope('a') as scope:\n    pass\n", False),
        ("y = x == tf\n", False),
    ],
)
def test_needs_scope_analysis_sees_every_binding_of_an_alias(body, rebinds):
    source = "import tensorflow as tf\n" + body
    aliases = tf_import_aliases(cst.parse_module(source))
    assert needs_scope_analysis(source, aliases) is rebinds


@pytest.mark.parametrize(
    ("source", "prefix", "add_import"),
    [
        ("import tensorflow as tf\n", "tf", False),
        ("import tensorflow as T\n", "T", False),
        ("import tensorflow.compat.v1 as tf\n", "tf.compat.v2", False),
        ("from tensorflow import keras\n", "tf", True),
        ("from tensorflow.compat import v1 as tf\n", "tf.compat.v2", False),
    ],
)
def test_tf2_prefix_uses_the_alias_in_scope(source, prefix, add_import):
    names = TFNames.for_module(cst.parse_module(source))
    assert names.tf2_prefix() == (prefix, add_import)
