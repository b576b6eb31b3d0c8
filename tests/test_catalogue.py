"""The codemod contract, checked on every registered codemod and on bad examples."""

import re
from pathlib import Path

import libcst as cst
import pytest

import tfmodernize.codemods
from tfmodernize.codemod import Safety, TFCodemod
from tfmodernize.registry import (
    DOC_SECTIONS,
    FAMILIES,
    RegistryError,
    builtin_codemods,
    contract_problems,
    doc_sections,
    select_codemods,
)

CATALOGUE = builtin_codemods()


def test_catalogue_is_in_code_order_and_unique():
    codes = [c.code for c in CATALOGUE]
    moved = [c for c in CATALOGUE if c.runs_before]
    for codemod in moved:  # ahead of what it prepares, the rest in code order
        assert all(codes.index(codemod.code) < codes.index(later) for later in codemod.runs_before if later in codes)
    rest = [code for code in codes if code not in {c.code for c in moved}]
    assert rest == sorted(rest) and len(set(codes)) == len(codes)
    assert len({c.name for c in CATALOGUE}) == len(CATALOGUE)


@pytest.mark.parametrize("codemod", CATALOGUE, ids=lambda c: c.code)
def test_codemod_honours_the_contract(codemod):
    assert contract_problems(codemod) == []
    sections = doc_sections(codemod)
    assert list(sections) == list(DOC_SECTIONS)
    assert all(sections[s].strip() for s in DOC_SECTIONS)
    assert isinstance(codemod.safety, Safety)
    assert all(isinstance(kind, type) and issubclass(kind, cst.CSTNode) for kind in codemod.interests)


def test_contract_problems_are_named():
    class Sloppy(TFCodemod):
        """Does things."""

        code = "X1"
        name = "Sloppy_Name"
        summary = "sloppy"

    problems = " ".join(contract_problems(Sloppy))
    assert "not TFM1xx" in problems and "not kebab-case" in problems and "What it does" in problems


def test_selection_by_family_prefix_and_name():
    everything = select_codemods()
    assert everything == CATALOGUE
    assert all(c.code.startswith("TFM2") for c in select_codemods(["TFM2"]))
    assert select_codemods(["run-functions-eagerly"])[0].code == "TFM207"
    assert all(c.code != "TFM207" for c in select_codemods(ignore=["TFM207"]))
    with pytest.raises(KeyError):
        select_codemods(["no-such-codemod"])


def test_text_after_the_last_part_belongs_to_no_part():
    class Documented(TFCodemod):
        """What it does
            Renames.
        Why it matters
            Because.
        Before
            old()
        After
            new()

        Fixtures: ``fixtures/documented/``.
        """

    assert doc_sections(Documented)["After"] == "    new()"


DOC = "What it does\n    x\nWhy it matters\n    x\nBefore\n    x\nAfter\n    x\nFix safety\n    x\nDeclines when\n    x"


def plugin(code: str, name: str) -> type:
    return type(
        "Plugin",
        (TFCodemod,),
        {"__doc__": DOC, "code": code, "name": name, "summary": "a plugin", "__module__": "acme_rules"},
    )


def builtin(code: str, module: str) -> type:
    return type(
        "Builtin",
        (TFCodemod,),
        {"__doc__": DOC, "code": code, "name": "a-rule", "summary": "a rule", "__module__": module},
    )


@pytest.mark.parametrize(
    ("code", "module", "folder"),
    [
        ("TFM120", "tfmodernize.codemods.tf2.a_rule", "migrate"),
        ("TFM220", "tfmodernize.codemods.migrate.a_rule", "tf2"),
        ("TFM320", "tfmodernize.codemods.tf2.a_rule.model", "report"),
        ("TFM220", "tfmodernize.codemods.a_rule", "tf2"),
        ("TFM220", "tfmodernize.codemods.tf2x.a_rule", "tf2"),
    ],
    ids=[
        "migration-in-tf2",
        "fix-in-migrate",
        "finding-in-a-tf2-package",
        "outside-the-families",
        "folder-name-prefix",
    ],
)
def test_a_builtin_codemod_lives_in_the_folder_of_its_code_s_family(code, module, folder):
    assert contract_problems(builtin(code, module)) == [
        f"{module}.Builtin: a {code[:4]}xx codemod belongs in tfmodernize/codemods/{folder}/"
    ]


@pytest.mark.parametrize(
    ("code", "module"),
    [
        ("TFM120", "tfmodernize.codemods.migrate.a_rule"),
        ("TFM220", "tfmodernize.codemods.tf2.a_rule"),
        ("TFM320", "tfmodernize.codemods.report.a_rule.model"),
    ],
)
def test_a_builtin_codemod_in_its_family_folder_is_fine(code, module):
    assert contract_problems(builtin(code, module)) == []


def test_the_catalogue_is_every_module_of_the_family_folders():
    root = Path(tfmodernize.codemods.__file__).parent
    assert sorted(p.name for p in root.iterdir() if p.name != "__pycache__") == [
        "__init__.py",
        "migrate",
        "report",
        "tf2",
    ]
    modules = {
        f"tfmodernize.codemods.{family.name}.{p.stem}"
        for family in root.iterdir()
        if family.is_dir() and family.name != "__pycache__"
        for p in family.iterdir()
        if not p.name.startswith("_")
    }
    assert {c.__module__ for c in CATALOGUE} == modules
    assert all(c.__module__.split(".")[2] == FAMILIES[c.code[:4]] for c in CATALOGUE)


@pytest.fixture
def plugins(monkeypatch):
    """Install ``found`` as the entry-point codemods, with a fresh registry around the test."""
    import tfmodernize.registry as registry

    def install(*found):
        monkeypatch.setattr(registry, "_entry_point_codemods", lambda: list(found))
        builtin_codemods.cache_clear()

    yield install
    builtin_codemods.cache_clear()


def test_plugins_have_their_own_code_space_and_run_after_the_catalogue(plugins):
    plugins(plugin("ACME101", "acme-rule"), plugin("TFMX201", "tfmx-rule"))
    codes = [c.code for c in builtin_codemods()]
    assert codes[-2:] == ["ACME101", "TFMX201"] and codes[0] == CATALOGUE[0].code
    assert [c.code for c in select_codemods(["ACME"])] == ["ACME101"]


@pytest.mark.parametrize(
    ("code", "name", "error"),
    [
        ("TFM299", "my-rule", "is not a plugin code"),
        ("acme1", "my-rule", "is not a plugin code"),
        (
            "ACME101",
            "run-functions-eagerly",
            "clashes with tfmodernize.codemods.tf2.run_functions_eagerly.RunFunctionsEagerly",
        ),
    ],
    ids=["tfm-code-taken-by-a-plugin", "malformed-code", "name-clash"],
)
def test_a_plugin_breaking_the_rules_is_a_clear_error(plugins, code, name, error):
    plugins(plugin(code, name))
    with pytest.raises(RegistryError, match=re.escape(error)):
        builtin_codemods()


def test_two_plugins_claiming_one_code_are_named_both(plugins):
    plugins(
        plugin("ACME101", "one"),
        type(
            "Other",
            (TFCodemod,),
            {"__doc__": DOC, "code": "ACME101", "name": "two", "summary": "s", "__module__": "other_rules"},
        ),
    )
    with pytest.raises(RegistryError, match=r"'ACME101' of other_rules.Other clashes with acme_rules.Plugin"):
        builtin_codemods()
