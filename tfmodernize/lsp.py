"""``tfmodernize lsp``: the findings and fixes of ``check`` in the editor, as a language server.

The server (pygls, the ``lsp`` extra) speaks the Language Server Protocol on standard
input/output. For each open Python file, and each notebook (opened as notebook documents, or
an ``.ipynb`` opened as text), it runs the engine the way ``tfmodernize diff`` runs on a file
named with ``--stdin-filename``: the editor's text under the document's path, with the
settings of the nearest ``pyproject.toml`` above it (``settings.build_settings``), no cache.
Then:

- *diagnostics*: the diagnostics ``check`` reports (``output.formats.diagnostics``): findings
  as warnings, the fixes ``apply`` would make as information, unreadable input as errors. A
  notebook's land on the cells they are in; an ``.ipynb`` opened as text (JSON) has them on its
  first line, naming the cell, as the CI formats do.
- *code actions*: a file is migrated whole (a rewrite's pieces only run together), so the fix
  of a diagnostic is the file's rewrite, as ``apply`` writes it (safe fixes: a preferred quick
  fix and ``source.fixAll.tfmodernize``); where a finding stands for an unsafe fix, the rewrite
  with ``--unsafe-fixes`` too, its title ending "(unsafe)", never preferred.
- *hover*: over a diagnostic, its codemod's ``explain`` text.

Typing stays responsive: a change is analysed after a short pause (``DEBOUNCE``), in one worker
thread (the engine keeps per-file caches, so analyses run one at a time), and a result for a
text the user has since changed is dropped. TensorFlow is never imported.
"""

from __future__ import annotations

import asyncio
import difflib
import io
import json
import logging
import re
import textwrap
import tokenize
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from tfmodernize import __version__
from tfmodernize.registry import doc_sections, find_codemod, select_codemods
from tfmodernize.engine import Outcome, run
from tfmodernize.output.formats import Diagnostic, diagnostics
from tfmodernize.settings import SettingsError, build_settings
from tfmodernize.sources import Discovered, discover

logger = logging.getLogger(__name__)

#: Seconds of quiet after a change before the document is analysed again.
DEBOUNCE = 0.3
SOURCE = "tfmodernize"
FIX_ALL = f"{lsp.CodeActionKind.SourceFixAll.value}.{SOURCE}"
_SEVERITY = {
    "error": lsp.DiagnosticSeverity.Error,
    "finding": lsp.DiagnosticSeverity.Warning,
    "fix": lsp.DiagnosticSeverity.Information,
}
#: A line and its break, as LSP counts lines (``str.splitlines`` also breaks at ``\f``...).
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


# -- the analysis of one document --------------------------------------------------------------


@dataclass(frozen=True)
class Snapshot:
    """What one analysis reads: the file a document stands for and its content then."""

    #: The text document's URI, or the notebook document's.
    key: str
    path: Path
    data: bytes
    #: The text of each document the analysis covers (the text document, or the notebook's cells).
    texts: dict[str, str]
    #: For a notebook document: the URI of each cell, in the notebook's order.
    cells: Optional[tuple[str, ...]] = None


@dataclass
class Analysis:
    """What the engine said of a snapshot, and what the editor was told."""

    snapshot: Snapshot
    #: The engine's outcome; None when the file is excluded or the settings are broken.
    outcome: Optional[Outcome]
    #: The diagnostics published, by document URI.
    published: dict[str, list[lsp.Diagnostic]] = field(default_factory=dict)
    #: The outcome with ``--unsafe-fixes``, once a code action asked for it.
    unsafe: Optional[Outcome] = None


def analyse(path: Path, data: bytes, *, unsafe_fixes: Optional[bool] = None) -> Optional[Outcome]:
    """The outcome of ``check`` for ``data`` named ``path``, with the settings the CLI would
    take for that path; None for a file the configuration excludes (``force-exclude``).
    Raises ``SettingsError`` (or ``KeyError`` naming an unknown codemod) for bad settings."""
    settings = build_settings([path], unsafe_fixes=unsafe_fixes, jobs=1, cache=False)
    select_codemods(settings.select, settings.ignore)
    if settings.force_exclude and path.exists() and not list(discover([path], settings.exclude, force_exclude=True)):
        return None
    return next(run([Discovered(path, data=data)], settings))


