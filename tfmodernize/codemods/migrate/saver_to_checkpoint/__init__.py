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

import libcst as cst

from tfmodernize.codemod import Decline, TFCodemod
from tfmodernize.codemods.migrate.saver_to_checkpoint import writing
from tfmodernize.codemods.migrate.saver_to_checkpoint.plan import SaverFile
from tfmodernize.codemods.migrate.saver_to_checkpoint.saved import names_to_write, saved_variables
from tfmodernize.codemods.migrate.saver_to_checkpoint.uses import saver_function, saver_uses
from tfmodernize.layout import depth, fitted, style_width
from tfmodernize.names import own_nodes
from tfmodernize.syntax import argument, source, statement_of, top_level_index
from tfmodernize.treewalk import walk

STATE_READERS = ("train.latest_checkpoint", "train.get_checkpoint_state", "train.checkpoint_exists")
# (TF2 keeps ``tf.train.latest_checkpoint`` and ``get_checkpoint_state``: they read the state file
# a CheckpointManager writes as TF1's Saver did.)
SAVER_KEYWORDS = ("var_list", "max_to_keep")


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
        file = SaverFile(module, self.tf, self.state.parents(module), self.state.project, self.state.callers)
        for call in [n for n in walk(module, code_only=True) if isinstance(n, cst.Call)]:
            if self.tf.is_tf(call.func, "train.Saver"):
                try:
                    self._migrate(file, call, top)
                except Decline as decline:
                    self.declined(decline, "tf.train.Saver not migrated: ")

    def _migrate(self, file: SaverFile, call: cst.Call, top: set[int]) -> None:
        module, parents = file.module, file.parents
        name, statement = statement_of(call, parents) or (None, None)
        unit = None
        if name is not None and id(statement) not in top:
            unit = saver_function(file, statement)
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
        saves, restores = saver_uses(unit[0] if unit else module, name, statement, parents)
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
        saved = saved_variables(file, call, index, unit[0] if unit else None)
        objects = [variable.name for variable in saved.variables if variable.keras]
        if restores and objects:
            raise Decline(
                call,
                f"it saves {', '.join(f'`{name}`' for name in objects)} as objects (a tf.Module, an "
                "optimizer's slot variables), whose variables the migration does not give TF1's "
                "names: checkpoints the TF1 program wrote would not restore into them",
            )
        named = names_to_write(module, self.tf, saved) if restores else []
        if not self.fix(call, "tf.train.Saver -> tf.train.Checkpoint"):
            return
        for split in saved.splits:
            self.replace(split.statement, lambda updated, name=split.name: writing.split_minimize(updated, name))
        for variable_call, graph_name in named:
            self.replace(variable_call, lambda updated, graph_name=graph_name: writing.named(updated, graph_name))
        keys = saved.keys or writing.checkpoint_keys([variable.name for variable in saved.variables])
        self.replace(call, writing.checkpoint(self.tf_expr("train.Checkpoint"), keys, saved.variables))
        keep = writing.max_to_keep(argument(call, None, "max_to_keep"))
        for save in saves:
            if argument(save, 2, "global_step") is None:
                self.replace(save, writing.written)
            else:
                self._numbered_save(save, name, keep, parents)
        for restore in restores:
            self.replace(restore, writing.read)

    def _numbered_save(self, save: cst.Call, checkpoint: str, keep: str, parents: dict) -> None:
        """``saver.save(sess, path, global_step=step)`` -> a ``tf.train.CheckpointManager``
        saving checkpoint number ``step`` (``writing.numbered_save``). A save on a line of its
        own is wrapped to the file's width."""
        manager = source(self.tf_expr("train.CheckpointManager"))
        self.add_import("os")
        self.replace(save, writing.numbered_save(manager, save, checkpoint, keep))
        line = statement_of(save, parents)
        if line is not None:
            deep, width = depth(line[1], parents), style_width(self.state.text)
            self.replace(line[1], lambda updated: fitted(updated, width, deep))
