"""Notebooks: code cells rewritten as one module (IPython lines masked and restored), written
back through nbformat with everything but the changed sources untouched, reported per cell, and
the migrated notebook prints the original's numbers."""

import json
import shutil
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
from typer.testing import CliRunner

from tfmodernize.cli import app
from tfmodernize.notebooks import NotebookError, cell_sources, script, to_module
from tfmodernize.verify.command import missing_requirements

CASE = Path(__file__).parent / "notebooks" / "linear_tf1"


def _notebook(*sources, markdown_first=True) -> bytes:
    cells = [new_markdown_cell("# notes")] if markdown_first else []
    cells += [new_code_cell(source) for source in sources]
    return nbformat.writes(new_notebook(cells=cells)).encode()


@pytest.fixture
def runner(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return CliRunner()


@pytest.mark.parametrize(
    "source, masked",
    [
        ("%matplotlib inline\nx = 1", ["%matplotlib inline"]),
        ("!pip install numpy\nx = 1", ["!pip install numpy"]),
        ("files = !ls\nx = 1", ["files = !ls"]),
        ("x = %time f()\n", ["x = %time f()"]),
        ("tf.nn?\n", ["tf.nn?"]),
        ("?tf.nn\n", ["?tf.nn"]),
        ("if True:\n    %time f()\n", ["%time f()"]),
        ("%%time\nfor i in range(3):\n    pass\n", ["%%time"]),
        # Python that looks like IPython is left alone: no-op rows.
        ("x = a % b\n", []),
        ("y = not_(x)  # really?\n", []),
        ("s = '%d' % 3\n", []),
        ("z = x != y\n", []),
    ],
)
def test_ipython_lines_are_masked_and_restored(source, masked):
    module, layout = to_module(_notebook(source))
    assert list(layout.masked) == masked
    compile(module, "nb", "exec")  # what the codemods see is Python
    assert cell_sources(module, layout) == {2: source if source.endswith("\n") else source + "\n"}


def test_non_python_cell_magics_stay_out_of_the_module():
    module, layout = to_module(_notebook("%%bash\necho hi", "x = 1", "%%writefile a.txt\nhello"))
    assert layout.cells == (2,) and "echo" not in module and "hello" not in module


def test_findings_and_errors_name_the_cell_and_its_line(runner, tmp_path):
    (tmp_path / "nb.ipynb").write_bytes(_notebook("import tensorflow as tf", "x = 1\ny = tf.log(x)"))
    result = runner.invoke(app, ["check", "nb.ipynb", "--no-cache"])
    assert "nb.ipynb:cell 3:2:5: TFM109 [*]" in result.stdout
    report = json.loads(runner.invoke(app, ["check", "nb.ipynb", "--format", "json", "--no-cache"]).stdout)
    assert [(d["cell"], d["line"]) for d in report["diagnostics"]] == [(3, 2)]
    (tmp_path / "bad.ipynb").write_bytes(_notebook("import tensorflow as tf", "x = (1,"))
    result = runner.invoke(app, ["check", "bad.ipynb", "nb.ipynb", "--no-cache"])
    assert result.exit_code == 2 and "bad.ipynb:cell 3:1:" in result.stdout and "nb.ipynb:cell 3:2:5" in result.stdout


def test_a_file_that_is_not_a_notebook_is_an_error_and_the_run_goes_on(runner, tmp_path):
    (tmp_path / "broken.ipynb").write_text("{not json")
    (tmp_path / "train.py").write_text("import tensorflow as tf\ny = tf.log(2.0)\n")
    result = runner.invoke(app, ["apply", ".", "--no-cache"])
    assert result.exit_code == 2 and "broken.ipynb: not a readable notebook" in result.stderr
    assert "tf.math.log" in (tmp_path / "train.py").read_text()


def test_folders_yield_notebooks_but_not_their_checkpoints(runner, tmp_path):
    (tmp_path / ".ipynb_checkpoints").mkdir()
    data = _notebook("import tensorflow as tf\ny = tf.log(2.0)")
    (tmp_path / ".ipynb_checkpoints" / "nb-checkpoint.ipynb").write_bytes(data)
    (tmp_path / "nb.ipynb").write_bytes(data)
    result = runner.invoke(app, ["diff", ".", "--no-cache"])
    assert "--- a/nb.ipynb:cell 2" in result.stdout and "+y = tf.math.log(2.0)" in result.stdout
    assert "checkpoint" not in result.stdout


def test_code_moved_across_cells_cannot_be_split_back():
    module, layout = to_module(_notebook("a = 1", "b = 2", "c = 3"))
    with pytest.raises(NotebookError, match="across notebook cells"):
        cell_sources(module.replace("'tfmodernize: cell 3'\n", ""), layout)
    reordered = (
        module.replace("'tfmodernize: cell 3'", "'tfmodernize: cell X'")
        .replace("'tfmodernize: cell 4'", "'tfmodernize: cell 3'")
        .replace("'tfmodernize: cell X'", "'tfmodernize: cell 4'")
    )
    with pytest.raises(NotebookError):
        cell_sources(reordered, layout)


def test_the_tf1_notebook_migrates_to_the_golden_notebook(runner, tmp_path):
    shutil.copy(CASE / "before.ipynb", tmp_path / "nb.ipynb")
    result = runner.invoke(app, ["apply", "nb.ipynb", "--no-cache"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "nb.ipynb").read_text() == (CASE / "after.ipynb").read_text()
    again = runner.invoke(app, ["diff", "nb.ipynb", "--no-cache"])
    assert again.exit_code == 0 and again.stdout == ""


def test_only_changed_code_sources_differ():
    before = json.loads((CASE / "before.ipynb").read_text())
    after = json.loads((CASE / "after.ipynb").read_text())
    assert {k: v for k, v in before.items() if k != "cells"} == {k: v for k, v in after.items() if k != "cells"}
    changed = []
    for number, (old, new) in enumerate(zip(before["cells"], after["cells"], strict=True), start=1):
        assert {k: v for k, v in old.items() if k != "source"} == {k: v for k, v in new.items() if k != "source"}
        if old["source"] != new["source"]:
            changed.append(number)
    assert changed == [2, 4, 6, 7, 8]
    new_sources = ["".join(c["source"]) for c in after["cells"]]
    assert new_sources[1].startswith("%matplotlib inline\n") and new_sources[6].startswith("%%time\n")
    assert new_sources[2].startswith("!echo making the data") and new_sources[8].startswith("%%bash")
    assert "Session" not in script((CASE / "after.ipynb").read_bytes())


@pytest.mark.skipif(bool(missing_requirements()), reason="needs the verify extra")
def test_the_migrated_notebook_prints_the_same_numbers(runner):
    result = runner.invoke(
        app, ["verify", str(CASE / "before.ipynb"), str(CASE / "after.ipynb"), "--stdout", "--old-mode", "tf1"]
    )
    assert result.exit_code == 0, result.output
    assert "8 numbers printed, equal in order" in result.output


def test_a_cell_whose_code_the_migration_removed_stays_in_place_empty(runner, tmp_path):
    # The cell markers are statements of their own, not comments on a cell's first statement:
    # a session cell the migration removes leaves its cell empty, the next cells where they were.
    data = _notebook(
        "import tensorflow as tf", "sess = tf.Session()", "x = tf.constant(2.0)", "print(sess.run(x * 3.0))"
    )
    (tmp_path / "nb.ipynb").write_bytes(data)
    result = runner.invoke(app, ["apply", str(tmp_path / "nb.ipynb"), "--no-cache"])
    assert result.exit_code in (0, 1), result.stdout
    cells = [c for c in json.loads((tmp_path / "nb.ipynb").read_text())["cells"] if c["cell_type"] == "code"]
    sources = ["".join(c["source"]) if isinstance(c["source"], list) else c["source"] for c in cells]
    assert sources == ["import tensorflow as tf", "", "x = tf.constant(2.0)", "print((x * 3.0).numpy())"]
