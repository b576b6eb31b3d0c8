"""TFM110 absl-flags-logging.

What it does
    Moves TF1's wrappers around absl to absl itself, the library they wrapped:

    * ``tf.app.flags.X`` / ``tf.flags.X`` -> ``flags.X`` with ``from absl import flags``
      (``FLAGS``, every ``DEFINE_*``); the old keyword names TF's wrappers accepted
      (``flag_name=``, ``default_value=``, ``docstring=``) become absl's (``name=``,
      ``default=``, ``help=``);
    * ``tf.app.run(main)`` -> ``app.run(main)`` with ``from absl import app``; ``tf.app.run()``
      -> ``app.run(main)`` when the module defines ``main``;
    * ``tf.logging.X`` -> ``logging.X`` with ``from absl import logging``, verbosity constants
      included (``tf.logging.set_verbosity(tf.logging.INFO)`` ->
      ``logging.set_verbosity(logging.INFO)``).

    The same modules imported by their own path (``from tensorflow.python.platform import
    flags``, ``tf_logging``, ``from tensorflow import app``) move the same way.

    Where the file already uses the name (``import logging``), the import is
    ``import absl.logging`` and the code says ``absl.logging.info``.

    Declined, with a finding: ``tf.logging`` levels that are not one of its constants passed
    straight to a logging call (absl's verbosity numbers are not Python's logging levels, so
    ``tf.logging.log(20, ...)``, a comparison with ``tf.logging.INFO`` or the value of
    ``tf.logging.get_verbosity()`` would change meaning), ``tf.logging.vlog`` (TF logs at a Python level, absl at a verbosity level),
    ``tf.logging.TaskLevelStatusMessage`` (absl has none), ``tf.app.run()`` without a ``main``
    in the module, and flags read at module level (or anywhere in a program run from
    ``if __name__ == "__main__":`` without ``app.run``) in a file that never parses them (TF's
    ``FLAGS`` parsed ``sys.argv`` on first read, absl's raises ``UnparsedFlagAccessError``)
    unless the parse can go where TF's was: ``flags.FLAGS(sys.argv)`` is added before the
    first top-level statement reading a flag (else first in the ``__main__`` block) when every
    flag is defined at module level before it and no function of the file runs before it.
    ``tf.logging`` moves as a whole: one declined use keeps every ``tf.logging`` use of the
    file on TF's logger, since half on each logger would log at two verbosities. A
    ``tf.logging`` call of values in a ``tf.function``'s own body is not migrated: it logs once,
    at trace time, on any logger (logging-in-function, TFM211, reports it).

    Differences from ``tf_upgrade_v2``: the peer maps ``tf.app.flags``/``tf.flags`` to
    ``tf.compat.v1.flags`` with an error ("use the argparse or absl modules"), ``tf.logging``
    and ``tf.app.run`` to ``tf.compat.v1``; this codemod does the absl migration the peer asks
    for. Two behaviours change on purpose and only for output or bad input: log lines have
    absl's format instead of ``INFO:tensorflow:``, and ``app.run`` rejects command-line flags
    the program does not define, where ``tf.app.run`` passed them on to ``main``.

Why it matters
    ``tf.app``, ``tf.flags`` and ``tf.logging`` do not exist in TF2; TF1 programs built on
    them fail at import. absl is installed with TensorFlow and is what they always ran on.

Before
    import tensorflow as tf
    tf.app.flags.DEFINE_integer("steps", 10, "training steps")
    FLAGS = tf.app.flags.FLAGS
    def main(_):
        tf.logging.set_verbosity(tf.logging.INFO)
        tf.logging.info("steps: %d", FLAGS.steps)
    tf.app.run()

After
    import tensorflow as tf
    from absl import app, flags, logging

    flags.DEFINE_integer("steps", 10, "training steps")
    FLAGS = flags.FLAGS
    def main(_):
        logging.set_verbosity(logging.INFO)
        logging.info("steps: %d", FLAGS.steps)
    app.run(main)

Fixtures: ``fixtures/absl-flags-logging/``.

Fix safety
    absl is what TF1's wrappers called: the same flags, the same log records; keyword names TF's
    wrappers accepted become absl's.

Declines when
    a ``tf.logging`` level is used as a number, ``vlog``/``TaskLevelStatusMessage`` is called,
    ``tf.app.run()`` has no ``main`` to pass, or flags are read unparsed where no explicit parse can
    stand in for TF's (a flag defined after the first read, a function of the file run before it,
    ``sys`` naming something else); ``tf.logging`` then stays whole on TF's logger.
"""

from __future__ import annotations

from typing import Optional, Union

import libcst as cst

