"""The report's HTML: sections written as strings, every piece of user text escaped.

The page is one file: the stylesheet and script inlined, no fetch, no font, no image; the
figures it shows are also in a JSON island (``<script type="application/json"
id="tfmodernize-data">``) for tools and tests.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from html import escape
from typing import Callable, Optional

from tfmodernize.output.formats import Diagnostic
from tfmodernize.output.html_report.assets import CSS, JS
from tfmodernize.output.html_report.baseline import ABSENT, Movement
from tfmodernize.output.html_report.model import CATEGORIES, LABELS, Blocker, FileRecord, Folder, Rule, is_anti_pattern

#: A codemod's ``explain`` parts by code (``{heading: body}``), or None for an unknown code.
Explainer = Callable[[str], Optional[dict]]

_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")
_CODE_SPAN = re.compile(r"``(.+?)``|`([^`]+)`")
#: Messages listed per blocker, and files per move / finding list, before "and N more".
_SHOWN = 200
#: Blockers shown before the rest, folded.
_FIRST_BLOCKERS = 15


def e(text: object) -> str:
    return escape(str(text), quote=True)


def file_id(index: int) -> str:
    return f"f{index}"


def page(
    *,
    title: str,
    meta: str,
    records: list[FileRecord],
    diffs: dict[int, str],
    totals: dict,
    tree: Folder,
    blockers: list[Blocker],
    packages: list[dict],
    rules: dict[str, Rule],
    movement: Optional[Movement],
    explain: Explainer,
    data: dict,
) -> str:
    anti = [rule for code, rule in rules.items() if is_anti_pattern(code)]
    nav = [
        ("glance", "At a glance"),
        ("moved", "Since the baseline") if movement else None,
        ("blockers", "Blockers"),
        ("packages", "Packages"),
        ("folders", "Folders"),
        ("rules", "Rules"),
        ("anti-patterns", "Anti-patterns"),
        ("files", "Files"),
    ]
    parts = [
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{e(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n",
        f'<header class="top"><h1>{e(title)}</h1><div class="meta">{meta}</div></header>\n',
        "<nav>" + "".join(f'<a href="#{key}">{label}</a>' for key, label in filter(None, nav)) + "</nav>\n<main>\n",
        _glance(totals, tree),
        _movement(movement) if movement else "",
        _blockers(blockers, records),
        _packages(packages),
        _folders(tree, records),
        _rules(rules),
        _anti_patterns(anti, records, explain),
        _files(records, diffs, totals),
        "</main>\n",
        '<script type="application/json" id="tfmodernize-data">' + _island(data) + "</script>\n",
        f"<script>{JS}</script>\n</body>\n</html>\n",
    ]
    return "".join(parts)


def _island(data: dict) -> str:
    """JSON safe inside a script element: no ``</script>``, ``<!--`` or ``&`` can appear."""
    text = json.dumps(data, separators=(",", ":"), sort_keys=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


# -- at a glance, folders ------------------------------------------------------------------


def _bar(counts, *, big: bool = False) -> str:
    total = sum(counts.get(key, 0) for key, _ in CATEGORIES) or 1
    segments = "".join(
        f'<i class="s-{key}" style="width:{100 * counts[key] / total:.3f}%" title="{e(label)}: {counts[key]}"></i>'
        for key, label in CATEGORIES
        if counts.get(key)
    )
    return f'<div class="bar{" big" if big else ""}">{segments}</div>'


def _legend() -> str:
    return (
        '<div class="legend">'
        + "".join(f'<span><i class="s-{key}"></i>{e(label)}</span>' for key, label in CATEGORIES)
        + "</div>"
    )


def _glance(totals: dict, tree: Folder) -> str:
    categories = totals["categories"]
    cards = [f'<div class="card"><b data-figure="files">{totals["files"]}</b><span>files</span></div>']
    cards += [
        f'<div class="card c-{key}"><b data-figure="{key}">{categories[key]}</b><span>{e(label)}</span></div>'
        for key, label in CATEGORIES
    ]
    cards += [
        f'<div class="card"><b data-figure="{key}">{totals[key]}</b><span>{label}</span></div>'
        for key, label in (("fixes", "fixes proposed"), ("findings", "findings"), ("errors", "input errors"))
    ]
    return (
        '<h2 id="glance">At a glance</h2>\n<div class="cards">'
        + "".join(cards)
        + "</div>\n"
        + _bar(categories, big=True)
        + _legend()
        + '<p class="muted">Kept on tf.compat.v1: runs on TF 2.x as TF1 code. Cannot run on '
        "TF 2.x: kept on tf.compat.v1, but it uses tf.contrib, which TF 2.x does not have. "
        "Each file is migrated whole or kept on v1 whole.</p>\n"
    )


def _counts_text(counts: Counter) -> str:
    return ", ".join(f"{counts[key]} {label}" for key, label in CATEGORIES if counts.get(key))


def _folders(tree: Folder, records: list[FileRecord]) -> str:
    return (
        '<h2 id="folders">Folders</h2>\n<p><button type="button" data-expand="open" '
        'data-scope=".tree">Open all</button> <button type="button" data-expand="close" '
        'data-scope=".tree">Close all</button></p>\n<div class="tree">'
        + _folder(tree, records, open_=True)
        + "</div>\n"
    )


def _folder(folder: Folder, records: list[FileRecord], *, open_: bool = False) -> str:
    name = folder.name or "."
    total = sum(folder.counts.values())
    out = [
        f'<details{" open" if open_ else ""} data-folder="{e(folder.path)}">'
        f'<summary><span class="mono">{e(name)}/</span>{_bar(folder.counts)}'
        f'<span class="counts" title="{e(_counts_text(folder.counts))}">{total} files'
        f" · {folder.counts.get('migrated', 0)} migrated</span></summary>"
    ]
    out += [_folder(child, records) for child in folder.folders.values()]
    for index in folder.files:
        record = records[index]
        out.append(
            f'<div class="leaf"><a class="mono" href="#{file_id(index)}">'
            f"{e(record.path.rsplit('/', 1)[-1])}</a>{_badge(record.category)}"
            f'<span class="counts">{_file_counts(record)}</span></div>'
        )
    out.append("</details>")
    return "".join(out)


def _badge(key: str) -> str:
    return f'<span class="badge s-{key}">{e(LABELS.get(key, key))}</span>'


def _file_counts(record: FileRecord) -> str:
    return f"{record.count('fix')} fixes · {record.count('finding')} findings"


# -- blockers, packages, rules ----------------------------------------------------------------


def _blockers(blockers: list[Blocker], records: list[FileRecord]) -> str:
    out = ['<h2 id="blockers">What keeps files on tf.compat.v1</h2>\n']
    if not blockers:
        return out[0] + "<p>No file is kept on tf.compat.v1.</p>\n"
    out.append(
        '<p class="muted">The TF1 constructs with no TF2 migration here, by the number of '
        "files each keeps on tf.compat.v1: migrating the first ones moves the most files. "
        "Open a row for the files and the findings that name the construct.</p>\n"
    )
    head = (
        '<table class="grid"><thead><tr><th>construct</th><th class="n">files</th>'
        '<th class="n">findings naming it</th></tr></thead><tbody>'
    )
    out.append(head)
    for rank, blocker in enumerate(blockers, 1):
        if rank == _FIRST_BLOCKERS + 1:
            rest = len(blockers) - _FIRST_BLOCKERS
            out.append(f"</tbody></table>\n<details><summary>{rest} more constructs</summary>" + head)
        files = "".join(
            f'<li><a href="#{file_id(index)}" class="mono">{e(records[index].path)}</a>'
            f' <span class="muted">line {line}</span></li>'
            for index, line in blocker.files
        )
        messages = blocker.messages
        shown = "".join(f'<li><span class="muted">×{n}</span> {_inline(m)}</li>' for m, n in messages[:_SHOWN])
        more = f'<li class="muted">and {len(messages) - _SHOWN} more</li>' if len(messages) > _SHOWN else ""
        out.append(
            f'<tr data-blocker="{e(blocker.construct)}"><td><details><summary>'
            f'<span class="muted">{rank}.</span> <code>{e(blocker.construct)}</code></summary>'
            f'<ul class="findings">{files}</ul>'
            + (f'<ul class="findings">{shown}{more}</ul>' if messages else "")
            + '</details></td><td class="n" data-figure="blocker-files">'
            f"{len(blocker.files)}</td>"
            f'<td class="n">{len(blocker.findings)}</td></tr>'
        )
    out.append("</tbody></table>\n" + ("</details>\n" if len(blockers) > _FIRST_BLOCKERS else ""))
    return "".join(out)


def _packages(packages: list[dict]) -> str:
    out = [
        '<h2 id="packages">Packages the code needs</h2>\n'
        '<p class="muted">Third-party modules the files import once rewritten (the standard '
        "library and the run's own modules left out), and those a finding says to install; "
        "“added” counts the files whose rewrite brought the import in.</p>\n"
    ]
    if not packages:
        return out[0] + "<p>None.</p>\n"
    out.append(
        '<table class="grid"><thead><tr><th>package</th><th class="n">files</th>'
        '<th class="n">added</th></tr></thead><tbody>'
    )
    out += [
        f'<tr><td><code>{e(p["package"])}</code></td><td class="n">{p["files"]}</td>'
        f'<td class="n">{p["added"]}</td></tr>'
        for p in packages
    ]
    out.append("</tbody></table>\n")
    return "".join(out)


def _rules(rules: dict[str, Rule]) -> str:
    out = ['<h2 id="rules">Fixes and findings per codemod</h2>\n']
    if not rules:
        return out[0] + "<p>Nothing to fix or report.</p>\n"
    out.append(
        '<table class="grid"><thead><tr><th>code</th><th>name</th><th class="n">fixes'
        '</th><th class="n">findings</th><th class="n">files</th></tr></thead><tbody>'
    )
    for code, rule in rules.items():
        label = f'<a href="#rule-{e(code)}">{e(code)}</a>' if is_anti_pattern(code) else e(code)
        out.append(
            f'<tr data-rule="{e(code)}"><td>{label}</td><td>{e(rule.name)}</td>'
            f'<td class="n">{rule.fixes}</td><td class="n">{rule.findings}</td>'
            f'<td class="n">{len(rule.files)}</td></tr>'
        )
    out.append("</tbody></table>\n")
    return "".join(out)


def _anti_patterns(rules: list[Rule], records: list[FileRecord], explain: Explainer) -> str:
    out = ['<h2 id="anti-patterns">TF2 anti-patterns (TFM2xx fixed, TFM3xx reported)</h2>\n']
    if not rules:
        return out[0] + "<p>None found.</p>\n"
    found: dict[str, list] = {rule.code: [] for rule in rules}
    for index, record in enumerate(records):
        for d in record.diagnostics:
            if d.code in found:
                found[d.code].append((index, d))
    for rule in rules:
        parts = explain(rule.code) or {}
        body = "".join(
            f"<h4>{e(heading)}</h4>"
            + (f"<pre><code>{e(text)}</code></pre>" if heading in ("Before", "After") else _prose(text))
            for heading, text in parts.items()
        )
        items = found[rule.code]
        listed = "".join(
            f'<li><a class="mono" href="#{file_id(index)}">{e(records[index].path)}</a> '
            f'<span class="muted">{_where(d)}{" · fixed" if d.kind == "fix" else ""}</span> '
            f"{e(d.message)}</li>"
            for index, d in items[:_SHOWN]
        )
        more = f'<li class="muted">and {len(items) - _SHOWN} more</li>' if len(items) > _SHOWN else ""
        out.append(
            f'<section class="rule" id="rule-{e(rule.code)}"><h3>{e(rule.code)} '
            f"{e(rule.name)}</h3><p>{rule.fixes} fixes, {rule.findings} findings in "
            f"{len(rule.files)} files.</p><details><summary>What it is and why it matters "
            f"(<code>tfmodernize explain {e(rule.code)}</code>)</summary><div "
            f'class="explain">{body}</div></details><ul class="findings">{listed}{more}'
            f"</ul></section>\n"
        )
    return "".join(out)


def _where(d: Diagnostic) -> str:
    return f"cell {d.cell}, line {d.line}" if d.cell is not None else f"line {d.line}"


def _prose(text: str) -> str:
    """A docstring part as paragraphs and lists, inline ``code`` kept as code."""
    out = []
    for block in re.split(r"\n\s*\n", text.strip()):
        lines = [line.strip() for line in block.splitlines()]
        if lines and lines[0].startswith(("- ", "* ")):
            items, current = [], []
            for line in lines:
                if line.startswith(("- ", "* ")) and current:
                    items.append(" ".join(current))
                    current = []
                current.append(line[2:] if line.startswith(("- ", "* ")) else line)
            items.append(" ".join(current))
            out.append("<ul>" + "".join(f"<li>{_inline(item)}</li>" for item in items) + "</ul>")
        else:
            out.append(f"<p>{_inline(' '.join(lines))}</p>")
    return "".join(out)


def _inline(text: str) -> str:
    """Escaped text with ``code`` and `code` spans as <code>."""
    out, last = [], 0
    for match in _CODE_SPAN.finditer(text):
        out.append(e(text[last : match.start()]))
        out.append(f"<code>{e(match.group(1) or match.group(2))}</code>")
        last = match.end()
    out.append(e(text[last:]))
    return "".join(out)


# -- since the baseline -----------------------------------------------------------------------


def _movement(movement: Movement) -> str:
    out = ['<h2 id="moved">What moved since the baseline</h2>\n']
    if not movement.complete:
        out.append(
            '<p class="muted">The baseline is <code>check --format json</code> output, '
            "which lists only files with a diagnostic: both runs are compared on those "
            "files; unchanged and skipped files are not counted (—).</p>\n"
        )
    out.append(
        '<table class="grid" id="moved-totals"><thead><tr><th></th><th class="n">'
        'baseline</th><th class="n">now</th><th class="n">change</th></tr></thead>'
        "<tbody>"
    )
    rows = [
        (key, label, movement.before["categories"][key], movement.after["categories"][key]) for key, label in CATEGORIES
    ]
    rows += [(key, key, movement.before[key], movement.after[key]) for key in ("fixes", "findings", "errors")]
    for key, label, before, after in rows:
        out.append(
            f'<tr data-moved="{key}"><td>{e(label)}</td>'
            f'<td class="n">{_num(before)}</td><td class="n">{_num(after)}</td>'
            f'<td class="n">{_delta(before, after, _BETTER.get(key))}</td></tr>'
        )
    out.append("</tbody></table>\n")
    moved = movement.moved
    out.append(f"<h3>Files that changed category ({len(moved)})</h3>\n")
    if moved:
        out.append('<table class="grid"><thead><tr><th>file</th><th>baseline</th><th>now</th></tr></thead><tbody>')
        absent = "not in the run" if movement.complete else "no diagnostic or not in the run"
        out += [
            f'<tr><td class="mono">{e(path)}</td><td>{_state(before, absent)}</td><td>{_state(after, absent)}</td></tr>'
            for path, before, after in moved[:_SHOWN]
        ]
        out.append("</tbody></table>\n")
        if len(moved) > _SHOWN:
            out.append(f'<p class="muted">and {len(moved) - _SHOWN} more</p>\n')
    if movement.blockers:
        out.append(
            '<h3>Blockers</h3><table class="grid"><thead><tr><th>construct</th>'
            '<th class="n">baseline</th><th class="n">now</th><th class="n">change'
            "</th></tr></thead><tbody>"
        )
        out += [
            f'<tr><td><code>{e(c)}</code></td><td class="n">{b}</td><td class="n">{a}</td>'
            f'<td class="n">{_delta(b, a, "fewer")}</td></tr>'
            for c, b, a in movement.blockers
        ]
        out.append("</tbody></table>\n")
    for title, listed in (("Findings resolved", movement.resolved), ("New findings", movement.new)):
        total = sum(n for _, _, n in listed)
        out.append(f'<details><summary>{title} ({total})</summary><ul class="findings">')
        out += [
            f'<li><span class="mono">{e(path)}</span>: {_inline(message)}'
            + (f' <span class="muted">×{n}</span>' if n > 1 else "")
            + "</li>"
            for path, message, n in listed[:_SHOWN]
        ]
        out.append("</ul></details>\n")
    return "".join(out)


def _num(value) -> str:
    return "—" if value is None else str(value)


#: Which way a figure of the baseline table improves (the others are neither good nor bad).
_BETTER = {"migrated": "more", "cannot-run": "fewer", "failed": "fewer", "findings": "fewer", "errors": "fewer"}


def _delta(before, after, better: Optional[str] = None) -> str:
    """The change, green when it goes the ``better`` way (``more``/``fewer``), red otherwise."""
    if before is None or after is None:
        return "—"
    change = after - before
    if not change or better is None:
        return f"{change:+d}" if change else "0"
    good = (change > 0) == (better == "more")
    return f'<span class="{"up" if good else "down"}">{change:+d}</span>'


def _state(key: str, absent: str) -> str:
    return f'<span class="muted">— ({absent})</span>' if key == ABSENT else _badge(key)


# -- files ------------------------------------------------------------------------------------


def _files(records: list[FileRecord], diffs: dict[int, str], totals: dict) -> str:
    boxes = "".join(
        f'<label><input type="checkbox" data-filter="{key}" checked> {e(label)} ({totals["categories"][key]})</label>'
        for key, label in CATEGORIES
    )
    out = [
        f'<h2 id="files">Files (<span id="files-shown">{len(records)}</span> shown)</h2>\n'
        f'<div class="filters"><input type="search" id="file-search" placeholder="Filter '
        f'by path" aria-label="Filter by path">{boxes}<label><input type="checkbox" '
        f'id="only-findings"> with findings only</label><button type="button" '
        f'data-expand="open" data-scope="#file-list">Open all</button><button '
        f'type="button" data-expand="close" data-scope="#file-list">Close all</button>'
        f'</div>\n<div id="file-list">\n'
    ]
    out += [_file(index, record, diffs.get(index)) for index, record in enumerate(records)]
    out.append("</div>\n")
    return "".join(out)


def _file(index: int, record: FileRecord, diff: Optional[str]) -> str:
    findings = [d for d in record.diagnostics if d.kind != "fix"]
    fixes = [d for d in record.diagnostics if d.kind == "fix"]
    body = []
    if record.kept_on_v1:
        body.append(
            "<p>Kept on tf.compat.v1 by "
            + ", ".join(f"<code>{e(c)}</code> (line {line})" for c, line in record.kept_on_v1)
            + "</p>"
        )
    if findings:
        body.append('<ul class="findings">' + "".join(_diagnostic(d) for d in findings) + "</ul>")
    if fixes:
        by_code = Counter(f"{d.code} {d.name}" for d in fixes)
        body.append("<p>Fixes: " + ", ".join(f"{e(k)} ×{n}" for k, n in sorted(by_code.items())) + "</p>")
    if diff:
        body.append(_diff(diff))
    if not body:
        body.append('<p class="muted">Nothing to change or report.</p>')
    return (
        f'<section class="file" id="{file_id(index)}" data-path="{e(record.path)}" '
        f'data-category="{record.category}" data-fixes="{record.count("fix")}" '
        f'data-findings="{record.count("finding")}" data-errors="{record.count("error")}">'
        f'<details><summary><span class="path">{e(record.path)}</span>'
        f'{_badge(record.category)}<span class="muted">{_file_counts(record)}</span>'
        f'</summary><div class="body">{"".join(body)}</div></details></section>\n'
    )


def _diagnostic(d: Diagnostic) -> str:
    code = f'<a href="#rule-{e(d.code)}">{e(d.code)}</a>' if is_anti_pattern(d.code) else e(d.code)
    unsafe = ' <span class="badge s-kept-on-compat-v1">unsafe fix not applied</span>' if d.unsafe_fix else ""
    suggestion = f"<pre><code>{e(d.suggestion)}</code></pre>" if d.suggestion else ""
    return (
        f'<li><span class="muted">{_where(d)}</span> <b>{code}</b> {e(d.name)}{unsafe}: {e(d.message)}{suggestion}</li>'
    )


def _diff(diff: str) -> str:
    """A unified diff with old and new line numbers, one div per line, classes by kind."""
    out = ['<div class="diff">']
    old = new = 0
    for line in diff.splitlines():
        hunk = _HUNK.match(line)
        if line.startswith(("--- ", "+++ ")):
            kind, left, right = "head", "", ""
        elif hunk:
            old, new = int(hunk.group(1)), int(hunk.group(2))
            kind, left, right = "hunk", "", ""
        elif line.startswith("+"):
            kind, left, right, new = "add", "", str(new), new + 1
        elif line.startswith("-"):
            kind, left, right, old = "del", str(old), "", old + 1
        elif line.startswith("\\"):
            kind, left, right = "hunk", "", ""
        else:
            kind, left, right, old, new = "ctx", str(old), str(new), old + 1, new + 1
        out.append(f'<div class="{kind}"><span class="o">{left}</span><span class="n">{right}</span>{e(line)}</div>')
    out.append("</div>")
    return "".join(out)
