"""The project pre-pass: what each module of a run tells the modules that import it.

Real programs are split across files: a training script imports the model another module of
the project builds (``from model import build``). Before rewriting, a run of several files asks
every codemod that has a ``summarize`` hook what it needs to know of each file (which
functions build tensors, create variables, need TF1), keyed by the name the file is imported
under. Each file is then rewritten knowing the summaries of the project modules next to it;
a module that exists beside it but is not part of the run is known by name only, so a finding
can say which file to add to the run.

A module ``name`` is visible from a file when ``name.py`` (or the package ``name/``) is in the
file's own folder, as Python imports a script's neighbours, or in one of the run's ``src``
folders (the project's import roots, searched after the file's folder); packages are followed
one level (``pkg.model`` for ``pkg/model.py``). Nothing here knows a codemod: summaries are opaque,
JSON-serialisable values stored under the codemod's code.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence

import libcst as cst

from tfmodernize import treewalk
from tfmodernize.sources import SourceError, read_source
from tfmodernize.tfsymbols import TFNames

#: import name -> {codemod code: summary}, or None for a module that exists but is not in the run.
ProjectView = dict[str, Optional[dict[str, Any]]]


@dataclass
class ProjectIndex:
    """The summaries of every module of a run, by resolved path."""

    summaries: dict[Path, dict[str, Any]] = field(default_factory=dict)
    #: The module names each file of the run imports (read off its text).
    imports: dict[Path, set[str]] = field(default_factory=dict)
    #: The project's import roots (``src``), searched after a file's own folder.
    roots: tuple[Path, ...] = ()
    _beside: dict[Path, tuple[tuple[Path, str], ...]] = field(default_factory=dict, repr=False)

    def view_from(self, path: Path) -> ProjectView:
        """The project modules the file at ``path`` imports from its folder or the roots, with
        their summaries (the file's own folder first, as Python searches them)."""
        path = path.resolve()
        wanted = self.imports.get(path, set())
        view: ProjectView = {}
        for folder in (path.parent, *self.roots):
            if folder not in self._beside:
                self._beside[folder] = _modules_beside(folder)
            for candidate, name in self._beside[folder]:
                if name in wanted and candidate != path and name not in view:
                    view[name] = self.summaries.get(candidate)
        return view

    @staticmethod
    def fingerprint(view: ProjectView) -> bytes:
        """What the cache key of a file must include: the summaries it is rewritten with."""
        return json.dumps(view, sort_keys=True, default=str).encode()


def _modules_beside(folder: Path) -> tuple[tuple[Path, str], ...]:
    """(file, import name) of the modules a script in ``folder`` can import by name."""
    found = []
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return ()
    for entry in entries:
        if entry.suffix == ".py" and entry.is_file():
            found.append((entry.resolve(), entry.stem))
        elif entry.is_dir() and (entry / "__init__.py").is_file():
            for inner in sorted(entry.glob("*.py")):
                name = entry.name if inner.stem == "__init__" else f"{entry.name}.{inner.stem}"
                found.append((inner.resolve(), name))
    return tuple(found)


#: ``import a.b`` / ``from a.b import c``: the modules a file names (a text search, before parsing).
_IMPORTED = re.compile(r"^[ \t]*(?:from[ \t]+([\w.]+)[ \t]+import|import[ \t]+([\w.]+))", re.MULTILINE)


def summarize(paths: Sequence[Path], codemods: Sequence[type], roots: Sequence[Path] = ()) -> ProjectIndex:
    """Read what each file of the run imports, and ask each codemod with a ``summarize`` hook
    about each file another file of the run imports (files that cannot be read or parsed are
    left out: their own outcome reports why). ``roots``: the project's import roots (``src``)."""
    index = ProjectIndex(roots=tuple(root.resolve() for root in roots))
    summarizers = [c for c in codemods if getattr(c, "summarizes", False)]
    if not summarizers:
        return index
    sources = {}
    for path in paths:
        try:
            sources[path.resolve()] = read_source(path).text
        except SourceError:
            continue
    for path, text in sources.items():
        names = {name for match in _IMPORTED.finditer(text) for name in match.groups() if name}
        index.imports[path] = names | {name.rpartition(".")[0] for name in names if "." in name}
    imported = set().union(*index.imports.values()) if index.imports else set()
    for path, text in sources.items():
        if len(sources) < 2 or not {path.stem, f"{path.parent.name}.{path.stem}", path.parent.name} & imported:
            continue
        try:
            module = cst.parse_module(text)
        except (cst.ParserSyntaxError, SyntaxError, ValueError, RecursionError):
            continue
        names = TFNames.for_module(module)
        found = {}
        try:
            for codemod in summarizers:
                summary = codemod.summarize(module, names)
                if summary is not None:
                    found[codemod.code] = summary
        finally:
            treewalk.forget()  # walks remember the nodes of the file they read
        index.summaries[path] = found
    return index
