"""What TF1 training code trains, shared by minimize-to-tape, gradients-to-tape and
collections-to-tracking.

A TF1 graph keeps its variables in collections; ``minimize(loss)`` without ``var_list`` and
``tf.trainable_variables()`` read them. TF2 has no collections, so a migration must write the
list out. ``VariableInventory`` reads it off the module: the variables the program creates at
module level (``W = tf.Variable(...)``, ``tf.get_variable``, inside ``variable_scope`` /
``name_scope`` blocks), in creation order, with their TF1 graph names and trainability. When
anything else in the file may create variables (a layer, a helper function calling
``get_variable``, a Keras model, a rebound name), the inventory says why it is incomplete and
the codemods decline rather than guess.

Also here: the TF1 -> Keras optimizer table (``tfmodernize/data/optimizers.json``, written by
``scripts/generate_optimizer_table.py``) and the GradientTape block both tape codemods emit.
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from types import MappingProxyType
from typing import Any, Iterator, Mapping, Optional, Sequence, Union

import libcst as cst

from tfmodernize.analysis.tf1_api import MONITORED_SESSIONS, NAME_SCOPES, PLACEHOLDERS, SESSIONS, V2_OFF, VARIABLE_MAKERS, VARIABLE_SCOPES
from tfmodernize.names import bound_names, names_read
from tfmodernize.tfsymbols import TFNames, import_bindings, root_name
from tfmodernize.syntax import argument, no_space_equal, source
from tfmodernize.treewalk import contains, import_statements, walk

#: TF paths whose call creates the global step (never trainable).
GLOBAL_STEP_CALLS = ("train.get_or_create_global_step", "train.create_global_step")
#: TF path prefixes whose calls may create trainable variables the inventory cannot name.
OPAQUE_CREATORS = ("layers.", "contrib.", "estimator.", "nn.rnn_cell.", "nn.dynamic_rnn",
                   "nn.static_rnn", "nn.bidirectional_dynamic_rnn", "Module", "saved_model.",
                   "train.import_meta_graph", "import_graph_def")
#: Keras path prefixes whose calls create layers or models (and so variables).
KERAS_CREATORS = ("layers.", "Sequential", "Model", "models.", "applications.")
#: Calls whose name says they add ops to TF1's UPDATE_OPS collection.
UPDATE_SOURCES = re.compile(r"batch_norm|BatchNormalization|add_update")
#: Top-level packages whose functions never create TF variables nor add to TF collections:
#: calling into them leaves the inventory complete. Anything else imported (the program's own
#: ``model.py``, slim, a research library) may, so a call into it makes the inventory unknown.
VARIABLE_FREE_PACKAGES = frozenset({
    "__future__", "abc", "argparse", "base64", "codecs", "collections", "copy", "csv", "cv2",
    "dataclasses", "datetime", "enum", "functools", "glob", "gzip", "h5py", "hashlib", "imageio",
    "io", "itertools", "json", "logging", "math", "matplotlib", "numpy", "operator", "os",
    "pandas", "pathlib", "PIL", "pickle", "platform", "pprint", "random", "re", "scipy",
    "seaborn", "shutil", "six", "skimage", "sklearn", "statistics", "string", "struct",
    "subprocess", "sys", "tarfile", "tempfile", "textwrap", "time", "tqdm", "traceback",
    "typing", "urllib", "uuid", "warnings", "zipfile", "absl",
    # Data, text and web libraries of TF1-era programs: pure Python or C code without TensorFlow.
    "array", "binascii", "bisect", "bs4", "bz2", "configparser", "contextlib", "decimal", "difflib",
    "email", "fractions", "getopt", "heapq", "html", "http", "inspect", "librosa", "lxml", "lzma",
    "multiprocessing", "nltk", "optparse", "queue", "requests", "socket", "soundfile", "sqlite3",
    "threading", "types", "unicodedata", "xml", "yaml", "zlib",
})


@dataclass(frozen=True)
class ModuleVariable:
    """A variable created by a module-level statement, bound to one Python name."""

    name: str
    graph_name: Optional[str]  # the TF1 graph name without ``:0``, None when not a literal
    trainable: bool
    index: int  # position of the creating statement in ``module.body``
    #: A Keras layer or model (or a ``tf.Module``): its variables are read off it; a Keras one
    #: makes them when it is first called.
    keras: bool = False
    #: A ``tf.Module`` making its variables when constructed (``made_in_init``): they exist after its line.
    built: bool = False
    #: Created with the initial value 0 (a step counter's usual start).
    zero_start: bool = False

    @property
    def binding(self) -> str:
        """The Python name bound at module level: ``weights`` for ``weights['h1']``."""
        return self.name.split("[", 1)[0]


@dataclass
class VariableInventory:
    """The module's variables in creation order, or why that list may be incomplete."""

    variables: list[ModuleVariable] = field(default_factory=list)
    problem: Optional[str] = None
    #: The module statement the problem comes from, when only what runs after it is affected
    #: (a call into imported code); None when the whole list is in doubt.
    problem_at: Optional[int] = None
    rebound: set[str] = field(default_factory=set)
    #: Indices of module statements that reset the default graph: TF1's collections start
    #: empty again after each (a program building a second model).
    resets: list[int] = field(default_factory=list)

    def variable(self, name: str) -> Optional[ModuleVariable]:
        """The module variable bound to ``name`` (and to nothing else), if any."""
        if name in self.rebound:
            return None
        return next((v for v in self.variables if v.name == name), None)

    def problem_before(self, index: int) -> Optional[str]:
        """Why the variables of TF1's collections when ``module.body[index]`` runs cannot be listed."""
        if self.problem_at is not None and self.problem_at >= index:
            return None
        return self.problem

    def before(self, index: int, *, trainable_only: bool) -> list[ModuleVariable]:
        """Variables in TF1's collections when ``module.body[index]`` runs: those created by
        module-level statements before it, since the last graph reset."""
        start = max((r for r in self.resets if r < index), default=-1)
        return [v for v in self.variables if start < v.index < index and (v.trainable or not trainable_only)]

    def graph_of(self, index: int) -> int:
        """Which graph (0, 1, ... counting resets) module statement ``index`` builds into."""
        return sum(1 for r in self.resets if r < index)

    @staticmethod
    def in_scope(variables: Sequence[ModuleVariable], scope: str) -> Optional[list[ModuleVariable]]:
        """TF1's ``get_collection(key, scope)`` filter (``re.match`` on the name); None if a
        name is unknown."""
        if any(v.graph_name is None for v in variables):
            return None
        return [v for v in variables if re.match(scope, v.graph_name)]


