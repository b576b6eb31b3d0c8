"""Batch normalisation for layers-to-keras: when Keras's ``BatchNormalization`` computes and
updates what TF1's ``tf.layers.batch_normalization`` did, and the ``UPDATE_OPS`` plumbing that
goes with it (see the codemod's docstring)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional, Sequence

import libcst as cst

from tfmodernize.codemod import Decline
from tfmodernize.analysis import graph_collections
from tfmodernize.analysis import module_variables
from tfmodernize.analysis.project_facts import foreign_call, foreign_imports
from tfmodernize.names import bound_names, name_nodes, names_read
from tfmodernize.syntax import argument, calls_in, source, statement_of
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import walk

if TYPE_CHECKING:
    from tfmodernize.codemods.migrate.layers_to_keras.rewrites import Editor


class BatchNorms:
    """The batch normalisations of one module: ``check`` declines one Keras would not
    reproduce; ``update_ops`` says how the program runs their updates (read once)."""

    def __init__(self, module: cst.Module, tf: TFNames, parents: dict, project: Any) -> None:
        self.module, self.tf, self.parents, self.project = module, tf, parents, project
        self._read: "UpdateOps | str | None" = None

    def check(self, call: cst.Call, passed: dict[str, cst.BaseExpression]) -> None:
        """Declines a batch normalisation Keras would not reproduce. TF1's fused kernel (4-D
        inputs, ``fused`` left to TF1) updates the moving variance with the unbiased batch
        variance, Keras with the biased one: proven equal on 2-D inputs or with ``fused=False``.
        In training mode the moving statistics change whenever the layer runs in Keras, in TF1
        only in runs of the step depending on ``UPDATE_OPS`` (``update_ops``)."""
        fused = passed.get("fused")
        if not false(fused) and self._rank(passed["inputs"]) != 2:
            raise Decline(
                call,
                "TF1's fused batch normalisation (inputs of rank 4, `fused` not False) updates the "
                "moving variance with the unbiased batch variance, Keras with the biased one; pass "
                "`fused=False` in TF1 to agree with Keras, then migrate",
            )
        training_mode = passed.get("training", cst.Name("False"))
        if false(training_mode):
            return
        updates = self.update_ops()
        if isinstance(updates, str):
            raise Decline(call, f"`training={source(training_mode)}`: {updates}")
        if not isinstance(training_mode, cst.Name):
            raise Decline(
                call,
                f"`training={source(training_mode)}` is not a boolean placeholder the program feeds: "
                "Keras would update the moving statistics in runs where TF1 did not",
            )
        problem = self._switch_problem(training_mode.value, updates)
        if problem is not None:
            raise Decline(call, f"`training={training_mode.value}`: {problem}")

    def _rank(self, value: cst.BaseExpression) -> Optional[int]:
        """The rank of a tensor the program built at top level, when its statements tell it:
        a placeholder of literal shape, ``tf.layers.dense``/``flatten``, elementwise ops."""
        for _ in range(20):
            if isinstance(value, cst.Name):
                bound = module_variables.module_assignment(self.module, value.value)
                if bound is None:
                    return None
                value = bound[1]
            elif isinstance(value, cst.Call) and self.tf.is_tf(value.func, "placeholder", "placeholder_with_default"):
                shape = argument(value, 1, "shape")
                return len(shape.elements) if isinstance(shape, (cst.List, cst.Tuple)) else None
            elif isinstance(value, cst.Call) and self.tf.is_tf(value.func, "layers.flatten"):
                return 2
            elif isinstance(value, cst.Call) and self.tf.is_tf(value.func, *ELEMENTWISE) and value.args:
                value = value.args[0].value
            else:
                return None
        return None

    def update_ops(self) -> "UpdateOps | str":
        """How the program runs the batch normalisation updates of ``UPDATE_OPS`` (the
        ``control_dependencies`` blocks over it), or why that cannot be followed."""
        if self._read is None:
            self._read = self._read_update_ops(self.module)
        return self._read

    def _read_update_ops(self, module: cst.Module) -> "UpdateOps | str":
        updates = UpdateOps()
        reads = [c for c in calls_in(module) if graph_collections.update_ops_collection(c, module, self.tf) is not None]
        parents = self.parents
        for statement in module.body:
            if not (isinstance(statement, cst.With) and len(statement.items) == 1):
                continue
            item = statement.items[0].item
            if not (
                isinstance(item, cst.Call)
                and self.tf.is_tf(item.func, "control_dependencies")
                and len(item.args) == 1
                and item.args[0].keyword is None
            ):
                continue
            read = graph_collections.update_ops_collection(item.args[0].value, module, self.tf)
            if read is None:
                continue
            updates.blocks.append(statement)
            updates.steps |= bound_names(statement.body)
            if isinstance(item.args[0].value, cst.Name):
                line = _line_of(read, parents)
                if line is None:
                    return "its `UPDATE_OPS` read is not a line of its own"
                if line not in updates.bindings:
                    updates.bindings.append(line)
        inside = {id(n) for node in [*updates.blocks, *updates.bindings] for n in walk(node)}
        if any(id(read) not in inside for read in reads):
            return "the program reads `UPDATE_OPS` other than around its training step"
        if any(self.tf.is_tf(c.func, "add_to_collection", "add_to_collections") for c in calls_in(module)):
            return "the program adds to collections itself"
        if foreign_call(module, foreign_imports(module, self.project)) is not None:
            return "the program calls code defined elsewhere that may add update ops"
        if not updates.blocks:
            return "no training step depends on `UPDATE_OPS`, so TF1 never updated the moving statistics"
        return updates

    def _switch_problem(self, switch: str, updates: "UpdateOps") -> Optional[str]:
        """Why training mode through the placeholder ``switch`` may update the moving statistics
        in Keras where TF1 did not, or None: TF1 updated them only in runs of the step depending
        on ``UPDATE_OPS``, Keras whenever the layer runs in training mode. Equal when every feed
        of ``switch`` other than a literal False is in a run fetching that step."""
        bound = module_variables.module_assignment(self.module, switch)
        if bound is None or not (
            isinstance(bound[1], cst.Call) and self.tf.is_tf(bound[1].func, "placeholder", "placeholder_with_default")
        ):
            return "it is not a boolean placeholder the program feeds: Keras would update the moving statistics in runs where TF1 did not"
        if self.tf.is_tf(bound[1].func, "placeholder_with_default") and not false(argument(bound[1], 0, "input")):
            return "it defaults to training mode"
        parents = self.parents
        for dictionary in (n for n in walk(self.module, code_only=True) if isinstance(n, cst.Dict)):
            for element in dictionary.elements:
                if not (
                    isinstance(element, cst.DictElement)
                    and isinstance(element.key, cst.Name)
                    and element.key.value == switch
                ) or false(element.value):
                    continue
                runs = _runs_feeding(dictionary, self.module, parents)
                if not runs or any(
                    not names_read(argument(run, 0, "fetches") or cst.Name("None")) & updates.steps for run in runs
                ):
                    return (
                        "a run turning training mode on does not fetch the step depending on `UPDATE_OPS`: Keras "
                        "would update the moving statistics there, TF1 did not"
                    )
        return None


@dataclass
class UpdateOps:
    """A program's use of ``UPDATE_OPS``: the ``control_dependencies`` blocks over it, the
    ``update_ops = tf.get_collection(...)`` lines and the names those blocks bind (the training
    step)."""

    blocks: list[cst.With] = field(default_factory=list)
    bindings: list[cst.SimpleStatementLine] = field(default_factory=list)
    steps: set[str] = field(default_factory=set)


#: Ops keeping the rank of their (first) input.
ELEMENTWISE = (
    "nn.relu",
    "nn.relu6",
    "nn.elu",
    "nn.selu",
    "nn.leaky_relu",
    "nn.tanh",
    "nn.sigmoid",
    "tanh",
    "sigmoid",
    "layers.dense",
    "layers.dropout",
    "layers.batch_normalization",
    "identity",
)


def false(node: Optional[cst.BaseExpression]) -> bool:
    return isinstance(node, cst.Name) and node.value == "False"


def _line_of(node: cst.CSTNode, parents: dict) -> Optional[cst.SimpleStatementLine]:
    """The ``name = node`` line holding ``node``."""
    assert isinstance(node, cst.Call)
    found = statement_of(node, parents)
    return found[1] if found is not None and found[0] is not None else None


def _runs_feeding(dictionary: cst.Dict, module: cst.Module, parents: dict) -> list[cst.Call]:
    """The ``.run(fetches, feed)`` calls ``dictionary`` is fed to: passed there directly, or bound
    to a name only ever passed as a feed. Empty when it goes anywhere else."""

    def feed_of(call: cst.Call) -> Optional[cst.BaseExpression]:
        if isinstance(call.func, cst.Attribute) and call.func.attr.value == "run":
            return argument(call, 1, "feed_dict")
        return None

    holder = parents.get(id(dictionary))
    if isinstance(holder, cst.Arg):
        call = parents.get(id(holder))
        return [call] if isinstance(call, cst.Call) and feed_of(call) is dictionary else []
    if not (
        isinstance(holder, cst.Assign)
        and holder.value is dictionary
        and len(holder.targets) == 1
        and isinstance(holder.targets[0].target, cst.Name)
    ):
        return []
    name = holder.targets[0].target.value
    runs = [c for c in calls_in(module) if isinstance(feed_of(c), cst.Name) and feed_of(c).value == name]
    bindings = [
        n
        for n in walk(module, code_only=True)
        if isinstance(n, cst.AssignTarget) and isinstance(n.target, cst.Name) and n.target.value == name
    ]
    # Each use of the name binds it or feeds one of the runs.
    return runs if sum(1 for n in name_nodes(module) if n.value == name) == len(runs) + len(bindings) else []


def dedented(block: cst.With, carried: Sequence[cst.EmptyLine] = ()) -> list[cst.BaseStatement]:
    """The body of a ``with`` block, its first statement carrying ``carried`` and the block's
    leading lines."""
    body = list(block.body.body)
    body[0] = body[0].with_changes(leading_lines=[*carried, *block.leading_lines, *body[0].leading_lines])
    return body


def drop_update_dependencies(editor: "Editor", norms: BatchNorms, module: cst.Module) -> bool:
    """Keras layers update their moving statistics themselves: the ``UPDATE_OPS`` read and the
    ``control_dependencies`` block around the training step go. Whether they went (the caller
    drops them once per file)."""
    updates = norms.update_ops()
    if not isinstance(updates, UpdateOps):
        return False
    body = list(module.body)
    for block in updates.blocks:
        # The comments above a removed ``update_ops = ...`` line right before it stay.
        index = next(i for i, s in enumerate(body) if s is block)
        carried = (
            list(body[index - 1].leading_lines)
            if index and any(body[index - 1] is binding for binding in updates.bindings)
            else []
        )
        editor.replace(block, lambda updated, carried=carried: cst.FlattenSentinel(dedented(updated, carried)))
    for binding in updates.bindings:
        editor.remove(binding)
    return True
