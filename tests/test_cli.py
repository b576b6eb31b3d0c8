"""The command line: every command, its output and its exit code."""

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from tfmodernize import __version__
from tfmodernize.cli import app
from tfmodernize.registry import builtin_codemods

OLD = "import tensorflow as tf\ntf.config.experimental_run_functions_eagerly(True)\n"
NEW = "import tensorflow as tf\ntf.config.run_functions_eagerly(True)\n"


@pytest.fixture
def runner(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the outcome cache goes to the working folder
    return CliRunner()


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "train.py").write_text(OLD)
    (tmp_path / "plain.py").write_text("x = 1\n")
    return tmp_path


def invoke(runner, *args):
    return runner.invoke(app, [str(a) for a in args])


def test_version(runner):
    result = invoke(runner, "--version")
    assert result.exit_code == 0 and result.stdout.strip() == f"tfmodernize {__version__}"


def test_module_entry_point_and_fast_start():
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "tfmodernize", "--version"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == f"tfmodernize {__version__}"
    imported = out.stderr
    assert "tensorflow" not in imported and " libcst" not in imported


def test_diff_shows_a_diff_and_changes_nothing(runner, tree):
    result = invoke(runner, "diff", tree)
    assert result.exit_code == 1
    assert "-tf.config.experimental_run_functions_eagerly(True)" in result.stdout
    assert "+tf.config.run_functions_eagerly(True)" in result.stdout
    assert "would change" in result.stderr and "TFM207" in result.stderr
    assert (tree / "train.py").read_text() == OLD


def test_diff_on_clean_tree_exits_zero(runner, tmp_path):
    (tmp_path / "ok.py").write_text(NEW)
    result = invoke(runner, "diff", tmp_path)
    assert result.exit_code == 0 and result.stdout == ""


def test_apply_rewrites_and_is_idempotent(runner, tree):
    result = invoke(runner, "apply", tree)
    assert result.exit_code == 0
    assert "fixed" in result.stdout and "TFM207 run-functions-eagerly x1" in result.stdout
    assert (tree / "train.py").read_text() == NEW
    assert (tree / "plain.py").read_text() == "x = 1\n"
    again = invoke(runner, "apply", tree)
    assert again.exit_code == 0 and "fixed" not in again.stdout
    assert invoke(runner, "diff", tree).exit_code == 0


def test_apply_reports_bad_files_and_goes_on(runner, tree):
    (tree / "broken.py").write_text("import tensorflow as tf\nprint 'x'\n")
    result = invoke(runner, "apply", tree)
    assert result.exit_code == 2
    assert "broken.py:2:1: not Python 3 syntax" in result.stderr
    assert (tree / "train.py").read_text() == NEW


def test_check_text(runner, tree):
    result = invoke(runner, "check", tree)
    assert result.exit_code == 1
    assert f"{tree / 'train.py'}:2:1: TFM207 [*]" in result.stdout
    assert (tree / "train.py").read_text() == OLD


def test_check_json(runner, tree):
    (tree / "broken.py").write_bytes(b"import tensorflow\n\xff\n")
    result = invoke(runner, "check", tree, "--format", "json")
    assert result.exit_code == 2
    report = json.loads(result.stdout)
    assert report["schema_version"] == 2 and report["tool"]["name"] == "tfmodernize"
    by_code = {r["code"]: r for r in report["diagnostics"]}
    fix = by_code["TFM207"]["fix"]
    assert by_code["TFM207"]["kind"] == "fix" and fix["applicability"] == "safe"
    assert fix["edits"] == [
        {
            "location": {"row": 2, "column": 1},
            "end_location": {"row": 3, "column": 1},
            "content": "tf.config.run_functions_eagerly(True)\n",
        }
    ]  # its own hunk, not the file's diff
    assert by_code["TFM000"]["kind"] == "error" and "cannot be decoded" in by_code["TFM000"]["message"]


