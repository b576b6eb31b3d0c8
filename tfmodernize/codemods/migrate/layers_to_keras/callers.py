"""Layers-to-keras in a file calling a project module's network functions that the module's
rewrite made classes (``modules``): an object made per call (before the statement, or before
the definition of the function the program calls once holding the calls), called where the
function was; imports renamed to the classes, or moved to the top of the file when the
function imports them itself. ``ProjectCallers`` reads the file's ``FilePlan``, records its
edits with the ``Editor`` it is given, and keeps what it has done (the objects made, the
imports renamed or moved)."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tfmodernize.names import fresh_name
from tfmodernize.treewalk import contains
from tfmodernize.analysis.tf1_api import VARIABLE_MAKERS
from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.layers_to_keras import modules
from tfmodernize.codemods.migrate.layers_to_keras.plan import FilePlan
from tfmodernize.codemods.migrate.layers_to_keras.rewrites import Editor, make_before
from tfmodernize.codemods.migrate.layers_to_keras.shapes import (
    KnownShapes,
    result_element,
)
from tfmodernize.codemods.migrate.layers_to_keras.training_batch_norm import (
    statistics_reader,
)
from tfmodernize.imports import drop_aliases
from tfmodernize.names import (
    SCOPE_PARAMETERS,
    local_names,
    name_nodes,
    object_name,
    parameter_names,
    scope_string,
)
from tfmodernize.syntax import source, statement_holding
from tfmodernize.treewalk import walk


class ProjectCallers:
    """Calls of project modules' network classes (and of this file's functions made classes)
    in one file."""

    def __init__(self, plan: FilePlan, editor: Editor) -> None:
        self.plan, self.editor = plan, editor
        self._shapes: Optional[KnownShapes] = None  # made when a call of a network class needs it
        self._renamed: set[int] = set()  # the import aliases renamed to the class they name now
        self._freed: set[str] = set()  # the functions whose names the classes' imports freed
        #: Imports in a function's body whose classes are imported at the top instead -> their
        #: aliases that go.
        self._moved_imports: dict[int, tuple[cst.ImportFrom, set[int]]] = {}
        #: The class of a project module's network function -> the last object made for it here.
        self._instances: dict[str, str] = {}
        #: A function called here -> how many of its calls make an object (share no variables).
        self._making: dict[str, int] = {}

    def call_splits(self, statement: cst.BaseStatement, splits: dict, taken: set[str], keeps_lines: bool) -> None:
        """Calls of a project module's network function that became a class: an object made
        before the statement, called where the function was (one object per call, as TF1 made
        a network per call). The objects take the statement's blank lines and comments unless
        ``keeps_lines`` (its own layers are made before it too, and take them)."""
        made: list[cst.SimpleStatementLine] = []
        calls = [
            n
            for n in walk(statement, code_only=True)
            if isinstance(n, cst.Call) and isinstance(n.func, (cst.Name, cst.Attribute)) and source(n.func) in splits
        ]
        # All in ``main()``, called once, outside its loops: the objects are made before its
        # definition.
        unit = self.plan.networks.unit_of(calls) if calls and isinstance(statement, cst.FunctionDef) else None
        for call in calls:
            called = source(call.func)
            imported = splits[called]
            alias, split = imported.alias, imported.split
            # ``from ops import fc_layer`` (or ``*``): the import names the class ``FcLayer`` now,
            # and so do the calls, unless the import gives it a name of its own (``as``).
            renamed = (
                isinstance(call.func, cst.Name)
                and split["class"] != call.func.value
                and (alias is None or alias.asname is None)
            )
            try:
                if not isinstance(statement, cst.SimpleStatementLine) and unit is None:
                    raise Decline(
                        call,
                        "it is called inside a block or a definition (other than a function the "
                        "program calls once, outside its loops)",
                    )
                if split.get("statistics"):
                    reader = statistics_reader(self.plan.module, self.plan.tf)
                    if reader is not None:
                        raise Decline(
                            call,
                            f"this file reads {reader}, which would read the moving mean and variance "
                            "TF1 made for its batch normalisation; the class does not make them "
                            "(training mode never reads them)",
                        )
                if split.get("lazy"):
                    self._first_call_makes_in_order(call, splits, local=called in self.plan.local_splits)
                if imported.holder is not None and (unit is None or unit is not imported.holder):
                    raise Decline(
                        call,
                        f"it is imported inside `{imported.holder.name.value}`, and called "
                        "elsewhere than in that function's own lines",
                    )
                if unit is not None and call is calls[0]:
                    self.plan.networks.before_unit(unit, statement_holding(call, self.plan.parents), called)
                if isinstance(call.func, cst.Attribute):  # ``ops.RNN(...)``: ``ops.RNN`` names the class
                    maker = call.func.with_changes(attr=cst.Name(split["class"]))
                else:
                    maker = cst.Name(split["class"] if renamed else called)
                bare, shares = modules.without_reuse(call, split)
                given = {name: value for name, (value, _) in modules.passed(bare, split).items()}
                construction, _ = modules.split_call(
                    bare, split, maker, input_dimensions(call, split, given, self._known_shapes())
                )
                inner = (
                    (local_names(unit) | set(parameter_names(unit))) & {n.value for n in name_nodes(construction)}
                    if unit is not None and not shares
                    else set()
                )
                if inner:
                    raise Decline(
                        call,
                        f"the object it becomes is made before `{unit.name.value}`, and its arguments "
                        f"read `{sorted(inner)[0]}`, which `{unit.name.value}` binds",
                    )
                if shares and split["class"] not in self._instances:
                    raise Decline(
                        call,
                        "it shares the variables (`reuse=True`) of no call before it in this file's top-level code",
                    )
            except Decline as decline:
                self.editor.declined(decline, f"call of `{called}` (a class now) not migrated: ")
                continue
            if not self.editor.fix(
                call,
                f"`{called}` became a class in its module -> "
                + (
                    "the object the call before it made (it shared that call's variables), called where the function "
                    "was"
                    if shares
                    else "an object made once here, called where the function was"
                ),
            ):
                continue
            if renamed and called not in self._freed:
                self._freed.add(called)
                taken.discard(called)  # the import names the class now: the function's name is free (once)
            elif (
                isinstance(alias, cst.ImportAlias)
                and isinstance(call.func, cst.Name)
                and sum(1 for n in name_nodes(self.plan.module) if n.value == source(alias.name)) == 1
            ):
                taken.discard(source(alias.name))  # ``from m import f as g``: ``f`` was only the import's
            targets = _bound_by(statement, call)
            if targets is not None:
                self._known_shapes().noted(targets, split, given)
            if shares:
                instance = self._instances[split["class"]]
            else:
                instance = self._object_name(call, called, split, given, taken)
                self._instances[split["class"]] = instance
                made.append(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(instance))], construction)]))
            if targets is not None:
                self._read_as_attributes(targets, split, instance, statement)
            self.editor.replace(
                call,
                lambda updated, instance=instance, split=split: cst.Call(
                    cst.Name(instance),
                    modules.split_call(modules.without_reuse(updated, split)[0], split, cst.Name(instance))[1],
                ),
            )
            if imported.statement is not None and id(alias) not in self._renamed:
                # Imported inside ``main()``: the objects are made before its definition, so the
                # class is imported at the top of the file, and the function's import goes.
                self._renamed.add(id(alias))
                self.editor.add_import(
                    source(imported.statement.module),
                    split["class"],
                    asname=source(alias.asname.name) if alias.asname else None,
                )
                self._moved_imports.setdefault(id(imported.statement), (imported.statement, set()))[1].add(id(alias))
            elif (
                isinstance(call.func, cst.Name)
                and alias is not None
                and id(alias) not in self._renamed
                and split["class"] != source(alias.name)
            ):
                self._renamed.add(id(alias))
                self.editor.replace(
                    alias,
                    lambda updated, name=split["class"]: updated.with_changes(name=cst.Name(name)),
                )
        if not made:
            return
        if keeps_lines:
            self.editor.insert_before(statement, made)
        else:
            make_before(self.editor, statement, made)

    def _first_call_makes_in_order(self, call: cst.Call, splits: dict, local: bool) -> None:
        """Declines a call of a class making its variables on its first call (``lazy``), in a
        trace, where the file makes variables ahead of that trace that TF1 made after it: its own
        (``tf.get_variable``, a layer: any; for a class of this file, ``lazy_split`` checked
        them), or an object of a class making them when made, called after this call."""
        maker = None if local else variable_maker(self.plan, set())
        if maker is not None:
            raise Decline(
                call,
                f"its class makes its variables on its first call, in a trace, and this file makes "
                f"variables too (`{source(maker.func)}`), ahead of that trace: their initial values "
                "would be drawn in another order than TF1's",
            )
        after = False
        for node in walk(self.plan.module, code_only=True):
            if node is call:
                after = True
            elif (
                after
                and isinstance(node, cst.Call)
                and isinstance(node.func, (cst.Name, cst.Attribute))
                and source(node.func) in splits
                and not splits[source(node.func)].split.get("lazy")
            ):
                raise Decline(
                    call,
                    f"its class makes its variables on its first call, in a trace, and `{source(node.func)}`, "
                    "called after it, becomes an object making its variables when made, ahead of that "
                    "trace: their initial values would be drawn in another order than TF1's",
                )

    def _object_name(self, call: cst.Call, called: str, split: dict, given: dict, taken: set) -> str:
        """The object ``call`` makes: the class's name in snake case (``fc_layer``) when the file
        makes one; for several, named after the scope string the call passes (``"Hidden_layer"``
        -> ``hidden_layer``), else after what its line binds (``out = fc_layer(...)`` ->
        ``out_layer``), as network-function-to-module names its objects; numbered if taken."""
        function = modules.instance_name(split["class"])
        if called not in self._making:
            self._making[called] = sum(
                1
                for n in walk(self.plan.module, code_only=True)
                if isinstance(n, cst.Call) and source(n.func) == called and not _shares(n, split)
            )
        if self._making[called] > 1:
            line = statement_holding(call, self.plan.parents)
            strings = [scope_string(v) for k, v in given.items() if k in SCOPE_PARAMETERS]
            label = next((string for string in strings if string is not None), None)
            by_label = object_name(function, line, label) if label else None
            alone = sum(1 for n in walk(line) if isinstance(n, cst.Call) and source(n.func) == called) == 1
            by_target = object_name(function, line) if alone else None  # (one line, one name)
            for wanted in (by_label, by_target):
                if wanted is not None and wanted not in taken:
                    taken.add(wanted)
                    return wanted
        return fresh_name(function, taken)

    def _read_as_attributes(
        self,
        targets: cst.BaseAssignTargetExpression,
        split: dict,
        instance: str,
        statement: cst.BaseStatement,
    ) -> None:
        """The names a call binds to the object's own variables (``fc1, W1 = fc_layer(...)``,
        the module exporting that ``W1`` is ``self.w``) are read as the object's attribute
        (``fc_layer.w``) after the statement: the variable, which TF1 ran without any input,
        not a result of the call."""
        for index, attribute in split.get("variables") or ():
            target = result_element(targets, index)
            if target is None or not self._known_shapes().bound_once(target.value):
                continue
            for use in name_nodes(self.plan.module):
                if use.value == target.value and use is not target and not contains(statement, use):
                    self.editor.replace(
                        use,
                        lambda updated, attribute=attribute: cst.Attribute(cst.Name(instance), cst.Name(attribute)),
                    )

    def _known_shapes(self) -> KnownShapes:
        """What this file knows of its tensors' shapes (read once, when first needed)."""
        if self._shapes is None:
            self._shapes = KnownShapes(self.plan.module, self.plan.tf)
        return self._shapes

    def drop_moved_imports(self) -> None:
        """The imports of the classes moved to the top of the file go from the functions."""
        for statement, gone in self._moved_imports.values():
            self._drop_moved_import(statement, gone)

    def _drop_moved_import(self, statement: cst.ImportFrom, gone: set[int]) -> None:
        """A function's ``from M import f, g`` without the aliases whose classes are imported at
        the top now; when none is left, its line goes, its comments going to the next line."""
        line = self.plan.parents.get(id(statement))
        block = self.plan.parents.get(id(line))
        if (
            any(id(alias) not in gone for alias in statement.names)
            or not isinstance(block, cst.IndentedBlock)
            or len(line.body) != 1
        ):
            drop_aliases(self.editor.edits, statement, lambda alias: id(alias) in gone)
            return
        index = next(i for i, s in enumerate(block.body) if s is line)
        comments = [empty for empty in line.leading_lines if empty.comment is not None]
        if comments and index + 1 < len(block.body):
            self.editor.replace(
                block.body[index + 1],
                lambda updated: updated.with_changes(leading_lines=[*line.leading_lines, *updated.leading_lines]),
            )
        self.editor.remove(line)


