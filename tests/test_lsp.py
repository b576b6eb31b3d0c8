"""`tfmodernize lsp` end to end: the server in a subprocess, driven over stdio by a small
JSON-RPC client (Content-Length framing), as an editor drives it."""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: A TF2 file with a safe fix (TFM207, line 3; after a non-BMP character: UTF-16 columns) and
#: a finding standing for an unsafe fix (TFM206, line 8).
SOURCE = (
    "import tensorflow as tf\n"
    "\n"
    'mood = "\U0001f60b"; tf.config.experimental_run_functions_eagerly(False)\n'
    "\n"
    "\n"
    "@tf.function\n"
    "def f(x):\n"
    "    print(x)\n"
    "    return x\n"
)
CLEAN = 'import tensorflow as tf\n\nmood = "ok"; tf.config.run_functions_eagerly(False)\n'
#: How long to wait for an answer before failing (a hang guard, not a timing assertion).
WAIT = 60


def _env() -> dict:
    return {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "PYTHONPATH": str(ROOT)}


class Client:
    """An LSP client over the server's stdin/stdout."""

    def __init__(self, cwd: Path) -> None:
        self.log = open(cwd / "server.log", "wb")  # the server's own log, for a failing test
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tfmodernize", "lsp"],
            cwd=cwd,
            env=_env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
        )
        self.messages: queue.Queue = queue.Queue()
        self.notifications: list[dict] = []
        self.next_id = 0
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        stream = self.process.stdout
        while True:
            headers = {}
            while True:
                line = stream.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                headers[name.strip().lower()] = value.strip()
            self.messages.put(json.loads(stream.read(int(headers["content-length"]))))

    def send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def notify(self, method: str, params) -> None:
        self.send({"method": method, "params": params})

    def request(self, method: str, params) -> object:
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        while True:
            message = self._next()
            if message.get("id") == self.next_id and "method" not in message:
                assert "error" not in message, message["error"]
                return message.get("result")

    def _next(self) -> dict:
        message = self.messages.get(timeout=WAIT)
        if "method" in message:
            if "id" in message:  # a request from the server (none expected): answer it
                self.send({"id": message["id"], "result": None})
            self.notifications.append(message)
        return message

    def diagnostics(self, uri: str) -> list[dict]:
        """The next diagnostics published for ``uri``."""
        while True:
            for at, message in enumerate(self.notifications):
                if message["method"] == "textDocument/publishDiagnostics" and message["params"]["uri"] == uri:
                    del self.notifications[at]
                    return message["params"]["diagnostics"]
            self._next()

    def start(self, root: Path) -> dict:
        result = self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": root.as_uri(),
                "capabilities": {
                    "textDocument": {"hover": {"contentFormat": ["markdown"]}},
                    "notebookDocument": {"synchronization": {}},
                },
            },
        )
        self.notify("initialized", {})
        return result

    def stop(self) -> int:
        assert self.request("shutdown", None) is None
        self.notify("exit", None)
        return self.process.wait(timeout=WAIT)


@pytest.fixture
def client(tmp_path):
    pytest.importorskip("pygls")
    started = Client(tmp_path)
    yield started
    if started.process.poll() is None:
        started.process.kill()
        started.process.wait()
    started.reader.join(timeout=WAIT)  # it ends at the end of the server's output
    for stream in (started.process.stdin, started.process.stdout, started.log):
        stream.close()


def _offset(text: str, position: dict) -> int:
    """The offset in ``text`` of an LSP position counted in UTF-16 code units."""
    lines = text.splitlines(keepends=True)
    before = sum(len(line) for line in lines[: position["line"]])
    line = lines[position["line"]] if position["line"] < len(lines) else ""
    units = line.encode("utf-16-le")[: 2 * position["character"]]
    return before + len(units.decode("utf-16-le"))


def _edited(text: str, edits: list[dict]) -> str:
    """``text`` with the LSP ``edits`` made (they never overlap: last first)."""

    def start(edit: dict) -> tuple[int, int]:
        return edit["range"]["start"]["line"], edit["range"]["start"]["character"]

    for edit in sorted(edits, key=start, reverse=True):
        begin, end = _offset(text, edit["range"]["start"]), _offset(text, edit["range"]["end"])
        text = text[:begin] + edit["newText"] + text[end:]
    return text


def _applied(path: Path, *options: str) -> bytes:
    """What `tfmodernize apply` writes for ``path`` (on a copy), as the CLI runs it."""
    copy = path.parent / "applied" / path.name
    copy.parent.mkdir(exist_ok=True)
    shutil.copy(path, copy)
    command = [sys.executable, "-m", "tfmodernize", "apply", "--no-cache", *options, str(copy)]
    subprocess.run(command, cwd=path.parent, env=_env(), capture_output=True, check=False)
    return copy.read_bytes()


def _open(client: Client, path: Path, text: str, language: str = "python") -> str:
    uri = path.as_uri()
    client.notify(
        "textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}}
    )
    return uri


