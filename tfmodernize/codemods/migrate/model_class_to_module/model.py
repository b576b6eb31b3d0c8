"""What a TF1 model class is made of: the tables ``reader.read_class`` fills.

A model class builds its graph in ``__init__`` (placeholders, variables, tensors computed from
them, ``optimizer.minimize(cost)``), opens its own session there and initialises its
variables; its other methods run the graph (``self.sess.run(self.cost, feed_dict={self.x:
X})``). A ``ClassModel`` holds what each statement of ``__init__`` makes (a ``Node`` per graph
value, by the name it is bound to: ``self.x`` or a local ``eps``) and the variable helpers
``__init__`` calls; ``GraphAPI`` is what a graph class offers the classes running its graph.
The functions below read names and graph values off a node for every reader of the class.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Mapping, Optional

import libcst as cst

from tfmodernize.analysis.tf1_api import (
    HOST_PREFIXES,
    INITIALIZERS,
    PLACEHOLDERS,
    RANDOM_OPS,
    SESSIONS,
)
from tfmodernize.names import (
    name_nodes,
    target_name_nodes,
    target_names,
)
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import walk

#: The summaries a model class's ``__init__`` may make of its tensors.
SUMMARY_OPS = ("summary.scalar", "summary.histogram")
#: TF paths (prefixes end with a dot) a graph expression may not call: they make variables,
#: read or fill collections, write summaries, change state or need TF1's graph.
GRAPH_ONLY = (
    "summary.",
    "train.",
    "metrics.",
    "data.",
    "get_collection",
    "add_to_collection",
    "global_variables",
    "trainable_variables",
    "local_variables",
    "assign",
    "assign_add",
    "assign_sub",
    "Print",
    "py_func",
    "control_dependencies",
    "group",
    "no_op",
    "get_default_graph",
    "variable_scope",
    "name_scope",
    "while_loop",
    *PLACEHOLDERS,
    *SESSIONS,
    *INITIALIZERS,
)


class Kind(str, Enum):
    PLACEHOLDER = "placeholder"
    TENSOR = "tensor"
    TRAIN = "train op"
    SESSION = "session"
    INIT = "initializer"
    VARIABLE = "variable"
    OPTIMIZER = "optimizer"
    MERGED = "merged summary"
    WRITER = "summary writer"


@dataclass
class Node:
    """One graph value ``__init__`` binds: ``self.<name>`` (``attribute``) or a local ``name``."""

    name: str
    attribute: bool
    kind: Kind
    index: int  # the statement's position in ``__init__``'s body
    statement: cst.SimpleStatementLine
    value: cst.BaseExpression
    #: The graph values (keys) the value reads: placeholders, tensors, the loss of a train op.
    reads: tuple[str, ...] = ()
    #: Whether the value itself runs a random op.
    draws: bool = False
    #: A placeholder's dtype and shape (None: no shape given).
    dtype: Optional[cst.BaseExpression] = None
    shape: Optional[cst.BaseExpression] = None
    #: A train op's optimizer, ``global_step`` and ``var_list``.
    optimizer: Optional["OptimizerUse"] = None
    global_step: Optional[cst.BaseExpression] = None
    var_list: Optional[cst.BaseExpression] = None
    #: A variable's: whether it is one variable, and which literal keys of the dict holding
    #: variables (a helper's ``weights["w1"] = tf.Variable(...)``) are each one variable.
    variable: bool = False
    keys: frozenset = frozenset()

    @property
    def key(self) -> str:
        return f"self.{self.name}" if self.attribute else self.name


@dataclass
class OptimizerUse:
    """The optimizer a train op's ``minimize`` is called on."""

    tf1_class: str
    #: The TF1 constructor call: the parameter's default, the call inline, the binding's value
    #: (None: a parameter without a TF1 default, passed by the callers).
    call: Optional[cst.Call]
    #: The ``__init__`` parameter passing it in, if any.
    parameter: Optional[str] = None
    #: The node binding it (``opt = tf.train.AdamOptimizer(...)``, ``self.opt = ...``), if any.
    binding: Optional[Node] = None


