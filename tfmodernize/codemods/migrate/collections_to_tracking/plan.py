"""What collections-to-tracking reads of one file, once: the collections TF1 knows by name, and
``CollectionsPlan``, the file's facts its parts are handed (the tree, its parent map, its calls,
the variable inventory, the project) with the questions they ask of them."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Optional

import libcst as cst

from tfmodernize.analysis import module_variables
from tfmodernize.file_state import FileState
from tfmodernize.names import used_names
from tfmodernize.syntax import ancestors, calls_in
from tfmodernize.tfsymbols import TFNames

#: ``tf.GraphKeys`` attributes this codemod knows, with the collection names they stand for.
GRAPH_KEYS = {
    "TRAINABLE_VARIABLES": "trainable_variables",
    "GLOBAL_VARIABLES": "variables",
    "UPDATE_OPS": "update_ops",
    "REGULARIZATION_LOSSES": "regularization_losses",
    "LOSSES": "losses",
}
VARIABLE_READS = {
    "trainable_variables": "trainable_variables",
    "global_variables": "variables",
    "all_variables": "variables",
}
#: Collection names TF fills by itself; a program's own list must not have one of these names.
BUILTIN_KEYS = frozenset(
    {
        *GRAPH_KEYS.values(),
        "summaries",
        "local_variables",
        "model_variables",
        "moving_average_variables",
        "queue_runners",
        "savers",
        "cond_context",
        "while_context",
        "metric_variables",
        "init_op",
        "train_op",
        "global_step",
    }
)
#: What a finding tells the user to pass in instead of a collection read it leaves, by collection.
PASS_INSTEAD = {
    "regularization_losses": "pass the regularization losses in explicitly (a Keras model's `model.losses`, or the "
    "penalties of the weights that have them)",
    "update_ops": "pass the update ops in explicitly (Keras layers run their updates themselves)",
    "trainable_variables": "pass the variables in explicitly (a Keras model's `model.trainable_variables`)",
    "variables": "pass the variables in explicitly (a Keras model's `model.variables`)",
}


@dataclass
class CollectionsPlan:
    """One file as the codemod received it: ``module`` (the tree it plans on), ``tf`` (its TF
    names) and ``state`` (the file's shared state: parent map, readings, project, callers).
    What is costly is read when first asked for, once."""

    module: cst.Module
    tf: TFNames
    state: FileState

    @functools.cached_property
    def calls(self) -> list[cst.Call]:
        """Every call of the file, in source order."""
        return list(calls_in(self.module))

    @functools.cached_property
    def parents(self) -> dict:
        return self.state.parents(self.module)

    @functools.cached_property
    def inventory(self) -> module_variables.VariableInventory:
        return self.state.reading(self.module, module_variables.inventory)

    @functools.cached_property
    def taken(self) -> set[str]:
        """The file's identifiers, and the names the codemod has given since."""
        return used_names(self.module)

    def key(self, node: Optional[cst.BaseExpression]) -> Optional[str]:
        """The collection a literal string or a known ``tf.GraphKeys`` name stands for."""
        if isinstance(node, cst.SimpleString):
            value = node.evaluated_value
            return value if isinstance(value, str) else None
        symbol = self.tf.tf_symbol(node) if node is not None else None
        if symbol is not None and symbol.path.startswith("GraphKeys."):
            return GRAPH_KEYS.get(symbol.path[len("GraphKeys.") :])
        return None

    def added(self, key: str) -> bool:
        """Whether the file adds to the collection ``key`` itself (``add_to_collection``)."""
        return any(
            self.tf.is_tf(c.func, "add_to_collection", "add_to_collections")
            and c.args
            and self.key(c.args[0].value) == key
            for c in self.calls
        )

    def owner(self, call: cst.Call) -> tuple[Optional[cst.CSTNode], Optional[cst.CSTNode]]:
        """(innermost function holding ``call`` or the module, the statement of that body holding it)."""
        chain = [call]
        while (parent := self.parents.get(id(chain[-1]))) is not None:
            chain.append(parent)
        if chain[-1] is not self.module:
            return None, None
        for index, node in enumerate(chain):
            if isinstance(node, cst.FunctionDef):
                # ``def f(): <body>``: the statement is the child of its indented block.
                in_body = index >= 2 and isinstance(chain[index - 1], cst.IndentedBlock)
                return node, chain[index - 2] if in_body else None
        return self.module, chain[-2]

    def top_level_index(self, node: cst.CSTNode) -> Optional[int]:
        """Index of the module-level statement holding ``node`` (``syntax.top_level_index``),
        read up the parent map rather than searched for in every statement."""
        chain = [node, *ancestors(node, self.parents)]
        if len(chain) < 2 or chain[-1] is not self.module:
            return None
        return next(index for index, statement in enumerate(self.module.body) if statement is chain[-2])