def _literal_string(node: Optional[cst.BaseExpression]) -> Optional[str]:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def calls(node: cst.CSTNode) -> Iterator[cst.Call]:
    """Every call inside ``node``, in source order."""
    return (n for n in walk(node, code_only=True) if isinstance(n, cst.Call))


#: The project summary that says which functions of a module create variables: session-to-
#: function's (``SessionToFunction.summarize``, stored under its code by the project pre-pass).
PROJECT_FACTS = "TFM101"


#: Bases whose subclasses' objects own their variables, made once (TF path or Keras path).
OWNER_BASES = ("Module", "keras.layers.Layer", "keras.Model", "keras.models.Model")


def owns_variables(definition: cst.ClassDef, tf: TFNames) -> bool:
    """Whether a class's objects own their variables: a ``tf.Module`` or Keras layer or model."""
    for base in definition.bases:
        symbol = tf.tf_symbol(base.value)
        keras = tf.keras_path(base.value)
        if symbol is not None and symbol.path in OWNER_BASES or keras in ("layers.Layer", "Model", "models.Model"):
            return True
    return False


def made_in_init(definition: cst.ClassDef, tf: TFNames) -> bool:
    """Whether a ``tf.Module`` class makes its variables when an object is made: its
    ``__init__`` creates variables and nothing else of it does (so they exist after the
    object's line, unlike a Keras layer's, made on its first call)."""
    if not any(tf.tf_symbol(base.value) is not None and tf.tf_symbol(base.value).path == "Module"
               for base in definition.bases):
        return False
    makers = {id(c): c for c in walk(definition.body, code_only=True)
              if isinstance(c, cst.Call) and creates_opaque_variables(c, tf)}
    init = next((s for s in definition.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"), None)
    in_init = {id(c) for c in walk(init, code_only=True)} if init is not None else set()
    return bool(makers) and all(key in in_init for key in makers)


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
        return {**summary.get("functions", {}),
                **{cls: {"graph": True, "variables": True, "object": True, "built": cls in summary.get("built", ()),
                         "draws": cls in summary.get("drawing", ())}
                   for cls in summary.get("objects", ())}}

    for node in import_statements(module):
        if isinstance(node, cst.Import):
            # ``import ops``: its functions are there as ``ops.build`` (the key is that dotted name).
            for alias in node.names:
                name = source(alias.name)
                local = source(alias.asname.name) if alias.asname is not None else name
                found.update({f"{local}.{function}": (name, function, facts) for function, facts in facts_of(name).items()})
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
    found: dict[str, str] = {local: f"{name}.{function}" for local, (name, function, facts)
                             in project_functions(module, project).items() if facts["variables"] and "." not in local}
    for node in import_statements(module):
        tf = {local for local, _ in import_bindings(node)}
        for local, qualified in import_bindings(node, tf_only=False):
            package = qualified.split(".", 1)[0]
            if local not in tf and package not in VARIABLE_FREE_PACKAGES and package != "keras" \
                    and not _project_creates_no_variables(project, qualified):
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
        return function in functions and not functions[function]["variables"] and not facts.get("variables_on_import", True)
    return False


def foreign_call(node: cst.CSTNode, foreign: dict[str, str], known: frozenset[int] | set[int] = frozenset()) -> Optional[str]:
    """``"`build` (imported as model.build)"`` for the first call in ``node`` into imported code that may
    create variables or fill collections, else None (``known``: ids of calls whose variables are
    accounted for)."""
    if not foreign:
        return None
    for call in calls(node):
        if id(call) in known:
            continue
        root = root_name(call.func)
        if root is not None and root.value in foreign:
            return f"`{source(call.func)}` (imported as {foreign[root.value]})"
    return None


def creates_opaque_variables(call: cst.Call, tf: TFNames) -> bool:
    """Whether ``call`` may create trainable variables the inventory cannot list."""
    symbol = tf.tf_symbol(call.func)
    if symbol is not None and (
        symbol.path in VARIABLE_MAKERS
        or any(symbol.path.startswith(prefix) for prefix in OPAQUE_CREATORS)
    ):
        return True
    keras = tf.keras_path(call.func)
    return keras is not None and any(keras.startswith(prefix) for prefix in KERAS_CREATORS)


def resets_graph(statement: cst.CSTNode, tf: TFNames) -> bool:
    """``tf.reset_default_graph()`` (or ``ops.reset_default_graph()``) as a statement of its own."""
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Expr) and isinstance(statement.body[0].value, cst.Call)):
        return False
    symbol = tf.tf_symbol(statement.body[0].value.func)
    return symbol is not None and (symbol.path == "reset_default_graph" or symbol.path.endswith(".ops.reset_default_graph"))


