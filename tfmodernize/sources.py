"""Finding source files, decoding them faithfully, and writing them back atomically.

Decoding keeps everything a rewrite must preserve: the encoding (PEP 263
cookie or UTF-8 BOM), the newline style (text is decoded without newline translation) and the
file mode. Writes go to a temporary file in the same folder, are fsynced, then replace the
original with ``os.replace``: a killed run leaves either the old or the new file, never half.
"""

from __future__ import annotations

import io
import os
import stat
import subprocess
import tempfile
import tokenize
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator, Optional, Sequence

import pathspec

if TYPE_CHECKING:
    from tfmodernize.notebooks import Layout

SKIPPED_DIRS = frozenset(
    {"site-packages", "dist-packages", "build", "dist", "__pycache__", "node_modules", "venv", "__pypackages__"}
)


class SourceError(Exception):
    """A file that cannot be read or decoded; the message says why."""


@dataclass(frozen=True)
class Source:
    path: Path
    data: bytes
    #: What the codemods rewrite: the file's text, or a notebook's code cells as one module.
    text: str
    encoding: str
    #: For a notebook, where its cells are in ``text`` (``tfmodernize.notebooks``).
    layout: Optional["Layout"] = None

    def encode(self, text: str) -> bytes:
        """The file's bytes for a rewritten ``text``; raises ``SourceError`` (a notebook whose
        cells cannot be split back) or ``UnicodeEncodeError``."""
        if self.layout is not None:
            from tfmodernize.notebooks import from_module

            return from_module(self.data, text, self.layout)
        return text.encode(self.encoding)


@dataclass(frozen=True)
class Discovered:
    """A path found under the inputs, or the reason it cannot be processed."""

    path: Path
    problem: Optional[str] = None
    #: The source itself, for one read from standard input (``-``) and named ``path``.
    data: Optional[bytes] = None


def _is_virtualenv(folder: Path) -> bool:
    return (folder / "pyvenv.cfg").is_file() or (folder / "conda-meta").is_dir()


@lru_cache(maxsize=64)
def _spec(patterns: tuple[str, ...]) -> pathspec.PathSpec:
    return pathspec.PathSpec.from_lines("gitwildmatch", patterns)


def _excluded(path: Path, root: Path, patterns: Sequence[str]) -> bool:
    """Whether ``path`` matches an ``exclude`` glob, with .gitignore's rules (``*`` does not cross
    ``/``, ``**`` does, a pattern without ``/`` matches at any depth), relative to ``root``."""
    if not patterns:
        return False
    try:
        rel = path.relative_to(root).as_posix()
    except ValueError:
        rel = path.as_posix().lstrip("/")
    if path.is_dir():
        rel += "/"
    return _spec(tuple(patterns)).match_file(rel)


#: What a folder search takes: Python files and Jupyter notebooks.
SOURCE_SUFFIXES = (".py", ".ipynb")


def discover(
    paths: Iterable[Path], exclude: Sequence[str] = (), *, force_exclude: bool = False
) -> Iterator[Discovered]:
    """Every ``.py`` file and notebook under ``paths`` in sorted order.

    Folders skip ``.git`` and other hidden folders, virtualenvs, ``site-packages``,
    ``build``/``dist``, paths matching ``exclude`` globs and, inside a git work tree, files
    git ignores (``.gitignore`` and friends). A file named explicitly is always taken, unless
    ``force_exclude`` (as ruff's ``--force-exclude``: pre-commit and changed-file scripts name
    files one by one) and it matches ``exclude`` (relative to the working folder).
    Symlinks are followed only when they stay inside the folder being searched.
    Raises ``FileNotFoundError`` for an input that does not exist.
    """
    for given in paths:
        if not given.exists() and not given.is_symlink():
            raise FileNotFoundError(str(given))
        if not given.is_dir():
            if not (force_exclude and _excluded(given.resolve(), Path.cwd().resolve(), exclude)):
                yield Discovered(given, _not_regular(given))
            continue
        found = list(_walk_folder(given, exclude))
        ignored = _git_ignored(given, [d.path for d in found])
        if ignored is None:  # not in a git work tree: the .gitignore files still say what to skip
            ignored = _gitignore_ignored(given, [d.path for d in found])
        yield from (d for d in found if d.path not in ignored)


def _walk_folder(given: Path, exclude: Sequence[str]) -> Iterator[Discovered]:
    root = given.resolve()
    for folder, dirnames, filenames in os.walk(given):
        here = Path(folder)
        kept = []
        for name in sorted(dirnames):
            sub = here / name
            if name.startswith(".") or name in SKIPPED_DIRS or sub.is_symlink():
                continue
            if _is_virtualenv(sub) or _excluded(sub, given, exclude):
                continue
            kept.append(name)
        dirnames[:] = kept
        for name in sorted(filenames):
            if not name.endswith(SOURCE_SUFFIXES) or name.startswith("."):
                continue
            path = here / name
            if _excluded(path, given, exclude):
                continue
            if path.is_symlink():
                try:
                    target = path.resolve(strict=True)
                except (OSError, RuntimeError) as error:  # a loop, or a dangling link
                    yield Discovered(
                        path,
                        f"symlink that resolves to no file ({type(error).__name__}: "
                        f"{getattr(error, 'strerror', None) or error}): not followed",
                    )
                    continue
                if not target.is_relative_to(root):
                    yield Discovered(path, f"symlink to {target}, outside {given}: not followed")
                    continue
            yield Discovered(path, _not_regular(path))


