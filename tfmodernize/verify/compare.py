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

A sequence of numbers (a list of per-step losses, a 1-D array, the numbers a program prints)
that agrees for a while and then parts is described by its ``Drift``: how many leading values
agree within the tolerances, where and by how much the first one differs, and whether the
difference grows from there. Two float32 programs that round one operation differently (Keras
Adam's ``beta ** t`` against TF1's running product) print the same losses for hundreds of steps
and then part by a difference that compounds: "equal to rounding for N values, then drifting"
says that, where the first mismatch alone reads like a wrong migration.
"""

from __future__ import annotations

import math
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
    #: For a sequence that agrees for a while, then parts: how (``Drift``).
    drift: Optional["Drift"] = None

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


#: Fewest pairs a sequence needs for its drift to be described (in a shorter one the first
#: mismatch says everything).
DRIFT_MIN_LENGTH = 4
#: The difference grows when, from the first mismatch on, it reaches at least this many times
#: the first mismatch's (measured in tolerances: ``|after - before| / (atol + rtol * |before|)``).
#: A faithful migration that rounds differently parts just outside the tolerance and then
#: compounds; a wrong one usually parts at once, by about as much as it ever will.
DRIFT_GROWTH = 2.0


@dataclass(frozen=True)
class Drift:
    """How two sequences of numbers part: ``agreeing`` leading pairs within the tolerances, then
    the first pair outside them (at index ``agreeing``), and what the difference does after it."""

    #: Pairs compared (the shorter sequence's length).
    total: int
    #: Leading pairs within the tolerances; the first mismatch is at this index.
    agreeing: int
    first_before: float
    first_after: float
    #: ``|after - before| / |before|`` at the first mismatch (``inf`` when before is 0 or NaN).
    first_relative: float
    #: The largest relative difference from the first mismatch on, its index, and the absolute
    #: difference there.
    largest_relative: float
    largest_at: int
    largest_absolute: float
    #: Pairs from the first mismatch on that are outside the tolerances.
    outside: int
    #: Whether the difference grows after the first mismatch (``DRIFT_GROWTH``).
    grows: bool

    @property
    def rest(self) -> int:
        """Pairs from the first mismatch on."""
        return self.total - self.agreeing

    @property
    def verb(self) -> str:
        return "drifting" if self.grows else "different"

    def shape(self, position, unit: str = "values") -> str:
        """``then drifting: ...``: what happens from the first mismatch on; ``position(index)``
        names a pair, ``unit`` says what the pairs are (plural)."""
        return f"then {self.verb}: {self.course(position, unit)}"

    def course(self, position, unit: str = "values") -> str:
        """The first mismatch (where, by how much) and whether the difference grows after it."""
        by = _by(self.first_relative, abs(self.first_after - self.first_before))
        first = (
            f"{position(self.agreeing)} differs{by} "
            f"({_number(self.first_before)} before, {_number(self.first_after)} after)"
        )
        if self.rest == 1:
            return f"{first}, the last one compared"
        largest = _by(self.largest_relative, self.largest_absolute).removeprefix(" by ") or "NaN or infinity"
        if self.grows:
            trend = f"the difference grows (to {largest} at {position(self.largest_at)})"
        else:
            trend = f"the difference does not grow (at most {largest})"
        return f"{first}; {trend}; {self.outside} of the {self.rest} {unit} from there are outside the tolerance"


def _by(relative: float, absolute: float) -> str:
    """`` by 1.5e-05 relative``; the absolute difference where the value before is 0; nothing
    for NaN or infinity."""
    if math.isfinite(relative):
        return f" by {relative:.1e} relative"
    if math.isfinite(absolute):
        return f" by {absolute:.1e} absolute"
    return ""


def drift(
    before: Sequence[float], after: Sequence[float], *, rtol: float = DEFAULT_RTOL, atol: float = DEFAULT_ATOL
) -> Optional[Drift]:
    """How ``after`` parts from ``before``, pair by pair in order (the longer one's extra values
    are not compared); ``None`` when every pair is within the tolerances."""
    pairs = [(float(b), float(a)) for b, a in zip(before, after)]

    def close(b: float, a: float) -> bool:
        return (math.isnan(a) and math.isnan(b)) or a == b or abs(a - b) <= atol + rtol * abs(b)

    first = next((index for index, (b, a) in enumerate(pairs) if not close(b, a)), None)
    if first is None:
        return None

    def relative(b: float, a: float) -> float:
        if close(b, a):
            return 0.0
        return abs(a - b) / abs(b) if b != 0 and math.isfinite(b) and not math.isnan(a) else math.inf

    def tolerances(b: float, a: float) -> float:
        if close(b, a):
            return 0.0
        if math.isnan(a) or math.isnan(b) or math.isinf(a) or math.isinf(b):
            return math.inf
        scale = atol + rtol * abs(b)
        return abs(a - b) / scale if scale > 0 else math.inf

    rest = pairs[first:]
    relatives = [relative(b, a) for b, a in rest]
    scaled = [tolerances(b, a) for b, a in rest]
    largest = max(range(len(rest)), key=lambda i: scaled[i])
    grows = len(rest) > 1 and math.isfinite(scaled[0]) and max(scaled[1:]) >= DRIFT_GROWTH * scaled[0]
    return Drift(
        total=len(pairs),
        agreeing=first,
        first_before=pairs[first][0],
        first_after=pairs[first][1],
        first_relative=relatives[0],
        largest_relative=relatives[largest],
        largest_at=first + largest,
        largest_absolute=abs(rest[largest][1] - rest[largest][0]),
        outside=sum(not close(b, a) for b, a in rest),
        grows=grows,
    )


def _scalar_sequence(value: Any) -> Optional[list[_Leaf]]:
    """The leaves of a list/tuple of float scalars, or of a 1-D float array; ``None`` otherwise."""
    if isinstance(value, np.ndarray):
        return [_leaf(x) for x in value] if value.ndim == 1 and value.dtype.kind == "f" else None
    if not isinstance(value, (list, tuple)):
        return None
    leaves = [_leaf(item) for item in value]
    if any(leaf is None or leaf.kind != "float" or leaf.array.shape != () for leaf in leaves):
        return None
    return leaves


def sequence_drift(
    before: Any, after: Any, *, rtol: float = DEFAULT_RTOL, atol: float = DEFAULT_ATOL
) -> Optional[Drift]:
    """The ``Drift`` of two equally long sequences of float scalars of the same dtypes (per-step
    losses), when some leading values agree and then they part; ``None`` for anything else."""
    old, new = _scalar_sequence(before), _scalar_sequence(after)
    if old is None or new is None or len(old) != len(new) or len(old) < DRIFT_MIN_LENGTH:
        return None
    if any(b.dtype is not None and a.dtype is not None and b.dtype != a.dtype for b, a in zip(old, new)):
        return None  # a dtype difference is the finding, not the values
    found = drift([float(b.array) for b in old], [float(a.array) for a in new], rtol=rtol, atol=atol)
    return found if found is not None and found.agreeing > 0 else None


def describe_sequence_drift(name: str, found: Drift) -> str:
    """``equal to rounding for N of M values, then drifting: ...`` for a sequence value."""
    plural = "" if found.agreeing == 1 else "s"
    return f"equal to rounding for {found.agreeing} of {found.total} value{plural}, " + found.shape(
        lambda index: f"{name}[{index}]"
    )


def difference(
    name: str, before: Any, after: Any, *, rtol: float = DEFAULT_RTOL, atol: float = DEFAULT_ATOL
) -> Optional[str]:
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
        first = _first(
            difference(f"{name}[{index}]", b, a, rtol=rtol, atol=atol)
            for index, (b, a) in enumerate(zip(before, after))
        )
        found = sequence_drift(before, after, rtol=rtol, atol=atol) if first is not None else None
        return first if found is None else f"{name}: {describe_sequence_drift(name, found)}"
    if isinstance(before, dict) or isinstance(after, dict):
        if not (isinstance(before, dict) and isinstance(after, dict)):
            return f"{name}: before {describe(before)}, after {describe(after)}"
        if set(before) != set(after):
            only_before = sorted(map(repr, set(before) - set(after)))
            only_after = sorted(map(repr, set(after) - set(before)))
            return f"{name}: keys differ (only before: {', '.join(only_before) or '-'}; only after: {', '.join(only_after) or '-'})"
        return _first(difference(f"{name}[{key!r}]", before[key], after[key], rtol=rtol, atol=atol) for key in before)
    return _leaf_difference(name, _leaf(before), _leaf(after), before, after, rtol, atol)


def _first(reasons: Iterable[Optional[str]]) -> Optional[str]:
    return next((reason for reason in reasons if reason is not None), None)


def _leaf_difference(
    name: str,
    before: Optional[_Leaf],
    after: Optional[_Leaf],
    raw_before: Any,
    raw_after: Any,
    rtol: float,
    atol: float,
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
    found = sequence_drift(raw_before, raw_after, rtol=rtol, atol=atol)
    drifting = "" if found is None else f"{describe_sequence_drift(name, found)}; "
    return (
        f"{name}: {drifting}values differ in {count} of {close.size} element(s): "
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
                results.append(
                    NameResult(name, Status.UNEXPECTEDLY_EQUAL, f"{detail}, but equal: {describe(before[name])}")
                )
            else:
                results.append(NameResult(name, Status.DIFFERS_AS_EXPECTED, f"{reason}: {why}" if reason else why))
        elif why is None:
            results.append(NameResult(name, Status.EQUAL, describe(before[name])))
        else:
            found = sequence_drift(before[name], after[name], rtol=rtol, atol=atol)
            results.append(NameResult(name, Status.DIFFERENT, why, found))
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
