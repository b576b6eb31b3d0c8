"""The runs of a model class's session in its methods: what each fetches, what it feeds and
where its value goes (``Site``), and the ``close()`` calls that go with the session."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum
from typing import Optional

import libcst as cst

from tfmodernize.analysis.tf1_api import HOST_PREFIXES
from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.model_class_to_module.model import (
    ClassModel,
    GraphAPI,
    Kind,
    self_attribute,
    tf_path,
)
from tfmodernize.names import fresh_name, name_nodes, target_name_nodes
from tfmodernize.syntax import argument, source
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import children, walk


class Fetched(str, Enum):
    TENSOR = "tensor"
    TRAIN = "train op"
    VARIABLE = "variable"
    EAGER = "eager"  # ops built at the run on no placeholder: computed where they stand
    INIT = "initializer"  # a graph class's initializer op, run by the class running its graph
    SUMMARY = "merged summary"  # read as the tensors its summaries summarize


class Shape(str, Enum):
    SINGLE = "single"
    LIST = "list"
    TUPLE = "tuple"


class Context(str, Enum):
    DISCARDED = "discarded"  # ``self.sess.run(train_op, ...)`` as a statement
    UNPACKED = "unpacked"  # ``cost, _ = self.sess.run((cost, train_op), ...)``
    VALUE = "value"  # anywhere else: returned, bound to one name, passed on


@dataclass
class Fetch:
    expr: cst.BaseExpression
    kind: Fetched
    key: Optional[str] = None  # the node of a tensor or train op


@dataclass
class Site:
    method: cst.FunctionDef
    call: cst.Call
    fetches: list[Fetch]
    shape: Shape
    #: Placeholder (or tensor) key -> the value fed, in the order the feed dict lists them.
    feeds: dict[str, cst.BaseExpression]
    context: Context
    statement: Optional[cst.SimpleStatementLine] = None
    targets: list[cst.BaseExpression] = field(default_factory=list)
    #: The attribute holding the graph class's object whose graph the run runs (None: its own).
    foreign: Optional[str] = None
    #: The statement holding the run, and how many blocks deep it stands in the module.
    holder: Optional[cst.BaseStatement] = None
    depth: int = 2
    #: ``self.writer.add_summary(summary, step)`` lines writing the merged summary the run
    #: fetched: (the line, the writer's source, the step, its depth), written from ``summaries``.
    writes: list[tuple[cst.SimpleStatementLine, str, cst.BaseExpression, int]] = field(
        default_factory=list,
    )
    #: The summaries written and the names holding their values (kind, tag literal, name).
    summaries: list[tuple[str, cst.SimpleString, str]] = field(default_factory=list)
    #: Lines computing, before the run, the values of the summaries of a graph class's object
    #: that the run does not fetch (its other tensors, its variables).
    before: list[cst.SimpleStatementLine] = field(default_factory=list)

    @property
    def train(self) -> Optional[Fetch]:
        return next((f for f in self.fetches if f.kind is Fetched.TRAIN), None)

    def tensors(self) -> list[Fetch]:
        return [f for f in self.fetches if f.kind is Fetched.TENSOR]


@dataclass
class Saver:
    """``saver = tf.train.Saver([max_to_keep=K])`` in a method, and its ``saver.save(self.sess,
    path, global_step=step)`` and ``saver.restore(self.sess, path)`` calls there."""

    statement: cst.SimpleStatementLine
    call: cst.Call
    max_to_keep: Optional[cst.BaseExpression]
    #: The ``save`` and ``restore`` calls, by identity.
    saves: dict[int, cst.Call] = field(default_factory=dict)
    restores: dict[int, cst.Call] = field(default_factory=dict)
    #: The statement holding each save and its depth in the module, by the call's identity.
    holders: dict[int, tuple[Optional[cst.BaseStatement], int]] = field(default_factory=dict)


@dataclass
class Sites:
    runs: list[Site] = field(default_factory=list)
    #: ``self.sess.close()`` statements, by identity.
    closes: set[int] = field(default_factory=set)
    #: The savers the methods make and use with the session.
    savers: list[Saver] = field(default_factory=list)
    #: A method's ``merged = tf.summary.merge_all()`` (goes: None) and ``writer =
    #: tf.summary.FileWriter(logdir[, self.sess.graph])`` (its folder), by the line's identity.
    summary_lines: dict[int, Optional[cst.BaseExpression]] = field(default_factory=dict)


@dataclass
class SummaryLocals:
    """The summary objects a method running a graph class's graph binds to its locals: the
    merged summaries of one object (``merged`` -> the attribute holding it) and writers."""

    merged: dict[str, str] = field(default_factory=dict)
    writers: set[str] = field(default_factory=set)
    #: The lines binding them, by identity.
    lines: set[int] = field(default_factory=set)


def read_sites(model: ClassModel, tf: TFNames) -> Sites:
    """Every run of the session in the methods other than ``__init__`` and its helpers; declines
    any other use of the session or of a graph value, and graph ops built outside ``__init__``."""
    found = Sites()
    session = model.session
    for method in model.methods():
        if method is model.init or method.name.value in model.helpers:
            continue
        inside: set[int] = set()
        parent_of = {id(child): node for node in walk(method.body) for child in children(node)}
        savers = _savers(model, tf, method, parent_of) if session is not None else {}
        for saver in savers.values():
            found.savers.append(saver)
            inside |= {id(n) for n in walk(saver.statement)}
        summary = SummaryLocals()
        if session is not None:
            summary = _summary_locals(model, tf, method, found)
        for line in walk(method.body):
            if id(line) in summary.lines:
                inside |= {id(n) for n in walk(line)}
        for node in walk(method.body, code_only=True):
            if session is None or self_attribute(node) != session or id(node) in inside:
                continue
            member = parent_of.get(id(node))
            call = parent_of.get(id(member))
            saving = {key for v in savers.values() for key in (*v.saves, *v.restores)}
            if isinstance(member, cst.Arg) and id(call) in saving:
                inside |= {id(node), id(call.func), *(id(n) for n in walk(call.func))}
                continue
            if not (isinstance(member, cst.Attribute) and isinstance(call, cst.Call) and call.func is member):
                raise Decline(node, f"`self.{session}` is used other than to run it")
            if member.attr.value == "close" and not call.args:
                small = parent_of.get(id(call))
                line = parent_of.get(id(small))
                if isinstance(small, cst.Expr) and isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1:
                    found.closes.add(id(line))
                    inside |= {id(n) for n in walk(line)}
                    continue
            if member.attr.value != "run":
                raise Decline(call, f"`self.{session}.{member.attr.value}` has no TF2 counterpart here")
            site = _site(model, tf, method, call, parent_of, summary)
            site.holder, site.depth = _holder(call, parent_of)
            found.runs.append(site)
            inside |= {id(n) for n in walk(call)}
            inside |= {id(n) for line, *_ in site.writes for n in walk(line)}
        writers = {n.name for n in model.of(Kind.WRITER)}
        for node in walk(method.body, code_only=True):
            member = parent_of.get(id(node))
            held = isinstance(node, cst.Name) and node.value in summary.writers
            if (self_attribute(node) in writers or held) and isinstance(member, cst.Attribute):
                call = parent_of.get(id(member))
                plain = isinstance(call, cst.Call) and not call.args
                if member.attr.value in ("flush", "close") and plain:
                    inside.add(id(node))
        for name in name_nodes(method.body):
            summarizing = name.value in summary.merged or name.value in summary.writers
            if summarizing and id(name) not in inside:
                why = f"the summary object `{name.value}` is used other than fetched and written"
                raise Decline(name, why)
        _check_outside(model, tf, method, inside)
    return found


def _summary_locals(
    model: ClassModel,
    tf: TFNames,
    method: cst.FunctionDef,
    found: Sites,
) -> SummaryLocals:
    """``merged = tf.summary.merge_all()`` and ``writer = tf.summary.FileWriter(logdir[,
    self.sess.graph])``, each bound once on a line of its own, in a method of a class running
    the graph of a graph class's object: what it merges is that object's summaries."""
    locals_ = SummaryLocals()
    for statement in walk(method.body, code_only=True):
        small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) else None
        value = small.value if isinstance(small, cst.Assign) else None
        path = tf_path(value.func, tf) if isinstance(value, cst.Call) else None
        if path not in ("summary.merge_all", "summary.FileWriter"):
            continue
        target = small.targets[0].target
        if len(small.targets) != 1 or not isinstance(target, cst.Name) or len(statement.body) != 1:
            raise Decline(value, f"`tf.{path}` is not bound to one name on a line of its own")
        if path == "summary.merge_all":
            merging = [name for name, api in model.foreign.items() if api.summaries]
            if value.args or model.summaries or len(merging) != 1:
                why = "`merge_all` merges other summaries than one graph object's own"
                raise Decline(value, why)
            locals_.merged[target.value] = merging[0]
            found.summary_lines[id(statement)] = None
        else:
            logdir = argument(value, 0, "logdir")
            graph = argument(value, 1, "graph")
            session = isinstance(graph, cst.Attribute) and graph.attr.value == "graph"
            graph_values = model.graph_attributes() | set(model.foreign)
            read = [self_attribute(n) for n in walk(logdir)] if logdir is not None else []
            reads = any(attribute in graph_values for attribute in read)
            if logdir is None or len(value.args) > 2 or reads:
                raise Decline(value, "the writer is given more than a folder and the graph")
            if graph is not None and not (session and self_attribute(graph.value) == model.session):
                raise Decline(value, "the writer is given a graph other than its session's")
            locals_.writers.add(target.value)
            found.summary_lines[id(statement)] = logdir
        locals_.lines.add(id(statement))
    binders = (cst.AssignTarget, cst.For)
    bound = [n for n in walk(method.body, code_only=True) if isinstance(n, binders)]
    for name in [*locals_.merged, *locals_.writers]:
        if sum(1 for n in bound if isinstance(n.target, cst.Name) and n.target.value == name) != 1:
            raise Decline(method, f"the summary object `{name}` is bound more than once")
    return locals_


#: Host code reading a checkpoint folder's state file, which TF2 has under the same names.
CHECKPOINT_STATE = ("train.get_checkpoint_state", "train.latest_checkpoint")


def _savers(
    model: ClassModel,
    tf: TFNames,
    method: cst.FunctionDef,
    parent_of: dict,
) -> dict[str, Saver]:
    """The savers ``method`` makes (``saver = tf.train.Saver(max_to_keep=5)``, bound once) and
    uses only to save the session's variables at a step or to restore them."""
    found: dict[str, Saver] = {}
    for statement in walk(method.body, code_only=True):
        small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) else None
        if not (
            isinstance(small, cst.Assign)
            and isinstance(small.value, cst.Call)
            and tf_path(small.value.func, tf) == "train.Saver"
        ):
            continue
        call = small.value
        target = small.targets[0].target
        if len(small.targets) != 1 or not isinstance(target, cst.Name) or len(statement.body) != 1:
            raise Decline(call, "the saver is not bound to one name on a line of its own")
        if any(a.keyword is None or a.keyword.value != "max_to_keep" for a in call.args):
            raise Decline(
                call,
                "the saver is given more than `max_to_keep` (which variables it saves, how)",
            )
        found[target.value] = Saver(statement, call, argument(call, None, "max_to_keep"))
    if not found:
        return found
    session = model.session
    for name in name_nodes(method.body):
        saver = found.get(name.value)
        if saver is None or id(name) in {id(n) for n in walk(saver.statement)}:
            continue
        member = parent_of.get(id(name))
        call = parent_of.get(id(member))
        called = isinstance(call, cst.Call) and call.func is member
        if not (isinstance(member, cst.Attribute) and called):
            raise Decline(name, f"the saver `{name.value}` is used other than to save and restore")
        given = argument(call, 0, "sess")
        if self_attribute(given) != session:
            raise Decline(
                call,
                f"the saver `{name.value}` is given something other than `self.{session}`",
            )
        keywords = {a.keyword.value for a in call.args if a.keyword is not None}
        method_name = member.attr.value
        plain = keywords <= {"global_step", "save_path"}
        if method_name == "save" and len(call.args) in (2, 3) and plain:
            if argument(call, 2, "global_step") is None:
                raise Decline(call, f"`{name.value}.save` is given no `global_step`")
            saver.saves[id(call)] = call
            saver.holders[id(call)] = _holder(call, parent_of)
        elif method_name == "restore" and len(call.args) == 2 and keywords <= {"save_path"}:
            small = parent_of.get(id(call))
            line = parent_of.get(id(small))
            if not isinstance(small, cst.Expr) or not isinstance(line, cst.SimpleStatementLine):
                raise Decline(call, f"the value of `{name.value}.restore` (None) is used")
            saver.restores[id(call)] = call
        else:
            raise Decline(call, f"`{name.value}.{method_name}` is no save at a step or restore")
    bound = [n for n in walk(method.body, code_only=True) if isinstance(n, cst.AssignTarget)]
    for name in found:
        if sum(1 for n in bound if isinstance(n.target, cst.Name) and n.target.value == name) != 1:
            raise Decline(method, f"the saver `{name}` is bound more than once")
    return found


