"""What a codemod run says about a file: the rewrites it made (``Fix``), what it reports
instead (``Finding``), and the rewrites that wait on another codemod (``Obligation``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


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