def _encoded(text: str) -> bytes:
    """A Python document's text as its file's bytes: in the encoding its coding cookie names."""
    data = text.encode("utf-8")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return text.encode(encoding)
    except (SyntaxError, LookupError, UnicodeEncodeError):
        return data


def _notebook_bytes(notebook: lsp.NotebookDocument, texts: dict[str, str], languages: dict[str, str]) -> bytes:
    """A notebook document as the ``.ipynb`` the engine reads: its cells in order, Python code
    cells as code, markup as markdown, code in another language as raw cells."""
    cells = []
    for cell in notebook.cells:
        text = texts[cell.document]
        if cell.kind == lsp.NotebookCellKind.Markup:
            cells.append({"cell_type": "markdown", "metadata": {}, "source": text})
        elif languages.get(cell.document) not in (None, "", "python"):
            cells.append({"cell_type": "raw", "metadata": {}, "source": text})
        else:
            cells.append({"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": text})
    notebook_json = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 4}
    return json.dumps(notebook_json).encode("utf-8")


def _path(uri: str, suffix: str) -> Path:
    """The file a document URI names; an unsaved document is named in the working folder."""
    path = to_fs_path(uri)
    return Path(path) if path else Path.cwd() / f"untitled{suffix}"


def _lines(text: str) -> list[str]:
    """The lines of ``text`` as LSP counts them, with their line breaks."""
    return _LINE.findall(text)


class Positions:
    """Engine positions (lines from 1, columns from 1 in code points) as LSP positions in the
    units the client and server agreed on."""

    def __init__(self, text: str, codec) -> None:
        self.lines = [line.rstrip("\r\n") for line in _lines(text)]
        self.codec = codec

    def at(self, line: int, column: int) -> lsp.Position:
        row = max(0, line - 1)
        if row >= len(self.lines):
            return self.end()
        text = self.lines[row]
        before = text[: min(max(0, column - 1), len(text))]
        return lsp.Position(row, self.codec.client_num_units(before))

    def line_end(self, line: int) -> lsp.Position:
        text = self.lines[line - 1].rstrip() if 0 < line <= len(self.lines) else ""
        return self.at(line, len(text) + 1)

    def end(self) -> lsp.Position:
        if not self.lines:
            return lsp.Position(0, 0)
        return lsp.Position(len(self.lines) - 1, self.codec.client_num_units(self.lines[-1]))


def _diagnostic(d: Diagnostic, positions: Positions, *, placed: bool = False) -> lsp.Diagnostic:
    """An LSP diagnostic for ``d``; ``placed``: on the first line, as in a notebook's JSON."""
    line, column, end_line, end_column, message = (
        d.placed() if placed else (d.line, d.column, d.end_line, d.end_column, d.message)
    )
    start = positions.at(line, column)
    if placed or d.kind == "fix" or (end_line, end_column) <= (line, column):
        end = positions.line_end(line)  # a fix has a start only: to the end of its line
        end = end if (end.line, end.character) > (start.line, start.character) else start
    else:
        end = positions.at(end_line, end_column)
    if d.unsafe_fix:
        message += " (unsafe fix available)"
    return lsp.Diagnostic(
        range=lsp.Range(start, end),
        message=message,
        severity=_SEVERITY[d.kind],
        code=d.code,
        source=SOURCE,
        data={"kind": d.kind, "unsafe": d.unsafe_fix},
    )


def published(snapshot: Snapshot, outcome: Optional[Outcome], codec) -> dict[str, list[lsp.Diagnostic]]:
    """The diagnostics of each document of ``snapshot`` (every one listed, empty ones too)."""
    found: dict[str, list[lsp.Diagnostic]] = {uri: [] for uri in snapshot.texts}
    if outcome is None:
        return found
    positions = {uri: Positions(text, codec) for uri, text in snapshot.texts.items()}
    for d in diagnostics(outcome):
        if snapshot.cells is None:
            uri = snapshot.key
            found[uri].append(_diagnostic(d, positions[uri], placed=d.cell is not None))
        else:
            cell = d.cell if d.cell is not None and 0 < d.cell <= len(snapshot.cells) else 1
            uri = snapshot.cells[cell - 1]
            found[uri].append(_diagnostic(d, positions[uri]))
    return found


