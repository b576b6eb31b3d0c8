"""The codemod contract (design.md section 4): base class, fixes, findings, registry.

A codemod is a LibCST ``VisitorBasedCodemodCommand`` with a stable ``code`` (``TFM1xx``
migration, ``TFM2xx`` TF2 fix, ``TFM3xx`` finding only), a kebab-case ``name``, a one-line
``summary``, a ``safety`` level and a docstring in six parts (What it does / Why it matters /
Before / After / Fix safety / Declines when). It never touches files: the engine hands it a module tree and collects the
fixes and findings it records.

Detection is shared: each codemod names the node types it wants (``interests``) and answers
``detect(node, names)`` for them; the engine makes one traversal for all codemods and only
those that detected something run their transform.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
from dataclasses import dataclass, field, replace
from enum import Enum
from functools import lru_cache
from typing import Callable, ClassVar, Mapping, Optional, Sequence

import libcst as cst
from libcst.codemod import Codemod, CodemodContext, VisitorBasedCodemodCommand
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, ScopeProvider
from libcst.metadata.position_provider import PositionProvidingCodegenState

from tfmodernize.edits import Edits, Replacement, apply as apply_edits, parents
from tfmodernize.imports import ImportRequest, plan as plan_imports
from tfmodernize.tfsymbols import TFNames, dotted_name, import_bindings, tf_import_aliases
from tfmodernize.treewalk import children, dispatch, visit

CODE_PATTERN = re.compile(r"^TFM[123]\d\d$")
#: The catalogue's family folders (``tfmodernize/codemods/<family>/``), by code prefix.
FAMILIES = {"TFM1": "migrate", "TFM2": "tf2", "TFM3": "report"}
#: Third-party codemods (entry points) have their own code space: a prefix of their own
#: (``ACME101``, ``TFMX101``), never ``TFM`` followed by a digit.
PLUGIN_CODE_PATTERN = re.compile(r"^(?!TFM\d)[A-Z][A-Z0-9]*[A-Z]\d{3}$")
NAME_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
SUPPRESSION = re.compile(r"#\s*tfmodernize:\s*ignore(?:\[([^\]]*)\])?")
DOC_SECTIONS = ("What it does", "Why it matters", "Before", "After", "Fix safety", "Declines when")


class Safety(str, Enum):
    SAFE = "safe"  # behaviour preserved: applied by default
    UNSAFE = "unsafe"  # applied only with --unsafe-fixes


@dataclass(frozen=True)
class Finding:
    """Something a codemod reports instead of (or besides) rewriting it."""

    code: str
    name: str
    message: str
    line: int
    column: int
    end_line: int
    end_column: int
    suggestion: Optional[str] = None
    path: Optional[str] = None
    #: A fix this finding stands for, not applied because it is unsafe (``--unsafe-fixes``).
    unsafe_fix: bool = False


@dataclass(frozen=True)
class Fix:
    """One rewrite a codemod applied."""

    code: str
    name: str
    message: str
    line: int
    column: int


@dataclass(frozen=True)
class Obligation:
    """A rewrite by ``by`` that is only correct once codemod ``needs`` rewrites its output."""

    by: str
    needs: str
    reason: str


class _RangeRecorder:
    """What ``PositionProvidingCodegenState`` writes to: ``PositionProvider``'s own record."""

    def __init__(self) -> None:
        self._computed: dict[cst.CSTNode, CodeRange] = {}


