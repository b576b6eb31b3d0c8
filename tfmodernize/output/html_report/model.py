"""The figures of the HTML report, read off the run's outcomes or off a run's JSON.

One record per file (``FileRecord``: path, status, what keeps it on ``tf.compat.v1``, its
diagnostics as ``check`` reports them); every figure the page shows is computed from records,
so a previous run's JSON (``check --format json``, or the report's own ``--json``) gives the
same figures for the baseline.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, fields
from typing import Iterable

from tfmodernize.engine import Outcome, cannot_run
from tfmodernize.output.formats import Diagnostic, diagnostics
from tfmodernize.packages import DISTRIBUTIONS, STANDARD_LIBRARY, distribution, imported

#: The file categories of the page, in the order of its bars: ``(key, label)``. They are the
#: statuses of ``Outcome.status``, except that a file kept on compat.v1 by a ``tf.contrib``
#: name is told apart: TF 2.x has no ``tf.contrib``, even under compat.v1.
CATEGORIES = (
    ("migrated", "migrated to TF2"),
    ("kept-on-compat-v1", "kept on tf.compat.v1"),
    ("cannot-run", "cannot run on TF 2.x"),
    ("unchanged", "unchanged"),
    ("skipped", "skipped (no TensorFlow)"),
    ("failed", "failed"),
)
LABELS = dict(CATEGORIES)

_PIP_INSTALL = re.compile(r"pip install ([A-Za-z0-9_.\-]+)")


def category(status: str, constructs: Iterable[str]) -> str:
    """The page's category of a file of ``status`` kept on compat.v1 by ``constructs``."""
    return "cannot-run" if cannot_run(status, constructs) else status


@dataclass
class FileRecord:
    """One file as the report shows it."""

    path: str
    status: str
    kept_on_v1: list[tuple[str, int]] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: Top-level modules the file imports as rewritten, and those the rewrite added.
    imports: frozenset = frozenset()
    added_imports: frozenset = frozenset()

    @property
    def category(self) -> str:
        return category(self.status, (construct for construct, _ in self.kept_on_v1))

    def count(self, kind: str) -> int:
        return sum(d.kind == kind for d in self.diagnostics)


def record_of(outcome: Outcome) -> FileRecord:
    record = FileRecord(outcome.path.as_posix(), outcome.status, list(outcome.kept_on_v1), diagnostics(outcome))
    if outcome.status not in ("failed", "skipped"):
        after = imported(outcome.new if outcome.new is not None else outcome.old)
        record.imports = frozenset(after)
        record.added_imports = frozenset(after - imported(outcome.old))
    return record


_DIAGNOSTIC_FIELDS = tuple(f.name for f in fields(Diagnostic))


def records_from_json(document: dict) -> tuple[list[FileRecord], bool]:
    """The records of a run's JSON, and whether it lists every file of the run.

    ``check --format json`` lists only the files with a diagnostic (each diagnostic carries its
    file's status and ``kept_on_v1``); the report's ``--json`` adds ``files``: every file."""
    if not isinstance(document, dict) or not isinstance(document.get("diagnostics"), list):
        raise ValueError('not the JSON of `check --format json` or `report --json` (no "diagnostics" list)')
    records: dict[str, FileRecord] = {}
    for entry in document.get("files") or []:
        records[entry["path"]] = FileRecord(entry["path"], entry["status"], _constructs(entry))
    for item in document["diagnostics"]:
        record = records.get(item["path"])
        if record is None:
            record = records[item["path"]] = FileRecord(item["path"], item["file_status"], _constructs(item))
        values = {name: item.get(name) for name in _DIAGNOSTIC_FIELDS}
        values["unsafe_fix"] = bool(values["unsafe_fix"])
        record.diagnostics.append(Diagnostic(**values))
    return list(records.values()), "files" in document


def _constructs(entry: dict) -> list[tuple[str, int]]:
    return [(item["construct"], item["line"]) for item in entry.get("kept_on_v1") or []]


def files_json(records: Iterable[FileRecord]) -> list[dict]:
    """Every file's status and what keeps it on compat.v1: the ``files`` of ``report --json``."""
    return [
        {"path": r.path, "status": r.status, "kept_on_v1": [{"construct": c, "line": line} for c, line in r.kept_on_v1]}
        for r in records
    ]


# -- figures -----------------------------------------------------------------------------------


def totals(records: Iterable[FileRecord]) -> dict:
    """Files per category, and the diagnostics (fixes, findings, errors)."""
    records = list(records)
    by_category = Counter(r.category for r in records)
    return {
        "files": len(records),
        "categories": {key: by_category[key] for key, _ in CATEGORIES},
        "fixes": sum(r.count("fix") for r in records),
        "findings": sum(r.count("finding") for r in records),
        "errors": sum(r.count("error") for r in records),
    }


