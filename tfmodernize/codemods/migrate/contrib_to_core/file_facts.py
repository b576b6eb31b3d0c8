"""Contrib-to-core's reading of a file (``ContribFile``, built by the codemod for each tree it
plans on): how often each name is bound, the module-level names a contrib module is bound to
(``slim = tf.contrib.slim``), the TF path a dotted name names through them, numbers a name
stands for, and where the written ``bipartite_match`` goes and what it is called."""

from __future__ import annotations

from collections import Counter
from functools import cached_property
from typing import Callable, Optional, Union

import libcst as cst

from tfmodernize.codemods.migrate.contrib_to_core.tables import (
    BY_NAME,
    FLOAT64,
    HANDLED,
    LOCAL_MODULES,
    canonical,
    handles,
    number,
)
from tfmodernize.names import fresh_name, name_nodes, names_bound_here, own_nodes, parameter_names
from tfmodernize.tfsymbols import TFNames, dotted_name, import_bindings, root_name
from tfmodernize.treewalk import import_statements, walk
from tfmodernize.written_code import after_imports


class ContribFile:
    """What contrib-to-core reads off ``module`` (the tree it plans on, whose TF names are
    ``names``; ``text`` the file's text; ``parents`` gives the tree's parent map when first
    asked), each fact read when a rewrite first asks."""

    def __init__(
        self,
        module: cst.Module,
        names: TFNames,
        text: str,
        parents: Callable[[], dict],
    ) -> None:
        self.module = module
        self.names = names
        self.text = text
        self._parents = parents
        self._other_names: dict[str, Optional[cst.CSTNode]] = {}
        self.float64 = FLOAT64.search(text) is not None  #: the file names float64
        self.by_name = BY_NAME.search(text) is not None  #: the file reads graph elements by name
        #: ``slim = tf.contrib.slim`` at the top level: name -> (contrib module path, its line)
        self.local = self.local_modules(module)

    @cached_property
    def parents(self) -> dict:
        return self._parents()

    @cached_property
    def bound(self) -> tuple[Counter[str], set[str]]:
        """(how many times each name is bound anywhere in the file, the names bound again and
        again): ``binding_counts``, read when a rewrite first asks."""
        rebound: set[str] = set()
        return self.binding_counts(self.module, rebound), rebound

    @property
    def bindings(self) -> Counter[str]:
        return self.bound[0]

    @property
    def rebound(self) -> set[str]:
        return self.bound[1]

    @cached_property
    def dropout_values(self) -> bool:
        """Whether the file names contrib's dropout other than to call it (``values_of``)."""
        # A file that never says ``dropout`` names no dropout as a value: spare the two walks.
        return "dropout" in self.text and self.values_of(self.module, "contrib.layers.dropout")

    @staticmethod
    def binding_counts(module: cst.Module, rebound: set[str]) -> Counter[str]:
        """How many times each name is bound anywhere in the file (parameters included); the
        names a loop, an augmented assignment or a ``global`` binds go into ``rebound``."""
        counts: Counter[str] = Counter()
        for node in walk(module, code_only=True):
            if isinstance(node, (cst.For, cst.CompFor, cst.AugAssign, cst.NamedExpr, cst.Global, cst.Nonlocal)):
                rebound.update(names_bound_here(node))  # bound again and again, or from elsewhere
            if isinstance(node, cst.Param):
                counts[node.name.value] += 1
            elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                counts[node.name.value] += 1
            else:
                counts.update(names_bound_here(node))
        return counts

    def local_modules(self, module: cst.Module) -> dict[str, tuple[str, cst.SimpleStatementLine]]:
        """``slim = tf.contrib.slim`` at the top level, ``slim`` bound nowhere else: name -> (path, line)."""
        return {
            name: (path, statement)
            for name, (path, statement) in local_module_candidates(module, self.names).items()
            if self.bindings[name] == 1
        }

    def read_as_it_was(self, node: cst.BaseExpression) -> bool:
        """Whether reading ``node`` later gives what it gave when contrib read it: a name its
        scope binds once, by an assignment, a parameter or an import (not a loop, nor ``+=``), or
        an attribute of one (``FLAGS.weight_decay``, ``self.decay``)."""
        root = root_name(node)
        if dotted_name(node) is None or root is None or root.value in self.rebound:
            return False
        scope = self.parents.get(id(node))
        while scope is not None:
            if isinstance(scope, (cst.FunctionDef, cst.Lambda)):
                parameters = parameter_names(scope)
                body = scope.body if isinstance(scope, cst.FunctionDef) else scope.body
                bound = [name for n in own_nodes(body) for name in names_bound_here(n)]
                if root.value in parameters or root.value in bound:
                    return parameters.count(root.value) + bound.count(root.value) == 1
            scope = self.parents.get(id(scope))
        bound = [name for n in own_nodes(self.module) for name in names_bound_here(n)]
        return bound.count(root.value) <= 1  # a module name, or one imported (or a builtin)

    def values_of(self, module: cst.Module, wanted: str) -> bool:
        """Whether the file names the contrib function ``wanted`` other than to call it (in an
        ``arg_scope`` list, say)."""
        skipped: set[int] = set()  # the functions called, and the names imports bind
        for node in walk(module, code_only=True):
            if isinstance(node, cst.Call):
                skipped.add(id(node.func))
            elif isinstance(node, (cst.Import, cst.ImportFrom)):
                skipped.update(id(n) for n in walk(node, code_only=True))
        return any(
            isinstance(n, (cst.Attribute, cst.Name)) and id(n) not in skipped and canonical(self.path(n)) == wanted
            for n in walk(module, code_only=True)
        )

    def path(self, node: cst.CSTNode) -> Optional[str]:
        """The TF path a dotted name names (``contrib.slim.dropout``), through imports or a local module name."""
        symbol = self.names.tf_symbol(node)
        if symbol is not None:
            return symbol.path
        root = root_name(node)
        dotted = dotted_name(node)
        if root is None or dotted is None or root.value not in self.local or root is node:
            return None
        return self.local[root.value][0] + dotted[len(root.value) :]

    def constant(self, node: Optional[cst.BaseExpression]) -> Optional[Union[int, float]]:
        """A number written out, or a module constant bound once to one (``WEIGHT_DECAY = 5e-4``)."""
        value = number(node)
        if value is not None or not isinstance(node, cst.Name) or self.bindings[node.value] != 1:
            return value
        for statement in self.module.body:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if (
                        isinstance(small, cst.Assign)
                        and len(small.targets) == 1
                        and isinstance(small.targets[0].target, cst.Name)
                        and small.targets[0].target.value == node.value
                    ):
                        return number(small.value)
        return None

    def other_name(self, module: str, written: str) -> Optional[cst.CSTNode]:
        """The first name of the contrib ``module`` the file reads other than ``written`` (the
        function a rewrite writes into the file: ``image_ops.transform`` beside
        ``bipartite_match``), outside its imports; None if none."""
        if module not in self._other_names:
            self._other_names[module] = self._first_other_name(module, written)
        return self._other_names[module]

    def _first_other_name(self, module: str, written: str) -> Optional[cst.CSTNode]:
        parts: set[int] = set()  # the inner parts of dotted names, and the import statements' nodes
        for node in walk(self.module, code_only=True):
            if isinstance(node, cst.Attribute):
                parts.update((id(node.value), id(node.attr)))
            elif isinstance(node, (cst.Import, cst.ImportFrom)):
                parts.update(id(n) for n in walk(node, code_only=True))
        for node in walk(self.module, code_only=True):
            if isinstance(node, (cst.Attribute, cst.Name)) and id(node) not in parts:
                path = self.path(node)
                inside = path is not None and (path + ".").startswith(module + ".")
                if inside and canonical(path) != written:
                    return node
        return None

    def written_name(self, base: str) -> str:
        """The name of the function ``base`` written into the file (``bipartite_match``): one
        nothing else binds."""
        taken = set(self.names_used)
        for small in import_statements(self.module):
            taken.update(local for local, _ in import_bindings(small, tf_only=False))
        return fresh_name(base, taken)

    @cached_property
    def names_used(self) -> frozenset[str]:
        """Every name the file's code reads or binds, outside its imports."""
        return frozenset(name.value for name in name_nodes(self.module, imports=False))

    @cached_property
    def imported(self) -> dict[str, str]:
        """What the file's imports bind: local name -> qualified name (``os`` -> ``os``)."""
        return {
            local: qualified
            for small in import_statements(self.module)
            for local, qualified in import_bindings(small, tf_only=False)
        }

    def clashes(self, wanted: dict[str, str]) -> list[str]:
        """The names of ``wanted`` (local name -> the qualified name a written function reads
        through it) the file uses or imports for something else."""
        return sorted(
            name
            for name, qualified in wanted.items()
            if self.imported.get(name, qualified) != qualified
            or (name in self.names_used and name not in self.imported)
        )

    @cached_property
    def written_place(self) -> int:
        """The index of the top-level statement a written function goes before: after the
        imports and the lines binding the file's names of TensorFlow."""
        modules = ("tensorflow", "tensorflow.compat.v1", "tensorflow.compat.v2")
        aliases = {alias.split(".")[0] for alias in map(self.names.alias_of, modules) if alias}
        return after_imports(self.module, aliases)


