"""TFM116 contrib-to-slim.

What it does
    Points the ``tf.contrib`` names that live on in the tf-slim package at it: ``tf.contrib.slim``
    and what it re-exported from ``tf.contrib.layers`` (``conv2d``, ``fully_connected``,
    ``flatten``, ``max_pool2d``, ``repeat``, ``stack``...), ``tf.contrib.framework``
    (``arg_scope``, ``add_arg_scope``, ``get_variables_to_restore``, ``model_variable``...) and
    ``tf.contrib.metrics`` (the ``streaming_*`` metrics), the nets of ``tf.contrib.slim.nets``,
    and the deep module paths (``tensorflow.contrib.layers.python.layers.layers``):

    * an import of one becomes the same import of tf-slim, under the same local name:
      ``import tensorflow.contrib.slim as slim`` and ``from tensorflow.contrib import slim`` ->
      ``import tf_slim as slim``; ``from tensorflow.contrib.framework import arg_scope`` ->
      ``from tf_slim import arg_scope``; ``from tensorflow.contrib.slim.nets import resnet_v1``
      -> ``from tf_slim.nets import resnet_v1``;
    * a module-level ``slim = tf.contrib.slim`` -> ``import tf_slim as slim``;
    * a name written out through TensorFlow (``tf.contrib.layers.flatten(x)``) ->
      ``tf_slim.flatten(x)``, with ``import tf_slim``.

    Which names tf-slim has is read off the package itself (``tfmodernize/data/tf_slim.json``,
    see ``tfmodernize/analysis/contrib.py``). tf-slim's layers build TF1 graphs (variables
    through variable scopes, collections, arg scopes): the file stays on ``tf.compat.v1``, which
    compat-fallback (TFM113) and compat-v1-import (TFM112) see from the ``tf_slim`` import. Runs
    after the migrations, which
    read contrib names as TF1 code, and after contrib-to-core (TFM115), which replaces the
    contrib names core TensorFlow computes itself.

Why it matters
    No TensorFlow 2.x has ``tf.contrib``, and slim is the most used part of it in TF1-era
    codebases: every network of a model zoo built with ``slim.conv2d`` under ``arg_scope`` fails
    at import on TF 2.x. The code was not lost, it moved: with the import pointed at tf-slim
    (``pip install tf-slim``) the file runs on TF 2.x as the TF1 program it was, and the rest of
    its migration can go on.

Before
    import tensorflow as tf
    import tensorflow.contrib.slim as slim

    def net(images):
        with slim.arg_scope([slim.conv2d], padding="SAME"):
            return slim.fully_connected(slim.flatten(slim.conv2d(images, 8, [3, 3])), 10)

After
    import tensorflow.compat.v1 as tf
    import tf_slim as slim

    def net(images):
        with slim.arg_scope([slim.conv2d], padding="SAME"):
            return slim.fully_connected(slim.flatten(slim.conv2d(images, 8, [3, 3])), 10)

Fix safety
    tf-slim is contrib's slim moved out of TensorFlow, the same functions with the same
    defaults: the same variables (names included), the same random ops in the same order, the
    same numbers (the fixtures run the contrib original through tf-slim, as TF 1.15's
    ``tf.contrib.slim`` was, and the rewrite on plain TF 2.x).

Declines when
    (the file keeps every contrib name, and a finding at each problem says what to do) a contrib
    name of these modules that tf-slim does not have (``tf.contrib.framework.nest``,
    ``tf.contrib.layers.real_valued_column``); a tf-slim function that fails on TensorFlow 2.21
    (``batch_norm``, ``optimize_loss``: the finding says what to write instead); a name written
    out through a deep module path (``tf.contrib.layers.python.layers.layers.conv2d``); a plain
    ``import tensorflow.contrib.slim`` (no ``as``) or an import sharing its line with another
    statement. One problem declines the whole file: a file half on tf-slim would still fail.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

import libcst as cst

from tfmodernize.analysis.contrib import PACKAGE, NotInSlim, SlimName, does_not_run, slim_home, slim_name
from tfmodernize.codemod import TFCodemod
from tfmodernize.names import WholeNames
from tfmodernize.syntax import name_assignment, source
from tfmodernize.tfsymbols import TFNames, dotted_name, import_bindings, root_name

CONTRIB = "tensorflow.contrib"


@dataclass
class _Binding:
    """A top-level import binding a local name to a contrib module or name of tf-slim's."""

    statement: cst.SimpleStatementLine
    local: str
    path: str  # ``contrib.slim``
    uses: list[tuple[cst.CSTNode, str]] = field(default_factory=list)  # (node, its contrib path)