def _holder(node: cst.CSTNode, parent_of: dict) -> tuple[Optional[cst.BaseStatement], int]:
    """The statement holding ``node`` and its depth in the module (a method's body is 2 deep)."""
    holder = None
    depth = 2
    parent = parent_of.get(id(node))
    while parent is not None:
        if holder is None and isinstance(parent, cst.BaseStatement):
            holder = parent
        elif holder is not None and isinstance(parent, cst.IndentedBlock):
            depth += 1
        parent = parent_of.get(id(parent))
    return holder, depth


def _site(
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
    feeds = _feeds(model, call, feed)
    if isinstance(fetched, (cst.List, cst.Tuple)):
        shape = Shape.LIST if isinstance(fetched, cst.List) else Shape.TUPLE
        elements = []
        for element in fetched.elements:
            if isinstance(element, cst.StarredElement):
                raise Decline(call, "the fetches are unpacked with `*`")
            elements.append(element.value)
    else:
        shape, elements = Shape.SINGLE, [fetched]
    fetches = [_fetch(model, tf, call, element, summary) for element in elements]
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
    if kinds <= {Fetched.VARIABLE, Fetched.EAGER} and any(_calls(value) for value in feeds.values()):
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
            if fetch.kind is Fetched.TRAIN and not _unread(target, method, small):
                raise Decline(call, f"`{source(target)}`, the value of a train op (None), is read")
        context = Context.UNPACKED
        site = Site(method, call, fetches, shape, feeds, context, line, targets, foreign=foreign)
        if Fetched.SUMMARY in kinds:
            _summaries_written(model, site, small, parent_of, summary)
        return site
    if Fetched.SUMMARY in kinds:
        raise Decline(call, "the merged summary is fetched other than unpacked into a name")
    if any(f.kind is Fetched.TRAIN for f in fetches):
        raise Decline(call, "the value of a train op's run (None in it) is used")
    return Site(method, call, fetches, shape, feeds, Context.VALUE, foreign=foreign)


def _summaries_written(
    model: ClassModel,
    site: Site,
    assign: cst.Assign,
    parent_of: dict,
    summary: SummaryLocals,
) -> None:
    """The merged summary a run fetched, read as the tensors its summaries summarize: fetched in
    its place (a graph object's: computed before the run, or the values the run fetches), each
    bound to a name of its own, written where ``add_summary`` wrote it."""
    index = next(i for i, f in enumerate(site.fetches) if f.kind is Fetched.SUMMARY)
    target = site.targets[index]
    if not isinstance(target, cst.Name) or sum(f.kind is Fetched.SUMMARY for f in site.fetches) > 1:
        raise Decline(site.call, "the merged summary is not unpacked into one name")
    bound = {id(n) for n in walk(assign)}
    writers = {f"self.{n.name}" for n in model.of(Kind.WRITER)} | summary.writers
    for use in name_nodes(site.method.body):
        if use.value != target.value or id(use) in bound:
            continue
        arg = parent_of.get(id(use))
        call = parent_of.get(id(arg))
        small = parent_of.get(id(call))
        line = parent_of.get(id(small))
        method_call = isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)
        writer = source(call.func.value) if method_call else None
        if not (
            isinstance(arg, cst.Arg)
            and call.args[0] is arg
            and call.func.attr.value == "add_summary"
            and writer in writers
            and len(call.args) == 2
            and isinstance(small, cst.Expr)
            and isinstance(line, cst.SimpleStatementLine)
        ):
            raise Decline(use, f"the fetched summary `{target.value}` is used other than written")
        site.writes.append((line, writer, call.args[1].value, _holder(call, parent_of)[1]))
    taken = {n.value for n in name_nodes(site.method.body)}
    merged = site.fetches[index].expr
    if isinstance(merged, cst.Name) and merged.value in summary.merged:
        _object_summaries(model, site, index, summary.merged[merged.value], taken)
        return
    fetches, targets = site.fetches[:index], site.targets[:index]
    for kind, tag, key in model.summaries:
        cleaned = re.sub(r"[^0-9a-zA-Z_]", "_", tag.evaluated_value)
        name = fresh_name(f"{target.value}_{cleaned}", taken)
        fetches.append(Fetch(cst.parse_expression(key), Fetched.TENSOR, key))
        targets.append(cst.Name(name))
        site.summaries.append((kind, tag, name))
    site.fetches = fetches + site.fetches[index + 1 :]
    site.targets = targets + site.targets[index + 1 :]


