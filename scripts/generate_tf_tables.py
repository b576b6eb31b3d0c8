"""Generate ``tfmodernize/data/tf_upgrade_v2.json`` from TensorFlow's own upgrade tables.

TensorFlow ships the tables behind ``tf_upgrade_v2`` in its wheel
(``tensorflow/tools/compatibility/``). This script loads those modules **by path**, under
stand-in parent packages, so that reading them never imports tensorflow (which takes seconds
and would also make the tables depend on the runtime). It then imports the installed
tensorflow once to *validate* every rename target against it: targets that no longer resolve
are dropped from the renames and kept, with the reason, under ``dead_targets`` so the codemod
can still report them. The rewrite path never runs this script; it only reads the JSON.

Usage::

    python scripts/generate_tf_tables.py [--tf-dir DIR] [--output FILE]

``--tf-dir`` is the installed ``tensorflow`` package directory (default: found through
``importlib.util.find_spec`` without importing it). The JSON records the TF version it came
from and the Apache-2.0 attribution of the TensorFlow authors.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import functools
import importlib.metadata
import importlib.util
import inspect
import json
import re
import sys
import time
import types
from pathlib import Path
from typing import Any, Iterator, Optional

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUTPUT = REPO / "tfmodernize" / "data" / "tf_upgrade_v2.json"
PACKAGE = "tensorflow.tools.compatibility"
MODULES = ("renames_v2", "all_renames_v2", "reorders_v2", "ast_edits", "module_deprecations_v2", "tf_upgrade_v2")
ATTRIBUTION = (
    "Derived from TensorFlow's tf_upgrade_v2 tables (tensorflow/tools/compatibility/: "
    "renames_v2.py, all_renames_v2.py, reorders_v2.py, module_deprecations_v2.py, "
    "tf_upgrade_v2.py), Copyright 2018-2019 The TensorFlow Authors, licensed under the "
    "Apache License, Version 2.0 (http://www.apache.org/licenses/LICENSE-2.0). "
    "Transformed (tf. prefixes stripped, targets validated) by scripts/generate_tf_tables.py."
)
#: ``(set to|setting it to) True``: the value TF2 behaves as, stated in the peer's messages.
_BEHAVES_AS = re.compile(r"(?:set to|setting it to) (True|False)")


# -- loading the peer's modules without tensorflow ------------------------------------------


@contextlib.contextmanager
def _stand_in_packages(names: tuple[str, ...]) -> Iterator[None]:
    """Empty modules for ``names`` in ``sys.modules``; the previous entries come back after."""
    saved = {name: sys.modules.get(name) for name in names}
    try:
        for name in names:
            module = types.ModuleType(name)
            module.__path__ = []  # a package, so ``from pkg import mod`` looks in sys.modules
            sys.modules[name] = module
        yield
    finally:
        for name, previous in saved.items():
            if previous is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = previous


def find_tf_dir() -> Path:
    spec = importlib.util.find_spec("tensorflow")  # locates the package, does not import it
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("tensorflow is not installed; pass --tf-dir")
    return Path(list(spec.submodule_search_locations)[0])


def tf_version(tf_dir: Path) -> str:
    for dist in ("tensorflow", "tensorflow-cpu", "tf-nightly"):
        try:
            found = importlib.metadata.distribution(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
        if Path(str(found.locate_file("tensorflow"))).resolve() == tf_dir.resolve():
            return found.version
    raise SystemExit(f"cannot tell which TensorFlow version is installed at {tf_dir}")


def load_peer_modules(tf_dir: Path) -> dict[str, types.ModuleType]:
    """The upgrade-table modules, executed under stand-in ``tensorflow`` packages.

    ``pasta`` (the peer's formatter) only matters inside its transformer functions, which we
    never call, so it is stood in as well when it is missing.
    """
    folder = tf_dir / "tools" / "compatibility"
    stand_ins = ("tensorflow", "tensorflow.tools", PACKAGE)
    if importlib.util.find_spec("pasta") is None:
        stand_ins += ("pasta",)
    loaded: dict[str, types.ModuleType] = {}
    with _stand_in_packages(stand_ins):
        for name in MODULES:
            qualified = f"{PACKAGE}.{name}"
            spec = importlib.util.spec_from_file_location(qualified, folder / f"{name}.py")
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[qualified] = module
            setattr(sys.modules[PACKAGE], name, module)
            try:
                spec.loader.exec_module(module)
            finally:
                sys.modules.pop(qualified, None)
            loaded[name] = module
    return loaded


# -- turning the peer's spec into plain tables ----------------------------------------------


def _strip(name: str) -> Optional[str]:
    """``tf.nn.relu`` -> ``nn.relu``; ``tf.compat.v2.x`` -> ``x`` (the same object in TF2).

    Returns None for keys the peer keeps for other import styles (``contrib_*``, ``slim.*``).
    """
    if not name.startswith("tf."):
        return None
    path = name[3:]
    if path.startswith("compat.v2."):
        path = path[len("compat.v2.") :]
    return path


def _level(level: int, ast_edits: types.ModuleType) -> str:
    return {ast_edits.INFO: "info", ast_edits.WARNING: "warning", ast_edits.ERROR: "error"}[level]


def _transformer_kind(transformer: Any, peer: types.ModuleType) -> tuple[str, dict[str, Any]]:
    """What a peer transformer does, as data: its function name and partial() arguments."""
    if isinstance(transformer, functools.partial):
        func, extra = transformer.func, dict(transformer.keywords)
        predicate = extra.pop("arg_ok_predicate", None)
        if predicate is not None:
            extra["ok"] = {peer._is_ast_str: "str", peer._is_ast_true: "True", peer._is_ast_false: "False"}[predicate]
        if "arg_value_ast" in extra:
            extra["value"] = ast.unparse(extra.pop("arg_value_ast"))
        return func.__name__.strip("_"), extra
    return transformer.__name__.strip("_"), {}


def extract(modules: dict[str, types.ModuleType]) -> dict[str, Any]:
    peer = modules["tf_upgrade_v2"]
    ast_edits = modules["ast_edits"]
    spec = peer.TFAPIChangeSpec()

    renames = {}
    for old, new in spec.symbol_renames.items():
        old_path, new_path = _strip(old), _strip(new)
        if old_path is not None and new_path is not None:
            renames[old_path] = new_path

    keyword_renames: dict[str, dict[str, str]] = {}
    keyword_deletions: dict[str, dict[str, dict[str, Any]]] = {}
    for function, mapping in spec.function_keyword_renames.items():
        path = _strip(function) if not function.startswith("*.") else function
        if path is None:
            continue
        for old, new in mapping.items():
            if new is None:
                keyword_deletions.setdefault(path, {})[old] = {}
            else:
                keyword_renames.setdefault(path, {})[old] = new

    # The peer warns when a deleted argument is passed; its message says what TF2 behaves as.
    for function, warnings in spec.function_arg_warnings.items():
        path = _strip(function) if not function.startswith("*.") else function
        for (arg, _position), (level, message) in warnings.items():
            if path in keyword_deletions and arg in keyword_deletions[path]:
                entry = keyword_deletions[path][arg]
                entry["level"] = _level(level, ast_edits)
                entry["message"] = message
                stated = _BEHAVES_AS.search(message)
                if stated:
                    entry["behaves_as"] = stated.group(1)

    reorders = {}
    for function, order in spec.function_reorders.items():
        path = _strip(function)
        if path is None:
            continue
        positional = 0
        while positional < len(order) and order[positional] is None:
            positional += 1
        names = list(order[positional:])
        if None in names:
            raise SystemExit(f"unexpected reorder shape for {function}: {order}")
        reorders[path] = {"positional": positional, "keywords": names}

    transformers = {}
    for function, transformer in spec.function_transformers.items():
        path = _strip(function) if not function.startswith("*.") else function
        if path is None:
            continue
        kind, extra = _transformer_kind(transformer, peer)
        transformers[path] = {"kind": kind, **extra}

    # Many symbols share one long message (losses, metrics, initialisers): store each once.
    message_texts: list[str] = []
    messages = {}
    for function, (level, message) in spec.function_warnings.items():
        path = _strip(function) if not function.startswith("*.") else function
        if path is not None:
            if message not in message_texts:
                message_texts.append(message)
            messages[path] = [_level(level, ast_edits), message_texts.index(message)]

    module_messages = {}
    for module, (level, message) in modules["module_deprecations_v2"].MODULE_DEPRECATIONS.items():
        module_messages[_strip(module)] = {"level": _level(level, ast_edits), "message": message}

    addons = {}
    for old, new in modules["all_renames_v2"].addons_symbol_mappings.items():
        path = _strip(old)
        if path is not None:
            addons[path] = new

    return {
        "renames": renames,
        "keyword_renames": keyword_renames,
        "keyword_deletions": keyword_deletions,
        "reorders": reorders,
        "transformers": transformers,
        "messages": messages,
        "message_texts": message_texts,
        "module_messages": module_messages,
        "addons": addons,
    }


# -- validation against the installed TensorFlow ----------------------------------------------


def _resolve(root: Any, path: str) -> Any:
    obj = root
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


_MISSING = object()


def _lookup(root: Any, path: str) -> Any:
    try:
        return _resolve(root, path)
    except Exception:  # noqa: BLE001 - lazy Keras loaders raise assorted errors
        return _MISSING


def _usable(tf: Any, path: str) -> bool:
    """Whether ``tf.<path>`` resolves to something real. Keras 3 keeps names such as
    ``tf.keras.optimizers.legacy.Adam`` as one placeholder class (``LegacyOptimizerWarning``)
    whose construction raises ImportError: a class exported under another name than its own is
    tried once, without arguments, and ImportError means "not there"."""
    obj = _lookup(tf, path)
    if obj is _MISSING:
        return False
    if isinstance(obj, type) and obj.__name__ != path.rpartition(".")[2]:
        try:
            obj()
        except ImportError:
            return False
        except Exception:  # noqa: BLE001 - any other complaint comes from a real constructor
            return True
    return True


def _literal_default(function: Any, argument: str) -> Optional[str]:
    """The source text of ``argument``'s default in ``function``'s signature, if a literal."""
    try:
        parameter = inspect.signature(function).parameters.get(argument)
    except (TypeError, ValueError):
        return None
    if parameter is None or parameter.default is inspect.Parameter.empty:
        return None
    value = parameter.default
    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    return None


def _v1_paths(tf: Any) -> tuple[list[str], list[str]]:
    """``(v1_only, v1_shared)``: every public ``tf.compat.v1`` path whose name does not exist in
    the TF2 API, and every one that does (``tf.compat.v1.X`` may be shortened to ``tf.X``
    only then; a name in neither list is not TensorFlow's at all).

    Keras is left out (it is a separate package with its own migration) and so is
    ``compat`` (``tf.compat.v1.compat.v2`` is TF2 itself).
    """
    v1 = tf.compat.v1
    prefix = v1.__name__
    found: list[str] = []
    shared: list[str] = []
    stack: list[tuple[str, Any]] = [("", v1)]
    seen: set[int] = set()
    while stack:
        path, module = stack.pop()
        if id(module) in seen:
            continue
        seen.add(id(module))
        for name in sorted(vars(module)):
            if name.startswith("_") or (not path and name in ("keras", "compat")):
                continue
            obj = getattr(module, name)
            full = f"{path}{name}"
            if isinstance(obj, types.ModuleType) and obj.__name__.startswith(prefix):
                stack.append((full + ".", obj))
            (found if _lookup(tf, full) is _MISSING else shared).append(full)
    return sorted(found), sorted(shared)


def validate(tables: dict[str, Any]) -> dict[str, Any]:
    """Check every target on the installed TF; returns the report printed by ``main``."""
    import tensorflow as tf  # validation only: the rewrite path never imports tensorflow

    dead, still_valid = {}, {}
    for old, new in list(tables["renames"].items()):
        if _usable(tf, new):
            continue
        del tables["renames"][old]
        if _usable(tf, old):
            # The peer's target is gone but the TF1 name itself works on this TF (Keras 3's
            # ``tf.keras.optimizers.Adam``, whose peer target ``...legacy.Adam`` only raises).
            still_valid[old] = new
        else:
            dead[old] = new
    tables["dead_targets"] = dead

    for function, arguments in tables["keyword_deletions"].items():
        target = None
        if not function.startswith("*."):
            target = _lookup(tf.compat.v1, function)
        for argument, entry in arguments.items():
            default = _literal_default(target, argument) if target not in (None, _MISSING) else None
            if default is not None:
                entry["v1_default"] = default

    tables["v1_only"], tables["v1_shared"] = _v1_paths(tf)
    return {"dead": dead, "still_valid": still_valid, "tf": tf.__version__}


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tf-dir", type=Path, default=None)
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args(argv)

    tf_dir = args.tf_dir or find_tf_dir()
    started = time.perf_counter()
    modules = load_peer_modules(tf_dir)
    tables = extract(modules)
    print(
        f"loaded the peer's tables from {tf_dir / 'tools' / 'compatibility'} "
        f"in {1000 * (time.perf_counter() - started):.0f} ms (tensorflow not imported)"
    )
    version = tf_version(tf_dir)
    report = validate(tables)
    if report["tf"] != version:
        raise SystemExit(f"imported tensorflow {report['tf']} is not the one at {tf_dir} ({version})")
    print(f"{len(report['dead'])} targets do not resolve on TensorFlow {version} (dropped, kept as dead_targets):")
    for old, new in sorted(report["dead"].items()):
        print(f"  tf.{old} -> tf.{new}")
    print(f"{len(report['still_valid'])} more do not either, but their TF1 name works on {version} (dropped):")
    for old, new in sorted(report["still_valid"].items()):
        print(f"  tf.{old} (peer: tf.{new})")
    v1_targets = sum(new.startswith("compat.v1.") for new in tables["renames"].values())
    print(
        f"{len(tables['renames'])} symbol renames ({v1_targets} into compat.v1), "
        f"{sum(map(len, tables['keyword_renames'].values()))} keyword renames and "
        f"{sum(map(len, tables['keyword_deletions'].values()))} deletions, "
        f"{len(tables['reorders'])} reorders, {len(tables['v1_only'])} v1-only names"
    )

    document = {
        "generated_by": "scripts/generate_tf_tables.py",
        "tensorflow_version": version,
        "validated": True,
        "license": "Apache-2.0",
        "attribution": ATTRIBUTION,
        **{key: tables[key] for key in sorted(tables)},
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(document, indent=0, sort_keys=False, separators=(",", ":")) + "\n")
    print(f"wrote {args.output} ({args.output.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