from tfmodernize.analysis.tf_function import own_body, runs_functions_eagerly, traced_functions
from tfmodernize.codemod import TFCodemod
from tfmodernize.codemods.migrate.absl_flags_logging.facts import AbslFacts
from tfmodernize.codemods.migrate.absl_flags_logging.tables import (
    ABSL_SPELLINGS,
    FLAG_KEYWORDS,
    LITERALS,
    absl_module,
)
from tfmodernize.imports import drop_aliases
from tfmodernize.names import WholeNames
from tfmodernize.tfsymbols import TFNames, dotted_name, import_bindings, root_name
from tfmodernize.treewalk import visit, walk


class AbslFlagsLogging(WholeNames, TFCodemod):
    __doc__ = __doc__
    code = "TFM110"
    name = "absl-flags-logging"
    summary = "tf.app.flags / tf.app.run / tf.logging -> absl.flags / absl.app.run / absl.logging"
    needles = ("flags", "app", "logging")
    interests = (cst.Attribute, cst.Name)
    detects_tf_names_only = True

    @classmethod
    def detect(cls, node: cst.CSTNode, names: TFNames) -> bool:
        symbol = names.tf_symbol(node)
        return symbol is not None and absl_module(symbol.path) is not None

    def __init__(self, context, state=None) -> None:
        super().__init__(context, state)
        self._inner: set[int] = set()
        self._frozen: set[int] = set()
        self._flags_ok = True
        self._logging_ok = True
        self._has_main = False
        self._taken: set[str] = set()
        self._call_of: dict[int, cst.Call] = {}
        self._from_imports: dict[str, str] = {}
        #: ``from tensorflow import app`` names whose uses became absl's module of the same name
        #: (``migrated``), or stayed TF's (``kept``): the first go from the TF import, which the
        #: absl import rebinds.
        self._migrated_names: set[str] = set()
        self._kept_names: set[str] = set()
        self._parse_before: Optional[cst.BaseStatement] = None

    # -- whole-module facts ---------------------------------------------------------------------

    def visit_Module(self, node: cst.Module) -> bool:
        facts = AbslFacts(self.tf)
        visit(node, facts)
        self._has_main = any(isinstance(s, cst.FunctionDef) and s.name.value == "main" for s in node.body)
        self._taken = facts.taken
        self._from_imports = facts.from_imports
        self._flags_ok = facts.flags_parsed_or_unread(node)
        # A program reading its flags unparsed parses them where TF's FLAGS did, on first read.
        self._parse_before = None if self._flags_ok else facts.parse_point(node)
        self._flags_ok = self._flags_ok or self._parse_before is not None
        # tf.logging moves as a whole or not at all: half of it on TF's Python logger and half
        # on absl's would give the two halves different verbosities.
        self._logging_ok = not facts.logging_blockers
        self._traced_logging = self._logging_in_traces(node)
        for blocker, why in facts.logging_blockers:
            self.report(blocker, f"{why}; tf.logging is left as it is in this file")
        return True

    def _logging_in_traces(self, module: cst.Module) -> set[int]:
        """The ``tf.logging.X`` names called with values in a ``tf.function``'s own body: that
        call logs at trace time wherever it logs, so it is not migrated here (logging-in-function
        reports it)."""
        # Most files trace no function: the walk for an eager switch is spared them.
        traced = traced_functions(module, self.tf)
        if not traced or runs_functions_eagerly(module, self.tf):
            return set()
        found: set[int] = set()
        for function in traced:
            for node in own_body(function.body):
                if not isinstance(node, cst.Call):
                    continue
                symbol = self.tf.tf_symbol(node.func)
                if symbol is None or not symbol.path.startswith("logging."):
                    continue
                if not all(isinstance(a.value, LITERALS) and not a.star for a in node.args):
                    found.add(id(node.func))
        return found

    def leave_Module(self, original: cst.Module) -> None:
        """``from tensorflow import app, gfile`` -> ``from tensorflow import gfile`` when ``app``
        now names absl's module (the absl import binds it; keeping both would be a redefinition)."""
        if self._parse_before is not None and self.fix(
            self._parse_before,
            "TF's FLAGS parsed sys.argv on the first read of a flag, absl's raises: parsed here, before it",
        ):
            self.add_import("sys")
            parse = cst.Call(func=self._absl_expr("flags", "FLAGS"), args=[cst.Arg(cst.parse_expression("sys.argv"))])
            self.insert_before(self._parse_before, [cst.SimpleStatementLine(body=[cst.Expr(parse)])])
        rebound = self._migrated_names - self._kept_names
        if not rebound:
            return
        for node in walk(original, code_only=True):
            if (
                isinstance(node, cst.ImportFrom)
                and isinstance(node.names, (list, tuple))
                and dict(import_bindings(node))
            ):
                drop_aliases(
                    self.edits,
                    node,
                    lambda alias: (
                        (
                            alias.asname.name.value
                            if alias.asname is not None and isinstance(alias.asname.name, cst.Name)
                            else dotted_name(alias.name)
                        )
                        in rebound
                    ),
                )

    # -- calls: check the arguments before any name inside them is rewritten --------------------

    def visit_Call(self, node: cst.Call) -> bool:
        self._call_of[id(node.func)] = node
        return True

    def leave_Call(self, original: cst.Call) -> None:
        symbol = self.tf.tf_symbol(original.func)
        target = absl_module(symbol.path) if symbol is not None else None
        if target is None or id(original.func) in self._frozen:
            return
        module, name = target
        if module == "flags" and name.startswith("DEFINE") and self._flags_ok:
            self.replace(
                original,
                lambda updated: updated.with_changes(
                    args=[
                        a.with_changes(keyword=cst.Name(FLAG_KEYWORDS[a.keyword.value]))
                        if a.keyword is not None and a.keyword.value in FLAG_KEYWORDS
                        else a
                        for a in updated.args
                    ]
                ),
            )
            return
        if module == "app" and not any(a.keyword is None or a.keyword.value == "main" for a in original.args):
            # tf.app.run() ran ``__main__.main``; absl wants it passed.
            comma = (
                cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")) if original.args else cst.MaybeSentinel.DEFAULT
            )
            self.replace(
                original,
                lambda updated: updated.with_changes(args=[cst.Arg(cst.Name("main"), comma=comma), *updated.args]),
            )

    # -- names ----------------------------------------------------------------------------------

    def leave_whole_name(self, original: Union[cst.Attribute, cst.Name]) -> None:
        if id(original) in self._frozen:
            return
        symbol = self.tf.tf_symbol(original)
        target = absl_module(symbol.path) if symbol is not None else None
        if target is None:
            return
        module, rest = target
        why = self._decline_reason(original, module)
        root = root_name(original)
        if why is not None or not self.fix(
            original, f"tf.{symbol.path} is absl's {module}{'.' + rest if rest else ''}"
        ):
            if why:
                self.report(original, why)
            if root is not None:
                self._kept_names.add(root.value)
            return
        if root is not None and root.value == module and root.value in self._from_imports:
            self._migrated_names.add(root.value)
        if root is not None and root.value in self._from_imports:
            # ``from tensorflow import logging as L``: TF2 has no such module to import.
            module_name, _, obj = self._from_imports[root.value].rpartition(".")
            self.remove_import(module_name, obj, asname=root.value if root.value != obj else None)
        self.replace(original, self._absl_expr(module, rest))

    def _decline_reason(self, node: cst.CSTNode, module: str) -> Optional[str]:
        """Why this use stays (``""``: already reported), or None to migrate it."""
        if module == "flags" and not self._flags_ok:
            return (
                "flag values are read before anything parses the flags (the program runs without "
                "app.run): TF's FLAGS parsed sys.argv on first read, absl's raises; call app.run or "
                "FLAGS(sys.argv) first"
            )
        if module == "app" and not self._has_main and not self._main_passed(node):
            return "tf.app.run() without a main function in this module: pass main to absl's app.run by hand"
        if module == "logging" and not self._logging_ok:
            return ""  # reported once, at what holds it back
        if module == "logging" and id(node) in self._traced_logging:
            return ""  # logs at trace time: logging-in-function's finding
        return None

    def _main_passed(self, node: cst.CSTNode) -> bool:
        call = self._call_of.get(id(node))
        return call is not None and any(a.keyword is None or a.keyword.value == "main" for a in call.args)

    def _absl_expr(self, module: str, rest: str) -> cst.BaseExpression:
        if module in self._taken:
            self.add_import(f"absl.{module}")
            head = f"absl.{module}"
        else:
            self.add_import("absl", module)
            head = module
        if module == "logging":
            rest = ABSL_SPELLINGS.get(rest, rest)
        return cst.parse_expression(f"{head}.{rest}" if rest else head)


