"""Report formats for ``tfmodernize check``: one diagnostic model, small emitters.

A diagnostic is a finding, a fix the run would apply, or an input error (code ``TFM000``):
files that cannot be read or parsed are diagnostics in every format, never tracebacks.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass, replace
from typing import Callable, Iterable, Optional

from tfmodernize import __version__
from tfmodernize.engine import Outcome

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
    unsafe_fix: bool = False  # a finding standing for a fix not applied because it is unsafe
    #: In a notebook, the cell (from 1) that ``line``/``end_line`` count in.
    cell: Optional[int] = None

    def placed(self) -> tuple[int, int, int, int, str]:
        """(line, column, end line, end column, message) for formats that point into the file
        as stored: a notebook's lines are JSON, so its diagnostics sit on line 1 and say their
        cell and line in the message."""
        if self.cell is None:
            return self.line, self.column, self.end_line, self.end_column, self.message
        return 1, 1, 1, 1, f"cell {self.cell}, line {self.line}: {self.message}"


def diagnostics(outcome: Outcome) -> list[Diagnostic]:
    path = outcome.path.as_posix()
    if outcome.error is not None:
        line, column, message = _split_location(outcome.error)
        return [_in_cell(Diagnostic(path, *INPUT_ERROR, message, line, column, line, column, "error"), outcome)]
    found = [
        Diagnostic(
            path,
            f.code,
            f.name,
            f.message,
            f.line,
            f.column,
            f.end_line,
            f.end_column,
            "finding",
            f.suggestion,
            f.unsafe_fix,
        )
        for f in outcome.findings
    ]
    found += [
        Diagnostic(path, f.code, f.name, f.message, f.line, f.column, f.line, f.column, "fix") for f in outcome.fixes
    ]
    found = [_in_cell(d, outcome) for d in found]
    return sorted(found, key=lambda d: (d.cell or 0, d.line, d.column, d.code))


def _in_cell(d: Diagnostic, outcome: Outcome) -> Diagnostic:
    """``d`` with its module lines turned into a cell and lines in it, for a notebook; as it is
    for a Python file (and a notebook without code cells)."""
    if outcome.layout is None or not outcome.layout.cells:
        return d
    cell, line = outcome.layout.locate(d.line)
    return replace(d, cell=cell, line=line, end_line=line + d.end_line - d.line)


def _split_location(error: str) -> tuple[int, int, str]:
    head, _, rest = error.partition(": ")
    parts = head.split(":")
    if rest and len(parts) == 2 and all(p.isdigit() for p in parts):
        return int(parts[0]), int(parts[1]), rest
    return 1, 1, error


def text_line(d: Diagnostic) -> str:
    marker = " [*]" if d.kind == "fix" else ""
    cell = "" if d.cell is None else f"cell {d.cell}:"
    return f"{d.path}:{cell}{d.line}:{d.column}: {d.code}{marker} {d.message}"


#: Version of the ``--format json`` object; raised when a field changes meaning or goes.
JSON_SCHEMA_VERSION = 2


def emit_json(outcomes: Iterable[Outcome]) -> str:
    """``{"schema_version", "tool", "diagnostics": [...], "packages": {...}}``. A fix carries the edit of its own
    hunk (``fix.edits``: lines of the file as written, replaced whole); a finding that an unsafe
    fix left says so (``fix.applicability: "unsafe"`` with its suggested code, no edits)."""
    records = []
    packages: Counter = Counter()  # distribution -> files whose rewrite made them need it
    for outcome in outcomes:
        packages.update(outcome.added_packages)
        hunks = _suggestions(outcome) if outcome.changed else []
        blockers = [{"construct": construct, "line": line} for construct, line in outcome.kept_on_v1]
        for d in diagnostics(outcome):
            record = asdict(d)
            record["fix"] = None
            if d.kind == "fix":
                hunk = next(((first, last, text) for first, last, text in hunks if first <= d.line <= last), None)
                edits = (
                    []
                    if hunk is None
                    else [
                        {
                            "location": {"row": hunk[0], "column": 1},
                            "end_location": {"row": hunk[1] + 1, "column": 1},
                            "content": hunk[2],
                        }
                    ]
                )
                record["fix"] = {"applicability": "safe", "message": d.message, "edits": edits}
            elif d.unsafe_fix:
                record["fix"] = {
                    "applicability": "unsafe",
                    "message": d.message,
                    "suggestion": d.suggestion,
                    "edits": [],
                }
            # Per file: migrated, kept-on-compat-v1 (with what keeps it there), unchanged, ...
            record["file_status"] = outcome.status
            record["kept_on_v1"] = blockers
            records.append(record)
    return json.dumps(
        {
            "schema_version": JSON_SCHEMA_VERSION,
            "tool": {"name": "tfmodernize", "version": __version__},
            "diagnostics": records,
            "packages": dict(sorted(packages.items())),
        },
        indent=2,
    )


def emit_github(outcomes: Iterable[Outcome]) -> str:
    lines = []
    for outcome in outcomes:
        for d in diagnostics(outcome):
            level = "error" if d.kind == "error" else "warning"
            title = _annotation_property(f"tfmodernize ({d.code} {d.name})")
            line, column, end_line, end_column, message = d.placed()
            lines.append(
                f"::{level} title={title},file={_annotation_property(str(d.path))},line={line},"
                f"col={column},endLine={end_line},endColumn={end_column}::{_annotation_data(f'{d.code} {message}')}"
            )
    return "\n".join(lines)


def _annotation_data(text: str) -> str:
    """A workflow command's message, escaped as GitHub's runner unescapes it."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _annotation_property(text: str) -> str:
    """A workflow command's property value (a file name may hold ``,`` or ``:``), escaped."""
    return _annotation_data(text).replace(":", "%3A").replace(",", "%2C")


