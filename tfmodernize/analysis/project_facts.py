"""What the project modules a file imports say of their functions: which create variables,
build graphs, return one new variable (session-to-function's summary of each module, stored
under ``PROJECT_FACTS`` by the project pre-pass), and the imported names that may create
variables the file cannot see."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Mapping, Optional

import libcst as cst

from tfmodernize.syntax import calls_in, source
from tfmodernize.tfsymbols import import_bindings, root_name
from tfmodernize.treewalk import import_statements


#: Top-level packages whose functions never create TF variables nor add to TF collections:
#: calling into them leaves the inventory complete. Anything else imported (the program's own
#: ``model.py``, slim, a research library) may, so a call into it makes the inventory unknown.
VARIABLE_FREE_PACKAGES = frozenset(
    {
        "__future__",
        "abc",
        "argparse",
        "base64",
        "codecs",
        "collections",
        "copy",
        "csv",
        "cv2",
        "dataclasses",
        "datetime",
        "enum",
        "functools",
        "glob",
        "gzip",
        "h5py",
        "hashlib",
        "imageio",
        "io",
        "itertools",
        "json",
        "logging",
        "math",
        "matplotlib",
        "numpy",
        "operator",
        "os",
        "pandas",
        "pathlib",
        "PIL",
        "pickle",
        "platform",
        "pprint",
        "random",
        "re",
        "scipy",
        "seaborn",
        "shutil",
        "six",
        "skimage",
        "sklearn",
        "statistics",
        "string",
        "struct",
        "subprocess",
        "sys",
        "tarfile",
        "tempfile",
        "textwrap",
        "time",
        "tqdm",
        "traceback",
        "typing",
        "urllib",
        "uuid",
        "warnings",
        "zipfile",
        "absl",
        # Data, text and web libraries of TF1-era programs: pure Python or C code without TensorFlow.
        "array",
        "binascii",
        "bisect",
        "bs4",
        "bz2",
        "configparser",
        "contextlib",
        "decimal",
        "difflib",
        "email",
        "fractions",
        "getopt",
        "heapq",
        "html",
        "http",
        "inspect",
        "librosa",
        "lxml",
        "lzma",
        "multiprocessing",
        "nltk",
        "optparse",
        "queue",
        "requests",
        "socket",
        "soundfile",
        "sqlite3",
        "threading",
        "types",
        "unicodedata",
        "xml",
        "yaml",
        "zlib",
    }
)


#: The project summary that says which functions of a module create variables: session-to-
#: function's (``SessionToFunction.summarize``, stored under its code by the project pre-pass).
PROJECT_FACTS = "TFM101"


def project_functions(module: cst.Module, project: Mapping[str, Any]) -> dict[str, tuple[str, str, dict]]:
    """Local name -> (project module, function, its facts) for the functions ``module`` imports
    by name from a project module of the run (``from ops import build``, ``from ops import *``;
    ``ops.build`` after ``import ops``),
    with what session-to-function's summary (``PROJECT_FACTS``) says of each: ``graph``,
    ``variables``, ``factory`` (it returns a new trainable variable and makes nothing else); a
    class whose objects own their variables (``tf.Module``) has the facts ``object`` (and
    ``built`` when they exist once the object is made: ``made_in_init``)."""
    found: dict[str, tuple[str, str, dict]] = {}

    def facts_of(name: str) -> dict[str, dict]:
        summary = (project.get(name) or {}).get(PROJECT_FACTS) or {}
        return {
            **summary.get("functions", {}),
            **{
                cls: {
                    "graph": True,
                    "variables": True,
                    "object": True,
                    "built": cls in summary.get("built", ()),
                    "draws": cls in summary.get("drawing", ()),
                }
                for cls in summary.get("objects", ())
            },
        }

    for node in import_statements(module):
        if isinstance(node, cst.Import):
            # ``import ops``: its functions are there as ``ops.build`` (the key is that dotted name).
            for alias in node.names:
                name = source(alias.name)
                local = source(alias.asname.name) if alias.asname is not None else name
                found.update(
                    {f"{local}.{function}": (name, function, facts) for function, facts in facts_of(name).items()}
                )
            continue
        if not isinstance(node, cst.ImportFrom) or node.relative or node.module is None:
            continue
        name = source(node.module)
        functions = facts_of(name)
        if not functions:
            continue
        if isinstance(node.names, cst.ImportStar):
            found.update({function: (name, function, facts) for function, facts in functions.items()})
            continue
        for alias in node.names:
            function = source(alias.name)
            if function in functions:
                local = source(alias.asname.name) if alias.asname is not None else function
                found[local] = (name, function, functions[function])
    return found


def foreign_imports(module: cst.Module, project: Mapping[str, Any] = MappingProxyType({})) -> dict[str, str]:
    """Local name -> what it names, for names the file imports from code that may create variables
    (neither TensorFlow/Keras, nor a package of ``VARIABLE_FREE_PACKAGES``, nor a module of the
    ``project`` (``FileState.project``) whose summary says it creates none; a function a star
    import brings from a project module counts by what the summary says of it)."""
    found: dict[str, str] = {
        local: f"{name}.{function}"
        for local, (name, function, facts) in project_functions(module, project).items()
        if facts["variables"] and "." not in local
    }
    for node in import_statements(module):
        tf = {local for local, _ in import_bindings(node)}
        for local, qualified in import_bindings(node, tf_only=False):
            package = qualified.split(".", 1)[0]
            if (
                local not in tf
                and package not in VARIABLE_FREE_PACKAGES
                and package != "keras"
                and not _project_creates_no_variables(project, qualified)
            ):
                found[local] = qualified
    return found


def _project_creates_no_variables(project: Mapping[str, Any], qualified: str) -> bool:
    """Whether a project module (``import utils``), or a function of one (``from utils import
    read``), is known to create no variables: session-to-function's summary of it
    (``PROJECT_FACTS``) lists its functions' facts and whether importing it makes variables."""
    module, _, member = qualified.rpartition(".")
    for name, function in ((qualified, None), (module, member)):
        facts = (project.get(name) or {}).get(PROJECT_FACTS) if name else None
        if facts is None:
            continue
        functions = facts.get("functions", {})
        if function is None:
            return not facts.get("variables_on_import", True) and not any(f["variables"] for f in functions.values())
        return (
            function in functions
            and not functions[function]["variables"]
            and not facts.get("variables_on_import", True)
        )
    return False


def foreign_call(
    node: cst.CSTNode, foreign: dict[str, str], known: frozenset[int] | set[int] = frozenset()
) -> Optional[str]:
    """``"`build` (imported as model.build)"`` for the first call in ``node`` into imported code that may
    create variables or fill collections, else None (``known``: ids of calls whose variables are
    accounted for)."""
    if not foreign:
        return None
    for call in calls_in(node):
        if id(call) in known:
            continue
        root = root_name(call.func)
        if root is not None and root.value in foreign:
            return f"`{source(call.func)}` (imported as {foreign[root.value]})"
    return None