def _object_summaries(
    model: ClassModel,
    site: Site,
    index: int,
    holder: str,
    taken: set[str],
) -> None:
    """The summaries of the graph object in ``self.<holder>``, which the run fetched merged: a
    tensor the run fetches into a name is written from it; another tensor is computed before the
    run from the values it feeds (TF1 computed it in the run, before the update). A variable is
    written as it stands where it is written when no run of a train op comes between (TF1's run
    read it before or after its train op updated it, in no set order), else read before the
    run."""
    api = model.foreign[holder]
    settled = _untrained_until_written(model, site)
    target = site.targets[index]
    fed = {key.split(".")[2]: value for key, value in site.feeds.items()}
    fetched = {}
    for fetch, name in zip(site.fetches, site.targets):
        if fetch.kind is Fetched.TENSOR and isinstance(name, cst.Name):
            bound = [n for n in target_name_nodes_in(site.method) if n.value == name.value]
            if len(bound) == 1:  # the value the write reads is this run's
                fetched[fetch.key.split(".")[2]] = name.value
    for kind, tag, member in api.summaries:
        cleaned = re.sub(r"[^0-9a-zA-Z_]", "_", cst.parse_expression(tag).evaluated_value)
        name = fetched.get(member)
        if name is None:
            name = fresh_name(f"{target.value}_{cleaned}", taken)
            taken.add(name)
            if member in api.variables and settled:
                name = f"self.{holder}.{member}"
            elif member in api.variables:
                read = f"{name} = self.{holder}.{member}.numpy()\n"
                site.before.append(cst.parse_statement(read))
            else:
                params = api.tensors.get(member, ())
                missing = [p for p in params if p not in fed]
                if member not in api.tensors or missing:
                    why = f"the run does not feed what the summary of `{member}` needs"
                    raise Decline(site.call, why)
                if any(_calls(fed[p]) for p in params):
                    why = f"the summary of `{member}` would compute a fed value twice"
                    raise Decline(site.call, why)
                given = ", ".join(source(fed[p]) for p in params)
                value = f"self.{holder}.{member}({given}).numpy()"
                site.before.append(cst.parse_statement(f"{name} = {value}\n"))
        site.summaries.append((kind, cst.parse_expression(tag), name))
    site.fetches = site.fetches[:index] + site.fetches[index + 1 :]
    site.targets = site.targets[:index] + site.targets[index + 1 :]


