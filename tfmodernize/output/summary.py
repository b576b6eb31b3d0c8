"""The run summary: file counts and fixes per codemod."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from tfmodernize.engine import Outcome


@dataclass
class Summary:
    scanned: int = 0
    changed: int = 0
    #: Changed files that are TF2 code now, and files (changed or not) kept on tf.compat.v1.
    migrated: int = 0
    kept_on_v1: int = 0
    #: Of those, the files TF 2.x still cannot run (a ``tf.contrib`` name left).
    cannot_run: int = 0
    unchanged: int = 0
    skipped: int = 0
    failed: int = 0
    findings: int = 0
    fixes: Counter = field(default_factory=Counter)
    names: dict[str, str] = field(default_factory=dict)
    #: TF1 constructs keeping files on compat.v1 -> number of files they keep there.
    blockers: Counter = field(default_factory=Counter)
    #: Distributions beside TensorFlow the rewrites made files need -> number of such files.
    packages: Counter = field(default_factory=Counter)

    def add(self, outcome: Outcome) -> None:
        self.scanned += 1
        self.changed += outcome.changed
        status = outcome.status
        if status == "failed":
            self.failed += 1
        elif status == "skipped":
            self.skipped += 1
        elif status == "kept-on-compat-v1":
            self.kept_on_v1 += 1
            self.cannot_run += outcome.cannot_run
        elif status == "migrated":
            self.migrated += 1
        else:
            self.unchanged += 1
        self.blockers.update(construct for construct, _ in outcome.kept_on_v1)
        self.packages.update(outcome.added_packages)
        self.findings += len(outcome.findings)
        for fix in outcome.fixes:
            self.fixes[fix.code] += 1
            self.names[fix.code] = fix.name


def print_summary(
    console: Console, summary: Summary, *, changed_label: str = "changed", statistics: bool = False
) -> None:
    files = Table(title="Files", show_header=False, title_justify="left")
    files.add_column(justify="left")
    files.add_column(justify="right")
    for label, count in (
        ("scanned", summary.scanned),
        (changed_label, summary.changed),
        ("migrated to TF2", summary.migrated),
        ("kept on tf.compat.v1 (runs on TF 2.x as TF1)", summary.kept_on_v1 - summary.cannot_run),
        ("cannot run on TF 2.x: tf.contrib / tf.estimator left", summary.cannot_run),
        ("unchanged", summary.unchanged),
        ("skipped (no TensorFlow / empty)", summary.skipped),
        ("failed", summary.failed),
        ("findings", summary.findings),
    ):
        files.add_row(label, str(count))
    console.print(files)
    if summary.packages:
        needed = ", ".join(
            f"{name} ({count} file{'s' * (count != 1)})" for name, count in sorted(summary.packages.items())
        )
        console.print(f"The rewritten code needs: {escape(needed)}: pip install {' '.join(sorted(summary.packages))}")
    if statistics:
        print_blockers(console, summary)
    if summary.fixes:
        fixes = Table(title="Fixes per codemod", title_justify="left")
        fixes.add_column("code")
        fixes.add_column("name")
        fixes.add_column("fixes", justify="right")
        for code in sorted(summary.fixes):
            fixes.add_row(code, summary.names[code], str(summary.fixes[code]))
        console.print(fixes)


def print_blockers(console: Console, summary: Summary) -> None:
    """The TF1 constructs that keep files on tf.compat.v1, most files first: what to plan for."""
    if not summary.blockers:
        console.print("No file is kept on tf.compat.v1.")
        return
    blockers = Table(title="What keeps files on tf.compat.v1 (files per construct)", title_justify="left")
    blockers.add_column("construct")
    blockers.add_column("files", justify="right")
    for construct, count in summary.blockers.most_common():
        blockers.add_row(escape(construct), str(count))
    console.print(blockers)
