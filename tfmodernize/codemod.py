"""The codemod contract: ``TFCodemod``, the base of every codemod, and ``Decline``.

A codemod has a stable ``code`` (``TFM1xx`` migration, ``TFM2xx`` TF2 fix, ``TFM3xx`` finding
only), a kebab-case ``name``, a one-line ``summary``, a ``safety`` level and a docstring in six
parts (What it does / Why it matters / Before / After / Fix safety / Declines when; checked by
``tfmodernize/registry.py``). It never touches files: the engine hands it a module tree and
collects the fixes and findings it records in the file's ``FileState``.

Detection is shared: each codemod names the node types it wants (``interests``) and answers
``detect(node, names)`` for them; the engine makes one traversal for all codemods and only
those that detected something run their transform.

The hook contract. ``TFCodemod`` subclasses LibCST's ``VisitorBasedCodemodCommand`` for its
context and ``transform_module`` entry point, but its transform is plan-then-apply: ``plan``
walks the tree read-only (``treewalk``), calling the subclass's ``visit_X(node)`` and
``leave_X(node)`` hooks with the nodes of the tree it received; a ``leave_X`` hook returns
nothing, it records edits (``replace``, ``insert_before``/``insert_after``, ``remove``,
``add_import``/``remove_import``), each approved by ``fix`` or reported with ``report``, and
``edits.apply`` makes them all in one pass after the walk. Unlike a LibCST transformer, a
hook never returns a new node, and never sees one.
"""

from __future__ import annotations

import re
from dataclasses import replace
from enum import Enum
from functools import lru_cache
from typing import Callable, ClassVar, Mapping, Optional, Sequence

import libcst as cst
from libcst.codemod import Codemod, CodemodContext, VisitorBasedCodemodCommand

from tfmodernize.edits import Edits, Replacement
from tfmodernize.file_state import FileState
from tfmodernize.imports import ImportRequest, plan as plan_imports
from tfmodernize.results import Finding, Fix, Obligation
from tfmodernize.tfsymbols import TFNames, import_bindings
from tfmodernize.treewalk import dispatch, visit

SUPPRESSION = re.compile(r"#\s*tfmodernize:\s*ignore(?:\[([^\]]*)\])?")


@lru_cache(maxsize=4096)
def _dotted_name(code: str) -> cst.BaseExpression:
    """``tf.nn.relu`` parsed, once per spelling: nodes never change, and the applier copies
    what an edit brings in (``edits``), so the same node may be handed out again."""
    return cst.parse_expression(code)


class Safety(str, Enum):
    SAFE = "safe"  # behaviour preserved: applied by default
    UNSAFE = "unsafe"  # applied only with --unsafe-fixes


#: (codemod class, "visit_"/"leave_", node type) -> the name of its hook, or None.
_HOOKS: dict[tuple[type, str, type], Optional[str]] = {}


class Decline(Exception):
    """A rewrite a codemod will not make: ``node`` says where (a node of the tree the codemod
    received), ``reason`` what it is and what the user can do. Raised anywhere in a codemod;
    caught where the declined piece ends (a call, a graph unit, the file) and reported with
    ``TFCodemod.declined``. One escaping ``transform_module_impl`` declines the whole file."""

    def __init__(self, node: cst.CSTNode, reason: str) -> None:
        super().__init__(reason)
        self.node = node
        self.reason = reason


