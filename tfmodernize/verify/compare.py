"""Numeric comparison of the values two runs left in module-level names.

What is compared: every name both runs bound to a concrete value (or exactly the names given):
``None``, Python numbers, numpy scalars and arrays, and lists, tuples and dicts of them. The
children have already turned eager tensors and variables into numpy arrays; a graph tensor or
any other object is not a value and is only named when asked for.

The rule for kinds, dtypes and shapes (also in ``fixtures/README.md``):

- Kinds must match: bool, integer, floating point, complex, ``None``, sequence, dict. ``3``
  and ``3.0`` differ; so do ``None`` and ``0``.
- Integers: the width and signedness may differ (``int32`` vs ``int64``, Python ``int`` vs
  ``np.int64``): TF1 and TF2 pick different index and count types for the same computation.
  Their values must be exactly equal.
- Floating point and complex: numpy dtypes must be identical (``float32`` vs ``float64`` is a
  failure: a migration that loses a cast changes precision and downstream results). A Python
  ``float``/``complex`` has no width of its own and matches any width of its kind.
- Shapes must be identical (no broadcasting); Python numbers have shape ``()``.
- Lists and tuples are the same kind (``sess.run`` returns lists where TF2 returns tuples);
  lengths must match. Dicts must have the same keys.
- Values: integers and bools exactly, floats and complex with ``numpy.isclose(after, before,
  rtol, atol)`` (defaults rtol 1e-5, atol 1e-6), NaN equal to NaN.

A failure names the value (``losses[2]``, ``params['w']``), both dtypes and shapes, and for a
numeric difference the largest absolute and relative error and the first mismatching index.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Iterable, Optional, Sequence

import numpy as np

from tfmodernize.verify import DEFAULT_ATOL, DEFAULT_RTOL


class Status(str, Enum):
    EQUAL = "equal"
    DIFFERENT = "different"
    MISSING = "missing"
    DIFFERS_AS_EXPECTED = "differs as expected"
    UNEXPECTEDLY_EQUAL = "unexpectedly equal"
    #: Bound in both runs, a value in one only (a TF1 graph variable, say): shown, not judged.
    NOT_COMPARED = "not compared"

    @property
    def ok(self) -> bool:
        return self in (Status.EQUAL, Status.DIFFERS_AS_EXPECTED, Status.NOT_COMPARED)


@dataclass(frozen=True)
class NameResult:
    """The verdict on one compared name."""

    name: str
    status: Status
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.status.ok


@dataclass(frozen=True)
class _Leaf:
    kind: str  # "bool", "integer", "float", "complex"
    dtype: Optional[np.dtype]  # None for a Python number: it has no width
    array: np.ndarray

    @property
    def description(self) -> str:
        dtype = f"Python {self.kind}" if self.dtype is None else str(self.dtype)
        return f"{dtype} shape {self.array.shape}"


_KINDS = {"b": "bool", "i": "integer", "u": "integer", "f": "float", "c": "complex"}
_PYTHON_KINDS = {bool: "bool", int: "integer", float: "float", complex: "complex"}


def _leaf(value: Any) -> Optional[_Leaf]:
    if isinstance(value, (np.generic, np.ndarray)):
        array = np.asarray(value)
        kind = _KINDS.get(array.dtype.kind)
        return _Leaf(kind, array.dtype, array) if kind else None
    kind = _PYTHON_KINDS.get(type(value))
    return _Leaf(kind, None, np.asarray(value)) if kind else None


def describe(value: Any) -> str:
    """A short description of a value's kind, dtype and shape."""
    if value is None:
        return "None"
    if isinstance(value, (list, tuple)):
        return f"{type(value).__name__} of {len(value)}"
    if isinstance(value, dict):
        return f"dict of {len(value)}"
    leaf = _leaf(value)
    return leaf.description if leaf else type(value).__name__


def difference(name: str, before: Any, after: Any, *, rtol: float = DEFAULT_RTOL, atol: float = DEFAULT_ATOL) -> Optional[str]:
    """Why ``after`` is not equal to ``before`` (``None`` when it is), naming ``name``."""
    if before is None or after is None:
        if before is None and after is None:
            return None
        return f"{name}: before {describe(before)}, after {describe(after)}"
    if isinstance(before, (list, tuple)) or isinstance(after, (list, tuple)):
        if not (isinstance(before, (list, tuple)) and isinstance(after, (list, tuple))):
            return f"{name}: before {describe(before)}, after {describe(after)}"
        if len(before) != len(after):
            return f"{name}: length {len(before)} before, {len(after)} after"
        return _first(
            difference(f"{name}[{index}]", b, a, rtol=rtol, atol=atol)
            for index, (b, a) in enumerate(zip(before, after))
        )
    if isinstance(before, dict) or isinstance(after, dict):
        if not (isinstance(before, dict) and isinstance(after, dict)):
            return f"{name}: before {describe(before)}, after {describe(after)}"
        if set(before) != set(after):
            only_before = sorted(map(repr, set(before) - set(after)))
            only_after = sorted(map(repr, set(after) - set(before)))
            return f"{name}: keys differ (only before: {', '.join(only_before) or '-'}; only after: {', '.join(only_after) or '-'})"
        return _first(
            difference(f"{name}[{key!r}]", before[key], after[key], rtol=rtol, atol=atol) for key in before
        )
    return _leaf_difference(name, _leaf(before), _leaf(after), before, after, rtol, atol)


def _first(reasons: Iterable[Optional[str]]) -> Optional[str]:
    return next((reason for reason in reasons if reason is not None), None)