def variable_maker(plan: FilePlan, inside: set[int]) -> Optional[cst.Call]:
    """The first call of the file making variables or a layer (``tf.get_variable``,
    ``tf.Variable``, ``tf.layers.dense``) outside the nodes ``inside``, if any."""
    for call in walk(plan.module, code_only=True):
        symbol = plan.tf.tf_symbol(call.func) if isinstance(call, cst.Call) else None
        if (
            symbol is not None
            and (symbol.path in VARIABLE_MAKERS or symbol.path.startswith(("layers.", "keras.layers.")))
            and id(call) not in inside
        ):
            return call
    return None


def _shares(call: cst.Call, split: dict) -> bool:
    """Whether ``call`` shares the variables of an earlier call (``reuse=True``)."""
    try:
        return modules.without_reuse(call, split)[1]
    except Decline:
        return False


def local_calls(plan: FilePlan, function: cst.FunctionDef, split: dict) -> None:
    """Declines a network function of this file becoming a class when one of its calls
    could not follow (``ProjectCallers.call_splits`` would decline it, leaving a call of a
    function that is gone): what it passes, and the widths of its inputs."""
    shapes = KnownShapes(plan.module, plan.tf)
    for call in (
        n
        for n in walk(plan.module, code_only=True)
        if isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == function.name.value
    ):
        given = {name: value for name, (value, _) in modules.passed(call, split).items()}
        input_dimensions(call, split, given, shapes)
        targets = _bound_by(statement_holding(call, plan.parents), call)
        if targets is not None:
            shapes.noted(targets, split, given)