class TFCodemod(VisitorBasedCodemodCommand):
    """Base of every tfmodernize codemod.

    Subclasses set the class attributes below, implement ``detect`` for their ``interests``
    and the usual LibCST ``visit_*``/``leave_*`` methods. Inside a transform, ``self.tf``
    resolves TF names for the current tree; ``self.fix(...)`` must approve every rewrite and
    ``self.report(...)`` records a finding. Pass *original* nodes to both (positions are
    computed on the tree the codemod received).
    """

    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    safety: ClassVar[Safety] = Safety.SAFE
    #: Strings of which at least one must occur in the source for the codemod to apply.
    needles: ClassVar[tuple[str, ...]] = ()
    #: Strings that must all occur in the source too (``GradientTape`` for a codemod about
    #: code inside a tape: a file without one cannot need it).
    required_text: ClassVar[tuple[str, ...]] = ()
    #: Node types ``detect`` is called with during the shared traversal.
    interests: ClassVar[tuple[type[cst.CSTNode], ...]] = ()
    #: TF paths (``"train.Saver"``) whose calls detect this codemod: with ``cst.Call`` in
    #: ``interests``, the engine matches every call's TF path against them (read once per call,
    #: for all codemods) and asks ``detect`` only about the other node types; empty: ``detect``
    #: is asked about calls too (by default it says yes to every interesting node).
    detects: ClassVar[tuple[str, ...]] = ()
    #: Whether ``detect`` says no to every ``Name`` and ``Attribute`` that names no TF symbol:
    #: the engine then does not ask it about those (most of a file's names).
    detects_tf_names_only: ClassVar[bool] = False
    #: Whether this codemod's rewrites are TF2 code that only runs with v2 behaviour (eager
    #: execution, ``tf.function``, ``GradientTape``). In a file another codemod keeps on
    #: ``tf.compat.v1`` (``FileState.keep_on_v1``) the engine drops them: a file is migrated
    #: whole or kept on v1 whole, never a mixture that runs on neither.
    requires_tf2: ClassVar[bool] = False
    #: Codes of codemods this one must run before although its code sorts after theirs (a
    #: migration that prepares what an earlier-numbered one reads).
    runs_before: ClassVar[tuple[str, ...]] = ()
    #: Whether ``summarize`` says something the modules importing a file need (set by a
    #: subclass that overrides it; see ``tfmodernize.project``).
    summarizes: ClassVar[bool] = False

    METADATA_DEPENDENCIES = ()

    #: ``visit_*``/``leave_*`` hook names each subclass defines, for fast dispatch.
    _hooks: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        cls._hooks = frozenset(
            n
            for n in dir(cls)
            if n.startswith(("visit_", "leave_")) and getattr(cls, n) is not getattr(cst.CSTTransformer, n, None)
        )

    def __init__(self, context: CodemodContext, state: Optional[FileState] = None) -> None:
        # Codemod.__init__ only: LibCST's matcher-decorator machinery (which scans every
        # attribute of the class on construction and on every node) is not used here.
        Codemod.__init__(self, context)
        self.state = state if state is not None else FileState(text="")
        self.tf: TFNames = TFNames(cst.Module(body=[]), {})
        self.edits = Edits()
        self._imports_added: list[ImportRequest] = []
        self._imports_removed: list[ImportRequest] = []

    # -- dispatch of the planning walk (``treewalk.visit``): hook names precomputed per class --

    def on_visit(self, node: cst.CSTNode) -> bool:
        name = self._hook("visit_", type(node))
        return name is None or getattr(self, name)(node) is not False

    def on_leave(self, original_node: cst.CSTNode) -> None:
        name = self._hook("leave_", type(original_node))
        if name is not None:
            getattr(self, name)(original_node)

    @classmethod
    def _hook(cls, prefix: str, kind: type) -> Optional[str]:
        """The name of the class's ``visit_X``/``leave_X`` hook for node type ``kind``, or None (cached)."""
        key = (cls, prefix, kind)
        if key not in _HOOKS:
            name = prefix + kind.__name__
            _HOOKS[key] = name if name in cls._hooks else None
        return _HOOKS[key]

    @property
    def DESCRIPTION(self) -> str:  # noqa: N802 - LibCST's name for the summary
        return self.summary

    # -- detection (class level: runs in the shared traversal) ------------------------------

    @classmethod
    def summarize(cls, module: cst.Module, names: TFNames) -> Optional[object]:
        """What this codemod needs to know of ``module`` when rewriting a file that imports it
        (JSON-serialisable; None: nothing). Runs in the project pre-pass, on the text the run
        leaves the module with."""
        return None

    def local_module(self, name: str) -> tuple[bool, Optional[object]]:
        """Whether ``name`` is a module of the user's project beside this file, and what this
        codemod's ``summarize`` said of it when it is part of the run (None when it is not)."""
        if name not in self.state.project:
            return False, None
        summaries = self.state.project[name]
        return True, (summaries or {}).get(self.code)

    @classmethod
    def wanted_by(cls, state: "FileState") -> bool:
        """Whether the file's place in its project asks this codemod to plan the file whatever
        its text and nodes: the project modules it imports (``FileState.project``: a module
        whose function became a class, whose calls here must follow), or the project staying on
        TF1 (``FileState.project_on_v1``). Cheap: called on every file."""
        return False

    @classmethod
    def applies_to_text(cls, text: str) -> bool:
        return (not cls.needles or any(needle in text for needle in cls.needles)) and all(
            required in text for required in cls.required_text
        )

    @classmethod
    def detect(cls, node: cst.CSTNode, names: TFNames) -> bool:
        """Whether ``node`` (one of ``interests``) may need this codemod. Cheap and pure. By
        default: a call of one of ``detects`` (every node when ``detects`` is empty)."""
        if not cls.detects:
            return True
        return isinstance(node, cst.Call) and names.is_tf(node.func, *cls.detects)

    # -- transform ---------------------------------------------------------------------------

    def visit_Import(self, node: cst.Import) -> bool:
        # Import statements are not expressions: a codemod that rewrites them overrides this.
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def transform_module(self, tree: cst.Module) -> cst.Module:
        """Plan on ``tree`` (``plan``), then make the planned edits in one pass (``edits.apply``)."""
        if self.state.parsed is None:
            self.state.parsed = tree  # run on its own, outside the engine
        wrapper = self.state.wrapper(tree)
        previous = self.context.wrapper
        self.context = replace(self.context, wrapper=wrapper)
        self.edits = Edits()
        fixes_before = len(self.state.fixes)
        try:
            with self.resolve(wrapper):
                self.tf = self.state.names(tree)
                self.plan(tree)
        except Decline as decline:
            # Nothing of a declined plan is made, nor reported as made.
            del self.state.fixes[fixes_before:]
            self._imports_added, self._imports_removed = [], []
            self.declined(decline)
            self.edits = Edits()
        finally:
            self.context = replace(self.context, wrapper=previous)
        new = self.state.apply(tree, self.edits)
        if new is not tree:
            self._drop_orphaned_imports(self.state.orphaned_aliases(tree, new))
        if self._imports_added or self._imports_removed:
            new = self.state.apply(new, plan_imports(new, self._imports_added, self._imports_removed))
        return new

    def done(self) -> None:
        """Forget what planning kept: the trees' nodes, the edits (their functions hold this
        codemod), collaborators holding it. The engine runs a codemod once; what it kept in
        such reference cycles would wait for the cycle collector, which scans all of it."""
        self.__dict__.clear()

    def plan(self, module: cst.Module) -> None:
        """Analyse ``module`` and record edits (``replace``, ``insert_before``, ``insert_after``,
        ``remove``). By default: one read-only walk calling the ``visit_*``/``leave_*`` hooks,
        each with the node of ``module`` it is about."""
        cls = type(self)
        if cls.on_visit is TFCodemod.on_visit and cls.on_leave is TFCodemod.on_leave:
            dispatch(module, *self._bound_hooks())
        else:  # a codemod that intercepts every node
            visit(module, self)

    def _bound_hooks(self) -> tuple[dict[type, Callable], dict[type, Callable]]:
        """This codemod's ``visit_X``/``leave_X`` methods by node type, for ``treewalk.dispatch``."""
        visits: dict[type, Callable] = {}
        leaves: dict[type, Callable] = {}
        for name in type(self)._hooks:
            prefix, _, kind = name.partition("_")
            node_type = getattr(cst, kind, None)
            if isinstance(node_type, type) and issubclass(node_type, cst.CSTNode):
                (visits if prefix == "visit" else leaves)[node_type] = getattr(self, name)
        return visits, leaves

    # -- edits: each tied to a node of the tree being planned on ------------------------------

    def replace(self, node: cst.CSTNode, new: Replacement) -> None:
        """``node`` becomes ``new``: a node, or a function of ``node`` as rebuilt with the edits
        below it (then nested edits compose)."""
        self.edits.replace(node, new)

    def insert_before(self, statement: cst.CSTNode, statements: Sequence[cst.CSTNode]) -> None:
        self.edits.insert_before(statement, statements)

    def insert_after(self, statement: cst.CSTNode, statements: Sequence[cst.CSTNode]) -> None:
        self.edits.insert_after(statement, statements)

    def remove(self, statement: cst.CSTNode) -> None:
        self.edits.remove(statement)

    def add_import(self, module: str, obj: Optional[str] = None, asname: Optional[str] = None) -> None:
        """Make sure the file has ``import module [as asname]`` / ``from module import obj [as asname]``."""
        self._imports_added.append(ImportRequest(module, obj, asname))

    def remove_import(self, module: str, obj: Optional[str] = None, asname: Optional[str] = None) -> None:
        """Drop that import once this codemod's edits are made, if nothing reads what it binds."""
        self._imports_removed.append(ImportRequest(module, obj, asname))

    @staticmethod
    def from_imports(module: cst.Module) -> dict[str, str]:
        """Local name -> qualified name of what the module's top-level ``from tensorflow...
        import x`` statements bind (for ``drop_from_import_of``)."""
        return {
            local: qualified
            for statement in module.body
            if isinstance(statement, cst.SimpleStatementLine)
            for small in statement.body
            if isinstance(small, cst.ImportFrom)
            for local, qualified in import_bindings(small)
        }

    def drop_from_import_of(self, replaced: cst.BaseExpression, imported: Mapping[str, str]) -> None:
        """Drop the ``from tensorflow... import x`` (``imported``: ``from_imports``) that the
        expression a rewrite replaced (``x.fully_connected``) read, if that was its last use."""
        root = replaced
        while isinstance(root, cst.Attribute):
            root = root.value
        if not isinstance(root, cst.Name) or root.value not in imported:
            return
        module, _, obj = imported[root.value].rpartition(".")
        self.remove_import(module, obj, asname=root.value if root.value != obj else None)

    def _drop_orphaned_imports(self, orphaned: list[tuple[str, str]]) -> None:
        """A TF import this rewrite left unused (``tf`` once flags moved to absl) goes too:
        ``orphaned`` is ``FileState.orphaned_aliases``."""
        for alias, qualified in orphaned:
            module, _, name = qualified.rpartition(".")
            if alias == qualified.split(".", 1)[0] and "." not in qualified:
                self.remove_import(qualified)
            elif qualified == "tensorflow" or qualified.startswith("tensorflow.compat."):
                self.remove_import(qualified, asname=alias)
            else:
                self.remove_import(module, name, asname=alias if alias != name else None)

    def _position(self, node: cst.CSTNode) -> tuple[int, int, int, int]:
        return self.state.position(node)

    def suppressed(self, node: cst.CSTNode) -> bool:
        """Whether a ``# tfmodernize: ignore[...]`` comment on the node's lines silences it."""
        if "tfmodernize:" not in self.state.text:
            return False
        start, _, end, _ = self._position(node)
        for line in self.state.lines()[start - 1 : end]:
            for match in SUPPRESSION.finditer(line):
                if match.group(1) is None:
                    return True
                wanted = {part.strip() for part in match.group(1).split(",")}
                if self.code in wanted or self.name in wanted:
                    return True
        return False

    def fix(
        self,
        node: cst.CSTNode,
        message: str,
        *,
        safe: bool = True,
        suggestion: Optional[str] = None,
    ) -> bool:
        """Ask to rewrite ``node``; returns whether the rewrite may go ahead.

        A fix is unsafe when the codemod is, or when this occurrence is (``safe=False``).
        Unsafe fixes without ``--unsafe-fixes`` become findings carrying the suggestion.
        """
        if self.suppressed(node):
            return False
        unsafe = self.safety is Safety.UNSAFE or not safe
        if unsafe and not self.state.unsafe_fixes:
            self.report(
                node,
                f"{message} (unsafe fix: use --unsafe-fixes)",
                suggestion=suggestion,
                check_suppressed=False,
                unsafe_fix=True,
            )
            return False
        line, column, _, _ = self._position(node)
        self.state.fixes.append(Fix(self.code, self.name, message, line, column))
        return True

    def report(
        self,
        node: cst.CSTNode,
        message: str,
        *,
        suggestion: Optional[str] = None,
        check_suppressed: bool = True,
        unsafe_fix: bool = False,
    ) -> None:
        """Record a finding at ``node`` (unless suppressed)."""
        if check_suppressed and self.suppressed(node):
            return
        line, column, end_line, end_column = self._position(node)
        self.state.findings.append(
            Finding(
                self.code, self.name, message, line, column, end_line, end_column, suggestion, unsafe_fix=unsafe_fix
            )
        )
        self.warn(f"{self.code} line {line}: {message}")

    def declined(self, decline: Decline, prefix: str = "") -> None:
        """Report a ``Decline`` as this codemod's finding at its node."""
        self.report(decline.node, prefix + decline.reason)

    def oblige(self, needs: str, reason: str) -> None:
        """Declare that this rewrite is only valid if codemod ``needs`` later completes it."""
        self.state.obligations.append(Obligation(self.code, needs, reason))

    def discharge(self, needs: Optional[str] = None) -> bool:
        """Fulfil one obligation placed on this codemod (or on ``needs``)."""
        return self.state.discharge(needs or self.code)

    # -- emitting TF code -------------------------------------------------------------------

    def tf_expr(self, path: str, *, spell_v2: bool = False) -> cst.BaseExpression:
        """An expression naming TF2's ``tf.<path>``, through the alias in scope.

        Adds ``import tensorflow as tf`` (or ``import tensorflow``) when the file has no
        alias for the TF2 top level. ``spell_v2`` writes ``tf.compat.v2.<path>``: for a name
        that TF1 code also uses with another meaning, in a file that is still TF1 code.
        """
        return _dotted_name(f"{self.tf_root(spell_v2=spell_v2)}.{path}")

    def tf_root(self, *, spell_v2: bool = False) -> str:
        """The code naming TF2's top level through the alias in scope (``tf``, ``tf.compat.v2``),
        for code written as text: ``f"{root}.reduce_mean(x)"``. Adds the import as ``tf_expr``."""
        prefix, add_import = self.tf.tf2_prefix()
        if spell_v2 and not prefix.endswith(".compat.v2"):
            prefix += ".compat.v2"
        if add_import:
            if prefix == "tf":
                self.add_import("tensorflow", asname="tf")
            else:
                self.add_import("tensorflow")
        return prefix
