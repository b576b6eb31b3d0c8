"""What a statement of a TF1 graph program reads: the Python names it reads and binds, the TF
calls it makes, and the reads of a graph tensor that need no value (``t.shape``, ``print(t)``)."""

from __future__ import annotations

from typing import Iterable, Optional, Sequence

import libcst as cst

from tfmodernize.treewalk import visit, walk

from tfmodernize.tfsymbols import TFNames
from tfmodernize.syntax import commas, source
from tfmodernize.names import local_names, name_nodes, parameter_names, target_names

from tfmodernize.analysis.tf1_api import INITIALIZERS, RANDOM_OPS
from tfmodernize.codemods.migrate.session_to_function.model import OBJECT_PREFIXES, StaticRead


# -- names ---------------------------------------------------------------------------------


class _NameReader(cst.CSTVisitor):
    def __init__(self) -> None:
        self.loads: set[str] = set()
        self.stores: set[str] = set()
        self.scoped: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.loads.add(node.value)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        visit(node.value, self)
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        visit(node.value, self)
        return False

    def visit_Param(self, node: cst.Param) -> bool:
        self.scoped.add(node.name.value)
        if node.default is not None:
            visit(node.default, self)
        return False

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self.scoped |= target_names(node.target)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> bool:
        self._store(node.target)
        return False

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        bound = target_names(node.target)
        self.loads |= bound
        self.stores |= bound

    def visit_AnnAssign(self, node: cst.AnnAssign) -> bool:
        self._store(node.target)
        if node.value is not None:
            visit(node.value, self)
        return False

    def visit_For(self, node: cst.For) -> None:
        self._store(node.target)

    def visit_AsName(self, node: cst.AsName) -> bool:
        self._store(node.name)
        return False

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._store(node.target)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.stores.add(node.name.value)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.stores.add(node.name.value)

    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            if alias.asname is None:
                self.stores.add(dotted(alias.name).split(".")[0])
        return True

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        if not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                if alias.asname is None:
                    self.stores.add(dotted(alias.name))
        return True

    def _store(self, target: cst.CSTNode) -> None:
        if isinstance(target, (cst.Attribute, cst.Subscript)):
            # ``a.b = v`` / ``a[i] = v`` mutate ``a``: a use, not a binding.
            visit(target, self)
            return
        if isinstance(target, cst.StarredElement):
            self._store(target.value)
            return
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._store(element.value)
            return
        if isinstance(target, cst.Name):
            self.stores.add(target.value)
            return
        visit(target, self)


#: What a graph tensor is, rather than its value: readable outside a session.
STATIC_ATTRIBUTES = ("shape", "dtype")
#: Builtins turning their arguments into text: a graph tensor given to them is described (TF1
#: printed ``Tensor("add:0", shape=(), dtype=float32)``), not evaluated.
TEXT_BUILTINS = ("print", "str", "repr", "format")


def graph_reads(
    node: cst.CSTNode, graph_names: Iterable[str], ops: Optional[TFNames] = None
) -> tuple[list[StaticRead], list]:
    """The reads of graph names in ``node`` that need no value (``t.shape``, ``t.get_shape()``,
    ``t.dtype``, ``type(t)``, ``t`` printed or formatted as text), and the other value uses of
    graph names. With ``ops`` (the file's TF names), the shape or dtype of a TF op built there
    from graph tensors (``tf.argmax(y, 1).shape``) is such a read too (``inline_op``)."""
    names = frozenset(graph_names)
    reads: list[StaticRead] = []
    covered: set[int] = set()
    stray: list[cst.Name] = []

    def described(value: cst.BaseExpression) -> None:
        if isinstance(value, cst.Name) and value.value in names and id(value) not in covered:
            reads.append((value, value.value, "describe"))
            covered.add(id(value))

    def inline(value: cst.BaseExpression) -> bool:
        return (
            ops is not None
            and isinstance(value, cst.Call)
            and tf_path(value.func, ops) is not None
            and not is_object_path(tf_path(value.func, ops))
            and bool(names_used(value) & names)
        )

    class Reader(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> Optional[bool]:
            func = call.func
            if (
                isinstance(func, cst.Attribute)
                and func.attr.value == "get_shape"
                and not call.args
                and inline(func.value)
            ):
                reads.append((call, source(func.value), "shape"))
                return False
            if (
                isinstance(func, cst.Attribute)
                and func.attr.value == "get_shape"
                and not call.args
                and isinstance(func.value, cst.Name)
                and func.value.value in names
            ):
                reads.append((call, func.value.value, "shape"))
                covered.add(id(func.value))
            elif (
                isinstance(func, cst.Name)
                and func.value == "type"
                and len(call.args) == 1
                and call.args[0].keyword is None
                and not call.args[0].star
                and isinstance(call.args[0].value, cst.Name)
                and call.args[0].value.value in names
            ):
                reads.append((call, call.args[0].value.value, "type"))
                covered.add(id(call.args[0].value))
            elif (isinstance(func, cst.Name) and func.value in TEXT_BUILTINS) or (
                isinstance(func, cst.Attribute) and func.attr.value == "format"
            ):
                # ``print(t)``, ``str(t)``, ``"{}".format(t)``; ``print``'s own keywords
                # (``sep=``, ``file=``) are no text of it.
                for arg in call.args:
                    if not arg.star and (arg.keyword is None or isinstance(func, cst.Attribute)):
                        described(arg.value)

        def visit_FormattedStringExpression(self, part: cst.FormattedStringExpression) -> None:
            described(part.expression)

        def visit_BinaryOperation(self, operation: cst.BinaryOperation) -> None:
            # ``"%s" % t``, ``"%s and %s" % (t, u)``
            if isinstance(operation.operator, cst.Modulo) and isinstance(
                operation.left, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)
            ):
                values = [operation.right]
                if isinstance(operation.right, cst.Tuple):
                    values = [element.value for element in operation.right.elements]
                for value in values:
                    described(value)

        def visit_Attribute(self, attribute: cst.Attribute) -> Optional[bool]:
            if attribute.attr.value in STATIC_ATTRIBUTES and inline(attribute.value):
                reads.append((attribute, source(attribute.value), attribute.attr.value))
                return False
            if (
                attribute.attr.value in STATIC_ATTRIBUTES
                and isinstance(attribute.value, cst.Name)
                and attribute.value.value in names
            ):
                reads.append((attribute, attribute.value.value, attribute.attr.value))
                covered.add(id(attribute.value))

        def visit_Name(self, name: cst.Name) -> None:
            if name.value in names and id(name) not in covered:
                stray.append(name)

    visit(node, Reader())
    # Attribute names (``.shape``) and keywords are Names too: only a stray *value* counts.
    values = {id(n) for n in name_nodes(node)}
    return reads, [n for n in stray if id(n) in values]


