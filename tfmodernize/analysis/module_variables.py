"""The variables a module's top-level code makes, in TF1's creation order.

A TF1 graph keeps its variables in collections; ``minimize(loss)`` without ``var_list`` and
``tf.trainable_variables()`` read them. TF2 has no collections, so a migration must write the
list out. ``VariableInventory`` reads it off the module: the variables the program creates at
module level (``W = tf.Variable(...)``, ``tf.get_variable``, inside ``variable_scope`` /
``name_scope`` blocks), in creation order, with their TF1 graph names and trainability. When
anything else in the file may create variables (a layer, a helper function calling
``get_variable``, a Keras model, a rebound name), the inventory says why it is incomplete and
the codemods decline rather than guess. ``listed_variables`` writes what a collection read at
one statement holds. One variable-making call is read by ``variable_calls.made_variable``.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping, Optional, Sequence, Union

import libcst as cst

from tfmodernize.analysis.program import resets_graph
from tfmodernize.analysis.project_facts import foreign_call, foreign_imports, imported_functions
from tfmodernize.analysis.tf1_api import VARIABLE_MAKERS, VARIABLE_SCOPES, NAME_SCOPES
from tfmodernize.analysis.variable_calls import Unknown, creates_opaque_variables, made_variable
from tfmodernize.names import bound_names, names_read
from tfmodernize.tfsymbols import TFNames
from tfmodernize.syntax import argument, calls_in, source
from tfmodernize.treewalk import walk


#: TF paths whose call creates the global step (never trainable).
GLOBAL_STEP_CALLS = ("train.get_or_create_global_step", "train.create_global_step")


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
    if not any(
        tf.tf_symbol(base.value) is not None and tf.tf_symbol(base.value).path == "Module" for base in definition.bases
    ):
        return False
    makers = {
        id(c): c
        for c in walk(definition.body, code_only=True)
        if isinstance(c, cst.Call) and creates_opaque_variables(c, tf)
    }
    init = next(
        (s for s in definition.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"), None
    )
    in_init = {id(c) for c in walk(init, code_only=True)} if init is not None else set()
    return bool(makers) and all(key in in_init for key in makers)


def variable_factories(module: cst.Module, tf: TFNames) -> dict[str, cst.Call]:
    """Module functions that return a new variable and make nothing else:
    ``def init_weights(shape): return tf.Variable(tf.random_normal(shape))`` -> that call."""
    found = {}
    for statement in module.body:
        if not isinstance(statement, cst.FunctionDef) or not isinstance(statement.body, cst.IndentedBlock):
            continue
        last = statement.body.body[-1] if statement.body.body else None
        returned = (
            last.body[0].value
            if isinstance(last, cst.SimpleStatementLine)
            and len(last.body) == 1
            and isinstance(last.body[0], cst.Return)
            else None
        )
        if not (isinstance(returned, cst.Call) and tf.is_tf(returned.func, *VARIABLE_MAKERS)):
            continue
        made = [call for call in calls_in(statement) if creates_opaque_variables(call, tf)]
        if made == [returned] and not any(
            isinstance(n, (cst.For, cst.While, cst.FunctionDef, cst.Lambda))
            for n in walk(statement.body, code_only=True)
        ):
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
                    if any(creates_opaque_variables(call, tf) for call in calls_in(small)):
                        unknown(
                            "something other than a plain `tf.Variable`/`get_variable` assignment creates variables"
                        )
                continue
            if isinstance(statement, cst.FunctionDef) and statement.name.value in factories:
                continue
            if isinstance(statement, cst.ClassDef) and statement.name.value in imported_objects:
                continue  # a class owning its variables: its objects are listed where they are made
            if any(creates_opaque_variables(call, tf) for call in calls_in(statement)):
                if isinstance(statement, cst.FunctionDef):
                    what = f"function `{statement.name.value}`"
                elif isinstance(statement, cst.ClassDef):
                    what = f"class `{statement.name.value}`"
                else:
                    what = "a compound statement"
                unknown(f"{what} creates variables; only the variables module-level statements make are listed")

    def _record(small: cst.BaseSmallStatement, index: int, var_scope: list[str], name_scope: list[str]) -> bool:
        """Record the variables an assignment makes: ``w = tf.Variable(...)``, a dict or list
        literal of them (``weights = {"h1": tf.Variable(...)}``, read as ``weights["h1"]``), or
        the result of a module function that returns a new variable (``w = init_weights(...)``)."""
        if not (
            isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name)
        ):
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
        return isinstance(call.func, cst.Name) and (
            call.func.value in factories or call.func.value in imported_factories
        )

    def _record_call(call: cst.Call, python_name: str, index: int, var_scope: list[str], name_scope: list[str]) -> bool:
        if isinstance(call.func, cst.Name) and call.func.value in imported_factories:
            # ``w = make_weight(...)``, a project module's function returning a new trainable variable.
            found.variables.append(ModuleVariable(python_name, None, True, index))
            recorded.add(id(call))
            return True
        if isinstance(call.func, (cst.Name, cst.Attribute)) and source(call.func) in imported_objects:
            # ``net = Network(...)``, a project class whose objects own their variables (``tf.Module``).
            found.variables.append(
                ModuleVariable(python_name, None, True, index, keras=True, built=source(call.func) in built_objects)
            )
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
        made = made_variable(call, tf)
        if made is None:
            return False
        if isinstance(made, Unknown):
            unknown(made.reason)
            return True
        if made.collections is not None:
            unknown("a variable with explicit `collections`")
            return True
        prefix = name_scope if made.maker == "Variable" else var_scope
        graph_name = None if made.name is None else "/".join([*prefix, made.name])
        zero_start = isinstance(made.initial_value, cst.Integer) and made.initial_value.evaluated_value == 0
        trainable = made.trainable
        found.variables.append(ModuleVariable(python_name, graph_name, trainable, index, zero_start=zero_start))
        return True

    factories = variable_factories(module, tf)
    imported = imported_functions(module, project)
    imported_factories = {local for local, function in imported.items() if function.facts.factory}
    imported_objects = {local for local, function in imported.items() if function.facts.object}
    built_objects = {local for local, function in imported.items() if function.facts.built}
    # This file's own classes whose objects own their variables (``tf.Module``, Keras layers).
    owners = [s for s in module.body if isinstance(s, cst.ClassDef) and owns_variables(s, tf)]
    imported_objects |= {s.name.value for s in owners}
    built_objects |= {s.name.value for s in owners if made_in_init(s, tf)}
    recorded: set[int] = set()  # the calls of imported factories recorded as variables
    for index, statement in enumerate(module.body):
        if resets_graph(statement, tf):
            found.resets.append(index)
        visit([statement], index, [], [])
        imported = foreign_call(statement, foreign, recorded)
        if imported is not None:
            unknown(f"a call to {imported} may create variables", at=index)
    # Where each name is bound (top-level statement indexes): read only when a variable was found.
    bindings: dict[str, list[int]] = {}
    for index, statement in enumerate(module.body if found.variables else ()):
        for name in bound_names(statement):
            bindings.setdefault(name, []).append(index)
    for variable in found.variables:
        bound = bindings.get(variable.binding, [])
        if len(bound) > 1:
            found.rebound.add(variable.binding)
            # Bound again for another graph (after a reset) is that graph's variable, and bound
            # before it was created (``w = 0.5`` before ``w = tf.Variable(...)``) is another value:
            # neither is a rebinding of the variable.
            later = [
                index
                for index in bound
                if index > variable.index and found.graph_of(index) == found.graph_of(variable.index)
            ]
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
        for index, statement in enumerate(module.body)
        if isinstance(statement, cst.SimpleStatementLine)
        for small in statement.body
        if isinstance(small, cst.Assign)
        and any(isinstance(t.target, cst.Name) and t.target.value == name for t in small.targets)
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
        if bound is None or not isinstance(
            bound[1], (cst.Call, cst.BinaryOperation, cst.UnaryOperation, cst.Subscript)
        ):
            continue
        reads_collection = any(
            tf.is_tf(call.func, "trainable_variables", "global_variables", "get_collection")
            for call in calls_in(bound[1])
        )
        if reads_collection or names_read(bound[1]) & variables:
            return name
    return None


def listed_variables(
    inventory: VariableInventory,
    top: int,
    trainable_only: bool,
    scope: Optional[cst.BaseExpression],
    *,
    eager: bool = False,
) -> Union[cst.BaseExpression, str]:
    """What TF1's variable collection read at module statement ``top`` holds, or why unknown.
    ``eager``: the list is evaluated where the read stood, at module level, where a Keras layer
    the program calls in its functions has no variables yet (it makes them on its first call)."""
    problem = inventory.problem_before(top)
    if problem is not None:
        return f"the file's variables cannot be listed ({problem})"
    variables = inventory.before(top, trainable_only=trainable_only)
    if eager and any(v.keras and not v.built for v in variables):
        return (
            "Keras layers make their variables on their first call, later than this line in TF2, so the list "
            "would be empty here; read `layer.trainable_variables` where the variables are used"
        )
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
WEIGHTLESS_LAYERS = frozenset(
    {
        "Flatten",
        "Dropout",
        "Reshape",
        "Activation",
        "ReLU",
        "Softmax",
        "Permute",
        "RepeatVector",
        *(f"{kind}Pooling{d}D" for kind in ("Max", "Average", "GlobalMax", "GlobalAverage") for d in (1, 2, 3)),
    }
)


def _weightless(call: cst.Call, tf: TFNames) -> bool:
    path = tf.keras_path(call.func) or ""
    return path.startswith("layers.") and path.rsplit(".", 1)[-1] in WEIGHTLESS_LAYERS


def variable_list(variables: Sequence[ModuleVariable], *, trainable_only: bool = True) -> cst.BaseExpression:
    """``[W, b]``; a Keras object contributes ``*model.trainable_variables`` (or ``.variables``)."""
    attribute = "trainable_variables" if trainable_only else "variables"
    if len(variables) == 1 and variables[0].keras:
        return cst.Attribute(cst.Name(variables[0].name), cst.Name(attribute))
    return cst.List(
        [
            cst.StarredElement(cst.Attribute(cst.Name(v.name), cst.Name(attribute)))
            if v.keras
            else cst.Element(cst.parse_expression(v.name))
            for v in variables
        ]
    )
