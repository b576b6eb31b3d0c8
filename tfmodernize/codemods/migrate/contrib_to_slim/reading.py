"""Contrib-to-slim's reading of a file (``Reading``): the top-level imports of contrib modules
tf-slim took over, the module-level ``slim = tf.contrib.slim`` lines, each contrib name read
and what it is in tf-slim, and the problems that decline the file."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

import libcst as cst

from tfmodernize.analysis.contrib import NotInSlim, SlimName, does_not_run, slim_home, slim_name, written_in_the_file
from tfmodernize.codemods.migrate.contrib_to_slim.batch_norm import ARG_SCOPES, NETS
from tfmodernize.codemods.migrate.contrib_to_slim.learning import TEMPLATES
from tfmodernize.syntax import name_assignment, source
from tfmodernize.tfsymbols import TFNames, dotted_name, import_bindings, root_name

CONTRIB = "tensorflow.contrib"


@dataclass
class Binding:
    """A top-level import binding a local name to a contrib module or name of tf-slim's."""

    statement: cst.SimpleStatementLine
    local: str
    path: str  # ``contrib.slim``
    uses: list[tuple[cst.CSTNode, str]] = field(default_factory=list)  # (node, its contrib path)


@dataclass
class Reading:
    """What the file binds and reads of contrib, filled by the codemod's walk of its whole names
    (``read_name``) and checked once it is over (``finish``)."""

    names: TFNames
    #: local name -> its top-level import of a contrib module or name of tf-slim's
    bindings: dict[str, Binding]
    #: ``slim = tf.contrib.slim`` at module level: slim -> contrib.slim, and those lines
    local_modules: dict[str, str]
    module_lines: set[int]
    #: the names written out through ``tf`` (``tf.contrib.layers.flatten``) and their paths
    inline: list[tuple[cst.CSTNode, str]] = field(default_factory=list)
    #: what declines the file: (node, why)
    problems: list[tuple[cst.CSTNode, str]] = field(default_factory=list)
    #: the references to tf-slim's batch_norm, which the file's own function replaces
    norms: list[cst.CSTNode] = field(default_factory=list)
    #: the references to tf-slim's other functions written in the file, by where they are
    #: defined (``learning.TEMPLATES``)
    learning: dict[str, list[cst.CSTNode]] = field(default_factory=dict)
    #: the references to tf-slim's nets' arg-scope functions, which name its batch_norm
    scopes: list[cst.CSTNode] = field(default_factory=list)
    #: the references to tf-slim's nets that call its batch_norm themselves
    nets: list[cst.CSTNode] = field(default_factory=list)
    #: (the module's contrib path, the name's) for each name read through a module-level
    #: ``slim = tf.contrib.slim``
    local_reads: list[tuple[str, str]] = field(default_factory=list)

    @classmethod
    def start(cls, module: cst.Module, names: TFNames) -> Reading:
        """The file's contrib imports and module-level ``slim = tf.contrib.slim`` lines."""
        local_modules: dict[str, str] = {}
        module_lines: set[int] = set()
        for statement in module_assignments(module).values():
            symbol = names.tf_symbol(statement.body[0].value)
            # (``norm = tf.contrib.layers.batch_norm`` names a function: a reference like any)
            if symbol is not None and getattr(slim_name(symbol.path), "is_module", None):
                local_modules[statement.body[0].targets[0].target.value] = symbol.path
                module_lines.add(id(statement))
        return cls(names, _contrib_bindings(module), local_modules, module_lines)

    def read_name(self, node: Union[cst.Attribute, cst.Name]) -> None:
        """A whole name the walk met: a contrib name of tf-slim's, where and how it is read."""
        root = root_name(node)
        if root is None:  # ``f().x``
            return
        symbol = self.names.tf_symbol(node)
        if symbol is None and isinstance(node, cst.Attribute) and root.value in self.local_modules:
            # ``slim.conv2d`` after ``slim = tf.contrib.slim``: checked, rewritten with that line.
            path = self.local_modules[root.value] + dotted_name(node)[len(root.value) :]
            self.check(node, path, None)
            self.local_reads.append((self.local_modules[root.value], path))
            return
        if symbol is None or slim_home(symbol.path) is None:
            return
        binding = self.bindings.get(root.value)
        if binding is not None:
            binding.uses.append((node, symbol.path))
        elif self.names.qualify(root) in ("tensorflow", "tensorflow.compat.v1"):
            self.inline.append((node, symbol.path))
        else:  # ``import tensorflow.contrib.slim`` read as ``tensorflow.contrib.slim.x``
            self.problems.append(
                (
                    node,
                    f"`{source(node)}` is reached through a plain import of a contrib module: "
                    "import it with `as` and run again",
                )
            )

    def finish(self) -> None:
        """Check the imports and what the walk found written out through ``tf``."""
        for binding in self.bindings.values():
            self.check(binding.statement, binding.path, binding)
            for node, path in binding.uses:
                self.check(node, path, None)
        for node, path in self.inline:
            found = self.check(node, path, None)
            deep = isinstance(found, SlimName) and not found.by_attributes
            if deep and not written_in_the_file(found):
                self.problems.append(
                    (
                        node,
                        f"`{source(node)}` names tf-slim's code through a deep module path: "
                        "import it (from tensorflow.contrib... import ...) and run again",
                    )
                )

    def check(
        self,
        node: cst.CSTNode,
        path: str,
        binding: "Binding | None",
    ) -> "SlimName | NotInSlim | None":
        """What ``path`` is in tf-slim: a problem, or a reference the rewrite takes over."""
        found = slim_name(path)
        if isinstance(found, NotInSlim):
            self.problems.append((node, f"tf.{path}: {found.reason}"))
        elif written_in_the_file(found):
            if binding is None and found.origin in TEMPLATES:  # (an import binding the function goes)
                self.learning.setdefault(found.origin, []).append(node)
            elif binding is None:
                self.norms.append(node)
        elif isinstance(found, SlimName) and found.origin in ARG_SCOPES:
            if binding is None:  # (the import stays; the names it binds are wrapped)
                self.scopes.append(node)
        elif isinstance(found, SlimName) and found.origin in NETS:
            # (the import stays; the names it binds are wrapped, but for an attribute of the net
            # read, ``resnet_v2_50.default_image_size``)
            if binding is None and path.rpartition(".")[2] == found.origin.rpartition(".")[2]:
                self.nets.append(node)
        elif isinstance(found, SlimName) and (why := does_not_run(found)) is not None:
            self.problems.append(
                (node, f"`{source(node)}` is {found.expression} in tf-slim, which does not run on TF 2.x: {why}")
            )
        if binding is not None and len(binding.statement.body) != 1:
            self.problems.append(
                (node, "the import shares its line with another statement: put it on a line of its own and run again")
            )
        if (
            binding is not None
            and isinstance(binding.statement.body[0], cst.Import)
            and not any(alias.asname is not None for alias in binding.statement.body[0].names)
        ):
            self.problems.append((node, "a plain `import tensorflow.contrib...`: import it with `as` and run again"))
        return found


def _contrib_bindings(module: cst.Module) -> dict[str, Binding]:
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
                found[local] = Binding(statement, local, path)
    return found


def local_name(alias: cst.ImportAlias) -> str:
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return alias.asname.name.value
    return (dotted_name(alias.name) or "").split(".")[0]


def module_assignments(module: cst.Module) -> dict[int, cst.SimpleStatementLine]:
    """id(value) -> its statement, for each module-level ``name = <value>`` line."""
    return {id(assigned[1]): statement for statement in module.body if (assigned := name_assignment(statement))}
