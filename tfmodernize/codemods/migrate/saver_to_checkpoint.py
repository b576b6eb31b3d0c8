"""TFM105 saver-to-checkpoint.

What it does
    Turns ``saver = tf.train.Saver()`` (or ``Saver([w, b])``) into
    ``saver = tf.train.Checkpoint(w=w, b=b)`` over the variables TF1's Saver saved (every
    variable created before it, or its ``var_list``; a dict ``Saver({"embeddings": table})``
    saves under its keys, ``tf.train.Checkpoint(embeddings=table)``), ``saver.save(sess, path)`` into
    ``saver.write(path)`` (same files at the same path, same returned path),
    ``saver.save(sess, path, global_step=step)`` into a ``tf.train.CheckpointManager`` over
    ``path``'s folder and name saving number ``step`` (same ``path-step`` files, same state file,
    TF1's ``max_to_keep`` rotation, so ``tf.train.latest_checkpoint`` finds it) and
    ``saver.restore(sess, path)`` into ``saver.read(path).assert_existing_objects_matched()``
    (every saved variable must be found, as TF1 required). A Saver made on a line of the
    function that trains and saves (``def train(): ... saver = tf.train.Saver()``), which the
    program's top-level code calls in one place (its ``__main__`` block), outside loops and
    ``with`` blocks, is migrated the same way when nothing in that function before it makes a
    variable: it saves the variables the top-level code made before that call.
    ``Saver(tf.global_variables())`` saves what ``Saver()`` saves. A ``tf.Module`` that makes
    its variables when it is made (``net = Net()``: network-function-to-module's and
    model-class-to-module's classes, or the program's own) is saved as the object
    (``tf.train.Checkpoint(net=net)``), and an optimizer whose slot variables TF1's Saver saved
    beside it (``opt = tf.train.AdamOptimizer(...)`` on a top-level line, or
    ``step = tf.train.AdamOptimizer(...).minimize(loss)``, written as ``optimizer = ...`` and
    ``step = optimizer.minimize(loss)``) too: ``tf.train.Checkpoint(w=w, optimizer=optimizer)``.
    Where the program restores, each saved ``tf.Variable`` gets the name TF1 gave it
    (``name="Variable_1"``, or the dict key it was saved under), so checkpoints the TF1 program
    wrote still restore. It runs before
    session-to-function, which then migrates the sessions as usual.

Why it matters
    ``tf.train.Saver`` needs a session and a graph: a program that saves or restores a model
    stays on ``tf.compat.v1``. TF2 checks points through ``tf.train.Checkpoint``.

Before
    W = tf.Variable(tf.zeros([3, 1]))
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, "model.ckpt")
        saver.restore(sess, path)

After
    W = tf.Variable(tf.zeros([3, 1]), name="Variable")
    saver = tf.train.Checkpoint(W=W)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.write("model.ckpt")
        saver.read(path).assert_existing_objects_matched()

Fix safety
    The same values are saved and restored. A checkpoint written by the TF1 program restores
    into the migrated one: TF2's ``Checkpoint.read`` reads TF1's name-based checkpoints by
    matching variable names, and TF2 names every unnamed variable ``Variable``, so the
    migration writes TF1's names out. TF2 writes object-based checkpoints (keys are the
    Checkpoint's attribute names, not graph names). A Saver made in a function the program
    runs once at most, whose lines before it make no variable (read through the module
    functions and classes it calls, and the project modules' summaries), saw in TF1's graph
    exactly the variables the top-level code made before the call. A module or an optimizer
    saved as an object saves every variable it tracks (the optimizer's slots once its first
    step made them, as TF1's did), under object keys; a program restoring them is declined.

Declines when
    the Saver is made in a function other than on a line of one the program's top-level code
    calls in one place outside loops and ``with`` blocks (a class's method, a function called
    by another function or twice), or that function may make variables before it; it takes
    arguments other than ``var_list`` (a list of names,
    or a dict of identifier strings to names, or ``tf.global_variables()``) or ``max_to_keep``, or
    would have saved the slot variables of an optimizer made otherwise than on a top-level line
    (``opt = ...`` bound once, or ``step = ....minimize(...)``); the program restores a
    ``tf.Module`` or an optimizer saved as an object (their variables do not carry TF1's names,
    so checkpoints the TF1 program wrote would not restore); a save passes options
    other than ``global_step``, or a numbered save's path is computed by a call (it is read
    twice, for the folder and the name); the program reads the checkpoint state
    (``latest_checkpoint``, ``get_checkpoint_state``) while a save is not numbered (TF2's
    ``write`` keeps no state file); the saver is used other than by ``save`` and ``restore``; a
    restored variable is made by a helper (its TF1 name cannot be written at its creation).
"""