def moves_to_absl(module: cst.Module, names: TFNames) -> frozenset[str]:
    """The TF paths (``app.flags.DEFINE_integer``, ``logging.info``) this codemod moves to absl
    in ``module``: every use of ``tf.app``, ``tf.flags`` and ``tf.logging`` it has when none of
    them is declined (api-renames asks, to know whether they keep the file on TF1); empty
    when one is."""
    facts = AbslFacts(names)
    visit(module, facts)
    has_main = any(isinstance(s, cst.FunctionDef) and s.name.value == "main" for s in module.body)
    if facts.logging_blockers or not (facts.flags_parsed_or_unread(module) or facts.parse_point(module)):
        return frozenset()
    found: set[str] = set()
    for node in walk(module, code_only=True):
        if isinstance(node, cst.Call) and names.is_tf(node.func, "app.run") and not has_main:
            if not any(a.keyword is None or a.keyword.value == "main" for a in node.args):
                return frozenset()
        if isinstance(node, (cst.Attribute, cst.Name)):
            symbol = names.tf_symbol(node)
            if symbol is not None and absl_module(symbol.path) is not None:
                found.add(symbol.path)
    if any(path.startswith("logging.") for path in found) and traced_functions(module, names):
        return frozenset()  # a log in a traced function may stay on TF's logger
    return frozenset(found)
