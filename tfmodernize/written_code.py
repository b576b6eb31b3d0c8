"""Functions tfmodernize writes into a file, from a template: in the file's indentation and
newlines, placed after its imports.

A template is a ``string.Template`` of a top-level function (and the statements after it),
written in four-space indentation units, continuation lines included; its ``$names`` are the
function's name and the file's names of what it uses (``$tf``). ``template_statements`` gives
the statements to insert, ``after_imports`` where they go.
"""

from __future__ import annotations

from collections.abc import Collection
from string import Template
from typing import Optional

import libcst as cst

from tfmodernize.names import module_bindings
from tfmodernize.syntax import split_docstring


def template_source(template: Template, indent: str = "    ", **names: str) -> str:
    """The template's code with ``names`` substituted, for a file indented by ``indent``."""
    lines = []
    for line in template.substitute(**names).splitlines(keepends=True):
        stripped = line.lstrip(" ")
        units = (len(line) - len(stripped)) // 4
        lines.append(indent * units + stripped if stripped.strip() else line)
    return "".join(lines)


def template_statements(template: Template, module: cst.Module, **names: str) -> list[cst.CSTNode]:
    """The template as top-level statements of ``module`` (its indentation, its newlines), the
    first after two blank lines."""
    text = template_source(template, module.default_indent, **names)
    parsed = cst.parse_module(text, config=module.config_for_parsing)
    body = list(parsed.body)
    body[0] = body[0].with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine()])
    return body


def after_imports(
    module: cst.Module,
    needed: Collection[str],
    leading: Collection[int] = (),
    before: Optional[int] = None,
) -> int:
    """The index of the first top-level statement after the module's docstring and imports
    (and the statements whose ids are in ``leading``), and after every statement binding a name
    of ``needed``: where a written function goes. With ``before``, only the module's first
    ``before`` statements are read (the written code must come ahead of the one at ``before``,
    its first use)."""
    docstring, _ = split_docstring(module.body)
    wanted = set(needed)
    position = 0
    for index, statement in enumerate(module.body[:before]):
        first = index < len(docstring) or imports_only(statement) or id(statement) in leading
        if first and position == index:
            position = index + 1
        if wanted & module_bindings(cst.Module(body=[statement])):
            position = max(position, index + 1)
    return position


def imports_only(statement: cst.CSTNode) -> bool:
    """Whether ``statement`` is a line of imports only."""
    return isinstance(statement, cst.SimpleStatementLine) and all(
        isinstance(small, (cst.Import, cst.ImportFrom)) for small in statement.body
    )


def two_blank_lines(statement: cst.CSTNode) -> cst.CSTNode:
    """``statement`` two blank lines below the function written before it (PEP 8)."""
    lines = list(statement.leading_lines)
    commented = [index for index, line in enumerate(lines) if line.comment is not None]
    blank = commented[0] if commented else len(lines)
    return statement.with_changes(leading_lines=[cst.EmptyLine()] * max(0, 2 - blank) + lines)
