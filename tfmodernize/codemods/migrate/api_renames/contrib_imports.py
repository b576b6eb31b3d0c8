"""Api-renames' imports of the contrib modules TF 1.15 made of TensorFlow's own TF1 API
(analysis/contrib.py ``REEXPORTED_TF1_API``): ``from tensorflow.contrib import tpu``,
``import tensorflow.contrib.tpu as tpu``, ``from tensorflow.contrib.tpu import rewrite``.

Such an import fails on TF 2.x, but when every name the file reads through it is one TF 1.15
re-exported (``tpu.rewrite`` was ``tf.tpu.rewrite``, which TF 2.x keeps as
``tf.compat.v1.tpu.rewrite``), the same import from ``tensorflow.compat.v1`` binds the same
functions under the same local names: only the import changes (an import nothing reads moves
too). A file that reads anything else through it (``tpu.TPUEstimator``, the module passed as a
value, the name rebound) keeps its import and the findings on each name; so does an import of
another part of the contrib module (``tensorflow.contrib.tpu.python.tpu``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

import libcst as cst

from tfmodernize.analysis.contrib import REEXPORTED_TF1_API, reexported_tf1_name
from tfmodernize.codemods.migrate.api_renames.policy import rename_for
from tfmodernize.names import name_nodes
from tfmodernize.tfsymbols import dotted_name, import_bindings

CONTRIB = "tensorflow.contrib."
V1 = "tensorflow.compat.v1."


@dataclass
class ReexportedImport:
    """A top-level import statement whose every binding is a contrib module or name TF 1.15
    re-exported from TF's own TF1 API, and the names the file reads through it."""

    statement: cst.SimpleStatementLine
    #: local name -> the contrib path it binds (``contrib.tpu``, ``contrib.tpu.rewrite``)
    bound: dict[str, str]
    #: the whole names read through it that are re-exported TF1 names: (node, key, target)
    uses: list[tuple[Union[cst.Attribute, cst.Name], str, str]] = field(default_factory=list)

    @property
    def first_path(self) -> str:
        return next(iter(self.bound.values()))


def _reexported(path: str) -> bool:
    """Whether ``tf.<path>`` is a contrib module TF 1.15 made of TF's TF1 module of the same name
    (``contrib.tpu``), or one of the names it re-exported from there (``contrib.tpu.rewrite``)."""
    if any(path == prefix.rstrip(".") for prefix in REEXPORTED_TF1_API):
        return True
    renamed = rename_for(path)
    return renamed is not None and reexported_tf1_name(*renamed) is not None


def reexported_imports(module: cst.Module) -> dict[str, ReexportedImport]:
    """Local name -> its import, for the top-level import statements (alone on their line) that
    bind only re-exported contrib modules or names; a plain ``import tensorflow.contrib.tpu``
    binds ``tensorflow`` itself and is not one."""
    found: dict[str, ReexportedImport] = {}
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            continue
        small = statement.body[0]
        if isinstance(small, cst.Import) and any(alias.asname is None for alias in small.names):
            continue
        if not isinstance(small, (cst.Import, cst.ImportFrom)):
            continue
        bound = {
            local: qualified.removeprefix("tensorflow.")
            for local, qualified in import_bindings(small)
            if qualified.startswith(CONTRIB)
        }
        names = [] if isinstance(small.names, cst.ImportStar) else list(small.names)
        if not bound or len(bound) != len(names):
            continue
        moved = {local: path for local, path in bound.items() if _reexported(path)}
        # ``from tensorflow.contrib import slim, tpu``: ``tpu`` moves to an import of its own,
        # ``slim`` stays for contrib-to-slim; a plain ``import`` statement moves whole or not.
        if not moved or (len(moved) != len(bound) and not isinstance(small, cst.ImportFrom)):
            continue
        imported = ReexportedImport(statement, moved)
        for local in bound:
            found[local] = imported
    return found


def all_read_through(module: cst.Module, imported: ReexportedImport) -> bool:
    """Whether every name of the file bound by ``imported`` is read as the root of one of its
    re-exported uses (nothing else reads, rebinds or shadows it)."""
    roots = set()
    for node, _, _ in imported.uses:
        while isinstance(node, cst.Attribute):
            node = node.value
        roots.add(id(node))
    reads = (name for name in name_nodes(module, imports=False) if name.value in imported.bound)
    return all(id(name) in roots for name in reads)


def from_v1(imported: ReexportedImport) -> "cst.SimpleStatementLine | cst.FlattenSentinel":
    """The import statement with each ``tensorflow.contrib.X`` it names as
    ``tensorflow.compat.v1.X``, the same names bound; the names it also imports that stay in
    contrib keep the statement, and the moved ones follow it in an import of their own."""
    statement = imported.statement
    small = statement.body[0]
    if isinstance(small, cst.ImportFrom) and len(imported.bound) != len(small.names):
        kept = [alias for alias in small.names if _local(alias) not in imported.bound]
        moving = [alias for alias in small.names if _local(alias) in imported.bound]
        kept[-1] = kept[-1].with_changes(comma=small.names[-1].comma)
        # On a line of their own, unbracketed: ``a, b`` whatever the layout they had.
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        moving = [alias.with_changes(comma=comma) for alias in moving[:-1]] + [
            moving[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        ]
        own = cst.SimpleStatementLine(body=[small.with_changes(names=moving, lpar=None, rpar=None)])
        first = statement.with_changes(body=[small.with_changes(names=kept)])
        return cst.FlattenSentinel([first, _moved_statement(own)])
    return _moved_statement(statement)


def _local(alias: cst.ImportAlias) -> str:
    return alias.asname.name.value if alias.asname is not None else dotted_name(alias.name)


def _moved_statement(statement: cst.SimpleStatementLine) -> cst.SimpleStatementLine:
    small = statement.body[0]

    def moved(name: cst.BaseExpression) -> cst.BaseExpression:
        dotted = dotted_name(name)
        if dotted is None or not (dotted + ".").startswith(CONTRIB):
            return name
        return cst.parse_expression((V1 + dotted[len(CONTRIB) :]).rstrip("."))

    if isinstance(small, cst.ImportFrom):
        new = small.with_changes(module=moved(small.module))
    else:
        aliases = [alias.with_changes(name=moved(alias.name)) for alias in small.names]
        new = small.with_changes(names=aliases)
    return statement.with_changes(body=[new])
