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

The summaries describe each module **as the run leaves it**: with a ``rewrite`` hook (the
engine's), an imported module is rewritten first, its own imports before it, and its summary read
off the rewritten text (a module kept on TF1, or one the rewrite fails on, is summarized as
written). A script importing ``ops`` then migrates knowing that ``ops`` is TF2 code after the run.

The other way round, each module of the run learns how the other files of the run use its
functions (``callers_of``: every call or other use, its line, and whether it is a statement of
the importing file's top-level code): a rewrite that changes what a function does when called
(``return tf.get_variable(...)`` becoming a new ``tf.Variable`` per call) asks whether any caller
could tell. The files of the run are taken to be the project: a caller outside the run is not
seen.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import libcst as cst

from tfmodernize import treewalk
from tfmodernize.sources import SourceError, read_source
from tfmodernize.tfsymbols import TFNames

#: import name -> {codemod code: summary}, or None for a module that exists but is not in the run.
ProjectView = dict[str, Optional[dict[str, Any]]]
#: function name -> its uses in the other files of the run (``Use.as_dict``).
Callers = dict[str, list[dict[str, Any]]]


@dataclass(frozen=True)
class Rewritten:
    """What the run leaves a file as: its text and what its rewrite exports
    (``FileState.exports``) when it is TF2 code; else (``text`` None: the file stays on TF1 or
    cannot be rewritten, and is summarized as written) why."""

    text: Optional[str] = None
    exports: dict = field(default_factory=dict)
    stays: Optional[str] = None


#: The engine's hook: (path, view, callers, why exports are refused or None) -> ``Rewritten``.
Rewrite = Callable[[Path, ProjectView, Optional[Callers], Optional[str]], Rewritten]


@dataclass
class ProjectIndex:
    """The summaries of every module of a run, by resolved path."""

    summaries: dict[Path, dict[str, Any]] = field(default_factory=dict)
    #: The module names each file of the run imports (read off its text).
    imports: dict[Path, set[str]] = field(default_factory=dict)
    #: The project's import roots (``src``), searched after a file's own folder.
    roots: tuple[Path, ...] = ()
    #: Module path -> function name -> its uses in the other files of the run.
    callers: dict[Path, Callers] = field(default_factory=dict)
    #: The files the pre-pass rewrote (through ``Rewrite``) in the views it ends with: their last
    #: rewrite stands.
    rewritten: set[Path] = field(default_factory=set)
    _beside: dict[Path, tuple[tuple[Path, str], ...]] = field(default_factory=dict, repr=False)

    def view_from(self, path: Path) -> ProjectView:
        """The project modules the file at ``path`` imports from its folder or the roots, with
        their summaries (the file's own folder first, as Python searches them)."""
        return {name: self.summaries.get(candidate) for name, candidate in self.visible_from(path).items()}

    def visible_from(self, path: Path) -> dict[str, Path]:
        """Import name -> file, for the project modules the file at ``path`` imports."""
        path = path.resolve()
        wanted = self.imports.get(path, set())
        found: dict[str, Path] = {}
        for folder in (path.parent, *self.roots):
            if folder not in self._beside:
                self._beside[folder] = _modules_beside(folder)
            for candidate, name in self._beside[folder]:
                if name in wanted and candidate != path and name not in found:
                    found[name] = candidate
        return found

    def callers_of(self, path: Path) -> Optional[Callers]:
        """How the other files of the run use the functions of the module at ``path`` (None
        when no file of the run imports it)."""
        return self.callers.get(path.resolve())

    @staticmethod
    def fingerprint(view: ProjectView, callers: Optional[Callers] = None) -> bytes:
        """What the cache key of a file must include: the summaries it is rewritten with and
        how the rest of the run calls it."""
        return json.dumps([view, callers], sort_keys=True, default=str).encode()


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


def summarize(
    paths: Sequence[Path], codemods: Sequence[type], roots: Sequence[Path] = (), rewrite: Optional[Rewrite] = None
) -> ProjectIndex:
    """Read what each file of the run imports and how it calls the project's functions, and ask
    each codemod with a ``summarize`` hook about each file another file of the run imports
    (files that cannot be read or parsed are left out: their own outcome reports why).
    ``roots``: the project's import roots (``src``). ``rewrite``: see ``Rewrite``; an imported
    module is rewritten after the modules it imports, so it sees their summaries (an import
    cycle is summarized as written where it closes); the files importing a module whose
    rewrite exports something are rewritten here too, to check they follow it."""
    index = ProjectIndex(roots=tuple(root.resolve() for root in roots))
    summarizers = [c for c in codemods if getattr(c, "summarizes", False)]
    sources = {}
    for path in paths:
        try:
            sources[path.resolve()] = read_source(path).text
        except SourceError:
            continue
    for path, text in sources.items():
        names = {name for match in _IMPORTED.finditer(text) for name in match.groups() if name}
        index.imports[path] = names | {name.rpartition(".")[0] for name in names if "." in name}
    if len(sources) < 2:
        return index
    imported = {candidate for path in sources for candidate in index.visible_from(path).values()} & set(sources)
    _read_callers(index, sources, imported)
    if not summarizers:
        return index
    # A module whose rewrite changed what its importers must call (``FileState.exports``: a
    # function that became a class) keeps that rewrite only if every file of the run importing
    # it is rewritten to TF2 too (kept on TF1, it could not call the new code): otherwise the
    # module is rewritten again with its exports refused (knowing which file and why), and
    # everything after it again.
    forbidden: dict[Path, str] = {}  # module -> why a file importing it stays on TF1
    while True:
        index.summaries = {}
        results: dict[Path, Rewritten] = {}
        started: set[Path] = set()

        def rewritten(path: Path) -> Rewritten:
            if path not in results:
                results[path] = (
                    rewrite(path, index.view_from(path), index.callers_of(path), forbidden.get(path))
                    if rewrite is not None
                    else Rewritten()
                )
            return results[path]

        def summary_of(path: Path) -> None:
            if path in started:
                return
            started.add(path)
            for candidate in index.visible_from(path).values():
                if candidate in imported:
                    summary_of(candidate)
            result = rewritten(path)
            found = _summaries(result.text if result.text is not None else sources[path], summarizers)
            if found is not None:
                for code, exported in result.exports.items():
                    found[code] = {**(found.get(code) or {}), **exported}
                index.summaries[path] = found

        for path in sources:
            if path in imported:
                summary_of(path)
        broken = {}
        for path in imported:
            if not (path in results and results[path].exports):
                continue
            staying = [
                importer
                for importer in sources
                if path in index.visible_from(importer).values() and rewritten(importer).text is None
            ]
            if staying:
                broken[path] = f"{staying[0].name} calls it and stays on TF1 ({rewritten(staying[0]).stays})"
        if not broken:
            index.rewritten = set(results)
            return index
        forbidden.update(broken)


def _summaries(text: str, summarizers: Sequence[type]) -> Optional[dict[str, Any]]:
    """Each summarizing codemod's summary of one module's text (None: it does not parse)."""
    try:
        module = cst.parse_module(text)
    except (cst.ParserSyntaxError, SyntaxError, ValueError, RecursionError):
        return None
    names = TFNames.for_module(module)
    found = {}
    try:
        for codemod in summarizers:
            summary = codemod.summarize(module, names)
            if summary is not None:
                found[codemod.code] = summary
    finally:
        treewalk.forget()  # walks remember the nodes of the file they read
    return found


def _read_callers(index: ProjectIndex, sources: dict[Path, str], imported: set[Path]) -> None:
    """``index.callers``: for each imported module, every use of its functions by the other files
    of the run (read with ``ast``: a use is a name, no rewrite follows from here)."""
    defined: dict[Path, Optional[set[str]]] = {}
    for path in imported:
        try:
            tree = ast.parse(sources[path])
        except (SyntaxError, ValueError, RecursionError):
            defined[path] = None
            continue
        defined[path] = {s.name for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
        index.callers[path] = {}
    for path, text in sources.items():
        visible = {name: candidate for name, candidate in index.visible_from(path).items() if defined.get(candidate)}
        if not visible:
            continue
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError):
            continue
        for module_path, function, use in _uses(tree, visible, defined):
            index.callers[module_path].setdefault(function, []).append({"file": path.name, **use})
    for callers in index.callers.values():
        for uses in callers.values():
            uses.sort(key=lambda use: (use["file"], use["line"]))


def _uses(tree: ast.Module, visible: dict[str, Path], defined: dict[Path, Optional[set[str]]]):
    """(module path, function, {"line", "call", "top_level", "attribute", "arguments", "shapes",
    "unit"}) for each
    use in ``tree`` of a function of the ``visible`` project modules: by a name ``from m import
    f`` (or ``*``) binds, or as ``m.f`` after ``import m`` (``attribute``). ``top_level``: the
    use is in a simple statement of the module's own top-level code, outside any block;
    ``arguments``: what a call passes (``_arguments``); ``shapes``: what the file knows of each
    argument's static shape, in the same order (``_argument_shapes``); ``unit``: the module function holding the
    use outside its loops, conditions, ``try`` blocks, comprehensions and nested definitions,
    when the top-level code calls it once (``_units``), else None."""
    names: dict[str, tuple[Path, str]] = {}
    modules: dict[str, Path] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in visible:
            module_path = visible[node.module]
            for alias in node.names:
                if alias.name == "*":
                    names.update({f: (module_path, f) for f in defined[module_path] or ()})
                elif alias.name in (defined[module_path] or ()):
                    names[alias.asname or alias.name] = (module_path, alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in visible:
                    modules[alias.asname or alias.name] = visible[alias.name]
    if not names and not modules:
        return
    # Simple statements only: a compound one (a definition, a block, ``match``) has a body or cases.
    top = {
        id(statement) for statement in tree.body if not hasattr(statement, "body") and not hasattr(statement, "cases")
    }
    units = _units(tree)
    shapes = _argument_shapes(tree, names, modules, defined)
    pending: list[tuple[ast.AST, Optional[ast.AST], bool, Optional[str]]] = [
        (statement, None, id(statement) in top, None) for statement in tree.body
    ]
    while pending:
        node, parent, top_level, unit = pending.pop()
        if parent is None and isinstance(node, ast.FunctionDef) and node.name in units:
            unit = node.name
        elif isinstance(
            node,
            (
                ast.For,
                ast.AsyncFor,
                ast.While,
                ast.If,
                ast.Try,
                ast.Match,
                ast.ListComp,
                ast.SetComp,
                ast.DictComp,
                ast.GeneratorExp,
                ast.Lambda,
                ast.FunctionDef,
                ast.AsyncFunctionDef,
                ast.ClassDef,
            ),
        ):
            unit = None  # what is inside may run other than once when the function does
        target = None
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in names:
            target = names[node.id]
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
            and node.attr in (defined[modules[node.value.id]] or ())
        ):
            target = (modules[node.value.id], node.attr)
        if target is not None:
            called = isinstance(parent, ast.Call) and parent.func is node
            yield (
                target[0],
                target[1],
                {
                    "line": node.lineno,
                    "call": called,
                    "top_level": top_level,
                    "attribute": isinstance(node, ast.Attribute),
                    "arguments": _arguments(parent) if called else [],
                    "shapes": [shapes(value, target[0]) for value in _values(parent)] if called else [],
                    "unit": unit,
                },
            )
            if isinstance(node, ast.Attribute):
                continue
        for child in ast.iter_child_nodes(node):
            pending.append(
                (
                    child,
                    node,
                    top_level and not isinstance(child, (ast.Lambda, ast.comprehension)),
                    None if isinstance(node, ast.FunctionDef) and child in node.decorator_list else unit,
                )
            )


def _arguments(call: ast.Call) -> list[list]:
    """A call's arguments as ``[keyword, literal]``: keyword None for a positional one, ``"*"``
    / ``"**"`` for unpacked ones; the source of a constant (``"True"``, ``"3"``), else None."""
    found: list[list] = []
    for arg in call.args:
        found.append(
            ["*" if isinstance(arg, ast.Starred) else None, repr(arg.value) if isinstance(arg, ast.Constant) else None]
        )
    for keyword in call.keywords:
        found.append(
            [keyword.arg or "**", repr(keyword.value.value) if isinstance(keyword.value, ast.Constant) else None]
        )
    return found


def _values(call: ast.Call) -> list[ast.expr]:
    """A call's argument values, in the order ``_arguments`` lists them."""
    return [*call.args, *(keyword.value for keyword in call.keywords)]


def _argument_shapes(
    tree: ast.Module,
    names: dict[str, tuple[Path, str]],
    modules: dict[str, Path],
    defined: dict[Path, Optional[set[str]]],
) -> Callable[[ast.expr, Path], Optional[list]]:
    """What a file knows, ahead of any rewrite, of the static shape of an argument it passes to
    a function of the module at a path: a name its top-level code binds once, to a placeholder
    declared with a shape written out (``["placeholder", [True, False, ...]]``: whether each
    dimension is written, a number or names bound once there) or to what another function of
    that module returns (``["result", function]``); None for anything else (its shape is not known ahead: a
    pooling's, a reshape's, a name bound twice or inside a function)."""
    top = [s for s in tree.body if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    counts: dict[str, int] = {}
    for statement in top:
        for node in ast.walk(statement):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                counts[node.id] = counts.get(node.id, 0) + 1
    once = {name for name, count in counts.items() if count == 1}
    known: dict[str, list] = {}
    for statement in (node for line in top for node in ast.walk(line)):
        if not (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], (ast.Name, ast.Tuple, ast.List))
            and isinstance(statement.value, ast.Call)
        ):
            continue
        call, bound = statement.value, statement.targets[0]
        # ``h = f(x)``, or ``h, w = f(x)`` (one of its results: what it is, its module says).
        targets = [bound] if isinstance(bound, ast.Name) else [e for e in bound.elts if isinstance(e, ast.Name)]
        targets = [t.id for t in targets if t.id in once]
        if not targets:
            continue
        func = call.func
        called = None
        if isinstance(func, ast.Name) and func.id in names:
            called = names[func.id]
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in modules:
            if func.attr in (defined[modules[func.value.id]] or ()):
                called = (modules[func.value.id], func.attr)
        if called is not None:
            known.update({target: ["result", called[0], called[1]] for target in targets})
            continue
        if not (isinstance(bound, ast.Name) and isinstance(func, ast.Attribute) and func.attr == "placeholder"):
            continue
        target = bound.id
        shape = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "shape"), None)
        if isinstance(shape, (ast.List, ast.Tuple)) and not any(isinstance(e, ast.Starred) for e in shape.elts):
            known[target] = [
                "placeholder",
                [
                    not (isinstance(e, ast.Constant) and e.value is None)
                    and all(n.id in once for n in ast.walk(e) if isinstance(n, ast.Name))
                    for e in shape.elts
                ],
            ]

    def shape_of(value: ast.expr, module: Path) -> Optional[list]:
        found = known.get(value.id) if isinstance(value, ast.Name) else None
        if found is not None and found[0] == "result":  # only another function of the same module
            return ["result", found[2]] if found[1] == module else None
        return found

    return shape_of


