"""Names read and bound, by syntax: one helper per question (tfmodernize.names)."""

import libcst as cst
import pytest

from tfmodernize.names import (
    bound_names,
    local_names,
    names_read,
    object_name,
    object_names,
    parameter_names,
    scope_string,
    target_names,
)


@pytest.mark.parametrize(
    ("code", "read"),
    [
        ("y = f(x, k=z)", {"y", "f", "x", "z"}),
        ("a.b.c(d)", {"a", "d"}),
        ("[w for w in ws]", {"w", "ws"}),
    ],
    ids=["keyword-names-are-not-reads", "attribute-names-are-not-reads", "comprehension"],
)
def test_names_read(code, read):
    assert names_read(cst.parse_module(code)) == read


@pytest.mark.parametrize(
    ("code", "bound"),
    [
        ("a, (b, *c) = v", {"a", "b", "c"}),
        ("x += 1\ny: int = 2", {"x", "y"}),
        ("for i, j in p:\n    pass", {"i", "j"}),
        ("with open(f) as h:\n    pass", {"h"}),
        ("if (n := 3):\n    pass", {"n"}),
        ("global g", {"g"}),
    ],
    ids=["tuple-and-star-targets", "augmented-and-annotated", "for-target", "with-as", "walrus", "global"],
)
def test_bound_names(code, bound):
    assert bound_names(cst.parse_module(code)) == bound


@pytest.mark.parametrize(
    "code",
    ["a.b = 1", "a[i] = 1", "f(x)", "print(y)"],
    ids=["attribute-target", "subscript-target", "call", "read-only"],
)
def test_no_names_bound(code):
    assert bound_names(cst.parse_module(code)) == set()


def test_target_names_of_a_mutation_are_none():
    assert target_names(cst.parse_expression("a.b")) == set()


FUNCTION = """\
def f(a, *args, b=1, **kw):
    global g
    g = 1
    x = 2
    total += 3
    def inner():
        hidden = 4
"""


def test_a_function_s_own_locals_and_parameters():
    function = cst.parse_module(FUNCTION).body[0]
    assert parameter_names(function) == ["a", "args", "b", "kw"]
    assert local_names(function) == {"x", "total"}
    assert local_names(function, augmented=False) == {"x"}


OBJECT_NAMES = [
    # (calls, labels, names already taken, the objects' names)
    (
        "the scope strings",
        ["h = dense_layer(x)", "out = dense_layer(h)"],
        ["hidden", "output"],
        set(),
        ["hidden_layer", "output_layer"],
    ),
    (
        "a scope string taken by a result: the bound names",
        ["layer1 = conv_layer(x)", "layer2 = conv_layer(layer1)"],
        ["layer1", "layer2"],
        {"layer1", "layer2"},
        ["layer1_module", "layer2_module"],
    ),
    (
        "no scope strings: the bound names",
        ["h = add_layer(x)", "out = add_layer(h)"],
        None,
        set(),
        ["h_layer", "out_layer"],
    ),
    (
        "clashing everywhere: numbered",
        ["h = add_layer(x)", "h = add_layer(h)"],
        None,
        set(),
        ["add_layer_1", "add_layer_2"],
    ),
    (
        "one call: the function's name",
        ["h = add_layer(x)"],
        ["hidden"],
        set(),
        ["add_layer"],
    ),
]


@pytest.mark.parametrize(
    "lines, labels, taken, expected",
    [row[1:] for row in OBJECT_NAMES],
    ids=[row[0] for row in OBJECT_NAMES],
)
def test_object_names(lines, labels, taken, expected) -> None:
    statements = [cst.parse_statement(line) for line in lines]
    function = lines[0].split("= ")[1].split("(")[0]
    assert object_names(function, statements, set(taken), labels) == expected


@pytest.mark.parametrize(
    ("line", "name", "label", "expected"),
    [
        ("logits = dense(h)", "dense", None, "logits_dense"),
        ("scores, state = make_cell(x)", "make_cell", None, "scores_cell"),
        ("cell_out = make_cell(x)", "make_cell", None, "cell_out_module"),
        ("y = fc(x)", "fc", "output", "output_fc"),
        ("y = fc_layer(x)", "fc_layer", "output_layer", "output_layer"),
        ("print(dense(h))", "dense", None, None),
        ("a.b = dense(h)", "dense", None, None),
    ],
)
def test_object_name(line, name, label, expected) -> None:
    assert object_name(name, cst.parse_statement(line), label) == expected


@pytest.mark.parametrize(
    ("literal", "expected"),
    [
        ('"Hidden layer"', "hidden_layer"),
        ('"conv/1"', "conv_1"),
        ('"2nd"', None),
        ('"class"', None),
        ("name", None),
    ],
)
def test_scope_string(literal, expected) -> None:
    assert scope_string(cst.parse_expression(literal)) == expected
