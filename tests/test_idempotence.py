"""A second run changes nothing: the whole catalogue, over every fixture program.

Each fixture's ``before.py`` and ``after.py`` go through the whole catalogue (unsafe fixes on,
as ``apply --unsafe-fixes`` would); running the catalogue again on that output must change
nothing. A rewrite whose output the next run reads differently (a TF2 name taken for its TF1
namesake, say) is a codemod that changes meaning on the second run.
"""

from pathlib import Path

import pytest

from tfmodernize.registry import builtin_codemods
from tfmodernize.engine import transform_text

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
PROGRAMS = sorted(
    [
        *(p for p in FIXTURES.glob("*/*/*.py") if p.name in ("before.py", "after.py")),
        *FIXTURES.glob("*/*/before/*.py"),
        *FIXTURES.glob("*/*/after/*.py"),
    ]
)


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: "/".join(p.parts[-3:]))
def test_second_run_changes_nothing(program):
    codemods = builtin_codemods()
    once, _ = transform_text(program.read_text(), codemods, unsafe_fixes=True)
    twice, state = transform_text(once, codemods, unsafe_fixes=True)
    assert twice == once, f"second run changed the output of {program}:\n{twice}"
    assert state.fixes == []


def test_there_are_programs_to_check():
    assert len(PROGRAMS) > 100