def _actions(client: Client, uri: str, diagnostic: dict, only=None) -> list[dict]:
    context = {"diagnostics": [diagnostic], **({"only": only} if only else {})}
    return client.request(
        "textDocument/codeAction", {"textDocument": {"uri": uri}, "range": diagnostic["range"], "context": context}
    )


def _hover(client: Client, uri: str, position: dict):
    params = {"textDocument": {"uri": uri}, "position": position}
    return client.request("textDocument/hover", params)


def test_diagnostics_fixes_hover_and_clearing(client, tmp_path):
    path = tmp_path / "train.py"
    path.write_text(SOURCE, encoding="utf-8")
    capabilities = client.start(tmp_path)["capabilities"]
    assert capabilities["codeActionProvider"] and capabilities["hoverProvider"]
    uri = _open(client, path, SOURCE)
    found = {d["code"]: d for d in client.diagnostics(uri)}
    assert set(found) == {"TFM207", "TFM206"}
    fix, unsafe = found["TFM207"], found["TFM206"]
    # Columns count UTF-16 units: the emoji before the call is two.
    line = SOURCE.splitlines()[2]
    assert fix["range"]["start"] == {"line": 2, "character": line.index("tf.config") + 1}
    assert fix["range"]["end"] == {"line": 2, "character": len(line) + 1}
    assert fix["source"] == "tfmodernize" and fix["severity"] == 3 and unsafe["severity"] == 2
    assert unsafe["range"]["start"]["line"] == 7 and unsafe["range"]["end"]["line"] == 7

    quick = [a for a in _actions(client, uri, fix) if a["kind"] == "quickfix"]
    assert len(quick) == 1 and quick[0]["isPreferred"] and "TFM207" in quick[0]["title"]
    assert list(quick[0]["edit"]["changes"]) == [uri]
    fixed = _edited(SOURCE, quick[0]["edit"]["changes"][uri])
    assert fixed.encode("utf-8") == _applied(path) != SOURCE.encode("utf-8")
    fix_all = _actions(client, uri, fix, only=["source.fixAll"])
    assert [a["kind"] for a in fix_all] == ["source.fixAll.tfmodernize"]
    assert fix_all[0]["edit"] == quick[0]["edit"]

    risky = [a for a in _actions(client, uri, unsafe) if a["title"].endswith("(unsafe)")]
    assert len(risky) == 1 and not risky[0].get("isPreferred")
    unsafe_fixed = _edited(SOURCE, risky[0]["edit"]["changes"][uri])
    assert unsafe_fixed.encode("utf-8") == _applied(path, "--unsafe-fixes") != fixed.encode("utf-8")

    hover = _hover(client, uri, fix["range"]["start"])
    assert hover["contents"]["kind"] == "markdown"
    text = hover["contents"]["value"]
    assert text.startswith("**TFM207 run-functions-eagerly**") and "**What it does**" in text
    assert "**Before**" in text and "experimental_run_functions_eagerly" in text
    assert _hover(client, uri, {"line": 0, "character": 0}) is None

    client.notify(
        "textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": CLEAN}]}
    )
    assert client.diagnostics(uri) == []
    assert _actions(client, uri, fix) == []
    assert client.stop() == 0


def test_changes_typed_in_a_row_end_on_the_last_text_and_close_clears(client, tmp_path):
    client.start(tmp_path)
    uri = _open(client, tmp_path / "clean.py", CLEAN)
    assert client.diagnostics(uri) == []
    line = "tf.config.experimental_run_functions_eagerly(True)\n"
    for version, character in enumerate(range(len(line)), start=2):  # typed a key at a time
        at = {"line": 3, "character": character}
        client.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"range": {"start": at, "end": at}, "text": line[character]}],
            },
        )
    final = [("TFM207", {"line": 3, "character": 0})]
    while [(d["code"], d["range"]["start"]) for d in client.diagnostics(uri)] != final:
        pass  # a pause in the typing may have published an intermediate text's
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert client.diagnostics(uri) == []
    assert client.stop() == 0


def test_settings_come_from_the_nearest_pyproject_and_are_read_again_on_save(client, tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.tfmodernize]\nignore = ["TFM207"]\n')
    (tmp_path / "pkg").mkdir()
    client.start(tmp_path)
    uri = _open(client, tmp_path / "pkg" / "train.py", SOURCE)
    assert [d["code"] for d in client.diagnostics(uri)] == ["TFM206"]
    pyproject.write_text('[tool.tfmodernize]\nignore = ["TFM206"]\n')
    client.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    assert [d["code"] for d in client.diagnostics(uri)] == ["TFM207"]
    assert client.stop() == 0


def test_a_broken_pyproject_is_said_once_and_gives_no_diagnostics(client, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.tfmodernize]\nselect = "TFM2"\n')
    client.start(tmp_path)
    uri = _open(client, tmp_path / "train.py", SOURCE)
    assert client.diagnostics(uri) == []
    client.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    assert client.diagnostics(uri) == []
    shown = [m for m in client.notifications if m["method"] == "window/showMessage"]
    assert len(shown) == 1 and "`select` must be a list of strings" in shown[0]["params"]["message"]
    assert client.stop() == 0