def variable_factories(module: cst.Module, tf: TFNames) -> dict[str, cst.Call]:
    """Module functions that return a new variable and make nothing else:
    ``def init_weights(shape): return tf.Variable(tf.random_normal(shape))`` -> that call."""
    found = {}
    for statement in module.body:
        if not isinstance(statement, cst.FunctionDef) or not isinstance(statement.body, cst.IndentedBlock):
            continue
        last = statement.body.body[-1] if statement.body.body else None
        returned = (last.body[0].value if isinstance(last, cst.SimpleStatementLine) and len(last.body) == 1
                    and isinstance(last.body[0], cst.Return) else None)
        if not (isinstance(returned, cst.Call) and tf.is_tf(returned.func, *VARIABLE_MAKERS)):
            continue
        made = [call for call in calls(statement) if creates_opaque_variables(call, tf)]
        if made == [returned] and not any(isinstance(n, (cst.For, cst.While, cst.FunctionDef, cst.Lambda))
                                          for n in walk(statement.body, code_only=True)):
            found[statement.name.value] = returned
    return found


def _scope_prefix(item: cst.WithItem, tf: TFNames) -> Optional[tuple[str, str]]:
    """``("variable"|"name", "gen")`` for ``tf.variable_scope("gen")`` / ``tf.name_scope``."""
    call = item.item
    if not isinstance(call, cst.Call):
        return None
    if tf.is_tf(call.func, *VARIABLE_SCOPES):
        name = _literal_string(argument(call, 0, "name_or_scope"))
        return ("variable", name) if name is not None else ("variable", "")
    if tf.is_tf(call.func, *NAME_SCOPES):
        name = _literal_string(argument(call, 0, "name"))
        return ("name", name) if name is not None else ("name", "")
    return None