class UnknownWidth(Decline):
    """A call of a network class whose input's dimension, which the class makes its variables
    from, the file does not know."""


def widths_known(plan: FilePlan, function: cst.FunctionDef, split: dict) -> bool:
    """Whether the file knows, at each call of its network function ``function``, the
    dimensions of the inputs ``split`` makes its variables from (``local_calls`` passes)."""
    try:
        local_calls(plan, function, split)
    except UnknownWidth:
        return False
    return True


def input_dimensions(call: cst.Call, split: dict, given: dict, shapes: KnownShapes) -> dict[str, cst.BaseExpression]:
    """What the object's ``__init__`` takes as dimensions of the call's inputs
    (``Split.derived``: ``in_dim`` of ``x.get_shape()[1]``), from what the file knows of what
    it passes (``shapes``); declines what it does not know."""
    found = {}
    for name, (parameter, axis) in (split.get("derived") or {}).items():
        value = given.get(parameter)
        dimension = shapes.dimension(value, axis) if value is not None else None
        if dimension is None:
            raise UnknownWidth(
                call,
                f"its class makes its variables from dimension {axis} of `{parameter}`, and that of "
                f"`{source(value) if value is not None else parameter}` is not known here (a "
                "placeholder declared with a shape written out, or a result of an earlier call "
                "whose width its module exports)",
            )
        found[name] = dimension
    return found


def _bound_by(statement: cst.CSTNode, call: cst.Call) -> "cst.BaseAssignTargetExpression | None":
    """The targets of ``statement`` when it is ``targets = call`` alone."""
    small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 else None
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and small.value is call:
        return small.targets[0].target
    return None
