"""Names read and bound, by syntax: one helper per question (tfmodernize.names)."""

import libcst as cst
import pytest

from tfmodernize.names import bound_names, local_names, names_read, parameter_names, target_names


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