def inventory(module: cst.Module, tf: TFNames, project: Mapping[str, Any] = MappingProxyType({})) -> VariableInventory:
    """The variables ``module`` creates, read off its module-level statements (calls into the
    ``project`` modules its summaries say create none are not unknowns)."""
    found = VariableInventory()
    foreign = foreign_imports(module, project)

    def unknown(why: str, at: Optional[int] = None) -> None:
        if found.problem is None or (found.problem_at is not None and at is None):
            found.problem, found.problem_at = why, at

    def visit(statements: Sequence[cst.CSTNode], index: int, var_scope: list[str], name_scope: list[str]) -> None:
        for statement in statements:
            if isinstance(statement, cst.With):
                pushed_var, pushed_name = list(var_scope), list(name_scope)
                for item in statement.items:
                    prefix = _scope_prefix(item, tf)
                    if prefix is None:
                        continue
                    kind, name = prefix
                    if not name:
                        unknown("a variable scope whose name is not a string literal")
                        continue
                    pushed_name.append(name)
                    if kind == "variable":
                        pushed_var.append(name)
                visit(statement.body.body, index, pushed_var, pushed_name)
                continue
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if _record(small, index, var_scope, name_scope):
                        continue
                    if any(creates_opaque_variables(call, tf) for call in calls(small)):
                        unknown("something other than a plain `tf.Variable`/`get_variable` assignment creates variables")
                continue
            if isinstance(statement, cst.FunctionDef) and statement.name.value in factories:
                continue
            if isinstance(statement, cst.ClassDef) and statement.name.value in imported_objects:
                continue  # a class owning its variables: its objects are listed where they are made
            if any(creates_opaque_variables(call, tf) for call in calls(statement)):
                what = "a function or class" if isinstance(statement, (cst.FunctionDef, cst.ClassDef)) else "a compound statement"
                unknown(f"{what} creates variables")

    def _record(small: cst.BaseSmallStatement, index: int, var_scope: list[str], name_scope: list[str]) -> bool:
        """Record the variables an assignment makes: ``w = tf.Variable(...)``, a dict or list
        literal of them (``weights = {"h1": tf.Variable(...)}``, read as ``weights["h1"]``), or
        the result of a module function that returns a new variable (``w = init_weights(...)``)."""
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name)):
            return False
        python_name = small.targets[0].target.value
        value = small.value
        if isinstance(value, cst.Call):
            return _record_call(value, python_name, index, var_scope, name_scope)
        entries: list[tuple[str, cst.BaseExpression]] = []
        if isinstance(value, cst.Dict) and value.elements:
            for element in value.elements:
                key = _literal_string(element.key) if isinstance(element, cst.DictElement) else None
                if key is None:
                    return False
                entries.append((f"{python_name}[{key!r}]", element.value))
        elif isinstance(value, (cst.List, cst.Tuple)) and value.elements:
            if any(not isinstance(element, cst.Element) for element in value.elements):
                return False
            entries = [(f"{python_name}[{position}]", element.value) for position, element in enumerate(value.elements)]
        else:
            return False
        if not all(isinstance(v, cst.Call) and _makes_variable(v) for _, v in entries):
            return False
        for expression, call in entries:
            _record_call(call, expression, index, var_scope, name_scope)
        return True

    def _makes_variable(call: cst.Call) -> bool:
        symbol = tf.tf_symbol(call.func)
        if symbol is not None and symbol.path in VARIABLE_MAKERS:
            return True
        return isinstance(call.func, cst.Name) and (call.func.value in factories or call.func.value in imported_factories)

    def _record_call(call: cst.Call, python_name: str, index: int, var_scope: list[str], name_scope: list[str]) -> bool:
        if isinstance(call.func, cst.Name) and call.func.value in imported_factories:
            # ``w = make_weight(...)``, a project module's function returning a new trainable variable.
            found.variables.append(ModuleVariable(python_name, None, True, index))
            recorded.add(id(call))
            return True
        if isinstance(call.func, (cst.Name, cst.Attribute)) and source(call.func) in imported_objects:
            # ``net = Network(...)``, a project class whose objects own their variables (``tf.Module``).
            found.variables.append(ModuleVariable(python_name, None, True, index, keras=True,
                                                  built=source(call.func) in built_objects))
            recorded.add(id(call))
            return True
        if isinstance(call.func, cst.Name) and call.func.value in factories:
            call = factories[call.func.value]  # the variable the factory returns, made per call
        symbol = tf.tf_symbol(call.func)
        if symbol is None and tf.keras_path(call.func) is None:
            return False
        if _keras_object(call, tf):
            if not _weightless(call, tf):
                found.variables.append(ModuleVariable(python_name, None, True, index, keras=True))
            return True
        if symbol.path in GLOBAL_STEP_CALLS:
            found.variables.append(ModuleVariable(python_name, "global_step", False, index, zero_start=True))
            return True
        if symbol.path not in VARIABLE_MAKERS:
            return False
        if any(arg.keyword is not None and arg.keyword.value == "collections" for arg in call.args):
            unknown("a variable with explicit `collections`")
            return True
        trainable_arg = argument(call, None, "trainable")
        if trainable_arg is None:
            trainable = True
        elif isinstance(trainable_arg, cst.Name) and trainable_arg.value in ("True", "False"):
            trainable = trainable_arg.value == "True"
        else:
            unknown("a variable whose `trainable` is not a literal")
            return True
        if symbol.path == "Variable":
            if sum(1 for arg in call.args if arg.keyword is None) > 1:
                unknown("a `tf.Variable` with positional arguments after the initial value")
                return True
            name_arg = argument(call, None, "name")
            base = "Variable" if name_arg is None else _literal_string(name_arg)
            prefix = name_scope
        else:
            base = _literal_string(argument(call, 0, "name"))
            prefix = var_scope
        graph_name = None if base is None else "/".join([*prefix, base])
        initial = argument(call, 0, "initial_value") if symbol.path == "Variable" else None
        zero_start = isinstance(initial, cst.Integer) and initial.evaluated_value == 0
        found.variables.append(ModuleVariable(python_name, graph_name, trainable, index, zero_start=zero_start))
        return True

    factories = variable_factories(module, tf)
    imported = project_functions(module, project)
    imported_factories = {local for local, (_, _, facts) in imported.items() if facts.get("factory")}
    imported_objects = {local for local, (_, _, facts) in imported.items() if facts.get("object")}
    built_objects = {local for local, (_, _, facts) in imported.items() if facts.get("built")}
    # This file's own classes whose objects own their variables (``tf.Module``, Keras layers).
    owners = [s for s in module.body if isinstance(s, cst.ClassDef) and owns_variables(s, tf)]
    imported_objects |= {s.name.value for s in owners}
    built_objects |= {s.name.value for s in owners if made_in_init(s, tf)}
    recorded: set[int] = set()  # the calls of imported factories recorded as variables
    bindings: dict[str, list[int]] = {}
    for index, statement in enumerate(module.body):
        if resets_graph(statement, tf):
            found.resets.append(index)
        visit([statement], index, [], [])
        imported = foreign_call(statement, foreign, recorded)
        if imported is not None:
            unknown(f"a call to {imported} may create variables", at=index)
        for name in bound_names(statement):
            bindings.setdefault(name, []).append(index)
    for variable in found.variables:
        bound = bindings.get(variable.binding, [])
        if len(bound) > 1:
            found.rebound.add(variable.binding)
            # Bound again for another graph (after a reset) is that graph's variable, and bound
            # before it was created (``w = 0.5`` before ``w = tf.Variable(...)``) is another value:
            # neither is a rebinding of the variable.
            later = [index for index in bound if index > variable.index and found.graph_of(index) == found.graph_of(variable.index)]
            if later:
                unknown(f"`{variable.name}` is bound more than once")
    found.variables = _uniquified(found.variables)
    return found


