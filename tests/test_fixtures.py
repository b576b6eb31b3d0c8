"""Every ``fixtures/<codemod>/<case>/`` is a golden test and a numeric test (design.md section 5).

Golden: the case's codemod(s) turn ``before.py`` into exactly ``after.py`` and leave
``after.py`` unchanged (unsafe fixes enabled: a fixture shows the fix). Numeric: ``before.py``
in its mode and ``after.py`` on plain TF2 leave equal values. The numeric tests selected in a
run are executed in one batch by long-lived TensorFlow children (``Harness.run_all``) the first
time one of them asks for its verdict; each test then reads its own.

    pytest tests/test_fixtures.py -k run-functions-eagerly
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from tfmodernize.engine import transform_text
from tfmodernize.verify.command import missing_requirements
from tfmodernize.verify.fixtures import FixtureCase, FixtureError, discover

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CASES = discover(FIXTURES)
IDS = [case.id for case in CASES]


def _rewrite(case: FixtureCase, text: str, path: Path) -> str:
    new, _ = transform_text(text, case.pipeline(), path=str(path), unsafe_fixes=True)
    return new


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_golden(case: FixtureCase) -> None:
    if case.problem:
        pytest.fail(case.problem, pytrace=False)
    before = case.before.read_text(encoding="utf-8")
    after = case.after.read_text(encoding="utf-8")
    try:
        rewritten = _rewrite(case, before, case.before)
        again = _rewrite(case, after, case.after)
    except FixtureError as error:
        pytest.fail(str(error), pytrace=False)
    if rewritten != after:
        diff = "".join(difflib.unified_diff(
            after.splitlines(keepends=True), rewritten.splitlines(keepends=True), "after.py", "rewritten before.py"
        ))
        pytest.fail(f"{case.id}: the rewrite of before.py is not after.py:\n{diff}", pytrace=False)
    assert again == after, f"{case.id}: the codemods change after.py again:\n{again}"


@pytest.fixture(scope="session")
def numeric_verdicts(request: pytest.FixtureRequest) -> dict:
    """Verdicts of every numeric case selected in this session, computed in one batch."""
    missing = missing_requirements()
    if missing:
        pytest.skip(f"numeric fixtures need the verify extra ({', '.join(missing)} missing)")
    from tfmodernize.verify.runner import Harness
    from tfmodernize.verify.verdict import verify_pairs

    selected = [
        item.callspec.params["case"]
        for item in request.session.items
        if getattr(item, "originalname", None) == "test_numeric" and item.module.__name__ == __name__
    ]
    verdicts: dict = {}
    runnable = []
    for case in selected:
        try:
            runnable.append((case, case.pair()))
        except FixtureError as error:
            verdicts[case.id] = str(error)
    with Harness() as harness:
        for (case, _), verdict in zip(runnable, verify_pairs([pair for _, pair in runnable], harness)):
            verdicts[case.id] = verdict
    return verdicts


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_numeric(case: FixtureCase, numeric_verdicts: dict) -> None:
    verdict = numeric_verdicts[case.id]
    if isinstance(verdict, str):
        pytest.fail(verdict, pytrace=False)
    if verdict.status != "equal":
        pytest.fail(f"{case.id}: {verdict.status}\n{verdict.explain()}", pytrace=False)
