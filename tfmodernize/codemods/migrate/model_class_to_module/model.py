"""What a TF1 model class is made of, read off its ``__init__`` and its methods.

A model class builds its graph in ``__init__`` (placeholders, variables, tensors computed from
them, ``optimizer.minimize(cost)``), opens its own session there and initialises its
variables; its other methods run the graph (``self.sess.run(self.cost, feed_dict={self.x:
X})``). ``read_class`` reads such a class into a ``ClassModel``: what each statement of
``__init__`` makes (a ``Node`` per graph value, by the name it is bound to: ``self.x`` or a
local ``eps``), the variable helpers ``__init__`` calls (``self._initialize_weights()``) and
each ``run`` of the session in the other methods (``sites.Site``). Anything it cannot prove the
meaning of is a ``Decline`` naming the construct.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum
from typing import Mapping, Optional

import libcst as cst

from tfmodernize.analysis.tf1_api import HOST_PREFIXES, RANDOM_OPS

from tfmodernize.analysis.optimizers import optimizer_table
from tfmodernize.analysis.tf1_api import INITIALIZERS, PLACEHOLDERS, SESSIONS, VARIABLE_MAKERS
from tfmodernize.analysis.tf_objects import TF_MODULE_MEMBERS

from tfmodernize.analysis.variable_calls import creates_opaque_variables
from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.summary_v2.tags import DEFAULT_OP_NAMES
from tfmodernize.names import (
    name_nodes,
    names_read,
    parameter_names,
    target_name_nodes,
    target_names,
)
from tfmodernize.syntax import argument, source, split_docstring
from tfmodernize.tfsymbols import TFNames, dotted_name
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
        """The attributes holding graph objects: what TF2 code cannot read as TF1 code did."""
        return {n.name for n in self.nodes.values() if n.attribute}

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


class Reader:
    """Reads one class (``read``); raises ``Decline`` at the first construct it cannot follow."""

    def __init__(
        self,
        cls: cst.ClassDef,
        tf: TFNames,
        graph_only: bool = False,
        foreign: Optional[dict] = None,
    ) -> None:
        self.cls, self.tf, self.graph_only = cls, tf, graph_only
        #: Graph classes this class may make objects of, by the dotted name calling them.
        self.foreign = foreign or {}

    # -- the class ----------------------------------------------------------------------------

    def read(self) -> ClassModel:
        cls = self.cls
        if cls.decorators:
            raise Decline(cls, f"`{cls.name.value}` is decorated")
        if any(source(b.value) != "object" or b.keyword is not None for b in cls.bases):
            raise Decline(cls, f"`{cls.name.value}` has a base class other than `object`")
        init = None
        for statement in cls.body.body:
            if isinstance(statement, cst.FunctionDef):
                if statement.name.value == "__init__":
                    init = statement
                if statement.decorators and self._reads_self(statement):
                    raise Decline(statement, f"the method `{statement.name.value}` is decorated")
                continue
            if self._has_tf(statement) or not isinstance(statement, cst.SimpleStatementLine):
                raise Decline(statement, "the class body holds statements other than methods")
        if init is None:
            raise Decline(cls, f"`{cls.name.value}` has no `__init__`")
        model = ClassModel(cls=cls, init=init, graph_only=self.graph_only)
        model.attributes = self._attributes()
        clash = sorted(model.attributes & TF_MODULE_MEMBERS)
        if clash:
            raise Decline(cls, f"`{clash[0]}` is a member of tf.Module, which the class would become")
        self.model = model
        self._read_init()
        return model

    def _attributes(self) -> set[str]:
        found = {s.name.value for s in self.cls.body.body if isinstance(s, cst.FunctionDef)}
        for node in walk(self.cls.body, code_only=True):
            if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)):
                target = node.target
                for part in walk(target):
                    name = self_attribute(part)
                    if name is not None:
                        found.add(name)
        return found

    def _reads_self(self, method: cst.FunctionDef) -> bool:
        return any(isinstance(n, cst.Name) and n.value == "self" for n in walk(method.body))

    def _has_tf(self, node: cst.CSTNode) -> bool:
        """Whether ``node`` calls TF to build ops (``tf.float32`` and the host-only API, such
        as reading the tutorials' MNIST, build none)."""
        return any(
            isinstance(n, cst.Call)
            and (path := tf_path(n.func, self.tf)) is not None
            and not path.startswith(HOST_PREFIXES)
            for n in walk(node, code_only=True)
        )

    # -- __init__ -----------------------------------------------------------------------------

    def _read_init(self) -> None:
        model = self.model
        init = model.init
        self.parameters = set(parameter_names(init)) - {"self"}
        _, body = split_docstring(init.body.body)
        #: The names of plain values ``__init__`` binds (its parameters, its plain locals).
        self.locals: set[str] = set(self.parameters)
        #: The attributes holding plain values, by the statement setting them first.
        self.plain_attributes: dict[str, int] = {}
        first = len(init.body.body) - len(body)
        for index, statement in enumerate(body, start=first):
            self._read_statement(statement, index)
        if self.graph_only and (model.of(Kind.SESSION) or not model.of(Kind.PLACEHOLDER)):
            raise Decline(init, "it is no graph class: a session, or no placeholder, in `__init__`")
        if not self.graph_only and not model.of(Kind.SESSION):
            raise Decline(init, "its session is not made in `__init__` as `self.<name> = tf.Session()`")
        for name in model.foreign:
            assigned = [
                n
                for n in walk(self.cls.body, code_only=True)
                if isinstance(n, (cst.AssignTarget, cst.AugAssign)) and self_attribute(n.target) == name
            ]
            if len(assigned) != 1:
                raise Decline(init, f"`self.{name}`, the graph it runs, is bound more than once")
        self._check_helpers()

    def _read_statement(self, statement: cst.BaseStatement, index: int) -> None:
        model = self.model
        if not isinstance(statement, cst.SimpleStatementLine):
            if self._has_tf(statement) or self._graph_reads(statement) or self._helper_calls(statement):
                raise Decline(statement, "`__init__` builds its graph in a block (`for`, `if`, `with`)")
            self._plain(statement)
            return
        if len(statement.body) != 1:
            raise Decline(statement, "a line of `__init__` holds several statements")
        small = statement.body[0]
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            call = small.value
            if self._is_session_run(call):
                fetched = call.args[0].value if call.args else None
                if len(call.args) == 1 and fetched is not None and self._initializer(fetched):
                    model.removed.add(id(statement))
                    return
                raise Decline(
                    call,
                    "`__init__` runs its session for something other than initialising the variables",
                )
        if isinstance(small, cst.Assign) and len(small.targets) == 1:
            target = small.targets[0].target
            attribute = self_attribute(target)
            if attribute is not None or isinstance(target, cst.Name):
                name = attribute if attribute is not None else target.value
                self._read_assignment(statement, index, name, attribute is not None, small.value)
                return
        call = small.value if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) else None
        path = tf_path(call.func, self.tf) if call is not None else None
        if path in SUMMARY_OPS:
            self._summary(statement, call, path)
            return
        if path is not None:
            raise Decline(
                statement,
                f"`__init__` calls `tf.{path}` for what it does to the graph (summaries, collections)",
            )
        if self._has_tf(statement) or self._graph_reads(statement) or self._helper_calls(statement):
            raise Decline(
                statement,
                "a statement of `__init__` builds the graph in a way this migration does not read",
            )
        self._plain(statement)

    def _read_assignment(
        self,
        statement: cst.SimpleStatementLine,
        index: int,
        name: str,
        attribute: bool,
        value: cst.BaseExpression,
    ) -> None:
        model = self.model
        key = f"self.{name}" if attribute else name
        if key in model.nodes:
            raise Decline(statement, f"`{key}` is bound twice in `__init__`")
        path = tf_path(value.func, self.tf) if isinstance(value, cst.Call) else None

        def node(kind: Kind, **extra) -> Node:
            made = Node(name, attribute, kind, index, statement, value, **extra)
            model.nodes[key] = made
            return made

        summarizing = path in ("summary.merge_all", "summary.FileWriter")
        if summarizing and attribute and not self.graph_only:
            self._summary_object(statement, value, path, node)
            return
        if path in SESSIONS:
            if not attribute or value.args:
                raise Decline(value, "the session is not `self.<name> = tf.Session()` without options")
            node(Kind.SESSION)
            model.removed.add(id(statement))
            return
        if path in INITIALIZERS:
            node(Kind.INIT)
            model.removed.add(id(statement))
            return
        if path in PLACEHOLDERS:
            if path != "placeholder" or not attribute:
                raise Decline(value, "a placeholder is not `self.<name> = tf.placeholder(dtype, shape)`")
            dtype = argument(value, 0, "dtype")
            if dtype is None or any(a.star for a in value.args):
                raise Decline(value, "the placeholder's dtype could not be read")
            node(Kind.PLACEHOLDER, dtype=dtype, shape=argument(value, 1, "shape"))
            model.removed.add(id(statement))
            return
        if path is not None and path.startswith("train.") and path[len("train.") :] in optimizer_table():
            self._check_plain_arguments(value)
            node(Kind.OPTIMIZER, optimizer=OptimizerUse(path[len("train.") :], value))
            return
        if (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and value.func.attr.value == "minimize"
        ):
            node(Kind.TRAIN, **self._train(value, statement))
            model.removed.add(id(statement))
            return
        made = [
            n for n in walk(value, code_only=True) if isinstance(n, cst.Call) and creates_opaque_variables(n, self.tf)
        ]
        if made:
            if not (path in VARIABLE_MAKERS and made == [value]):
                maker = tf_path(made[0].func, self.tf) or self.tf.keras_path(made[0].func)
                raise Decline(made[0], f"`{maker}` makes variables inside a graph expression (a layer)")
            self._check_plain_arguments(value)
            if path == "get_variable":
                model.get_variables.append(value)
            node(Kind.VARIABLE, variable=True)
            return
        if attribute and isinstance(value, cst.Call) and dotted_name(value.func) in self.foreign:
            self.model.foreign[name] = self.foreign[dotted_name(value.func)]
            self._plain(statement)
            self.plain_attributes.setdefault(name, index)
            return
        helper = self._helper_call(value)
        if helper is not None:
            model.helpers[helper.name.value] = helper
            node(Kind.VARIABLE, keys=_variable_keys(helper, self.tf))
            return
        if isinstance(value, (cst.Name, cst.Attribute)) and self._key(value) in model.nodes:
            held = model.nodes[self._key(value)]
            if held.kind is Kind.VARIABLE:
                node(Kind.VARIABLE, variable=held.variable, keys=held.keys)  # ``self.weights = weights``
                return
            raise Decline(value, f"`{self._key(value)}` is bound to another name too")
        reads = self._graph_reads(value)
        if reads or self._has_tf(value):
            node(Kind.TENSOR, reads=tuple(reads), draws=self._check_expression(value))
            model.removed.add(id(statement))
            return
        if self._helper_calls(value):
            raise Decline(value, "`__init__` calls a method that builds the graph")
        self._plain(statement)
        if attribute:
            self.plain_attributes.setdefault(name, index)

    def _summary(self, statement: cst.SimpleStatementLine, call: cst.Call, path: str) -> None:
        """``tf.summary.scalar("loss", self.loss)``: a tensor of the model summarized under a
        literal tag, written by the runs fetching the merged summary."""
        tag = call.args[0].value if len(call.args) == 2 else None
        key = self._key(call.args[1].value) if len(call.args) == 2 else None
        if not (isinstance(tag, cst.SimpleString) and isinstance(tag.evaluated_value, str)) or any(
            a.keyword is not None for a in call.args
        ):
            raise Decline(call, 'a summary is not `tf.summary.<kind>("tag", self.<tensor>)`')
        if re.sub(r"[^-/\w.]", "_", tag.evaluated_value) != tag.evaluated_value:
            raise Decline(call, "a summary's tag has characters TF1 replaced")
        held = self.model.nodes.get(key) if key is not None else None
        # A graph class's summaries are written by the class running its graph, which reads a
        # variable of the object (one ``tf.Variable``) as it reads a tensor.
        one = held is not None and held.variable and held.attribute
        variable = one and held.kind is Kind.VARIABLE
        if held is None or not (held.kind is Kind.TENSOR or (variable and self.graph_only)):
            raise Decline(
                call,
                "a summary of `__init__` is of something other than a tensor of the model",
            )
        if any(n.kind is Kind.MERGED for n in self.model.nodes.values()):
            raise Decline(call, "a summary is made after the merge")
        taken = {t.evaluated_value.lower() for _, t, _ in self.model.summaries}
        for node in walk(self.model.init.body, code_only=True):
            keyword = node.keyword if isinstance(node, cst.Arg) else None
            named = keyword is not None and keyword.value == "name"
            if named and isinstance(node.value, cst.SimpleString):
                taken.add(str(node.value.evaluated_value).lower())
            elif isinstance(node, cst.Call) and tf_path(node.func, self.tf) in DEFAULT_OP_NAMES:
                taken.add(DEFAULT_OP_NAMES[tf_path(node.func, self.tf)])
        if tag.evaluated_value.lower() in taken:
            raise Decline(call, f"the tag `{tag.evaluated_value}` was taken first (TF1 renamed it)")
        self.model.summaries.append((path.split(".")[1], tag, key))
        self.model.removed.add(id(statement))

    def _summary_object(
        self,
        statement: cst.SimpleStatementLine,
        value: cst.Call,
        path: str,
        node,
    ) -> None:
        """``self.merged = tf.summary.merge_all()`` (goes) and ``self.writer =
        tf.summary.FileWriter(logdir)`` (becomes ``tf.summary.create_file_writer(logdir)``)."""
        if path == "summary.merge_all":
            if value.args or not self.model.summaries:
                raise Decline(value, "`merge_all` of other summaries than `__init__`'s own")
            node(Kind.MERGED)
            self.model.removed.add(id(statement))
            return
        logdir = argument(value, 0, "logdir")
        graph = argument(value, 1, "graph")
        if logdir is None or len(value.args) > 2 or self._graph_reads(logdir):
            raise Decline(value, "the writer is given more than a folder and the graph")
        sessions = isinstance(graph, cst.Attribute) and graph.attr.value == "graph"
        if graph is not None and not (sessions and self._key(graph.value) is not None):
            raise Decline(value, "the writer is given a graph other than its session's")
        node(Kind.WRITER)

    def _plain(self, statement: cst.BaseStatement) -> None:
        """A statement of plain Python values: kept in ``__init__``; the locals it binds."""
        self.locals |= names_bound(statement)

    def _train(self, call: cst.Call, statement: cst.SimpleStatementLine) -> dict:
        receiver = call.func.value
        args = {}
        for position, arg in enumerate(call.args):
            if arg.star:
                raise Decline(call, "the arguments of `minimize` could not be read")
            key = arg.keyword.value if arg.keyword is not None else ("loss", "global_step", "var_list")[position]
            if key not in ("loss", "global_step", "var_list"):
                raise Decline(call, f"`minimize` is given `{key}`, which this migration does not carry over")
            args[key] = arg.value
        loss = args.get("loss")
        loss_key = self._key(loss) if loss is not None else None
        if loss_key is None or loss_key not in self.model.nodes or self.model.nodes[loss_key].kind is not Kind.TENSOR:
            raise Decline(call, "`minimize` is not given a tensor `__init__` computed by name")
        for key in ("global_step", "var_list"):
            if key in args and (self._graph_reads(args[key]) or self._has_tf(args[key])):
                raise Decline(call, f"the `{key}` of `minimize` is not made of the model's variables")
            for read in self._attribute_reads(args.get(key)):
                held = self.model.nodes.get(f"self.{read}")
                if held is None or held.kind is not Kind.VARIABLE:
                    raise Decline(call, f"the `{key}` of `minimize` reads `self.{read}`, which is no variable")
            if key in args and names_read(args[key]) - {"self"}:
                raise Decline(call, f"the `{key}` of `minimize` reads a local of `__init__`")
        return {
            "reads": (loss_key,),
            "optimizer": self._optimizer(receiver),
            "global_step": args.get("global_step"),
            "var_list": args.get("var_list"),
        }

    def _optimizer(self, receiver: cst.BaseExpression) -> OptimizerUse:
        """What ``minimize`` is called on: a TF1 optimizer made inline, bound in ``__init__``, or
        passed in as a parameter (with a TF1 optimizer or nothing as its default)."""
        if isinstance(receiver, cst.Call):
            path = tf_path(receiver.func, self.tf) or ""
            tf1_class = path[len("train.") :]
            if not (path.startswith("train.") and tf1_class in optimizer_table()):
                raise Decline(receiver, "`minimize` is called on something other than a TF1 optimizer")
            self._check_plain_arguments(receiver)
            return OptimizerUse(tf1_class, receiver)
        key = self._key(receiver)
        if key is not None and key in self.model.nodes:
            bound = self.model.nodes[key]
            if bound.kind is not Kind.OPTIMIZER or bound.optimizer is None:
                raise Decline(receiver, f"`minimize` is called on `{key}`, which is no TF1 optimizer")
            if any(n.kind is Kind.TRAIN and n.optimizer.binding is bound for n in self.model.nodes.values()):
                raise Decline(receiver, f"the optimizer `{key}` minimizes two losses")
            return OptimizerUse(bound.optimizer.tf1_class, bound.optimizer.call, binding=bound)
        if isinstance(receiver, cst.Name) and receiver.value in self.parameters:
            return self._parameter_optimizer(receiver)
        raise Decline(receiver, "`minimize` is called on an optimizer this migration cannot follow")

    def _parameter_optimizer(self, receiver: cst.Name) -> OptimizerUse:
        name = receiver.value
        params = self.model.init.params
        param = next(p for p in [*params.posonly_params, *params.params, *params.kwonly_params] if p.name.value == name)
        uses = [n for n in name_nodes(self.model.init.body) if n.value == name]
        if uses != [receiver] or any(isinstance(n, cst.Name) and n.value == name for n in self._rebinds()):
            raise Decline(receiver, f"the parameter `{name}` is read other than by its `minimize`")
        default = param.default
        if default is None or (isinstance(default, cst.Name) and default.value == "None"):
            return OptimizerUse("", None, parameter=name)
        path = tf_path(default.func, self.tf) if isinstance(default, cst.Call) else None
        tf1_class = (path or "")[len("train.") :]
        if not (path or "").startswith("train.") or tf1_class not in optimizer_table():
            raise Decline(default, f"the default of `{name}` is not a TF1 optimizer made there")
        self._check_plain_arguments(default)
        return OptimizerUse(tf1_class, default, parameter=name)

    def _rebinds(self) -> list[cst.Name]:
        found = []
        for node in walk(self.model.init.body, code_only=True):
            if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)):
                found += target_name_nodes(node.target)
            elif isinstance(node, (cst.For, cst.CompFor)):
                found += target_name_nodes(node.target)
        return found

    def _check_plain_arguments(self, call: cst.Call) -> None:
        """A call kept in ``__init__`` (a variable, an optimizer) reads no graph value."""
        reads = self._graph_reads(call)
        if reads:
            raise Decline(call, f"`{source(call.func)}` is given `{reads[0]}`, a value of the graph")

    def _check_expression(self, value: cst.BaseExpression) -> bool:
        """A graph expression: the TF ops it calls are ones a tf.function computes the same,
        and the Python values it reads are there when the method runs. Whether it draws."""
        draws = False
        for node in walk(value, code_only=True):
            if isinstance(node, cst.Call):
                path = tf_path(node.func, self.tf)
                if path is not None:
                    if any(path == p or (p.endswith(".") and path.startswith(p)) for p in GRAPH_ONLY):
                        raise Decline(node, f"the graph calls `tf.{path}`, which this migration does not move")
                    if creates_opaque_variables(node, self.tf):
                        raise Decline(node, f"`tf.{path}` makes variables where the graph is computed")
                    draws = draws or draws_random(path)
                elif isinstance(node.func, cst.Attribute) and self_attribute(node.func) in self._methods():
                    raise Decline(node, f"the graph calls the method `{node.func.attr.value}`")
                elif isinstance(node.func, cst.Attribute) and self._key(node.func.value) in self.model.nodes:
                    raise Decline(node, f"the graph calls a method of `{self._key(node.func.value)}`")
            if isinstance(node, cst.Attribute) and node.attr.value in (
                "shape",
                "get_shape",
                "dtype",
                "op",
                "name",
            ):
                if self._graph_reads(node.value):
                    raise Decline(node, f"the graph reads `.{node.attr.value}` of a tensor")
        for key in self._graph_reads(value):
            if self.model.nodes[key].kind not in (Kind.PLACEHOLDER, Kind.TENSOR):
                raise Decline(value, f"the graph reads `{key}`, a {self.model.nodes[key].kind.value}")
        for attribute in self._attribute_reads(value):
            held = self.model.nodes.get(f"self.{attribute}")
            if held is not None and held.kind is Kind.OPTIMIZER:
                raise Decline(value, f"the graph reads `self.{attribute}`, an optimizer")
            if held is not None:
                continue
            if attribute not in self.plain_attributes:
                raise Decline(value, f"the graph reads `self.{attribute}` before `__init__` sets it")
            self.model.python_read.add(attribute)
        for name in name_nodes(value):
            held = self.model.nodes.get(name.value)
            if held is not None and held.kind not in (Kind.PLACEHOLDER, Kind.TENSOR):
                raise Decline(
                    name,
                    f"the graph reads `{name.value}`, a {held.kind.value} not kept on the object",
                )
            if held is not None or name.value not in self.locals:
                continue
            stored = self._stored_as(name.value)
            if stored is None:
                raise Decline(
                    name,
                    f"the graph reads `{name.value}`, a local of `__init__` not kept on the object",
                )
            self.model.stored[name.value] = stored
            self.model.python_read.add(stored)
        return draws

    def _stored_as(self, name: str) -> Optional[str]:
        """The attribute ``__init__`` stores the local ``name`` in (``self.n = n``), if both are bound once."""
        found = None
        for node in walk(self.model.init.body, code_only=True):
            if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.value, cst.Name):
                attribute = self_attribute(node.targets[0].target)
                if attribute is not None and node.value.value == name:
                    found = attribute
        bound = [n for n in self._rebinds() if n.value == name]
        if found is None or bound or name not in self.parameters:
            return None
        return found

    def _methods(self) -> set[str]:
        return {s.name.value for s in self.cls.body.body if isinstance(s, cst.FunctionDef)}

    def _helper_call(self, value: cst.BaseExpression) -> Optional[cst.FunctionDef]:
        """The method of a ``self._make_weights()`` call making variables, if ``value`` is one."""
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)):
            return None
        name = self_attribute(value.func)
        method = next(
            (s for s in self.cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == name),
            None,
        )
        if method is None:
            return None
        if not any(isinstance(n, cst.Call) and creates_opaque_variables(n, self.tf) for n in walk(method.body)):
            return None
        if self._graph_reads(value):
            raise Decline(value, f"`{name}` is given a value of the graph")
        return method

    def _helper_calls(self, node: cst.CSTNode) -> bool:
        methods = self._methods()
        return any(isinstance(n, cst.Call) and self_attribute(n.func) in methods for n in walk(node, code_only=True))

    def _check_helpers(self) -> None:
        """A variable helper only makes variables: its TF calls are variable makers, the
        initializers they are given, and what their arguments compute; it reads no graph value
        and only ``__init__`` calls it, once."""
        for name, helper in self.model.helpers.items():
            calls = [
                n
                for method in self.model.methods()
                for n in walk(method.body, code_only=True)
                if isinstance(n, cst.Call) and self_attribute(n.func) == name
            ]
            if len(calls) != 1:
                raise Decline(helper, f"the variable helper `{name}` is called other than once by `__init__`")
            makers = [n for n in walk(helper.body, code_only=True) if isinstance(n, cst.Call) and self._maker(n)]
            inside = {id(n) for maker in makers for n in walk(maker, code_only=True)}
            for node in walk(helper.body, code_only=True):
                if not isinstance(node, cst.Call) or id(node) in inside:
                    continue
                path = tf_path(node.func, self.tf)
                if path is not None and not _initializer_path(path):
                    raise Decline(node, f"the variable helper `{name}` calls `tf.{path}`")
                if path is None and self_attribute(node.func) in self._methods():
                    raise Decline(node, f"the variable helper `{name}` calls a method")
                if creates_opaque_variables(node, self.tf):
                    raise Decline(node, f"the variable helper `{name}` makes variables with `tf.{path}`")
            for maker in makers:
                self._check_plain_arguments(maker)
                if tf_path(maker.func, self.tf) == "get_variable":
                    self.model.get_variables.append(maker)
            for attribute in self._attribute_reads(helper.body):
                if f"self.{attribute}" in self.model.nodes and self.model.nodes[f"self.{attribute}"].kind not in (
                    Kind.VARIABLE,
                ):
                    raise Decline(
                        helper,
                        f"the variable helper `{name}` reads `self.{attribute}`, a value of the graph",
                    )

    def _maker(self, call: cst.Call) -> bool:
        return tf_path(call.func, self.tf) in VARIABLE_MAKERS

    def _is_session_run(self, call: cst.Call) -> bool:
        func = call.func
        return (
            isinstance(func, cst.Attribute)
            and func.attr.value == "run"
            and self_attribute(func.value) is not None
            and f"self.{self_attribute(func.value)}" in self.model.nodes
            and self.model.nodes[f"self.{self_attribute(func.value)}"].kind is Kind.SESSION
        )

    def _initializer(self, fetched: cst.BaseExpression) -> bool:
        if isinstance(fetched, cst.Attribute) and self_attribute(fetched.value) in self.model.foreign:
            return fetched.attr.value in self.model.foreign[self_attribute(fetched.value)].inits
        if isinstance(fetched, cst.Call):
            return tf_path(fetched.func, self.tf) in INITIALIZERS[:2] and not fetched.args
        key = self._key(fetched)
        return key is not None and key in self.model.nodes and self.model.nodes[key].kind is Kind.INIT

    # -- names --------------------------------------------------------------------------------

    def _key(self, node: Optional[cst.CSTNode]) -> Optional[str]:
        if isinstance(node, cst.Name):
            return node.value
        attribute = self_attribute(node) if node is not None else None
        return f"self.{attribute}" if attribute is not None else None

    def _attribute_reads(self, node: Optional[cst.CSTNode]) -> list[str]:
        if node is None:
            return []
        return [a for n in walk(node, code_only=True) if (a := self_attribute(n)) is not None]

    def _graph_reads(self, node: cst.CSTNode) -> list[str]:
        """The keys of the placeholders and tensors ``node`` reads, in order, once each."""
        found: list[str] = []
        nodes = self.model.nodes
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


