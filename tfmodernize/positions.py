"""Where a node of a file's parsed tree is in the file's text (``Positions.range_of``), for the
line and column of every fix and finding.

LibCST's ``PositionProvider`` renders the whole module to record positions; a file with one
finding would pay for all of it. Here a statement is rendered alone, when a node in it is first
asked about, and shifted to where CPython's parser says it starts; a dotted name (most findings)
is read off CPython's tree of the same statement, rendering nothing.
"""

from __future__ import annotations

import ast
from typing import Optional

import libcst as cst
from libcst.metadata import CodePosition, CodeRange
from libcst.metadata.position_provider import PositionProvidingCodegenState

from tfmodernize.tfsymbols import dotted_name
from tfmodernize.treewalk import children


class _RangeRecorder:
    """What ``PositionProvidingCodegenState`` writes to: ``PositionProvider``'s own record."""

    def __init__(self) -> None:
        self._computed: dict[cst.CSTNode, CodeRange] = {}


def _ranges(module: cst.Module) -> dict[cst.CSTNode, CodeRange]:
    """``PositionProvider``'s range of every node of ``module``, from the provider's codegen
    state directly: a ``MetadataWrapper`` adds a visitor pass over the tree that doubles the cost."""
    recorder = _RangeRecorder()
    module._codegen(
        PositionProvidingCodegenState(
            default_indent=module.default_indent, default_newline=module.default_newline, provider=recorder
        )
    )
    return recorder._computed


