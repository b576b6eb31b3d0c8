"""Unified diffs of rewritten files, colored with rich on a terminal, plain when piped."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

if TYPE_CHECKING:
    from tfmodernize.engine import Outcome


def outcome_diff(outcome: "Outcome") -> str:
    """The diff of a rewritten file; for a notebook, one diff per changed code cell, named
    ``path:cell N``."""
    if outcome.layout is None:
        return unified_diff(outcome.path, outcome.old, outcome.new)
    from tfmodernize.notebooks import changed_cells

    return "".join(
        unified_diff(outcome.path, old, new, where=f":cell {number}")
        for number, old, new in changed_cells(outcome.old, outcome.new, outcome.layout)
    )


def unified_diff(path: Path, old: str, new: str, *, where: str = "") -> str:
    name = path.as_posix() + where
    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile=f"a/{name}",
        tofile=f"b/{name}",
    )
    out = []
    for line in lines:
        if not line.endswith(("\n", "\r")):
            line += "\n\\ No newline at end of file\n"
        out.append(line)
    return "".join(out)


_STYLES = (("+++", "bold"), ("---", "bold"), ("@@", "cyan"), ("+", "green"), ("-", "red"))


def print_diff(console: Console, diff: str) -> None:
    for line in diff.splitlines():
        style = next((s for prefix, s in _STYLES if line.startswith(prefix)), "")
        console.print(Text(line, style=style), soft_wrap=True, highlight=False)
