"""The numbers two programs print, compared in order (``tfmodernize verify --stdout``).

A whole training script rarely leaves its results in module-level names: it prints them. This
reads the numbers out of each run's stdout (stderr, where TensorFlow and absl log, is never
read) and compares them pairwise, in order, with the same tolerances as values.

What counts as a number: an int or float literal (sign, decimals, exponent), ``nan``/``inf``,
and ``True``/``False`` (as 1/0), standing alone: not glued to a letter, digit, ``_`` or ``.``
(``float32``, ``conv2d``, ``1.2.3`` and ``0x7f3a`` give none). Parts of object reprs that
describe rather than compute are blanked first: ``shape=(...)``, ``dtype=...``, memory
addresses, device strings and quoted tensor names, so a symbolic ``Tensor("add:0", shape=(2,),
dtype=float32)`` contributes nothing while ``tf.Tensor([1. 2.], ...)`` contributes its values.

When they part, the verdict says how (``compare.Drift``): a training loop printing its loss
each step, migrated faithfully but rounding one operation differently, prints numbers that are
"equal to rounding for N printed lines (K numbers), then drifting": the first number outside
the tolerances, its relative difference, and whether the difference grows from there. A
difference from the first number on, or one that does not grow, is said so instead.
"""

from __future__ import annotations

import re

from tfmodernize.verify import DEFAULT_ATOL, DEFAULT_RTOL
from tfmodernize.verify.compare import NameResult, Status, drift

NAME = "(stdout)"
_DESCRIPTIVE = re.compile(
    r"shape=\([^)]*\)|shape=\[[^\]]*\]|TensorShape\(\[[^\]]*\]\)|dtype=[\w.]+|<dtype: '[^']*'>"
    r"|0x[0-9a-fA-F]+|/job:[\w/:]+|device:\w+:\d+|[\"'][\w/]+:\d+[\"']"
)
_NUMBER = re.compile(
    r"(?<![\w.])[-+]?(?:(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|nan|inf)(?![\w.])|(?<![\w.])(?:True|False)(?![\w.])"
)


def numbers(text: str) -> list[tuple[float, str]]:
    """``(value, the line it is on)`` for every number ``text`` prints, in order."""
    return [(value, line) for value, line, _ in _numbers(text)]


def _numbers(text: str) -> list[tuple[float, str, int]]:
    """``(value, the line it is on, that line's index)`` for every number ``text`` prints."""
    found = []
    for index, line in enumerate(text.splitlines()):
        for match in _NUMBER.finditer(_DESCRIPTIVE.sub(" ", line)):
            token = match.group()
            value = {"True": 1.0, "False": 0.0}.get(token)
            found.append((float(token) if value is None else value, line.strip(), index))
    return found


def compare_printed(before: str, after: str, *, rtol: float = DEFAULT_RTOL, atol: float = DEFAULT_ATOL) -> NameResult:
    """Equal when both print the same count of numbers, each pair within ``|a - b| <= atol +
    rtol * |b|`` (NaN equal to NaN); otherwise the first difference, with its lines, and how
    the numbers part: equal to rounding for how many printed lines, then drifting (the
    difference grows) or different."""
    old, new = _numbers(before), _numbers(after)
    if not old and not new:
        return NameResult(NAME, Status.MISSING, "neither program printed a number")
    parted = drift([value for value, _, _ in old], [value for value, _, _ in new], rtol=rtol, atol=atol)
    if parted is None and len(old) == len(new):
        return NameResult(NAME, Status.EQUAL, f"{len(old)} numbers printed, equal in order")
    counts = f"{len(old)} numbers printed before, {len(new)} after"
    if parted is None:
        mismatch = min(len(old), len(new))
        detail = f"{counts}; the first {mismatch} are equal"
    else:
        mismatch = parted.agreeing

        def position(index: int) -> str:
            return f"number {index + 1} of {len(old)}"

        if mismatch == 0:
            detail = f"different from the first number: {parted.course(position, 'numbers')}"
        else:
            detail = f"{_agreeing_lines(old, mismatch)}, {parted.shape(position, 'numbers')}"
        if len(old) != len(new):
            detail += f"; {counts}"
    lines = [
        f"{label}: {found[mismatch][1]}" for label, found in (("before", old), ("after", new)) if mismatch < len(found)
    ]
    return NameResult(NAME, Status.DIFFERENT, "; ".join([detail, *lines]), parted)


def _agreeing_lines(old: list[tuple[float, str, int]], mismatch: int) -> str:
    """``equal to rounding for N printed lines (K numbers)``: the lines of ``before`` whose
    numbers all come before the first mismatch."""
    lines = len({line for _, _, line in old[:mismatch]} - {old[mismatch][2]})
    count = f"{mismatch} number{'' if mismatch == 1 else 's'}"
    if lines == 0:
        return f"equal to rounding for {count}"
    return f"equal to rounding for {lines} printed line{'' if lines == 1 else 's'} ({count})"
