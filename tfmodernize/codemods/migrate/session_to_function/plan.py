"""What session-to-function decides about a unit before it rewrites anything, and the small
helpers shared by its modules."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Callable, Optional, Sequence, Union

import libcst as cst

from tfmodernize.syntax import commas, parenthesized

from tfmodernize.treewalk import visit

from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.session_to_function.graph import GraphUnit
from tfmodernize.codemods.migrate.session_to_function.model import Kind, Statement, Value

#: ``ConfigProto`` fields with a process-wide ``tf.config`` equivalent.
CONFIG_CALLS = {
    "log_device_placement": "debugging.set_log_device_placement",
    "allow_soft_placement": "config.set_soft_device_placement",
    "intra_op_parallelism_threads": "config.threading.set_intra_op_parallelism_threads",
    "inter_op_parallelism_threads": "config.threading.set_inter_op_parallelism_threads",
}
#: What the names of the old graph are that do not survive the migration outside functions.
GONE = (Value.PLACEHOLDER, Value.DYNAMIC, Value.OP, Value.SESSION, Value.INIT, Value.CONFIG, Value.GRAPH, Value.FEED)
#: Modules whose functions never create TF variables.
SAFE_MODULES = ("numpy", "math", "operator", "functools", "itertools")
#: Fix message of a removed initializer run (also counted: a second one after updates declines).
INITIALISED = "variables are initialised when created in TF2"
#: What a user can do about a fed tensor that is not a placeholder (TF1 overrides its value).
OVERRIDE_HINT = (
    "TF1 replaces that tensor's value for this run; make it "
    "`tf.placeholder_with_default(<its expression>, <shape>)` and migrate again"
)
#: Method forms of TF1's ``tf.assign(ref, value)`` family.
ASSIGN_METHODS = {"assign": "assign", "assign_add": "assign_add", "assign_sub": "assign_sub"}
#: dtype of ``tf.placeholder_with_default``'s input when it is a Python literal.
LITERAL_DTYPES = {cst.Float: "float32", cst.Integer: "int32"}


class Shape(StrEnum):
    """The structure values were fetched in, and are returned in."""

    SINGLE = "single"
    LIST = "list"
    TUPLE = "tuple"
    DICT = "dict"
    #: ``a, b = sess.run([x, y])`` once fetched ops are left out
    UNPACKED = "unpacked"
    #: only ops were fetched: nothing is returned
    NONE = "none"


@dataclass
class FunctionPlan:
    """One ``@tf.function`` to emit."""

    name: str
    params: list[str]
    body: list[Statement]
    returned: Optional[cst.BaseExpression]
    anchor: int  # index of the unit statement after which (or before which, if empty) it goes
    minimizes: int = 0
    gradients: int = 0
    #: the body as emitted: statements and calls of shared helpers, in dependency order
    steps: list[Union[Statement, Helper]] = field(default_factory=list)
    #: indices of the unit statements that call it
    sites: list[int] = field(default_factory=list)
    #: constant tensors the run feeds (TF1 replaced their value): parameters after the placeholders
    overrides: list[str] = field(default_factory=list)
    #: the summaries it writes (``with writer.as_default(step=step): ...``, moved in from the
    #: loop that wrote them after each call) and the step parameter they are written at
    summaries: Optional[cst.With] = None
    summary_step: Optional[str] = None


@dataclass
class Helper:
    """A sub-graph several functions need: one plain function they all call."""

    name: str
    params: list[str]
    outputs: list[str]
    body: list[Statement]

    @property
    def anchor(self) -> int:
        return self.body[-1].index

    def call(self) -> cst.SimpleStatementLine:
        targets = [cst.Element(cst.Name(n)) for n in self.outputs]
        target = targets[0].value if len(targets) == 1 else cst.Tuple(commas(targets), lpar=[], rpar=[])
        call = cst.Call(cst.Name(self.name), commas([cst.Arg(cst.Name(p)) for p in self.params]))
        return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(target)], call)])


@dataclass
class Element:
    """One fetched value of a ``sess.run`` call (``key``: its key in a fetched dict)."""

    expr: cst.BaseExpression
    kind: Value  # init, op, variable, static or dynamic ("" until read)
    key: Optional[cst.BaseExpression] = None


@dataclass
class UnitPlan:
    """Everything decided about one unit before anything is rewritten: a decline anywhere
    leaves the whole unit as it was."""

    unit: GraphUnit
    functions: dict[tuple, FunctionPlan] = field(default_factory=dict)
    calls: dict[cst.CSTNode, cst.BaseExpression] = field(default_factory=dict)
    smalls: dict[cst.CSTNode, Optional[cst.BaseSmallStatement]] = field(default_factory=dict)
    fixes: list[tuple[cst.CSTNode, str]] = field(default_factory=list)
    taken: set[str] = field(default_factory=set)
    config: dict[int, list[cst.BaseStatement]] = field(default_factory=dict)
    #: statements emitted before the unit statement of that index (inline session configs)
    prefix: dict[int, list[cst.BaseStatement]] = field(default_factory=dict)
    #: names read somewhere other than as a feed value
    numpy_uses: set[str] = field(default_factory=set)
    #: names read anywhere they are visible (the unit's body; the module, for module-level code)
    reads: set[str] = field(default_factory=set)
    #: feed dicts built where the graph runs, by name, and the uses turned into ``**feed``
    local_feeds: dict[str, cst.Dict] = field(default_factory=dict)
    feed_uses: set[int] = field(default_factory=set)
    #: other nodes of run statements to replace (string-keyed feed dicts, their new names)
    replacements: dict[cst.CSTNode, cst.CSTNode] = field(default_factory=dict)
    #: subscripts of runs fetching ops (``sess.run([step, loss])[1]``): what each becomes, from
    #: the subscript as rebuilt (its index into the values the function returns, or none)
    picks: dict[cst.Subscript, Callable[[cst.Subscript], cst.CSTNode]] = field(default_factory=dict)
    #: local feed dicts renamed, old name -> new
    feed_names: dict[str, str] = field(default_factory=dict)
    helpers: list[Helper] = field(default_factory=list)
    reused: set[str] = field(default_factory=set)
    #: ids of run-statement calls inside a loop (they run more than once)
    repeated: set[int] = field(default_factory=set)
    #: a fetch built where the graph runs updates variables (``sess.run(w.assign_add(1))``)
    eager_updates: bool = False
    #: ids of the session calls that update variables (an optimizer step, an assign)
    updating: set[int] = field(default_factory=set)
    #: indices of the constant or plain statements only the functions compute (they move in)
    moved: set[int] = field(default_factory=set)
    #: ids of the initializer runs, and the variables each initialises (their statements' indices)
    initialised: dict[int, set[int]] = field(default_factory=dict)
    #: each call of a function where it stands: (function, site, targets, the planned call)
    step_calls: list[tuple[FunctionPlan, Any, Any, cst.Call]] = field(default_factory=list)
    #: compound statements of run statements that go (summaries moved into a function)
    dropped: set[int] = field(default_factory=set)
    #: input specs several functions share, by parameter and spec source: their name
    spec_names: dict[tuple[str, str], str] = field(default_factory=dict)
    #: what a traced function says of a tensor read outside the session (``f.get_concrete_function()
    #: .output_shapes``), by the id of that expression: the local it is read into before a
    #: statement it makes wider than the file (``<tensor>_shape``)
    traced: dict[int, str] = field(default_factory=dict)
    #: a tensor named like the module function it came from (``spread = spread(x)``): its
    #: ``Name`` nodes in the functions (by id), and the local they are written as there
    renamed: dict[int, str] = field(default_factory=dict)
    #: fed values a loop's runs pass unchanged, converted once before the unit statement
    #: holding the loop: (statement index, fed name, dtype source) -> the tensor's name
    invariants: dict[tuple[int, str, str], str] = field(default_factory=dict)
    #: ids of the session parameters of session helpers (``def test(sess):``) and of the
    #: arguments handing them a session (``test(sess)``): they go
    handed: set[int] = field(default_factory=set)
    #: a unit inside a function (its functions are nested ones)
    nested: bool = False
    #: module-level code in a block (``if __name__ == "__main__":``): a definition opening the
    #: block has a blank line above it, as module-level definitions do
    in_block: bool = False
    #: why the migrated unit would compute other numbers (a random op drawn by several
    #: functions), at which node: applied only as an unsafe fix
    unsafe: Optional[tuple[cst.CSTNode, str]] = None


def numpy_call(expr: cst.BaseExpression) -> cst.Call:
    return cst.Call(cst.Attribute(parenthesized(expr, before_attribute=True), cst.Name("numpy")))


def side_effect_free(expr: cst.BaseExpression) -> bool:
    """No call anywhere in ``expr`` (dropping it cannot lose an effect)."""
    found = []

    class Finder(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            found.append(node)

    visit(expr, Finder())
    return not found


def describe(expr: cst.BaseExpression) -> str:
    """A name-like word for a fetched expression: ``y``, ``reduce_max`` for ``tf.reduce_max(y)``."""
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Call):
        func = expr.func
        return func.attr.value if isinstance(func, cst.Attribute) else describe(func)
    if isinstance(expr, cst.Subscript):
        return describe(expr.value)
    if isinstance(expr, cst.Attribute):
        return expr.attr.value
    return "value"


def returned_is(function: FunctionPlan, container: type) -> bool:
    return isinstance(function.returned, container)


def in_order(statements: Sequence[Statement]) -> list[str]:
    """Names the statements bind, by first binding."""
    seen: list[str] = []
    for stmt in statements:
        for name in sorted(stmt.defs):
            if name not in seen:
                seen.append(name)
    return seen


def order_steps(body: Sequence[Statement], helpers: Sequence[Helper]) -> list[Union[Statement, Helper]]:
    """A function body with its helpers' statements replaced by calls, ordered so that every
    step comes after the steps binding the names it uses (program order otherwise)."""
    owner: dict[int, Helper] = {}
    for helper in helpers:
        for stmt in helper.body:
            owner[stmt.index] = helper
    if not any(stmt.index in owner for stmt in body):
        return list(body)
    steps: list[Union[Statement, Helper]] = []
    step_of: dict[int, int] = {}
    for stmt in body:
        step = owner.get(stmt.index, stmt)
        if step not in steps:
            steps.append(step)
        step_of[stmt.index] = steps.index(step)
    needs: list[set[int]] = [set() for _ in steps]
    binder: dict[str, int] = {}
    for stmt in sorted(body, key=lambda s: s.index):
        here = step_of[stmt.index]
        needs[here] |= {step_of[binder[n]] for n in stmt.uses if n in binder} - {here}
        binder.update((name, stmt.index) for name in stmt.defs)
    ordered: list[int] = []
    while len(ordered) < len(steps):
        ready = [i for i in range(len(steps)) if i not in ordered and needs[i] <= set(ordered)]
        if not ready:
            stuck = steps[next(i for i in range(len(steps)) if i not in ordered)]
            first = stuck.body[0] if isinstance(stuck, Helper) else stuck
            raise Decline(first.origin, "shared sub-graphs depend on each other both ways")
        ordered.append(ready[0])
    return [steps[i] for i in ordered]


def squeeze(lines: list[cst.EmptyLine], most: int) -> list[cst.EmptyLine]:
    """Leading lines with runs of blank lines cut to ``most``."""
    out: list[cst.EmptyLine] = []
    run = 0
    for line in lines:
        run = run + 1 if line.comment is None else 0
        if line.comment is not None or run <= most:
            out.append(line)
    return out


def drawn_unrun(plan: UnitPlan) -> set[int]:
    """Indices of the random statements no function computes, built from constants only
    (``noise = tf.random_normal([4])`` never run): each stays, drawn once, eagerly, where it
    stands. TF1 gave the op its seed when it built it; a later random op (a variable's initial
    value) then gets the seed it got in TF1 (random-op creation order, design §9)."""
    unit = plan.unit
    computed = {member.index for function in plan.functions.values() for member in function.body}
    drawn: set[int] = set()
    for stmt in unit.statements:
        unrun = stmt.kind is Kind.GRAPH and stmt.dynamic and stmt.random_only
        if not unrun or stmt.index in computed:
            continue
        sources = [unit.reaching(name, stmt.index) for name in stmt.uses]
        if all(
            source is None
            or source.index in drawn
            or not (source.kind is Kind.GRAPH and source.dynamic or source.index in plan.moved)
            for source in sources
        ):
            drawn.add(stmt.index)
    return drawn
