"""What TF1's Saver saved (``saved_variables``): the variables created before it or its
``var_list``, the optimizer whose slot variables it saved beside them, and the TF1 names a
restoring program must write at their creation (``names_to_write``)."""

from __future__ import annotations

import re
from typing import Optional, Sequence

import libcst as cst

from tfmodernize.analysis import module_variables
from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.saver_to_checkpoint.plan import Saved, SaverFile, Split
from tfmodernize.names import fresh_name, name_nodes, used_names
from tfmodernize.syntax import argument, source, statement_of, top_level_index
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import contains, walk

#: A ``var_list`` holding every variable, as ``Saver()`` saves them.
EVERY_VARIABLE = ("global_variables", "all_variables")


def saved_variables(file: SaverFile, call: cst.Call, index: int, unit: Optional[cst.FunctionDef] = None) -> Saved:
    """What the Saver ``call`` saved. ``index``: the top-level statement it is made on (or that
    runs ``unit``, the function it is made in)."""
    found = module_variables.inventory(file.module, file.tf, file.project)
    listed = argument(call, 0, "var_list")
    if isinstance(listed, cst.Call) and not listed.args and file.tf.is_tf(listed.func, *EVERY_VARIABLE):
        listed = None  # ``Saver(tf.global_variables())`` saves what ``Saver()`` saves
    if isinstance(listed, cst.Dict):
        return _saved_as(listed, found)
    if listed is not None:
        return Saved(_listed(call, found, listed))
    return _every_variable(file, call, index, found, unit)


def _saved_as(listed: cst.Dict, found: module_variables.VariableInventory) -> Saved:
    """A dict ``var_list``: each variable under its key, which is the Checkpoint's attribute."""
    saved, keys = [], []
    for element in listed.elements:
        key = element.key if isinstance(element, cst.DictElement) else None
        if not (
            isinstance(key, cst.SimpleString)
            and isinstance(key.evaluated_value, str)
            and key.evaluated_value.isidentifier()
            and isinstance(element.value, cst.Name)
        ):
            raise Decline(listed, "its var_list is not a dict of identifier strings to variable names")
        variable = found.variable(element.value.value)
        if variable is None:
            raise Decline(element, f"`{element.value.value}` is not a variable created at the program's top level")
        if key.evaluated_value in keys:
            raise Decline(element, f"its var_list saves two variables as `{key.evaluated_value}`")
        saved.append(variable)
        keys.append(key.evaluated_value)
    return Saved(saved, keys)


def _listed(
    call: cst.Call, found: module_variables.VariableInventory, listed: cst.BaseExpression
) -> list[module_variables.ModuleVariable]:
    """A list ``var_list`` of variable names: those variables."""
    if not isinstance(listed, (cst.List, cst.Tuple)) or not all(isinstance(e.value, cst.Name) for e in listed.elements):
        raise Decline(call, "its var_list is not a list of variable names")
    saved = []
    for element in listed.elements:
        variable = found.variable(element.value.value)
        if variable is None:
            raise Decline(element, f"`{element.value.value}` is not a variable created at the program's top level")
        saved.append(variable)
    return saved


def _every_variable(
    file: SaverFile,
    call: cst.Call,
    index: int,
    found: module_variables.VariableInventory,
    unit: Optional[cst.FunctionDef],
) -> Saved:
    """``Saver()``: every variable created before it, and the optimizers made before it, whose
    slot variables it saved too."""
    problem = found.problem_before(index)
    if problem is not None:
        raise Decline(call, f"it saves every variable and the program's variables cannot be listed ({problem})")
    saved = Saved(found.before(index, trainable_only=False))
    if not saved.variables:
        raise Decline(call, "no variable is created before it (TF1 raises 'No variables to save')")
    if any(v.keras and not v.built for v in saved.variables):
        raise Decline(call, "it saves a Keras layer's or model's variables: checkpoint the layer itself")
    for node in walk(file.module, code_only=True):
        symbol = file.tf.tf_symbol(node.func) if isinstance(node, cst.Call) else None
        if (
            symbol is not None
            and re.fullmatch(r"train\.\w+Optimizer", symbol.path)
            and symbol.path != "train.GradientDescentOptimizer"
            and _runs_before(file.module, node, index, call, unit)
        ):
            saved.variables.append(_optimizer(file, node, symbol.path, unit, saved.splits))
    return saved