class ContribToSlim(WholeNames, TFCodemod):
    __doc__ = __doc__
    code = "TFM116"
    name = "contrib-to-slim"
    summary = (
        "tf.contrib.slim and the contrib layers, arg scopes, variables and metrics it re-exported -> "
        "the tf-slim package, the same code (the file stays on tf.compat.v1)"
    )
    needles = ("contrib",)
    interests = (cst.Attribute, cst.Name)
    detects_tf_names_only = True
    #: After the migrations (they read contrib names as TF1 code), before compat-v1-import and
    #: compat-fallback (a file using tf-slim stays on tf.compat.v1).
    runs_before = ("TFM112", "TFM113")

    @classmethod
    def detect(cls, node: cst.CSTNode, names: TFNames) -> bool:
        symbol = names.tf_symbol(node)
        return symbol is not None and slim_home(symbol.path) is not None

    def plan(self, module: cst.Module) -> None:
        self._inner = set()
        self._bindings = self._contrib_bindings(module)
        #: ``slim = tf.contrib.slim`` at module level: slim -> contrib.slim
        self._local_modules = {
            statement.body[0].targets[0].target.value: symbol.path
            for statement in _module_assignments(module).values()
            if (symbol := self.tf.tf_symbol(statement.body[0].value)) is not None and slim_home(symbol.path)
        }
        self._inline: list[tuple[cst.CSTNode, str]] = []
        self._problems: list[tuple[cst.CSTNode, str]] = []
        super().plan(module)
        for binding in self._bindings.values():
            self._check(binding.statement, binding.path, binding)
            for node, path in binding.uses:
                self._check(node, path, None)
        for node, path in self._inline:
            found = self._check(node, path, None)
            if isinstance(found, SlimName) and not found.by_attributes:
                self._problems.append(
                    (
                        node,
                        f"`{source(node)}` names tf-slim's code through a deep module path: "
                        "import it (from tensorflow.contrib... import ...) and run again",
                    )
                )
        if self._problems:
            for node, why in self._problems:
                self.report(node, f"tf.contrib is gone from TF 2.x and this file is not moved to tf-slim: {why}")
            return
        self._rewrite_imports(module)
        self._rewrite_inline(module)

    # -- what the file binds and reads ----------------------------------------------------------

    def _contrib_bindings(self, module: cst.Module) -> dict[str, _Binding]:
        """Local name -> its binding, for the top-level imports of contrib modules tf-slim took
        over; such an import the rewrite cannot express is a problem."""
        found = {}
        for statement in module.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if not isinstance(small, (cst.Import, cst.ImportFrom)):
                    continue
                for local, qualified in import_bindings(small):
                    path = qualified.removeprefix("tensorflow.").removeprefix("compat.v1.")
                    if not qualified.startswith(CONTRIB) or slim_home(path) is None:
                        continue
                    found[local] = _Binding(statement, local, path)
        return found

    def leave_whole_name(self, node: Union[cst.Attribute, cst.Name]) -> None:
        root = root_name(node)
        if root is None:  # ``f().x``
            return
        symbol = self.tf.tf_symbol(node)
        if symbol is None and isinstance(node, cst.Attribute) and root.value in self._local_modules:
            # ``slim.conv2d`` after ``slim = tf.contrib.slim``: checked, rewritten with that line.
            path = self._local_modules[root.value] + dotted_name(node)[len(root.value) :]
            self._check(node, path, None)
            return
        if symbol is None or slim_home(symbol.path) is None:
            return
        binding = self._bindings.get(root.value)
        if binding is not None:
            binding.uses.append((node, symbol.path))
        elif self.tf.qualify(root) in ("tensorflow", "tensorflow.compat.v1"):
            self._inline.append((node, symbol.path))
        else:  # ``import tensorflow.contrib.slim`` read as ``tensorflow.contrib.slim.x``
            self._problems.append(
                (
                    node,
                    f"`{source(node)}` is reached through a plain import of a contrib module: "
                    "import it with `as` and run again",
                )
            )

    def _check(self, node: cst.CSTNode, path: str, binding: "_Binding | None") -> "SlimName | NotInSlim | None":
        found = slim_name(path)
        if isinstance(found, NotInSlim):
            self._problems.append((node, f"tf.{path}: {found.reason}"))
        elif isinstance(found, SlimName) and (why := does_not_run(found)) is not None:
            self._problems.append(
                (node, f"`{source(node)}` is {found.expression} in tf-slim, which does not run on TF 2.x: {why}")
            )
        if binding is not None and len(binding.statement.body) != 1:
            self._problems.append(
                (node, "the import shares its line with another statement: put it on a line of its own and run again")
            )
        if (
            binding is not None
            and isinstance(binding.statement.body[0], cst.Import)
            and not any(alias.asname is not None for alias in binding.statement.body[0].names)
        ):
            self._problems.append((node, "a plain `import tensorflow.contrib...`: import it with `as` and run again"))
        return found

    # -- the rewrite ------------------------------------------------------------------------------

    def _rewrite_imports(self, module: cst.Module) -> None:
        """Each import statement binding tf-slim's contrib modules or names becomes the imports
        of tf-slim binding the same names (the other names it binds stay in it)."""
        by_statement: dict[int, list[_Binding]] = {}
        for binding in self._bindings.values():
            by_statement.setdefault(id(binding.statement), []).append(binding)
        for bindings in by_statement.values():
            statement = bindings[0].statement
            small = statement.body[0]
            lines = []
            for binding in bindings:
                found = slim_name(binding.path)
                line = found.imported_as(binding.local)
                if line not in lines:
                    lines.append(line)
            moved = {binding.local for binding in bindings}
            if not self.fix(
                statement,
                f"tf.{bindings[0].path} is tf-slim's {slim_name(bindings[0].path).expression} "
                f"now (pip install {PACKAGE}): the same code, moved out of TensorFlow",
            ):
                continue
            new = [cst.parse_statement(line) for line in _merged(lines)]
            kept = (
                [alias for alias in small.names if _local(alias) not in moved]
                if not isinstance(small.names, cst.ImportStar)
                else []
            )
            if kept:
                kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                new.insert(0, statement.with_changes(body=[small.with_changes(names=kept)]))
            new[0] = new[0].with_changes(leading_lines=statement.leading_lines)
            new[-1] = new[-1].with_changes(trailing_whitespace=statement.trailing_whitespace)
            self.replace(statement, cst.FlattenSentinel(new))

    def _rewrite_inline(self, module: cst.Module) -> None:
        """``tf.contrib.layers.flatten`` -> ``tf_slim.flatten``; a module-level
        ``slim = tf.contrib.slim`` becomes ``import tf_slim as slim``."""
        assigned = _module_assignments(module)
        for node, path in self._inline:
            found = slim_name(path)
            if not self.fix(
                node,
                f"tf.{path} is tf-slim's {found.expression} now (pip install {PACKAGE}): "
                "the same code, moved out of TensorFlow",
            ):
                continue
            statement = assigned.get(id(node))
            if statement is not None and found.is_module is not None:
                target = statement.body[0].targets[0].target.value
                line = cst.parse_statement(found.imported_as(target))
                self.replace(
                    statement,
                    line.with_changes(
                        leading_lines=statement.leading_lines, trailing_whitespace=statement.trailing_whitespace
                    ),
                )
                continue
            self.replace(node, cst.parse_expression(found.expression))
            self.add_import(found.module)


def _local(alias: cst.ImportAlias) -> str:
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return alias.asname.name.value
    return (dotted_name(alias.name) or "").split(".")[0]


def _merged(lines: list[str]) -> list[str]:
    """``from m import a`` and ``from m import b`` -> ``from m import a, b``, in first-seen order."""
    merged: dict[str, list[str]] = {}
    for line in lines:
        if line.startswith("from "):
            package, _, names = line[len("from ") :].partition(" import ")
            merged.setdefault(f"from {package} import ", []).append(names)
        else:
            merged.setdefault(line, [])
    return [head + ", ".join(names) if names else head for head, names in merged.items()]


def _module_assignments(module: cst.Module) -> dict[int, cst.SimpleStatementLine]:
    """id(value) -> its statement, for each module-level ``name = <value>`` line."""
    return {id(assigned[1]): statement for statement in module.body if (assigned := name_assignment(statement))}
