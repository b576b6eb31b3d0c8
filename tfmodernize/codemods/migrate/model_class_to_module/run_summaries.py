"""The summaries the runs of a model class's methods fetch merged, and the summary objects
(``merge_all``, ``FileWriter``) the methods bind: what each run writes, under which tag."""

from __future__ import annotations

import re

import libcst as cst

from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.model_class_to_module.model import (
    ClassModel,
    Kind,
    self_attribute,
    tf_path,
)
from tfmodernize.codemods.migrate.model_class_to_module.sites import (
    Fetch,
    Fetched,
    Site,
    Sites,
    SummaryLocals,
    calls_in,
    holder_of,
    target_name_nodes_in,
)
from tfmodernize.names import fresh_name, name_nodes
from tfmodernize.syntax import argument, source
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import walk


def summary_locals(
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
def summaries_written(
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
        site.writes.append((line, writer, call.args[1].value, holder_of(call, parent_of)[1]))
    taken = {n.value for n in name_nodes(site.method.body)}
    merged = site.fetches[index].expr
    if isinstance(merged, cst.Name) and merged.value in summary.merged:
        object_summaries(model, site, index, summary.merged[merged.value], taken)
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


def object_summaries(
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
    settled = untrained_until_written(model, site)
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
                if any(calls_in(fed[p]) for p in params):
                    why = f"the summary of `{member}` would compute a fed value twice"
                    raise Decline(site.call, why)
                given = ", ".join(source(fed[p]) for p in params)
                value = f"self.{holder}.{member}({given}).numpy()"
                site.before.append(cst.parse_statement(f"{name} = {value}\n"))
        site.summaries.append((kind, cst.parse_expression(tag), name))
    site.fetches = site.fetches[:index] + site.fetches[index + 1 :]
    site.targets = site.targets[:index] + site.targets[index + 1 :]


def untrained_until_written(model: ClassModel, site: Site) -> bool:
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
