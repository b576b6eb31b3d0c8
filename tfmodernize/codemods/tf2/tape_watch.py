"""TFM204 tape-watch.

What it does
    For ``tape.gradient(target, x)`` (or ``[x, ...]``) where ``x`` is a plain tensor that the
    ``with tf.GradientTape() as tape:`` block reads but never watches, inserts
    ``tape.watch(x)`` as the block's first statement.

    Fix safety: safe when every binding of ``x`` the gradient call can see is a TF call that
    makes a tensor (``tf.constant``, ``tf.convert_to_tensor``, ``tf.zeros``, ``tf.random.*``,
    ...) or a parameter of the enclosing function (a tensor passed in; a trainable variable
    passed in is watched anyway). Otherwise (``x`` comes from an attribute, another call, a
    loop) the fix is unsafe: ``x`` might be a non-trainable variable whose gradient the author
    meant to be ``None``. Names bound to ``tf.Variable(...)`` (or to a call of a function returning
    a new variable, of the module or of the project) are left alone, and so are parameters
    every call of the function passes such a variable, names the code around the tape uses as
    variables (``x.assign(...)``, ``apply_gradients`` on them) and intermediates computed in
    the block from other values (``h = x * w``, or unpacked as ``h, out = model(x)``: recorded
    when computed from what the tape watches; a rebinding after the gradient call, outside any
    loop, does not count). An ``x`` reassigned inside the block, or made there from literals
    alone, is reported (watch it right after that assignment).

Why it matters
    A tape records operations on trainable variables only, unless told to ``watch`` a tensor:
    the gradient with respect to an unwatched constant or input is silently ``None``. This is
    the first "gradient is None" case of TensorFlow's autodiff guide.

Before
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        y = x * x
    dy_dx = tape.gradient(y, x)  # None before the fix, 6.0 after

After
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    dy_dx = tape.gradient(y, x)  # None before the fix, 6.0 after

Fix safety
    Safe when every binding of the watched name is a TF call that makes a tensor; otherwise unsafe:
    it might be a non-trainable variable whose None gradient was meant.

Declines when
    the source is not a plain name bound in the visible code, or the tape is not a ``with`` block of
    the same function.
"""

from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst
from libcst.metadata import ParentNodeProvider, PositionProvider, ScopeProvider

from tfmodernize.analysis import module_variables
from tfmodernize.analysis.project_facts import imported_functions
from tfmodernize.analysis.bindings import Binding, bindings
from tfmodernize.treewalk import walk
from tfmodernize.analysis.tape import gradient_call, gradient_calls, tape_with
from tfmodernize.names import names_read
from tfmodernize.codemod import TFCodemod
from tfmodernize.tfsymbols import TFNames

#: TF functions whose result is a plain tensor (paths relative to the TF top level).
TENSOR_MAKERS = (
    "constant",
    "convert_to_tensor",
    "zeros",
    "ones",
    "zeros_like",
    "ones_like",
    "fill",
    "eye",
    "range",
    "linspace",
    "cast",
    "reshape",
    "stack",
    "concat",
    "identity",
    "transpose",
)
#: Namespaces whose functions all return plain tensors.
TENSOR_NAMESPACES = ("random.", "math.", "linalg.")
VARIABLE_MAKERS = ("Variable", "compat.v1.get_variable", "get_variable")


def _makes_tensor(value: cst.BaseExpression, tf: TFNames) -> bool:
    if not isinstance(value, cst.Call):
        return False
    symbol = tf.tf_symbol(value.func)
    if symbol is None:
        return False
    return symbol.path in TENSOR_MAKERS or symbol.path.startswith(TENSOR_NAMESPACES)


def _makes_variable(binding: Binding, tf: TFNames, factories: frozenset[str] = frozenset()) -> bool:
    """``tf.Variable(...)``, or a call of a function returning a new variable (``factories``)."""
    value = binding.value
    return isinstance(value, cst.Call) and (
        tf.is_tf(value.func, *VARIABLE_MAKERS) or isinstance(value.func, cst.Name) and value.func.value in factories
    )