from __future__ import annotations

import re
from typing import Optional, Sequence

import libcst as cst

from tfmodernize.analysis import module_variables
from tfmodernize.analysis.variables import may_make_variables, runs_at_most_once
from tfmodernize.names import fresh_name, used_names
from tfmodernize.syntax import top_level_index
from tfmodernize.codemod import Decline, TFCodemod
from tfmodernize.layout import depth, fitted, style_width
from tfmodernize.names import name_nodes, own_nodes
from tfmodernize.syntax import ancestors, argument, no_space_equal, source, statement_of
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import contains, walk

STATE_READERS = ("train.latest_checkpoint", "train.get_checkpoint_state", "train.checkpoint_exists")
# (TF2 keeps ``tf.train.latest_checkpoint`` and ``get_checkpoint_state``: they read the state file
# a CheckpointManager writes as TF1's Saver did.)
SAVER_KEYWORDS = ("var_list", "max_to_keep")
#: A ``var_list`` holding every variable, as ``Saver()`` saves them.
EVERY_VARIABLE = ("global_variables", "all_variables")


class SaverToCheckpoint(TFCodemod):
    __doc__ = __doc__
    code = "TFM105"
    name = "saver-to-checkpoint"
    summary = "tf.train.Saver save/restore -> tf.train.Checkpoint write/restore, TF1 checkpoints still restoring"
    needles = ("Saver",)
    interests = (cst.Call,)
    detects = ("train.Saver",)
    requires_tf2 = True
    #: Sessions passed to ``saver.save(sess, ...)`` must be gone before session-to-function reads them.
    runs_before = ("TFM101",)

    def plan(self, module: cst.Module) -> None:
        top = {id(n) for n in own_nodes(module) if isinstance(n, cst.SimpleStatementLine)}
        parents = self.state.parents(module)
        for call in [n for n in walk(module, code_only=True) if isinstance(n, cst.Call)]:
            if self.tf.is_tf(call.func, "train.Saver"):
                try:
                    self._migrate(module, call, top, parents)
                except Decline as decline:
                    self.declined(decline, "tf.train.Saver not migrated: ")

    def _migrate(self, module: cst.Module, call: cst.Call, top: set[int], parents: dict) -> None:
        name, statement = statement_of(call, parents) or (None, None)
        unit = None
        if name is not None and id(statement) not in top:
            unit = self._unit(module, statement, parents)
        if name is None or id(statement) not in top and unit is None:
            raise Decline(
                call,
                "it is not `saver = tf.train.Saver(...)` in the program's top-level code, or a line of "
                "a function its top-level code calls in one place, outside loops and `with` blocks",
            )
        if any(
            a.keyword is None and i > 0 or a.keyword is not None and a.keyword.value not in SAVER_KEYWORDS or a.star
            for i, a in enumerate(call.args)
        ):
            raise Decline(call, f"it takes arguments other than {' and '.join(SAVER_KEYWORDS)}")
        saves, restores = self._uses(unit[0] if unit else module, name, statement, parents)
        readers = [
            n for n in walk(module, code_only=True) if isinstance(n, cst.Call) and self.tf.is_tf(n.func, *STATE_READERS)
        ]
        if readers and any(argument(save, 2, "global_step") is None for save in saves):
            raise Decline(
                readers[0],
                f"the program reads the checkpoint state (`{source(readers[0].func)}`), which TF1's "
                "Saver kept and TF2's Checkpoint.write does not (a save without `global_step`)",
            )
        index = unit[1] if unit else top_level_index(module, statement)
        assert index is not None
        #: (statement, optimizer call, name) of each ``step = tf.train.X(...).minimize(loss)`` whose
        #: optimizer the Checkpoint saves: written as ``name = tf.train.X(...)`` + ``name.minimize``.
        self._splits: list[tuple[cst.SimpleStatementLine, cst.Call, str]] = []
        saved, saved_as = self._saved(module, call, index, unit[0] if unit else None)
        objects = [variable.name for variable in saved if variable.keras]
        if restores and objects:
            raise Decline(
                call,
                f"it saves {', '.join(f'`{name}`' for name in objects)} as objects (a tf.Module, an "
                "optimizer's slot variables), whose variables the migration does not give TF1's "
                "names: checkpoints the TF1 program wrote would not restore into them",
            )
        named = self._names_to_write(module, saved, saved_as) if restores else []
        if not self.fix(call, "tf.train.Saver -> tf.train.Checkpoint"):
            return
        for statement, made, optimizer in self._splits:
            self.replace(statement, lambda updated, name=optimizer: _split(updated, name))
        for variable_call, graph_name in named:
            self.replace(
                variable_call,
                lambda updated, graph_name=graph_name: updated.with_changes(
                    args=[
                        *updated.args[:-1],
                        updated.args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                        cst.Arg(cst.SimpleString(f'"{graph_name}"'), keyword=cst.Name("name"), equal=no_space_equal()),
                    ]
                ),
            )
        keys = saved_as or _keys([variable.name for variable in saved])
        checkpoint = cst.Call(
            self.tf_expr("train.Checkpoint"),
            [
                cst.Arg(
                    cst.parse_expression(variable.name),
                    keyword=cst.Name(key),
                    equal=no_space_equal(),
                    comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
                    if position < len(saved) - 1
                    else cst.MaybeSentinel.DEFAULT,
                )
                for position, (key, variable) in enumerate(zip(keys, saved))
            ],
        )
        self.replace(call, checkpoint)
        keep = _max_to_keep(argument(call, None, "max_to_keep"))
        for save in saves:
            if argument(save, 2, "global_step") is None:
                self.replace(
                    save,
                    lambda updated: updated.with_changes(
                        func=updated.func.with_changes(attr=cst.Name("write")),
                        args=[cst.Arg(argument(updated, 1, "save_path"))],
                    ),
                )
            else:
                self._numbered_save(save, name, keep, parents)
        for restore in restores:
            self.replace(
                restore,
                lambda updated: cst.Call(
                    cst.Attribute(
                        updated.with_changes(
                            func=updated.func.with_changes(attr=cst.Name("read")),
                            args=[cst.Arg(argument(updated, 1, "save_path"))],
                        ),
                        cst.Name("assert_existing_objects_matched"),
                    )
                ),
            )

    def _unit(
        self, module: cst.Module, line: cst.SimpleStatementLine, parents: dict
    ) -> Optional[tuple[cst.FunctionDef, int]]:
        """``(function, index)`` when ``line`` (``saver = tf.train.Saver()``) is a line of the body
        of a module function, outside any block, that the program's top-level statement
        ``module.body[index]`` calls itself, once at most (``train()`` in its ``__main__``
        block: ``runs_at_most_once``), and the lines of that function before it make no
        variable: the Saver then saves what the top-level code made before that statement.
        None otherwise."""
        block = parents.get(id(line))
        function = parents.get(id(block))
        if not (isinstance(function, cst.FunctionDef) and block is function.body):
            return None
        index = runs_at_most_once(function, module, parents, self.state.callers, self.tf)
        if index is None:
            return None
        # Its name (or, for ``tf.app.run()`` running ``main``, that call) in that statement itself.
        where = [n for n in name_nodes(module) if n.value == function.name.value and n is not function.name] or [
            c
            for c in walk(module.body[index], code_only=True)
            if isinstance(c, cst.Call) and "app.run" in source(c.func)
        ]
        if (
            not where
            or not contains(module.body[index], where[0])
            or any(isinstance(n, cst.FunctionDef) for n in ancestors(where[0], parents))
        ):
            return None  # run by another function: what that one makes first is not read here
        before = function.body.body[: function.body.body.index(line)]
        made = may_make_variables(before, module, self.tf, self.state.project)
        if made is not None:
            raise Decline(
                line,
                f"`{function.name.value}` may make variables ({made}) before its Saver: "
                "the variables it saves are read off the program's top-level code only",
            )
        return function, index

    def _uses(
        self, scope: cst.CSTNode, name: str, statement: cst.CSTNode, parents: dict
    ) -> tuple[list[cst.Call], list[cst.Call]]:
        """The ``name.save(sess, path)`` and ``name.restore(sess, path)`` calls in ``scope`` (the
        module, or the function holding the Saver); Decline for any other use."""
        saves, restores = [], []
        inside = {id(n) for n in walk(statement, code_only=True)}
        for node in name_nodes(scope):
            if node.value != name or id(node) in inside:
                continue
            attribute = parents.get(id(node))
            call = parents.get(id(attribute))
            if not (
                isinstance(attribute, cst.Attribute)
                and attribute.value is node
                and isinstance(call, cst.Call)
                and call.func is attribute
                and attribute.attr.value in ("save", "restore")
            ):
                raise Decline(
                    node, f"`{name}` is used other than by `{name}.save(sess, path)` and `{name}.restore(sess, path)`"
                )
            allowed = ("sess", "save_path", "global_step") if attribute.attr.value == "save" else ("sess", "save_path")
            if any(a.star or a.keyword is not None and a.keyword.value not in allowed for a in call.args) or len(
                call.args
            ) > len(allowed):
                raise Decline(
                    call,
                    f"`{name}.{attribute.attr.value}` passes options other than "
                    f"{' and '.join(allowed[1:])}, which this migration does not map",
                )
            if argument(call, 0, "sess") is None or argument(call, 1, "save_path") is None:
                raise Decline(call, f"`{name}.{attribute.attr.value}` is not called with a session and a path")
            if argument(call, 2, "global_step") is not None and not _pure(argument(call, 1, "save_path")):
                raise Decline(
                    call,
                    "a numbered save's path is not a name, a string or os.path.join of those: it is "
                    "split into the folder and the name of the checkpoint manager",
                )
            (saves if attribute.attr.value == "save" else restores).append(call)
        return saves, restores

    def _numbered_save(self, save: cst.Call, checkpoint: str, keep: str, parents: dict) -> None:
        """``saver.save(sess, path, global_step=step)`` -> a ``tf.train.CheckpointManager`` over
        the folder and name of ``path`` saving checkpoint number ``step``: the same ``path-step``
        files, the same ``checkpoint`` state file, the same rotation (a manager reads the state
        file when made, so one made at each save keeps TF1's ``max_to_keep`` count). A save on a
        line of its own is wrapped to the file's width."""
        path = source(argument(save, 1, "save_path"))
        step = source(argument(save, 2, "global_step"))
        manager = source(self.tf_expr("train.CheckpointManager"))
        self.add_import("os")
        self.replace(
            save,
            cst.parse_expression(
                f"{manager}({checkpoint}, os.path.dirname({path}) or os.curdir, max_to_keep={keep}, "
                f"checkpoint_name=os.path.basename({path})).save(checkpoint_number={step})"
            ),
        )
        line = statement_of(save, parents)
        if line is not None:
            deep, width = depth(line[1], parents), style_width(self.state.text)
            self.replace(line[1], lambda updated: fitted(updated, width, deep))

    def _saved(
        self, module: cst.Module, call: cst.Call, index: int, unit: Optional[cst.FunctionDef] = None
    ) -> tuple[list[module_variables.ModuleVariable], list[str]]:
        """The variables TF1's Saver saved, in creation order, and the names it saved them
        under when its ``var_list`` is a dict (``{"embeddings": embeddings}``; else empty: the
        graph names). ``index``: the top-level statement it is made on (or that runs ``unit``,
        the function it is made in)."""
        found = module_variables.inventory(module, self.tf, self.state.project)
        listed = argument(call, 0, "var_list")
        if isinstance(listed, cst.Call) and not listed.args and self.tf.is_tf(listed.func, *EVERY_VARIABLE):
            listed = None  # ``Saver(tf.global_variables())`` saves what ``Saver()`` saves
        if isinstance(listed, cst.Dict):
            return self._saved_as(listed, found)
        return self._listed(module, call, index, found, listed, unit), []

    def _saved_as(
        self, listed: cst.Dict, found: module_variables.VariableInventory
    ) -> tuple[list[module_variables.ModuleVariable], list[str]]:
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
        return saved, keys

    def _listed(
        self,
        module: cst.Module,
        call: cst.Call,
        index: int,
        found: module_variables.VariableInventory,
        listed: Optional[cst.BaseExpression],
        unit: Optional[cst.FunctionDef] = None,
    ) -> list[module_variables.ModuleVariable]:
        if listed is not None:
            if not isinstance(listed, (cst.List, cst.Tuple)) or not all(
                isinstance(e.value, cst.Name) for e in listed.elements
            ):
                raise Decline(call, "its var_list is not a list of variable names")
            saved = []
            for element in listed.elements:
                variable = found.variable(element.value.value)
                if variable is None:
                    raise Decline(
                        element, f"`{element.value.value}` is not a variable created at the program's top level"
                    )
                saved.append(variable)
            return saved
        problem = found.problem_before(index)
        if problem is not None:
            raise Decline(call, f"it saves every variable and the program's variables cannot be listed ({problem})")
        saved = found.before(index, trainable_only=False)
        if not saved:
            raise Decline(call, "no variable is created before it (TF1 raises 'No variables to save')")
        if any(v.keras and not v.built for v in saved):
            raise Decline(call, "it saves a Keras layer's or model's variables: checkpoint the layer itself")
        for node in walk(module, code_only=True):
            symbol = self.tf.tf_symbol(node.func) if isinstance(node, cst.Call) else None
            if (
                symbol is not None
                and re.fullmatch(r"train\.\w+Optimizer", symbol.path)
                and symbol.path != "train.GradientDescentOptimizer"
                and self._runs_before(module, node, index, call, unit)
            ):
                saved.append(self._optimizer(module, node, symbol.path, unit))
        return saved

    def _optimizer(
        self,
        module: cst.Module,
        made: cst.Call,
        path: str,
        unit: Optional[cst.FunctionDef],
    ) -> module_variables.ModuleVariable:
        """The optimizer whose slot variables TF1's ``Saver()`` saved, checkpointed as an object
        beside the model: ``optimizer = tf.train.AdamOptimizer(...)`` on a line of the program's
        top-level code, bound once, or ``step = tf.train.AdamOptimizer(...).minimize(loss)``,
        which ``_split`` writes as those two lines. Decline for any other."""
        why = (
            f"TF1's Saver() also saved the slot variables of `tf.{path}`, which is not made on a "
            "line of the program's top-level code as `optimizer = ...` or `step = ....minimize(...)`"
            ": pass var_list, or checkpoint the optimizer after the migration"
        )
        parents = self.state.parents(module)
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
            name = fresh_name("optimizer", used_names(module) | {split[2] for split in self._splits})
            self._splits.append((statement, made, name))
        elif sum(1 for n in name_nodes(module) if n.value == name and _bound_here(n, parents)) != 1:
            raise Decline(made, f"`{name}` is bound more than once: {why}")
        return module_variables.ModuleVariable(
            name, None, False, top_level_index(module, statement), keras=True, built=True
        )

    def _runs_before(
        self, module: cst.Module, node: cst.CSTNode, index: int, saver: cst.Call, unit: Optional[cst.FunctionDef]
    ) -> bool:
        """Whether ``node`` may run before the Saver ``saver``, made on top-level statement
        ``index`` or in ``unit``, a function that statement runs (there: on a line before it)."""
        if unit is not None and contains(unit, node):
            lines = unit.body.body
            return any(contains(line, node) for line in lines[: _line_of(lines, saver)])
        return (top_level_index(module, node) or 0) < index

    def _names_to_write(
        self, module: cst.Module, saved: list[module_variables.ModuleVariable], saved_as: list[str]
    ) -> list[tuple[cst.Call, str]]:
        """(``tf.Variable`` call without a name, the name TF1 saved it under: its graph name, or
        its key in a dict ``var_list``) for each saved variable."""
        found = []
        for position, variable in enumerate(saved):
            call = _creation(module.body[variable.index], variable.name, self.tf)
            if call is None:
                raise Decline(
                    module.body[variable.index],
                    f"`{variable.name}` is not made by a `tf.Variable(...)` assigned "
                    "to it here: TF1's name cannot be written where it is created, so "
                    "checkpoints the TF1 program wrote would not restore into it",
                )
            given = argument(call, None, "name")
            if saved_as:
                if given is not None and not (
                    isinstance(given, cst.SimpleString) and given.evaluated_value == saved_as[position]
                ):
                    raise Decline(
                        call,
                        f"`{variable.name}` is named otherwise than the key TF1 saved it under "
                        f"(`{saved_as[position]}`): checkpoints the TF1 program wrote would not restore into it",
                    )
                if given is None:
                    found.append((call, saved_as[position]))
                continue
            if given is not None:
                continue
            if variable.graph_name is None:
                raise Decline(call, f"the TF1 name of `{variable.name}` is not known")
            found.append((call, variable.graph_name))
        return found