#: The last part of each contrib name this codemod handles (``dropout``): what a read through
#: a local module name (``slim.dropout``) must end with to be one.
_HANDLED_LAST = frozenset(path.rpartition(".")[2] for path in HANDLED)


def local_module_candidates(module: cst.Module, names: TFNames) -> dict[str, tuple[str, cst.SimpleStatementLine]]:
    """``slim = tf.contrib.slim`` at the top level: name -> (contrib module path, its line)."""
    found = {}
    for statement in module.body:
        if not (
            isinstance(statement, cst.SimpleStatementLine)
            and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Assign)
            and len(statement.body[0].targets) == 1
        ):
            continue
        assign = statement.body[0]
        target = assign.targets[0].target
        symbol = names.tf_symbol(assign.value)
        if isinstance(target, cst.Name) and symbol is not None and symbol.path in LOCAL_MODULES:
            found[target.value] = (symbol.path, statement)
    return found


def reads_through_local_module(module: cst.Module, names: TFNames) -> bool:
    """Whether ``module`` binds a contrib module to a name of its own at the top level and
    reads a name this codemod handles through it (``slim.dropout``)."""
    local = local_module_candidates(module, names)
    if not local:
        return False
    for node in walk(module, code_only=True):
        if type(node) is cst.Attribute and node.attr.value in _HANDLED_LAST:
            root = root_name(node)
            dotted = dotted_name(node)
            if root is not None and dotted is not None and root.value in local:
                if handles(local[root.value][0] + dotted[len(root.value) :]):
                    return True
    return False
