"""tfmodernize: migrate TensorFlow 1.x code to idiomatic TensorFlow 2, and prove it.

The public library API (imported lazily, so ``tfmodernize --version`` starts fast):

- ``TFCodemod``, ``Safety``, ``Fix``, ``Finding``: write your own codemod (see ``tfmodernize/codemods/``;
  register it under the ``tfmodernize.codemods`` entry-point group).
- ``builtin_codemods()``, ``find_codemod(key)``, ``select_codemods(select, ignore)``: the catalogue.
- ``transform_text(text, codemods)``: rewrite source text in memory.
- ``discover(paths)``, ``run(files, settings)``, ``Settings``, ``Outcome``: process files.
- ``tfmodernize.testing``: helpers for testing a codemod.

Nothing here imports tensorflow; only ``tfmodernize.verify`` runs TensorFlow, in child processes.
"""

from importlib import import_module
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "Finding": "tfmodernize.results",
    "Fix": "tfmodernize.results",
    "Safety": "tfmodernize.codemod",
    "TFCodemod": "tfmodernize.codemod",
    "builtin_codemods": "tfmodernize.registry",
    "find_codemod": "tfmodernize.registry",
    "select_codemods": "tfmodernize.registry",
    "Outcome": "tfmodernize.engine",
    "run": "tfmodernize.engine",
    "transform_text": "tfmodernize.engine",
    "Settings": "tfmodernize.settings",
    "discover": "tfmodernize.sources",
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'tfmodernize' has no attribute {name!r}")
