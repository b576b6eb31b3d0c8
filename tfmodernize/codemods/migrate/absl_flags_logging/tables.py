"""Absl-flags-logging's tables: the ``tf.app``, ``tf.flags`` and ``tf.logging`` names absl
has, and where each goes (``absl_module``)."""

from __future__ import annotations

from typing import Optional

import libcst as cst

#: TF1's ``tf.app.flags`` DEFINE_* wrappers renamed these keywords before calling absl
#: (``tensorflow/python/platform/flags.py``, ``_RENAMED_ARGUMENTS``).
FLAG_KEYWORDS = {"flag_name": "name", "default_value": "default", "docstring": "help"}
#: ``tf.logging`` names absl.logging has with the same meaning.
LOGGING_FUNCTIONS = frozenset(
    {
        "log",
        "debug",
        "info",
        "warn",
        "warning",
        "error",
        "fatal",
        "flush",
        "log_every_n",
        "log_first_n",
        "log_if",
        "set_verbosity",
    }
)
#: Where absl spells a ``tf.logging`` function differently: TF1's ``fatal`` only logged (Python
#: logging's ``critical``), absl's ``logging.fatal`` aborts the process after logging.
ABSL_SPELLINGS = {"fatal": "get_absl_logger().critical"}
LEVELS = frozenset({"DEBUG", "INFO", "WARN", "ERROR", "FATAL"})
#: Calls whose first argument is a level: the level must be one of ``LEVELS``.
LEVEL_CALLS = frozenset({"log", "log_every_n", "log_first_n", "log_if", "set_verbosity"})
FLAG_PREFIXES = ("app.flags.", "flags.")
#: Arguments of a logging call that make it a trace-time probe, not a log of values.
LITERALS = (cst.SimpleString, cst.ConcatenatedString, cst.Integer, cst.Float)


#: The modules behind ``tf.app``, ``tf.flags`` and ``tf.logging``, which TF1 code also imported
#: by their own path (``from tensorflow.python.platform import flags``): the same objects.
PLATFORM_MODULES = {
    "python.platform.app": "app",
    "python.platform.flags": "flags",
    "python.platform.tf_logging": "logging",
}


def public_path(path: str) -> str:
    """``flags.DEFINE_string`` for ``python.platform.flags.DEFINE_string``; other paths as given."""
    for module, public in PLATFORM_MODULES.items():
        if path == module or path.startswith(module + "."):
            return public + path[len(module) :]
    return path


def absl_module(path: str) -> Optional[tuple[str, str]]:
    """``("flags", "DEFINE_string")`` for ``app.flags.DEFINE_string``; None if not ours."""
    path = public_path(path)
    for prefix in FLAG_PREFIXES:
        if path.startswith(prefix):
            return "flags", path[len(prefix) :]
    if path in ("app.flags", "flags"):
        return "flags", ""
    if path == "app.run":
        return "app", "run"
    if path.startswith("logging."):
        return "logging", path[len("logging.") :]
    return None