def _ranges(module: cst.Module) -> dict[cst.CSTNode, CodeRange]:
    """``PositionProvider``'s range of every node of ``module``, from the provider's codegen
    state directly: a ``MetadataWrapper`` adds a visitor pass over the tree that doubles the cost."""
    recorder = _RangeRecorder()
    module._codegen(PositionProvidingCodegenState(
        default_indent=module.default_indent, default_newline=module.default_newline, provider=recorder))
    return recorder._computed


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
    _parents: Optional[tuple[cst.Module, dict]] = field(default=None, repr=False)
    _alias_uses: Optional[tuple[cst.Module, dict]] = field(default=None, repr=False)
    _statement_alias_uses: dict = field(default_factory=dict, repr=False)
    #: CPython's tree of ``text`` (the engine's syntax check), for the lines of top-level statements.
    syntax: Optional[ast.Module] = field(default=None, repr=False)
    _parsed_parents: Optional[dict] = field(default=None, repr=False)
    _statement_positions: dict = field(default_factory=dict, repr=False)
    _top_lines: Optional[dict[int, int]] = field(default=None, repr=False)
    _nested_lines: dict = field(default_factory=dict, repr=False)
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
            self._names = (module, TFNames.for_module(module, scopes))
        return self._names[1]

    def alias_uses(self, module: cst.Module) -> dict[str, tuple[str, int]]:
        """Each name a TF import of ``module`` binds -> (what it binds, how often code outside
        imports reads it); once per tree version, and counted per top-level statement, once per
        statement: the codemods' successive trees share the statements they did not change."""
        if self._alias_uses is not None and self._alias_uses[0] is module:
            return self._alias_uses[1]
        aliases = {local: next(iter(targets)) for local, targets in tf_import_aliases(module).items() if len(targets) == 1}
        uses = dict.fromkeys(aliases, 0)
        if aliases:
            wanted = frozenset(aliases)
            for statement in module.body:
                key = (statement, wanted)
                if key not in self._statement_alias_uses:
                    self._statement_alias_uses[key] = _name_counts(statement, wanted)
                for name, count in self._statement_alias_uses[key].items():
                    uses[name] += count
        found = {local: (aliases[local], count) for local, count in uses.items()}
        self._alias_uses = (module, found)
        return found

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

    def apply(self, module: cst.Module, edits: Edits) -> cst.Module:
        """``module`` with ``edits`` made (``edits.apply``)."""
        if not edits:
            return module
        return apply_edits(module, edits, self.origin, self.anchor, self.parents(module))

    def position(self, node: cst.CSTNode) -> tuple[int, int, int, int]:
        """(line, column, end line, end column), 1-based, of ``node`` in the file as written:
        a node an edit built has the position of what it stands for, or of where it went."""
        where = self._locate(self.origin.get(node, node))
        if where is None and node in self.anchor:
            where = self._locate(self.anchor[node])
        if where is None:
            return (1, 1, 1, 1)
        return (where.start.line, where.start.column + 1, where.end.line, where.end.column + 1)

    def _locate(self, node: cst.CSTNode):
        """The ``CodeRange`` of a node of the parsed tree, or None.

        Positions are computed one statement at a time, when a node in it is first asked about:
        the innermost statement holding the node (a compound statement without its blocks when
        the node is in its header), rendered alone by LibCST's position-recording codegen and
        shifted to where CPython's parser says the statement starts. A file with one finding
        does not pay for a position pass over all of it, nor a finding in a ``with`` header for
        the whole function around it. A dotted name (most findings: ``tf.contrib.layers``) is
        read off CPython's tree of the same statement instead, when it pairs surely
        (``_attribute_range``): nothing is rendered.
        """
        assert self.parsed is not None, "the engine sets FileState.parsed"
        if self._parsed_parents is None:
            current = self._parents
            self._parsed_parents = current[1] if current is not None and current[0] is self.parsed else parents(self.parsed)
        top, parent = node, self._parsed_parents.get(id(node))
        while parent is not None and parent is not self.parsed:
            top, parent = parent, self._parsed_parents.get(id(parent))
        if parent is None:
            return None  # the module itself, or not a node of the parsed tree
        holder = node
        while holder is not top and not isinstance(holder, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            holder = self._parsed_parents[id(holder)]
        if type(node) is cst.Attribute:  # most findings: read off CPython's tree, nothing rendered
            where = self._attribute_range(node, holder, top)
            if where is not None:
                return where
        elif_ = isinstance(holder, cst.If) and isinstance(self._parsed_parents.get(id(holder)), cst.If)
        if holder is not top and not elif_:  # an ``elif`` rendered alone would read ``if``
            # Inside a function or class: render the statement holding the node alone, not the
            # whole block; a compound statement (``with``, ``for``, ``def``) without its body
            # when the node is in its header.
            starts = self._nested_starts(top)
            if id(holder) in starts:
                number, column = starts[id(holder)]
                header = _header_only(holder) if holder is not node else None
                where = self._shifted(holder, node, number, self.lines()[number - 1][:column], header)
                if where is not None:
                    return where
        header = _header_only(top) if holder is top and top is not node else None
        if header is not None:  # a node of a top-level statement's header
            where = self._shifted(top, node, self._top_level_line(top), "", header)
            if where is not None:
                return where
        return self._shifted(top, node, self._top_level_line(top), "")

    def _shifted(self, statement: cst.CSTNode, node: cst.CSTNode, line: int, indent: str,
                 rendered: Optional[cst.BaseStatement] = None):
        """``node``'s range in the file, from ``statement`` (or ``rendered``, the same statement
        without its body) rendered alone at its indentation (inside a stand-in block indented by
        ``indent``, so that every line, continuation lines included, gets the columns it has in
        the file), shifted to the ``line`` it starts at."""
        key = (statement, rendered is not None)
        if key not in self._statement_positions:
            alone: cst.BaseStatement = rendered if rendered is not None else statement
            if indent:
                alone = cst.If(test=cst.Name("_"), body=cst.IndentedBlock(body=[alone], indent=indent))
            module = self.parsed.with_changes(body=[alone], header=[], footer=[])
            ranges = _ranges(module)
            self._statement_positions[key] = (ranges, ranges[rendered if rendered is not None else statement].start.line)
        ranges, start = self._statement_positions[key]
        where = ranges.get(node)
        if where is None:
            return None
        shift = line - start
        if shift == 0:
            return where
        return CodeRange(CodePosition(where.start.line + shift, where.start.column),
                         CodePosition(where.end.line + shift, where.end.column))

    def _top_level_line(self, statement: cst.CSTNode) -> int:
        if self._top_lines is None:
            self._top_lines = _top_level_lines(self.parsed, self._syntax_tree())
        return self._top_lines[id(statement)]

    def _syntax_tree(self) -> ast.Module:
        if self.syntax is None:
            self.syntax = ast.parse(self.text)
        return self.syntax

    def _nested_starts(self, top: cst.CSTNode) -> dict[int, tuple[int, int]]:
        """id(statement) -> (line number, indentation) of each simple-statement line and
        compound statement inside the top-level statement ``top``, paired with CPython's
        statements in source order; empty when they do not pair (a ``match`` statement)."""
        return self._paired(top)[0]

    def _paired(self, top: cst.CSTNode) -> tuple[dict[int, tuple[int, int]], dict[int, list[ast.stmt]]]:
        """``_pair_statements`` of the top-level statement ``top`` with CPython's (once per statement)."""
        if top not in self._nested_lines:
            index = [id(s) for s in self.parsed.body].index(id(top))
            position = sum(len(s.body) if isinstance(s, cst.SimpleStatementLine) else 1 for s in self.parsed.body[:index])
            syntax = self._syntax_tree().body
            if isinstance(top, cst.SimpleStatementLine):
                found = syntax[position:position + len(top.body)]
                self._nested_lines[top] = ({}, {id(top): found} if len(found) == len(top.body) else {})
            else:
                self._nested_lines[top] = _pair_statements(top, syntax[position]) if position < len(syntax) else ({}, {})
        return self._nested_lines[top]

    def _attribute_range(self, node: cst.Attribute, holder: cst.CSTNode, top: cst.CSTNode):
        """The ``CodeRange`` of a dotted name (``tf.contrib.layers``) read off CPython's tree:
        the same name written in the same statement is paired in source order with CPython's
        nodes of that name. None when that cannot be sure (another count, parentheses,
        characters other than ASCII on its lines): the statement is rendered then."""
        dotted = dotted_name(node)
        statements = self._paired(top)[1].get(id(holder))
        if dotted is None or not statements or node.lpar:
            return None
        code = list(_own_code(holder))
        if any(type(n) is cst.FormattedString for n in code):
            return None  # CPython's positions inside f-strings are not to be relied on
        mine = [n for n in code if type(n) is cst.Attribute and dotted_name(n) == dotted]
        theirs = sorted((n for statement in statements for n in _ast_own_code(statement)
                         if type(n) is ast.Attribute and _ast_dotted(n) == dotted),
                        key=lambda n: (n.lineno, n.col_offset))
        at = next((i for i, m in enumerate(mine) if m is node), None)
        if at is None or len(mine) != len(theirs) or any(m.lpar for m in mine):
            return None
        found = theirs[at]
        lines = self.lines()
        if found.end_lineno is None or not all(lines[row - 1].isascii() for row in range(found.lineno, found.end_lineno + 1)
                                               if row - 1 < len(lines)):
            return None
        return CodeRange(CodePosition(found.lineno, found.col_offset), CodePosition(found.end_lineno, found.end_col_offset))

    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = self.text.splitlines()
        return self._lines

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


def _top_level_lines(module: cst.Module, syntax: ast.Module) -> dict[int, int]:
    """The line where each top-level statement of ``module`` starts (its code, after its
    comments and decorators), read from CPython's tree of the same text: LibCST's ``a; b`` line
    is one statement there, two in CPython's."""
    lines: dict[int, int] = {}
    index = 0
    for statement in module.body:
        if index < len(syntax.body):
            lines[id(statement)] = syntax.body[index].lineno
        index += len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
    return lines


#: CPython statements holding other statements, and the fields holding them in source order.
_AST_BLOCKS = ("body", "handlers", "orelse", "finalbody")

#: LibCST nodes on the way from a statement to the statements inside it.
_CST_BLOCKS = (cst.BaseStatement, cst.BaseSuite, cst.ExceptHandler, cst.ExceptStarHandler, cst.Else, cst.Finally)


def _ast_statements(statement: ast.stmt, out: list[ast.stmt]) -> bool:
    """Append ``statement`` and the statements in it, in source order (a statement before
    those inside it); False for a construct that does not pair with LibCST's statements one to
    one (``match``)."""
    if isinstance(statement, ast.Match):
        return False
    out.append(statement)
    for name in _AST_BLOCKS:
        for child in getattr(statement, name, None) or ():
            for inner in (child.body if isinstance(child, ast.ExceptHandler) else [child]):
                if not _ast_statements(inner, out):
                    return False
    return True


def _pair_lines(top: cst.CSTNode, syntax: ast.stmt) -> dict[int, tuple[int, int]]:
    """id(statement) -> (line, column) where it starts (a simple-statement line: its first
    small statement; a compound statement: its keyword, after any decorators), for the
    statements nested in ``top``, from CPython's tree of the same statement; {} when the two do
    not pair."""
    return _pair_statements(top, syntax)[0]


def _pair_statements(top: cst.CSTNode, syntax: ast.stmt) -> tuple[dict[int, tuple[int, int]], dict[int, list[ast.stmt]]]:
    """``_pair_lines``, and id(statement) -> CPython's statements for it (``a; b`` is two there),
    ``top`` included; both empty when they do not pair."""
    statements: list[ast.stmt] = []
    if not _ast_statements(syntax, statements):
        return {}, {}
    pairs: dict[int, tuple[int, int]] = {}
    same: dict[int, list[ast.stmt]] = {}
    index = 0
    stack: list[cst.CSTNode] = [top]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            if index + len(node.body) > len(statements):
                return {}, {}
            if isinstance(node, cst.SimpleStatementLine):
                pairs[id(node)] = (statements[index].lineno, statements[index].col_offset)
            same[id(node)] = statements[index:index + len(node.body)]
            index += len(node.body)
            continue
        if isinstance(node, cst.BaseCompoundStatement):
            if index >= len(statements):
                return {}, {}
            if node is not top:
                pairs[id(node)] = (statements[index].lineno, statements[index].col_offset)
            same[id(node)] = [statements[index]]
            index += 1
        if isinstance(node, _CST_BLOCKS):
            stack.extend(reversed([c for c in children(node, code_only=True) if isinstance(c, _CST_BLOCKS)]))
    return (pairs, same) if index == len(statements) else ({}, {})


#: Fields of a compound statement holding other statements (LibCST's and CPython's names).
_BLOCK_FIELDS = frozenset({"body", "orelse", "handlers", "finalbody", "cases"})


def _own_code(statement: cst.CSTNode):
    """The code nodes of a statement (a compound one: its header), in source order, imports'
    names left out."""
    blocks: set[int] = set()
    if isinstance(statement, cst.BaseCompoundStatement):
        for name in _BLOCK_FIELDS:
            value = getattr(statement, name, None)
            blocks.update(id(v) for v in (value if isinstance(value, (list, tuple)) else [value])
                          if isinstance(v, cst.CSTNode))
    stack = [c for c in reversed(children(statement, code_only=True)) if id(c) not in blocks]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.Import, cst.ImportFrom)):
            continue
        yield node
        stack.extend(reversed(children(node, code_only=True)))