NOTEBOOK_CELLS = [
    (1, "# A TF1 notebook\n"),
    (2, "import tensorflow as tf\n"),
    (2, "tf.set_random_seed(0)\nx = tf.random_uniform([2])"),
]


def _notebook(path: Path) -> None:
    import nbformat

    notebook = nbformat.v4.new_notebook()
    for kind, text in NOTEBOOK_CELLS:
        cell = nbformat.v4.new_markdown_cell if kind == 1 else nbformat.v4.new_code_cell
        notebook.cells.append(cell(text))
    path.write_text(nbformat.writes(notebook), encoding="utf-8")


def _published(client: Client, uris: list[str]) -> dict[str, list[dict]]:
    """The next diagnostics of each of ``uris``."""
    return {uri: client.diagnostics(uri) for uri in uris}


def test_notebook_documents_get_diagnostics_and_fixes_per_cell(client, tmp_path):
    import nbformat

    path = tmp_path / "nb.ipynb"
    _notebook(path)
    client.start(tmp_path)
    uri = path.as_uri()
    cells = [f"vscode-notebook-cell:{path}#cell{i}" for i in range(len(NOTEBOOK_CELLS))]
    kinds = [kind for kind, _ in NOTEBOOK_CELLS]
    client.notify(
        "notebookDocument/didOpen",
        {
            "notebookDocument": {
                "uri": uri,
                "notebookType": "jupyter-notebook",
                "version": 1,
                "cells": [{"kind": kind, "document": cell} for kind, cell in zip(kinds, cells)],
            },
            "cellTextDocuments": [
                {"uri": cell, "languageId": "markdown" if kind == 1 else "python", "version": 1, "text": text}
                for (kind, text), cell in zip(NOTEBOOK_CELLS, cells)
            ],
        },
    )
    published = _published(client, cells)
    assert published[cells[0]] == published[cells[1]] == []
    found = published[cells[2]]
    assert sorted((d["code"], d["range"]["start"]["line"]) for d in found) == [("TFM109", 0), ("TFM109", 1)]

    quick = next(a for a in _actions(client, cells[2], found[0]) if a["kind"] == "quickfix")
    assert list(quick["edit"]["changes"]) == [cells[2]]
    applied = nbformat.reads(_applied(path).decode("utf-8"), as_version=4)
    fixed = _edited(NOTEBOOK_CELLS[2][1], quick["edit"]["changes"][cells[2]])
    assert fixed == applied.cells[2].source != NOTEBOOK_CELLS[2][1]

    whole = {"start": {"line": 0, "character": 0}, "end": {"line": 2, "character": 0}}
    client.notify(
        "notebookDocument/didChange",
        {
            "notebookDocument": {"uri": uri, "version": 2},
            "change": {
                "cells": {
                    "textContent": [
                        {"document": {"uri": cells[2], "version": 2}, "changes": [{"range": whole, "text": fixed}]}
                    ]
                }
            },
        },
    )
    assert _published(client, cells) == {cell: [] for cell in cells}

    client.notify(
        "notebookDocument/didClose",
        {"notebookDocument": {"uri": uri}, "cellTextDocuments": [{"uri": cell} for cell in cells]},
    )
    assert _published(client, cells) == {cell: [] for cell in cells}
    assert client.stop() == 0


def test_a_notebook_opened_as_text_is_fixed_as_apply_writes_it(client, tmp_path):
    path = tmp_path / "nb.ipynb"
    _notebook(path)
    text = path.read_text(encoding="utf-8")
    client.start(tmp_path)
    uri = _open(client, path, text, language="json")
    found = client.diagnostics(uri)
    assert {d["code"] for d in found} == {"TFM109"}
    assert all(d["range"]["start"]["line"] == 0 for d in found)
    assert found[0]["message"].startswith("cell 3, line 1: ")
    quick = next(a for a in _actions(client, uri, found[0]) if a["kind"] == "quickfix")
    assert _edited(text, quick["edit"]["changes"][uri]).encode("utf-8") == _applied(path)
    assert client.stop() == 0


def _python(script: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", script], cwd=cwd, env=_env(), capture_output=True, text=True)


def test_the_server_never_imports_tensorflow(tmp_path):
    pytest.importorskip("pygls")
    script = (
        "import sys\nfrom pathlib import Path\nfrom tfmodernize import lsp\n"
        f"outcome = lsp.analyse(Path('t.py'), {SOURCE.encode()!r})\n"
        "assert outcome.fixes, outcome\nprint('tensorflow' in sys.modules)\n"
    )
    result = _python(script, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


def test_without_pygls_the_command_names_the_extra(tmp_path):
    result = _python(
        "import sys\nsys.modules['pygls'] = None\nfrom tfmodernize.cli import main\n"
        "sys.argv = ['tfmodernize', 'lsp']\nmain()\n",
        tmp_path,
    )
    assert result.returncode == 2
    assert "pip install 'tfmodernize[lsp]'" in result.stderr and "Traceback" not in result.stderr
