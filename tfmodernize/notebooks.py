"""Jupyter notebooks as one Python module: read, rewritten like a ``.py`` file, written back.

The code cells of a notebook run top to bottom in one namespace, so the codemods see them as
one module (a migration needs the whole program: the placeholders of cell 2 and the session of
cell 5). Each code cell becomes::

    'tfmodernize: cell 3'
    <the cell's source>

The marker is a statement of its own (a bare string, which no codemod moves or removes), not a
comment: a comment would belong to the cell's first statement and go with it when a migration
removes that statement (``sess = tf.Session()`` alone in its cell), losing the cell boundary.
A cell whose code the migration removed or moved into a function comes back empty.

IPython lines are not Python: line magics (``%matplotlib inline``), shell escapes (``!pip
install``, ``files = !ls``), help (``tf.nn?``) are masked as ``pass  # tfmodernize: IPython
line N`` (indentation kept, so a block stays a block) and restored on the way back. A cell
magic whose body is Python (``%%time``, ``%%timeit``, ``%%capture``) has only its first line
masked; any other cell magic (``%%bash``, ``%%writefile``...) keeps its cell out of the module.

Writing back changes only the sources of the code cells whose text changed; markdown, outputs,
metadata, execution counts and cell ids are kept. A rewrite that moved code across a cell marker
(a marker lost or out of order) cannot be put back into cells faithfully: the notebook is left
untouched with that error. Cells are numbered from 1 over all cells, as Jupyter shows them.
Reading and writing go through ``nbformat`` (imported only when a notebook is read).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tfmodernize.sources import SourceError

_MARK = "'tfmodernize: cell {}'"
_MARK_LINE = re.compile(r"^'tfmodernize: cell (\d+)'[ \t]*$", re.MULTILINE)
_MASK = "pass  # tfmodernize: IPython line {}"
_MASKED = re.compile(r"^([ \t]*)pass  # tfmodernize: IPython line (\d+)[ \t]*$", re.MULTILINE)
#: An IPython-only line: a magic, a shell escape (also assigned), or a help request.
_IPYTHON_LINE = re.compile(r"^[ \t]*(?:%|!|\?|[\w.]+[ \t]*=[ \t]*[!%])|^[ \t]*[\w.()]+\?{1,2}[ \t]*$")
#: Cell magics whose body is Python run by IPython as it is.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug"})


class NotebookError(SourceError):
    """A notebook that cannot be read, or a rewrite that cannot be put back into its cells."""


@dataclass(frozen=True)
class Layout:
    """Where each code cell sits in the module made of a notebook (``to_module``)."""

    #: Notebook index (0-based) of each cell in the module, in order.
    cells: tuple[int, ...]
    #: First module line (1-based) of each cell's code: the line after its marker.
    starts: tuple[int, ...]
    #: The IPython lines masked, by mask number.
    masked: tuple[str, ...]

    def locate(self, line: int) -> tuple[int, int]:
        """``(cell number from 1, line in the cell from 1)`` of a module line."""
        position = 0
        for i, start in enumerate(self.starts):
            if start <= line:
                position = i
        return self.cells[position] + 1, max(1, line - self.starts[position] + 1)


def _read(data: bytes):
    import nbformat

    try:
        return nbformat.reads(data.decode("utf-8"), as_version=nbformat.NO_CONVERT)
    except UnicodeDecodeError as error:
        raise NotebookError(f"not a notebook: cannot be decoded as utf-8 (byte {error.start})") from None
    except Exception as error:  # nbformat raises JSON, validation and version errors of many types
        raise NotebookError(f"not a readable notebook: {type(error).__name__}: {str(error).splitlines()[0]}") from None


def _mask(source: str, masked: list[str]) -> str:
    lines = source.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if _IPYTHON_LINE.match(line):
            body = line.rstrip("\r\n")
            indent = body[: len(body) - len(body.lstrip())]
            lines[i] = indent + _MASK.format(len(masked)) + line[len(body) :]
            masked.append(body.lstrip())
    return "".join(lines)


def _python_cell_magic(source: str) -> bool:
    """Whether a cell starting with ``%%`` has a Python body (``%%time``)."""
    name = source[2:].split(None, 1)[0] if source[2:].strip() else ""
    return name in PYTHON_CELL_MAGICS


def to_module(data: bytes) -> tuple[str, Layout]:
    """The code cells of the notebook ``data`` as one module, and where each cell went."""
    notebook = _read(data)
    parts, cells, starts, masked = [], [], [], []
    line = 1
    for index, cell in enumerate(notebook.cells):
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if source.startswith("%%") and not _python_cell_magic(source):
            continue  # %%bash, %%writefile...: not Python
        text = _mask(source, masked)
        if text and not text.endswith("\n"):
            text += "\n"
        parts.append(_MARK.format(index + 1) + "\n" + text)
        cells.append(index)
        starts.append(line + 1)
        line += 1 + text.count("\n")
    return "".join(parts), Layout(tuple(cells), tuple(starts), tuple(masked))


def cell_sources(module: str, layout: Layout) -> dict[int, str]:
    """Cell number (from 1) -> source with IPython lines restored, split out of ``module``.

    Raises ``NotebookError`` when the module's cell markers are not exactly the layout's, in order.
    """
    marks = list(_MARK_LINE.finditer(module))
    expected = [index + 1 for index in layout.cells]
    if [int(m.group(1)) for m in marks] != expected:
        raise NotebookError(
            "the rewrite moved code across notebook cells (cell markers lost or reordered): "
            "notebook left untouched; migrate it as a script (jupyter nbconvert --to script) and paste the cells back"
        )
    sources = {}
    for position, mark in enumerate(marks):
        end = marks[position + 1].start() if position + 1 < len(marks) else len(module)
        head = module[: mark.start()] if position == 0 else ""  # anything put above the first marker
        body = head + module[mark.end() + 1 : end]
        sources[int(mark.group(1))] = _unmask(body, layout)
    return sources


def _unmask(text: str, layout: Layout) -> str:
    def restore(match: re.Match) -> str:
        number = int(match.group(2))
        return match.group(1) + layout.masked[number] if number < len(layout.masked) else match.group(0)

    return _MASKED.sub(restore, text)


def _fitted(new: str, old: str) -> str:
    """A rewritten cell's text with the blank lines the module needed between cells dropped, and
    a final newline only where the cell had one."""
    new = new.rstrip("\n")
    return new + "\n" if old.endswith("\n") and new else new


def from_module(data: bytes, module: str, layout: Layout) -> bytes:
    """The notebook ``data`` with its code cells replaced by their text in ``module``; every
    other field as it was. Raises ``NotebookError`` when the cells cannot be split back."""
    import nbformat

    notebook = _read(data)
    sources = cell_sources(module, layout)
    original, _ = to_module(data)
    before = cell_sources(original, layout)
    for number, text in sources.items():
        if text != before[number]:
            cell = notebook.cells[number - 1]
            cell.source = _fitted(text, cell.source)
    out = nbformat.writes(notebook, version=nbformat.NO_CONVERT)
    if data.endswith(b"\n") and not out.endswith("\n"):
        out += "\n"
    return out.encode("utf-8")


def changed_cells(old: str, new: str, layout: Layout) -> list[tuple[int, str, str]]:
    """``(cell number, old source, new source)`` of each code cell the rewrite changed."""
    before, after = cell_sources(old, layout), cell_sources(new, layout)
    return [
        (number, before[number], _fitted(after[number], before[number]))
        for number in before
        if after[number] != before[number]
    ]


def script(data: bytes) -> str:
    """The notebook as a plain Python script: its code cells in order, IPython lines left out
    (``tfmodernize verify`` runs a notebook this way)."""
    module, layout = to_module(data)
    return _MASKED.sub(lambda m: m.group(1) + "pass", module)
