"""Placeholders a program makes at module level for the graph one of its functions builds and
runs (``x = tf.placeholder(...)`` at the top, ``def train(): ... sess.run(step, {x: batch})``).

Only a unit's own placeholders become parameters of its functions: such a placeholder is read
into that function's unit first, as if the function made it on its first line, and the module
statement goes when the unit migrates (``SessionToFunction.plan``).
"""

from __future__ import annotations

from typing import Sequence

import libcst as cst

from tfmodernize.analysis.tf1_api import PLACEHOLDERS
from tfmodernize.codemods.migrate.session_to_function.statement_reads import free_names, names_used, tf_path
from tfmodernize.names import bound_names
from tfmodernize.syntax import name_assignment
from tfmodernize.tfsymbols import TFNames


def placeholders_to_move(
    body: Sequence[cst.BaseStatement],
    owners: set[int],
    names: TFNames,
) -> dict[int, list[int]]:
    """For each module function running a session (its index in ``owners``), the indices of
    the module's ``name = tf.placeholder(...)`` statements only it reads: no other statement of
    the module (a helper function, module code, another function) reads or binds the name
    again, and what the placeholder's arguments read (``tf.float32``, ``[None, n_inputs]``) is
    bound once, by the module, before it."""
    made: dict[str, int] = {}
    for index, statement in enumerate(body):
        pair = name_assignment(statement)
        value = pair[1] if pair is not None else None
        if isinstance(value, cst.Call) and tf_path(value.func, names) in PLACEHOLDERS:
            made[pair[0]] = index
    if not made:
        return {}
    bindings: dict[str, list[int]] = {}
    readers: dict[str, set[int]] = {}
    for index, statement in enumerate(body):
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            bound, read = {statement.name.value}, free_names(statement)
        else:
            bound, read = bound_names(statement), names_used(statement)
        for name in bound:
            bindings.setdefault(name, []).append(index)
        for name in read & made.keys():
            readers.setdefault(name, set()).add(index)
    moves: dict[int, list[int]] = {}
    for name, index in made.items():
        if bindings.get(name) != [index]:
            continue
        others = readers.get(name, set()) - {index}
        if len(others) != 1:
            continue
        owner = next(iter(others))
        if owner not in owners or not isinstance(body[owner], cst.FunctionDef) or owner < index:
            continue
        arguments = names_used(name_assignment(body[index])[1]) - {name}
        where = [bindings.get(used, [index]) for used in arguments]
        if any(len(bound) > 1 or bound[0] > index for bound in where):
            continue
        moves.setdefault(owner, []).append(index)
    return moves