def static_reads(
    node: cst.CSTNode, graph_names: Iterable[str], ops: Optional[TFNames] = None
) -> Optional[list[StaticRead]]:
    """Every use of a graph name in ``node`` as ``t.shape``, ``t.get_shape()``, ``t.dtype``,
    ``type(t)`` or text (``print(t)``): ``[(node, name, "shape" | "dtype" | "type" |
    "describe")]``; None when a graph name is used any other way (``ops``: see
    ``graph_reads``)."""
    reads, stray = graph_reads(node, graph_names, ops)
    if stray or not reads:
        return None
    return reads


def inline_op(read: StaticRead) -> Optional[cst.Call]:
    """The TF op a static read reads the shape or dtype of, built where it is read
    (``tf.argmax(y, 1).shape``); None for a read of a graph name."""
    node = read[0]
    value = node.value if isinstance(node, cst.Attribute) else node.func.value if isinstance(node, cst.Call) else None
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        value = node.func.value
    return value if isinstance(value, cst.Call) and read[1] == source(value) else None


def static_names(reads: Sequence[StaticRead]) -> set[str]:
    """The graph names static reads read: each read tensor's, and those an op built where it
    is read takes."""
    found: set[str] = set()
    for read in reads:
        op = inline_op(read)
        found |= set(names_used(op)) if op is not None else {read[1]}
    return found


def dotted(node: cst.CSTNode) -> str:
    if isinstance(node, cst.Attribute):
        return f"{dotted(node.value)}.{node.attr.value}"
    return node.value if isinstance(node, cst.Name) else ""


def _read(node: cst.CSTNode) -> _NameReader:
    reader = _NameReader()
    visit(node, reader)
    return reader


def names_used(node: cst.CSTNode) -> frozenset[str]:
    """Names ``node`` reads (over-approximated: a name a nested scope binds still counts
    unless only that scope binds it)."""
    reader = _read(node)
    return frozenset(reader.loads - (reader.scoped - reader.stores))


def free_names(definition: "cst.FunctionDef | cst.ClassDef") -> frozenset[str]:
    """The names a function or class definition reads from the scope it is defined in: its
    decorators, bases and defaults, and what its body (a class's methods') reads that it does
    not bind itself (over-approximated as ``names_used``: a nested scope's locals still count)."""
    outside: set[str] = set()
    for decorator in definition.decorators:
        outside |= names_used(decorator)
    if isinstance(definition, cst.ClassDef):
        for base in (*definition.bases, *definition.keywords):
            outside |= names_used(base.value)
        for statement in definition.body.body:
            if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
                outside |= free_names(statement)
            else:
                outside |= names_used(statement)
        return frozenset(outside)
    params = definition.params
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        if param.default is not None:
            outside |= names_used(param.default)
    own = local_names(definition) | set(parameter_names(definition))
    return frozenset(outside | (names_used(definition.body) - own))


def names_bound(node: cst.CSTNode) -> frozenset[str]:
    """Names ``node`` binds in the scope it runs in (assignments, loop and with targets,
    imports, definitions)."""
    return frozenset(_read(node).stores)


# -- TF calls -------------------------------------------------------------------------------