@dataclass
class Folder:
    """A folder of the tree: its files' categories, its subfolders and files (record indexes)."""

    name: str
    path: str
    counts: Counter = field(default_factory=Counter)
    folders: dict = field(default_factory=dict)
    files: list = field(default_factory=list)


def folder_tree(records: list[FileRecord]) -> Folder:
    """The folders of the run; a chain of folders with one subfolder and no file is one
    node (``research/slim``)."""
    root = Folder("", "")
    for index, record in enumerate(records):
        parts = record.path.split("/")
        node = root
        node.counts[record.category] += 1
        for depth, part in enumerate(parts[:-1]):
            node = node.folders.setdefault(part, Folder(part, "/".join(parts[: depth + 1])))
            node.counts[record.category] += 1
        node.files.append(index)
    return _collapsed(root)


def _collapsed(folder: Folder) -> Folder:
    while len(folder.folders) == 1 and not folder.files:
        (child,) = folder.folders.values()
        name = f"{folder.name}/{child.name}" if folder.name else child.name
        folder = Folder(name, child.path, child.counts, child.folders, child.files)
    folder.folders = {name: _collapsed(child) for name, child in sorted(folder.folders.items())}
    return folder


@dataclass
class Blocker:
    """A TF1 construct keeping files on compat.v1: the files (index, line) and the findings
    naming it there."""

    construct: str
    files: list = field(default_factory=list)
    findings: list = field(default_factory=list)

    @property
    def messages(self) -> list[tuple[str, int]]:
        """``("CODE message", times)``, most frequent first."""
        counts = Counter(f"{d.code} {d.message}" for _, d in self.findings)
        return counts.most_common()


def blockers(records: list[FileRecord]) -> list[Blocker]:
    """The constructs keeping files on compat.v1, the most files first."""
    found: dict[str, Blocker] = {}
    for index, record in enumerate(records):
        for construct, line in record.kept_on_v1:
            blocker = found.setdefault(construct, Blocker(construct))
            blocker.files.append((index, line))
            naming = re.compile(re.escape(construct) + r"(?![\w])")
            blocker.findings.extend(
                (index, d) for d in record.diagnostics if d.kind == "finding" and naming.search(d.message)
            )
    return sorted(found.values(), key=lambda b: (-len(b.files), b.construct))


def blocker_counts(records: list[FileRecord]) -> dict[str, int]:
    """Construct -> files it keeps on compat.v1."""
    return {b.construct: len(b.files) for b in blockers(records)}


def packages(records: list[FileRecord]) -> list[dict]:
    """The third-party distributions the code imports once rewritten (the standard library
    and the run's own modules left out), with the files needing each and those whose rewrite
    added the import; and those a finding says to install."""
    local = {part for r in records for part in r.path.split("/")[:-1]}
    local |= {r.path.rsplit("/", 1)[-1].rsplit(".", 1)[0] for r in records}
    needed: dict[str, dict] = {}
    for record in records:
        wanted = {name for name in record.imports if name not in STANDARD_LIBRARY and name not in local}
        wanted |= {_module_of(m) for d in record.diagnostics for m in _PIP_INSTALL.findall(d.message)}
        for name in wanted:
            entry = needed.setdefault(distribution(name), {"files": 0, "added": 0})
            entry["files"] += 1
            entry["added"] += name in record.added_imports
    return [
        {"package": name, **entry}
        for name, entry in sorted(needed.items(), key=lambda item: (-item[1]["files"], item[0]))
    ]


def _module_of(distribution: str) -> str:
    """The import name of a distribution a finding says to install (as the table spells it)."""
    for module, name in DISTRIBUTIONS.items():
        if name == distribution:
            return module
    return distribution


@dataclass
class Rule:
    code: str
    name: str
    fixes: int = 0
    findings: int = 0
    files: set = field(default_factory=set)


def rules(records: list[FileRecord]) -> dict[str, Rule]:
    """Fixes and findings per codemod code, by code."""
    found: dict[str, Rule] = {}
    for index, record in enumerate(records):
        for d in record.diagnostics:
            if d.kind == "error":
                continue
            rule = found.setdefault(d.code, Rule(d.code, d.name))
            rule.fixes += d.kind == "fix"
            rule.findings += d.kind == "finding"
            rule.files.add(index)
    return dict(sorted(found.items()))


def is_anti_pattern(code: str) -> bool:
    """A TF2 anti-pattern's code: fixed (``TFM2xx``) or reported (``TFM3xx``)."""
    return code.startswith(("TFM2", "TFM3"))