class Positions:
    """Where the nodes of a file's parsed tree are in its text, computed one statement at a time.

    ``parents`` is ``edits.parents`` of ``parsed``; ``syntax`` CPython's tree of ``text`` (parsed
    here when not given).
    """

    def __init__(self, text: str, parsed: cst.Module, syntax: Optional[ast.Module], parents: dict) -> None:
        self.text = text
        self.parsed = parsed
        self.syntax = syntax
        self._parents = parents
        self._statement_positions: dict = {}
        self._top_lines: Optional[dict[int, int]] = None
        self._nested_lines: dict = {}
        self._text_lines: Optional[list[str]] = None
        #: (id of a statement, whether calls) -> (the statement, its dotted names (or calls of
        #: one) by name, in source order: LibCST's and CPython's); ``_attribute_range``.
        self._dotted: dict = {}

    def _lines(self) -> list[str]:
        if self._text_lines is None:
            self._text_lines = self.text.splitlines()
        return self._text_lines

    def range_of(self, node: cst.CSTNode) -> Optional[CodeRange]:
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
        top, parent = node, self._parents.get(id(node))
        while parent is not None and parent is not self.parsed:
            top, parent = parent, self._parents.get(id(parent))
        if parent is None:
            return None  # the module itself, or not a node of the parsed tree
        holder = node
        while holder is not top and not isinstance(holder, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            holder = self._parents[id(holder)]
        if type(node) is cst.Attribute or type(node) is cst.Call:
            # Most findings: read off CPython's tree, nothing rendered.
            where = self._attribute_range(node, holder, top)
            if where is not None:
                return where
        elif_ = isinstance(holder, cst.If) and isinstance(self._parents.get(id(holder)), cst.If)
        if holder is not top and not elif_:  # an ``elif`` rendered alone would read ``if``
            # Inside a function or class: render the statement holding the node alone, not the
            # whole block; a compound statement (``with``, ``for``, ``def``) without its body
            # when the node is in its header.
            starts = self._nested_starts(top)
            if id(holder) in starts:
                number, column = starts[id(holder)]
                header = _header_only(holder) if holder is not node else None
                where = self._shifted(holder, node, number, self._lines()[number - 1][:column], header)
                if where is not None:
                    return where
        header = _header_only(top) if holder is top and top is not node else None
        if header is not None:  # a node of a top-level statement's header
            where = self._shifted(top, node, self._top_level_line(top), "", header)
            if where is not None:
                return where
        return self._shifted(top, node, self._top_level_line(top), "")

    def _shifted(
        self,
        statement: cst.CSTNode,
        node: cst.CSTNode,
        line: int,
        indent: str,
        rendered: Optional[cst.BaseStatement] = None,
    ):
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
            self._statement_positions[key] = (
                ranges,
                ranges[rendered if rendered is not None else statement].start.line,
            )
        ranges, start = self._statement_positions[key]
        where = ranges.get(node)
        if where is None:
            return None
        shift = line - start
        if shift == 0:
            return where
        return CodeRange(
            CodePosition(where.start.line + shift, where.start.column),
            CodePosition(where.end.line + shift, where.end.column),
        )

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
            position = sum(
                len(s.body) if isinstance(s, cst.SimpleStatementLine) else 1 for s in self.parsed.body[:index]
            )
            syntax = self._syntax_tree().body
            if isinstance(top, cst.SimpleStatementLine):
                found = syntax[position : position + len(top.body)]
                self._nested_lines[top] = ({}, {id(top): found} if len(found) == len(top.body) else {})
            else:
                self._nested_lines[top] = (
                    _pair_statements(top, syntax[position]) if position < len(syntax) else ({}, {})
                )
        return self._nested_lines[top]

    def _attribute_range(self, node: cst.CSTNode, holder: cst.CSTNode, top: cst.CSTNode):
        """The ``CodeRange`` of a dotted name (``tf.contrib.layers``), or of a call of one
        (``tf.contrib.layers.flatten(x)``), read off CPython's tree: the same name (or call of
        it) written in the same statement is paired in source order with CPython's nodes of
        that name. None when that cannot be sure (another count, parentheses, characters other
        than ASCII on its lines): the statement is rendered then."""
        call = type(node) is cst.Call
        dotted = dotted_name(node.func if call else node)
        statements = self._paired(top)[1].get(id(holder))
        if dotted is None or not statements or node.lpar:
            return None
        key = (id(holder), call)
        known = self._dotted.get(key)
        if known is None or known[0] is not holder:
            known = self._dotted[key] = (holder, *_dotted_nodes(holder, statements, call))
        if known[1] is None:
            return None  # CPython's positions inside f-strings are not to be relied on
        mine, theirs = known[1].get(dotted, []), known[2].get(dotted, [])
        at = next((i for i, m in enumerate(mine) if m is node), None)
        parenthesized = any(m.lpar or (call and _parenthesized(m.func)) for m in mine)
        if at is None or len(mine) != len(theirs) or parenthesized:
            return None
        found = theirs[at]
        lines = self._lines()
        if found.end_lineno is None or not all(
            lines[row - 1].isascii() for row in range(found.lineno, found.end_lineno + 1) if row - 1 < len(lines)
        ):
            return None
        return CodeRange(
            CodePosition(found.lineno, found.col_offset), CodePosition(found.end_lineno, found.end_col_offset)
        )


def _dotted_nodes(holder: cst.CSTNode, statements: list[ast.stmt], call: bool) -> tuple[Optional[dict], dict]:
    """The dotted names (``call``: the calls of one) of the statement ``holder``'s own code by
    name, in source order, and CPython's of the same ``statements`` (sorted by position); None
    for LibCST's when the statement holds an f-string."""
    code = list(_own_code(holder))
    if any(type(n) is cst.FormattedString for n in code):
        return None, {}
    mine: dict[str, list[cst.CSTNode]] = {}
    for n in code:
        if call and type(n) is cst.Call:
            name = dotted_name(n.func)
        elif not call and type(n) is cst.Attribute:
            name = dotted_name(n)
        else:
            continue
        if name is not None:
            mine.setdefault(name, []).append(n)
    kind, of = (ast.Call, (lambda n: n.func)) if call else (ast.Attribute, (lambda n: n))
    theirs: dict[str, list[ast.AST]] = {}
    for statement in statements:
        for n in _ast_own_code(statement):
            if type(n) is kind:
                name = _ast_dotted(of(n))
                if name is not None:
                    theirs.setdefault(name, []).append(n)
    for found in theirs.values():
        found.sort(key=lambda n: (n.lineno, n.col_offset))
    return mine, theirs


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
            for inner in child.body if isinstance(child, ast.ExceptHandler) else [child]:
                if not _ast_statements(inner, out):
                    return False
    return True


def _pair_lines(top: cst.CSTNode, syntax: ast.stmt) -> dict[int, tuple[int, int]]:
    """id(statement) -> (line, column) where it starts (a simple-statement line: its first
    small statement; a compound statement: its keyword, after any decorators), for the
    statements nested in ``top``, from CPython's tree of the same statement; {} when the two do
    not pair."""
    return _pair_statements(top, syntax)[0]


def _pair_statements(
    top: cst.CSTNode, syntax: ast.stmt
) -> tuple[dict[int, tuple[int, int]], dict[int, list[ast.stmt]]]:
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
            same[id(node)] = statements[index : index + len(node.body)]
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
            blocks.update(
                id(v) for v in (value if isinstance(value, (list, tuple)) else [value]) if isinstance(v, cst.CSTNode)
            )
    stack = [c for c in reversed(children(statement, code_only=True)) if id(c) not in blocks]
    while stack:
        node = stack.pop()
        if type(node) is cst.Import or type(node) is cst.ImportFrom:
            continue
        yield node
        stack.extend(reversed(children(node, code_only=True)))


def _ast_own_code(statement: ast.stmt):
    """CPython's nodes of a statement (a compound one: its header), imports left out."""
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return
    stack = [
        child
        for name, value in ast.iter_fields(statement)
        if name not in _BLOCK_FIELDS
        for child in (value if isinstance(value, list) else [value])
        if isinstance(child, ast.AST)
    ]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _parenthesized(node: cst.BaseExpression) -> bool:
    """Whether ``node``, a dotted name, or a part of it, is in parentheses of its own."""
    while type(node) is cst.Attribute:
        if node.lpar:
            return True
        node = node.value
    return bool(getattr(node, "lpar", ()))


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