class _CallReader(cst.CSTVisitor):
    def __init__(self, names: TFNames) -> None:
        self.names = names
        self.calls: list[tuple[str, cst.Call]] = []
        self.attribute_calls: list[tuple[str, cst.Call]] = []
        self.name_calls: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        path = tf_path(node.func, self.names)
        if path is not None:
            self.calls.append((path, node))
        elif isinstance(node.func, cst.Attribute):
            self.attribute_calls.append((node.func.attr.value, node))
        elif isinstance(node.func, cst.Name):
            self.name_calls.append(node)


class StatementReader(_NameReader, _CallReader):
    """Names and calls of one statement, in one traversal."""

    def __init__(self, names: TFNames) -> None:
        _NameReader.__init__(self)
        _CallReader.__init__(self, names)


def draws_random(calls: Sequence[tuple[str, cst.Call]]) -> bool:
    """Whether TF calls (as ``tf_calls`` gives them) include a random op."""
    return any(path in RANDOM_OPS or path.startswith("random.") for path, _ in calls)


def tf_calls(node: cst.CSTNode, names: TFNames) -> tuple[list[tuple[str, cst.Call]], list[tuple[str, cst.Call]]]:
    """(TF API calls as (path, node), method calls as (method name, node)) inside ``node``."""
    reader = _CallReader(names)
    visit(node, reader)
    return reader.calls, reader.attribute_calls


def tf_path(node: cst.CSTNode, names: TFNames) -> Optional[str]:
    """The TF API path a call's function names (``"nn.relu"``), or None."""
    symbol = names.tf_symbol(node)
    if symbol is not None:
        return symbol.path
    keras = names.keras_path(node)
    return "keras." + keras if keras is not None else None


def op_call(node: cst.CSTNode, names: TFNames) -> bool:
    """Whether ``node`` calls a TF op (``tf.argmax(labels, 1)``): a tensor, not an object."""
    if not isinstance(node, cst.Call):
        return False
    path = tf_path(node.func, names)
    return path is not None and not is_object_path(path) and path not in INITIALIZERS


def is_object_path(path: str) -> bool:
    if path.startswith("train.") and path not in ("train.exponential_decay",):
        return True
    if path.endswith("_initializer") and path not in INITIALIZERS:
        return True
    return path.startswith(OBJECT_PREFIXES[1:])


def single_assignment(node: cst.BaseStatement) -> Optional[tuple[str, cst.BaseExpression]]:
    if not isinstance(node, cst.SimpleStatementLine) or len(node.body) != 1:
        return None
    small = node.body[0]
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
        return small.targets[0].target.value, small.value
    return None


def _is_none_name(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def refined_shape(declared: Optional[cst.BaseExpression], wanted) -> Optional[cst.List]:
    """The shape ``set_shape(wanted)`` leaves a placeholder declared with ``declared``: each
    size ``wanted`` gives, or the declared one where it gives None. None unless both are
    literal lists or tuples of int literals and None of one rank, ``wanted`` keeping every
    declared size (or ``declared`` is None: any rank)."""

    def sizes(shape: cst.BaseExpression) -> Optional[list[cst.BaseExpression]]:
        if not isinstance(shape, (cst.List, cst.Tuple)):
            return None
        values = [element.value for element in shape.elements]
        if all(isinstance(v, cst.Integer) or _is_none_name(v) for v in values):
            return values
        return None

    new = sizes(wanted)
    if new is None:
        return None
    old = sizes(declared) if declared is not None else [cst.Name("None")] * len(new)
    if old is None or len(old) != len(new):
        return None
    merged = []
    for was, given in zip(old, new):
        same = isinstance(given, cst.Integer) and isinstance(was, cst.Integer)
        same = same and given.value == was.value
        if isinstance(was, cst.Integer) and not same:
            if isinstance(given, cst.Integer):
                return None  # TF1 raises: the sizes are incompatible
            given = was
        merged.append(cst.Element(given))
    return cst.List(commas(merged))


def outside_use(node: cst.BaseStatement, tensors: set[str]) -> str:
    """Why a statement reading graph tensors outside the session is not migrated, naming the
    tensor and, for ``t.graph`` / ``t.op`` / ``t.name``, what TF2 lacks."""
    reason = "a tensor is used outside the session (printed or passed to Python)"
    if not tensors:
        return reason
    for attribute in walk(node, code_only=True):
        if (
            isinstance(attribute, cst.Attribute)
            and isinstance(attribute.value, cst.Name)
            and attribute.value.value in tensors
            and attribute.attr.value in ("graph", "op", "name", "consumers")
        ):
            return (
                f"{reason}: `{attribute.value.value}.{attribute.attr.value}` is what the TF1 graph "
                "holds of the tensor; a TF2 function's tensors exist only while it traces: print "
                "it inside the function, or drop it"
            )
    name = sorted(tensors)[0]
    return f"{reason}: `{name}`; compute what Python needs from it in a run (`sess.run({name})`)"


def expression_of(node: cst.BaseStatement) -> Optional[cst.BaseExpression]:
    if isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1 and isinstance(node.body[0], cst.Expr):
        return node.body[0].value
    return None
