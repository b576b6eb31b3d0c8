"""The catalogue: every codemod of the family packages and of plugins, in the order they run
(``builtin_codemods``), found by code or name, filtered by ``--select``/``--ignore``; and the
contract a codemod class must keep (code, kebab-case name, six docstring parts, family folder)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from functools import lru_cache
from typing import Optional, Sequence

from tfmodernize.codemod import TFCodemod

CODE_PATTERN = re.compile(r"^TFM[123]\d\d$")
#: The catalogue's family folders (``tfmodernize/codemods/<family>/``), by code prefix.
FAMILIES = {"TFM1": "migrate", "TFM2": "tf2", "TFM3": "report"}
#: Third-party codemods (entry points) have their own code space: a prefix of their own
#: (``ACME101``, ``TFMX101``), never ``TFM`` followed by a digit.
PLUGIN_CODE_PATTERN = re.compile(r"^(?!TFM\d)[A-Z][A-Z0-9]*[A-Z]\d{3}$")
NAME_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
DOC_SECTIONS = ("What it does", "Why it matters", "Before", "After", "Fix safety", "Declines when")


# -- docstrings --------------------------------------------------------------------------------


def doc_sections(codemod: type[TFCodemod]) -> dict[str, str]:
    """The six docstring parts of a codemod (``DOC_SECTIONS``), keyed by heading.

    A part is the indented block under its heading; unindented text after it (a closing
    "Fixtures: ..." line, say) belongs to no part.
    """
    doc = inspect.cleandoc(codemod.__doc__ or "")
    heading = re.compile(rf"^({'|'.join(DOC_SECTIONS)})\s*:?\s*$", re.MULTILINE)
    parts: dict[str, str] = {}
    matches = list(heading.finditer(doc))
    for index, match in enumerate(matches):
        end = matches[index + 1].start() if index + 1 < len(matches) else len(doc)
        body = []
        for line in doc[match.end() : end].strip("\n").splitlines():
            if line.strip() and not line[:1].isspace():
                break
            body.append(line)
        parts[match.group(1)] = "\n".join(body).strip("\n")
    return parts


def contract_problems(codemod: type[TFCodemod], *, plugin: bool = False) -> list[str]:
    """What a codemod class gets wrong about the contract (empty when it is fine); a ``plugin``
    (an entry point) uses its own code prefix."""
    problems = []
    for attr in ("code", "name", "summary"):
        if not isinstance(getattr(codemod, attr, None), str):
            problems.append(f"{codemod.__name__} lacks `{attr}`")
    if problems:
        return problems
    if plugin and not PLUGIN_CODE_PATTERN.match(codemod.code):
        problems.append(
            f"{_where(codemod)}: code {codemod.code!r} is not a plugin code (a prefix of its own and "
            "three digits, such as ACME101; TFM1xx-3xx belong to tfmodernize)"
        )
    elif not plugin and not CODE_PATTERN.match(codemod.code):
        problems.append(f"{codemod.__name__}: code {codemod.code!r} is not TFM1xx/2xx/3xx")
    elif not plugin and not codemod.__module__.startswith(f"{_family_package(codemod.code)}."):
        problems.append(
            f"{_where(codemod)}: a {codemod.code[:4]}xx codemod belongs in "
            f"tfmodernize/codemods/{FAMILIES[codemod.code[:4]]}/"
        )
    if not NAME_PATTERN.match(codemod.name):
        problems.append(f"{codemod.__name__}: name {codemod.name!r} is not kebab-case")
    missing = [s for s in DOC_SECTIONS if s not in doc_sections(codemod)]
    if missing:
        problems.append(f"{codemod.__name__}: docstring lacks {', '.join(missing)}")
    return problems


# -- registry ----------------------------------------------------------------------------------


class RegistryError(Exception):
    pass


def _family_package(code: str) -> str:
    """The package of a built-in code's family: ``tfmodernize.codemods.tf2`` for ``TFM207``."""
    return f"tfmodernize.codemods.{FAMILIES[code[:4]]}"


