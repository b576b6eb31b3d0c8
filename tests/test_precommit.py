"""The pre-commit hooks of .pre-commit-hooks.yaml, run by pre-commit itself (``try-repo``) on a
fresh git repository: files are passed by name, ``exclude`` still applies (--force-exclude)."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
OLD = "import tensorflow as tf\ntf.config.experimental_run_functions_eagerly(True)\n"
NEW = "import tensorflow as tf\ntf.config.run_functions_eagerly(True)\n"
NOTEBOOK = (
    json.dumps(
        {
            "nbformat": 4,
            "nbformat_minor": 5,
            "metadata": {},
            "cells": [
                {"cell_type": "code", "id": "c1", "metadata": {}, "execution_count": None, "outputs": [], "source": OLD}
            ],
        },
        indent=1,
    )
    + "\n"
)
PRE_COMMIT = Path(sys.executable).with_name("pre-commit")

pytestmark = pytest.mark.skipif(
    not PRE_COMMIT.exists() or shutil.which("git") is None, reason="needs pre-commit (the dev extra) and git"
)


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory):
    return tmp_path_factory.mktemp("pre-commit-home")  # one hook environment for the module


def project(folder: Path) -> Path:
    (folder / "vendor").mkdir(parents=True)
    (folder / "train.py").write_text(OLD)
    (folder / "vendor" / "copied.py").write_text(OLD)
    (folder / "explore.ipynb").write_text(NOTEBOOK)
    (folder / "pyproject.toml").write_text('[tool.tfmodernize]\nexclude = ["vendor/*"]\n')
    git = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], cwd=folder, check=True)
    subprocess.run([*git, "add", "-A"], cwd=folder, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "tf1 code"], cwd=folder, check=True)
    return folder


def try_repo(folder: Path, hook: str, home: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PRE_COMMIT_HOME=str(home), PIP_DISABLE_PIP_VERSION_CHECK="1")
    return subprocess.run(
        [str(PRE_COMMIT), "try-repo", str(REPO), hook, "--all-files"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_check_hook_reports_named_files_and_honours_exclude(tmp_path, pre_commit_home):
    folder = project(tmp_path / "repo")
    result = try_repo(folder, "tfmodernize-check", pre_commit_home)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "train.py:2:1: TFM207" in result.stdout and "copied.py" not in result.stdout
    assert "explore.ipynb:cell 1:2:1: TFM207" in result.stdout  # notebooks are passed too (types_or: jupyter)


def test_apply_hook_rewrites_and_stops_the_commit(tmp_path, pre_commit_home):
    folder = project(tmp_path / "repo")
    result = try_repo(folder, "tfmodernize-apply", pre_commit_home)
    assert result.returncode == 1 and "files were modified by this hook" in result.stdout, result.stdout
    assert (folder / "train.py").read_text() == NEW
    assert (folder / "vendor" / "copied.py").read_text() == OLD
    cell = json.loads((folder / "explore.ipynb").read_text())["cells"][0]
    assert "".join(cell["source"]) == NEW and cell["id"] == "c1"