def test_check_json_says_a_fix_left_as_a_finding_is_unsafe(runner, tmp_path):
    (tmp_path / "p.py").write_text("import tensorflow as tf\n\n@tf.function\ndef f(x):\n    print(x)\n    return x\n")
    report = json.loads(invoke(runner, "check", tmp_path / "p.py", "--format", "json", "--no-cache").stdout)
    unsafe = [d for d in report["diagnostics"] if d["fix"] and d["fix"]["applicability"] == "unsafe"]
    assert unsafe and unsafe[0]["code"] == "TFM206" and unsafe[0]["fix"]["edits"] == []


@pytest.mark.parametrize("fmt", ["github", "sarif"])
def test_check_ci_formats(runner, tree, fmt):
    result = invoke(runner, "check", tree, "--format", fmt)
    assert result.exit_code == 1
    if fmt == "github":
        assert result.stdout.startswith("::warning title=tfmodernize (TFM207 run-functions-eagerly),file=")
    else:
        sarif = json.loads(result.stdout)
        assert sarif["runs"][0]["results"][0]["ruleId"] == "TFM207"


def test_select_and_ignore(runner, tree):
    assert invoke(runner, "diff", tree, "--ignore", "TFM207").exit_code == 0
    assert invoke(runner, "diff", tree, "--select", "run-functions-eagerly").exit_code == 1
    assert invoke(runner, "diff", tree, "--select", "TFM2").exit_code == 1


def test_unknown_select_is_a_usage_error(runner, tree):
    result = invoke(runner, "diff", tree, "--select", "TFM999")
    assert result.exit_code == 2 and "unknown codemod 'TFM999'" in result.stderr


def test_missing_path_is_an_error_but_the_run_goes_on(runner, tree):
    result = invoke(runner, "apply", tree / "nope.py", tree)
    assert result.exit_code == 2 and "no such file" in result.stderr
    assert (tree / "train.py").read_text() == NEW


def test_pyproject_settings(runner, tree):
    (tree / "pyproject.toml").write_text('[tool.tfmodernize]\nignore = ["TFM207"]\n')
    assert invoke(runner, "diff", tree).exit_code == 0
    (tree / "pyproject.toml").write_text("[tool.tfmodernize]\nbogus = 1\n")
    result = invoke(runner, "diff", tree)
    assert result.exit_code == 2 and "unknown key `bogus`" in result.stderr


def test_list_shows_the_catalogue(runner):
    result = invoke(runner, "list")
    assert result.exit_code == 0
    for codemod in builtin_codemods():
        assert codemod.code in result.stdout


@pytest.mark.parametrize("key", ["TFM207", "tfm207", "run-functions-eagerly"])
def test_explain(runner, key):
    result = invoke(runner, "explain", key)
    assert result.exit_code == 0
    for heading in ("What it does", "Why it matters", "Before", "After"):
        assert heading in result.stdout
    assert "run_functions_eagerly" in result.stdout


def test_explain_every_codemod(runner):
    for codemod in builtin_codemods():
        result = invoke(runner, "explain", codemod.code)
        assert result.exit_code == 0, codemod.code
        assert codemod.summary.split()[0] in result.stdout


def test_explain_unknown(runner):
    result = invoke(runner, "explain", "TFM999")
    assert result.exit_code == 2 and "no codemod" in result.stderr


def test_cache_serves_a_second_run_and_follows_edits(runner, tree, monkeypatch):
    import tfmodernize.engine as engine

    first = invoke(runner, "check", tree)
    assert list((tree / ".tfmodernize_cache").rglob("*.json"))  # tree is the working folder

    def no_rewrite(*args, **kwargs):
        raise AssertionError("cache miss")

    monkeypatch.setattr(engine, "_rewrite", no_rewrite)
    second = invoke(runner, "check", tree, "--jobs", "1")
    assert second.exit_code == first.exit_code == 1
    assert second.stdout == first.stdout
    (tree / "train.py").write_text(OLD + "# edited\n")
    edited = invoke(runner, "check", tree, "--jobs", "1")
    # The edited file misses the cache (and the stub above fails it, inside that file only).
    assert edited.exit_code == 2 and "cache miss" in edited.stdout


def test_no_cache_writes_nothing(runner, tree, tmp_path):
    invoke(runner, "check", tree, "--no-cache")
    assert not list(tmp_path.rglob(".tfmodernize_cache"))


