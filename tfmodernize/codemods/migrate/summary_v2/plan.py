"""What summary-v2 reads of one file before it rewrites it (``ProgramPlan``), built once by the
codemod and passed to its collaborators (``tags``, ``runs``, ``imported``, ``emit``): the
module, its parents, where the program's code is (``owners``), what the run tells of the other
files, and the one decision a reader makes that the others read (which code holds the program)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst

from tfmodernize.names import names_bound_here, own_nodes
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import walk


@dataclass
class ProgramPlan:
    """One file as summary-v2 reads it."""

    module: cst.Module
    tf: TFNames
    #: Each code node's parent in ``module`` (``FileState.parents``).
    parents: dict
    #: The program's code: each statement line of the top level (None) or of a module
    #: function's own lines (that function), by identity (``program_owners``).
    owners: dict[int, Optional[cst.FunctionDef]]
    #: What the run's codemods said of the project modules (``FileState.project``).
    project: dict
    #: This codemod's code, under which ``summarize`` results are kept in ``project``.
    code: str
    #: The width the lines it writes keep to (``layout.style_width``).
    width: int
    #: The code holding the program's summaries, once one is read: ``(function or None,)``.
    owner: Optional[tuple[Optional[cst.FunctionDef]]] = None
    _literals: Optional[list[cst.SimpleString]] = None
    _placeholders: Optional[set[str]] = None

    @property
    def program(self) -> Optional[cst.FunctionDef]:
        """The module function holding the program (None: the top level, or not read yet)."""
        return self.owner[0] if self.owner is not None else None

    def summarized(self, name: str) -> Optional[dict]:
        """What summary-v2's ``summarize`` said of the project module ``name`` (None: not in
        the run, or nothing)."""
        if name not in self.project:
            return None
        return (self.project[name] or {}).get(self.code)

    def exported_classes(self, module_name: str) -> dict[str, dict]:
        """What a project module's rewrite exports of the functions it made classes (function ->
        its ``class``, and the ``summaries`` the class leaves to its callers), whichever
        codemod's summary carries it."""
        found: dict[str, dict] = {}
        for summary in (self.project.get(module_name) or {}).values():
            if isinstance(summary, dict):
                found.update(summary.get("classes") or {})
        return found

    def strings(self) -> list[cst.SimpleString]:
        """Every string literal the file writes."""
        if self._literals is None:
            self._literals = [
                n
                for n in walk(self.module, code_only=True)
                if isinstance(n, cst.SimpleString) and isinstance(n.evaluated_value, str)
            ]
        return self._literals

    def placeholders(self) -> set[str]:
        """The names the file binds once, to a ``tf.placeholder``."""
        if self._placeholders is None:
            bound: dict[str, int] = {}
            made: set[str] = set()
            for node in walk(self.module, code_only=True):
                for name in names_bound_here(node):
                    bound[name] = bound.get(name, 0) + 1
                if (
                    isinstance(node, cst.Assign)
                    and len(node.targets) == 1
                    and isinstance(node.targets[0].target, cst.Name)
                    and isinstance(node.value, cst.Call)
                    and self.tf.is_tf(node.value.func, "placeholder")
                ):
                    made.add(node.targets[0].target.value)
            self._placeholders = {name for name in made if bound.get(name) == 1}
        return self._placeholders


def program_owners(module: cst.Module) -> dict[int, Optional[cst.FunctionDef]]:
    """The program's code: its top level, and the body of each module function (a program
    written in ``main()``); all of its summaries, merges and writers must be in one of them."""
    owners: dict[int, Optional[cst.FunctionDef]] = {
        id(n): None for n in own_nodes(module) if isinstance(n, cst.SimpleStatementLine)
    }
    for function in (s for s in module.body if isinstance(s, cst.FunctionDef)):
        lines = (n for n in own_nodes(function.body) if isinstance(n, cst.SimpleStatementLine))
        owners.update({id(n): function for n in lines})
    return owners
