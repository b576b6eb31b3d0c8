"""Content-hash cache of outcomes, as ruff keeps one: a second run over unchanged files is
a hash and a small read per file.

The key covers everything an outcome depends on: the file's bytes, the codemods selected,
``--unsafe-fixes``, and a fingerprint of the tool itself (the source of every module of the
``tfmodernize`` package, its codemods included), so editing a codemod invalidates what it
produced. Entries are JSON files (under ``.tfmodernize_cache/`` for CLI runs) written
atomically; a damaged or unreadable entry is a miss, never an error.
"""

from __future__ import annotations

import hashlib
import inspect
import sys
import json
import os
import tempfile
from dataclasses import asdict
from functools import lru_cache
from pathlib import Path
from typing import Optional, Sequence

from tfmodernize.codemod import TFCodemod
from tfmodernize.results import Finding, Fix


@lru_cache(maxsize=None)
def _tool_fingerprint() -> str:
    digest = hashlib.sha256()
    root = Path(__file__).parent  # the tfmodernize package
    for path in sorted(root.rglob("*")):
        if path.suffix in (".py", ".json") and "__pycache__" not in path.parts:
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _third_party_fingerprint(codemods: Sequence[type[TFCodemod]]) -> str:
    """The source of every codemod that is not tfmodernize's own (entry-point plugins): a new
    version of a plugin must not be served outcomes its old version computed."""
    digest = hashlib.sha256()
    for codemod in codemods:
        if codemod.__module__.split(".")[0] == "tfmodernize":
            continue
        digest.update(codemod.__module__.encode())
        try:
            digest.update(inspect.getsource(sys.modules[codemod.__module__]).encode())
        except (OSError, TypeError, KeyError):
            digest.update(repr(getattr(sys.modules.get(codemod.__module__), "__version__", None)).encode())
    return digest.hexdigest()


class OutcomeCache:
    def __init__(self, folder: Path, codemods: Sequence[type[TFCodemod]], unsafe_fixes: bool) -> None:
        self.folder = folder
        settings = (
            f"{','.join(c.code for c in codemods)}|{unsafe_fixes}|{_tool_fingerprint()}"
            f"|{_third_party_fingerprint(codemods)}"
        )
        self._salt = hashlib.sha256(settings.encode()).digest()

    def key(self, data: bytes) -> str:
        return hashlib.sha256(self._salt + data).hexdigest()

    def _create_folder(self) -> None:
        """The cache folder says what it is: git ignores it, and backup tools skip it
        (``CACHEDIR.TAG``, https://bford.info/cachedir/)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / ".gitignore").write_text("# Created by tfmodernize: its outcome cache.\n*\n", encoding="utf-8")
        (self.folder / "CACHEDIR.TAG").write_text(
            "Signature: 8a477f597d28d172789f06886806bc55\n"
            "# This file is a cache directory tag created by tfmodernize.\n",
            encoding="utf-8",
        )

    def _entry(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> Optional[dict]:
        try:
            record = json.loads(self._entry(key).read_text(encoding="utf-8"))
            record["fixes"] = [Fix(**f) for f in record["fixes"]]
            record["findings"] = [Finding(**f) for f in record["findings"]]
            return record
        except (OSError, ValueError, TypeError, KeyError):
            return None

    def put(
        self,
        key: str,
        *,
        new: Optional[str],
        fixes: list[Fix],
        findings: list[Finding],
        error: Optional[str],
        kept_on_v1: Sequence[tuple[str, int]] = (),
        exports: Optional[dict] = None,
    ) -> None:
        record = {
            "new": new,
            "fixes": [asdict(f) for f in fixes],
            "findings": [asdict(f) for f in findings],
            "error": error,
            "kept_on_v1": [list(pair) for pair in kept_on_v1],
            "exports": exports or {},
        }
        entry = self._entry(key)
        try:
            if not self.folder.is_dir():
                self._create_folder()
            entry.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=entry.parent, suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(record, handle)
            os.replace(tmp, entry)
        except OSError:
            pass  # a cache that cannot be written only costs speed
