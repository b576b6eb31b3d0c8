"""What minimize-to-tape reads: TF1 optimizers, the statements that use them, and which
binding of a name a function sees."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import libcst as cst

from tfmodernize.analysis.optimizers import optimizer_table
from tfmodernize.tfsymbols import TFNames

METHODS = ("minimize", "compute_gradients", "apply_gradients")
#: Arguments of ``minimize``/``compute_gradients`` that only steer graph scheduling or devices.
SCHEDULING = ("gate_gradients", "aggregation_method", "colocate_gradients_with_ops", "name")


@dataclass
class Site:
    """One ``opt.minimize/compute_gradients/apply_gradients`` statement in a function body."""

    function: cst.FunctionDef
    position: int  # index in the function body
    top: int  # index of the module-level statement holding the function
    method: str
    call: cst.Call
    line: cst.SimpleStatementLine
    target: Optional[str]
    receiver: cst.BaseExpression
    replacement: list[cst.BaseStatement] = field(default_factory=list)
    taped: bool = False  # the statements before it go into a tape
    keep_statement: bool = False  # only ``call`` is replaced, by ``call_replacement``
    #: ``with tf.control_dependencies(deps):`` holding the statement, if any, and whether the
    #: dependencies are provably empty (then the block goes).
    dependencies: Optional[cst.With] = None
    drop_dependencies: bool = False
    call_replacement: Optional[str] = None
    tape_name: str = "tape"
    #: the variables it differentiates, as code (minimize / compute_gradients)
    variables: Optional[str] = None
    #: the same, also when a line before the update binds them (``variables = ...``)
    trained: Optional[str] = None


@dataclass
class Optimizer:
    """A ``tf.train.XOptimizer(...)`` and every statement that uses it."""

    tf1_class: str
    call: cst.Call
    name: Optional[str]  # module-level name; None for one made inside a function
    sites: list[Site] = field(default_factory=list)
    #: For ``opt = tf.train.X(...)`` inside a function: that function, the statement's index
    #: and the local name. The Keras optimizer moves to module level (it owns variables).
    function: Optional[cst.FunctionDef] = None
    position: Optional[int] = None
    local_name: Optional[str] = None
    planned_hoist: bool = False
    #: Made in the function defining its step (its arguments read that function's names),
    #: not at module level.
    enclosed: bool = False
    problem: Optional[tuple[cst.CSTNode, str]] = None
    hoisted_name: str = "optimizer"
    #: (name of the TF1 learning-rate tensor, the Keras schedule replacing it)
    schedule: Optional[tuple[str, cst.Call]] = None
    #: Other calls of the same TF1 decay of the same step (a function that returns the decayed
    #: learning rate for the program to print): each becomes the schedule called at the step.
    schedule_reads: list[cst.Call] = field(default_factory=list)
    #: The TF1 decay call the schedule replaces.
    decay: Optional[cst.Call] = None
    #: The step counter the schedule reads (the ``global_step`` of its update).
    schedule_step: Optional[str] = None
    #: The function parameter (a fed placeholder, once session-to-function ran) that is the
    #: learning rate: each step assigns it to the Keras optimizer's ``learning_rate``.
    fed_rate: Optional[str] = None
    #: Statements (function, index) that go once the optimizer is migrated.
    removals: list[tuple[cst.FunctionDef, int]] = field(default_factory=list)
    #: A ``GradientDescentOptimizer``'s constant learning rate, as code, when each step
    #: subtracts it times the gradient from each variable itself (no Keras optimizer).
    plain_rate: Optional[str] = None


def tf1_optimizer(tf: TFNames, node: cst.CSTNode) -> Optional[str]:
    """The TF1 optimizer class ``node`` constructs (``tf.train.AdamOptimizer(...)``: ``AdamOptimizer``),
    if it is one the optimizer table maps."""
    if not isinstance(node, cst.Call):
        return None
    symbol = tf.tf_symbol(node.func)
    if symbol is None or not symbol.path.startswith("train."):
        return None
    tf1_class = symbol.path[len("train.") :]
    return tf1_class if tf1_class in optimizer_table() else None


def bound_arguments(call: cst.Call, positions: tuple[str, ...]) -> Optional[dict[str, cst.BaseExpression]]:
    found: dict[str, cst.BaseExpression] = {}
    for index, arg in enumerate(call.args):
        if arg.star:
            return None
        if arg.keyword is not None:
            found[arg.keyword.value] = arg.value
        elif index < len(positions):
            found[positions[index]] = arg.value
        else:
            return None
    return found


def assignment(name: str, value: cst.BaseExpression) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], value)])


class LatestBinding:
    """Module-level optimizer bindings by name; a use belongs to the latest binding before it."""

    def __init__(self, bindings: dict[str, list[tuple[int, Optimizer]]]) -> None:
        self._bindings = bindings

    def at(self, name: str, index: int) -> Optional[Optimizer]:
        """The optimizer ``name`` is bound to when module statement ``index`` runs."""
        before = [optimizer for bound, optimizer in self._bindings.get(name, ()) if bound < index]
        return before[-1] if before else None

    def named(self, name: str) -> list[Optimizer]:
        return [optimizer for _, optimizer in self._bindings.get(name, ())]

    def all(self) -> list[Optimizer]:
        return [optimizer for bound in self._bindings.values() for _, optimizer in bound]
