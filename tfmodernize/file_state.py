"""``FileState``: what the codemods running on one file share: its text and parsed tree, the
facts its project gives it, the trees' metadata (computed once per tree version), and the
fixes, findings and obligations the codemods record."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Callable, Optional, TypeVar

import libcst as cst
from libcst.metadata import MetadataWrapper, ScopeProvider

from tfmodernize.edits import Edits, apply as apply_edits, parents
from tfmodernize.positions import Positions
from tfmodernize.results import Finding, Fix, Obligation
from tfmodernize.tfsymbols import TFNames, tf_import_aliases
from tfmodernize.treewalk import children

T = TypeVar("T")


@dataclass
class FileState:
    """Per-file facts and results shared by all codemods running on one file.

    Obligations make multi-codemod migrations atomic: a codemod whose output is only valid
    after a later codemod has rewritten part of it calls ``oblige``; that later codemod calls
    ``discharge`` for each piece it completes. If any obligation is left when all codemods
    have run, the engine re-runs the file without the obliging codemod, so a file is never
    left half-migrated (e.g. session-to-function leaving a TF1 ``minimize`` in a function
    because minimize-to-tape was not selected or declined).
    """

    text: str
    needs_scope: bool = False
    #: The project modules this file can import: name -> {code: summary}, or None when the module
    #: exists beside the file but is not in the run (``tfmodernize.project``).
    project: dict = field(default_factory=dict)
    #: How the other files of the run use this module's functions: name -> uses (``line``,
    #: ``call``, ``top_level``, ``file``), or None when no file of the run imports this one;
    #: see ``tfmodernize.project``.
    callers: Optional[dict] = None
    #: What a rewrite tells the files importing this one, by codemod code (JSON-serialisable:
    #: a function that became a class, and how to call it); merged into the module's summary.
    exports: dict = field(default_factory=dict)
    #: Why a file importing this one stays on TF1 (``"main.py calls it and stays on TF1 (...)"``), or None: a
    #: rewrite that changes what the importers must call (and would export it) declines then,
    #: saying so.
    exports_refused: Optional[str] = None
    #: Why the project this file belongs to stays on TF1 (``"model.py, which it imports, stays on
    #: TF1: tf.placeholder (line 12) has no TF2 migration there"``), or None. A script and the
    #: project modules it imports run in one process, with v2 behaviour on or off for all of
    #: them: such a file is kept on ``tf.compat.v1`` with the rest (compat-fallback).
    project_on_v1: Optional[str] = None
    unsafe_fixes: bool = False
    fixes: list[Fix] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    obligations: list[Obligation] = field(default_factory=list)
    #: What keeps the file on TF1 when a codemod keeps it on ``tf.compat.v1`` instead of
    #: migrating it: each distinct construct (``"tf.Session"``) with its first line, in source
    #: order; empty for a file that is TF2 code.
    kept_on_v1: list[tuple[str, int]] = field(default_factory=list)
    #: The tree parsed from ``text``: positions are always its own (``position``).
    parsed: Optional[cst.Module] = field(default=None, repr=False)
    #: Node built by an edit -> the node it stands for (``edits`` module docstring).
    origin: dict = field(default_factory=dict, repr=False)
    #: Node an edit brought in -> the parsed node it replaced or was inserted beside.
    anchor: dict = field(default_factory=dict, repr=False)
    _wrapper: Optional[MetadataWrapper] = field(default=None, repr=False)
    _names: Optional[tuple[cst.Module, TFNames]] = field(default=None, repr=False)
    #: (id of a top-level statement, name) -> (the statement, whether its code reads the name
    #: outside imports).
    _statement_reads: dict = field(default_factory=dict, repr=False)
    #: (id of a tree, reader) -> (the tree, what the reader read off it): ``reading``.
    _readings: dict = field(default_factory=dict, repr=False)
    _parents: Optional[tuple[cst.Module, dict]] = field(default=None, repr=False)
    #: CPython's tree of ``text`` (the engine's syntax check), for the lines of top-level statements.
    syntax: Optional[ast.Module] = field(default=None, repr=False)
    _parsed_parents: Optional[dict] = field(default=None, repr=False)
    _positions: Optional[Positions] = field(default=None, repr=False)
    _lines: Optional[list[str]] = field(default=None, repr=False)

    def wrapper(self, module: cst.Module) -> MetadataWrapper:
        """The metadata wrapper of ``module``, shared by every codemod that sees this tree.

        Metadata (scopes, parents) is computed once per tree version, and only when a codemod
        asks for it. Every node of a tree the engine hands out is unique (a fresh parse, or a
        tree ``edits.apply`` made), so the wrapper does not copy the tree.
        """
        if self._wrapper is None or self._wrapper.module is not module:
            self._wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        return self._wrapper

    def names(self, module: cst.Module) -> TFNames:
        """TF names of ``module`` (with scope analysis when the file needs it), once per tree version."""
        if self._names is None or self._names[0] is not module:
            scopes = self.wrapper(module).resolve(ScopeProvider) if self.needs_scope else None
            names = TFNames.for_module(module, scopes)
            if self._names is not None:
                # The codemods' successive trees share the nodes their edits left alone.
                names.share_resolutions(self._names[1])
            self._names = (module, names)
        return self._names[1]

    def reading(self, module: cst.Module, reader: Callable[[cst.Module, TFNames, dict], T]) -> T:
        """``reader(module, self.names(module), self.project)``, read once per tree version for
        every codemod that asks (``analysis.module_variables.inventory``): what it returns is shared,
        so no codemod changes it."""
        known = self._readings.get((id(module), reader))
        if known is None or known[0] is not module:
            known = self._readings[(id(module), reader)] = (module, reader(module, self.names(module), self.project))
        return known[1]

    def orphaned_aliases(self, old: cst.Module, new: cst.Module) -> list[tuple[str, str]]:
        """The names TF imports of ``old`` bind (to one module or object each) that code outside
        imports reads in ``old`` and no longer in ``new``, its rewrite: ``(name, what it binds)``.

        The names each top-level statement reads are read once per file (the codemods' trees
        share the statements their edits left alone), and only as far as the answer needs: a
        name read in the statements a rewrite made, or in the first statements it left alone,
        settles it there.
        """
        known = self._names
        before = known[1].aliases if known is not None and known[0] is old else _single_aliases(old)
        if not before:
            return []
        after = _single_aliases(new)
        old_ids = {id(statement) for statement in old.body}
        new_ids = {id(statement) for statement in new.body}
        gone = [s for s in old.body if id(s) not in new_ids]
        came = [s for s in new.body if id(s) not in old_ids]
        kept = [s for s in new.body if id(s) in old_ids]
        orphaned = []
        for name, qualified in before.items():
            if name in after:
                # Read before: in the statements kept or those gone; after: in those kept or new.
                # Those gone first: a name they did not read is not orphaned, whatever came.
                gone_read = self._read_in(gone, name)
                if gone_read and not (self._read_in(came, name) or self._read_in(kept, name)):
                    orphaned.append((name, qualified))
            elif self._read_in(gone, name) or self._read_in(kept, name):  # no import binds it any more
                orphaned.append((name, qualified))
        return orphaned

    def _read_in(self, statements: list[cst.CSTNode], name: str) -> bool:
        """Whether code in ``statements`` (top-level ones) outside import statements reads ``name``."""
        for statement in statements:
            key = (id(statement), name)
            known = self._statement_reads.get(key)
            if known is None or known[0] is not statement:
                known = self._statement_reads[key] = (statement, _reads(statement, name))
            if known[1]:
                return True
        return False

    @property
    def exports_allowed(self) -> bool:
        """Whether a rewrite may change what the files importing this one call."""
        return self.exports_refused is None

    def parents(self, module: cst.Module) -> dict:
        """Each code node's parent in ``module`` (``edits.parents``), once per tree version."""
        if self._parents is None or self._parents[0] is not module:
            # The parsed tree's map is kept for positions: never computed twice.
            known = self._parsed_parents if module is self.parsed else None
            self._parents = (module, known if known is not None else parents(module))
            if module is self.parsed:
                self._parsed_parents = self._parents[1]
        return self._parents[1]

    def know_parents(self, module: cst.Module, parent_of: dict) -> None:
        """``parent_of`` is ``edits.parents(module)``, read on a walk made anyway (the engine's
        detection walk): ``parents`` need not walk the tree again."""
        self._parents = (module, parent_of)
        if module is self.parsed:
            self._parsed_parents = parent_of

    def apply(self, module: cst.Module, edits: Edits) -> cst.Module:
        """``module`` with ``edits`` made (``edits.apply``)."""
        if not edits:
            return module
        parent_of = self.parents(module)
        built: list[cst.CSTNode] = []
        new = apply_edits(module, edits, self.origin, self.anchor, parent_of, built)
        if new is not module:
            # The new tree's map is the old one with the children of every node built here
            # entered again, each under the last node built holding it (nodes are built after
            # those below them): what an edit left alone keeps its parent. The parsed tree's
            # own map stays as it is, for positions.
            if parent_of is self._parsed_parents:
                parent_of = dict(parent_of)
            for node in built:
                below = children(node, code_only=True)
                if below:
                    parent_of.update(dict.fromkeys(map(id, below), node))
            self._parents = (new, parent_of)
        return new

    def position(self, node: cst.CSTNode) -> tuple[int, int, int, int]:
        """(line, column, end line, end column), 1-based, of ``node`` in the file as written:
        a node an edit built has the position of what it stands for, or of where it went."""
        positions = self._parsed_positions()
        where = positions.range_of(self.origin.get(node, node))
        if where is None and node in self.anchor:
            where = positions.range_of(self.anchor[node])
        if where is None:
            return (1, 1, 1, 1)
        return (where.start.line, where.start.column + 1, where.end.line, where.end.column + 1)

    def _parsed_positions(self) -> Positions:
        """The positions of the parsed tree's nodes (``positions.Positions``), made on first use."""
        assert self.parsed is not None, "the engine sets FileState.parsed"
        if self._positions is None or self._positions.parsed is not self.parsed:
            if self._parsed_parents is None:
                current = self._parents
                self._parsed_parents = (
                    current[1] if current is not None and current[0] is self.parsed else parents(self.parsed)
                )
            self._positions = Positions(self.text, self.parsed, self.syntax, self._parsed_parents)
        return self._positions

    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = self.text.splitlines()
        return self._lines

    def release(self) -> None:
        """Drop the trees and what was read off them, once the file is done: what the codemods
        said (fixes, findings, obligations, what keeps the file on v1, exports) stays."""
        self.parsed = self.syntax = self._wrapper = self._names = self._parents = None
        self._parsed_parents = self._positions = None
        self.origin, self.anchor, self._statement_reads, self._readings = {}, {}, {}, {}

    def keep_on_v1(self, construct: str, line: int) -> None:
        """Record that the file stays TF1 code (on ``tf.compat.v1``) because of ``construct``."""
        if all(construct != known for known, _ in self.kept_on_v1):
            self.kept_on_v1.append((construct, line))

    def discharge(self, needs: str) -> bool:
        """Mark one obligation on codemod ``needs`` fulfilled; False if there was none."""
        for index, obligation in enumerate(self.obligations):
            if obligation.needs == needs:
                del self.obligations[index]
                return True
        return False


def _single_aliases(module: cst.Module) -> dict[str, str]:
    """Each name TF imports of ``module`` bind to one module or object -> what it binds."""
    return {local: next(iter(targets)) for local, targets in tf_import_aliases(module).items() if len(targets) == 1}


def _reads(statement: cst.CSTNode, name: str) -> bool:
    """Whether code in ``statement`` reads ``name`` outside import statements (the names of
    attributes and keywords included: ``x.tf`` reads ``tf`` here). The walk stops at the first
    such name: most statements a rewrite touches read the alias early."""
    stack: list[cst.CSTNode] = [statement]
    while stack:
        current = stack.pop()
        kind = type(current)
        if kind is cst.Import or kind is cst.ImportFrom:
            continue
        if kind is cst.Name:
            if current.value == name:
                return True
            continue
        stack.extend(reversed(children(current, code_only=True)))
    return False