@dataclass(frozen=True)
class GraphAPI:
    """What a graph class (its graph built in ``__init__``, run by other code) offers once it is a
    tf.Module: a method per tensor, named after it, computing it from the placeholders it
    depends on (by their names), and a step per train op, returning its loss."""

    #: Tensor attribute -> the parameters of its method (placeholder attributes), in order.
    tensors: Mapping[str, tuple[str, ...]]
    #: Train op attribute -> (the tensor it minimizes, the parameters of its step).
    trains: Mapping[str, tuple[str, tuple[str, ...]]]
    variables: tuple[str, ...] = ()
    placeholders: tuple[str, ...] = ()
    inits: tuple[str, ...] = ()
    #: The summaries ``__init__`` makes, in order: (kind, the tag literal's source, the tensor or
    #: variable attribute summarized); ``merge_all`` in the code running the graph merges them.
    summaries: tuple[tuple[str, str, str], ...] = ()

    def to_json(self) -> dict:
        return {
            "tensors": {name: list(params) for name, params in self.tensors.items()},
            "trains": {name: [loss, list(params)] for name, (loss, params) in self.trains.items()},
            "variables": list(self.variables),
            "placeholders": list(self.placeholders),
            "inits": list(self.inits),
            "summaries": [list(summary) for summary in self.summaries],
        }

    @classmethod
    def from_json(cls, data: dict) -> "GraphAPI":
        return cls(
            {name: tuple(params) for name, params in data.get("tensors", {}).items()},
            {name: (loss, tuple(params)) for name, (loss, params) in data.get("trains", {}).items()},
            tuple(data.get("variables", ())),
            tuple(data.get("placeholders", ())),
            tuple(data.get("inits", ())),
            tuple((kind, tag, member) for kind, tag, member in data.get("summaries", ())),
        )


@dataclass
class ClassModel:
    cls: cst.ClassDef
    init: cst.FunctionDef
    #: Graph values by key (``self.x``, ``eps``), in the order ``__init__`` binds them.
    nodes: dict[str, Node] = field(default_factory=dict)
    #: Statements of ``__init__`` that go (session, initializer runs), by identity.
    removed: set[int] = field(default_factory=set)
    #: A random op drawn apart from the tensor attribute it was inside (``noise``): the
    #: statement of ``__init__`` it was made in.
    drawn_in: dict[str, cst.SimpleStatementLine] = field(default_factory=dict)
    #: Methods ``__init__`` calls to make variables, by name.
    helpers: dict[str, cst.FunctionDef] = field(default_factory=dict)
    #: ``self.<name>`` attributes holding plain Python values the graph reads.
    python_read: set[str] = field(default_factory=set)
    #: ``__init__`` parameters and locals the graph reads -> the attribute holding the same value.
    stored: dict[str, str] = field(default_factory=dict)
    #: The ``tf.get_variable`` calls of ``__init__`` and its helpers.
    get_variables: list[cst.Call] = field(default_factory=list)
    #: Every attribute name the class sets, and every method name.
    attributes: set[str] = field(default_factory=set)
    #: A graph class: its graph is built in ``__init__`` and run by other code (no session).
    graph_only: bool = False
    #: The attributes holding objects of graph classes whose graph this class runs.
    foreign: dict[str, GraphAPI] = field(default_factory=dict)
    #: The summaries ``__init__`` makes (``tf.summary.scalar("loss", self.loss)``), in order:
    #: (kind, the tag literal, the key of the tensor summarized).
    summaries: list[tuple[str, cst.SimpleString, str]] = field(default_factory=list)
    #: The methods ``__init__`` called to build the graph, read as its lines (``inline``): gone.
    inlined: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.cls.name.value

    @property
    def session(self) -> Optional[str]:
        return next((n.name for n in self.nodes.values() if n.kind is Kind.SESSION), None)

    def has_graph(self) -> bool:
        """Whether the class builds a graph of its own: then it becomes a tf.Module (one only
        running the graph of another object stays a plain class)."""
        return any(n.kind not in (Kind.SESSION, Kind.INIT) for n in self.nodes.values())

    def of(self, kind: Kind) -> list[Node]:
        return [node for node in self.nodes.values() if node.kind is kind]

    def graph_attributes(self) -> set[str]:
        """The attributes holding graph objects, and the methods that built them: what TF2 code
        cannot read as TF1 code did."""
        return {n.name for n in self.nodes.values() if n.attribute} | set(self.inlined)

    def methods(self) -> list[cst.FunctionDef]:
        return [s for s in self.cls.body.body if isinstance(s, cst.FunctionDef)]