def _bound_here(name: cst.Name, parents: dict) -> bool:
    """Whether ``name`` is an assignment's target (``name = ...``)."""
    return isinstance(parents.get(id(name)), cst.AssignTarget)


def _split(line: cst.SimpleStatementLine, name: str) -> cst.FlattenSentinel:
    """``step = tf.train.AdamOptimizer(rate).minimize(loss)`` -> ``name = tf.train.AdamOptimizer(rate)``
    and ``step = name.minimize(loss)``: the optimizer gets a name the Checkpoint can hold."""
    assign = line.body[0]
    minimize = assign.value
    made = cst.SimpleStatementLine(
        [cst.Assign([cst.AssignTarget(cst.Name(name))], minimize.func.value)], leading_lines=line.leading_lines
    )
    step = assign.with_changes(value=minimize.with_changes(func=minimize.func.with_changes(value=cst.Name(name))))
    return cst.FlattenSentinel([made, line.with_changes(leading_lines=[], body=[step])])


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


def _line_of(lines: Sequence[cst.BaseStatement], node: cst.CSTNode) -> int:
    """The position of the line of ``lines`` holding ``node``."""
    return next(position for position, line in enumerate(lines) if line is node or contains(line, node))


def _keys(names: list[str]) -> list[str]:
    """Checkpoint attribute names for the saved variables: their Python names, as identifiers."""
    taken: set[str] = set()
    return [fresh_name(re.sub(r"\W+", "_", name).strip("_") or "variable", taken) for name in names]


def _max_to_keep(value: Optional[cst.BaseExpression]) -> str:
    """TF1's ``max_to_keep`` as the manager takes it: 5 by default, None (keep all) for None or 0."""
    if value is None:
        return "5"
    if isinstance(value, cst.Integer) and value.evaluated_value == 0:
        return "None"
    return source(value)


def _pure(path: Optional[cst.BaseExpression]) -> bool:
    """A path expression that may be evaluated twice: names, strings, ``os.path.join`` of them."""
    if isinstance(path, (cst.Name, cst.SimpleString, cst.Attribute)):
        return True
    return (
        isinstance(path, cst.Call)
        and source(path.func) == "os.path.join"
        and all(not a.star and a.keyword is None and _pure(a.value) for a in path.args)
    )
