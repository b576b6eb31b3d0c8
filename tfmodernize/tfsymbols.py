"""Qualified-name resolution of TensorFlow symbols, shared by every codemod.

Design.md section 2: LibCST's ``QualifiedNameProvider`` costs about eight parses per file, so
TF names are resolved by **one import-alias pass per file**: the import statements are read
once, each local name bound by an import of ``tensorflow``, ``keras`` or ``tf_keras`` is
mapped to the module or object it stands for, and a dotted expression such as ``tf.nn.relu``
is qualified by looking up its root name.

That shortcut is only sound when the alias names are never rebound (``tf = Mock()``,
``def f(tf): ...``). A cheap textual test spots any binding of an alias name other than its
import; for such files resolution falls back to LibCST's ``ScopeProvider``, which tells for
each use of the name which assignment it sees.

Everything here is pure LibCST: importing it never imports tensorflow.
"""

from __future__ import annotations

import re
from functools import lru_cache
from dataclasses import dataclass
from typing import Iterator, Mapping, Optional, Union

import libcst as cst
from libcst.metadata import Assignment, Scope

from tfmodernize.treewalk import walk

#: Top-level packages whose symbols the codemods care about.
TF_ROOTS = ("tensorflow", "keras", "tf_keras")

#: Prefixes under which the Keras API lives, longest first.
KERAS_PREFIXES = (
    "tensorflow.compat.v1.keras.",
    "tensorflow.compat.v2.keras.",
    "tensorflow.python.keras.",
    "tensorflow.keras.",
    "tf_keras.",
    "keras.",
)

#: Spelled-out namespaces the TF API is reachable through, longest first.
_TF_PREFIXES = (
    ("tensorflow.compat.v1.compat.v2.", False, True),
    ("tensorflow.compat.v1.", True, False),
    ("tensorflow.compat.v2.", False, True),
    ("tensorflow.", False, False),
)


@dataclass(frozen=True)
class TFSymbol:
    """A TensorFlow API name with the namespace it was reached through stripped.

    ``path`` is relative to the TF top level (``"nn.relu"``); ``v1`` says whether the code
    reached it through ``tensorflow.compat.v1``, ``v2`` whether it spelled ``compat.v2`` out:
    such a name is TF2's whatever else the file uses.
    """

    path: str
    v1: bool
    v2: bool = False


def dotted_name(node: cst.CSTNode) -> Optional[str]:
    """``a.b.c`` for a chain of ``Name``/``Attribute`` nodes, else ``None``."""
    parts = []
    while type(node) is cst.Attribute:  # no subclasses; ``isinstance`` on LibCST's ABCs is slow
        parts.append(node.attr.value)
        node = node.value
    if type(node) is not cst.Name:
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def root_name(node: cst.CSTNode) -> Optional[cst.Name]:
    while type(node) is cst.Attribute:
        node = node.value
    return node if type(node) is cst.Name else None


def _is_tf_module(qualified: str) -> bool:
    return qualified.split(".", 1)[0] in TF_ROOTS


def import_bindings(stmt: cst.CSTNode, *, tf_only: bool = True) -> Iterator[tuple[str, str]]:
    """(local name, qualified name) for every TF binding an import statement makes.

    ``tf_only=False``: every binding, relative ones as ``.module.name``.
    """
    if isinstance(stmt, cst.Import):
        for alias in stmt.names:
            full = dotted_name(alias.name)
            if full is None or (tf_only and not _is_tf_module(full)):
                continue
            if alias.asname is not None:
                local = alias.asname.name
                if isinstance(local, cst.Name):
                    yield local.value, full
            else:
                # ``import tensorflow.compat.v1`` binds ``tensorflow`` itself.
                root = full.split(".", 1)[0]
                yield root, root
    elif isinstance(stmt, cst.ImportFrom):
        if isinstance(stmt.names, cst.ImportStar) or (tf_only and (stmt.relative or stmt.module is None)):
            return
        module = dotted_name(stmt.module) if stmt.module is not None else ""
        if module is None or (tf_only and not _is_tf_module(module)):
            return
        module = "." * len(stmt.relative) + module
        for alias in stmt.names:
            name = dotted_name(alias.name)
            if name is None:
                continue
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            yield local, f"{module}.{name}" if not module.endswith(".") else f"{module}{name}"