def _untrained_until_written(model: ClassModel, site: Site) -> bool:
    """Whether each ``add_summary`` of the run's merged summary comes after it in the method and
    no session run between them names a train op (of the class or of a graph object)."""
    order = {id(node): index for index, node in enumerate(walk(site.method.body))}
    trains = {f"self.{n.name}" for n in model.of(Kind.TRAIN)}
    for holder, api in model.foreign.items():
        trains |= {f"self.{holder}.{name}" for name in api.trains}
    session = model.session
    runs = [
        node
        for node in walk(site.method.body, code_only=True)
        if isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "run"
        and self_attribute(node.func.value) == session
        and node is not site.call
    ]
    for line, *_ in site.writes:
        if order[id(line)] < order[id(site.call)]:
            return False
        for run in runs:
            if not order[id(site.call)] < order[id(run)] < order[id(line)]:
                continue
            members = [n for n in walk(run, code_only=True) if isinstance(n, cst.Attribute)]
            if any(source(n) in trains for n in members):
                return False
    return bool(site.writes)


def target_name_nodes_in(method: cst.FunctionDef) -> list[cst.Name]:
    """The names ``method`` binds by assignment or loop, each binding once."""
    found: list[cst.Name] = []
    for node in walk(method.body, code_only=True):
        if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor)):
            found += target_name_nodes(node.target)
    return found


