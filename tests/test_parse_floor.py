"""What keeps a run near the parse floor, by behaviour: detection that is exact (a codemod whose
plan would change nothing is not asked to plan), facts read once per tree version and shared,
and the parent map kept up to date edit by edit."""

import textwrap

import libcst as cst
import pytest

from tfmodernize.analysis import module_variables
from tfmodernize.codemods.migrate.compat_fallback import CompatFallback
from tfmodernize.codemods.migrate.contrib_to_core import ContribToCore
from tfmodernize.edits import Edits, parents
from tfmodernize.file_state import FileState
from tfmodernize.tfsymbols import TFNames, needs_scope_analysis, tf_import_aliases
from tfmodernize.treewalk import visit, walk


def detected(codemod, source: str) -> bool:
    """Whether ``codemod``'s ``detect`` answers yes for any node of ``source`` it is interested in."""
    module = cst.parse_module(source)
    names = TFNames.for_module(module)
    return any(
        isinstance(node, codemod.interests) and codemod.detect(node, names)
        for node in walk(module, code_only=True)
        if not isinstance(node, (cst.Name, cst.Attribute)) or names.tf_symbol(node) is not None
    )


@pytest.mark.parametrize(
    ("body", "rebinds"),
    [
        ("import gin.tf\n", False),  # binds ``gin``
        ("import gin.tf as config\n", False),
        ("import mocks.tf as tf\n", True),
        ("from mocks import tf\n", True),
        ("import other, tf.sub\n", True),
    ],
)
def test_a_name_after_a_dot_in_an_import_binds_nothing(body, rebinds):
    source = "import tensorflow as tf\n" + body
    assert needs_scope_analysis(source, tf_import_aliases(cst.parse_module(source))) is rebinds


@pytest.mark.parametrize(
    ("source", "found"),
    [
        # a contrib module bound to a name of the file's own, and nothing it replaces read through it
        ("import tensorflow as tf\nslim = tf.contrib.slim\nnet = slim.conv2d(x, 3, [3, 3])\n", False),
        ("import tensorflow as tf\nslim = tf.contrib.slim\nh = slim.dropout(x, 0.5)\n", True),
        ("import tensorflow as tf\nlayers = tf.contrib.layers\nr = layers.l2_regularizer(0.1)\n", True),
        ("import tensorflow as tf\nh = tf.contrib.layers.dropout(x, 0.5)\n", True),
        ("import tensorflow as tf\nh = tf.nn.dropout(x, rate=0.5)\n", False),
    ],
)
def test_contrib_to_core_is_asked_to_plan_only_where_it_replaces_something(source, found):
    assert detected(ContribToCore, source) is found


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("import tensorflow.compat.v1 as tf\nx = tf.constant(1.0)\n", False),  # compat-v1-import's file
        ("import tensorflow as tf\nx = tf.compat.v1.layers.dense(y, 2)\n", False),  # runs on TF 2.x as it is
        ("import tensorflow as tf\nx = tf.compat.v1.placeholder(tf.float32)\n", True),  # graph-mode API
        ("import tensorflow.compat.v1 as tf\nx = tf.placeholder(tf.float32)\n", True),
        ("import tensorflow as tf\nx = tf.placeholder(tf.float32)\n", True),
        ("import tensorflow as tf\ntf.enable_eager_execution()\n", True),  # the request goes
        ("import tensorflow.compat.v1 as tf\nimport tf_slim as slim\nx = tf.constant(1.0)\n", True),
    ],
)
def test_compat_fallback_is_asked_to_plan_only_where_something_keeps_the_file_on_tf1(source, found):
    assert detected(CompatFallback, source) is found


def test_the_parent_map_follows_each_edit():
    source = textwrap.dedent("""\
        import tensorflow as tf

        def f(x):
            y = tf.nn.relu(x)
            return y

        z = f(1)
    """)
    module = cst.parse_module(source)
    state = FileState(text=source)
    state.parsed = module
    call = next(n for n in walk(module) if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute))
    edits = Edits()
    edits.replace(call, lambda rebuilt: rebuilt.with_changes(func=cst.parse_expression("tf.math.abs")))
    statement = module.body[-1]
    edits.insert_before(statement, [cst.parse_statement("w = [tf.zeros([2])]")])
    new = state.apply(module, edits)
    kept = state.parents(new)
    assert all(kept.get(key) is parent for key, parent in parents(new).items())
    assert state.parents(module) == parents(module)  # the parsed tree's own map is left as it was


def test_a_rewrite_that_takes_the_last_read_of_an_alias_orphans_its_import():
    source = "import tensorflow as tf\nimport numpy as np\nx = tf.constant(1)\ny = np.zeros(2)\n"
    module = cst.parse_module(source)
    state = FileState(text=source)
    edits = Edits()
    edits.replace(module.body[2], cst.parse_statement("x = 1\n"))
    assert state.orphaned_aliases(module, state.apply(module, edits)) == [("tf", "tensorflow")]
    edits = Edits()
    edits.replace(module.body[3], cst.parse_statement("y = [0.0, 0.0]\n"))
    assert state.orphaned_aliases(module, state.apply(module, edits)) == []


def test_a_reading_is_shared_by_every_codemod_on_one_tree_version():
    source = "import tensorflow as tf\nw = tf.Variable(tf.zeros([2]), name='w')\n"
    module = cst.parse_module(source)
    state = FileState(text=source)
    first = state.reading(module, module_variables.inventory)
    assert [v.graph_name for v in first.variables] == ["w"]
    assert state.reading(module, module_variables.inventory) is first
    edits = Edits()
    edits.insert_after(module.body[1], [cst.parse_statement("b = tf.Variable(tf.zeros([2]), name='b')\n")])
    assert [v.graph_name for v in state.reading(state.apply(module, edits), module_variables.inventory).variables] == [
        "w",
        "b",
    ]


def test_a_visitor_class_made_per_call_is_driven_by_its_own_hooks():
    def calls_named(source: str) -> list[str]:
        found: list[str] = []

        class Calls(cst.CSTVisitor):  # a new class on every call
            def visit_Call(self, node: cst.Call) -> None:
                found.append(cst.Module([]).code_for_node(node.func))

        visit(cst.parse_module(source), Calls())
        return found

    assert calls_named("f(g(1))\n") == ["f", "g"]
    assert calls_named("h()\n") == ["h"]


def test_trees_of_one_file_resolve_names_alike():
    source = "import tensorflow as tf\nx = tf.nn.relu(y)\n"
    module = cst.parse_module(source)
    state = FileState(text=source)
    names = state.names(module)
    relu = next(n for n in walk(module) if isinstance(n, cst.Attribute) and n.attr.value == "relu")
    assert names.qualify(relu) == "tensorflow.nn.relu"
    edits = Edits()
    edits.insert_before(module.body[1], [cst.parse_statement("tf = None\n")])  # a rebinding: same imports
    new = state.apply(module, edits)
    assert state.names(new).qualify(relu) == "tensorflow.nn.relu"
    edits = Edits()
    edits.replace(module.body[0], cst.parse_statement("import tensorflow.compat.v1 as tf\n"))
    other = state.apply(module, edits)
    assert state.names(other).qualify(relu) == "tensorflow.compat.v1.nn.relu"