def _small_statements(body: Union[cst.Module, cst.BaseSuite, cst.CSTNode]) -> Iterator[cst.CSTNode]:
    """Every small statement of a module, walking statement blocks only (no expressions)."""
    stack = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.SimpleStatementLine):
            yield from node.body
        elif isinstance(node, (cst.Module, cst.IndentedBlock)):
            stack.extend(reversed(node.body))
        elif isinstance(node, cst.SimpleStatementSuite):
            yield from node.body
        elif isinstance(node, cst.BaseCompoundStatement):
            if isinstance(getattr(node, "body", None), cst.BaseSuite):  # `match` has cases, no body
                stack.append(node.body)
            for attr in ("orelse", "finalbody"):
                extra = getattr(node, attr, None)
                if extra is not None:
                    stack.append(extra)
            for handler in getattr(node, "handlers", ()):
                stack.append(handler)
            for case in getattr(node, "cases", ()):
                stack.append(case)
        elif isinstance(node, (cst.Else, cst.Finally, cst.ExceptHandler, cst.ExceptStarHandler, cst.MatchCase)):
            stack.append(node.body)


def tf_import_aliases(module: cst.Module) -> dict[str, set[str]]:
    """Local name -> the qualified names TF imports bind it to, anywhere in the module."""
    aliases: dict[str, set[str]] = {}
    for statement in module.body:
        for local, full in _statement_bindings(statement):
            aliases.setdefault(local, set()).add(full)
    return aliases


#: id of a top-level statement -> (the statement, the TF imports in it). The codemods' trees of
#: one file share the statements their edits left alone, and each asks for the file's aliases:
#: an unchanged statement is read once. ``forget`` empties it between files.
_BINDINGS: dict[int, tuple[cst.CSTNode, tuple[tuple[str, str], ...]]] = {}


def _statement_bindings(statement: cst.CSTNode) -> tuple[tuple[str, str], ...]:
    known = _BINDINGS.get(id(statement))
    if known is not None and known[0] is statement:
        return known[1]
    found = tuple(binding for small in _small_statements(statement) for binding in import_bindings(small))
    if len(_BINDINGS) >= 100_000:
        _BINDINGS.clear()
    _BINDINGS[id(statement)] = (statement, found)
    return found


def forget() -> None:
    """Drop the statements read so far (the engine calls it after each file)."""
    _BINDINGS.clear()


@dataclass(frozen=True)
class _Rebinding:
    """The patterns of a binding of one name other than its TF import (``needs_scope_analysis``)."""

    assignment: re.Pattern[str]  #: an assignment line binding it: ``tf = ...``, ``a, tf = ...``
    on_its_line: re.Pattern[str]  #: a binding that fits on the line naming it
    walrus: re.Pattern[str]  #: ``tf := ...``
    parameter: re.Pattern[str]  #: a parameter of a ``def`` (its list may span lines), from ``def``
    other_import: re.Pattern[str]  #: an import line naming it (``from mocks import fake as tf``)


@lru_cache(maxsize=64)
def _rebinding_patterns(name: str) -> _Rebinding:
    n = re.escape(name)
    ident = r"[\w \t,()\[\]*]*"
    return _Rebinding(
        assignment=re.compile(rf"[ \t]*{ident}(?<![\w.]){n}\b{ident}(?::[^=\n]*)?=(?!=)"),
        on_its_line=re.compile(
            rf"\blambda\b[^:\n]*(?<![\w.=]){n}\s*[,:=]"
            rf"|\bfor\b[^\n]*(?<![\w.]){n}\b[^\n]*\bin\b"  # loop / comprehension target
            rf"|\b(?:def|class)\s+{n}\b"
            rf"|\b(?:global|nonlocal)\b[^\n]*(?<![\w.]){n}\b"
            rf"|\bexcept\b[^\n]*\bas\s+{n}\b"
            rf"|\bwith\b[^\n]*\bas\s+\(?{n}\b",
        ),
        walrus=re.compile(rf"(?<![\w.]){n}\s*:="),
        parameter=re.compile(rf"\bdef\s+\w+\s*\([^)]*(?<![\w.=]){n}\s*[,:=)]"),
        # ``import gin.tf`` binds ``gin``: a name after a dot in an import is never bound by it.
        other_import=re.compile(
            rf"[ \t]*(?:from\s+(?!(?:{'|'.join(TF_ROOTS)})\b)\S+\s+)?import\b[^\n]*(?<![\w.]){n}\b"
        ),
    )


