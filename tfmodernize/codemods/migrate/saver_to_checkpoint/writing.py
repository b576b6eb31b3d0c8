"""The code a migrated Saver becomes: the ``tf.train.Checkpoint`` over what it saved, its saves
(``write``, or a ``CheckpointManager`` saving a numbered checkpoint) and restores (``read``),
the TF1 name written at a variable's creation, and a ``minimize`` line split so its optimizer
gets a name."""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from tfmodernize.analysis.module_variables import ModuleVariable
from tfmodernize.names import fresh_name
from tfmodernize.syntax import argument, no_space_equal, source


def checkpoint(func: cst.BaseExpression, keys: list[str], saved: list[ModuleVariable]) -> cst.Call:
    """``tf.train.Checkpoint(w=w, b=b)`` (``func``: the emitted ``tf.train.Checkpoint``) saving
    each variable of ``saved`` under its key."""
    return cst.Call(
        func,
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


def checkpoint_keys(names: list[str]) -> list[str]:
    """Checkpoint attribute names for the saved variables: their Python names, as identifiers."""
    taken: set[str] = set()
    return [fresh_name(re.sub(r"\W+", "_", name).strip("_") or "variable", taken) for name in names]


def named(variable: cst.Call, graph_name: str) -> cst.Call:
    """``tf.Variable(...)`` with ``name="graph_name"`` written last."""
    return variable.with_changes(
        args=[
            *variable.args[:-1],
            variable.args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
            cst.Arg(cst.SimpleString(f'"{graph_name}"'), keyword=cst.Name("name"), equal=no_space_equal()),
        ]
    )


def written(save: cst.Call) -> cst.Call:
    """``saver.save(sess, path)`` -> ``saver.write(path)``."""
    return save.with_changes(
        func=save.func.with_changes(attr=cst.Name("write")),
        args=[cst.Arg(argument(save, 1, "save_path"))],
    )


def read(restore: cst.Call) -> cst.Call:
    """``saver.restore(sess, path)`` -> ``saver.read(path).assert_existing_objects_matched()``."""
    return cst.Call(
        cst.Attribute(
            restore.with_changes(
                func=restore.func.with_changes(attr=cst.Name("read")),
                args=[cst.Arg(argument(restore, 1, "save_path"))],
            ),
            cst.Name("assert_existing_objects_matched"),
        )
    )


def numbered_save(manager: str, save: cst.Call, checkpoint: str, keep: str) -> cst.BaseExpression:
    """``saver.save(sess, path, global_step=step)`` -> a ``tf.train.CheckpointManager``
    (``manager``: how the file spells it) over the folder and name of ``path`` saving
    checkpoint number ``step``: the same ``path-step`` files, the same ``checkpoint`` state
    file, the same rotation (a manager reads the state file when made, so one made at each save
    keeps TF1's ``max_to_keep`` count, ``keep``)."""
    path = source(argument(save, 1, "save_path"))
    step = source(argument(save, 2, "global_step"))
    return cst.parse_expression(
        f"{manager}({checkpoint}, os.path.dirname({path}) or os.curdir, max_to_keep={keep}, "
        f"checkpoint_name=os.path.basename({path})).save(checkpoint_number={step})"
    )


def max_to_keep(value: Optional[cst.BaseExpression]) -> str:
    """TF1's ``max_to_keep`` as the manager takes it: 5 by default, None (keep all) for None or 0."""
    if value is None:
        return "5"
    if isinstance(value, cst.Integer) and value.evaluated_value == 0:
        return "None"
    return source(value)


def split_minimize(line: cst.SimpleStatementLine, name: str) -> cst.FlattenSentinel:
    """``step = tf.train.AdamOptimizer(rate).minimize(loss)`` -> ``name = tf.train.AdamOptimizer(rate)``
    and ``step = name.minimize(loss)``: the optimizer gets a name the Checkpoint can hold."""
    assign = line.body[0]
    minimize = assign.value
    made = cst.SimpleStatementLine(
        [cst.Assign([cst.AssignTarget(cst.Name(name))], minimize.func.value)], leading_lines=line.leading_lines
    )
    step = assign.with_changes(value=minimize.with_changes(func=minimize.func.with_changes(value=cst.Name(name))))
    return cst.FlattenSentinel([made, line.with_changes(leading_lines=[], body=[step])])