def _ast_own_code(statement: ast.stmt):
    """CPython's nodes of a statement (a compound one: its header), imports left out."""
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return
    stack = [child for name, value in ast.iter_fields(statement) if name not in _BLOCK_FIELDS
             for child in (value if isinstance(value, list) else [value]) if isinstance(child, ast.AST)]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _ast_dotted(node: ast.AST) -> Optional[str]:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _ast_dotted(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None


#: A stand-in body: a compound statement rendered for the positions of its header needs none.
_NO_BODY = cst.IndentedBlock(body=[cst.SimpleStatementLine(body=[cst.Pass()])])


def _header_only(statement: cst.CSTNode) -> Optional[cst.BaseStatement]:
    """``statement`` (``with``, ``for``, ``while``, ``if``, ``def``, ``class``) with its
    blocks emptied, for the positions of the nodes of its header; None for a ``try`` (whose
    clause headers live in its blocks) or a simple statement."""
    if isinstance(statement, (cst.With, cst.FunctionDef, cst.ClassDef)):
        return statement.with_changes(body=_NO_BODY)
    if isinstance(statement, (cst.For, cst.While, cst.If)):
        return statement.with_changes(body=_NO_BODY, orelse=None)
    return None


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
            n for n in dir(cls)
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
        return ((not cls.needles or any(needle in text for needle in cls.needles))
                and all(required in text for required in cls.required_text))

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
            self._drop_orphaned_imports(self.state.alias_uses(tree), self.state.alias_uses(new))
        if self._imports_added or self._imports_removed:
            new = self.state.apply(new, plan_imports(new, self._imports_added, self._imports_removed))
        return new

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
        return {local: qualified for statement in module.body if isinstance(statement, cst.SimpleStatementLine)
                for small in statement.body if isinstance(small, cst.ImportFrom)
                for local, qualified in import_bindings(small)}

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

    def _drop_orphaned_imports(self, before: dict[str, tuple[str, int]], after: dict[str, tuple[str, int]]) -> None:
        """A TF import this rewrite left unused (``tf`` once flags moved to absl) goes too."""
        for alias, (qualified, uses) in before.items():
            if uses and after.get(alias, (qualified, 0))[1] == 0:
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
            self.report(node, f"{message} (unsafe fix: use --unsafe-fixes)", suggestion=suggestion,
                        check_suppressed=False, unsafe_fix=True)
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
            Finding(self.code, self.name, message, line, column, end_line, end_column, suggestion, unsafe_fix=unsafe_fix)
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
        return cst.parse_expression(f"{self.tf_root(spell_v2=spell_v2)}.{path}")

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


def _name_counts(node: cst.CSTNode, wanted: frozenset[str]) -> dict[str, int]:
    """How often code under ``node`` outside import statements reads each name of ``wanted``."""
    counts: dict[str, int] = {}
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        kind = type(current)
        if kind is cst.Import or kind is cst.ImportFrom:
            continue
        if kind is cst.Name and current.value in wanted:
            counts[current.value] = counts.get(current.value, 0) + 1
        stack.extend(children(current, code_only=True))
    return counts


# -- docstrings --------------------------------------------------------------------------------


def doc_sections(codemod: type[TFCodemod]) -> dict[str, str]:
    """The six docstring parts of a codemod (``DOC_SECTIONS``), keyed by heading.

    A part is the indented block under its heading; unindented text after it (a closing
    "Fixtures: ..." line, say) belongs to no part.
    """
    doc = inspect.cleandoc(codemod.__doc__ or "")
    heading = re.compile(rf"^({'|'.join(DOC_SECTIONS)})\s*:?\s*$", re.MULTILINE)
    parts: dict[str, str] = {}
    matches = list(heading.finditer(doc))
    for index, match in enumerate(matches):
        end = matches[index + 1].start() if index + 1 < len(matches) else len(doc)
        body = []
        for line in doc[match.end() : end].strip("\n").splitlines():
            if line.strip() and not line[:1].isspace():
                break
            body.append(line)
        parts[match.group(1)] = "\n".join(body).strip("\n")
    return parts


def contract_problems(codemod: type[TFCodemod], *, plugin: bool = False) -> list[str]:
    """What a codemod class gets wrong about the contract (empty when it is fine); a ``plugin``
    (an entry point) uses its own code prefix."""
    problems = []
    for attr in ("code", "name", "summary"):
        if not isinstance(getattr(codemod, attr, None), str):
            problems.append(f"{codemod.__name__} lacks `{attr}`")
    if problems:
        return problems
    if plugin and not PLUGIN_CODE_PATTERN.match(codemod.code):
        problems.append(f"{_where(codemod)}: code {codemod.code!r} is not a plugin code (a prefix of its own and "
                        "three digits, such as ACME101; TFM1xx-3xx belong to tfmodernize)")
    elif not plugin and not CODE_PATTERN.match(codemod.code):
        problems.append(f"{codemod.__name__}: code {codemod.code!r} is not TFM1xx/2xx/3xx")
    elif not plugin and not codemod.__module__.startswith(f"{_family_package(codemod.code)}."):
        problems.append(f"{_where(codemod)}: a {codemod.code[:4]}xx codemod belongs in "
                        f"tfmodernize/codemods/{FAMILIES[codemod.code[:4]]}/")
    if not NAME_PATTERN.match(codemod.name):
        problems.append(f"{codemod.__name__}: name {codemod.name!r} is not kebab-case")
    missing = [s for s in DOC_SECTIONS if s not in doc_sections(codemod)]
    if missing:
        problems.append(f"{codemod.__name__}: docstring lacks {', '.join(missing)}")
    return problems


# -- registry ----------------------------------------------------------------------------------


class RegistryError(Exception):
    pass


def _family_package(code: str) -> str:
    """The package of a built-in code's family: ``tfmodernize.codemods.tf2`` for ``TFM207``."""
    return f"tfmodernize.codemods.{FAMILIES[code[:4]]}"


@lru_cache(maxsize=None)
def builtin_codemods() -> tuple[type[TFCodemod], ...]:
    """Every codemod of the family packages (``tfmodernize.codemods.migrate``, ``.tf2``,
    ``.report``: their modules and packages not starting with ``_``) and of
    ``tfmodernize.codemods`` entry points, in catalogue order: by code (migrations, then TF2
    fixes, then findings), except that a codemod comes before the ones its ``runs_before``
    names."""
    found: dict[str, type[TFCodemod]] = {}
    packages = [importlib.import_module(_family_package(prefix)) for prefix in FAMILIES]
    modules = [
        importlib.import_module(f"{package.__name__}.{info.name}")
        for package in packages
        for info in pkgutil.iter_modules(package.__path__)
        if not info.name.startswith("_")
    ]
    classes = [
        obj
        for module in modules
        for obj in vars(module).values()
        if inspect.isclass(obj) and issubclass(obj, TFCodemod) and obj.__module__ == module.__name__
    ]
    plugins = _entry_point_codemods()
    by_name: dict[str, type[TFCodemod]] = {}
    for cls in [*classes, *plugins]:
        problems = contract_problems(cls, plugin=cls in plugins)
        if problems:
            raise RegistryError("; ".join(problems))
        for key, taken in ((cls.code, found.get(cls.code)), (cls.name, by_name.get(cls.name))):
            if taken is not None:
                raise RegistryError(f"codemod {key!r} of {_where(cls)} clashes with {_where(taken)}")
        found[cls.code] = cls
        by_name[cls.name] = cls
    # tfmodernize's own by code, then the plugins' by code.
    ordered = sorted(found.values(), key=lambda c: (c in plugins, c.code))
    for codemod in [c for c in ordered if c.runs_before]:
        later = [i for i, other in enumerate(ordered) if other.code in codemod.runs_before]
        if later and min(later) < ordered.index(codemod):
            ordered.remove(codemod)
            ordered.insert(min(later), codemod)
    return tuple(ordered)


def _where(codemod: type[TFCodemod]) -> str:
    return f"{codemod.__module__}.{codemod.__qualname__}"


def _entry_point_codemods() -> list[type[TFCodemod]]:
    from importlib.metadata import entry_points

    loaded = []
    for entry in entry_points(group="tfmodernize.codemods"):
        obj = entry.load()
        if not (inspect.isclass(obj) and issubclass(obj, TFCodemod)):
            raise RegistryError(f"entry point {entry.name} is not a TFCodemod subclass")
        loaded.append(obj)
    return loaded


def find_codemod(key: str) -> Optional[type[TFCodemod]]:
    """A codemod by code (``TFM207``, any case) or name (``run-functions-eagerly``)."""
    for cls in builtin_codemods():
        if key.upper() == cls.code or key.lower() == cls.name:
            return cls
    return None


def is_migration(code: str) -> bool:
    """Whether ``code`` is a migration's (the ``TFM1xx`` family: TF1 code rewritten as TF2)."""
    return code.startswith("TFM1")


def select_codemods(
    select: Sequence[str] = (), ignore: Sequence[str] = ()
) -> tuple[type[TFCodemod], ...]:
    """The catalogue filtered by codes/names; code prefixes (``TFM2``) select a family.

    Raises ``KeyError`` naming an unknown entry.
    """

    def matches(cls: type[TFCodemod], key: str) -> bool:
        return cls.name == key.lower() or cls.code.startswith(key.upper())

    catalogue = builtin_codemods()
    for key in [*select, *ignore]:
        if not any(matches(cls, key) for cls in catalogue):
            raise KeyError(key)
    chosen = [c for c in catalogue if not select or any(matches(c, k) for k in select)]
    return tuple(c for c in chosen if not any(matches(c, k) for k in ignore))