def _leaf_difference(
    name: str, before: Optional[_Leaf], after: Optional[_Leaf], raw_before: Any, raw_after: Any, rtol: float, atol: float
) -> Optional[str]:
    if before is None or after is None:
        return f"{name}: before {describe(raw_before)}, after {describe(raw_after)} (not numbers)"
    shapes = f"before {before.description}, after {after.description}"
    if before.kind != after.kind:
        return f"{name}: kinds differ ({before.kind} vs {after.kind}): {shapes}"
    widths_known = before.dtype is not None and after.dtype is not None
    if before.kind in ("float", "complex") and widths_known and before.dtype != after.dtype:
        return f"{name}: dtypes differ: {shapes}"
    if before.array.shape != after.array.shape:
        return f"{name}: shapes differ: {shapes}"
    b, a = before.array, after.array
    if before.kind in ("bool", "integer"):
        close = b == a
        b_num, a_num = b.astype(np.float64), a.astype(np.float64)
    else:
        close = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
        b_num, a_num = b, a
    if np.all(close):
        return None
    with np.errstate(divide="ignore", invalid="ignore"):
        abs_error = np.abs(a_num - b_num)
        rel_error = np.where(b_num != 0, abs_error / np.abs(b_num), np.inf)
    mismatched = ~np.asarray(close)
    index = tuple(int(i) for i in np.argwhere(mismatched)[0])
    count = int(mismatched.sum())
    return (
        f"{name}: values differ in {count} of {close.size} element(s): "
        f"max abs error {_number(abs_error[mismatched].max())}, "
        f"max rel error {_number(rel_error[mismatched].max())}; "
        f"first mismatch at index {index}: before {_number(b[index])}, after {_number(a[index])}; {shapes}"
    )


def _number(value: Any) -> str:
    item = np.asarray(value).item()
    return f"{item:.7g}" if isinstance(item, float) else repr(item)


def compare_values(
    before: dict[str, Any],
    after: dict[str, Any],
    *,
    compare: Optional[Sequence[str]] = None,
    expected_difference: Sequence[str] = (),
    reason: str = "",
    rtol: float = DEFAULT_RTOL,
    atol: float = DEFAULT_ATOL,
    before_skipped: Optional[dict[str, str]] = None,
    after_skipped: Optional[dict[str, str]] = None,
) -> list[NameResult]:
    """The verdict on every compared name of two runs' values.

    Without ``compare``, the names both runs bound to concrete values; with it, exactly those
    names (each must be a concrete value in both runs). Names in ``expected_difference`` must
    be bound in both runs and must differ. No name to compare at all is a failure: a
    verification that compares nothing proves nothing. Without ``compare``, a name bound in
    both runs but to a concrete value in one only gets a ``NOT_COMPARED`` row (it tells the
    user which value to bind, e.g. ``w_value = sess.run(w)``); it fails nothing.
    """
    skipped = {"before": before_skipped or {}, "after": after_skipped or {}}
    expected = list(dict.fromkeys(expected_difference))
    if compare is None:
        names = [name for name in before if name in after and name not in expected]
    else:
        names = [name for name in dict.fromkeys(compare) if name not in expected]
    results = []
    for name in [*names, *expected]:
        missing = _missing(name, {"before": before, "after": after}, skipped)
        if missing:
            results.append(NameResult(name, Status.MISSING, missing))
            continue
        why = difference(name, before[name], after[name], rtol=rtol, atol=atol)
        if why is not None and why.startswith(f"{name}: "):
            why = why[len(name) + 2 :]  # the row already names it; nested paths stay
        if name in expected:
            if why is None:
                detail = f"expected to differ ({reason})" if reason else "expected to differ"
                results.append(NameResult(name, Status.UNEXPECTEDLY_EQUAL, f"{detail}, but equal: {describe(before[name])}"))
            else:
                results.append(NameResult(name, Status.DIFFERS_AS_EXPECTED, f"{reason}: {why}" if reason else why))
        elif why is None:
            results.append(NameResult(name, Status.EQUAL, describe(before[name])))
        else:
            results.append(NameResult(name, Status.DIFFERENT, why))
    if not results:
        results.append(
            NameResult(
                "(nothing)",
                Status.MISSING,
                "no module-level name is bound to a concrete value in both runs "
                "(values computed inside functions must be bound at module level to be compared)",
            )
        )
    if compare is None:
        results.extend(_not_compared(before, after, skipped, expected))
    return results


def _not_compared(
    before: dict[str, Any], after: dict[str, Any], skipped: dict[str, dict[str, str]], expected: list[str]
) -> list[NameResult]:
    rows = []
    for name in [*before, *skipped["before"]]:
        if name in expected or (name in before and name in after):
            continue
        if name in skipped["before"] and name in skipped["after"]:
            continue  # a session or a model on both sides: nothing to say
        if (name in before or name in skipped["before"]) and (name in after or name in skipped["after"]):
            sides = [
                f"{run}: {describe(values[name]) if name in values else skipped[run][name]}"
                for run, values in (("before", before), ("after", after))
            ]
            rows.append(NameResult(name, Status.NOT_COMPARED, "; ".join(sides)))
    return rows


def _missing(name: str, values: dict[str, dict[str, Any]], skipped: dict[str, dict[str, str]]) -> str:
    problems = []
    for run in ("before", "after"):
        if name in values[run]:
            continue
        if name in skipped[run]:
            problems.append(f"{run}: `{name}` is a {skipped[run][name]}, not a concrete value")
        else:
            problems.append(f"{run}: `{name}` is not bound at module level")
    return "; ".join(problems)
