"""Fixture discovery: ``fixtures/<codemod-name>/<case>/before.py``, ``after.py``, ``case.toml``.

A case of a program split across modules is a pair of folders instead, ``before/`` and
``after/``, each holding the script, ``main.py``, and the modules it imports: the whole folder
is rewritten as one run (``project``), file by file into ``after/``, and ``main.py`` of each
folder runs for the numeric test (beside its own modules).

A case is a golden test (the codemod(s) turn ``before.py`` into exactly ``after.py`` and leave
``after.py`` unchanged) and a numeric test (``before.py`` in its mode, ``after.py`` on plain
TF2, values compared). ``case.toml`` is optional; its schema is ``CaseConfig`` and
``fixtures/README.md``. A broken case (missing script, bad ``case.toml``, unknown codemod) is
still discovered, carrying its ``problem``, so that its tests fail with that message instead
of breaking collection.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence

from tfmodernize.verify import DEFAULT_ATOL, DEFAULT_RTOL
from tfmodernize.verify.runner import MODES, RANDOM_MODES, Script

DEFAULT_TIMEOUT = 120.0


class FixtureError(Exception):
    """A fixture that cannot be used as it stands; the message says what to fix."""


@dataclass(frozen=True)
class CaseConfig:
    """The keys of ``case.toml`` (all optional)."""

    note: str = ""
    codemods: tuple[str, ...] = ()
    compare: Optional[tuple[str, ...]] = None
    rtol: float = DEFAULT_RTOL
    atol: float = DEFAULT_ATOL
    before_mode: Optional[str] = None
    random: str = "num_random_ops"
    timeout: float = DEFAULT_TIMEOUT
    expected_difference: tuple[str, ...] = ()
    expected_reason: str = ""
    #: ``after.py``'s trainable variables start from ``before.py``'s initial values
    #: (``verify --align-variables``): for rewrites into Keras layers, whose initializers draw
    #: other numbers than TF1's.
    align_variables: bool = False

    @classmethod
    def parse(cls, text: str) -> "CaseConfig":
        """Read ``case.toml`` text; raises FixtureError naming the offending key."""
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise FixtureError(f"case.toml is not valid TOML: {error}") from None
        known = {
            "note",
            "codemods",
            "compare",
            "rtol",
            "atol",
            "before_mode",
            "random",
            "timeout",
            "expected_difference",
            "align_variables",
        }
        unknown = sorted(set(data) - known)
        if unknown:
            raise FixtureError(f"case.toml: unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})")
        config: dict[str, Any] = {}
        if "note" in data:
            config["note"] = _typed(data, "note", str)
        if "codemods" in data:
            config["codemods"] = _names(data, "codemods")
        if "compare" in data:
            config["compare"] = _names(data, "compare")
            if not config["compare"]:
                raise FixtureError("case.toml: `compare` is empty: list the names to compare or drop the key")
        for key in ("rtol", "atol", "timeout"):
            if key in data:
                number = _typed(data, key, (int, float))
                if key == "timeout" and number <= 0:
                    raise FixtureError(f"case.toml: `timeout` must be positive, got {number}")
                if number < 0:
                    raise FixtureError(f"case.toml: `{key}` must not be negative, got {number}")
                config[key] = float(number)
        if "before_mode" in data:
            config["before_mode"] = _choice(data, "before_mode", MODES)
        if "align_variables" in data:
            config["align_variables"] = _typed(data, "align_variables", bool)
        if "random" in data:
            config["random"] = _choice(data, "random", RANDOM_MODES)
        if "expected_difference" in data:
            table = data["expected_difference"]
            if not isinstance(table, dict) or set(table) - {"names", "reason"} or "names" not in table:
                raise FixtureError('case.toml: [expected_difference] takes `names = [...]` and `reason = "..."`')
            config["expected_difference"] = _names(table, "names")
            config["expected_reason"] = _typed(table, "reason", str) if "reason" in table else ""
            if not config["expected_difference"] or not config["expected_reason"]:
                raise FixtureError("case.toml: [expected_difference] needs non-empty `names` and a `reason`")
        return cls(**config)


def _typed(data: dict[str, Any], key: str, kind: Any) -> Any:
    value = data[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:  # bool is an int
        raise FixtureError(f"case.toml: `{key}` has the wrong type ({type(value).__name__}: {value!r})")
    return value


def _names(data: dict[str, Any], key: str) -> tuple[str, ...]:
    value = data[key]
    if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
        raise FixtureError(f"case.toml: `{key}` must be a list of names, got {value!r}")
    return tuple(value)


def _choice(data: dict[str, Any], key: str, choices: Sequence[str]) -> str:
    value = data[key]
    if value not in choices:
        raise FixtureError(f"case.toml: `{key}` must be one of {', '.join(map(repr, choices))}, got {value!r}")
    return value


@dataclass(frozen=True)
class FixtureCase:
    """One ``<codemod>/<case>`` folder."""

    path: Path
    codemod: str  # the folder name: a codemod name (kebab-case)
    config: CaseConfig = field(default_factory=CaseConfig)
    problem: Optional[str] = None

    @property
    def id(self) -> str:
        return f"{self.codemod}/{self.path.name}"

    @property
    def project(self) -> bool:
        """Whether the case is a program split across modules (``before/`` and ``after/``)."""
        return (self.path / "before").is_dir()

    @property
    def before(self) -> Path:
        """The script run before the rewrite (``before/main.py`` in a project case)."""
        return self.path / "before" / "main.py" if self.project else self.path / "before.py"

    @property
    def after(self) -> Path:
        return self.path / "after" / "main.py" if self.project else self.path / "after.py"

    def files(self, side: str) -> list[Path]:
        """The programs of one side (``before``/``after``): the script, and in a project case
        the modules beside it."""
        script = self.before if side == "before" else self.after
        return sorted(script.parent.glob("*.py")) if self.project else [script]

    @classmethod
    def load(cls, path: Path, codemod: Optional[str] = None) -> "FixtureCase":
        codemod = codemod or path.parent.name
        names = ("before/main.py", "after/main.py") if (path / "before").is_dir() else ("before.py", "after.py")
        missing = [name for name in names if not (path / name).is_file()]
        if missing:
            return cls(path, codemod, problem=f"{path}: missing {' and '.join(missing)}")
        toml = path / "case.toml"
        if not toml.is_file():
            return cls(path, codemod)
        try:
            return cls(path, codemod, CaseConfig.parse(toml.read_text(encoding="utf-8")))
        except FixtureError as error:
            return cls(path, codemod, problem=f"{path}: {error}")

    def pipeline(self) -> list[Any]:
        """The codemod classes of the golden test, in catalogue order; FixtureError if unknown."""
        from tfmodernize.registry import RegistryError, builtin_codemods, find_codemod

        keys = self.config.codemods or (self.codemod,)
        found = []
        for key in keys:
            try:
                codemod = find_codemod(key)
            except RegistryError as error:
                raise FixtureError(f"{self.id}: the codemod registry is broken: {error}") from None
            if codemod is None:
                where = "`codemods` of case.toml" if self.config.codemods else "the fixture folder name"
                raise FixtureError(
                    f"{self.id}: no codemod {key!r} in the registry (named by {where}); "
                    f"is its module in tfmodernize/codemods/ yet?"
                )
            found.append(codemod)
        catalogue = builtin_codemods()
        return sorted(set(found), key=catalogue.index)

    def before_mode(self) -> str:
        """``before_mode`` of case.toml, else tf1 for a TFM1xx pipeline and tf2 otherwise."""
        if self.config.before_mode is not None:
            return self.config.before_mode
        codes = [codemod.code for codemod in self.pipeline()]
        return "tf1" if any(code.startswith("TFM1") for code in codes) else "tf2"

    def pair(self) -> Any:
        """The ``verdict.Pair`` to run; raises FixtureError for a broken case."""
        from tfmodernize.verify.verdict import Pair

        if self.problem:
            raise FixtureError(self.problem)
        config = self.config
        return Pair(
            before=Script(self.before, self.before_mode(), config.random, config.timeout),
            after=Script(self.after, "tf2", config.random, config.timeout),
            compare=config.compare,
            rtol=config.rtol,
            atol=config.atol,
            expected_difference=config.expected_difference,
            reason=config.expected_reason,
            align_variables=config.align_variables,
        )


def discover(root: Path) -> list[FixtureCase]:
    """Every ``root/<codemod>/<case>/`` folder, sorted; folders starting with ``_`` or ``.``
    are skipped."""
    if not root.is_dir():
        return []
    return [FixtureCase.load(case, codemod.name) for codemod in _subfolders(root) for case in _subfolders(codemod)]


def _subfolders(folder: Path) -> Iterable[Path]:
    return sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))
