"""How a run becomes a call of its function: the arguments its feeds give (each fed key a
placeholder, or why it declines), the iterator it reads, and a restarted iterator."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tfmodernize.tfsymbols import TFNames

from tfmodernize.treewalk import walk

from tfmodernize.analysis.tf1_api import PLACEHOLDERS
from tfmodernize.codemods.migrate.session_to_function.model import Value
from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.session_to_function.graph import GraphUnit
from tfmodernize.codemods.migrate.session_to_function.statement_reads import names_used, tf_path
from tfmodernize.codemods.migrate.session_to_function.plan import (
    FunctionPlan,
    OVERRIDE_HINT,
    UnitPlan,
    side_effect_free,
)
from tfmodernize.codemods.migrate.session_to_function.reading import Site
from tfmodernize.syntax import commas, function_definitions, name_assignment, no_space_equal, source


def restart_iterator(plan: UnitPlan, site: "Site", iterator: str) -> None:
    """``sess.run(it.initializer)`` -> ``it = iter(dataset)``: a fresh iterator from the
    dataset's first element, as TF1's initializer restarted it."""
    unit = plan.unit
    dataset, made = unit.iterators[iterator]
    for name in names_used(dataset):
        if unit.reaching(name, site.statement) is not unit.reaching(name, made.index):
            raise Decline(site.call, f"`{name}` is rebound between the iterator and its initializer run")
    restart = cst.Assign([cst.AssignTarget(cst.Name(iterator))], cst.Call(cst.Name("iter"), [cst.Arg(dataset)]))
    plan.smalls[site.small] = restart
    plan.fixes.append((site.call, f"the iterator restarts: `{iterator} = iter(...)`"))


def iterator_call(function: FunctionPlan, plan: UnitPlan, site: "Site") -> cst.Call:
    """A function over a dataset iterator's elements, called with its next element:
    ``step(*it.get_next())``, one element per run, as TF1 took one per ``sess.run`` (and
    ``OutOfRangeError`` at the end, as in TF1)."""
    unit = plan.unit
    group = unit.placeholders[function.params[0]].group
    iterator = unit.placeholders[function.params[0]].iterator
    if tuple(function.params) != group:
        raise Decline(
            site.call,
            f"`{function.name}` is fed by a dataset iterator and by placeholders: "
            "feed the placeholders' values through the dataset by hand",
        )
    feed = site.feed
    if feed is not None and not (isinstance(feed, cst.Name) and feed.value == "None"):
        raise Decline(feed, f"a feed_dict at a run that takes `{iterator}`'s next element")
    following = cst.Call(cst.Attribute(cst.Name(iterator), cst.Name("get_next")))
    unpacked = isinstance(unit.placeholders[group[0]].statement.node.body[0].targets[0].target, (cst.Tuple, cst.List))
    return cst.Call(cst.Name(function.name), [cst.Arg(following, star="*" if unpacked else "")])


def run_call(tf_names: TFNames, module: cst.Module, function: FunctionPlan, plan: UnitPlan, site: "Site") -> cst.Call:
    unit = plan.unit
    if any(unit.placeholders[n].iterator for n in function.params if n in unit.placeholders):
        return iterator_call(function, plan, site)
    fed: dict[str, cst.BaseExpression] = {}
    feed = site.feed
    if isinstance(feed, cst.Name) and feed.value == "None":
        feed = None
    at = site.statement
    if isinstance(feed, cst.Name) and feed.value in plan.local_feeds:
        keys = [e.key.value for e in plan.local_feeds[feed.value].elements]
        required = [n for n in function.params if n in function.overrides or unit.placeholders[n].default is None]
        if not set(required) <= set(keys):
            missing = sorted(set(required) - set(keys))[0]
            raise Decline(feed, f"feed dict `{feed.value}` does not feed `{missing}`, which `{function.name}` needs")
        plan.feed_uses.add(id(feed))
        for element in plan.local_feeds[feed.value].elements:
            _check_switch(unit, element.key.value, element.value)
        local = cst.Name(plan.feed_names.get(feed.value, feed.value))
        if set(keys) <= set(function.params):
            return cst.Call(cst.Name(function.name), [cst.Arg(local, star="**")])
        # TF1 ignores fed placeholders the fetches do not need: pass only the needed ones.
        return cst.Call(
            cst.Name(function.name),
            commas(
                [
                    cst.Arg(
                        cst.Subscript(local, [cst.SubscriptElement(cst.Index(cst.SimpleString(f'"{key}"')))]),
                        keyword=cst.Name(key),
                        equal=no_space_equal(),
                    )
                    for key in keys
                    if key in function.params
                ]
            ),
        )
    if isinstance(feed, cst.Name) and unit.kind(feed.value, at) == Value.FEED:
        built = unit.reaching(feed.value, at)
        feed = unit.feeds[feed.value]
        for name in names_used(feed):
            if built is None or unit.reaching(name, built.index) is not unit.reaching(name, at):
                raise Decline(site.feed, f"`{name}` in feed dict `{site.feed.value}` is rebound before the run")
    if feed is not None:
        if not isinstance(feed, cst.Dict):
            raise Decline(feed, "a feed_dict that is not a dict literal")
        for element in feed.elements:
            if not isinstance(element, cst.DictElement):
                raise Decline(element, "`**` in a feed_dict")
            key = element.key
            if not (
                isinstance(key, cst.Name)
                and (unit.kind(key.value, at) == Value.PLACEHOLDER or key.value in function.overrides)
            ):
                raise Decline(key, not_a_placeholder(tf_names, module, plan, key, at))
            _check_switch(unit, key.value, element.value)
            fed[key.value] = element.value
    for name, value in fed.items():
        if name not in function.params and not side_effect_free(value):
            raise Decline(value, f"the value fed to `{name}` is computed but not needed by the fetches")
    for name in function.params:
        if name not in fed and unit.placeholders[name].default is None:
            raise Decline(site.call, f"placeholder `{name}` is not fed")
    for name in function.overrides:
        if name not in fed:
            raise Decline(site.call, f"`{name}` is fed at one run of `{function.name}` but not at another")
    # Positional while the fed values line up with the parameters, keywords after a gap
    # (a defaulted parameter not fed) and whenever the feed order differs from theirs, so
    # that the fed expressions are still evaluated in the program's order.
    order = [n for n in fed if n in function.params]
    expected = [n for n in function.params if n in fed]
    args: list[cst.Arg] = []
    positional = order == expected
    for position, name in enumerate(order):
        positional = positional and function.params[position] == name
        keyword = None if positional else cst.Name(name)
        args.append(
            cst.Arg(fed[name], keyword=keyword, equal=no_space_equal() if keyword else cst.MaybeSentinel.DEFAULT)
        )
    return cst.Call(cst.Name(function.name), commas(args))


def feed_overrides(tf_names: TFNames, module: cst.Module, plan: UnitPlan, site: "Site") -> list[str]:
    """The constant tensors the site feeds, in feed order: TF1 replaced their value for that
    run (``sess.run(b, {a: 15})`` with ``a = tf.add(2, 5)``), so the fetch becomes a function
    taking them. Placeholders the fetch does not need are ignored, as in TF1; a fed variable
    or computed tensor declines."""
    feed, unit, at = site.feed, plan.unit, site.statement
    if feed is None or (isinstance(feed, cst.Name) and (feed.value == "None" or feed.value in plan.local_feeds)):
        return []
    if isinstance(feed, cst.Name) and unit.kind(feed.value, at) == Value.FEED:
        feed = unit.feeds[feed.value]
    if not isinstance(feed, cst.Dict):
        raise Decline(feed, f"feed `{source(feed)}` feeds tensors this codemod cannot tell: {OVERRIDE_HINT}")
    overrides = []
    for element in feed.elements:
        key = element.key if isinstance(element, cst.DictElement) else element
        kind = unit.kind(key.value, at) if isinstance(key, cst.Name) else None
        if kind == Value.STATIC:
            overrides.append(key.value)
        elif kind != Value.PLACEHOLDER:
            raise Decline(key, not_a_placeholder(tf_names, module, plan, key, at))
    return overrides


def not_a_placeholder(tf_names: TFNames, module: cst.Module, plan: UnitPlan, key: cst.BaseExpression, at: int) -> str:
    """Why a fed key declines: not a placeholder, or a placeholder the module makes for a
    graph a function builds and runs (only a unit's own placeholders become parameters)."""
    name = key.value if isinstance(key, cst.Name) else None
    if name is not None and plan.unit.reaching(name, at) is None:
        for statement in module.body:
            pair = name_assignment(statement)
            if (
                pair is not None
                and pair[0] == name
                and isinstance(pair[1], cst.Call)
                and tf_path(pair[1].func, tf_names) in PLACEHOLDERS
            ):
                return (
                    f"feeding `{name}`, a placeholder made at module level for a graph this "
                    "function builds and runs: only a placeholder made where its graph is "
                    "built becomes a parameter; move it into the function (passing it to the "
                    "helpers reading it) and migrate again"
                )
    maker = placeholder_maker(tf_names, module, plan.unit, name, at) if name is not None else None
    if maker is not None:
        return (
            f"feeding `{name}`, a placeholder `{maker}()` makes and returns: only a placeholder "
            "made where its graph is built and run becomes a parameter; make it before the "
            f"call, pass it to `{maker}` as an argument, and migrate again"
        )
    return f"feeding `{source(key)}`, which is not a placeholder: {OVERRIDE_HINT}"


def placeholder_maker(tf_names: TFNames, module: cst.Module, unit: GraphUnit, name: str, at: int) -> Optional[str]:
    """The module function whose returned placeholder ``name`` is bound to (``x, y =
    model()``, ``model`` returning ``x`` made by ``x = tf.placeholder(...)``), or None."""
    bound = unit.reaching(name, at)
    node = bound.node if bound is not None else None
    if not (isinstance(node, cst.SimpleStatementLine) and isinstance(node.body[0], cst.Assign)):
        return None
    assign = node.body[0]
    if len(assign.targets) != 1 or not isinstance(assign.value, cst.Call):
        return None
    target, func = assign.targets[0].target, assign.value.func
    if isinstance(target, cst.Name):
        position = None
    elif isinstance(target, (cst.Tuple, cst.List)):
        names = [e.value.value if isinstance(e.value, cst.Name) else None for e in target.elements]
        if name not in names:
            return None
        position = names.index(name)
    else:
        return None
    maker = next(
        (f for _, f in function_definitions(module) if isinstance(func, cst.Name) and f.name.value == func.value),
        None,
    )
    if maker is None:
        return None
    made = set()
    for inner in walk(maker, code_only=True):
        pair = name_assignment(inner) if isinstance(inner, cst.SimpleStatementLine) else None
        if pair is not None and isinstance(pair[1], cst.Call) and tf_path(pair[1].func, tf_names) in PLACEHOLDERS:
            made.add(pair[0])
    for inner in walk(maker, code_only=True):
        if not isinstance(inner, cst.Return) or inner.value is None:
            continue
        returned = inner.value
        if position is not None:
            if not isinstance(returned, (cst.Tuple, cst.List)) or len(returned.elements) <= position:
                continue
            returned = returned.elements[position].value
        if isinstance(returned, cst.Name) and returned.value in made:
            return maker.name.value
    return None


def _check_switch(unit: GraphUnit, name: str, value: cst.BaseExpression) -> None:
    """A training switch (``Placeholder.switch``) becomes a Python bool: fed True or False."""
    placeholder = unit.placeholders.get(name)
    if (
        placeholder is not None
        and placeholder.switch
        and not (isinstance(value, cst.Name) and value.value in ("True", "False"))
    ):
        raise Decline(
            value,
            f"`{name}` switches layers between training and inference, which Keras layers "
            "decide in Python: feed it the literal True or False",
        )
