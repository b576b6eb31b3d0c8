"""``verify --stdout``: the numbers two programs print, read and compared in order."""

import pytest

from tfmodernize.verify.compare import Status
from tfmodernize.verify.printed import compare_printed, numbers

READS = [
    pytest.param("loss 0.25 after 3 steps\n", [0.25, 3.0], id="words-and-numbers"),
    pytest.param("w = [[ 1.5e-03 -2. ]]\n", [1.5e-3, -2.0], id="numpy-array"),
    pytest.param("ok: True, done: False\n", [1.0, 0.0], id="booleans"),
    pytest.param("nan inf -inf\n", [float("nan"), float("inf"), float("-inf")], id="nan-inf"),
    pytest.param('Tensor("add:0", shape=(2, 3), dtype=float32)\n', [], id="symbolic-tensor-repr"),
    pytest.param("tf.Tensor([1. 2.], shape=(2,), dtype=float32)\n", [1.0, 2.0], id="eager-tensor-values"),
    pytest.param("float32 conv2d layer_1 v1.2.3 at 0x7f3a12\n", [], id="numbers-glued-to-words"),
]


@pytest.mark.parametrize(("text", "expected"), READS)
def test_numbers(text, expected):
    found = [value for value, _ in numbers(text)]
    assert len(found) == len(expected)
    for got, want in zip(found, expected):
        assert (got != got and want != want) or got == want


def test_equal_within_tolerance():
    result = compare_printed("step 1 loss 0.5000001\n", "step 1 loss 0.5\n", rtol=1e-5, atol=1e-6)
    assert result.status is Status.EQUAL


def test_first_difference_is_named_with_its_lines():
    result = compare_printed("a 1\nloss 0.5\n", "a 1\nloss 0.7\n")
    assert result.status is Status.DIFFERENT
    assert (
        "number 2 of 2 differs" in result.detail
        and "before: loss 0.5" in result.detail
        and "after: loss 0.7" in result.detail
    )


def test_count_mismatch_is_a_difference():
    result = compare_printed("1 2 3\n", "1 2\n")
    assert result.status is Status.DIFFERENT and "3 numbers printed before, 2 after" in result.detail


def test_nothing_printed_is_missing():
    assert compare_printed("hello\n", "hello\n").status is Status.MISSING
