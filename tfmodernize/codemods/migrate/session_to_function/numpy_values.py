"""What a run's fetched values become in TF2: numpy values where the program reads them as
``sess.run`` returned them (``.numpy()``, at any depth of a structure), the computation alone
where it drops them, and the reads a loop converts where it reads them."""

from __future__ import annotations

from typing import Callable, Optional

import libcst as cst

from tfmodernize.file_state import FileState
from tfmodernize.tfsymbols import TFNames

from tfmodernize.treewalk import walk

from tfmodernize.codemods.migrate.session_to_function.model import Kind
from tfmodernize.codemods.migrate.session_to_function.graph import GraphUnit
from tfmodernize.codemods.migrate.session_to_function.emit import AssignMethods
from tfmodernize.codemods.migrate.session_to_function.plan import Element, Shape, UnitPlan, numpy_call
from tfmodernize.codemods.migrate.session_to_function.reading import Site
from tfmodernize.codemods.migrate.session_to_function.statement_reads import tf_path
from tfmodernize.codemods.migrate.session_to_function.summaries import WRITES
from tfmodernize.syntax import commas
from tfmodernize.names import target_name_nodes


def eager_value(
    tf_names: TFNames,
    tf_expr: Callable[[str], cst.BaseExpression],
    elements: list[Element],
    shape: Shape,
    unit: GraphUnit,
    at: int,
    numpy: bool,
    targets=None,
) -> Optional[cst.BaseExpression]:
    if not numpy:
        # The value is dropped: what remains to do is the computation (``w.assign(v)``).
        effects = [e.expr.visit(AssignMethods(tf_names)) for e in elements if not isinstance(e.expr, cst.Name)]
        if not effects:
            return None
        return (
            effects[0] if len(effects) == 1 else cst.Tuple(commas([cst.Element(e) for e in effects]), lpar=[], rpar=[])
        )
    # A value unpacked into ``_`` is read by nothing: computed as TF1 did, never converted.
    unread = (
        {i for i, t in enumerate(targets.elements) if isinstance(t.value, cst.Name) and t.value.value == "_"}
        if shape == Shape.UNPACKED
        and isinstance(targets, (cst.Tuple, cst.List))
        and len(targets.elements) == len(elements)
        and all(isinstance(t, cst.Element) for t in targets.elements)
        else set()
    )
    values = [
        e.expr.visit(AssignMethods(tf_names))
        if position in unread
        else cst.ListComp(numpy_call(cst.Name("t")), cst.CompFor(target=cst.Name("t"), iter=e.expr))
        if unit.is_sequence(e.expr)
        else nested_numpy(tf_expr, e.expr.visit(AssignMethods(tf_names)))
        if unit.holds_structure(e.expr, at)
        else numpy_call(e.expr.visit(AssignMethods(tf_names)))
        for position, e in enumerate(elements)
    ]
    if shape == Shape.SINGLE:
        return values[0]
    if shape == Shape.DICT:
        return cst.Dict([cst.DictElement(e.key, v) for e, v in zip(elements, values)])
    if shape == Shape.UNPACKED:
        return cst.Tuple(commas([cst.Element(v) for v in values]), lpar=[], rpar=[])
    if shape == Shape.TUPLE:
        return cst.Tuple(commas([cst.Element(v) for v in values]))
    return cst.List(commas([cst.Element(v) for v in values]))


def wants_numpy(plan: UnitPlan, site: "Site", targets) -> bool:
    if site.context == "value":
        return True
    if site.context == "discard" or targets is None:
        return False
    return any(n.value in plan.numpy_uses for n in target_name_nodes(targets))


