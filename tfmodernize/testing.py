"""Helpers for testing codemods (ours and yours).

    from tfmodernize.testing import rewrite
    result = rewrite("TFM207", source)
    assert result.code == expected
    assert [f.code for f in result.findings] == []

``rewrite`` runs the real engine pipeline (pre-filter, shared detection, transform, re-parse
check) restricted to one codemod, so a test exercises exactly what users run.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Union

from tfmodernize.codemod import TFCodemod
from tfmodernize.registry import find_codemod
from tfmodernize.results import Finding, Fix
from tfmodernize.engine import transform_text


@dataclass(frozen=True)
class Rewritten:
    code: str
    fixes: list[Fix]
    findings: list[Finding]


def resolve(codemod: Union[str, type[TFCodemod]]) -> type[TFCodemod]:
    if isinstance(codemod, str):
        found = find_codemod(codemod)
        if found is None:
            raise KeyError(f"no codemod {codemod!r}")
        return found
    return codemod


def rewrite(
    codemod: Union[str, type[TFCodemod]],
    source: str,
    *,
    unsafe_fixes: bool = False,
    dedent: bool = True,
) -> Rewritten:
    """Run one codemod (by code, name or class) on ``source`` through the engine."""
    if dedent:
        source = textwrap.dedent(source)
    new, state = transform_text(source, [resolve(codemod)], unsafe_fixes=unsafe_fixes)
    return Rewritten(new, list(state.fixes), list(state.findings))


def assert_rewrites(codemod: Union[str, type[TFCodemod]], before: str, after: str, **options) -> Rewritten:
    """``before`` becomes exactly ``after``, and a second run changes nothing."""
    result = rewrite(codemod, before, **options)
    expected = textwrap.dedent(after)
    assert result.code == expected, f"got:\n{result.code}\nexpected:\n{expected}"
    again = rewrite(codemod, result.code, dedent=False, **options)
    assert again.code == result.code, f"not idempotent:\n{again.code}"
    return result


def assert_unchanged(codemod: Union[str, type[TFCodemod]], source: str, **options) -> Rewritten:
    """``source`` comes out byte-identical, with no fix recorded."""
    result = rewrite(codemod, source, **options)
    assert result.code == textwrap.dedent(source), f"changed:\n{result.code}"
    assert result.fixes == []
    return result
