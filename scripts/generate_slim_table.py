"""Generate ``tfmodernize/data/tf_slim.json``: what the tf-slim package provides, module by module.

TF 1.15's ``tf.contrib.slim`` (and the parts of ``tf.contrib.layers`` / ``tf.contrib.framework``
it re-exported) lives on as the ``tf-slim`` package, the same code under ``tf_slim``. The
contrib-to-slim codemod rewrites contrib names into it only where tf-slim has the name, and the
rewrite path never imports TensorFlow (tf-slim imports it): this script reads an installed
tf-slim once and writes what each of its modules binds.

For every module of the package (tests excluded) the table lists:

* ``members``: its public names defined by tf-slim itself (each with where it is defined:
  ``tf_slim.batch_norm`` is ``tf_slim.layers.layers.batch_norm``), and its plain constants;
* ``modules``: its public names bound to a tf-slim module, with that module's real name
  (``tf_slim.layers`` as an attribute of ``tf_slim`` is the module ``tf_slim.layers.layers``:
  tf-slim star-imports it over the package);
* ``submodules``: the modules under it that an import statement reaches.

Usage::

    python scripts/generate_slim_table.py [--output FILE]
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import inspect
import json
import pkgutil
import subprocess
import sys
import types
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUTPUT = REPO / "tfmodernize" / "data" / "tf_slim.json"


def describe(module: types.ModuleType) -> dict:
    members, modules = {}, {}
    for name, value in sorted(vars(module).items()):
        if name.startswith("_"):
            continue
        if isinstance(value, types.ModuleType):
            if value.__name__.startswith("tf_slim"):
                modules[name] = value.__name__
        elif inspect.isfunction(value) or inspect.isclass(value):
            if getattr(value, "__module__", "").startswith("tf_slim"):
                members[name] = f"{value.__module__}.{value.__qualname__}"
        elif isinstance(value, (str, int, float, tuple, list, dict, frozenset)) and name.isupper():
            members[name] = f"{module.__name__}.{name}"
    submodules = []
    if hasattr(module, "__path__"):
        submodules = sorted(
            info.name for info in pkgutil.iter_modules(module.__path__) if not info.name.endswith("_test")
        )
    return {"members": members, "modules": modules, "submodules": submodules}


def table() -> dict:
    import tf_slim

    names = ["tf_slim"] + [
        info.name for info in pkgutil.walk_packages(tf_slim.__path__, "tf_slim.") if not info.name.endswith("_test")
    ]
    # Each module is read in a fresh interpreter: importing one module binds its submodules
    # as attributes of its package, which a program importing only that package does not see.
    found = {
        name: json.loads(
            subprocess.run(
                [sys.executable, __file__, "--describe", name],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
        )
        for name in names
    }
    return {
        "tf_slim_version": importlib.metadata.version("tf-slim"),
        "tensorflow_version": importlib.metadata.version("tensorflow-cpu")
        if _installed("tensorflow-cpu")
        else importlib.metadata.version("tensorflow"),
        "license": "tf-slim is Apache-2.0, (c) The TensorFlow Authors; only its names are listed here",
        "modules": found,
    }


def describe_alone(name: str) -> dict:
    try:
        return describe(importlib.import_module(name))
    except Exception as error:  # a module tf-slim itself cannot import on this TensorFlow
        return {"error": f"{type(error).__name__}: {error}".splitlines()[0]}


def _installed(distribution: str) -> bool:
    try:
        importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    parser.add_argument("--describe", metavar="MODULE", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.describe:
        print(json.dumps(describe_alone(args.describe)))
        return
    args.output.write_text(json.dumps(table(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
