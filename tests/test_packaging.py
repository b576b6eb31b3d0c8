"""The installed layout: everything ships as the ``tfmodernize`` package, found by setuptools'
package discovery (``[tool.setuptools.packages.find]``), so a package folder needs only its
``__init__.py``; a user's own ``codemods/`` folder cannot shadow the catalogue."""

import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "tfmodernize"


def _package_folders() -> set[str]:
    """Every folder of ``tfmodernize/`` holding Python modules, as a dotted package name."""
    folders = {p.parent for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts}
    return {".".join(folder.relative_to(ROOT).parts) for folder in folders}


def test_discovery_is_configured_without_a_hand_kept_list():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "package-dir" not in config
    assert config["packages"] == {"find": {"include": ["tfmodernize*"], "namespaces": False}}


def test_every_package_folder_has_an_init_and_is_discovered():
    setuptools = pytest.importorskip("setuptools")
    folders = _package_folders()
    assert {
        "tfmodernize.codemods.migrate",
        "tfmodernize.codemods.tf2",
        "tfmodernize.codemods.report",
        "tfmodernize.analysis",
    } <= folders
    assert sorted(f for f in folders if not (ROOT.joinpath(*f.split(".")) / "__init__.py").is_file()) == []
    assert set(setuptools.find_packages(str(ROOT), include=["tfmodernize*"])) == folders


def test_a_built_wheel_holds_every_module_and_data_file(tmp_path):
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(PACKAGE, source / "tfmodernize", ignore=shutil.ignore_patterns("__pycache__"))
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path / "dist"), str(source)],
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = (tmp_path / "dist").glob("tfmodernize-*.whl")
    shipped = {name for name in zipfile.ZipFile(wheel).namelist() if not name.startswith("tfmodernize-")}
    expected = {
        p.relative_to(ROOT).as_posix()
        for p in PACKAGE.rglob("*")
        if p.is_file() and (p.suffix == ".py" or p.parent.name == "data") and "__pycache__" not in p.parts
    }
    assert shipped == expected


def test_a_users_own_codemods_folder_does_not_shadow_the_catalogue(tmp_path):
    (tmp_path / "codemods").mkdir()
    (tmp_path / "codemods" / "__init__.py").write_text("raise RuntimeError('the user package was imported')\n")
    (tmp_path / "train.py").write_text("import tensorflow as tf\nx = tf.log(y)\n")
    listing = subprocess.run(
        [sys.executable, "-m", "tfmodernize", "list"], cwd=tmp_path, capture_output=True, text=True
    )
    assert listing.returncode == 0, listing.stderr
    assert "TFM109" in listing.stdout and "session-to-function" in listing.stdout
    diff = subprocess.run(
        [sys.executable, "-m", "tfmodernize", "diff", "train.py", "--no-cache"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert "tf.math.log" in diff.stdout, diff.stderr
