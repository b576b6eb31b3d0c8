"""The installed layout: the repository's ``codemods/`` folder is the ``tfmodernize.codemods``
package, so a user's own ``codemods/`` folder cannot shadow the catalogue."""

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _declared_packages() -> set[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    return set(config["packages"]), config["package-dir"]


def test_every_package_folder_is_declared_under_the_tfmodernize_namespace():
    packages, package_dir = _declared_packages()
    assert package_dir == {"tfmodernize.codemods": "codemods"}
    found = set()
    for top, name in (("tfmodernize", "tfmodernize"), ("codemods", "tfmodernize.codemods")):
        for init in (ROOT / top).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / top).parts
            found.add(".".join((name, *relative)))
    assert found == packages
    assert not any(p == "codemods" or p.startswith("codemods.") for p in packages)


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
        [sys.executable, "-m", "tfmodernize", "diff", "train.py", "--no-cache"], cwd=tmp_path, capture_output=True, text=True
    )
    assert "tf.math.log" in diff.stdout, diff.stderr
