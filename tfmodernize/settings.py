"""Run settings: command-line options layered over ``[tool.tfmodernize]`` in pyproject.toml.

Keys in pyproject.toml mirror the long options: ``select``, ``ignore``, ``exclude``, ``src``
(lists of strings), ``unsafe-fixes`` (bool), ``jobs`` (int). Options given on the command line
win (``src`` and ``exclude`` add to the file's).
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence

CACHE_DIR_NAME = ".tfmodernize_cache"


class SettingsError(Exception):
    pass


@dataclass(frozen=True)
class Settings:
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    #: Files named on the command line honour ``exclude`` too (pre-commit passes names).
    force_exclude: bool = False
    unsafe_fixes: bool = False
    jobs: int = field(default_factory=lambda: os.cpu_count() or 1)
    config_path: Optional[Path] = None
    #: Where the outcome cache lives; ``None`` disables it (the library default).
    cache_dir: Optional[Path] = None
    #: Folders the project's modules are imported from besides each script's own (ruff's
    #: ``src``): a ``src/`` layout, a ``lib/`` on ``PYTHONPATH``.
    src: tuple[Path, ...] = ()


_KEYS = {
    "select": list,
    "ignore": list,
    "exclude": list,
    "force-exclude": bool,
    "unsafe-fixes": bool,
    "jobs": int,
    "src": list,
}


def find_config(start: Path) -> Optional[Path]:
    """The nearest pyproject.toml with a ``[tool.tfmodernize]`` table, from ``start`` up."""
    folder = start.resolve()
    if folder.is_file():
        folder = folder.parent
    for candidate in (folder, *folder.parents):
        path = candidate / "pyproject.toml"
        if path.is_file():
            try:
                if "tfmodernize" in _read_toml(path).get("tool", {}):
                    return path
            except SettingsError:
                return path
    return None


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise SettingsError(f"{path}: cannot read configuration: {error}") from None


def load_table(path: Path) -> dict[str, Any]:
    table = _read_toml(path).get("tool", {}).get("tfmodernize", {})
    for key, value in table.items():
        kind = _KEYS.get(key)
        if kind is None:
            raise SettingsError(f"{path}: unknown key `{key}` in [tool.tfmodernize] (known: {', '.join(_KEYS)})")
        if not isinstance(value, kind) or (kind is list and not all(isinstance(v, str) for v in value)):
            raise SettingsError(f"{path}: `{key}` must be {'a list of strings' if kind is list else kind.__name__}")
    return table


def build_settings(
    paths: Sequence[Path],
    *,
    config: Optional[Path] = None,
    select: Sequence[str] = (),
    ignore: Sequence[str] = (),
    exclude: Sequence[str] = (),
    force_exclude: Optional[bool] = None,
    unsafe_fixes: Optional[bool] = None,
    jobs: Optional[int] = None,
    cache: bool = True,
    src: Sequence[Path] = (),
) -> Settings:
    """Settings for a CLI run; the cache lives beside the configuration (or in the cwd)."""
    config_path = config if config is not None else find_config(paths[0] if paths else Path.cwd())
    table: dict[str, Any] = {}
    if config_path is not None:
        if not config_path.is_file():
            raise SettingsError(f"{config_path}: configuration file not found")
        table = load_table(config_path)
    if jobs is not None and jobs < 1:
        raise SettingsError(f"--jobs must be at least 1, not {jobs}")
    return Settings(
        select=tuple(select) or tuple(table.get("select", ())),
        ignore=tuple(ignore) or tuple(table.get("ignore", ())),
        exclude=(*table.get("exclude", ()), *exclude),
        force_exclude=force_exclude if force_exclude else table.get("force-exclude", False),
        unsafe_fixes=unsafe_fixes if unsafe_fixes is not None else table.get("unsafe-fixes", False),
        jobs=jobs or table.get("jobs") or (os.cpu_count() or 1),
        config_path=config_path,
        cache_dir=((config_path.parent if config_path else Path.cwd()) / CACHE_DIR_NAME) if cache else None,
        # The file's folders are relative to it, the command line's to the working folder.
        src=tuple(
            dict.fromkeys(
                [*(config_path.parent / folder for folder in table.get("src", ())), *(Path(folder) for folder in src)]
            )
        ),
    )