def text_edits(old: str, new: str, codec) -> list[lsp.TextEdit]:
    """Edits turning ``old`` into ``new``, whole lines each, only where they differ."""
    before, after = _lines(old), _lines(new)
    positions = Positions(old, codec)

    def start_of(row: int) -> lsp.Position:
        if row < len(before) or not before or before[-1].endswith(("\n", "\r")):
            return lsp.Position(row, 0)
        return positions.end()

    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    return [
        lsp.TextEdit(lsp.Range(start_of(i1), start_of(i2)), "".join(after[j1:j2]))
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def rewrite_edit(snapshot: Snapshot, outcome: Optional[Outcome], codec) -> Optional[lsp.WorkspaceEdit]:
    """The workspace edit making each document of ``snapshot`` what ``apply`` would write;
    None when the rewrite changes nothing."""
    if outcome is None or not outcome.changed or outcome.new_bytes is None:
        return None
    if snapshot.cells is None:
        # A Python file's text, or a notebook's JSON as ``apply`` writes it.
        new = outcome.new if outcome.layout is None else outcome.new_bytes.decode("utf-8")
        targets = {snapshot.key: new}
    else:
        rewritten = json.loads(outcome.new_bytes)["cells"]
        # nbformat writes a cell's source as a list of lines
        targets = {uri: "".join(cell["source"]) for uri, cell in zip(snapshot.cells, rewritten)}
    changes = {
        uri: text_edits(snapshot.texts[uri], new, codec) for uri, new in targets.items() if new != snapshot.texts[uri]
    }
    return lsp.WorkspaceEdit(changes=changes) if changes else None


def explain_markdown(code: str) -> Optional[str]:
    """The ``explain`` text of the codemod ``code``, as Markdown for a hover."""
    codemod = find_codemod(code)
    if codemod is None:
        return None
    parts = [f"**{codemod.code} {codemod.name}** ({codemod.safety.value})", codemod.summary]
    for heading, body in doc_sections(codemod).items():
        body = textwrap.dedent(body).strip("\n")
        parts.append(
            f"**{heading}**\n\n```python\n{body}\n```" if heading in ("Before", "After") else f"**{heading}**\n\n{body}"
        )
    return "\n\n".join(parts)


def _covers(outer: lsp.Range, inner: lsp.Range) -> bool:
    """Whether the ranges touch (a cursor at a diagnostic's end is on it)."""

    def key(position: lsp.Position) -> tuple[int, int]:
        return position.line, position.character

    return key(outer.start) <= key(inner.end) and key(inner.start) <= key(outer.end)


# -- the server --------------------------------------------------------------------------------


class TFModernizeServer(LanguageServer):
    """The language server: documents analysed off the event loop, results kept per document."""

    def __init__(self) -> None:
        super().__init__(
            SOURCE,
            __version__,
            text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental,
            notebook_document_sync=lsp.NotebookDocumentSyncOptions(
                notebook_selector=[
                    lsp.NotebookDocumentFilterWithCells(
                        cells=[lsp.NotebookCellLanguage(language="python")], notebook="jupyter-notebook"
                    )
                ],
                save=True,
            ),
        )
        #: One analysis at a time: the engine's per-file caches are the process's.
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tfmodernize-analysis")
        self.analyses: dict[str, Analysis] = {}
        self.pending: dict[str, asyncio.Task] = {}
        self.problems_shown: set[str] = set()

    # What an URI belongs to.

    def key_of(self, uri: str) -> Optional[str]:
        """The key of the analysis covering document ``uri`` (a cell's is its notebook's)."""
        notebook = self.workspace.get_notebook_document(cell_uri=uri)
        if notebook is not None:
            return notebook.uri
        if self.workspace.get_notebook_document(notebook_uri=uri) is not None:
            return uri
        document = self.workspace.text_documents.get(uri)
        if document is None:
            return None
        suffix = Path(to_fs_path(uri) or "").suffix
        return uri if suffix in (".py", ".ipynb") or document.language_id == "python" else None

    def snapshot(self, key: str) -> Optional[Snapshot]:
        notebook = self.workspace.get_notebook_document(notebook_uri=key)
        if notebook is not None:
            documents = {cell.document: self.workspace.get_text_document(cell.document) for cell in notebook.cells}
            texts = {uri: document.source for uri, document in documents.items()}
            languages = {uri: document.language_id or "" for uri, document in documents.items()}
            data = _notebook_bytes(notebook, texts, languages)
            return Snapshot(key, _path(key, ".ipynb"), data, texts, tuple(cell.document for cell in notebook.cells))
        document = self.workspace.text_documents.get(key)
        if document is None:
            return None
        text = document.source
        path = _path(key, ".py")
        data = text.encode("utf-8") if path.suffix == ".ipynb" else _encoded(text)
        return Snapshot(key, path, data, {key: text})

    # Analysing.

    def schedule(self, uri: str, delay: float, *, again: bool = False) -> None:
        """Analyse the document ``uri`` belongs to after ``delay`` seconds with no other change;
        ``again``: even if its text is the one analysed last (the settings may have changed)."""
        key = self.key_of(uri)
        if key is None:
            return
        task = self.pending.pop(key, None)
        if task is not None:
            task.cancel()
        self.pending[key] = asyncio.ensure_future(self._lint(key, delay, again))

    async def _lint(self, key: str, delay: float, again: bool) -> None:
        await asyncio.sleep(delay)
        snapshot = self.snapshot(key)
        last = self.analyses.get(key)
        if snapshot is None:
            return
        if not again and last is not None and last.snapshot.texts == snapshot.texts:
            return  # a code action analysed this text already
        await self.analysis(snapshot)

    async def analysis(self, snapshot: Snapshot) -> Optional[Analysis]:
        """Analyse ``snapshot`` in the worker and publish its diagnostics, unless the documents
        changed meanwhile; the analysis, or None when it was dropped."""
        loop = asyncio.get_running_loop()
        try:
            outcome = await loop.run_in_executor(self.worker, analyse, snapshot.path, snapshot.data)
        except SettingsError as error:
            self.problem(f"{snapshot.path}: {error}")
            outcome = None
        except KeyError as error:
            self.problem(f"{snapshot.path}: unknown codemod {error.args[0]!r} in select/ignore")
            outcome = None
        except Exception as error:  # noqa: BLE001 - a bug must not leave the document silent
            logger.exception("analysing %s", snapshot.path)
            self.problem(f"{snapshot.path}: tfmodernize failed: {type(error).__name__}: {error}")
            outcome = None
        current = self.snapshot(snapshot.key)
        if current is None or current.texts != snapshot.texts:
            return None
        codec = self.workspace.position_codec
        analysis = Analysis(snapshot, outcome, published(snapshot, outcome, codec))
        old = self.analyses.get(snapshot.key)
        for uri in set(old.published if old else ()) - set(analysis.published):
            self.publish(uri, [])  # a cell the notebook no longer has
        for uri, found in analysis.published.items():
            self.publish(uri, found)
        self.analyses[snapshot.key] = analysis
        return analysis

    async def current(self, key: str) -> Optional[Analysis]:
        """The analysis of the documents as they are now (made now if the last one is stale)."""
        snapshot = self.snapshot(key)
        if snapshot is None:
            return None
        analysis = self.analyses.get(key)
        if analysis is not None and analysis.snapshot.texts == snapshot.texts:
            return analysis
        return await self.analysis(snapshot)

    def forget(self, key: str) -> None:
        task = self.pending.pop(key, None)
        if task is not None:
            task.cancel()
        analysis = self.analyses.pop(key, None)
        for uri in analysis.published if analysis else ():
            self.publish(uri, [])

    def publish(self, uri: str, found: list[lsp.Diagnostic]) -> None:
        self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri, found))

    def problem(self, message: str) -> None:
        """Say once why a document gets no diagnostics (settings that cannot be read...)."""
        logger.warning(message)
        if message not in self.problems_shown:
            self.problems_shown.add(message)
            self.window_show_message(lsp.ShowMessageParams(lsp.MessageType.Error, message))

    # Code actions and hover.

    async def code_actions(self, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        uri = params.text_document.uri
        key = self.key_of(uri)
        analysis = await self.current(key) if key is not None else None
        if analysis is None or analysis.outcome is None:
            return []
        here = [d for d in analysis.published.get(uri, ()) if _covers(params.range, d.range)]
        only = params.context.only

        def wanted(kind: str) -> bool:
            return only is None or any(kind == k or kind.startswith(f"{k}.") for k in only)

        codec = self.workspace.position_codec
        actions = []
        edit = rewrite_edit(analysis.snapshot, analysis.outcome, codec)
        fixes = [d for d in here if (d.data or {}).get("kind") == "fix"]
        if edit is not None and fixes and wanted(lsp.CodeActionKind.QuickFix.value):
            codes = ", ".join(dict.fromkeys(str(d.code) for d in fixes))
            total = len(analysis.outcome.fixes)
            whole = f" (rewrites the file: {total} fixes)" if total > len(fixes) else ""
            actions.append(
                lsp.CodeAction(
                    title=f"tfmodernize: fix {codes}{whole}",
                    kind=lsp.CodeActionKind.QuickFix,
                    diagnostics=fixes,
                    is_preferred=True,
                    edit=edit,
                )
            )
        if edit is not None and wanted(FIX_ALL) and (only is not None or fixes):
            actions.append(lsp.CodeAction(title="tfmodernize: fix all (safe fixes)", kind=FIX_ALL, edit=edit))
        unsafe = [d for d in here if (d.data or {}).get("unsafe")]
        if unsafe and wanted(lsp.CodeActionKind.QuickFix.value):
            if analysis.unsafe is None:
                snapshot = analysis.snapshot
                loop = asyncio.get_running_loop()
                analysis.unsafe = await loop.run_in_executor(
                    self.worker, lambda: analyse(snapshot.path, snapshot.data, unsafe_fixes=True)
                )
            unsafe_edit = rewrite_edit(analysis.snapshot, analysis.unsafe, codec)
            if unsafe_edit is not None:
                codes = ", ".join(dict.fromkeys(d.code for d in unsafe))
                actions.append(
                    lsp.CodeAction(
                        title=f"tfmodernize: fix {codes} (unsafe)",
                        kind=lsp.CodeActionKind.QuickFix,
                        diagnostics=unsafe,
                        is_preferred=False,
                        edit=unsafe_edit,
                    )
                )
        return actions

    def hover_text(self, params: lsp.HoverParams) -> Optional[lsp.Hover]:
        uri = params.text_document.uri
        key = self.key_of(uri)
        analysis = self.analyses.get(key) if key is not None else None
        if analysis is None:
            return None
        spot = lsp.Range(params.position, params.position)
        codes = dict.fromkeys(str(d.code) for d in analysis.published.get(uri, ()) if _covers(spot, d.range))
        texts = [text for text in map(explain_markdown, codes) if text is not None]
        if not texts:
            return None
        markdown = lsp.MarkupContent(lsp.MarkupKind.Markdown, "\n\n---\n\n".join(texts))
        return lsp.Hover(contents=markdown)


def build_server() -> TFModernizeServer:
    """The server with its features (each handler's ``ls`` is the server)."""
    server = TFModernizeServer()

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls, params: lsp.DidOpenTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls, params: lsp.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, DEBOUNCE)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(ls, params: lsp.DidSaveTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0, again=True)  # pyproject.toml may have changed

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    async def did_close(ls, params: lsp.DidCloseTextDocumentParams) -> None:
        ls.forget(params.text_document.uri)

    @server.feature(lsp.NOTEBOOK_DOCUMENT_DID_OPEN)
    async def notebook_open(ls, params: lsp.DidOpenNotebookDocumentParams) -> None:
        ls.schedule(params.notebook_document.uri, 0)

    @server.feature(lsp.NOTEBOOK_DOCUMENT_DID_CHANGE)
    async def notebook_change(ls, params: lsp.DidChangeNotebookDocumentParams) -> None:
        ls.schedule(params.notebook_document.uri, DEBOUNCE)

    @server.feature(lsp.NOTEBOOK_DOCUMENT_DID_SAVE)
    async def notebook_save(ls, params: lsp.DidSaveNotebookDocumentParams) -> None:
        ls.schedule(params.notebook_document.uri, 0, again=True)

    @server.feature(lsp.NOTEBOOK_DOCUMENT_DID_CLOSE)
    async def notebook_close(ls, params: lsp.DidCloseNotebookDocumentParams) -> None:
        ls.forget(params.notebook_document.uri)

    @server.feature(
        lsp.TEXT_DOCUMENT_CODE_ACTION, lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix, FIX_ALL])
    )
    async def code_action(ls, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        return await ls.code_actions(params)

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    def hover(ls, params: lsp.HoverParams) -> Optional[lsp.Hover]:
        return ls.hover_text(params)

    return server


def serve() -> None:
    """Run the language server on standard input/output until the client says exit."""
    build_server().start_io()
