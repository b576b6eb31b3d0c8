"""TFM203 tape-scope.

What it does
    Where the target of ``tape.gradient`` is computed from a result of the
    ``with tf.GradientTape() as tape:`` block *after* the block (``logits[:, 7]``,
    ``loss_a + loss_b``, ``tf.reduce_mean(...)``, in the call itself or in statements between
    the block and the call), moves that computation to the end of the block: statements in
    between move as they are, and a target expression is bound to a new name there
    (``target``) that the gradient call then uses.

    The fix keeps the order in which everything runs: it applies only when the statements in
    between are plain simple statements that do not use the tape, the gradient call is the
    first thing its statement evaluates, and the ``with`` has the tape as its only context
    manager. Otherwise it reports a finding. A target that only looks a taped result up by a
    string key (``losses["total"]``, a dict filled in the block) is left alone: no op runs
    after the block. NumPy on the moved taped results would still cut
    the gradient inside the block: calls with a TF op computing the same (``np.mean`` ->
    ``tf.reduce_mean``, ``np.sum``, ``np.max``, ``np.square``, ...; ``axis``/``keepdims``
    kept) move as that op; any other NumPy call there is a finding.

Why it matters
    A tape records only the operations run inside its block. A target computed after the block
    is not connected to the recorded computation, so ``tape.gradient`` silently returns
    ``None`` (and ``apply_gradients`` then fails with "No gradients provided").

Before
    with tf.GradientTape() as tape:
        logits = model(images)
    grads = tape.gradient(tf.reduce_mean(logits[:, 7]), images)

After
    with tf.GradientTape() as tape:
        logits = model(images)
        target = tf.reduce_mean(logits[:, 7])
    grads = tape.gradient(target, images)

Fix safety
    The moved statements compute the same values, now recorded by the tape: the gradient is the one
    the author meant instead of None.

Declines when
    a statement between the block and the gradient call cannot be moved (it has side effects, reads
    names bound after it, or uses the tape).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Sequence, Union

import libcst as cst
from libcst.metadata import ParentNodeProvider, ScopeProvider

from tfmodernize.treewalk import walk
from tfmodernize.analysis.tape import (
    GradientCall,
    gradient_call,
    gradient_calls,
    numpy_as_tf,
    numpy_function,
    tape_with,
)
from tfmodernize.names import bound_names, names_read
from tfmodernize.codemod import TFCodemod
from tfmodernize.tfsymbols import dotted_name

Container = Union[cst.Module, cst.IndentedBlock]
#: Small statements that only compute (no control flow), so running them earlier is the same.
MOVABLE = (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Expr)
#: Expressions whose evaluation time is part of their meaning.
UNMOVABLE_EXPRESSIONS = (cst.Lambda, cst.Yield, cst.Await, cst.NamedExpr)


@dataclass
class Move:
    """What to do to one tape block: statements to move in, and a target to bind there."""

    statements: list[cst.SimpleStatementLine] = field(default_factory=list)
    target: Optional[cst.BaseExpression] = None
    target_name: str = ""
    first_lines: Sequence[cst.EmptyLine] = ()
    #: NumPy calls of the moved code -> the TF function replacing theirs
    numpy: dict[cst.Call, cst.BaseExpression] = field(default_factory=dict)


class TapeScope(TFCodemod):
    __doc__ = __doc__
    code = "TFM203"
    name = "tape-scope"
    summary = "computation on taped results after the tape block (gradient None) -> inside the block"
    needles = ("GradientTape",)
    interests = (cst.Call,)
    METADATA_DEPENDENCIES = (ScopeProvider, ParentNodeProvider)

    @classmethod
    def detect(cls, node: cst.CSTNode, names) -> bool:
        return gradient_call(node) is not None

    def visit_Module(self, node: cst.Module) -> None:
        self._scopes = self.metadata[ScopeProvider]
        self._parents = self.metadata[ParentNodeProvider]
        self._taken = names_read(node)
        self._moves: dict[cst.With, Move] = {}
        self._removed: set[cst.CSTNode] = set()
        self._leading: dict[cst.CSTNode, Sequence[cst.EmptyLine]] = {}
        self._renamed: dict[cst.CSTNode, str] = {}

        for call in gradient_calls(node, self.tf, self._scopes, self._parents):
            block = tape_with(call.tape, self._scopes, self._parents)
            if block is not None and isinstance(block.body, cst.IndentedBlock):
                self._plan(block, call)

    def _plan(self, block: cst.With, call: GradientCall) -> None:
        taped = bound_names(block.body)
        statement, container = self._statement_in(call.call, block)
        if statement is None or statement is block:
            return  # elsewhere, or inside the block where the target is recorded
        siblings = list(container.body)
        if siblings.index(statement) < siblings.index(block):
            return
        if not isinstance(statement, cst.SimpleStatementLine):
            if not isinstance(call.target, cst.Name) and self._reads_taped(call.target, taped, ()):
                self.report(call.call, self._advice(call, "the gradient call is inside another statement"))
            return
        between = siblings[siblings.index(block) + 1 : siblings.index(statement)]
        between_bound = set().union(*(bound_names(s) for s in between)) if between else set()
        target_is_name = isinstance(call.target, cst.Name)
        if target_is_name and call.target.value not in between_bound:
            return  # computed in the block (recorded) or before it (not a taped result)
        if not self._reads_taped(call.target, taped, between, target_is_name):
            return
        if _keyed_lookup(call.target):
            return  # a dict entry of a taped result (``losses["total"]``): no op to record
        why = self._why_not_movable(block, call, statement, between)
        numpy: dict[cst.Call, str] = {}
        if why is None:
            numpy, why = self._numpy_moved(between, call, taped)
        if why is not None:
            self.report(call.call, self._advice(call, why))
            return
        if block in self._moves:
            self.report(call.call, self._advice(call, "another gradient target of this tape is already moved into it"))
            return
        message = (
            "computed from taped results after the tape block, so not recorded (gradient None): moved into the block"
        )
        if numpy:
            names = ", ".join(sorted({f"`{dotted_name(c.func)}` -> `tf.{p}`" for c, p in numpy.items()}))
            message += f", its NumPy as TF ops the tape records ({names})"
        if not self.fix(call.call, message):
            return
        move = Move(statements=list(between), numpy={c: self.tf_expr(p) for c, p in numpy.items()})
        if not target_is_name:
            move.target = call.target
            move.target_name = self._new_name()
            self._renamed[call.call] = move.target_name
        self._moves[block] = move
        self._removed.update(between)
        if between:
            # Blank lines that separated the block from what follows keep doing so; comments
            # stay with the statement they describe.
            lines = list(between[0].leading_lines)
            blank = next((i for i, line in enumerate(lines) if line.comment is not None), len(lines))
            self._leading[statement] = lines[:blank]
            move.first_lines = lines[blank:]

    def _numpy_moved(
        self, between: list[cst.CSTNode], call: GradientCall, taped: set[str]
    ) -> tuple[dict[cst.Call, str], Optional[str]]:
        """The NumPy calls of the moved computation on taped results, each with the TF op
        computing the same on a tensor; or why one has none (moved as NumPy, the gradient
        would stay None)."""
        reached = set(taped)
        converted: dict[cst.Call, str] = {}
        pieces: list[tuple[cst.CSTNode, set[str]]] = [(s, bound_names(s)) for s in between]
        if not isinstance(call.target, cst.Name):
            pieces.append((call.target, set()))
        for piece, bound in pieces:
            for node in walk(piece):
                if not isinstance(node, cst.Call):
                    continue
                function = numpy_function(node.func, self._scopes, self._parents)
                if function is None:
                    continue
                if not any(names_read(a.value) & reached for a in node.args):
                    continue
                tf_path = numpy_as_tf(node, function)
                if tf_path is None:
                    spelled = dotted_name(node.func) or "NumPy"
                    return (
                        {},
                        f"it goes through NumPy (`{spelled}`), which the tape cannot record even inside the block",
                    )
                converted[node] = tf_path
            if names_read(piece) & reached:
                reached |= bound
        return converted, None

    def _reads_taped(self, target: cst.BaseExpression, taped: set[str], between, target_is_name: bool = False) -> bool:
        """Whether the target (through the statements in between) is computed from taped names."""
        reached = set() if target_is_name else names_read(target) & taped
        needed = names_read(target)
        for statement in reversed(list(between)):
            bound = bound_names(statement)
            if bound & needed:
                read = names_read(statement) - bound
                reached |= read & taped
                needed |= read
        return bool(reached)

    def _why_not_movable(
        self, block: cst.With, call: GradientCall, statement: cst.CSTNode, between: list[cst.CSTNode]
    ) -> Optional[str]:
        if len(block.items) != 1 or block.asynchronous is not None:
            return "the `with` statement has other context managers"
        tape = call.tape.value
        for other in between:
            if not isinstance(other, cst.SimpleStatementLine) or not all(isinstance(s, MOVABLE) for s in other.body):
                return "a statement between the block and the gradient call is not a plain computation"
            if tape in names_read(other):
                return f"a statement between the block and the gradient call uses `{tape}`"
        if not isinstance(call.target, cst.Name):
            if tape in names_read(call.target) or any(isinstance(n, UNMOVABLE_EXPRESSIONS) for n in walk(call.target)):
                return "the target expression cannot be evaluated earlier"
            if not self._evaluated_first(call.call, statement):
                return "other parts of the statement run before the gradient call"
        return None

    def _evaluated_first(self, node: cst.CSTNode, statement: cst.CSTNode) -> bool:
        """Whether nothing with side effects in ``statement`` runs before ``node``."""
        while True:
            parent = self._parents.get(node)
            if parent is None:
                return False
            if isinstance(parent, cst.SimpleStatementLine):
                return parent is statement and len(parent.body) == 1
            if isinstance(parent, (cst.Expr, cst.Return)) or (isinstance(parent, cst.Assign) and parent.value is node):
                node = parent
                continue
            if isinstance(parent, cst.Arg):
                call = self._parents.get(parent)
                if not (isinstance(call, cst.Call) and call.args and call.args[0] is parent and dotted_name(call.func)):
                    return False
                node = call
                continue
            return False

    def _statement_in(self, node: cst.CSTNode, block: cst.With) -> tuple[Optional[cst.CSTNode], Optional[Container]]:
        """The statement holding ``node`` in the statement list of ``block``, and that list."""
        container = self._parents.get(block)
        if not isinstance(container, (cst.Module, cst.IndentedBlock)):
            return None, None
        current = node
        while current is not None:
            parent = self._parents.get(current)
            if parent is container:
                return current, container
            current = parent
        return None, None

    def _new_name(self) -> str:
        name, index = "target", 1
        while name in self._taken:
            name, index = f"target_{index}", index + 1
        self._taken.add(name)
        return name

    @staticmethod
    def _advice(call: GradientCall, why: str) -> str:
        return (
            f"the gradient target is computed from taped results after the `{call.tape.value}` block, "
            f"so it is not recorded and the gradient is None; not moved because {why}: compute it "
            f"inside the `with` block and pass that name to `{call.tape.value}.gradient`"
        )

    # -- rewriting ---------------------------------------------------------------------------

    def leave_Call(self, original: cst.Call) -> None:
        name = self._renamed.get(original)
        if name is not None:
            target = gradient_call(original).target
            self.replace(target, cst.Name(name))

    def leave_With(self, original: cst.With) -> None:
        move = self._moves.get(original)
        if move is not None:
            self.replace(original, lambda updated: self._with_moved(updated, move))

    @staticmethod
    def _with_moved(updated: cst.With, move) -> cst.With:
        added: list[cst.BaseStatement] = []
        as_tf = _NumpyAsTF(move.numpy)
        for index, statement in enumerate(move.statements):
            statement = statement.visit(as_tf) if move.numpy else statement
            added.append(statement.with_changes(leading_lines=move.first_lines) if index == 0 else statement)
        if move.target is not None:
            target = move.target.visit(as_tf) if move.numpy else move.target
            added.append(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(move.target_name))], target)]))
        body = updated.body
        return updated.with_changes(body=body.with_changes(body=[*body.body, *added]))

    def leave_Module(self, original: cst.Module) -> None:
        for statement in self._removed:
            self.remove(statement)
        for statement, lines in self._leading.items():
            if lines and statement not in self._removed and not statement.leading_lines:
                self.replace(statement, lambda updated, lines=lines: updated.with_changes(leading_lines=lines))


class _NumpyAsTF(cst.CSTTransformer):
    """Moved code with its NumPy calls (the original nodes) calling TF's functions instead."""

    def __init__(self, functions: dict[cst.Call, cst.BaseExpression]) -> None:
        super().__init__()
        self.functions = functions

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        function = self.functions.get(original_node)
        return updated_node if function is None else updated_node.with_changes(func=function)


def _keyed_lookup(target: cst.BaseExpression) -> bool:
    """``name["key"]`` (nested too): a string key cannot index a tensor, so it looks a value up
    in a Python mapping, and the tensor found there was computed, and recorded, in the block."""
    if not isinstance(target, cst.Subscript):
        return False
    keys = [element.slice for element in target.slice]
    if not all(
        isinstance(key, cst.Index) and isinstance(key.value, (cst.SimpleString, cst.ConcatenatedString)) for key in keys
    ):
        return False
    return isinstance(target.value, cst.Name) or _keyed_lookup(target.value)