def _rule(codemod) -> dict:
    """A SARIF rule with the ``explain`` text (GitHub code scanning shows ``help``)."""
    from tfmodernize.registry import doc_sections

    sections = doc_sections(codemod)
    text = "\n\n".join(f"{heading}\n{body}" for heading, body in sections.items())
    markdown = "\n\n".join(
        f"**{heading}**\n\n```python\n{body}\n```" if heading in ("Before", "After") else f"**{heading}**\n\n{body}"
        for heading, body in sections.items()
    )
    return {
        "id": codemod.code,
        "name": codemod.name,
        "shortDescription": {"text": codemod.summary},
        "fullDescription": {"text": " ".join(sections.get("What it does", codemod.summary).split())},
        "help": {"text": text, "markdown": markdown},
    }


def emit_sarif(outcomes: Iterable[Outcome]) -> str:
    from tfmodernize.registry import builtin_codemods

    rules = [_rule(c) for c in builtin_codemods()]
    unreadable = "file could not be read or parsed"
    rules.append(
        {
            "id": INPUT_ERROR[0],
            "name": INPUT_ERROR[1],
            "shortDescription": {"text": unreadable},
            "fullDescription": {"text": unreadable},
            "help": {"text": "Fix the file so that Python 3 parses it."},
        }
    )
    results = []
    for outcome in outcomes:
        for d in diagnostics(outcome):
            line, column, end_line, end_column, message = d.placed()
            results.append(
                {
                    "ruleId": d.code,
                    "level": "error" if d.kind == "error" else "warning",
                    "message": {"text": message},
                    "locations": [
                        {
                            "physicalLocation": {
                                "artifactLocation": {"uri": d.path},
                                "region": {
                                    "startLine": line,
                                    "startColumn": column,
                                    "endLine": end_line,
                                    "endColumn": end_column,
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
                # LibCST columns count characters: Unicode code points, not UTF-16 units.
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    return json.dumps(sarif, indent=2)


def _suggestions(outcome: Outcome) -> list[tuple[int, int, str]]:
    """(first old line, last old line, replacement text) per changed region, 1-based.

    An insertion is anchored on the line before it (or after it, at the top of the file),
    since a review suggestion must replace at least one existing line. None for a notebook,
    whose lines as stored are JSON: its fixes are reported as diagnostics instead.
    """
    import difflib

    if outcome.layout is not None:
        return []
    old = (outcome.old or "").splitlines(keepends=True)
    new = (outcome.new or "").splitlines(keepends=True)
    regions = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        replacement = new[j1:j2]
        if i1 == i2:  # pure insertion
            if i1 > 0:
                i1, replacement = i1 - 1, [old[i1 - 1], *replacement]
            else:
                i2, replacement = 1, [*replacement, old[0]]
        regions.append((i1 + 1, max(i1 + 1, i2), "".join(replacement)))
    return regions


def _without_last_break(text: str) -> str:
    for end in ("\r\n", "\n", "\r"):
        if text.endswith(end):
            return text[: -len(end)]
    return text


def _hunk_codes(outcome: Outcome, first: int, last: int) -> list[str]:
    """``"TFM109 api-renames"`` for each codemod whose fixes are in lines ``first``..``last``
    (fix positions are lines of the file as written), in catalogue order; all of the file's
    when none falls there (a rewrite that moved code)."""
    inside = [f for f in outcome.fixes if first <= f.line <= last] or outcome.fixes
    return list(dict.fromkeys(f"{f.code} {f.name}" for f in sorted(inside, key=lambda f: f.code)))


def emit_rdjson(outcomes: Iterable[Outcome]) -> str:
    """reviewdog's Diagnostic format: findings, errors, and fixes with their suggestions."""
    diagnostics_out = []
    for outcome in outcomes:
        for d in diagnostics(outcome):
            if d.kind == "fix" and d.cell is None:
                continue  # the hunk's suggestion below stands for it
            line, column, end_line, end_column, message = d.placed()
            diagnostics_out.append(
                {
                    "message": message,
                    "location": {
                        "path": d.path,
                        "range": {
                            "start": {"line": line, "column": column},
                            "end": {"line": end_line, "column": end_column},
                        },
                    },
                    "severity": "ERROR" if d.kind == "error" else "INFO" if d.kind == "fix" else "WARNING",
                    "code": {"value": d.code},
                }
            )
        if outcome.changed:
            path = outcome.path.as_posix()
            old_lines = (outcome.old or "").splitlines(keepends=True)
            for first, last, text in _suggestions(outcome):
                # The range covers whole lines, up to (not including) the last one's line break,
                # which stays: the suggestion's range is the diagnostic's, inside the file.
                last_line = old_lines[last - 1]
                end = {"line": last, "column": len(last_line.rstrip("\r\n")) + 1}
                if last_line != last_line.rstrip("\r\n"):
                    text = _without_last_break(text)
                codes = _hunk_codes(outcome, first, last)
                span = {"start": {"line": first, "column": 1}, "end": end}
                diagnostics_out.append(
                    {
                        "message": "tfmodernize: " + ", ".join(codes),
                        "location": {"path": path, "range": span},
                        "severity": "INFO",
                        "code": {"value": codes[0].split()[0]},
                        "suggestions": [{"range": span, "text": text}],
                    }
                )
    return json.dumps({"source": {"name": "tfmodernize"}, "diagnostics": diagnostics_out}, indent=2)


def emit_review(outcomes: Iterable[Outcome]) -> str:
    """Comments for a GitHub pull-request review (``POST .../pulls/N/reviews``): each change
    as a ```suggestion block the author can commit with one click, findings as plain comments."""
    comments = []
    for outcome in outcomes:
        path = outcome.path.as_posix()
        if outcome.changed:
            hunks = _suggestions(outcome)
            # A migration (TFM1xx) is all or nothing per file: its hunks only run together.
            together = len(hunks) > 1 and any(f.code.startswith("TFM1") for f in outcome.fixes)
            for first, last, text in hunks:
                note = (
                    f"\n\nThis file migrates as a whole: take all {len(hunks)} suggestions of `{path}` together."
                    if together
                    else ""
                )
                comment = {
                    "path": path,
                    "line": last,
                    "side": "RIGHT",
                    "body": f"tfmodernize: {', '.join(_hunk_codes(outcome, first, last))}{note}\n```suggestion\n{text}```",
                }
                if first != last:
                    comment.update(start_line=first, start_side="RIGHT")
                comments.append(comment)
        for d in diagnostics(outcome):
            if d.kind != "fix" or d.cell is not None:
                line, _, _, _, message = d.placed()
                body = f"**{d.code} {d.name}**: {message}"
                if d.suggestion:
                    body += f"\n\nSuggested:\n```python\n{d.suggestion}\n```"
                comments.append({"path": path, "line": line, "side": "RIGHT", "body": body})
    return json.dumps({"event": "COMMENT", "body": "tfmodernize review", "comments": comments}, indent=2)


#: Formats that print one report after the run (text streams as it goes, in the CLI).
EMITTERS: dict[str, Callable[[Iterable[Outcome]], str]] = {
    "json": emit_json,
    "github": emit_github,
    "sarif": emit_sarif,
    "rdjson": emit_rdjson,
    "review": emit_review,
}
