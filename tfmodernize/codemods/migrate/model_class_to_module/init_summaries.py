"""The summaries a model class's ``__init__`` makes of its tensors, their merge and writer."""

from __future__ import annotations

import re

import libcst as cst

from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.model_class_to_module.model import (
    ClassModel,
    Kind,
    graph_reads,
    key_of,
    tf_path,
)
from tfmodernize.codemods.migrate.summary_v2.tags import DEFAULT_OP_NAMES
from tfmodernize.syntax import argument
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import walk


def read_summary(
    model: ClassModel,
    tf: TFNames,
    graph_only: bool,
    statement: cst.SimpleStatementLine,
    call: cst.Call,
    path: str,
) -> None:
    """``tf.summary.scalar("loss", self.loss)``: a tensor of the model summarized under a
    literal tag, written by the runs fetching the merged summary."""
    tag = call.args[0].value if len(call.args) == 2 else None
    key = key_of(call.args[1].value) if len(call.args) == 2 else None
    if not (isinstance(tag, cst.SimpleString) and isinstance(tag.evaluated_value, str)) or any(
        a.keyword is not None for a in call.args
    ):
        raise Decline(call, 'a summary is not `tf.summary.<kind>("tag", self.<tensor>)`')
    if re.sub(r"[^-/\w.]", "_", tag.evaluated_value) != tag.evaluated_value:
        raise Decline(call, "a summary's tag has characters TF1 replaced")
    held = model.nodes.get(key) if key is not None else None
    # A graph class's summaries are written by the class running its graph, which reads a
    # variable of the object (one ``tf.Variable``) as it reads a tensor.
    one = held is not None and held.variable and held.attribute
    variable = one and held.kind is Kind.VARIABLE
    if held is None or not (held.kind is Kind.TENSOR or (variable and graph_only)):
        raise Decline(
            call,
            "a summary of `__init__` is of something other than a tensor of the model",
        )
    if any(n.kind is Kind.MERGED for n in model.nodes.values()):
        raise Decline(call, "a summary is made after the merge")
    taken = {t.evaluated_value.lower() for _, t, _ in model.summaries}
    for node in walk(model.init.body, code_only=True):
        keyword = node.keyword if isinstance(node, cst.Arg) else None
        named = keyword is not None and keyword.value == "name"
        if named and isinstance(node.value, cst.SimpleString):
            taken.add(str(node.value.evaluated_value).lower())
        elif isinstance(node, cst.Call) and tf_path(node.func, tf) in DEFAULT_OP_NAMES:
            taken.add(DEFAULT_OP_NAMES[tf_path(node.func, tf)])
    if tag.evaluated_value.lower() in taken:
        raise Decline(call, f"the tag `{tag.evaluated_value}` was taken first (TF1 renamed it)")
    model.summaries.append((path.split(".")[1], tag, key))
    model.removed.add(id(statement))


def read_summary_object(
    model: ClassModel,
    statement: cst.SimpleStatementLine,
    value: cst.Call,
    path: str,
    node,
) -> None:
    """``self.merged = tf.summary.merge_all()`` (goes) and ``self.writer =
    tf.summary.FileWriter(logdir)`` (becomes ``tf.summary.create_file_writer(logdir)``)."""
    if path == "summary.merge_all":
        if value.args or not model.summaries:
            raise Decline(value, "`merge_all` of other summaries than `__init__`'s own")
        node(Kind.MERGED)
        model.removed.add(id(statement))
        return
    logdir = argument(value, 0, "logdir")
    graph = argument(value, 1, "graph")
    if logdir is None or len(value.args) > 2 or graph_reads(model.nodes, logdir):
        raise Decline(value, "the writer is given more than a folder and the graph")
    sessions = isinstance(graph, cst.Attribute) and graph.attr.value == "graph"
    if graph is not None and not (sessions and key_of(graph.value) is not None):
        raise Decline(value, "the writer is given a graph other than its session's")
    node(Kind.WRITER)