def test_review_suggestions_replace_exactly_the_changed_lines(runner, tmp_path):
    source = "import tensorflow as tf\n\nx = 1\ntf.config.experimental_run_functions_eagerly(True)\ny = 2\n"
    (tmp_path / "m.py").write_text(source)
    result = invoke(runner, "check", tmp_path / "m.py", "--format", "review")
    comments = json.loads(result.stdout)["comments"]
    assert comments == [
        {
            "path": (tmp_path / "m.py").as_posix(),
            "line": 4,
            "side": "RIGHT",
            "body": "tfmodernize: TFM207 run-functions-eagerly\n```suggestion\ntf.config.run_functions_eagerly(True)\n```",
        }
    ]


def test_review_anchors_insertions_on_an_existing_line(runner, tmp_path):
    source = (
        "from tensorflow.config import experimental_run_functions_eagerly\nexperimental_run_functions_eagerly(True)\n"
    )
    (tmp_path / "m.py").write_text(source)
    result = invoke(runner, "check", tmp_path / "m.py", "--format", "rdjson")
    fixes = [d for d in json.loads(result.stdout)["diagnostics"] if "suggestions" in d]
    old_lines = source.splitlines(keepends=True)

    def offset(position):  # reviewdog's 1-based line and column -> an index into the source
        return sum(len(line) for line in old_lines[: position["line"] - 1]) + position["column"] - 1

    rebuilt = source
    for fix in reversed(fixes):
        suggestion = fix["suggestions"][0]
        assert suggestion["range"] == fix["location"]["range"]  # reviewdog's GitHub reporter requires it
        assert suggestion["range"]["end"]["line"] <= len(old_lines)
        assert len(fix["code"]["value"].split(",")) == 1
        start, end = offset(suggestion["range"]["start"]), offset(suggestion["range"]["end"])
        rebuilt = rebuilt[:start] + suggestion["text"] + rebuilt[end:]
    assert rebuilt == "import tensorflow as tf\n\ntf.config.run_functions_eagerly(True)\n"


def test_user_text_is_never_rich_markup(runner, tmp_path):
    """Paths, messages and code go out as written: no emoji codes, no markup."""
    folder = tmp_path / "x[bold]"
    folder.mkdir()
    lines = ["import tensorflow as tf"] + ["y = 1"] * 98 + ["s = tf.Session()  # :100: [red]not markup[/red]"]
    (folder / "m[bold].py").write_text("\n".join(lines) + "\n")
    result = invoke(runner, "check", "--no-cache", folder)
    output = result.stdout + (result.stderr if result.stderr_bytes is not None else "")
    assert "x[bold]/m[bold].py:" in output
    assert "\N{HUNDRED POINTS SYMBOL}" not in output


def test_help_shows_the_config_table_name(runner):
    result = invoke(runner, "check", "--help")
    assert "[tool.tfmodernize]" in result.stdout


def test_short_version_flag(runner):
    result = invoke(runner, "-V")
    assert result.exit_code == 0 and result.stdout.strip() == f"tfmodernize {__version__}"


def test_check_exit_zero_reports_but_passes(runner, tree):
    reported = invoke(runner, "check", tree / "train.py", "--no-cache")
    passed = invoke(runner, "check", tree / "train.py", "--no-cache", "--exit-zero")
    assert reported.exit_code == 1 and passed.exit_code == 0
    assert "TFM207" in passed.stdout


def test_check_exit_zero_still_fails_on_errors(runner, tmp_path):
    (tmp_path / "broken.py").write_text("import tensorflow as tf\ndef f(:\n")
    assert invoke(runner, "check", tmp_path / "broken.py", "--no-cache", "--exit-zero").exit_code == 2


@pytest.mark.parametrize("output_format", ["text", "sarif", "json"])
def test_check_writes_the_report_to_a_file(runner, tree, tmp_path, output_format):
    report = tmp_path / "out" / f"report.{output_format}"
    report.parent.mkdir()
    result = invoke(
        runner, "check", tree / "train.py", "--no-cache", "--format", output_format, "--output-file", report
    )
    assert result.exit_code == 1 and "TFM207" not in result.stdout
    written = report.read_text()
    assert "TFM207" in written
    if output_format != "text":
        json.loads(written)  # a whole document, not a stream


