"""End to end: the other bundled examples (the README's `tfmodernize diff examples/`) migrate
with the whole catalogue and reproduce the original program's numbers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tfmodernize.registry import select_codemods
from tfmodernize.engine import transform_text
from tfmodernize.verify.command import missing_requirements

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
#: example -> (mode the original runs in, names to compare, text the migration must not keep)
CASES = {
    "tf1_inference.py": ("tf1", ["database_scores", "neighbours"], r"compat\.v1|tf\.Session|tf\.placeholder|sess\.run"),
    "tf2_antipatterns.py": ("tf2", ["losses"], r"experimental_run_functions_eagerly|model\.variables"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_example_migrates_completely(name):
    source = (EXAMPLES / name).read_text(encoding="utf-8")
    migrated, state = transform_text(source, select_codemods())
    assert migrated != source and state.findings == []
    assert not re.search(CASES[name][2], migrated), migrated


@pytest.mark.parametrize("name", sorted(CASES))
def test_example_keeps_its_numbers(name, tmp_path):
    if missing_requirements():
        pytest.skip("needs the verify extra")
    from tfmodernize.verify.runner import Harness, Script
    from tfmodernize.verify.verdict import Pair, verify_pairs

    mode, compare, _ = CASES[name]
    migrated, _ = transform_text((EXAMPLES / name).read_text(encoding="utf-8"), select_codemods())
    after = tmp_path / name
    after.write_text(migrated, encoding="utf-8")
    pair = Pair(Script(EXAMPLES / name, mode=mode), Script(after, mode="tf2"), compare=compare)
    with Harness() as harness:
        (verdict,) = verify_pairs([pair], harness)
    assert verdict.status == "equal", verdict.explain()


NOTEBOOK = "classifier_tf1.ipynb"


def _migrated_notebook(tmp_path: Path) -> Path:
    from tfmodernize.engine import process
    from tfmodernize.settings import Settings
    from tfmodernize.sources import Discovered

    outcome = process(Discovered(EXAMPLES / NOTEBOOK), Settings(jobs=1))
    assert outcome.error is None and outcome.findings == [], outcome.error or [f.message for f in outcome.findings]
    after = tmp_path / NOTEBOOK
    after.write_bytes(outcome.new_bytes)
    return after


def test_example_notebook_migrates_completely(tmp_path):
    from tfmodernize.notebooks import script

    code = script(_migrated_notebook(tmp_path).read_bytes())
    assert not re.search(r"compat\.v1|tf\.Session|tf\.placeholder|tf\.layers|sess\.run", code), code
    assert "%matplotlib inline" in (tmp_path / NOTEBOOK).read_text()  # the magics come back


def test_example_notebook_prints_the_same_numbers_from_the_same_weights(tmp_path):
    if missing_requirements():
        pytest.skip("needs the verify extra")
    from tfmodernize.verify.runner import Harness, Script
    from tfmodernize.verify.verdict import Pair, verify_pairs

    after = _migrated_notebook(tmp_path)
    pair = Pair(Script(EXAMPLES / NOTEBOOK, mode="tf1"), Script(after, mode="tf2"), stdout=True, align_variables=True)
    with Harness() as harness:
        (verdict,) = verify_pairs([pair], harness)
    assert verdict.status == "equal", verdict.explain()
    assert verdict.after.alignment[0].startswith("aligned 4 trainable variable(s)")
