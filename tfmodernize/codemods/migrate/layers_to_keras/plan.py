"""What layers-to-keras reads of one file before it rewrites it (``FilePlan``), built once by
the codemod and passed to its collaborators (``ScopedVariables``, ``ProjectCallers``, the
layer readers and rewrites), with the few decisions one of them makes that another reads (the
layer objects made, this file's network functions made classes)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

import libcst as cst

from tfmodernize.analysis.variables import shares_variables
from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.layers_to_keras import modules
from tfmodernize.codemods.migrate.layers_to_keras.batch_norm import BatchNorms
from tfmodernize.codemods.migrate.layers_to_keras.hoisting import HoistedArguments, reads_input_dimension
from tfmodernize.codemods.migrate.layers_to_keras.network import NetworkFunctions
from tfmodernize.codemods.migrate.layers_to_keras.variable_lists import MadeLayer
from tfmodernize.names import name_nodes
from tfmodernize.syntax import statement_holding
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import walk


@dataclass(frozen=True)
class FilePlan:
    """One file as layers-to-keras reads it, and what the run tells it of the other files; its
    lists and dicts gather what one part decides for another."""

    module: cst.Module
    tf: TFNames
    #: Each code node's parent in ``module`` (``FileState.parents``).
    parents: dict
    networks: NetworkFunctions
    #: What a network function's made-once expressions read stands for before it.
    hoisting: HoistedArguments
    batch_norms: BatchNorms
    #: What the top-level ``from tensorflow... import x`` bind (``TFCodemod.from_imports``).
    from_imported: dict[str, str]
    #: Variable helpers (``def weight_variable(name, shape): return tf.get_variable(...)``) by name.
    helpers: dict[str, cst.FunctionDef]
    #: The other files of the run calling this one's functions (``FileState.callers``), if known.
    callers: Optional[dict]
    #: Why a class this file would export could not run where it is called (None: it could).
    exports_refused: Optional[str]
    #: What this file's rewrite tells the files importing it (``FileState.exports``), by code.
    exports: dict[str, Any]
    code: str
    #: The name of TF1's default kernel initializer written into the file (``initializer.py``)
    #: for the layers given none.
    initializer: str = "glorot_uniform"
    #: The name of the class of TF1's RNN cell kernels written into the file (``initializer.py``).
    cell_kernel: str = "CellKernel"
    #: The width new lines keep to (``layout.style_width``).
    width: int = 88
    #: The layer objects made, in creation order (for the variable lists picked by scope).
    made: list[MadeLayer] = field(default_factory=list)
    #: Network functions of this file called several times that became classes.
    local_splits: dict[str, modules.ImportedSplit] = field(default_factory=dict)
    #: The layers given a ``cell_kernel`` object (TF1's initializer of an RNN cell's kernel).
    cell_kernel_layers: list[str] = field(default_factory=list)
    #: The calls of each TF function in the file passing no ``name=`` (``unnamed_calls``).
    _unnamed: dict[str, int] = field(default_factory=dict)

    @property
    def cell_kernels(self) -> bool:
        """Whether a layer was given TF1's cell kernel: the class is written into the file."""
        return bool(self.cell_kernel_layers)

    def unnamed_calls(self, call: cst.Call) -> int:
        """How many calls of the TF function ``call`` calls the file makes passing no name
        (``name=``, ``scope=``): a layer made by one is named after the layer, by several
        after what each binds."""
        if not self._unnamed:
            for node in walk(self.module, code_only=True):
                symbol = self.tf.tf_symbol(node.func) if isinstance(node, cst.Call) else None
                if symbol is not None and not any(
                    a.keyword and a.keyword.value in ("name", "scope") for a in node.args
                ):
                    self._unnamed[symbol.path] = self._unnamed.get(symbol.path, 0) + 1
        symbol = self.tf.tf_symbol(call.func)
        return self._unnamed.get(symbol.path, 0) if symbol is not None else 0

    def export_class(self, function: str, exported: dict[str, Any]) -> None:
        """Tell the calling files that ``function`` became the class ``exported`` describes."""
        self.exports.setdefault(self.code, {}).setdefault("classes", {})[function] = exported

    def variable_scope(self, call: cst.CSTNode) -> str:
        """The TF1 variable scope ``call`` runs in (``outer/inner``): the names of the
        ``variable_scope`` blocks holding it (name scopes do not prefix variables); a scope
        named by a parameter ``name`` (in a network function becoming a class) is ``{name}``."""
        names: list[str] = []
        node = self.parents.get(id(call))
        while node is not None:
            if isinstance(node, cst.With):
                names += [
                    scope_name(item.item.args[0].value)
                    for item in reversed(node.items)
                    if isinstance(item.item, cst.Call) and self.tf.is_tf(item.item.func, "variable_scope")
                ]
            node = self.parents.get(id(node))
        return "/".join(reversed(names))

    def project_network(self, function: cst.FunctionDef, calls: list[cst.Call]) -> bool:
        """Whether ``function`` is a network function only other files of the run call (see
        ``modules``); declines when those calls could not follow its split into a class."""
        name = function.name.value
        if self.callers is None or [n for n in name_nodes(self.module) if n.value == name] != [function.name]:
            return False
        reason = modules.callers_allow_split(function, self.callers.get(name, []))
        if reason is not None:
            raise Decline(calls[0], f"it is applied in `{name}`: {reason}")
        if self.exports_refused is not None:
            raise Decline(
                calls[0],
                f"it is applied in `{name}`, a network function other files of the run call, "
                f"but {self.exports_refused}, where the class it would become could not run",
            )
        return True

    def called_apart(self, function: cst.FunctionDef) -> bool:
        """Whether this file calls a network function several times (or once, when its
        variables need the width of an input: ``in_dim = x.get_shape()[1]``), each call a
        statement of its top-level code outside any block, uses it nowhere else, no other file
        of the run calls it, and it shares no variables (``reuse``): TF1 made a network per
        call, so the function can become a class making one object per call, as for a project
        module's."""
        name = function.name.value
        parents = self.parents
        uses = [n for n in name_nodes(self.module) if n.value == name and n is not function.name]
        least = 1 if reads_input_dimension(function) else 2
        return (
            len(uses) >= least
            and not (self.callers or {}).get(name)
            and not shares_variables(function)
            and all(
                isinstance(parents.get(id(use)), cst.Call)
                and parents[id(use)].func is use
                and any(statement_holding(use, parents) is s for s in self.module.body)
                and isinstance(statement_holding(use, parents), cst.SimpleStatementLine)
                for use in uses
            )
        )


def scope_name(given: cst.BaseExpression) -> str:
    """A variable scope's name as a template: the literal, or ``{name}`` for a name."""
    if isinstance(given, cst.Name):
        return f"{{{given.value}}}"
    return (given.evaluated_value if isinstance(given, cst.SimpleString) else None) or ""
