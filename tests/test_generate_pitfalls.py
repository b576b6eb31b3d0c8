import importlib.util
from pathlib import Path

import pytest

from tfmodernize.registry import builtin_codemods

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def generator():
    spec = importlib.util.spec_from_file_location("generate_pitfalls", REPO / "scripts" / "generate_pitfalls.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def page(generator) -> str:
    return generator.render()


def test_committed_page_is_up_to_date(page):
    committed = (REPO / "docs" / "pitfalls.md").read_text(encoding="utf-8")
    assert committed == page, "docs/pitfalls.md is stale: run python scripts/generate_pitfalls.py"


def test_check_mode_reports_a_stale_page(generator, tmp_path, monkeypatch):
    stale = tmp_path / "pitfalls.md"
    stale.write_text("# old\n", encoding="utf-8")
    monkeypatch.setattr(generator, "OUTPUT", stale)
    monkeypatch.setattr(generator, "REPO", tmp_path)
    assert generator.main(["--check"]) == 1
    assert generator.main([]) == 0
    assert generator.main(["--check"]) == 0


def test_every_codemod_has_an_entry_in_its_family(page):
    families = [page.index("## TFM1xx"), page.index("## TFM2xx"), page.index("## TFM3xx")]
    for codemod in builtin_codemods():
        heading = page.index(f"### {codemod.code} {codemod.name}\n")
        family = int(codemod.code[3]) - 1
        assert families[family] < heading
        assert family == 2 or heading < families[family + 1]


def test_entry_carries_the_docstring_and_fixture_folder(page):
    entry = page[page.index("### TFM209 variable-in-function") : page.index("### TFM210")]
    assert "[`fixtures/variable-in-function/`](../fixtures/variable-in-function/)" in entry
    for heading in ("**What it does**", "**Why it matters**", "**Before**", "**After**", "```python"):
        assert heading in entry
    assert "``" not in entry.replace("```", "")
    assert "Fixtures: ``" not in page


def test_findings_show_the_fix_to_make_by_hand(page):
    entry = page[page.index("### TFM303 numpy-in-function") : page.index("### TFM304")]
    assert "*(finding only)*" in entry and "**Instead**" in entry and "**After**" not in entry
