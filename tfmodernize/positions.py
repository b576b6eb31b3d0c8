"""Source positions of a few nodes, without computing them for the whole module.

LibCST's ``PositionProvider`` renders the whole module with position bookkeeping (several
renders' worth of work) to place every node; a codemod reporting a handful of findings needs a
handful of positions. ``Locator`` renders each top-level statement once to know the line it
starts on, and runs ``PositionProvider`` only on the statements that hold a located node (a
top-level statement has no indentation, so its columns are the file's).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from tfmodernize.treewalk import walk


class Locator:
    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self._statement_of: Optional[dict[int, int]] = None
        self._first_lines: list[int] = []
        self._ranges: dict[int, dict[cst.CSTNode, CodeRange]] = {}

    def _index(self) -> dict[int, int]:
        if self._statement_of is None:
            self._statement_of = {}
            line = 1 + len(self.module.header)
            for index, statement in enumerate(self.module.body):
                self._first_lines.append(line)
                line += self.module.code_for_node(statement).count("\n")
                for node in walk(statement):
                    self._statement_of[id(node)] = index
        return self._statement_of

    def range(self, node: cst.CSTNode) -> Optional[tuple[int, int, int, int]]:
        """(line, column, end line, end column), 1-based, or None for a node not in a statement."""
        index = self._index().get(id(node))
        if index is None:
            return None
        if index not in self._ranges:
            alone = self.module.with_changes(header=[], body=[self.module.body[index]], footer=[])
            self._ranges[index] = MetadataWrapper(alone, unsafe_skip_copy=True).resolve(PositionProvider)
        where = self._ranges[index].get(node)
        if where is None:
            return None
        offset = self._first_lines[index] - 1
        return (where.start.line + offset, where.start.column + 1, where.end.line + offset, where.end.column + 1)
