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

from tfmodernize.engine import run, transform_text
from tfmodernize.settings import Settings
from tfmodernize.sources import Discovered
from tfmodernize.verify.command import missing_requirements
from tfmodernize.verify.fixtures import FixtureCase, FixtureError, discover

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CASES = discover(FIXTURES)
IDS = [case.id for case in CASES]


def _rewrite(case: FixtureCase, side: str) -> dict[str, str]:
    """File name -> its rewrite, for the files of one side of the case (a project case's
    folder is rewritten as one run, as ``tfmodernize apply`` on it would)."""
    if not case.project:
        new, _ = transform_text(
            case.files(side)[0].read_text(encoding="utf-8"),
            case.pipeline(),
            path=str(case.files(side)[0]),
            unsafe_fixes=True,
        )
        return {f"{side}.py": new}
    settings = Settings(select=tuple(c.code for c in case.pipeline()), unsafe_fixes=True, jobs=1)
    outcomes = list(run([Discovered(p) for p in case.files(side)], settings))
    failed = [f"{o.path.name}: {o.error}" for o in outcomes if o.error]
    assert not failed, failed
    return {o.path.name: o.new for o in outcomes}


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_golden(case: FixtureCase) -> None:
    if case.problem:
        pytest.fail(case.problem, pytrace=False)
    try:
        rewritten = _rewrite(case, "before")
        again = _rewrite(case, "after")
    except FixtureError as error:
        pytest.fail(str(error), pytrace=False)
    after = {
        name if case.project else "after.py": path.read_text(encoding="utf-8")
        for name, path in ((p.name, p) for p in case.files("after"))
    }
    rewritten = {name if case.project else "after.py": text for name, text in rewritten.items()}
    assert sorted(rewritten) == sorted(after), f"{case.id}: before and after hold other files"
    for name, expected in after.items():
        if rewritten[name] != expected:
            diff = "".join(
                difflib.unified_diff(
                    expected.splitlines(keepends=True),
                    rewritten[name].splitlines(keepends=True),
                    f"after: {name}",
                    f"rewritten before: {name}",
                )
            )
            pytest.fail(
                f"{case.id}: the rewrite of the before program is not the after program:\n{diff}", pytrace=False
            )
    for name, text in again.items():
        assert text == after[name if case.project else "after.py"], (
            f"{case.id}: the codemods change {name} again:\n{text}"
        )


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
