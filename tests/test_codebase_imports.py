"""benchmarks/codebase_imports.py: files of a small tree run as modules before and after `apply`,
each failure classified, and the counts and regressions it reports."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import codebase_imports  # noqa: E402

needs_tensorflow = pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="needs TensorFlow")

TREE = {
    "good.py": "import tensorflow as tf\nx = tf.constant([1.0]) * 2\nprint(x)\n",
    "tf1.py": "import tensorflow as tf\nx = tf.random_normal([2])\n",
    "needs_package.py": "import tensorflow as tf\nimport not_a_real_package_xyz\n",
    "needs_namespace_package.py": "import tensorflow as tf\nimport google.not_a_real_distribution_xyz\n",
    "uses_sibling.py": "import tensorflow as tf\nfrom helpers import scale\ny = scale(tf.constant(2.0))\n",
    "helpers.py": "def scale(x):\n    return x * 3\n",
    "research/lib/__init__.py": "",
    "research/lib/a.py": "import tensorflow as tf\nfrom . import b\nfrom lib.b import VALUE\n",
    "research/lib/b.py": "VALUE = 1\n",
    "main_guard.py": "import tensorflow as tf\nif __name__ == '__main__':\n    raise SystemExit(tf.Session)\n",
}


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    return root


def error(kind: str, message: str, **extra) -> dict:
    return {"status": "error", "type": kind, "message": message, **extra}


@pytest.mark.parametrize(
    ("record", "category"),
    [
        pytest.param({"status": "ok"}, "ok", id="ok"),
        pytest.param({"status": "timeout"}, "timeout", id="timeout"),
        pytest.param({"status": "crashed", "message": "child ended with status -11"}, "other", id="crashed"),
        pytest.param(error("AttributeError", "module 'tensorflow' has no attribute 'placeholder'"), "tf", id="tf-name"),
        pytest.param(
            error("AttributeError", "module 'tensorflow._api.v2.train' has no attribute 'AdamOptimizer'"),
            "tf",
            id="tf-submodule-name",
        ),
        pytest.param(
            error("ModuleNotFoundError", "No module named 'tensorflow.contrib'", name="tensorflow.contrib"),
            "tf",
            id="contrib",
        ),
        pytest.param(
            error("ModuleNotFoundError", "No module named 'tensorflow.examples'", name="tensorflow.examples"),
            "tf",
            id="examples",
        ),
        pytest.param(
            error("ImportError", "cannot import name 'x' from 'tensorflow.python.ops'", name="tensorflow.python.ops"),
            "tf",
            id="tf-import-name",
        ),
        pytest.param(
            error("RuntimeError", "tf.placeholder() is not compatible with eager execution."),
            "tf",
            id="eager-placeholder",
        ),
        pytest.param(error("ValueError", "bad shape", in_tf=True), "tf", id="raised-inside-tf"),
        pytest.param(error("NotFoundError", "file missing", in_tf=True, io=True), "other", id="io-inside-tf"),
        pytest.param(
            error("ModuleNotFoundError", "No module named 'cv2'", name="cv2", package_missing=True),
            "third-party",
            id="missing-package",
        ),
        pytest.param(
            error("ModuleNotFoundError", "No module named 'nets'", name="nets", package_missing=True),
            "other",
            id="tree-module-off-path",
        ),
        pytest.param(
            error("ModuleNotFoundError", "No module named 'scipy.misc.x'", name="scipy.misc.x", package_missing=False),
            "other",
            id="submodule-of-installed-package",
        ),
        pytest.param(
            error("ModuleNotFoundError", "No module named 'cPickle'", name="cPickle", package_missing=True),
            "other",
            id="python-2-module",
        ),
        pytest.param(
            error("ModuleNotFoundError", "No module named 'google.cloud'", name="google.cloud", package_missing=True),
            "third-party",
            id="namespace-package",
        ),
        pytest.param(error("SyntaxError", "Missing parentheses in call to 'print'."), "syntax", id="python-2"),
        pytest.param(error("KeyError", "'DATA_DIR'"), "other", id="other"),
    ],
)
def test_classify(record, category):
    assert codebase_imports.classify(record, {"nets", "slim"}) == category


def test_files_importing_tensorflow_and_search_path(tmp_path):
    root = write_tree(tmp_path, TREE)
    assert codebase_imports.tf_files(root) == [
        "good.py",
        "main_guard.py",
        "needs_namespace_package.py",
        "needs_package.py",
        "research/lib/a.py",
        "tf1.py",
        "uses_sibling.py",
    ]
    assert codebase_imports.search_path(root, "research/lib/a.py") == (
        [str(root / "research/lib"), str(root / "research"), str(root)],
        "lib.a",
    )
    assert codebase_imports.search_path(root, "good.py") == ([str(root)], None)
    assert codebase_imports.subset(list("abcdefghij"), 3, None) == ["a", "d", "g"]
    assert codebase_imports.subset(list("abcdefghij"), None, 4) == ["a", "e", "i"]


def test_regressions_are_listed():
    failing = error("AttributeError", "module 'tensorflow' has no attribute 'Session'", where="b.py:3")
    records = {
        "a.py": {"original": {"status": "ok"}, "apply": {"status": "ok"}},
        "b.py": {"original": {"status": "ok"}, "apply": failing},
        "c.py": {
            "original": error("AttributeError", "module 'tensorflow' has no attribute 'Session'"),
            "apply": {"status": "ok"},
        },
    }
    summary = codebase_imports.summarize(records, set())
    assert summary["counts"]["original"]["ok"] == 2
    assert summary["counts"]["apply"]["ok"] == 2
    assert summary["tf_failing"] == 1
    assert summary["tf_failing_import"] == {"apply": 1}
    assert summary["regressions"]["apply"] == [
        {
            "file": "b.py",
            "category": "tf",
            "error": "AttributeError: module 'tensorflow' has no attribute 'Session'",
            "where": "b.py:3",
        }
    ]
    assert "| b.py | tf |" in codebase_imports.markdown(summary, [])


@needs_tensorflow
def test_tree_before_and_after_apply(tmp_path):
    root = write_tree(tmp_path / "tree", TREE)
    out = tmp_path / "imports.json"
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "codebase_imports.py"),
            str(root),
            "--json",
            str(out),
            "--work",
            str(tmp_path / "work"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"},
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    categories = {f: {v: r["category"] for v, r in by.items()} for f, by in report["records"].items()}
    assert categories == {
        "good.py": {"original": "ok", "apply": "ok"},
        "main_guard.py": {"original": "ok", "apply": "ok"},
        "needs_namespace_package.py": {"original": "third-party", "apply": "third-party"},
        "needs_package.py": {"original": "third-party", "apply": "third-party"},
        "research/lib/a.py": {"original": "ok", "apply": "ok"},
        "tf1.py": {"original": "tf", "apply": "ok"},
        "uses_sibling.py": {"original": "ok", "apply": "ok"},
    }
    assert report["records"]["tf1.py"]["original"]["error"] == (
        "AttributeError: module 'tensorflow' has no attribute 'random_normal'"
    )
    assert report["files"] == 7
    assert report["counts"]["original"]["ok"] == 4 and report["counts"]["apply"]["ok"] == 5
    assert report["tf_failing_import"] == {"apply": 1}
    assert report["regressions"] == {"apply": []}
    assert "| original | 7 | 4 | 1 | 2 | 0 | 0 | 0 |" in done.stdout