def reads_to_convert(
    state: FileState,
    module: cst.Module,
    plan: UnitPlan,
    site: "Site",
    elements: list[Element],
    targets,
    tf_names: Optional[TFNames] = None,
) -> Optional[list[cst.Name]]:
    """The reads of the names a run in a loop binds, each to take ``.numpy()`` where it
    reads the name, so that the step returns tensors and nothing is converted that the
    program does not read that step (``print(loss_value)`` under ``if step % 100 == 0``, a
    value read after the loop, once an epoch, or never); or None to convert at the call, as
    ``sess.run`` returned: a run outside a loop (converted once), a name bound elsewhere too,
    read other than as a value (``+=``), fed to a run, read by graph-building code, read in a
    loop the run is not in (converted at each of its passes), or read more than once
    in the loop's own block (one conversion serves every read), or when every name is read
    at every step (nothing to save). A read that is the value a summary writes
    (``tf.summary.scalar(tag, loss_value, step=s)``) takes the tensor as it is: not listed."""
    if id(site.call) not in plan.repeated or not isinstance(site.small, cst.Assign) or targets is None:
        return None
    if not (
        isinstance(targets, cst.Name)
        or isinstance(targets, (cst.Tuple, cst.List))
        and all(isinstance(e, cst.Element) and isinstance(e.value, cst.Name) for e in targets.elements)
    ):
        return None
    unit = plan.unit
    # A value unpacked into ``_`` (read nowhere) stays what the step returned: never converted.
    unread = (
        {i for i, t in enumerate(targets.elements) if t.value.value == "_"}
        if isinstance(targets, (cst.Tuple, cst.List))
        and len(targets.elements) == len(elements)
        and "_" not in plan.reads
        else set()
    )
    if any(
        unit.is_sequence(e.expr) or unit.holds_structure(e.expr, site.statement)
        for i, e in enumerate(elements)
        if i not in unread
    ):
        return None
    bound = {n.value for n in target_name_nodes(targets)} - ({"_"} if unread else set())
    own = {id(n) for n in target_name_nodes(site.small.targets[0].target)}
    if any(unit.bindings.get(name, 0) != 1 for name in bound):
        return None
    parents = state.parents(module)
    block = parents.get(id(parents.get(id(site.small))))  # the block the run's line is in
    around = set()  # the loops the run's block is in: a read after its own loop is in them too
    node = block
    while node is not None:
        around.add(id(node))
        node = parents.get(id(node))
    reads: list[cst.Name] = []
    steady: dict[str, int] = {}  # reads made at every pass of the loop, per name
    for stmt in unit.statements:
        for node in walk(stmt.node, code_only=True):
            if not isinstance(node, cst.Name) or node.value not in bound or id(node) in own:
                continue
            if stmt.kind not in (Kind.RUN, Kind.PLAIN):
                return None
            every_step = True
            child, parent = node, parents.get(id(node))
            while parent is not None and parent is not block:
                binding = (cst.AugAssign, cst.AssignTarget, cst.Del, cst.For, cst.CompFor)
                if (
                    isinstance(parent, binding)
                    and child is not getattr(parent, "iter", None)
                    and child is not getattr(parent, "value", None)
                    and not (isinstance(parent, cst.For) and child is parent.body and id(parent) in around)
                ):
                    return None
                if (
                    isinstance(parent, cst.Call)
                    and isinstance(parent.func, cst.Attribute)
                    and parent.func.attr.value in ("run", "eval")
                ):
                    return None
                if isinstance(parent, (cst.If, cst.Else, cst.For, cst.While, cst.Try)):
                    every_step = False
                child, parent = parent, parents.get(id(parent))
            every_step = every_step and parent is block
            steady[node.value] = steady.get(node.value, 0) + every_step
            if not summarized(node, parents, tf_names):
                reads.append(node)
    if not unread and all(steady.get(name, 0) for name in bound):
        return None  # all read at every step: converted once at the call, as TF1 returned them
    if any(steady.get(name, 0) and sum(r.value == name for r in reads) > 1 for name in bound):
        return None
    return reads


def summarized(name: cst.Name, parents, tf_names: Optional[TFNames]) -> bool:
    """Whether ``name`` is the value a v2 summary op writes (``tf.summary.scalar(tag, name,
    step=s)``), which takes a tensor as well as a numpy value."""
    arg = parents.get(id(name))
    call = parents.get(id(arg))
    return (
        tf_names is not None
        and isinstance(arg, cst.Arg)
        and isinstance(call, cst.Call)
        and len(call.args) > 1
        and call.args[1] is arg
        and arg.keyword is None
        and tf_path(call.func, tf_names) in WRITES
    )


def to_numpy(
    tf_expr: Callable[[str], cst.BaseExpression],
    call: cst.Call,
    shape: Shape,
    unit: GraphUnit,
    elements: list[Element],
    at: int,
) -> cst.BaseExpression:
    """What ``sess.run`` returned: numpy values in the fetched structure. Where an element
    may itself be a structure (``optimizer.compute_gradients``'s pairs), the conversion
    follows it at any depth (``tf.nest.map_structure``), as ``sess.run`` did."""
    flat_list = shape == Shape.LIST and len(elements) == 1 and unit.is_sequence(elements[0].expr)
    if not flat_list and any(unit.holds_structure(e.expr, at) for e in elements):
        return nested_numpy(tf_expr, call)
    if shape == Shape.SINGLE:
        return numpy_call(call)
    item = cst.Name("t")
    loop = cst.CompFor(target=item, iter=call)
    if shape == Shape.DICT:
        return cst.DictComp(
            cst.Name("k"),
            numpy_call(cst.Name("t")),
            cst.CompFor(
                target=cst.Tuple(
                    [
                        cst.Element(cst.Name("k"), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                        cst.Element(cst.Name("t")),
                    ],
                    lpar=[],
                    rpar=[],
                ),
                iter=cst.Call(cst.Attribute(call, cst.Name("items"))),
            ),
        )
    if shape == Shape.TUPLE:
        return cst.Call(cst.Name("tuple"), [cst.Arg(cst.GeneratorExp(numpy_call(item), loop, lpar=[], rpar=[]))])
    return cst.ListComp(numpy_call(item), loop)


def nested_numpy(tf_expr: Callable[[str], cst.BaseExpression], value: cst.BaseExpression) -> cst.Call:
    """``tf.nest.map_structure(lambda t: t.numpy(), value)``: numpy values in ``value``'s
    structure, at any depth (lists, tuples, dicts, pairs)."""
    numpy = cst.Lambda(cst.Parameters([cst.Param(cst.Name("t"))]), numpy_call(cst.Name("t")))
    return cst.Call(tf_expr("nest.map_structure"), commas([cst.Arg(numpy), cst.Arg(value)]))
