"""What the project modules a file imports say of their functions: which create variables,
build graphs, return one new variable (session-to-function's summary of each module, stored
under ``PROJECT_FACTS`` by the project pre-pass), and the imported names that may create
variables the file cannot see.

The summary is typed (``ModuleFacts``, ``FunctionFacts``); the project pre-pass and the cache
keep it as the JSON-able dict ``ModuleFacts.to_json`` writes, read back by ``module_facts``."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping, Optional

import libcst as cst

from tfmodernize.syntax import calls_in, source
from tfmodernize.tfsymbols import dotted_name, import_bindings, root_name
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


@dataclass(frozen=True)
class FunctionFacts:
    """What a module function (or class) of a project module does when called."""

    graph: bool  # it builds TF ops
    variables: bool  # it may create variables
    draws: bool  # it draws random values
    factory: bool = False  # it returns one new trainable variable and makes nothing else
    #: A class whose objects own their variables (``tf.Module``, a Keras layer or model) ...
    object: bool = False
    #: ... made once the object is made (``made_in_init``), not on its first call.
    built: bool = False

    def to_json(self) -> dict[str, bool]:
        return {"graph": self.graph, "variables": self.variables, "draws": self.draws, "factory": self.factory}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "FunctionFacts":
        return cls(bool(data["graph"]), bool(data["variables"]), bool(data["draws"]), bool(data.get("factory")))


@dataclass(frozen=True)
class ModuleFacts:
    """Session-to-function's summary of one project module (``PROJECT_FACTS``)."""

    functions: Mapping[str, FunctionFacts] = field(default_factory=dict)
    objects: tuple[str, ...] = ()  # classes whose objects own their variables
    built: tuple[str, ...] = ()  # those of them making their variables when an object is made
    drawing: tuple[str, ...] = ()  # classes whose objects draw random values when called
    tf1: Optional[str] = None  # the first TF1-only name the module uses (it stays on compat.v1)
    variables_on_import: bool = True  # its top-level code makes variables

    def to_json(self) -> dict[str, Any]:
        """The summary as the project pre-pass and the cache store it."""
        return {
            "functions": {name: facts.to_json() for name, facts in self.functions.items()},
            "objects": list(self.objects),
            "built": list(self.built),
            "drawing": list(self.drawing),
            "tf1": self.tf1,
            "variables_on_import": self.variables_on_import,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "ModuleFacts":
        return cls(
            functions={name: FunctionFacts.from_json(facts) for name, facts in data.get("functions", {}).items()},
            objects=tuple(data.get("objects", ())),
            built=tuple(data.get("built", ())),
            drawing=tuple(data.get("drawing", ())),
            tf1=data.get("tf1"),
            variables_on_import=bool(data.get("variables_on_import", True)),
        )

    def callables(self) -> dict[str, FunctionFacts]:
        """The module's functions and its classes owning variables, by name, with their facts."""
        return {
            **self.functions,
            **{
                cls: FunctionFacts(True, True, cls in self.drawing, object=True, built=cls in self.built)
                for cls in self.objects
            },
        }

    def creates_no_variables(self, function: Optional[str] = None) -> bool:
        """Whether importing the module (and calling ``function`` of it) surely makes no variable."""
        if self.variables_on_import:
            return False
        if function is None:
            return not any(facts.variables for facts in self.functions.values())
        return function in self.functions and not self.functions[function].variables


def module_facts(project: Mapping[str, Any], name: str) -> Optional[ModuleFacts]:
    """What ``PROJECT_FACTS`` says of project module ``name`` (``FileState.project``), if anything."""
    summary = (project.get(name) or {}).get(PROJECT_FACTS) if name else None
    return ModuleFacts.from_json(summary) if summary is not None else None


@dataclass(frozen=True)
class ImportedFunction:
    """A function (or class) a file imports from a project module, and its facts."""

    module: str
    function: str
    facts: FunctionFacts


def imported_functions(module: cst.Module, project: Mapping[str, Any]) -> dict[str, ImportedFunction]:
    """Local name -> what it is, for the functions ``module`` imports by name from a project
    module of the run (``from ops import build``, ``from ops import *``; ``ops.build`` after
    ``import ops``), with what session-to-function's summary (``PROJECT_FACTS``) says of each."""
    found: dict[str, ImportedFunction] = {}

    def facts_of(name: str) -> dict[str, FunctionFacts]:
        facts = module_facts(project, name)
        return facts.callables() if facts is not None else {}

    # A module of the project is named by its dotted import name, written out without spaces:
    # the imports of any other module are passed over before their source is rendered.
    if not project:
        return found
    for node in import_statements(module):
        if isinstance(node, cst.Import):
            # ``import ops``: its functions are there as ``ops.build`` (the key is that dotted name).
            for alias in node.names:
                if dotted_name(alias.name) not in project:
                    continue
                name = source(alias.name)
                local = source(alias.asname.name) if alias.asname is not None else name
                found.update(
                    {
                        f"{local}.{function}": ImportedFunction(name, function, facts)
                        for function, facts in facts_of(name).items()
                    }
                )
            continue
        if not isinstance(node, cst.ImportFrom) or node.relative or node.module is None:
            continue
        if dotted_name(node.module) not in project:
            continue
        name = source(node.module)
        functions = facts_of(name)
        if not functions:
            continue
        if isinstance(node.names, cst.ImportStar):
            found.update({function: ImportedFunction(name, function, facts) for function, facts in functions.items()})
            continue
        for alias in node.names:
            function = source(alias.name)
            if function in functions:
                local = source(alias.asname.name) if alias.asname is not None else function
                found[local] = ImportedFunction(name, function, functions[function])
    return found


def foreign_imports(module: cst.Module, project: Mapping[str, Any] = MappingProxyType({})) -> dict[str, str]:
    """Local name -> what it names, for names the file imports from code that may create variables
    (neither TensorFlow/Keras, nor a package of ``VARIABLE_FREE_PACKAGES``, nor a module of the
    ``project`` (``FileState.project``) whose summary says it creates none; a function a star
    import brings from a project module counts by what the summary says of it)."""
    found: dict[str, str] = {
        local: f"{imported.module}.{imported.function}"
        for local, imported in imported_functions(module, project).items()
        if imported.facts.variables and "." not in local
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
        facts = module_facts(project, name)
        if facts is not None:
            return facts.creates_no_variables(function)
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