def needs_scope_analysis(text: str, aliases: Mapping[str, set[str]]) -> bool:
    """Whether an alias name may be bound by something other than its TF import.

    Over-approximates on purpose: a false alarm only costs the slower scope analysis.
    """
    lines = text.split("\n")
    for local, targets in aliases.items():
        if len(targets) > 1:
            return True
        patterns = _rebinding_patterns(local)
        # Only lines naming ``local`` can bind it on their own: the patterns that fit on one line
        # (and backtrack over it) read those alone, not the whole file; a pattern that may span
        # lines is tried where it can start (``:=``, ``def``).
        naming = [line for line in lines if local in line]
        if any(patterns.assignment.match(line) or patterns.on_its_line.search(line) for line in naming):
            return True
        if ":=" in text and patterns.walrus.search(text):
            return True
        start = text.find("def")
        while start != -1:
            if patterns.parameter.match(text, start):
                return True
            start = text.find("def", start + 3)
        for line in naming:
            match = patterns.other_import.match(line)
            if match is not None and not any(re.search(rf"\b{root}\b", match.group(0)) for root in TF_ROOTS):
                return True
    return False


class TFNames:
    """Resolves expressions in one module tree to qualified TensorFlow names."""

    def __init__(
        self,
        module: cst.Module,
        aliases: Mapping[str, set[str]],
        scopes: Optional[Mapping[cst.CSTNode, Optional[Scope]]] = None,
    ) -> None:
        self.module = module
        self.aliases = {local: next(iter(t)) for local, t in aliases.items() if len(t) == 1}
        #: Names that imports bind to more than one TF module (``try: import tensorflow.compat.v1
        #: as tf`` / ``except ImportError: import tensorflow as tf``): they resolve to nothing.
        self.ambiguous = {local: frozenset(t) for local, t in aliases.items() if len(t) > 1}
        self._scopes = scopes
        #: id(node) -> (node, its qualified name): codemods ask about the same nodes many times.
        self._qualified: dict[int, tuple[cst.CSTNode, Optional[str]]] = {}
        self._symbols: dict[str, Optional[TFSymbol]] = {}  # qualified name -> its TF symbol

    @classmethod
    def for_module(
        cls,
        module: cst.Module,
        scopes: Optional[Mapping[cst.CSTNode, Optional[Scope]]] = None,
    ) -> "TFNames":
        return cls(module, tf_import_aliases(module), scopes)

    def share_resolutions(self, earlier: "TFNames") -> None:
        """Resolve through ``earlier``'s table of resolved names (another tree of the same file)
        when both resolve names alike: the same imports, and no scope analysis. A node's name
        then means the same in both, and the trees share the nodes their edits left alone."""
        if (
            self._scopes is None
            and earlier._scopes is None
            and self.aliases == earlier.aliases
            and self.ambiguous == earlier.ambiguous
        ):
            self._qualified = earlier._qualified
            self._symbols = earlier._symbols

    @property
    def has_tensorflow(self) -> bool:
        return bool(self.aliases)

    # -- resolution -------------------------------------------------------------------------

    def _resolve_root(self, name: cst.Name) -> Optional[str]:
        if self._scopes is None:
            return self.aliases.get(name.value)
        scope = self._scopes.get(name)
        if scope is None:
            return None
        assignments = scope[name.value]
        targets = set()
        for assignment in assignments:
            if not isinstance(assignment, Assignment):
                return None
            bound = dict(import_bindings(assignment.node)).get(name.value)
            if bound is None:
                return None
            targets.add(bound)
        return targets.pop() if len(targets) == 1 else None

    def qualify(self, node: cst.CSTNode) -> Optional[str]:
        """``tensorflow.compat.v1.placeholder`` for ``tf.placeholder`` under that import."""
        kind = type(node)
        if kind is cst.Name and self._scopes is None:
            return self.aliases.get(node.value)  # a lookup: cheaper than remembering it
        if kind is not cst.Attribute and kind is not cst.Name:
            return None
        known = self._qualified.get(id(node))
        if known is not None and known[0] is node:
            return known[1]
        qualified = self._qualify(node)
        self._qualified[id(node)] = (node, qualified)  # the node is kept: its id stays its own
        return qualified

    def _qualify(self, node: cst.CSTNode) -> Optional[str]:
        # ``tf.nn.relu`` is ``tf.nn`` qualified, and ``.relu``: each part of a dotted name is
        # qualified once (the walks ask about the parts too), and most roots are not TF's.
        kind = type(node)
        if kind is cst.Attribute:
            base = self.qualify(node.value)
            return None if base is None else f"{base}.{node.attr.value}"
        if kind is cst.Name:
            return self._resolve_root(node)
        return None

    def tf_symbol(self, node: cst.CSTNode) -> Optional[TFSymbol]:
        """The TF API path of ``node`` with ``compat.v1``/``compat.v2`` stripped."""
        qualified = self.qualify(node)
        if qualified is None:
            return None
        if qualified in self._symbols:
            return self._symbols[qualified]
        found = None
        dotted = qualified + "."
        for prefix, v1, v2 in _TF_PREFIXES:
            if dotted.startswith(prefix):
                rest = dotted[len(prefix) : -1]
                found = TFSymbol(rest, v1, v2) if rest else None
                break
        self._symbols[qualified] = found
        return found

    def is_tf(self, node: cst.CSTNode, *paths: str) -> bool:
        """Whether ``node`` names one of ``paths`` (relative to TF, any namespace)."""
        symbol = self.tf_symbol(node)
        return symbol is not None and symbol.path in paths

    def keras_path(self, node: cst.CSTNode) -> Optional[str]:
        """``"layers.Dense"`` for ``keras.layers.Dense`` / ``tf.keras.layers.Dense`` / ...."""
        qualified = self.qualify(node)
        if qualified is None:
            return None
        qualified += "."
        for prefix in KERAS_PREFIXES:
            if qualified.startswith(prefix):
                return qualified[len(prefix) : -1] or None
        return None

    # -- emission ---------------------------------------------------------------------------

    def alias_of(self, qualified: str) -> Optional[str]:
        """A local name bound to exactly ``qualified`` by an import, if any."""
        for local, target in sorted(self.aliases.items()):
            if target == qualified:
                return local
        return None

    def tf2_prefix(self) -> tuple[str, bool]:
        """How emitted code should spell the TF2 top level, and whether an import is needed.

        Returns ``(prefix, add_import)``: the file's ``import tensorflow as X`` alias if it has
        one; else, when ``tf`` is taken by ``tensorflow.compat.v1``, ``tf.compat.v2`` (which
        compat-v1-import shortens once the file no longer needs v1); else ``tf`` with a new
        ``import tensorflow as tf``, or a plain ``import tensorflow`` if ``tf`` is taken.
        """
        alias = self.alias_of("tensorflow")
        if alias is not None:
            return alias, False
        v1 = self.alias_of("tensorflow.compat.v1")
        if v1 is not None:
            return f"{v1}.compat.v2", False
        if "tf" in self.aliases:
            return "tensorflow", True
        return "tf", True


def qualified_tf_names(module: cst.Module) -> set[str]:
    """The qualified TF names (``tensorflow.math.log``) that whole attribute chains of ``module``
    name, imports excluded: what a file asks of the TensorFlow it runs on."""
    return set(tf_name_spellings(module).values())


def tf_name_spellings(module: cst.Module) -> dict[str, str]:
    """Each whole TF attribute chain of ``module`` as written (``tf.math.log``) -> its qualified
    name (``tensorflow.math.log``), imports excluded."""
    names = TFNames.for_module(module)
    inner: set[int] = set()
    found: dict[str, str] = {}
    for node in walk(module, code_only=True):
        if isinstance(node, (cst.Import, cst.ImportFrom)):
            inner.update(id(n) for n in walk(node, code_only=True))
        if isinstance(node, cst.Attribute):
            inner.add(id(node.value))
        if isinstance(node, (cst.Attribute, cst.Name)) and id(node) not in inner:
            qualified = names.qualify(node)
            if qualified is not None and qualified.startswith("tensorflow"):
                found[dotted_name(node) or qualified] = qualified
    return found