def _not_regular(path: Path) -> Optional[str]:
    """Why ``path`` is not a regular file to read (a FIFO would block the run forever), or None."""
    try:
        mode = path.stat().st_mode
    except (OSError, RuntimeError):
        return None  # reading it reports the reason
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    kind = (
        "a FIFO"
        if stat.S_ISFIFO(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else "a device"
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
        else "not a regular file"
    )
    return f"{kind}, not a regular file: skipped"


def _git_ignored(folder: Path, files: Sequence[Path]) -> Optional[set[Path]]:
    """The ``files`` git ignores, asked in one ``git check-ignore`` call; None outside a work
    tree or without git."""
    if not files:
        return set()
    try:
        result = subprocess.run(
            ["git", "-C", str(folder), "check-ignore", "--stdin", "-z"],
            input=b"\0".join(os.fsencode(_resolved(p)) for p in files),
            capture_output=True,
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if result.returncode not in (0, 1):  # 128: not a git work tree
        return None
    ignored = {Path(os.fsdecode(p)) for p in result.stdout.split(b"\0") if p}
    return {p for p in files if _resolved(p) in ignored}


def _gitignore_ignored(folder: Path, files: Sequence[Path]) -> set[Path]:
    """The ``files`` the ``.gitignore`` files of ``folder``, its subfolders and its parents
    ignore, each read with git's rules relative to its own folder (for a tree outside git: an
    export, an unpacked archive)."""
    top = _resolved(folder)
    sources = [parent / ".gitignore" for parent in reversed(top.parents)]
    for here, dirnames, filenames in os.walk(top):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d not in SKIPPED_DIRS]
        if ".gitignore" in filenames:
            sources.append(Path(here) / ".gitignore")
    specs = []
    for source in sources:
        try:
            specs.append((source.parent, pathspec.PathSpec.from_lines("gitwildmatch", source.read_text().splitlines())))
        except (OSError, UnicodeDecodeError):
            continue
    ignored = set()
    for path in files:
        target = _resolved(path)
        # As git: the deepest .gitignore with a pattern for the path decides (``!`` re-includes).
        for base, spec in sorted(specs, key=lambda item: len(item[0].parts), reverse=True):
            if target.is_relative_to(base):
                verdict = spec.check_file(target.relative_to(base).as_posix()).include
                if verdict is not None:
                    if verdict:
                        ignored.add(path)
                    break
    return ignored


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path.absolute()


def read_source(path: Path) -> Source:
    """Read and decode ``path``; raises ``SourceError`` saying why it cannot."""
    try:
        data = path.read_bytes()
    except IsADirectoryError:
        raise SourceError("is a folder, not a file") from None
    except PermissionError:
        raise SourceError("cannot be read: permission denied") from None
    except OSError as error:
        raise SourceError(f"cannot be read: {error.strerror or error}") from None
    return decode_source(path, data)


def decode_source(path: Path, data: bytes) -> Source:
    """Decode ``data`` (the content of ``path``) as Python source, or a notebook's code cells as
    one module; raises ``SourceError``."""
    if path.suffix == ".ipynb":
        from tfmodernize.notebooks import to_module

        text, layout = to_module(data)
        return Source(path, data, text, "utf-8", layout)
    if b"\x00" in data:
        raise SourceError("binary file (NUL bytes), not Python source")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        # No usable cookie: either a bad one, or undecodable bytes on the first two lines.
        if b"coding" in b"\n".join(data.split(b"\n", 2)[:2]):
            raise SourceError(f"bad encoding declaration: {error.msg}") from None
        encoding = "utf-8"
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as error:
        reason = error.reason if isinstance(error, UnicodeDecodeError) else str(error)
        where = ""
        if isinstance(error, UnicodeDecodeError):
            line = data[: error.start].count(b"\n") + 1
            where = f" (line {line}, byte {error.start})"
        raise SourceError(f"cannot be decoded as {encoding}{where}: {reason}") from None
    return Source(path, data, text, encoding)


TEMP_SUFFIX = ".tfm-tmp"
#: A temporary file untouched for this long belongs to no run that is still writing it.
STALE_SECONDS = 5.0


def remove_stale_temporaries(sources: Iterable[Path]) -> list[Path]:
    """Delete the temporary files a killed run left beside ``sources`` (``.name.py.XXXX.tfm-tmp``,
    as ``write_atomic`` names them); returns what was removed."""
    import time

    removed = []
    by_folder: dict[Path, set[str]] = {}
    for source in sources:
        by_folder.setdefault(source.parent, set()).add(source.name)
    for folder, names in by_folder.items():
        try:
            candidates = list(folder.glob(f".*{TEMP_SUFFIX}"))
        except OSError:
            continue
        for candidate in candidates:
            owner = candidate.name[1:].rsplit(".", 2)[0]  # ".m.py.ab12cd.tfm-tmp" -> "m.py"
            try:
                stale = time.time() - candidate.stat().st_mtime > STALE_SECONDS
            except OSError:
                continue
            if owner in names and stale:
                try:
                    candidate.unlink()
                    removed.append(candidate)
                except OSError:
                    pass
    return removed


def write_atomic(path: Path, data: bytes, expected: Optional[bytes]) -> None:
    """Replace ``path`` with ``data`` if it still holds ``expected``, keeping its mode
    (``expected`` None: a file written whole, a report, that may not exist yet).

    The new content is written to a temporary file beside it, fsynced, and moved over the
    original in one ``os.replace``; on any error the original is untouched.
    """
    if expected is not None and path.read_bytes() != expected:
        raise SourceError("changed on disk during the run: not written")
    mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else 0o644
    target = path.resolve()
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=TEMP_SUFFIX)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    try:
        dir_fd = os.open(target.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)
