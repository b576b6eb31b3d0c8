"""What moved since a previous run: files that changed category, blockers, diagnostics.

The previous run is its JSON: ``check --format json`` (only the files with a diagnostic are in
it) or the report's own ``--json`` (every file). Against check's JSON the current run is
compared on the same footing: the files with a diagnostic, the others counted as absent.
Paths are compared as written, so both runs are made from the same folder with the same paths.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from tfmodernize.output.html_report.model import CATEGORIES, FileRecord, blocker_counts, totals

#: A file the run does not hold, or (against check's JSON) one with no diagnostic.
ABSENT = "absent"


@dataclass
class Movement:
    complete: bool
    before: dict
    after: dict
    #: ``(path, category before, category after)`` for each file that changed category.
    moved: list = field(default_factory=list)
    #: ``(construct, files before, files after)`` for each construct whose count changed.
    blockers: list = field(default_factory=list)
    #: Findings resolved and new, as ``(path, "CODE message", times)``.
    resolved: list = field(default_factory=list)
    new: list = field(default_factory=list)

    def as_json(self) -> dict:
        return {
            "complete": self.complete,
            "before": self.before,
            "after": self.after,
            "moved": [{"path": p, "before": b, "after": a} for p, b, a in self.moved],
            "blockers": [{"construct": c, "before": b, "after": a} for c, b, a in self.blockers],
            "findings_resolved": sum(n for _, _, n in self.resolved),
            "findings_new": sum(n for _, _, n in self.new),
        }


def compare(before: list[FileRecord], complete: bool, after: list[FileRecord]) -> Movement:
    """How ``after`` (this run) differs from ``before`` (a previous run's records; ``complete``
    when they list every file of that run)."""
    if not complete:
        after = [r for r in after if r.diagnostics]
    movement = Movement(complete, _figures(before, complete), _figures(after, complete))
    old = {r.path: r for r in before}
    new = {r.path: r for r in after}
    for path in sorted(old.keys() | new.keys()):
        was = old[path].category if path in old else ABSENT
        now = new[path].category if path in new else ABSENT
        if was != now:
            movement.moved.append((path, was, now))
    counts_before, counts_after = blocker_counts(before), blocker_counts(after)
    for construct in sorted(counts_before.keys() | counts_after.keys()):
        b, a = counts_before.get(construct, 0), counts_after.get(construct, 0)
        if b != a:
            movement.blockers.append((construct, b, a))
    movement.blockers.sort(key=lambda item: (-abs(item[2] - item[1]), item[0]))
    findings_before, findings_after = _findings(before), _findings(after)
    movement.resolved = _listed(findings_before - findings_after)
    movement.new = _listed(findings_after - findings_before)
    return movement


def _figures(records: list[FileRecord], complete: bool) -> dict:
    figures = totals(records)
    if not complete:
        # check's JSON holds no file without a diagnostic: those counts are unknown.
        figures["files"] = None
        for key, _ in CATEGORIES:
            if key in ("unchanged", "skipped"):
                figures["categories"][key] = None
    return figures


def _findings(records: list[FileRecord]) -> Counter:
    """Findings keyed by file, code and message (not line: edits above a finding move it)."""
    return Counter((r.path, f"{d.code} {d.message}") for r in records for d in r.diagnostics if d.kind == "finding")


def _listed(counter: Counter) -> list[tuple[str, str, int]]:
    return sorted((path, message, n) for (path, message), n in counter.items())