def _uniquified(variables: list[ModuleVariable]) -> list[ModuleVariable]:
    """Graph names as TF1 makes them unique: a second ``Variable`` becomes ``Variable_1``."""
    used: set[str] = set()
    named = []
    for variable in variables:
        name = variable.graph_name
        if name is not None:
            candidate, counter = name, 0
            while candidate in used:
                counter += 1
                candidate = f"{name}_{counter}"
            used.add(candidate)
            variable = dataclasses.replace(variable, graph_name=candidate)
        named.append(variable)
    return named


def module_assignment(module: cst.Module, name: str) -> Optional[tuple[int, cst.BaseExpression]]:
    """(statement index, value) of the one module-level ``name = value``, if there is one."""
    bound = [
        (index, small.value)
        for index, statement in enumerate(module.body) if isinstance(statement, cst.SimpleStatementLine)
        for small in statement.body
        if isinstance(small, cst.Assign) and any(
            isinstance(t.target, cst.Name) and t.target.value == name for t in small.targets)
    ]
    return bound[0] if len(bound) == 1 else None


def frozen_value(
    statements: Sequence[cst.CSTNode], module: cst.Module, inventory: VariableInventory, tf: TFNames
) -> Optional[str]:
    """A module-level name ``statements`` read whose value was computed once from variables.

    ``penalty = 0.05 * tf.nn.l2_loss(W)`` at module level is a graph tensor in TF1, recomputed
    on every run; in TF2 it is a constant computed once, and a tape around ``statements``
    records no gradient through it.
    """
    variables = {v.binding for v in inventory.variables}
    local = {name for statement in statements for name in bound_names(statement)}
    for name in sorted(set().union(*(names_read(s) for s in statements)) - local - variables):
        bound = module_assignment(module, name)
        if bound is None or not isinstance(bound[1], (cst.Call, cst.BinaryOperation, cst.UnaryOperation, cst.Subscript)):
            continue
        reads_collection = any(
            tf.is_tf(call.func, "trainable_variables", "global_variables", "get_collection") for call in calls(bound[1])
        )
        if reads_collection or names_read(bound[1]) & variables:
            return name
    return None


