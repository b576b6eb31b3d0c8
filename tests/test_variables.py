"""The one reader of variable-making calls (``analysis/variables.py``'s ``made_variable``) and
the one ``trainable=`` policy every variable inventory follows through it."""

from __future__ import annotations

import libcst as cst
import pytest

from tfmodernize.analysis.module_variables import inventory
from tfmodernize.analysis.variable_calls import MadeVariable, Unknown, made_variable
from tfmodernize.codemods.migrate.session_to_function.graph import variables_created
from tfmodernize.syntax import source
from tfmodernize.tfsymbols import TFNames


def read(expression: str, header: str = "import tensorflow as tf\n"):
    module = cst.parse_module(f"{header}v = {expression}\n")
    call = module.body[-1].body[0].value
    return made_variable(call, TFNames.for_module(module))


def test_a_variable_call_is_read_by_parameter():
    made = read('tf.Variable(tf.zeros([2]), False, name="steps", dtype=tf.int64)')
    assert isinstance(made, MadeVariable)
    assert (made.maker, made.name, made.trainable) == ("Variable", "steps", False)
    assert source(made.initial_value) == "tf.zeros([2])"
    assert source(made.dtype) == "tf.int64"
    assert made.shape is None and made.collections is None


def test_a_get_variable_call_is_read_by_parameter_through_any_alias():
    made = read(
        'v1.get_variable("w", [3, 2], v1.float32, collections=["mine"])',
        header="import tensorflow.compat.v1 as v1\n",
    )
    assert isinstance(made, MadeVariable)
    assert (made.maker, made.name, made.trainable) == ("get_variable", "w", True)
    assert (source(made.shape), source(made.dtype), source(made.collections)) == ("[3, 2]", "v1.float32", '["mine"]')
    assert made.initializer is None


@pytest.mark.parametrize(
    ("expression", "name"),
    [
        ("tf.Variable(1.0)", "Variable"),  # TF1's default name
        ("tf.Variable(1.0, name=prefix + 'w')", None),
        ("tf.get_variable(name)", None),
    ],
)
def test_the_graph_name_is_read_only_from_a_literal(expression, name):
    made = read(expression)
    assert isinstance(made, MadeVariable) and made.name == name


@pytest.mark.parametrize(
    ("expression", "trainable"),
    [
        ("tf.Variable(0)", True),
        ("tf.Variable(0, trainable=True)", True),
        ("tf.get_variable('s', trainable=False)", False),
    ],
)
def test_literal_trainable_flags_are_read(expression, trainable):
    made = read(expression)
    assert isinstance(made, MadeVariable) and made.trainable is trainable


@pytest.mark.parametrize(
    ("expression", "reason"),
    [
        ("tf.Variable(0, trainable=is_training)", "`trainable` is not a literal"),
        ("tf.get_variable('w', [2], trainable=not frozen)", "`trainable` is not a literal"),
        ("tf.Variable(*args)", "could not be read"),
        ("tf.Variable(0, True, None)", "could not be read"),  # TF1 and TF2 differ after `trainable`
        ("tf.Variable(0, initializer=None)", "no parameter for"),
    ],
)
def test_what_cannot_be_read_is_unknown_with_the_reason(expression, reason):
    made = read(expression)
    assert isinstance(made, Unknown) and reason in made.reason


@pytest.mark.parametrize("expression", ["tf.zeros([2])", "make_variable(0, trainable=flag)", "tf.Module()"])
def test_other_calls_are_not_read(expression):
    assert read(expression) is None


# The policy change of issue 36: session-to-function's graph model read a non-literal
# ``trainable=`` as trainable while the training inventory declined it; both decline now.
FLAGGED = """\
import tensorflow as tf
fine_tune = True
W = tf.Variable(tf.zeros([2, 1]), trainable=fine_tune)
b = tf.Variable(tf.zeros([1]))
"""


def test_a_non_literal_trainable_makes_the_training_inventory_incomplete():
    module = cst.parse_module(FLAGGED)
    found = inventory(module, TFNames.for_module(module))
    assert found.problem == "a variable whose `trainable` is not a literal"
    literal = cst.parse_module(FLAGGED.replace("trainable=fine_tune", "trainable=False"))
    listed = inventory(literal, TFNames.for_module(literal))
    assert listed.problem is None
    assert [(v.name, v.trainable) for v in listed.variables] == [("W", False), ("b", True)]


def test_a_non_literal_trainable_makes_the_graph_model_decline():
    module = cst.parse_module(FLAGGED)
    assert variables_created(module.body, TFNames.for_module(module)) is None
    literal = cst.parse_module(FLAGGED.replace("trainable=fine_tune", "trainable=False"))
    found = variables_created(literal.body, TFNames.for_module(literal))
    assert [(v.name, v.trainable) for v in found] == [("W", False), ("b", True)]


def test_a_variable_helper_call_follows_the_same_policy():
    helper = "def weight(shape, trainable=True):\n    return tf.Variable(tf.zeros(shape), trainable=trainable)\n"
    for flag, expected in (("False", [("W", False)]), ("fine_tune", None)):
        module = cst.parse_module(f"import tensorflow as tf\n{helper}W = weight([2], trainable={flag})\n")
        found = variables_created(module.body[2:], TFNames.for_module(module), variable_functions={"weight"})
        assert (found if found is None else [(v.name, v.trainable) for v in found]) == expected
