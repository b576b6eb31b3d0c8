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
from tfmodernize.imports import drop_aliases
from tfmodernize.treewalk import children, visit, walk

from tfmodernize.analysis.tf_function import own_body, runs_functions_eagerly, traced_functions
from tfmodernize.names import WholeNames, used_names
from tfmodernize.analysis.program import main_guard
from tfmodernize.codemod import TFCodemod
from tfmodernize.tfsymbols import TFNames, dotted_name, import_bindings, root_name

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
_FLAG_PREFIXES = ("app.flags.", "flags.")
#: Arguments of a logging call that make it a trace-time probe, not a log of values.
LITERALS = (cst.SimpleString, cst.ConcatenatedString, cst.Integer, cst.Float)


#: The modules behind ``tf.app``, ``tf.flags`` and ``tf.logging``, which TF1 code also imported
#: by their own path (``from tensorflow.python.platform import flags``): the same objects.
_PLATFORM_MODULES = {
    "python.platform.app": "app",
    "python.platform.flags": "flags",
    "python.platform.tf_logging": "logging",
}


def _public_path(path: str) -> str:
    """``flags.DEFINE_string`` for ``python.platform.flags.DEFINE_string``; other paths as given."""
    for module, public in _PLATFORM_MODULES.items():
        if path == module or path.startswith(module + "."):
            return public + path[len(module) :]
    return path


def _absl_module(path: str) -> Optional[tuple[str, str]]:
    """``("flags", "DEFINE_string")`` for ``app.flags.DEFINE_string``; None if not ours."""
    path = _public_path(path)
    for prefix in _FLAG_PREFIXES:
        if path.startswith(prefix):
            return "flags", path[len(prefix) :]
    if path in ("app.flags", "flags"):
        return "flags", ""
    if path == "app.run":
        return "app", "run"
    if path.startswith("logging."):
        return "logging", path[len("logging.") :]
    return None


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
        return symbol is not None and _absl_module(symbol.path) is not None

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
        facts = _ModuleFacts(self.tf)
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
        target = _absl_module(symbol.path) if symbol is not None else None
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
        target = _absl_module(symbol.path) if symbol is not None else None
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
    facts = _ModuleFacts(names)
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
            if symbol is not None and _absl_module(symbol.path) is not None:
                found.add(symbol.path)
    if any(path.startswith("logging.") for path in found) and traced_functions(module, names):
        return frozenset()  # a log in a traced function may stay on TF's logger
    return frozenset(found)


