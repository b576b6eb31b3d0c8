"""Reading a TF1 model class into a ``model.ClassModel``.

``read_class`` reads the class's body and each statement of its ``__init__``: the placeholders,
variables, tensors and train ops it binds (``train_ops``), the methods making its variables
(``variable_helpers``), its summaries (``init_summaries``), its session and initializer runs.
Anything it cannot prove the meaning of is a ``Decline`` naming the construct.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tfmodernize.analysis.optimizers import optimizer_table
from tfmodernize.analysis.tf1_api import INITIALIZERS, PLACEHOLDERS, SESSIONS, VARIABLE_MAKERS
from tfmodernize.analysis.tf_objects import TF_MODULE_MEMBERS
from tfmodernize.analysis.variable_calls import creates_opaque_variables
from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.model_class_to_module.init_summaries import (
    read_summary,
    read_summary_object,
)
from tfmodernize.codemods.migrate.model_class_to_module.model import (
    GRAPH_ONLY,
    SUMMARY_OPS,
    ClassModel,
    Kind,
    Node,
    OptimizerUse,
    attribute_reads,
    draws_random,
    graph_reads,
    has_tf,
    key_of,
    names_bound,
    reads_placeholders_only,
    rebound_names,
    self_attribute,
    tf_path,
)
from tfmodernize.codemods.migrate.model_class_to_module.train_ops import read_train
from tfmodernize.codemods.migrate.model_class_to_module.variable_helpers import (
    check_helpers,
    check_plain_arguments,
    helper_call,
    variable_keys,
)
from tfmodernize.names import fresh_name, name_nodes, parameter_names
from tfmodernize.syntax import argument, source, split_docstring
from tfmodernize.tfsymbols import TFNames, dotted_name
from tfmodernize.treewalk import walk


class Reader:
    """Reads one class (``read``); raises ``Decline`` at the first construct it cannot follow."""

    def __init__(
        self,
        cls: cst.ClassDef,
        tf: TFNames,
        graph_only: bool = False,
        foreign: Optional[dict] = None,
        inlined: tuple[str, ...] = (),
    ) -> None:
        self.cls, self.tf, self.graph_only, self.inlined = cls, tf, graph_only, inlined
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
            if has_tf(statement, self.tf) or not isinstance(statement, cst.SimpleStatementLine):
                raise Decline(statement, "the class body holds statements other than methods")
        if init is None:
            raise Decline(cls, f"`{cls.name.value}` has no `__init__`")
        model = ClassModel(cls=cls, init=init, graph_only=self.graph_only, inlined=self.inlined)
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
        check_helpers(self.model, self.tf)

    def _read_statement(self, statement: cst.BaseStatement, index: int) -> None:
        model = self.model
        if not isinstance(statement, cst.SimpleStatementLine):
            if self._builds_graph(statement):
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
            read_summary(self.model, self.tf, self.graph_only, statement, call, path)
            return
        if path is not None:
            raise Decline(
                statement,
                f"`__init__` calls `tf.{path}` for what it does to the graph (summaries, collections)",
            )
        if self._builds_graph(statement):
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
            read_summary_object(self.model, statement, value, path, node)
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
            check_plain_arguments(self.model, value)
            node(Kind.OPTIMIZER, optimizer=OptimizerUse(path[len("train.") :], value))
            return
        if (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and value.func.attr.value == "minimize"
        ):
            node(Kind.TRAIN, **read_train(self.model, self.tf, self.parameters, value))
            model.removed.add(id(statement))
            return
        made = [
            n for n in walk(value, code_only=True) if isinstance(n, cst.Call) and creates_opaque_variables(n, self.tf)
        ]
        if made:
            if not (path in VARIABLE_MAKERS and made == [value]):
                maker = tf_path(made[0].func, self.tf) or self.tf.keras_path(made[0].func)
                raise Decline(made[0], f"`{maker}` makes variables inside a graph expression (a layer)")
            check_plain_arguments(self.model, value)
            if path == "get_variable":
                model.get_variables.append(value)
            node(Kind.VARIABLE, variable=True)
            return
        if attribute and isinstance(value, cst.Call) and dotted_name(value.func) in self.foreign:
            self.model.foreign[name] = self.foreign[dotted_name(value.func)]
            self._plain(statement)
            self.plain_attributes.setdefault(name, index)
            return
        helper = helper_call(self.model, self.tf, value)
        if helper is not None:
            model.helpers[helper.name.value] = helper
            node(Kind.VARIABLE, keys=variable_keys(helper, self.tf))
            return
        if isinstance(value, (cst.Name, cst.Attribute)) and key_of(value) in model.nodes:
            held = model.nodes[key_of(value)]
            if held.kind is Kind.VARIABLE:
                node(Kind.VARIABLE, variable=held.variable, keys=held.keys)  # ``self.weights = weights``
                return
            raise Decline(value, f"`{key_of(value)}` is bound to another name too")
        if attribute:
            value = self._draw_apart(statement, index, value)
        reads = graph_reads(self.model.nodes, value)
        if reads or has_tf(value, self.tf):
            node(Kind.TENSOR, reads=tuple(reads), draws=self._check_expression(value))
            model.removed.add(id(statement))
            return
        if self._helper_calls(value):
            raise Decline(value, "`__init__` calls a method that builds the graph")
        self._plain(statement)
        if attribute:
            self.plain_attributes.setdefault(name, index)

    def _draw_apart(
        self, statement: cst.SimpleStatementLine, index: int, value: cst.BaseExpression
    ) -> cst.BaseExpression:
        """A tensor attribute's value with one random op inside (``self.x + tf.random_normal(
        (n,))``), its arguments reading no tensor: the op bound to a local of its own first
        (``noise``), which the plan can draw apart (``plan.drawn``); the value reading it."""
        if not has_tf(value, self.tf):
            return value
        calls = [
            n
            for n in walk(value, code_only=True)
            if isinstance(n, cst.Call) and draws_random(tf_path(n.func, self.tf) or "")
        ]
        if len(calls) != 1 or calls[0] is value:
            return value
        call = calls[0]
        nested = [n for n in walk(call.func, code_only=True)] + [
            n for a in call.args for n in walk(a.value, code_only=True) if n is not call
        ]
        if any(isinstance(n, cst.Call) and draws_random(tf_path(n.func, self.tf) or "") for n in nested):
            return value
        if not reads_placeholders_only(self.model.nodes, call):
            return value
        reads = graph_reads(self.model.nodes, call)
        taken = {n.value for n in walk(self.model.init, code_only=True) if isinstance(n, cst.Name)}
        taken |= set(self.model.nodes)
        dropout = (tf_path(call.func, self.tf) or "").endswith("dropout")
        name = fresh_name("dropped" if dropout else "noise", taken)
        bound = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], call)])
        self._check_expression(call)
        self.model.nodes[name] = Node(name, False, Kind.TENSOR, index, bound, call, reads=tuple(reads), draws=True)
        self.model.drawn_in[name] = statement
        return value.deep_replace(call, cst.Name(name))

    def _plain(self, statement: cst.BaseStatement) -> None:
        """A statement of plain Python values: kept in ``__init__``; the locals it binds."""
        self.locals |= names_bound(statement)

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
                elif isinstance(node.func, cst.Attribute) and key_of(node.func.value) in self.model.nodes:
                    raise Decline(node, f"the graph calls a method of `{key_of(node.func.value)}`")
            if isinstance(node, cst.Attribute) and node.attr.value in (
                "shape",
                "get_shape",
                "dtype",
                "op",
                "name",
            ):
                if graph_reads(self.model.nodes, node.value):
                    raise Decline(node, f"the graph reads `.{node.attr.value}` of a tensor")
        for key in graph_reads(self.model.nodes, value):
            if self.model.nodes[key].kind not in (Kind.PLACEHOLDER, Kind.TENSOR):
                raise Decline(value, f"the graph reads `{key}`, a {self.model.nodes[key].kind.value}")
        for attribute in attribute_reads(value):
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
        bound = [n for n in rebound_names(self.model.init) if n.value == name]
        if found is None or bound or name not in self.parameters:
            return None
        return found

    def _methods(self) -> set[str]:
        return {s.name.value for s in self.cls.body.body if isinstance(s, cst.FunctionDef)}

    def _builds_graph(self, statement: cst.BaseStatement) -> bool:
        """Whether ``statement`` calls TF, reads a graph value or calls a method of the class."""
        nodes = self.model.nodes
        return has_tf(statement, self.tf) or bool(graph_reads(nodes, statement)) or self._helper_calls(statement)

    def _helper_calls(self, node: cst.CSTNode) -> bool:
        methods = self._methods()
        return any(isinstance(n, cst.Call) and self_attribute(n.func) in methods for n in walk(node, code_only=True))

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
        key = key_of(fetched)
        return key is not None and key in self.model.nodes and self.model.nodes[key].kind is Kind.INIT


def read_class(
    cls: cst.ClassDef,
    tf: TFNames,
    *,
    graph_only: bool = False,
    foreign: Optional[dict] = None,
    inlined: tuple[str, ...] = (),
) -> ClassModel:
    """The model ``cls`` is (``ClassModel``); raises ``Decline`` at what it cannot follow.
    ``graph_only``: a graph class without a session; ``foreign``: the graph classes (by the
    dotted name calling them) whose objects the class may run; ``inlined``: the methods whose
    lines ``cls``'s ``__init__`` holds in place of their calls (``inline.flattened``)."""
    return Reader(cls, tf, graph_only, foreign, inlined).read()
