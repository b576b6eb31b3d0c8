"""One run of a model class's session (``self.sess.run(fetches, feed_dict)``): what it fetches,
what it feeds and where its value goes (``sites.Site``)."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.model_class_to_module.model import (
    ClassModel,
    Kind,
    self_attribute,
    tf_path,
)
from tfmodernize.codemods.migrate.model_class_to_module.run_summaries import summaries_written
from tfmodernize.codemods.migrate.model_class_to_module.sites import (
    Context,
    Fetch,
    Fetched,
    Shape,
    Site,
    SummaryLocals,
    calls_in,
    foreign_kind,
    foreign_member,
)
from tfmodernize.names import name_nodes, target_name_nodes
from tfmodernize.syntax import argument, source
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import walk


def read_run(
    model: ClassModel,
    tf: TFNames,
    method: cst.FunctionDef,
    call: cst.Call,
    parent_of: dict,
    summary: SummaryLocals,
) -> Site:
    for arg in call.args:
        if arg.star or (arg.keyword is not None and arg.keyword.value not in ("fetches", "feed_dict")):
            raise Decline(call, "the session run is given options this migration does not carry over")
    fetched = argument(call, 0, "fetches")
    if fetched is None:
        raise Decline(call, "the session run fetches nothing")
    feed = argument(call, 1, "feed_dict")
    feeds = read_feeds(model, call, feed)
    if isinstance(fetched, (cst.List, cst.Tuple)):
        shape = Shape.LIST if isinstance(fetched, cst.List) else Shape.TUPLE
        elements = []
        for element in fetched.elements:
            if isinstance(element, cst.StarredElement):
                raise Decline(call, "the fetches are unpacked with `*`")
            elements.append(element.value)
    else:
        shape, elements = Shape.SINGLE, [fetched]
    fetches = [read_fetch(model, tf, call, element, summary) for element in elements]
    objects = {key.split(".")[1] for key in [*feeds, *(f.key or "" for f in fetches)] if key.count(".") == 2}
    merged = [f.expr.value for f in fetches if f.kind is Fetched.SUMMARY and f.key is None]
    objects |= {summary.merged[name] for name in merged}
    own = [key for key in [*feeds, *(f.key for f in fetches if f.key)] if key.count(".") != 2]
    if objects and (own or len(objects) > 1):
        raise Decline(call, "the session run runs the graphs of several objects")
    kinds = {f.kind for f in fetches}
    if Fetched.INIT in kinds and len(fetches) > 1:
        raise Decline(call, "the session run runs an initializer with other ops")
    if (Fetched.VARIABLE in kinds or Fetched.EAGER in kinds) and len(kinds) > 1:
        raise Decline(call, "the session run fetches variables or new ops together with the graph's tensors")
    if sum(f.kind is Fetched.TRAIN for f in fetches) > 1:
        raise Decline(call, "the session run runs two train ops")
    if kinds <= {Fetched.VARIABLE, Fetched.EAGER} and any(calls_in(value) for value in feeds.values()):
        raise Decline(call, "the session run feeds values it does not need, computed by calls")
    small = parent_of.get(id(call))
    line = parent_of.get(id(small))
    alone = isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1
    foreign = next(iter(objects), None)
    if alone and isinstance(small, cst.Expr):
        return Site(method, call, fetches, shape, feeds, Context.DISCARDED, line, foreign=foreign)
    if Fetched.INIT in kinds:
        raise Decline(call, "the value of an initializer's run is used")
    if (
        alone
        and isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, (cst.Tuple, cst.List))
        and shape is not Shape.SINGLE
    ):
        targets = [e.value for e in small.targets[0].target.elements]
        if len(targets) != len(fetches) or any(
            isinstance(e, cst.StarredElement) for e in small.targets[0].target.elements
        ):
            raise Decline(call, "the fetched values are unpacked into another number of names")
        for target, fetch in zip(targets, fetches):
            if fetch.kind is Fetched.TRAIN and not unread(target, method, small):
                raise Decline(call, f"`{source(target)}`, the value of a train op (None), is read")
        context = Context.UNPACKED
        site = Site(method, call, fetches, shape, feeds, context, line, targets, foreign=foreign)
        if Fetched.SUMMARY in kinds:
            summaries_written(model, site, small, parent_of, summary)
        return site
    if Fetched.SUMMARY in kinds:
        raise Decline(call, "the merged summary is fetched other than unpacked into a name")
    if any(f.kind is Fetched.TRAIN for f in fetches):
        raise Decline(call, "the value of a train op's run (None in it) is used")
    return Site(method, call, fetches, shape, feeds, Context.VALUE, foreign=foreign)


def unknown_object(model: ClassModel, node: cst.CSTNode) -> None:
    """Declines ``self.net.x`` where ``self.net`` holds an object of a class this migration does
    not know, saying so."""
    if isinstance(node, cst.Attribute) and self_attribute(node.value) is not None:
        holder = self_attribute(node.value)
        if holder not in model.foreign and f"self.{holder}" not in model.nodes:
            raise Decline(
                node,
                f"`{source(node)}` is part of the graph of the object in `self.{holder}`, whose class is "
                "not a graph class migrated in this run (a project module left out of the run, or declined)",
            )


def unread(target: cst.BaseExpression, method: cst.FunctionDef, assignment: cst.Assign) -> bool:
    """Whether ``target`` is ``_`` or a name the method never reads."""
    if not isinstance(target, cst.Name):
        return False
    if target.value == "_":
        return True
    bound = {id(n) for n in target_name_nodes(assignment.targets[0].target)}
    return not any(n.value == target.value and id(n) not in bound for n in name_nodes(method.body))


def read_feeds(
    model: ClassModel,
    call: cst.Call,
    feed: Optional[cst.BaseExpression],
) -> dict[str, cst.BaseExpression]:
    if feed is None or (isinstance(feed, cst.Name) and feed.value == "None"):
        return {}
    if not isinstance(feed, cst.Dict):
        raise Decline(call, "the feed dict is not written at the run")
    feeds: dict[str, cst.BaseExpression] = {}
    for element in feed.elements:
        if not isinstance(element, cst.DictElement):
            raise Decline(call, "the feed dict is unpacked with `**`")
        member = foreign_member(model, element.key)
        if member is not None:
            if member[1] not in model.foreign[member[0]].placeholders:
                raise Decline(
                    element.key,
                    f"the run feeds `{source(element.key)}`, no placeholder of its graph",
                )
            feeds[f"self.{member[0]}.{member[1]}"] = element.value
            continue
        name = self_attribute(element.key)
        node = model.nodes.get(f"self.{name}") if name is not None else None
        unknown_object(model, element.key)
        if node is None or node.kind not in (Kind.PLACEHOLDER, Kind.TENSOR):
            raise Decline(
                element.key,
                f"the run feeds `{source(element.key)}`, no placeholder or tensor of the model",
            )
        if node.key in feeds:
            raise Decline(element.key, f"the run feeds `{node.key}` twice")
        feeds[node.key] = element.value
    return feeds


def read_fetch(
    model: ClassModel,
    tf: TFNames,
    call: cst.Call,
    element: cst.BaseExpression,
    summary: SummaryLocals,
) -> Fetch:
    if isinstance(element, cst.Name) and element.value in summary.merged:
        return Fetch(element, Fetched.SUMMARY)
    base = element
    while isinstance(base, cst.Subscript):
        base = base.value
    member = foreign_member(model, base)
    if member is not None:
        kind = foreign_kind(model.foreign[member[0]], member[1])
        if kind is None or (base is not element and kind is not Fetched.VARIABLE):
            raise Decline(
                element,
                f"the run fetches `{source(element)}`, which its graph class does not compute",
            )
        return Fetch(element, kind, f"self.{member[0]}.{member[1]}")
    name = self_attribute(base)
    node = model.nodes.get(f"self.{name}") if name is not None else None
    if node is not None:
        if base is not element and node.kind is not Kind.VARIABLE:
            raise Decline(element, f"the run fetches part of `{node.key}`")
        if node.kind is Kind.TENSOR:
            return Fetch(element, Fetched.TENSOR, node.key)
        if node.kind is Kind.TRAIN:
            return Fetch(element, Fetched.TRAIN, node.key)
        if node.kind is Kind.VARIABLE:
            return Fetch(element, Fetched.VARIABLE, node.key)
        if node.kind is Kind.MERGED and base is element:
            return Fetch(element, Fetched.SUMMARY, node.key)
        raise Decline(element, f"the run fetches `{node.key}`, a {node.kind.value}")
    unknown_object(model, base)
    graph = {k for k, n in model.nodes.items() if n.attribute and n.kind is not Kind.VARIABLE}
    reads = {f"self.{a}" for n in walk(element, code_only=True) if (a := self_attribute(n)) is not None}
    if reads & graph:
        raise Decline(element, "the run fetches an op built there on the model's graph")
    if any(isinstance(n, cst.Call) and tf_path(n.func, tf) is not None for n in walk(element, code_only=True)):
        return Fetch(element, Fetched.EAGER)
    raise Decline(element, f"the run fetches `{source(element)}`, which this migration does not read")
