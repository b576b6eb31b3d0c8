"""The run summary: file counts and fixes per codemod."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from rich.console import Console
from rich.table import Table

from tfmodernize.engine import Outcome


@dataclass
class Summary:
    scanned: int = 0
    changed: int = 0
    unchanged: int = 0
    skipped: int = 0
    failed: int = 0
    findings: int = 0
    fixes: Counter = field(default_factory=Counter)
    names: dict[str, str] = field(default_factory=dict)

    def add(self, outcome: Outcome) -> None:
        self.scanned += 1
        if outcome.error is not None:
            self.failed += 1
        elif outcome.changed:
            self.changed += 1
        elif outcome.skipped is not None:
            self.skipped += 1
        else:
            self.unchanged += 1
        self.findings += len(outcome.findings)
        for fix in outcome.fixes:
            self.fixes[fix.code] += 1
            self.names[fix.code] = fix.name


def print_summary(console: Console, summary: Summary, *, changed_label: str = "changed") -> None:
    files = Table(title="Files", show_header=False, title_justify="left")
    files.add_column(justify="left")
    files.add_column(justify="right")
    for label, count in (
        ("scanned", summary.scanned),
        (changed_label, summary.changed),
        ("unchanged", summary.unchanged),
        ("skipped (no TensorFlow / empty)", summary.skipped),
        ("failed", summary.failed),
        ("findings", summary.findings),
    ):
        files.add_row(label, str(count))
    console.print(files)
    if summary.fixes:
        fixes = Table(title="Fixes per codemod", title_justify="left")
        fixes.add_column("code")
        fixes.add_column("name")
        fixes.add_column("fixes", justify="right")
        for code in sorted(summary.fixes):
            fixes.add_row(code, summary.names[code], str(summary.fixes[code]))
        console.print(fixes)