def foreign_member(model: ClassModel, node: cst.CSTNode) -> Optional[tuple[str, str]]:
    """``("net", "loss")`` for ``self.net.loss``, ``self.net`` holding a graph class's object."""
    if isinstance(node, cst.Attribute) and self_attribute(node.value) in model.foreign:
        return self_attribute(node.value), node.attr.value
    return None


def foreign_kind(api: GraphAPI, member: str) -> Optional[Fetched]:
    if member in api.tensors:
        return Fetched.TENSOR
    if member in api.trains:
        return Fetched.TRAIN
    if member in api.variables:
        return Fetched.VARIABLE
    if member in api.inits:
        return Fetched.INIT
    return None


def _unknown_object(model: ClassModel, node: cst.CSTNode) -> None:
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


def _unread(target: cst.BaseExpression, method: cst.FunctionDef, assignment: cst.Assign) -> bool:
    """Whether ``target`` is ``_`` or a name the method never reads."""
    if not isinstance(target, cst.Name):
        return False
    if target.value == "_":
        return True
    bound = {id(n) for n in target_name_nodes(assignment.targets[0].target)}
    return not any(n.value == target.value and id(n) not in bound for n in name_nodes(method.body))


def _feeds(model: ClassModel, call: cst.Call, feed: Optional[cst.BaseExpression]) -> dict[str, cst.BaseExpression]:
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
        _unknown_object(model, element.key)
        if node is None or node.kind not in (Kind.PLACEHOLDER, Kind.TENSOR):
            raise Decline(
                element.key,
                f"the run feeds `{source(element.key)}`, no placeholder or tensor of the model",
            )
        if node.key in feeds:
            raise Decline(element.key, f"the run feeds `{node.key}` twice")
        feeds[node.key] = element.value
    return feeds