def update_ops_collection(node: cst.BaseExpression, module: cst.Module, tf: TFNames) -> Optional[cst.Call]:
    """The ``tf.get_collection(tf.GraphKeys.UPDATE_OPS)`` call ``node`` is or names (module level)."""
    if isinstance(node, cst.Name):
        bound = module_assignment(module, node.value)
        if bound is None:
            return None
        node = bound[1]
    if not (isinstance(node, cst.Call) and tf.is_tf(node.func, "get_collection") and node.args):
        return None
    key = node.args[0].value
    is_update_ops = tf.is_tf(key, "GraphKeys.UPDATE_OPS") or (
        isinstance(key, cst.SimpleString) and key.evaluated_value == "update_ops")
    return node if is_update_ops else None


def adds_update_ops(module: cst.Module, tf: TFNames) -> bool:
    """Whether anything in ``module`` may put ops into UPDATE_OPS."""
    for call in calls(module):
        if UPDATE_SOURCES.search(source(call.func)):
            return True
        if tf.is_tf(call.func, "add_to_collection", "add_to_collections"):
            return True
    return False


def listed_variables(
    inventory: VariableInventory, top: int, trainable_only: bool, scope: Optional[cst.BaseExpression],
    *, eager: bool = False,
) -> Union[cst.BaseExpression, str]:
    """What TF1's variable collection read at module statement ``top`` holds, or why unknown.
    ``eager``: the list is evaluated where the read stood, at module level, where a Keras layer
    the program calls in its functions has no variables yet (it makes them on its first call)."""
    problem = inventory.problem_before(top)
    if problem is not None:
        return f"the file's variables cannot be listed ({problem})"
    variables = inventory.before(top, trainable_only=trainable_only)
    if eager and any(v.keras and not v.built for v in variables):
        return ("Keras layers make their variables on their first call, later than this line in TF2, so the list "
                "would be empty here; read `layer.trainable_variables` where the variables are used")
    if scope is not None and not (isinstance(scope, cst.Name) and scope.value == "None"):
        if not isinstance(scope, cst.SimpleString) or not isinstance(scope.evaluated_value, str):
            return "its scope is not a string literal"
        if any(v.keras for v in variables):
            return "Keras layers name their variables themselves, so the scope cannot be matched"
        scoped = inventory.in_scope(variables, scope.evaluated_value)
        if scoped is None:
            return "a variable's graph name is not a string literal, so the scope cannot be matched"
        variables = scoped
    return variable_list(variables, trainable_only=trainable_only)


def trainable_collection_read(call: cst.Call, tf: TFNames) -> Optional[tuple[Optional[cst.BaseExpression]]]:
    """``(scope,)`` when ``call`` reads the trainable-variables collection, else None."""
    if tf.is_tf(call.func, "trainable_variables"):
        return (argument(call, 0, "scope"),)
    if tf.is_tf(call.func, "get_collection"):
        key = argument(call, 0, "key")
        is_trainable = (key is not None and tf.is_tf(key, "GraphKeys.TRAINABLE_VARIABLES")) or (
            isinstance(key, cst.SimpleString) and key.evaluated_value == "trainable_variables")
        return (argument(call, 1, "scope"),) if is_trainable else None
    return None


def _keras_object(call: cst.Call, tf: TFNames) -> bool:
    """``tf.keras.layers.Dense(...)``, ``keras.Sequential(...)``, ``tf.layers.Dense(...)``."""
    path = tf.keras_path(call.func)
    if path is None:
        symbol = tf.tf_symbol(call.func)
        path = symbol.path if symbol is not None and symbol.path.startswith("layers.") else None
    if path is None:
        return False
    if path in ("Sequential", "Model", "models.Sequential", "models.Model"):
        return True
    last = path.rsplit(".", 1)[-1]
    return path.startswith("layers.") and last[:1].isupper() and last not in ("Input", "InputSpec")


#: Keras layers that own no variables: nothing of theirs to train or list.
WEIGHTLESS_LAYERS = frozenset({
    "Flatten", "Dropout", "Reshape", "Activation", "ReLU", "Softmax", "Permute", "RepeatVector",
    *(f"{kind}Pooling{d}D" for kind in ("Max", "Average", "GlobalMax", "GlobalAverage") for d in (1, 2, 3)),
})