def _optimizer(
    file: SaverFile, made: cst.Call, path: str, unit: Optional[cst.FunctionDef], splits: list[Split]
) -> module_variables.ModuleVariable:
    """The optimizer whose slot variables TF1's ``Saver()`` saved, checkpointed as an object
    beside the model: ``optimizer = tf.train.AdamOptimizer(...)`` on a line of the program's
    top-level code, bound once, or ``step = tf.train.AdamOptimizer(...).minimize(loss)``,
    which is written as those two lines (a ``Split`` added to ``splits``). Decline for any
    other."""
    why = (
        f"TF1's Saver() also saved the slot variables of `tf.{path}`, which is not made on a "
        "line of the program's top-level code as `optimizer = ...` or `step = ....minimize(...)`"
        ": pass var_list, or checkpoint the optimizer after the migration"
    )
    module, parents = file.module, file.parents
    attribute = parents.get(id(made))
    minimize = parents.get(id(attribute))
    if (
        isinstance(attribute, cst.Attribute)
        and attribute.value is made
        and attribute.attr.value == "minimize"
        and isinstance(minimize, cst.Call)
        and minimize.func is attribute
    ):
        line = statement_of(minimize, parents)  # ``step = tf.train.X(...).minimize(loss)``
    else:
        line = statement_of(made, parents)  # ``optimizer = tf.train.X(...)``
        minimize = None
    if unit is not None or line is None or line[0] is None or top_level_index(module, line[1]) is None:
        raise Decline(made, why)
    name, statement = line
    if minimize is not None:
        name = fresh_name("optimizer", used_names(module) | {split.name for split in splits})
        splits.append(Split(statement, made, name))
    elif (
        sum(1 for n in name_nodes(module) if n.value == name and isinstance(parents.get(id(n)), cst.AssignTarget)) != 1
    ):
        raise Decline(made, f"`{name}` is bound more than once: {why}")
    return module_variables.ModuleVariable(
        name, None, False, top_level_index(module, statement), keras=True, built=True
    )


def _runs_before(
    module: cst.Module, node: cst.CSTNode, index: int, saver: cst.Call, unit: Optional[cst.FunctionDef]
) -> bool:
    """Whether ``node`` may run before the Saver ``saver``, made on top-level statement
    ``index`` or in ``unit``, a function that statement runs (there: on a line before it)."""
    if unit is not None and contains(unit, node):
        lines = unit.body.body
        return any(contains(line, node) for line in lines[: _line_of(lines, saver)])
    return (top_level_index(module, node) or 0) < index


def _line_of(lines: Sequence[cst.BaseStatement], node: cst.CSTNode) -> int:
    """The position of the line of ``lines`` holding ``node``."""
    return next(position for position, line in enumerate(lines) if line is node or contains(line, node))


def names_to_write(module: cst.Module, tf: TFNames, saved: Saved) -> list[tuple[cst.Call, str]]:
    """(``tf.Variable`` call without a name, the name TF1 saved it under: its graph name, or
    its key in a dict ``var_list``) for each saved variable."""
    found = []
    for position, variable in enumerate(saved.variables):
        call = _creation(module.body[variable.index], variable.name, tf)
        if call is None:
            raise Decline(
                module.body[variable.index],
                f"`{variable.name}` is not made by a `tf.Variable(...)` assigned "
                "to it here: TF1's name cannot be written where it is created, so "
                "checkpoints the TF1 program wrote would not restore into it",
            )
        given = argument(call, None, "name")
        if saved.keys:
            key = saved.keys[position]
            if given is not None and not (isinstance(given, cst.SimpleString) and given.evaluated_value == key):
                raise Decline(
                    call,
                    f"`{variable.name}` is named otherwise than the key TF1 saved it under "
                    f"(`{key}`): checkpoints the TF1 program wrote would not restore into it",
                )
            if given is None:
                found.append((call, key))
            continue
        if given is not None:
            continue
        if variable.graph_name is None:
            raise Decline(call, f"the TF1 name of `{variable.name}` is not known")
        found.append((call, variable.graph_name))
    return found


def _creation(statement: cst.CSTNode, name: str, tf: TFNames) -> Optional[cst.Call]:
    """The ``tf.Variable(...)`` call ``statement`` binds to ``name`` (``W`` or ``weights['h1']``)."""
    for node in walk(statement, code_only=True):
        if not isinstance(node, cst.Assign) or len(node.targets) != 1:
            continue
        target = source(node.targets[0].target)
        if target == name and isinstance(node.value, cst.Call) and tf.is_tf(node.value.func, "Variable"):
            return node.value
        if isinstance(node.value, cst.Dict) and name.startswith(target + "["):
            for element in node.value.elements:
                key = (
                    repr(element.key.evaluated_value)
                    if isinstance(getattr(element, "key", None), cst.SimpleString)
                    else None
                )
                if (
                    isinstance(element, cst.DictElement)
                    and key is not None
                    and f"{target}[{key}]" == name
                    and isinstance(element.value, cst.Call)
                    and tf.is_tf(element.value.func, "Variable")
                ):
                    return element.value
    return None
