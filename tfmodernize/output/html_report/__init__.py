"""``tfmodernize report``: one self-contained HTML page over a run's outcomes.

What a team lead reads: the files migrated, kept on tf.compat.v1, unchanged, unable to run on
TF 2.x or failed (a bar per folder, a tree to open), the constructs keeping the most files on
v1, the packages the rewritten code imports, the TF2 anti-patterns by rule with the ``explain``
text, each file's findings and diff, and with a baseline (a previous run's JSON) what moved.

``model`` reads the figures off records (``FileRecord``, built from outcomes or from a run's
JSON), ``baseline`` compares two runs, ``render`` writes the HTML, ``assets`` holds the inlined
stylesheet and script.
"""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass
from html import escape
from typing import Iterable, Optional, Sequence

from tfmodernize import __version__
from tfmodernize.engine import Outcome
from tfmodernize.output.html_report import model, render
from tfmodernize.output.html_report.baseline import Movement, compare
from tfmodernize.output.html_report.model import CATEGORIES, FileRecord, records_from_json

__all__ = ["Report", "build_report", "read_baseline", "records_from_json"]

#: Version of the page's JSON island (``#tfmodernize-data``).
DATA_SCHEMA_VERSION = 1


@dataclass
class Report:
    html: str
    #: The figures the page shows (its JSON island).
    data: dict
    records: list[FileRecord]


class BaselineError(ValueError):
    """A ``--baseline`` file that is not a run's JSON."""


def read_baseline(text: str) -> tuple[list[FileRecord], bool]:
    """The records of a previous run's JSON (``check --format json`` or ``report --json``)."""
    try:
        return records_from_json(json.loads(text))
    except (ValueError, KeyError, TypeError) as error:
        raise BaselineError(
            str(error) if isinstance(error, ValueError) else f"not a run's JSON: {type(error).__name__}: {error}"
        ) from None


def build_report(
    outcomes: Iterable[Outcome],
    *,
    title: str = "tfmodernize migration report",
    paths: Sequence[str] = (),
    baseline: Optional[tuple[list[FileRecord], bool]] = None,
) -> Report:
    """The page over ``outcomes`` (in the run's order), compared with ``baseline`` if given."""
    from tfmodernize.output.diff import outcome_diff

    records, diffs = [], {}
    for index, outcome in enumerate(outcomes):
        records.append(model.record_of(outcome))
        if outcome.changed:
            diffs[index] = outcome_diff(outcome)
    totals = model.totals(records)
    blockers = model.blockers(records)
    packages = model.packages(records)
    rules = model.rules(records)
    movement: Optional[Movement] = None if baseline is None else compare(*baseline, records)
    data = {
        "schema_version": DATA_SCHEMA_VERSION,
        "tool": {"name": "tfmodernize", "version": __version__},
        "totals": totals,
        "files": [
            {
                "path": r.path,
                "status": r.status,
                "category": r.category,
                "fixes": r.count("fix"),
                "findings": r.count("finding"),
                "errors": r.count("error"),
                "kept_on_v1": [c for c, _ in r.kept_on_v1],
            }
            for r in records
        ],
        "blockers": [{"construct": b.construct, "files": len(b.files), "findings": len(b.findings)} for b in blockers],
        "rules": {
            code: {"name": r.name, "fixes": r.fixes, "findings": r.findings, "files": len(r.files)}
            for code, r in rules.items()
        },
        "packages": packages,
        "baseline": None if movement is None else movement.as_json(),
    }
    now = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    meta = (
        f"tfmodernize {escape(__version__)} · {escape(now)} · "
        + escape(" ".join(paths) or "(no paths)")
        + f" · {totals['files']} files"
    )
    html = render.page(
        title=title,
        meta=meta,
        records=records,
        diffs=diffs,
        totals=totals,
        tree=model.folder_tree(records),
        blockers=blockers,
        packages=packages,
        rules=rules,
        movement=movement,
        explain=_explain,
        data=data,
    )
    return Report(html, data, records)


def _explain(code: str) -> Optional[dict]:
    from tfmodernize.registry import doc_sections, find_codemod

    codemod = find_codemod(code)
    if codemod is None:
        return None
    import textwrap

    return {heading: textwrap.dedent(body).strip("\n") for heading, body in doc_sections(codemod).items()}


def run_json(report: Report, check_json: str) -> str:
    """The run as JSON for a later ``--baseline``: ``check --format json``'s object (its
    ``diagnostics``) with ``files``, every file's status and what keeps it on compat.v1."""
    document = json.loads(check_json)
    document["files"] = model.files_json(report.records)
    return json.dumps(document, indent=2)


def markdown_summary(report: Report, *, link: str = "") -> str:
    """The headline figures as a Markdown table (a CI job summary)."""
    totals = report.data["totals"]
    rows = [("files", totals["files"])]
    rows += [(label, totals["categories"][key]) for key, label in CATEGORIES]
    rows += [("fixes proposed", totals["fixes"]), ("findings", totals["findings"])]
    lines = ["### tfmodernize migration report", ""]
    if link:
        lines += [link, ""]
    lines += ["| | |", "|---|---:|"] + [f"| {label} | {n} |" for label, n in rows]
    blockers = report.data["blockers"][:5]
    if blockers:
        lines += [
            "",
            "Most files kept on tf.compat.v1 by: " + ", ".join(f"`{b['construct']}` ({b['files']})" for b in blockers),
        ]
    moved = report.data["baseline"]
    if moved:
        lines += [
            "",
            f"Since the baseline: {len(moved['moved'])} files changed category, "
            f"{moved['findings_resolved']} findings resolved, "
            f"{moved['findings_new']} new.",
        ]
    return "\n".join(lines) + "\n"