def _weightless(call: cst.Call, tf: TFNames) -> bool:
    path = tf.keras_path(call.func) or ""
    return path.startswith("layers.") and path.rsplit(".", 1)[-1] in WEIGHTLESS_LAYERS


#: TF paths whose use means the file still builds a TF1 graph and runs it in a session.
GRAPH_PROGRAM = (*SESSIONS, *PLACEHOLDERS, *V2_OFF, *MONITORED_SESSIONS, "get_default_graph", "Graph",
                 "train.Supervisor")


def graph_program(module: cst.Module, tf: TFNames) -> Optional[str]:
    """The TF1 graph-mode API the module still uses (``tf.Session``...), if any.

    Functions in such a file may be graph builders called once: rewriting their ``minimize``
    to eager Keras updates would break the session that runs them.
    """
    for node in walk(module):
        if isinstance(node, (cst.Attribute, cst.Name)):
            symbol = tf.tf_symbol(node)
            if symbol is not None and (symbol.path in GRAPH_PROGRAM or symbol.path.startswith("estimator.")):
                return f"tf.{symbol.path}"
    return None


def variable_list(variables: Sequence[ModuleVariable], *, trainable_only: bool = True) -> cst.BaseExpression:
    """``[W, b]``; a Keras object contributes ``*model.trainable_variables`` (or ``.variables``)."""
    attribute = "trainable_variables" if trainable_only else "variables"
    if len(variables) == 1 and variables[0].keras:
        return cst.Attribute(cst.Name(variables[0].name), cst.Name(attribute))
    return cst.List([
        cst.StarredElement(cst.Attribute(cst.Name(v.name), cst.Name(attribute))) if v.keras
        else cst.Element(cst.parse_expression(v.name))
        for v in variables
    ])


def top_level_index(module: cst.Module, node: cst.CSTNode) -> Optional[int]:
    """Index of the module-level statement that contains ``node``."""
    for index, statement in enumerate(module.body):
        if statement is node or contains(statement, node):
            return index
    return None


def used_names(module: cst.Module) -> set[str]:
    """Every identifier in the module, to pick names that clash with nothing."""
    return {node.value for node in walk(module, code_only=True) if isinstance(node, cst.Name)}


def fresh_name(base: str, taken: set[str]) -> str:
    """``base``, or ``base_2``, ``base_3``... whichever is not taken; marks it taken."""
    name, counter = base, 1
    while name in taken:
        counter += 1
        name = f"{base}_{counter}"
    taken.add(name)
    return name


def functions(module: cst.Module) -> Iterator[tuple[int, cst.FunctionDef]]:
    """Every function definition with the index of the module-level statement holding it."""
    for index, statement in enumerate(module.body):
        for node in walk(statement):
            if isinstance(node, cst.FunctionDef):
                yield index, node


def module_bindings(module: cst.Module) -> set[str]:
    """Names bound by module-level statements (functions' insides excluded)."""
    bound: set[str] = set()
    for statement in module.body:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            bound.add(statement.name.value)
        elif isinstance(statement, (cst.Import, cst.ImportFrom)) or (
            isinstance(statement, cst.SimpleStatementLine)
            and any(isinstance(s, (cst.Import, cst.ImportFrom)) for s in statement.body)
        ):
            for small in getattr(statement, "body", []):
                names = getattr(small, "names", ())
                for alias in names if not isinstance(names, cst.ImportStar) else ():
                    if isinstance(alias, cst.ImportAlias):
                        local = alias.asname.name if alias.asname else alias.name
                        bound.add(root.value if (root := _root(local)) else "")
        else:
            bound.update(bound_names(statement))
    return bound


def _root(node: cst.CSTNode) -> Optional[cst.Name]:
    while isinstance(node, cst.Attribute):
        node = node.value
    return node if isinstance(node, cst.Name) else None


def binds(statements: Sequence[cst.CSTNode], name: str) -> bool:
    """Whether any of ``statements`` binds ``name``."""
    return any(name in bound_names(statement) for statement in statements)


def split_docstring(body: Sequence[cst.BaseStatement]) -> tuple[list[cst.BaseStatement], list[cst.BaseStatement]]:
    """(docstring statement if any, the rest) of a function body."""
    if body and isinstance(body[0], cst.SimpleStatementLine) and len(body[0].body) == 1:
        small = body[0].body[0]
        if isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)):
            return [body[0]], list(body[1:])
    return [], list(body)