@lru_cache(maxsize=None)
def builtin_codemods() -> tuple[type[TFCodemod], ...]:
    """Every codemod of the family packages (``tfmodernize.codemods.migrate``, ``.tf2``,
    ``.report``: their modules and packages not starting with ``_``) and of
    ``tfmodernize.codemods`` entry points, in catalogue order: by code (migrations, then TF2
    fixes, then findings), except that a codemod comes before the ones its ``runs_before``
    names."""
    found: dict[str, type[TFCodemod]] = {}
    packages = [importlib.import_module(_family_package(prefix)) for prefix in FAMILIES]
    modules = [
        importlib.import_module(f"{package.__name__}.{info.name}")
        for package in packages
        for info in pkgutil.iter_modules(package.__path__)
        if not info.name.startswith("_")
    ]
    classes = [
        obj
        for module in modules
        for obj in vars(module).values()
        if inspect.isclass(obj) and issubclass(obj, TFCodemod) and obj.__module__ == module.__name__
    ]
    plugins = _entry_point_codemods()
    by_name: dict[str, type[TFCodemod]] = {}
    for cls in [*classes, *plugins]:
        problems = contract_problems(cls, plugin=cls in plugins)
        if problems:
            raise RegistryError("; ".join(problems))
        for key, taken in ((cls.code, found.get(cls.code)), (cls.name, by_name.get(cls.name))):
            if taken is not None:
                raise RegistryError(f"codemod {key!r} of {_where(cls)} clashes with {_where(taken)}")
        found[cls.code] = cls
        by_name[cls.name] = cls
    # tfmodernize's own by code, then the plugins' by code.
    ordered = sorted(found.values(), key=lambda c: (c in plugins, c.code))
    for codemod in [c for c in ordered if c.runs_before]:
        later = [i for i, other in enumerate(ordered) if other.code in codemod.runs_before]
        if later and min(later) < ordered.index(codemod):
            ordered.remove(codemod)
            ordered.insert(min(later), codemod)
    return tuple(ordered)


def _where(codemod: type[TFCodemod]) -> str:
    return f"{codemod.__module__}.{codemod.__qualname__}"


def _entry_point_codemods() -> list[type[TFCodemod]]:
    from importlib.metadata import entry_points

    loaded = []
    for entry in entry_points(group="tfmodernize.codemods"):
        obj = entry.load()
        if not (inspect.isclass(obj) and issubclass(obj, TFCodemod)):
            raise RegistryError(f"entry point {entry.name} is not a TFCodemod subclass")
        loaded.append(obj)
    return loaded


def find_codemod(key: str) -> Optional[type[TFCodemod]]:
    """A codemod by code (``TFM207``, any case) or name (``run-functions-eagerly``)."""
    for cls in builtin_codemods():
        if key.upper() == cls.code or key.lower() == cls.name:
            return cls
    return None


def is_migration(code: str) -> bool:
    """Whether ``code`` is a migration's (the ``TFM1xx`` family: TF1 code rewritten as TF2)."""
    return code.startswith("TFM1")


def select_codemods(select: Sequence[str] = (), ignore: Sequence[str] = ()) -> tuple[type[TFCodemod], ...]:
    """The catalogue filtered by codes/names; code prefixes (``TFM2``) select a family.

    Raises ``KeyError`` naming an unknown entry.
    """

    def matches(cls: type[TFCodemod], key: str) -> bool:
        return cls.name == key.lower() or cls.code.startswith(key.upper())

    catalogue = builtin_codemods()
    for key in [*select, *ignore]:
        if not any(matches(cls, key) for cls in catalogue):
            raise KeyError(key)
    chosen = [c for c in catalogue if not select or any(matches(c, k) for k in select)]
    return tuple(c for c in chosen if not any(matches(c, k) for k in ignore))