def test_check_output_file_that_cannot_be_written_is_a_usage_error(runner, tree, tmp_path):
    result = invoke(runner, "check", tree / "train.py", "--no-cache", "--output-file", tmp_path / "missing" / "r.txt")
    assert result.exit_code == 2 and "cannot write the report" in result.output


def test_cache_folder_says_what_it_is(runner, tree):
    invoke(runner, "check", tree / "train.py")
    folder = tree / ".tfmodernize_cache"
    assert (folder / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (folder / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")


def test_github_annotations_escape_file_names_with_commas_and_colons(runner, tmp_path):
    odd = tmp_path / "a,b:c.py"
    odd.write_text(OLD)
    result = invoke(runner, "check", odd, "--format", "github", "--no-cache")
    line = result.stdout.strip().splitlines()[0]
    assert "file=" in line and "a%2Cb%3Ac.py,line=2," in line  # the runner would otherwise split the properties there


def test_sarif_rules_carry_help_full_description_and_column_kind(runner, tree):
    sarif = json.loads(invoke(runner, "check", tree, "--format", "sarif", "--no-cache").stdout)
    run = sarif["runs"][0]
    assert run["columnKind"] == "unicodeCodePoints"
    rule = next(r for r in run["tool"]["driver"]["rules"] if r["id"] == "TFM207")
    assert rule["fullDescription"]["text"].startswith("Renames")
    assert "Why it matters" in rule["help"]["text"] and "**Before**" in rule["help"]["markdown"]
    assert all(r.get("help") and r.get("fullDescription") for r in run["tool"]["driver"]["rules"])


def test_force_exclude_applies_exclude_to_files_named_on_the_command_line(runner, tmp_path):
    (tmp_path / "vendor").mkdir()
    named = tmp_path / "vendor" / "v.py"
    named.write_text(OLD)
    assert invoke(runner, "check", "vendor/v.py", "--exclude", "vendor/*", "--no-cache").exit_code == 1  # named: taken
    result = invoke(runner, "check", "vendor/v.py", "--exclude", "vendor/*", "--force-exclude", "--no-cache")
    assert result.exit_code == 0 and "TFM207" not in result.stdout


def test_check_reads_standard_input_under_the_given_name(runner):
    result = runner.invoke(app, ["check", "-", "--stdin-filename", "src/model.py", "--no-cache"], input=OLD)
    assert result.exit_code == 1 and result.stdout.startswith("src/model.py:2:1: TFM207")


def test_apply_from_standard_input_writes_the_result_to_standard_output(runner, tmp_path):
    result = runner.invoke(app, ["apply", "-", "--no-cache"], input=OLD)
    assert result.exit_code == 0 and result.stdout == NEW
    assert not list(tmp_path.glob("*.py"))  # nothing written beside it
    untouched = runner.invoke(app, ["apply", "-", "--no-cache"], input="x = 1\n")
    assert untouched.exit_code == 0 and untouched.stdout == "x = 1\n"


def test_apply_fix_only_fixes_without_failing_on_what_it_cannot_fix(runner, tmp_path):
    source = (
        "import tensorflow as tf\ntf.config.experimental_run_functions_eagerly(False)\n\n\n"
        "@tf.function\ndef f(x):\n    print(x)\n    return x\n"
    )  # the print's fix is unsafe: a finding remains
    (tmp_path / "m.py").write_text(source)
    (tmp_path / "n.py").write_text(source)
    assert invoke(runner, "apply", tmp_path / "m.py", "--no-cache").exit_code == 1  # findings remain
    result = invoke(runner, "apply", tmp_path / "n.py", "--no-cache", "--fix-only")
    assert result.exit_code == 0 and "fixed" in result.stdout and "TFM206" not in result.stdout
    assert "tf.config.run_functions_eagerly(False)" in (tmp_path / "n.py").read_text()
