"""Reading the methods of a model class (``read_sites``): its session's runs (``runs``),
savers (``savers``), summary objects (``run_summaries``) and ``close()`` calls, and nothing else
of the graph used outside a run."""

from __future__ import annotations

import libcst as cst

from tfmodernize.analysis.tf1_api import HOST_PREFIXES
from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.model_class_to_module.model import (
    ClassModel,
    Kind,
    self_attribute,
    tf_path,
)
from tfmodernize.codemods.migrate.model_class_to_module.run_summaries import summary_locals
from tfmodernize.codemods.migrate.model_class_to_module.runs import read_run
from tfmodernize.codemods.migrate.model_class_to_module.savers import read_savers
from tfmodernize.codemods.migrate.model_class_to_module.sites import (
    Sites,
    SummaryLocals,
    foreign_kind,
    foreign_member,
    holder_of,
)
from tfmodernize.names import name_nodes
from tfmodernize.syntax import source
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import children, walk


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
        savers = read_savers(model, tf, method, parent_of) if session is not None else {}
        for saver in savers.values():
            found.savers.append(saver)
            inside |= {id(n) for n in walk(saver.statement)}
        summary = SummaryLocals()
        if session is not None:
            summary = summary_locals(model, tf, method, found)
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
            site = read_run(model, tf, method, call, parent_of, summary)
            site.holder, site.depth = holder_of(call, parent_of)
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
        check_outside(model, tf, method, inside)
    return found


CHECKPOINT_STATE = ("train.get_checkpoint_state", "train.latest_checkpoint")


def check_outside(
    model: ClassModel,
    tf: TFNames,
    method: cst.FunctionDef,
    inside: set[int],
) -> None:
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
