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
"""

from __future__ import annotations

import math
import re
from typing import Optional

from tfmodernize.verify import DEFAULT_ATOL, DEFAULT_RTOL
from tfmodernize.verify.compare import NameResult, Status

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
    found = []
    for line in text.splitlines():
        for match in _NUMBER.finditer(_DESCRIPTIVE.sub(" ", line)):
            token = match.group()
            value = {"True": 1.0, "False": 0.0}.get(token)
            found.append((float(token) if value is None else value, line.strip()))
    return found


def compare_printed(before: str, after: str, *, rtol: float = DEFAULT_RTOL, atol: float = DEFAULT_ATOL) -> NameResult:
    """Equal when both print the same count of numbers, each pair within ``|a - b| <= atol +
    rtol * |b|`` (NaN equal to NaN); otherwise the first difference, with its lines."""
    old, new = numbers(before), numbers(after)
    if not old and not new:
        return NameResult(NAME, Status.MISSING, "neither program printed a number")
    mismatch: Optional[int] = None
    for index, ((a, _), (b, _)) in enumerate(zip(new, old)):
        same = (math.isnan(a) and math.isnan(b)) or (a == b) or abs(a - b) <= atol + rtol * abs(b)
        if not same:
            mismatch = index
            break
    if mismatch is None and len(old) == len(new):
        return NameResult(NAME, Status.EQUAL, f"{len(old)} numbers printed, equal in order")
    if mismatch is None:
        mismatch = min(len(old), len(new))
        detail = f"{len(old)} numbers printed before, {len(new)} after; the first {mismatch} are equal"
    else:
        detail = f"number {mismatch + 1} of {len(old)} differs: {old[mismatch][0]!r} before, {new[mismatch][0]!r} after"
    lines = [f"{label}: {found[mismatch][1]}" for label, found in (("before", old), ("after", new)) if mismatch < len(found)]
    return NameResult(NAME, Status.DIFFERENT, "; ".join([detail, *lines]))
