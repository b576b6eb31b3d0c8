"""Every machine-readable format validates against the schema its consumer publishes
(copies in ``tests/schemas/``, see its README), on a run that has fixes, multi-hunk migrations,
findings, unsafe fixes and awkward file names."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from tfmodernize.cli import app

REPO = Path(__file__).resolve().parents[1]
SCHEMAS = REPO / "tests" / "schemas"


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    tree = tmp_path_factory.mktemp("tree")
    for example in (REPO / "examples").glob("*.py"):
        shutil.copy(example, tree / example.name)
    (tree / "odd, name: v1.py").write_text(
        "import tensorflow as tf\ntf.config.experimental_run_functions_eagerly(True)\n"
    )
    runner = CliRunner()
    out = {}
    for fmt in ("json", "sarif", "rdjson", "review"):
        result = runner.invoke(app, ["check", str(tree), "--format", fmt, "--no-cache"])
        assert result.exit_code == 1, result.output
        out[fmt] = json.loads(result.stdout)
    return out


def _schema(name):
    return json.loads((SCHEMAS / name).read_text())


def _validate(instance, schema):
    validator = jsonschema.validators.validator_for(schema)(schema, format_checker=jsonschema.FormatChecker())
    errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:10])


def test_sarif_validates_against_sarif_2_1_0(reports):
    sarif = reports["sarif"]
    assert sarif["runs"][0]["results"], "the run must report something to validate"
    _validate(sarif, _schema("sarif-schema-2.1.0.json"))


def test_rdjson_validates_against_reviewdogs_diagnostic_result(reports):
    rdjson = reports["rdjson"]
    assert any(d.get("suggestions") for d in rdjson["diagnostics"])
    _validate(rdjson, _schema("rdjson-DiagnosticResult.json"))


def test_review_body_validates_against_githubs_create_review_request(reports):
    schema = _schema("github-pulls-create-review-request.json")
    review = reports["review"]
    assert any("start_line" in c for c in review["comments"]), "a multi-line suggestion must be covered"
    _validate(review, schema)
    # The published schema allows unknown keys; GitHub ignores them silently, so a misspelt key
    # would drop a suggestion's range without an error. Only published keys are sent.
    assert set(review) <= set(schema["properties"])
    allowed = set(schema["properties"]["comments"]["items"]["properties"])
    assert all(set(comment) <= allowed for comment in review["comments"])


def test_what_the_poster_sends_after_the_split_still_validates(reports):
    from tfmodernize import github

    review = reports["review"]
    path = review["comments"][0]["path"]
    patch = "@@ -1,1 +1,400 @@\n" + "".join(f"+line {i}\n" for i in range(400))
    split = github.split_review(review, [{"filename": path, "patch": patch}])
    assert split["comments"] and all(c["path"] == path for c in split["comments"])
    assert len(split["comments"]) < len(review["comments"])  # the other files' went to the summary
    _validate(split, _schema("github-pulls-create-review-request.json"))


def test_json_report_has_a_schema_version_and_per_fix_edits(reports):
    report = reports["json"]
    assert report["schema_version"] == 2
    fixes = [d["fix"] for d in report["diagnostics"] if d.get("fix")]
    assert fixes and all({"applicability", "edits"} <= set(fix) for fix in fixes)


@pytest.mark.parametrize(
    "document, schema",
    [("action.yml", "vendor.github-actions"), ("docs/github-workflow.yml", "vendor.github-workflows")],
)
def test_action_and_workflow_validate_against_schemastore(document, schema):
    result = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, str(REPO / document)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