def tape_block(gradient_tape: cst.BaseExpression, tape: str, statements: Sequence[cst.BaseStatement]) -> cst.With:
    """``with tf.GradientTape() as tape:`` around ``statements``."""
    return cst.With(
        items=[cst.WithItem(cst.Call(gradient_tape), asname=cst.AsName(cst.Name(tape)))],
        body=cst.IndentedBlock(body=list(statements)),
    )


def statement(code: str) -> cst.SimpleStatementLine:
    parsed = cst.parse_statement(code)
    assert isinstance(parsed, cst.SimpleStatementLine)
    return parsed


# -- the optimizer table --------------------------------------------------------------------------


@lru_cache(maxsize=None)
def _tables() -> dict:
    text = resources.files("tfmodernize").joinpath("data/optimizers.json").read_text(encoding="utf-8")
    return json.loads(text)


def optimizer_table() -> dict:
    """TF1 optimizer class name -> its Keras 3 counterpart and argument mapping."""
    return _tables()["optimizers"]


def schedule_table() -> dict:
    """TF1 learning-rate decay function -> its Keras 3 schedule and argument mapping."""
    return _tables()["schedules"]


#: The table's marker for the TF1 argument that carries the step.
STEP = "@step"


def keras_schedule(call: cst.Call, tf1_function: str):
    """``(KerasOptimizer-like schedule, step expression)``, or ``(None, why not)``."""
    entry = schedule_table()[tf1_function]
    keras_args: list[cst.Arg] = []
    step = None
    for index, arg in enumerate(call.args):
        if arg.star or (arg.keyword is None and index >= len(entry["positional"])):
            return None, "its arguments could not be read"
        param = arg.keyword.value if arg.keyword is not None else entry["positional"][index]
        keras_param = entry["arguments"].get(param)
        if param not in entry["arguments"]:
            return None, f"`{param}` is not an argument of tf.train.{tf1_function}"
        if keras_param == STEP:
            step = arg.value
        elif keras_param is not None:
            keras_args.append(_keyword(keras_param, arg.value))
    for keras_param, value in entry["write_defaults"].items():
        if not any(a.keyword is not None and a.keyword.value == keras_param for a in keras_args):
            keras_args.append(_keyword(keras_param, cst.parse_expression(repr(value))))
    if step is None:
        return None, "it has no step argument"
    return KerasOptimizer(entry["keras"], tuple(keras_args), None), step


@dataclass(frozen=True)
class KerasOptimizer:
    """The Keras constructor a TF1 optimizer call becomes, or why it cannot."""

    keras: str
    args: tuple[cst.Arg, ...]
    different_maths: Optional[str]
    #: Keras slot (suffix of its variable's name) -> the value TF1 started it at
    slot_starts: dict[str, float] = field(default_factory=dict)


def keras_optimizer(call: cst.Call, tf1_class: str) -> tuple[Optional[KerasOptimizer], Optional[str]]:
    """Map ``tf.train.<tf1_class>(...)`` to Keras arguments with TF1's effective defaults."""
    entry = optimizer_table()[tf1_class]
    given: dict[str, cst.BaseExpression] = {}
    for index, arg in enumerate(call.args):
        if arg.star:
            return None, "its arguments are unpacked with * or **"
        if arg.keyword is None:
            if index >= len(entry["positional"]):
                return None, "it has more positional arguments than TF1 accepts"
            given[entry["positional"][index]] = arg.value
        else:
            if arg.keyword.value not in entry["arguments"]:
                return None, f"`{arg.keyword.value}` is not an argument of {tf1_class}"
            given[arg.keyword.value] = arg.value
    keras_args: list[cst.Arg] = []
    written: set[str] = set()
    for tf1_param in entry["positional"]:
        keras_param = entry["arguments"][tf1_param]
        if tf1_param not in given or keras_param is None:
            continue
        keras_args.append(_keyword(keras_param, given[tf1_param]))
        written.add(keras_param)
    for keras_param in entry["required"]:
        if keras_param not in written:
            return None, f"it lacks the required `{keras_param}`"
    for keras_param, value in entry["write_defaults"].items():
        if keras_param not in written:
            keras_args.append(_keyword(keras_param, cst.parse_expression(repr(value))))
    return KerasOptimizer(entry["keras"], tuple(keras_args), entry["different_maths"], dict(entry["slot_starts"])), None


def _keyword(name: str, value: cst.BaseExpression) -> cst.Arg:
    return cst.Arg(
        value=value,
        keyword=cst.Name(name),
        equal=no_space_equal(),
    )
