"""The tables of the runs of a model class's session in its methods (``site_reader`` fills them):
what each run fetches, what it feeds and where its value goes (``Site``), its savers, and the
``close()`` calls that go with the session; and the readings of a node they share."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Optional

import libcst as cst

from tfmodernize.codemods.migrate.model_class_to_module.model import (
    ClassModel,
    GraphAPI,
    self_attribute,
)
from tfmodernize.names import target_name_nodes
from tfmodernize.treewalk import walk


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


def holder_of(node: cst.CSTNode, parent_of: dict) -> tuple[Optional[cst.BaseStatement], int]:
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


def calls_in(node: cst.CSTNode) -> bool:
    return any(isinstance(n, cst.Call) for n in walk(node, code_only=True))