def opens_session(cls: cst.ClassDef, tf: TFNames) -> bool:
    """Whether the class's own code makes a ``tf.Session``."""
    return any(isinstance(n, cst.Call) and tf.is_tf(n.func, *SESSIONS) for n in walk(cls.body, code_only=True))


def self_attribute(node: cst.CSTNode) -> Optional[str]:
    """``"x"`` for ``self.x``, else None."""
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
        return node.attr.value
    return None


def tf_path(node: cst.CSTNode, tf: TFNames) -> Optional[str]:
    symbol = tf.tf_symbol(node)
    return symbol.path if symbol is not None else None


def draws_random(path: str) -> bool:
    return path in RANDOM_OPS or path.startswith("random.")


def has_tf(node: cst.CSTNode, tf: TFNames) -> bool:
    """Whether ``node`` calls TF to build ops (``tf.float32`` and the host-only API, such
    as reading the tutorials' MNIST, build none)."""
    for part in walk(node, code_only=True):
        path = tf_path(part.func, tf) if isinstance(part, cst.Call) else None
        if path is not None and not path.startswith(HOST_PREFIXES):
            return True
    return False


def key_of(node: Optional[cst.CSTNode]) -> Optional[str]:
    if isinstance(node, cst.Name):
        return node.value
    attribute = self_attribute(node) if node is not None else None
    return f"self.{attribute}" if attribute is not None else None


def attribute_reads(node: Optional[cst.CSTNode]) -> list[str]:
    if node is None:
        return []
    return [a for n in walk(node, code_only=True) if (a := self_attribute(n)) is not None]


def graph_reads(nodes: Mapping[str, Node], node: cst.CSTNode) -> list[str]:
    """The keys of the placeholders and tensors ``node`` reads, in order, once each."""
    found: list[str] = []
    graph = (Kind.PLACEHOLDER, Kind.TENSOR, Kind.TRAIN, Kind.SESSION, Kind.INIT)
    for part in walk(node, code_only=True):
        key = None
        if isinstance(part, cst.Attribute) and self_attribute(part) is not None:
            key = f"self.{part.attr.value}"
        elif isinstance(part, cst.Name) and part.value in nodes:
            key = part.value
        if key is not None and key in nodes and nodes[key].kind in graph and key not in found:
            found.append(key)
    # A local that is a graph name but read as an attribute's ``attr`` is not a read.
    plain = {n.value for n in name_nodes(node)}
    return [k for k in found if k.startswith("self.") or k in plain]


def reads_placeholders_only(nodes: Mapping[str, Node], node: cst.CSTNode) -> bool:
    """Whether ``node`` reads no graph value but placeholders: no tensor, no variable (whose
    gradient a value computed apart would lose)."""
    plain = {n.value for n in name_nodes(node)}
    for part in walk(node, code_only=True):
        attribute = self_attribute(part)
        key = f"self.{attribute}" if attribute is not None else None
        if isinstance(part, cst.Name) and part.value in plain:
            key = part.value
        if key is not None and key in nodes and nodes[key].kind is not Kind.PLACEHOLDER:
            return False
    return True


def rebound_names(init: cst.FunctionDef) -> list[cst.Name]:
    found = []
    for node in walk(init.body, code_only=True):
        if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)):
            found += target_name_nodes(node.target)
        elif isinstance(node, (cst.For, cst.CompFor)):
            found += target_name_nodes(node.target)
    return found


def names_bound(statement: cst.CSTNode) -> set[str]:
    found: set[str] = set()
    for node in walk(statement, code_only=True):
        if isinstance(node, cst.AssignTarget):
            found |= target_names(node.target)
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
            found |= target_names(node.target)
        elif isinstance(node, cst.For):
            found |= target_names(node.target)
    return found