def _units(tree: ast.Module) -> set[str]:
    """The module functions the top-level code calls once, by name, in a simple statement (or in
    ``if __name__ == "__main__":``), and uses nowhere else: a program's ``main()``."""
    functions = {s.name for s in tree.body if isinstance(s, ast.FunctionDef)}
    uses: dict[str, list[ast.Name]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in functions:
            uses.setdefault(node.id, []).append(node)
    called: set[int] = set()
    for statement in tree.body:
        lines = [statement]
        if (
            isinstance(statement, ast.If)
            and not statement.orelse
            and ast.unparse(statement.test).replace("'", '"') == '__name__ == "__main__"'
        ):
            lines = statement.body
        for line in lines:
            if (
                isinstance(line, (ast.Expr, ast.Assign))
                and isinstance(line.value, ast.Call)
                and isinstance(line.value.func, ast.Name)
            ):
                called.add(id(line.value.func))
    return {name for name, found in uses.items() if len(found) == 1 and id(found[0]) in called}


#: What a file of the run became, for ``on_v1_together``.
KEPT, FAILED, MIGRATED, AS_IS = "kept", "failed", "migrated", "as-is"


def on_v1_together(
    index: ProjectIndex, status: dict[Path, str], why: dict[Path, str], outside: Callable[[Path], Optional[str]]
) -> dict[Path, str]:
    """The files of the run to keep on ``tf.compat.v1`` because their project stays on TF1, each
    with the reason (for ``FileState.project_on_v1``).

    A script and the project modules it imports run in one process, with v2 behaviour on or off
    for all of them, so they are migrated together or kept on TF1 together. ``status``: what each
    TensorFlow file of the run became: ``KEPT`` (on compat.v1), ``FAILED`` (left as written),
    ``MIGRATED`` (TF1 code rewritten as TF2) or ``AS_IS`` (TF2 code, changed or not); ``why``:
    what keeps a ``KEPT`` or ``FAILED`` file. ``outside(path)``: for a project module a file of
    the run imports but the run does not hold, why it is TF1 code as written, or None.

    From each file staying on TF1 (``KEPT``, and what this adds): the project modules it imports
    that are TensorFlow code (``MIGRATED`` or ``AS_IS``) run inside its TF1 program and stay with
    it; the files importing it that were TF1 code (``MIGRATED``) stay with it too. A file left as
    written (``FAILED``), or a TF1 module outside the run, keeps its importers that were TF1 code.
    TF2 code importing a TF1 module (``AS_IS``) is left as it is: it was TF2 code before the run.
    """
    importers: dict[Path, list[Path]] = {}
    for path in status:
        for module in index.visible_from(path).values():
            importers.setdefault(module, []).append(path)
    forced: dict[Path, str] = {}
    #: For each file staying on TF1: the file whose construct keeps the project there, and why.
    cause: dict[Path, tuple[str, str]] = {
        path: (path.name, why.get(path, "it is not rewritten"))
        for path, state in status.items()
        if state in (KEPT, FAILED)
    }
    pending = list(cause)

    def stays(path: Path, neighbour: Path, relation: str) -> None:
        if path in forced or path in cause:
            return
        origin, what = cause[neighbour]
        forced[path] = (
            f"{neighbour.name}, which {relation}, stays on TF1 ({'' if origin == neighbour.name else origin + ': '}{what})"
        )
        cause[path] = (origin, what)
        pending.append(path)

    for path, state in status.items():
        if state != MIGRATED:
            continue
        for module in index.visible_from(path).values():
            if module not in status and (tf1 := outside(module)) is not None and path not in forced:
                forced[path] = (
                    f"{module.name}, which it imports, is TF1 code and not in this run ({tf1}): "
                    "add it to the run to migrate them together"
                )
                cause[path] = (module.name, tf1)
                pending.append(path)
    while pending:
        path = pending.pop()
        if status[path] != FAILED:  # a file left as written keeps only its importers
            for module in index.visible_from(path).values():
                if status.get(module) in (MIGRATED, AS_IS):
                    stays(module, path, "imports it")
        for importer in importers.get(path, ()):
            if status.get(importer) == MIGRATED:
                stays(importer, path, "it imports")
    return forced
