"""What absl-flags-logging reads of a whole module in one traversal (``AbslFacts``): the
names ``flags``/``app``/``logging`` already bound to something else, the ``from tensorflow``
imports, whether the flags are parsed before they are read, and what holds ``tf.logging``
back."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tfmodernize.analysis.program import main_guard
from tfmodernize.codemods.migrate.absl_flags_logging.tables import (
    LEVEL_CALLS,
    LEVELS,
    LOGGING_FUNCTIONS,
    absl_module,
    public_path,
)
from tfmodernize.names import used_names
from tfmodernize.tfsymbols import TFNames, dotted_name, import_bindings
from tfmodernize.treewalk import children, walk


class AbslFacts(cst.CSTVisitor):
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
            path = public_path(symbol_path.replace("compat.v1.", "", 1))
            if (
                local in ("flags", "app", "logging")
                and path not in ("app", "flags", "logging")
                and absl_module(path) is None
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
        return symbol is not None and public_path(symbol.path).rpartition(".")[2].startswith("DEFINE")

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
        return symbol is not None and public_path(symbol.path) in ("app.flags.FLAGS", "flags.FLAGS")


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