class _ModuleFacts(cst.CSTVisitor):
    """What the rewrite needs to know about the whole module, in one traversal: the names
    ``flags``/``app``/``logging`` already bound to something else, the ``from tensorflow``
    imports, whether ``tf.app.run`` is called, and the module-level (outside any function or
    class) calls and attribute reads, to tell whether flags are read before being parsed."""

    def __init__(self, names: TFNames) -> None:
        self.names = names
        self.taken: set[str] = set()
        self.from_imports: dict[str, str] = {}
        self.runs_app = False
        self._depth = 0
        self._skip: set[int] = set()
        self._module_level_calls: list[cst.CSTNode] = []
        self._module_level_reads: list[cst.CSTNode] = []
        self._reads: list[cst.CSTNode] = []  # at any depth
        self.logging_blockers: list[tuple[cst.CSTNode, str]] = []
        self._inner: set[int] = set()
        self._level_args: set[int] = set()

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        bindings = dict(import_bindings(node))
        self.from_imports.update(bindings)
        for local, qualified in bindings.items():
            # ``from tensorflow.python.platform import tf_logging as logging`` binds ``logging``
            # to a TF module this codemod does not move: the name is taken.
            symbol_path = qualified.partition(".")[2]
            path = _public_path(symbol_path.replace("compat.v1.", "", 1))
            if (
                local in ("flags", "app", "logging")
                and path not in ("app", "flags", "logging")
                and _absl_module(path) is None
            ):
                self.taken.add(local)
        if bindings:
            return False  # names inside ``from tensorflow import logging`` are TF's, not taken
        if isinstance(node.module, cst.Name) and node.module.value == "absl":
            return False  # ``from absl import logging`` is the binding we want
        return True

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        self._skip.add(id(node.attr))
        self._inner.add(id(node.value))
        if node.attr.value == "run" and not self.runs_app:
            symbol = self.names.tf_symbol(node)
            self.runs_app = symbol is not None and symbol.path == "app.run"
        if self._depth == 0:
            self._module_level_reads.append(node.value)
        self._reads.append(node.value)
        return True

    def visit_Name(self, node: cst.Name) -> bool:
        if node.value in ("flags", "app", "logging") and id(node) not in self._skip:
            if self.names.tf_symbol(node) is None:
                self.taken.add(node.value)
        return False

    def visit_Call(self, node: cst.Call) -> bool:
        if self._depth == 0:
            self._module_level_calls.append(node.func)
        function = self._logging_name(node.func)
        if function in LEVEL_CALLS:
            level = next((a.value for a in node.args if a.keyword is None or a.keyword.value in ("level", "v")), None)
            if level is not None and self._logging_name(level) in LEVELS:
                self._level_args.add(id(level))
            else:
                self.logging_blockers.append(
                    (
                        node,
                        f"tf.logging.{function} with a level that is not a tf.logging "
                        "constant: absl's verbosity numbers are not Python logging levels",
                    )
                )
        return True

    # Hooks by node type, not an ``on_leave`` for every node: ``treewalk.visit`` then calls
    # these alone (``dispatch``), the cost of a walk of the whole module being the lookup.
    def leave_Attribute(self, original: cst.Attribute) -> None:
        self._leave_name(original)

    def leave_Name(self, original: cst.Name) -> None:
        self._leave_name(original)

    def _leave_name(self, original: "cst.Attribute | cst.Name") -> None:
        if id(original) in self._inner or id(original) in self._skip:
            return
        name = self._logging_name(original)
        if name is None:
            return
        if name in LEVELS and id(original) not in self._level_args:
            self.logging_blockers.append(
                (
                    original,
                    f"tf.logging.{name} is a Python logging level, absl's "
                    f"logging.{name} a verbosity number on another scale",
                )
            )
        elif name not in LEVELS and name not in LOGGING_FUNCTIONS:
            self.logging_blockers.append((original, f"tf.logging.{name} has no absl equivalent with the same meaning"))

    def _logging_name(self, node: cst.CSTNode) -> Optional[str]:
        """``"info"`` for ``tf.logging.info`` (any alias); None for anything else."""
        symbol = self.names.tf_symbol(node)
        if symbol is None or not symbol.path.startswith("logging."):
            return None
        return symbol.path[len("logging.") :].split(".", 1)[0]

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self._depth += 1
        return True

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._depth -= 1

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self._depth += 1
        return True

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self._depth -= 1

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        self._depth += 1
        return True

    def leave_Lambda(self, node: cst.Lambda) -> None:
        self._depth -= 1

    def _flags_objects(self, module: cst.Module) -> set[str]:
        """``FLAGS`` and the module-level names bound to TF's flags object."""
        objects = {"FLAGS"}
        for statement in module.body:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if isinstance(small, cst.Assign) and self._is_flags_object(small.value):
                        objects |= {t.target.value for t in small.targets if isinstance(t.target, cst.Name)}
        return objects

    def _is_flags(self, node: cst.CSTNode, objects: set[str]) -> bool:
        return (isinstance(node, cst.Name) and node.value in objects) or self._is_flags_object(node)

    def parse_point(self, module: cst.Module) -> Optional[cst.BaseStatement]:
        """Where to parse the flags explicitly in a program that reads them unparsed: before
        the first top-level statement reading a flag at module level, else first thing in its
        ``if __name__ == "__main__":`` block; that is where TF's ``FLAGS`` parsed ``sys.argv``
        (on its first read) when every flag is defined at module level before it and no
        function of the file runs before it. None otherwise, or when ``sys`` names another thing."""
        objects = self._flags_objects(module)
        defined = {s.name.value for s in module.body if isinstance(s, (cst.FunctionDef, cst.ClassDef))}
        imports_sys = any(
            isinstance(s, cst.SimpleStatementLine)
            and any(isinstance(i, cst.Import) and [dotted_name(a.name) for a in i.names] == ["sys"] for i in s.body)
            for s in module.body
        )
        if not imports_sys and "sys" in used_names(module):
            return None
        point: Optional[cst.BaseStatement] = None
        defines_before = 0
        for statement in module.body:
            top = list(_module_level_nodes(statement))
            if any(isinstance(n, cst.Attribute) and self._is_flags(n.value, objects) for n in top):
                point = statement
            elif main_guard(statement) and statement.body.body:
                point = statement.body.body[0]
            if point is not None:
                break
            calls = [n for n in top if isinstance(n, cst.Call)]
            if any(isinstance(c.func, cst.Name) and c.func.value in defined for c in calls):
                return None  # a function of the file runs first: it may read a flag
            defines_before += sum(1 for c in calls if self._is_define(c.func))
        defines = sum(1 for n in walk(module, code_only=True) if isinstance(n, cst.Call) and self._is_define(n.func))
        return point if point is not None and defines == defines_before else None

    def _is_define(self, func: cst.BaseExpression) -> bool:
        symbol = self.names.tf_symbol(func)
        return symbol is not None and _public_path(symbol.path).rpartition(".")[2].startswith("DEFINE")

    def flags_parsed_or_unread(self, module: cst.Module) -> bool:
        """False when flag values are read at module level and nothing parses the flags."""
        if self.runs_app:
            return True
        objects = self._flags_objects(module)

        def is_flags(node: cst.CSTNode) -> bool:
            return self._is_flags(node, objects)

        if any(is_flags(func) for func in self._module_level_calls):
            return True  # ``FLAGS(argv)`` parses explicitly
        if any(main_guard(statement) for statement in module.body):
            # A program run without app.run: what its functions read, TF's FLAGS parsed first.
            return not any(is_flags(base) for base in self._reads)
        # A function of the file called by module-level code reads at module level too.
        defined = {s.name.value for s in module.body if isinstance(s, (cst.FunctionDef, cst.ClassDef))}
        runs_own = any(isinstance(func, cst.Name) and func.value in defined for func in self._module_level_calls)
        return not any(is_flags(base) for base in (self._reads if runs_own else self._module_level_reads))

    def _is_flags_object(self, node: cst.CSTNode) -> bool:
        symbol = self.names.tf_symbol(node)
        return symbol is not None and _public_path(symbol.path) in ("app.flags.FLAGS", "flags.FLAGS")


def _module_level_nodes(statement: cst.CSTNode):
    """The nodes of ``statement`` that run when it runs: not those in the bodies of the
    functions, classes and lambdas it defines."""
    stack = [statement]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        stack.extend(children(node, code_only=True))