def _variable_keys(helper: cst.FunctionDef, tf: TFNames) -> frozenset:
    """The literal keys of the dict a variable helper returns (``return weights``) that it binds
    to one variable each (``weights["w1"] = tf.Variable(...)``), once."""
    body = helper.body.body
    last = body[-1] if body else None
    if not (
        isinstance(last, cst.SimpleStatementLine)
        and isinstance(last.body[0], cst.Return)
        and isinstance(last.body[0].value, cst.Name)
    ):
        return frozenset()
    returned = last.body[0].value.value
    keys: dict[str, int] = {}
    for node in walk(helper.body, code_only=True):
        if not isinstance(node, cst.AssignTarget):
            continue
        target = node.target
        if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name) and target.value.value == returned:
            index = target.slice[0].slice if len(target.slice) == 1 else None
            key = (
                index.value.evaluated_value
                if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString)
                else None
            )
            keys[str(key)] = keys.get(str(key), 0) + (1 if key is not None else 2)
    made = set()
    for statement in body:
        if not (isinstance(statement, cst.SimpleStatementLine) and isinstance(statement.body[0], cst.Assign)):
            continue
        assign = statement.body[0]
        target = assign.targets[0].target
        value = assign.value
        if (
            isinstance(target, cst.Subscript)
            and isinstance(target.value, cst.Name)
            and target.value.value == returned
            and isinstance(value, cst.Call)
            and tf.is_tf(value.func, *VARIABLE_MAKERS)
            and isinstance(target.slice[0].slice, cst.Index)
            and isinstance(target.slice[0].slice.value, cst.SimpleString)
        ):
            made.add(str(target.slice[0].slice.value.evaluated_value))
    return frozenset(key for key in made if keys.get(key) == 1)


def _initializer_path(path: str) -> bool:
    """An initializer object's constructor (``tf.zeros_initializer``, ``tf.initializers.ones``)."""
    return path.endswith("_initializer") or path.startswith(("initializers.", "keras.initializers."))


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


def read_class(
    cls: cst.ClassDef, tf: TFNames, *, graph_only: bool = False, foreign: Optional[dict] = None
) -> ClassModel:
    """The model ``cls`` is (``ClassModel``); raises ``Decline`` at what it cannot follow.
    ``graph_only``: a graph class without a session; ``foreign``: the graph classes (by the
    dotted name calling them) whose objects the class may run."""
    return Reader(cls, tf, graph_only, foreign).read()


def builds_graph(cls: cst.ClassDef, tf: TFNames) -> bool:
    """Whether a class's ``__init__`` makes placeholders (a graph class, when it has no session)."""
    init = next(
        (s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"),
        None,
    )
    return init is not None and any(
        isinstance(n, cst.Call) and tf.is_tf(n.func, *PLACEHOLDERS) for n in walk(init.body, code_only=True)
    )
