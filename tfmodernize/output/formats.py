"""Report formats for ``tfmodernize check``: one diagnostic model, small emitters.

A diagnostic is a finding, a fix the run would apply, or an input error (code ``TFM000``):
files that cannot be read or parsed are diagnostics in every format, never tracebacks.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Callable, Iterable, Optional

from tfmodernize import __version__
from tfmodernize.engine import Outcome
from tfmodernize.output.diff import unified_diff

INPUT_ERROR = ("TFM000", "input-error")


@dataclass(frozen=True)
class Diagnostic:
    path: str
    code: str
    name: str
    message: str
    line: int
    column: int
    end_line: int
    end_column: int
    kind: str  # "finding" | "fix" | "error"
    suggestion: Optional[str] = None


def diagnostics(outcome: Outcome) -> list[Diagnostic]:
    path = outcome.path.as_posix()
    if outcome.error is not None:
        line, column, message = _split_location(outcome.error)
        return [Diagnostic(path, *INPUT_ERROR, message, line, column, line, column, "error")]
    found = [
        Diagnostic(path, f.code, f.name, f.message, f.line, f.column, f.end_line, f.end_column, "finding", f.suggestion)
        for f in outcome.findings
    ]
    found += [
        Diagnostic(path, f.code, f.name, f.message, f.line, f.column, f.line, f.column, "fix")
        for f in outcome.fixes
    ]
    return sorted(found, key=lambda d: (d.line, d.column, d.code))


def _split_location(error: str) -> tuple[int, int, str]:
    head, _, rest = error.partition(": ")
    parts = head.split(":")
    if rest and len(parts) == 2 and all(p.isdigit() for p in parts):
        return int(parts[0]), int(parts[1]), rest
    return 1, 1, error


def text_line(d: Diagnostic) -> str:
    marker = " [*]" if d.kind == "fix" else ""
    return f"{d.path}:{d.line}:{d.column}: {d.code}{marker} {d.message}"


def emit_json(outcomes: Iterable[Outcome]) -> str:
    records = []
    for outcome in outcomes:
        diff = unified_diff(outcome.path, outcome.old or "", outcome.new or "") if outcome.changed else None
        for d in diagnostics(outcome):
            record = asdict(d)
            record["fix"] = {"applicability": "safe", "diff": diff} if d.kind == "fix" else None
            records.append(record)
    return json.dumps(records, indent=2)


def emit_github(outcomes: Iterable[Outcome]) -> str:
    lines = []
    for outcome in outcomes:
        for d in diagnostics(outcome):
            level = "error" if d.kind == "error" else "warning"
            message = d.message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
            lines.append(
                f"::{level} title=tfmodernize ({d.code} {d.name}),file={d.path},line={d.line},"
                f"col={d.column},endLine={d.end_line},endColumn={d.end_column}::{d.code} {message}"
            )
    return "\n".join(lines)


def emit_sarif(outcomes: Iterable[Outcome]) -> str:
    from tfmodernize.codemod import builtin_codemods

    rules = [
        {"id": c.code, "name": c.name, "shortDescription": {"text": c.summary}}
        for c in builtin_codemods()
    ]
    rules.append({"id": INPUT_ERROR[0], "name": INPUT_ERROR[1], "shortDescription": {"text": "file could not be read or parsed"}})
    results = []
    for outcome in outcomes:
        for d in diagnostics(outcome):
            results.append(
                {
                    "ruleId": d.code,
                    "level": "error" if d.kind == "error" else "warning",
                    "message": {"text": d.message},
                    "locations": [
                        {
                            "physicalLocation": {
                                "artifactLocation": {"uri": d.path},
                                "region": {
                                    "startLine": d.line,
                                    "startColumn": d.column,
                                    "endLine": d.end_line,
                                    "endColumn": d.end_column,
                                },
                            }
                        }
                    ],
                }
            )
    sarif = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "tfmodernize", "version": __version__, "rules": rules}},
                "results": results,
            }
        ],
    }
    return json.dumps(sarif, indent=2)


#: Formats that print one report after the run (text streams as it goes, in the CLI).
EMITTERS: dict[str, Callable[[Iterable[Outcome]], str]] = {
    "json": emit_json,
    "github": emit_github,
    "sarif": emit_sarif,
}
