"""Fixture discovery and the ``case.toml`` schema (tfmodernize/verify/fixtures.py). No TensorFlow."""

from __future__ import annotations

from pathlib import Path

import pytest

from tfmodernize.verify.fixtures import CaseConfig, FixtureCase, FixtureError, discover


def _case(root: Path, codemod: str, name: str, toml: str | None = None, files=("before.py", "after.py")) -> Path:
    folder = root / codemod / name
    folder.mkdir(parents=True)
    for file in files:
        (folder / file).write_text("import tensorflow as tf\n")
    if toml is not None:
        (folder / "case.toml").write_text(toml)
    return folder


def test_defaults_without_case_toml() -> None:
    config = CaseConfig()
    assert (config.rtol, config.atol, config.random, config.timeout) == (1e-5, 1e-6, "num_random_ops", 120.0)
    assert config.compare is None and config.before_mode is None and config.expected_difference == ()


def test_every_key_parses() -> None:
    config = CaseConfig.parse(
        """
        note = "what this case shows"
        codemods = ["TFM101", "TFM109"]
        compare = ["loss", "w"]
        rtol = 1e-4
        atol = 0
        before_mode = "tf1"
        random = "constant"
        timeout = 30
        [expected_difference]
        names = ["grad"]
        reason = "before the fix the gradient is None"
        """
    )
    assert config == CaseConfig(
        note="what this case shows",
        codemods=("TFM101", "TFM109"),
        compare=("loss", "w"),
        rtol=1e-4,
        atol=0.0,
        before_mode="tf1",
        random="constant",
        timeout=30.0,
        expected_difference=("grad",),
        expected_reason="before the fix the gradient is None",
    )


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("rtols = 1e-3", "unknown key(s) rtols"),
        ("rtol = 'big'", "`rtol` has the wrong type"),
        ("timeout = 0", "`timeout` must be positive"),
        ("atol = -1.0", "`atol` must not be negative"),
        ("before_mode = 'tf3'", "`before_mode` must be one of 'tf1', 'tf2'"),
        ("random = 'seeded'", "`random` must be one of"),
        ("compare = 'loss'", "`compare` must be a list of names"),
        ("compare = []", "`compare` is empty"),
        ("codemods = [1]", "`codemods` must be a list of names"),
        ("[expected_difference]\nnames = ['g']", "needs non-empty `names` and a `reason`"),
        ("[expected_difference]\nreason = 'x'", "[expected_difference] takes"),
        ("note = ", "not valid TOML"),
    ],
    ids=lambda value: value if len(value) < 30 else None,
)
def test_bad_case_toml_is_a_clear_error(text, fragment) -> None:
    with pytest.raises(FixtureError) as error:
        CaseConfig.parse(text)
    assert fragment in str(error.value)


def test_discover_finds_cases_in_order_and_skips_private_folders(tmp_path) -> None:
    _case(tmp_path, "run-functions-eagerly", "b_case")
    _case(tmp_path, "run-functions-eagerly", "a_case", 'note = "x"')
    _case(tmp_path, "_drafts", "c_case")
    cases = discover(tmp_path)
    assert [case.id for case in cases] == ["run-functions-eagerly/a_case", "run-functions-eagerly/b_case"]
    assert cases[0].config.note == "x" and cases[0].problem is None


def test_discover_of_a_missing_folder_is_empty(tmp_path) -> None:
    assert discover(tmp_path / "nope") == []


def test_broken_cases_are_discovered_with_their_problem(tmp_path) -> None:
    _case(tmp_path, "run-functions-eagerly", "no_after", files=("before.py",))
    _case(tmp_path, "run-functions-eagerly", "bad_toml", "colour = 1")
    no_after, bad_toml = sorted(discover(tmp_path), key=lambda case: case.path.name, reverse=True)
    assert "missing after.py" in no_after.problem
    assert bad_toml.problem.startswith(f"{bad_toml.path}: case.toml: unknown key(s) colour")
    with pytest.raises(FixtureError, match="unknown key"):
        bad_toml.pair()


def test_unknown_codemod_folder_fails_with_a_clear_message(tmp_path) -> None:
    case = FixtureCase.load(_case(tmp_path, "not-written-yet", "first"))
    with pytest.raises(FixtureError) as error:
        case.pipeline()
    assert "no codemod 'not-written-yet' in the registry (named by the fixture folder name)" in str(error.value)


def test_unknown_codemod_in_case_toml_is_named(tmp_path) -> None:
    case = FixtureCase.load(_case(tmp_path, "run-functions-eagerly", "c", 'codemods = ["TFM207", "TFM999"]'))
    with pytest.raises(FixtureError, match=r"no codemod 'TFM999' in the registry \(named by `codemods` of case.toml\)"):
        case.pipeline()


def test_a_broken_registry_fails_the_case_not_the_session(tmp_path, monkeypatch) -> None:
    import tfmodernize.registry as registry

    def broken(key):
        raise registry.RegistryError("Broken lacks `code`")

    monkeypatch.setattr(registry, "find_codemod", broken)
    case = FixtureCase.load(_case(tmp_path, "run-functions-eagerly", "c"))
    with pytest.raises(FixtureError, match="the codemod registry is broken: Broken lacks `code`"):
        case.pair()


@pytest.mark.parametrize(
    ("codemod", "toml", "mode"),
    [
        ("run-functions-eagerly", None, "tf2"),
        ("run-functions-eagerly", 'before_mode = "tf1"', "tf1"),
        ("not-written-yet", 'before_mode = "tf2"', "tf2"),
    ],
)
def test_before_mode(tmp_path, codemod, toml, mode) -> None:
    case = FixtureCase.load(_case(tmp_path, codemod, "c", toml))
    assert case.before_mode() == mode


def test_pipeline_runs_in_catalogue_order(tmp_path) -> None:
    case = FixtureCase.load(
        _case(tmp_path, "run-functions-eagerly", "c", 'codemods = ["run-functions-eagerly", "TFM207"]')
    )
    assert [codemod.code for codemod in case.pipeline()] == ["TFM207"]


def test_pair_carries_the_case_settings(tmp_path) -> None:
    toml = 'compare = ["w"]\nrtol = 0.1\nrandom = "constant"\ntimeout = 5\n[expected_difference]\nnames = ["g"]\nreason = "r"'
    case = FixtureCase.load(_case(tmp_path, "run-functions-eagerly", "c", toml))
    pair = case.pair()
    assert (pair.before.mode, pair.after.mode) == ("tf2", "tf2")
    assert (pair.before.random, pair.after.timeout) == ("constant", 5.0)
    assert (list(pair.compare), pair.rtol, list(pair.expected_difference), pair.reason) == (["w"], 0.1, ["g"], "r")