def _fetch(
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
    _unknown_object(model, base)
    graph = {k for k, n in model.nodes.items() if n.attribute and n.kind is not Kind.VARIABLE}
    reads = {f"self.{a}" for n in walk(element, code_only=True) if (a := self_attribute(n)) is not None}
    if reads & graph:
        raise Decline(element, "the run fetches an op built there on the model's graph")
    if any(isinstance(n, cst.Call) and tf_path(n.func, tf) is not None for n in walk(element, code_only=True)):
        return Fetch(element, Fetched.EAGER)
    raise Decline(element, f"the run fetches `{source(element)}`, which this migration does not read")


def _calls(node: cst.CSTNode) -> bool:
    return any(isinstance(n, cst.Call) for n in walk(node, code_only=True))


def _check_outside(model: ClassModel, tf: TFNames, method: cst.FunctionDef, inside: set[int]) -> None:
    """Outside its runs a method reads no graph value, builds no op and rebinds nothing the
    graph reads."""
    graph = {n.name for n in model.nodes.values() if n.attribute}
    name = method.name.value
    for node in walk(method.body, code_only=True):
        if id(node) in inside:
            continue
        member = foreign_member(model, node)
        if member is not None and foreign_kind(model.foreign[member[0]], member[1]) is not None:
            raise Decline(node, f"`{name}` uses `{source(node)}`, a value of a graph, outside a session run")
        if member is not None and member[1] in model.foreign[member[0]].placeholders:
            raise Decline(node, f"`{name}` uses `{source(node)}`, a placeholder, outside a session run")
        attribute = self_attribute(node)
        if attribute in graph:
            kind = model.nodes[f"self.{attribute}"].kind.value
            raise Decline(node, f"`{name}` uses `self.{attribute}` (a {kind}) outside a session run")
        if (
            isinstance(node, cst.Call)
            and not (tf_path(node.func, tf) or HOST_PREFIXES[0]).startswith(HOST_PREFIXES)
            and tf_path(node.func, tf) not in CHECKPOINT_STATE
        ):
            raise Decline(node, f"`{name}` builds graph ops outside `__init__`")
        if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)):
            for part in walk(node.target):
                bound = self_attribute(part)
                if bound in model.python_read:
                    raise Decline(
                        node,
                        f"`{name}` rebinds `self.{bound}`, which the graph read when it was built",
                    )
                if bound in model.helpers or bound in model.foreign:
                    raise Decline(node, f"`{name}` rebinds `self.{bound}`")
