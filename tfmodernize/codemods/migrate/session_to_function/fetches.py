"""What a run fetches, read off the unit: the elements of its fetches and what each is
(``fetch_kind``), which initialisations it needs, the values its targets take when no op is
fetched, and the element one iterator's ``get_next()`` gives."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tfmodernize.tfsymbols import TFNames

from tfmodernize.syntax import calls_in
from tfmodernize.analysis.tf1_api import INITIALIZERS
from tfmodernize.codemods.migrate.session_to_function.model import UNKNOWN_OPS, Value
from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.session_to_function.graph import GraphUnit
from tfmodernize.codemods.migrate.session_to_function.statement_reads import names_used, tf_calls, tf_path
from tfmodernize.codemods.migrate.session_to_function.plan import Element, Shape, UnitPlan
from tfmodernize.codemods.migrate.session_to_function.reading import Site
from tfmodernize.syntax import commas, source


#: Initializers of no variable a program makes (local variables, tables).
LOCAL_INITIALIZERS = (
    "local_variables_initializer",
    "initialize_local_variables",
    "tables_initializer",
)


def initialised_twice(plan: UnitPlan, initializer_runs: list, opened: dict) -> bool:
    """Whether a session initialises one variable twice (or in a loop, or in a session that
    cannot be told apart): ``plan.initialised`` says which variables each run initialises."""
    seen: set[tuple[Optional[int], int]] = set()
    for node in initializer_runs:
        session = opened.get(id(node))
        covered = plan.initialised.get(id(node), set())
        if session is None or (covered and id(node) in plan.repeated):
            return True
        if any((session, variable) in seen for variable in covered):
            return True
        seen |= {(session, variable) for variable in covered}
    return False


def next_element(plan: UnitPlan, site: "Site", elements: list[Element], ops, overrides) -> Optional[cst.Call]:
    """``it.get_next()`` when the run fetches exactly what one ``get_next()`` bound, in its
    order (``sess.run([x, y])`` after ``x, y = it.get_next()``), and nothing else; else None."""
    if ops or overrides or not elements or not all(isinstance(e.expr, cst.Name) for e in elements):
        return None
    placeholders = [plan.unit.placeholders.get(e.expr.value) for e in elements]
    if any(p is None or p.iterator is None for p in placeholders):
        return None
    feed = site.feed
    if feed is not None and not (isinstance(feed, cst.Name) and feed.value == "None"):
        return None
    first = placeholders[0]
    if tuple(e.expr.value for e in elements) != first.group or any(p.group != first.group for p in placeholders):
        return None
    unpacked = isinstance(first.statement.node.body[0].targets[0].target, (cst.Tuple, cst.List))
    if len(elements) == 1 and unpacked:
        return None  # one of several names: the element's tuple is not what was fetched
    return cst.Call(cst.Attribute(cst.Name(first.iterator), cst.Name("get_next")))


def initialised(tf_names: TFNames, unit: GraphUnit, expr: cst.BaseExpression, at: int) -> set[int]:
    """The variables (their statements' indices) an initializer run at the statement of index
    ``at`` initialises: ``w.initializer`` just ``w``; ``tf.global_variables_initializer()``
    those made before it; any other, every variable."""
    if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name):
        made = unit.reaching(expr.value.value, at)
        if made is not None:
            return {made.index}
    made_at = at
    if isinstance(expr, cst.Name):
        bound = unit.reaching(expr.value, at)
        made_at = bound.index if bound is not None else at
        expr = (
            bound.node.body[0].value if bound is not None and isinstance(bound.node, cst.SimpleStatementLine) else expr
        )
    path = tf_path(expr.func, tf_names) if isinstance(expr, cst.Call) else None
    if path in ("global_variables_initializer", "initialize_all_variables"):
        return {v.statement.index for v in unit.variables if v.statement.index < made_at}
    if path in LOCAL_INITIALIZERS:
        return set()
    return {v.statement.index for v in unit.variables}


def without_ops(plan: UnitPlan, site: "Site", elements: list[Element], shape: Shape):
    """Fetched ops are run, not returned (their value is None): the elements, structure and
    assignment targets that remain. An op's value may only go to ``_``, to a name nothing
    reads, or be discarded."""
    targets = site.targets
    if shape != Shape.SINGLE and isinstance(targets, (cst.Tuple, cst.List)):
        if len(targets.elements) != len(elements):
            raise Decline(site.call, "fetches and assignment targets differ in number")
        kept, kept_targets = [], []
        for element, target in zip(elements, targets.elements):
            if element.kind == Value.OP:
                if not (
                    isinstance(target.value, cst.Name)
                    and (target.value.value == "_" or target.value.value not in plan.reads)
                ):
                    raise Decline(site.call, "the value of a fetched op (None in TF1) is used")
                continue
            kept.append(element)
            kept_targets.append(target)
        shape = Shape.SINGLE if len(kept) == 1 else (Shape.UNPACKED if kept else Shape.NONE)
        if not kept:
            return kept, shape, None
        if len(kept_targets) == 1:
            return kept, shape, kept_targets[0].value
        # ``a, b, _ =`` and ``a, b, _, =`` -> ``a, b =``: no comma left dangling.
        kept_targets[-1] = kept_targets[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return kept, shape, targets.with_changes(elements=commas(kept_targets))
    if all(e.kind == Value.OP for e in elements) and isinstance(targets, cst.Name) and targets.value not in plan.reads:
        return [], Shape.NONE, None  # ``step = sess.run(train_op)``, ``step`` read nowhere
    if any(e.kind == Value.OP for e in elements):
        picked = _picked_values(plan, site, elements, shape)
        if picked is not None:
            return (*picked, targets)
        if site.context != "discard":
            raise Decline(site.call, "the value of a fetched op (None in TF1) is used")
        elements = [e for e in elements if e.kind != Value.OP]
        shape = Shape.SINGLE if len(elements) == 1 else (Shape.UNPACKED if elements else Shape.NONE)
    return elements, shape, targets


def place(plan: UnitPlan, site: "Site", value: Optional[cst.BaseExpression], targets) -> None:
    if site.context == "value":
        plan.calls[site.call] = value
    elif site.context == "discard" or targets is None:
        plan.smalls[site.small] = cst.Expr(value) if value is not None else None
    else:
        assert isinstance(site.small, cst.Assign)
        plan.smalls[site.small] = site.small.with_changes(
            targets=[site.small.targets[0].with_changes(target=targets)], value=value
        )


def fetched_elements(
    tf_names: TFNames, unit: GraphUnit, fetches: cst.BaseExpression, at: int
) -> tuple[list[Element], str]:
    """The fetched values and the structure they were fetched in (single, list, tuple, dict)."""
    if isinstance(fetches, (cst.List, cst.Tuple)):
        shape = Shape.LIST if isinstance(fetches, cst.List) else Shape.TUPLE
        items = []
        for element in fetches.elements:
            if isinstance(element, cst.StarredElement):
                raise Decline(element, "starred fetches")
            items.append(Element(element.value, ""))
    elif isinstance(fetches, cst.Dict):
        shape = Shape.DICT
        items = []
        for element in fetches.elements:
            if not isinstance(element, cst.DictElement):
                raise Decline(element, "`**` in a fetch dict")
            items.append(Element(element.value, "", element.key))
    else:
        shape, items = Shape.SINGLE, [Element(fetches, "")]
    for item in items:
        item.kind = structure_kind(tf_names, unit, item.expr, at)
    return items, shape


def structure_kind(tf_names: TFNames, unit: GraphUnit, expr: cst.BaseExpression, at: int) -> Value:
    """What a fetched element is; a nested list, tuple or dict of tensors is computed where
    any of its tensors is (``dynamic`` if one is fed), and fetched whole."""
    if not isinstance(expr, (cst.List, cst.Tuple, cst.Dict)):
        return fetch_kind(tf_names, unit, expr, at)
    kinds = set()
    for element in expr.elements:
        if not isinstance(element, (cst.Element, cst.DictElement)):
            raise Decline(element, "starred elements in a nested fetch structure")
        kinds.add(structure_kind(tf_names, unit, element.value, at))
    if kinds - {Value.DYNAMIC, Value.STATIC, Value.VARIABLE}:
        raise Decline(expr, "an op, initializer or iterator inside a nested fetch structure: fetch it on its own")
    return Value.DYNAMIC if Value.DYNAMIC in kinds else Value.STATIC


def fetch_kind(tf_names: TFNames, unit: GraphUnit, expr: cst.BaseExpression, at: int) -> Value:
    if isinstance(expr, cst.Call) and tf_path(expr.func, tf_names) in INITIALIZERS:
        return Value.INIT
    if (
        isinstance(expr, cst.Attribute)
        and expr.attr.value == "initializer"
        and isinstance(expr.value, cst.Name)
        and unit.kind(expr.value.value, at) == Value.VARIABLE
    ):
        return Value.INIT  # ``sess.run(w.initializer)``
    if (
        isinstance(expr, cst.Attribute)
        and expr.attr.value == "initializer"
        and isinstance(expr.value, cst.Name)
        and unit.kind(expr.value.value, at) == Value.ITERATOR
    ):
        return Value.ITERATOR  # ``sess.run(iterator.initializer)``: iterate again from the start
    if isinstance(expr, cst.Name):
        kind = unit.kind(expr.value, at)
        if kind == Value.UNKNOWN:
            raise Decline(expr, f"fetch `{expr.value}` is an op this codemod does not understand")
        if kind in (Value.INIT, Value.OP, Value.VARIABLE, Value.STATIC, Value.DYNAMIC):
            return kind
        if kind == Value.PLACEHOLDER and unit.placeholders[expr.value].iterator is not None:
            return Value.DYNAMIC  # a dataset element: the run's next element, returned as it is
        if kind == Value.PLACEHOLDER and unit.placeholders[expr.value].switch:
            raise Decline(expr, f"placeholder `{expr.value}` (a Python bool in TF2) is fetched")
        if kind == Value.PLACEHOLDER:
            # What the run fed it, as a tensor of its dtype: the function returns its parameter.
            return Value.DYNAMIC
        raise Decline(expr, f"fetch `{expr.value}` is not a tensor or op this codemod understands")
    if isinstance(expr, cst.Call) and tf_path(expr.func, tf_names) == "Print":
        raise Decline(
            expr,
            f"fetch `{source(expr)}` logs tensors in a way `tf.print` does not repeat (its value "
            "used, a tensor it logs not computed by this graph, `first_n` or `summarize`): log "
            "them with `tf.print(...)` after the run by hand and migrate again",
        )
    if unit.reads_average(expr, at):
        return Value.VARIABLE  # ``ema.average(w)``: the variable holding ``w``'s average
    used = names_used(expr)
    kinds = {unit.kind(n, at) for n in used}
    if kinds & {Value.INIT, Value.SESSION, Value.OBJECT, Value.CONFIG, Value.UNKNOWN, Value.GRAPH}:
        raise Decline(expr, f"fetch `{source(expr)}` is not a tensor this codemod understands")
    calls, _ = tf_calls(expr, tf_names)
    builders = {c.func.value for c in calls_in(expr) if isinstance(c.func, cst.Name)} & unit.graph_functions
    if builders & unit.variable_functions:
        raise Decline(expr, f"fetch `{source(expr)}` creates variables where the graph is run")
    if kinds & {Value.PLACEHOLDER, Value.DYNAMIC, Value.OP}:
        return Value.DYNAMIC
    if any(path.startswith("summary.") or path in UNKNOWN_OPS for path, _ in calls):
        raise Decline(expr, f"fetch `{source(expr)}` builds new graph ops where the graph is run")
    if not calls and not builders and not kinds & {Value.STATIC, Value.VARIABLE}:
        raise Decline(expr, f"fetch `{source(expr)}` is not a tensor of this graph")
    # Built and run at once (``sess.run(w.assign(v))``, ``sess.run(w * 2)``): eager code
    # computes the same where it stands.
    return Value.STATIC


def _picked_values(
    plan: UnitPlan, site: "Site", elements: list[Element], shape: Shape
) -> Optional[tuple[list[Element], Shape]]:
    """``sess.run([step, loss, w])[1:]``: a literal index or slice taking only values, never an
    op's None. The values the function returns (the fetched ops left out) and their structure;
    the subscript is planned to take the same values from them (``plan.picks``)."""
    subscript = site.picked
    if site.context == "discard" or subscript is None or shape not in (Shape.LIST, Shape.TUPLE):
        return None
    positions = _positions(subscript, len(elements))
    kept = [i for i, element in enumerate(elements) if element.kind != Value.OP]
    if not positions or any(p not in kept for p in positions):
        return None
    single = isinstance(subscript.slice[0].slice, cst.Index)
    taken = [kept.index(p) for p in positions]  # consecutive: a slice without step, ops left out
    if len(kept) == 1 and not single:
        container = cst.List if shape == Shape.LIST else cst.Tuple
        plan.picks[subscript] = lambda updated: container([cst.Element(updated.value)])
    elif len(kept) == 1 or taken == list(range(len(kept))) and not single:
        plan.picks[subscript] = lambda updated: updated.value
    else:
        end = taken[-1] + 1
        chosen = cst.Index(cst.Integer(str(taken[0])))
        if not single:
            chosen = cst.Slice(
                lower=cst.Integer(str(taken[0])) if taken[0] else None,
                upper=cst.Integer(str(end)) if end < len(kept) else None,
            )
        element = cst.SubscriptElement(chosen)
        plan.picks[subscript] = lambda updated: updated.with_changes(slice=[element])
    values = [elements[i] for i in kept]
    return values, (Shape.SINGLE if len(values) == 1 else shape)


def _positions(subscript: cst.Subscript, count: int) -> Optional[list[int]]:
    """The positions among ``count`` values a literal index (``[1]``, ``[-1]``) or slice
    without step (``[1:]``, ``[:-1]``) takes, or None."""
    if len(subscript.slice) != 1:
        return None
    part = subscript.slice[0].slice
    if isinstance(part, cst.Index) and part.star is None:
        at = _literal_int(part.value)
        return [range(count)[at]] if at is not None and -count <= at < count else None
    if not isinstance(part, cst.Slice) or part.step is not None:
        return None
    bounds = [_literal_int(b) if b is not None else None for b in (part.lower, part.upper)]
    if any(b is None and given is not None for b, given in zip(bounds, (part.lower, part.upper))):
        return None
    return list(range(count))[bounds[0] : bounds[1]]


def _literal_int(expr: cst.BaseExpression) -> Optional[int]:
    """The value of ``3`` or ``-1``, or None."""
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        inner = _literal_int(expr.expression)
        return -inner if inner is not None else None
    return int(expr.value) if isinstance(expr, cst.Integer) and expr.value.isdigit() else None
