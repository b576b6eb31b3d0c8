"""Contrib-to-slim's plan of the functions it writes in a file in place of tf-slim's that do
not run on TF 2.x: the file's own batch_norm (``Norm``) and the functions of
``learning.TEMPLATES`` (``Functions``): their names, where they go, and the problems (added to
the ``Reading``) that decline the file."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst

from tfmodernize.analysis.contrib import WRITTEN_IN_THE_FILE, SlimName, slim_name, written_in_the_file
from tfmodernize.codemods.migrate.contrib_to_slim.batch_norm import arg_scope_keys, unreproduced_arguments
from tfmodernize.codemods.migrate.contrib_to_slim.learning import TEMPLATES
from tfmodernize.codemods.migrate.contrib_to_slim.reading import Reading, module_assignments
from tfmodernize.names import fresh_name, name_nodes
from tfmodernize.syntax import source, top_level_index
from tfmodernize.tfsymbols import import_bindings
from tfmodernize.treewalk import import_statements
from tfmodernize.written_code import after_imports


@dataclass(frozen=True)
class Norm:
    """The batch_norm a file gets: its name, the file's names of tensorflow.compat.v1 and
    tf_slim, the index of the top-level statement it goes before, the calls losing arguments."""

    name: str
    tf: Optional[str]  # None: ``import tensorflow.compat.v1 as tf`` is added
    slim: Optional[str]  # None: ``import tf_slim`` is added
    position: int
    dropped: list[tuple[cst.Call, set[str]]]
    #: (node, argument): a ``renorm`` argument whose value is known only when the program runs
    renorm_unknown: list[tuple[cst.CSTNode, str]]
    scope: Optional[str] = None  # the name of ``SCOPE_HELPER``, when the file names an arg scope
    net: Optional[str] = None  # the name of ``NET_HELPER``, when the file names a net calling it


@dataclass(frozen=True)
class Functions:
    """tf-slim's functions written in the file besides batch_norm: where each is defined -> its
    name, in ``TEMPLATES``' order; the file's name of TensorFlow (None: ``tf`` is imported),
    and the index of the top-level statement they go before."""

    names: dict[str, str]
    tf: Optional[str] = None
    position: int = 0


def plan_batch_norm(module: cst.Module, reading: Reading) -> Optional[Norm]:
    """Where and under which names the file's own batch_norm goes, and the arguments its
    calls drop; a problem (the file declined) for what it cannot stand in for."""
    first = (reading.norms or reading.scopes or reading.nets)[0]
    why = (
        f"`{source(first)}` is tf-slim's batch_norm, which does not run on TF 2.x"
        if reading.norms
        else f"`{source(first)}` makes tf-slim's batch_norm, which does not run on TF 2.x, the normalizer"
        if reading.scopes
        else f"`{source(first)}` calls tf-slim's batch_norm, which does not run on TF 2.x"
    )
    norm_ids = {id(node) for node in reading.norms}
    aliases = frozenset(
        statement.body[0].targets[0].target.value
        for value, statement in module_assignments(module).items()
        if value in norm_ids
    )
    dropped, unreproduced, unknown = unreproduced_arguments(module, norm_ids, aliases)
    for node, argument in unreproduced:
        reading.problems.append(
            (
                node,
                f"{why}, and the file passes it `{argument}`, which the batch_norm "
                "tfmodernize writes in its place does not reproduce: drop it (or write that "
                "normalization yourself: tf.keras.layers.BatchNormalization has renorm) "
                "and run again",
            )
        )
    keys = arg_scope_keys(module)
    deep = {id(node) for node, path in reading.inline if getattr(slim_name(path), "by_attributes", 0) is False}
    if (
        not reading.scopes
        and not reading.nets
        and all(id(node) in keys and id(node) not in deep for node in reading.norms)
    ):
        return None  # tf-slim's batch_norm only names the arg scopes of every batch_norm
    taken = _taken(module, norm_ids)
    tf = _tf_name(reading, first, why, "batch_norm", taken)
    slim = _slim_package(module, reading)
    position = after_imports(module, {tf, slim} - {None}, reading.module_lines)
    named = reading.norms + reading.scopes + reading.nets
    _read_early(module, reading, named, position, why, "batch_norm")
    if reading.problems:
        return None
    name = fresh_name("batch_norm", taken)
    scope = fresh_name("with_batch_norm", taken | {name}) if reading.scopes else None
    net = fresh_name("net_with_batch_norm", taken | {name, scope}) if reading.nets else None
    return Norm(name, tf, slim, position, dropped, unknown, scope, net)


def plan_functions(module: cst.Module, reading: Reading, norm: Optional[Norm]) -> Functions:
    """The names of tf-slim's functions written in the file besides batch_norm (where each
    is defined -> its name), in ``TEMPLATES``' order; a problem (the file declined) for what
    the written functions cannot stand in for."""
    references = [node for nodes in reading.learning.values() for node in nodes]
    first_origin = next(iter(reading.learning))
    first, function = reading.learning[first_origin][0], WRITTEN_IN_THE_FILE[first_origin]
    why = f"`{source(first)}` is tf-slim's {function}, which does not run on TF 2.x"
    taken = _taken(module, {id(node) for node in references})
    if norm is not None:
        taken |= {norm.name, norm.scope, norm.net} - {None}
    tf = _tf_name(reading, first, why, function, taken)
    position = after_imports(module, {tf} - {None}, reading.module_lines)
    _read_early(module, reading, references, position, why, function)
    names: dict[str, str] = {}
    for origin in TEMPLATES:
        if origin in reading.learning and not reading.problems:
            names[origin] = fresh_name(WRITTEN_IN_THE_FILE[origin], taken | set(names.values()))
    return Functions(names, tf, position)


def _taken(module: cst.Module, references: set[int]) -> set[str]:
    """The names the file uses, but for ``references`` (the ids of the names a written
    function takes over) and the imports binding a function written in the file."""
    taken = {name.value for name in name_nodes(module, imports=False) if id(name) not in references}
    for small in import_statements(module):
        for local, qualified in import_bindings(small, tf_only=False):
            path = qualified.removeprefix("tensorflow.").removeprefix("compat.v1.")
            if not written_in_the_file(slim_name(path)):
                taken.add(local)
    return taken


def _tf_name(
    reading: Reading,
    first: cst.CSTNode,
    why: str,
    function: str,
    taken: set[str],
) -> Optional[str]:
    """The file's name of TensorFlow for the function written in it (None: ``tf`` is
    imported); a problem when ``tf`` names something else."""
    tf = reading.names.alias_of("tensorflow.compat.v1") or reading.names.alias_of("tensorflow")
    if tf is None and "tf" in taken:
        reading.problems.append(
            (first, f"{why}, and the {function} written in its place needs `import tensorflow as tf`: add it")
        )
    return tf


def _read_early(
    module: cst.Module,
    reading: Reading,
    nodes: list,
    position: int,
    why: str,
    function: str,
) -> None:
    """A problem for each of ``nodes`` read in a top-level statement before ``position``,
    where the function written in the file goes."""
    for node in nodes:
        index = top_level_index(module, node)
        if index is not None and index < position:
            reading.problems.append(
                (
                    node,
                    f"{why}, and the file reads it before its imports end, where "
                    f"the {function} written in its place would go: move it below and run again",
                )
            )


def _slim_package(module: cst.Module, reading: Reading) -> Optional[str]:
    """The name the file binds the tf_slim package to once rewritten, if any."""
    for binding in reading.bindings.values():
        found = slim_name(binding.path)
        if isinstance(found, SlimName) and found.is_module == "tf_slim":
            return binding.local
    for local, path in reading.local_modules.items():
        found = slim_name(path)
        if isinstance(found, SlimName) and found.is_module == "tf_slim":
            return local
    for statement in module.body:
        for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.Import):
                for local, qualified in import_bindings(small, tf_only=False):
                    if qualified == "tf_slim":
                        return local
    return None