def _source_names(sources: cst.BaseExpression) -> Iterator[cst.Name]:
    if isinstance(sources, cst.Name):
        yield sources
    elif isinstance(sources, (cst.List, cst.Tuple)):
        for element in sources.elements:
            if isinstance(element, cst.Element) and isinstance(element.value, cst.Name):
                yield element.value


class TapeWatch(TFCodemod):
    __doc__ = __doc__
    code = "TFM204"
    name = "tape-watch"
    summary = "gradient w.r.t. an unwatched plain tensor (None) -> tape.watch(x) in the tape block"
    needles = ("GradientTape",)
    interests = (cst.Call,)
    METADATA_DEPENDENCIES = (PositionProvider, ScopeProvider, ParentNodeProvider)

    @classmethod
    def detect(cls, node: cst.CSTNode, names) -> bool:
        call = gradient_call(node)
        return call is not None and any(True for _ in _source_names(call.sources))

    def visit_Module(self, node: cst.Module) -> None:
        self._module = node
        self._scopes = self.metadata[ScopeProvider]
        self._parents = self.metadata[ParentNodeProvider]
        #: with statement -> (tape name, names to watch, in order)
        self._watch: dict[cst.With, tuple[str, list[str]]] = {}
        # Functions returning a new variable, of this module or imported from the project's.
        self._factories = frozenset(module_variables.variable_factories(node, self.tf)) | {
            local for local, imported in imported_functions(node, self.state.project).items() if imported.facts.factory
        }
        for call in gradient_calls(node, self.tf, self._scopes, self._parents):
            block = tape_with(call.tape, self._scopes, self._parents)
            if block is None:
                continue
            for name in _source_names(call.sources):
                self._plan(block, call.tape.value, name)

    def _plan(self, block: cst.With, tape: str, name: cst.Name) -> None:
        body_nodes = list(walk(block.body))
        if name.value not in names_read(block.body):
            return  # not used in the block: its gradient is None whatever is watched
        if any(self._watches(n, tape, name.value) for n in body_nodes):
            return
        planned = self._watch.get(block)
        if planned is not None and name.value in planned[1]:
            return
        found = [b for b in bindings(name, self._scopes, self._parents) if not self._later(b, name)]
        if not found or any(_makes_variable(b, self.tf, self._factories) for b in found):
            return
        if any(b.kind == "param" and self._given_variables(b.node) for b in found):
            return  # every call of the function passes a variable, which the tape watches
        if self._used_as_variable(block, name.value):
            return  # assigned to or optimized: a variable, which the tape watches
        body_ids = {id(n) for n in body_nodes}
        inside = [b for b in found if id(b.node) in body_ids]
        computed = all(self._intermediate(self._unpacked(b)) for b in inside)
        if inside and len(inside) == len(found) and computed:
            return  # an intermediate computed in the block: recorded from what the tape watches
        if inside:
            self.report(
                name,
                f"`{name.value}` is reassigned inside the tape block, so its gradient is None unless "
                f"it is watched: call `{tape}.watch({name.value})` right after that assignment",
            )
            return
        safe = all(b.kind == "param" or (b.kind == "assign" and _makes_tensor(b.value, self.tf)) for b in found)
        message = (
            f"the tape never watches `{name.value}`, so if it is a plain tensor its gradient is "
            f"None: add `{tape}.watch({name.value})` at the start of the tape block"
        )
        if not safe:
            message += (
                f"; `{name.value}` is not provably a tensor here (it could be a non-trainable "
                f"variable whose gradient is meant to be None)"
            )
        if self.fix(name, message, safe=safe, suggestion=f"{tape}.watch({name.value})"):
            self._watch.setdefault(block, (tape, []))[1].append(name.value)

    def _given_variables(self, param: cst.CSTNode) -> bool:
        """Whether ``param`` is a parameter of a function of this module that every call of it
        in the module (at least one) passes a name bound only to a new variable."""
        function = self._parents.get(self._parents.get(param))
        if not isinstance(param, cst.Param) or not isinstance(function, cst.FunctionDef):
            return False
        positional = [*function.params.posonly_params, *function.params.params]
        index = next((i for i, p in enumerate(positional) if p is param), None)
        passed = []
        for node in walk(self._module):
            if not (
                isinstance(node, cst.Call)
                and isinstance(node.func, cst.Name)
                and node.func.value == function.name.value
            ):
                continue
            if any(a.star for a in node.args):
                return False
            by_keyword = [a for a in node.args if a.keyword and a.keyword.value == param.name.value]
            ordered = [a for a in node.args if a.keyword is None]
            if by_keyword:
                passed.append(by_keyword[0].value)
            elif index is not None and index < len(ordered):
                passed.append(ordered[index].value)
            else:
                return False
        return bool(passed) and all(
            isinstance(value, cst.Name)
            and (found := bindings(value, self._scopes, self._parents))
            and all(_makes_variable(b, self.tf, self._factories) for b in found)
            for value in passed
        )

    def _later(self, binding: Binding, use: cst.Name) -> bool:
        """Whether ``binding`` comes after ``use`` in straight-line code, so cannot reach it."""
        positions = self.metadata[PositionProvider]
        if binding.node not in positions or use not in positions:
            return False
        if positions[binding.node].start.line <= positions[use].start.line:
            return False
        node: Optional[cst.CSTNode] = use
        while node is not None and not isinstance(node, (cst.FunctionDef, cst.Module)):
            if isinstance(node, (cst.For, cst.While)):
                return False
            node = self._parents.get(node)
        return True

    def _unpacked(self, binding: Binding) -> Binding:
        """A name bound by unpacking (``a, b = f(x)``) as an assignment of the whole value."""
        node: Optional[cst.CSTNode] = binding.node
        if binding.kind != "other":
            return binding
        packing = (cst.Element, cst.StarredElement, cst.Tuple, cst.List)
        while isinstance(self._parents.get(node), packing):
            node = self._parents.get(node)
        target = self._parents.get(node)
        statement = self._parents.get(target) if isinstance(target, cst.AssignTarget) else None
        if node is binding.node or not isinstance(statement, cst.Assign):
            return binding
        return Binding("assign", binding.node, statement.value, statement)

    @staticmethod
    def _intermediate(binding: Binding) -> bool:
        """``h = <expression of other names>`` in the block: the tape records it when it is
        computed from a variable or a watched tensor, and its gradient is then not None."""
        value = binding.value
        if binding.kind != "assign" or value is None:
            return False
        read = names_read(value)
        if isinstance(value, cst.Call):
            read -= names_read(value.func)
        return bool(read)

    def _used_as_variable(self, block: cst.With, name: str) -> bool:
        """Whether the code around the tape calls ``name.assign*(...)`` or hands ``name`` to
        ``apply_gradients``: only a variable allows either."""
        scope: Optional[cst.CSTNode] = block
        while scope is not None and not isinstance(scope, (cst.FunctionDef, cst.Module)):
            scope = self._parents.get(scope)
        for node in walk(scope) if scope is not None else ():
            if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)):
                continue
            method = node.func.attr.value
            if method in ("assign", "assign_add", "assign_sub") and isinstance(node.func.value, cst.Name):
                if node.func.value.value == name:
                    return True
            if method == "apply_gradients" and name in names_read(node.args[0].value if node.args else node):
                return True
        return False

    @staticmethod
    def _watches(node: cst.CSTNode, tape: str, name: str) -> bool:
        if not (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "watch"
            and isinstance(node.func.value, cst.Name)
            and node.func.value.value == tape
            and node.args
        ):
            return False
        watched = node.args[0].value
        return any(n.value == name for n in _source_names(watched))

    def leave_With(self, original: cst.With) -> None:
        planned = self._watch.get(original)
        if planned is not None:
            self.replace(original, lambda updated: self._watching(updated, planned))

    @staticmethod
    def _watching(updated: cst.With, planned: tuple[str, list[str]]) -> cst.With:
        tape, names = planned
        watches = [cst.Expr(cst.parse_expression(f"{tape}.watch({name})")) for name in names]
        body = updated.body
        if isinstance(body, cst.IndentedBlock):
            lines = [cst.SimpleStatementLine([watch]) for watch in watches]
            return updated.with_changes(body=body.with_changes(body=[*lines, *body.body]))
        assert isinstance(body, cst.SimpleStatementSuite)
        return updated.with_changes(body=body.with_changes(body=[*watches, *body.body]))
