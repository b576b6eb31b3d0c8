"""The outcome cache: keyed by content, selection and every codemod's source, plugins included."""

import importlib
import sys

from tfmodernize.cache import OutcomeCache
from tfmodernize.registry import builtin_codemods

PLUGIN = '''
from tfmodernize.codemod import TFCodemod


class Plugin(TFCodemod):
    """What it does\\n    x\\nWhy it matters\\n    x\\nBefore\\n    x\\nAfter\\n    x\\nFix safety\\n    x\\nDeclines when\\n    x"""

    code, name, summary = "TFM291", "plugin-under-test", "{summary}"
'''


def test_a_plugin_s_new_version_gets_new_keys(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "tfm_plugin_under_test.py").write_text(PLUGIN.format(summary="first version"))
    module = importlib.import_module("tfm_plugin_under_test")
    try:
        first = OutcomeCache(tmp_path / "cache", (*builtin_codemods(), module.Plugin), False).key(b"x = 1\n")
        (tmp_path / "tfm_plugin_under_test.py").write_text(PLUGIN.format(summary="second version"))
        module = importlib.reload(module)
        second = OutcomeCache(tmp_path / "cache", (*builtin_codemods(), module.Plugin), False).key(b"x = 1\n")
        same = OutcomeCache(tmp_path / "cache", (*builtin_codemods(), module.Plugin), False).key(b"x = 1\n")
    finally:
        sys.modules.pop("tfm_plugin_under_test", None)
    assert first != second and second == same
