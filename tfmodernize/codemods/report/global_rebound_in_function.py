"""TFM306 global-rebound-in-function (finding only).

What it does
    Reports a ``tf.function`` that reads a module-level name holding a Python number
    (``SCALE = 0.5``) when the module binds that name again after the function is defined
    (a later ``SCALE = ...``, ``SCALE += ...``, a module-level ``for SCALE in ...``, or an
    assignment in a function that declares ``global SCALE``). A name the function only
    rebinds (``global calls; calls += 1``, a trace counter) is not read into the graph: its
    number never reaches a tensor, so it is not reported. Nor is a rebinding to something else
    than a number (``SCALE = tf.Variable(2.0)``) that no call can precede: no trace has seen the
    number yet, and the first trace reads the new object.

Why it matters
    A Python number read by a ``tf.function`` is a constant of the traced graph: its value
    at trace time is baked in. Calls that reuse the trace keep computing with the old value
    after the module changes it (a learning-rate schedule, a step counter, a flag), silently.
    Only a retrace for some other reason picks up the new value. Pass the number as an
    argument (as a tensor, ``tf.constant(value)``, so that new values do not retrace) or keep
    it in a ``tf.Variable`` and ``assign`` new values.

Before
    SCALE = 0.5

    @tf.function
    def scaled(x):
        return x * SCALE

    SCALE = 2.0

After
    scale = tf.Variable(0.5)

    @tf.function
    def scaled(x):
        return x * scale

    scale.assign(2.0)

Fixtures: ``fixtures/global-rebound-in-function/``.

Fix safety
    No fix: a finding only.

Declines when
    the function only names the number in a ``global`` statement or as the target of an
    augmented assignment (``count += 1``): Python keeps it, the graph never reads it; or the
    module rebinds it to something else than a number before anything could call the function.
"""

from __future__ import annotations

import libcst as cst

from tfmodernize.analysis.tf_function import INTERESTS, InTFFunction, own_body, traced_functions
from tfmodernize.codemod import TFCodemod
from tfmodernize.treewalk import walk
from tfmodernize.names import local_names, parameter_names

MESSAGE = (
    "`{name}` is a Python number read by the tf.function `{function}`: its value is baked into "
    "the graph when `{function}` is traced, so the module's later rebinding of it (line {line}) "
    "is not seen by calls that reuse the trace. Pass it as a tensor argument or keep it in a "
    "tf.Variable and `assign` new values"
)


class GlobalReboundInFunction(InTFFunction, TFCodemod):
    __doc__ = __doc__
    code = "TFM306"
    name = "global-rebound-in-function"
    summary = "a tf.function reading a module-level number that the module later rebinds"
    interests = INTERESTS

    def visit_Module(self, node: cst.Module) -> bool:
        result = super().visit_Module(node)
        traced = traced_functions(node, self.tf)
        self._defined_at: dict[cst.FunctionDef, int] = {}
        numbers: set[str] = set()
        #: name -> (statement index, binding node, whether it binds a value that is no number)
        self._rebinds: dict[str, list[tuple[int, cst.CSTNode, bool]]] = {}
        self._body = node.body
        for index, stmt in enumerate(node.body):
            for inner in walk(stmt):
                if isinstance(inner, cst.FunctionDef) and inner in traced:
                    self._defined_at[inner] = index
            for name, value, where in _module_bindings(stmt):
                if value is not None and _is_number(value):
                    numbers.add(name)
                other = value is not None and not _is_number(value)
                self._rebinds.setdefault(name, []).append((index, where, other))
            for name, where in _global_assignments(stmt):
                self._rebinds.setdefault(name, []).append((len(node.body), where, False))
        self._numbers = numbers
        self._reported: set[tuple[int, str]] = set()
        self._not_reads: set[int] = set()
        self._locals_cache: dict[cst.FunctionDef, set[str]] = {}
        return result

    @property
    def _locals(self) -> set[str]:
        """Names bound by the traced function the visitor is in (computed once per function)."""
        function = self.traced_function
        if function not in self._locals_cache:
            self._locals_cache[function] = set(parameter_names(function)) | local_names(function)
        return self._locals_cache[function]

    def visit_Name(self, node: cst.Name) -> None:
        function = self.traced_function
        name = node.value
        if function is None or name not in self._numbers or name in self._locals or id(node) in self._not_reads:
            return
        defined = self._defined_at.get(function)
        later = [
            where
            for index, where, other in self._rebinds.get(name, [])
            if defined is not None and index > defined and not (other and not self._calls_between(defined, index))
        ]
        if not later or (id(function), name) in self._reported:
            return
        self._reported.add((id(function), name))
        line = self.state.position(later[0])[0]
        self.report(node, MESSAGE.format(name=name, function=function.name.value, line=line))

    def _calls_between(self, start: int, end: int) -> bool:
        """Whether a module statement after ``start`` and before ``end`` calls anything (and so
        may trace the function while the name still holds the number)."""
        return any(
            isinstance(inner, cst.Call)
            for stmt in self._body[start + 1 : end]
            if not isinstance(stmt, (cst.FunctionDef, cst.ClassDef))
            for inner in walk(stmt)
        )

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        # ``obj.SCALE`` and ``f(SCALE=...)`` do not read the global ``SCALE``.
        self._not_reads.add(id(node.attr))
        return True

    def visit_Global(self, node: cst.Global) -> bool:
        # ``global SCALE`` declares the name; it reads nothing.
        self._not_reads.update(id(item.name) for item in node.names)
        return True

    def visit_AugAssign(self, node: cst.AugAssign) -> bool:
        # ``count += 1`` rebinds a Python number while tracing (a trace counter); the old value
        # feeds only the new one, never a tensor, so nothing of it is baked into the graph.
        if isinstance(node.target, cst.Name):
            self._not_reads.add(id(node.target))
        return True

    def visit_Arg(self, node: cst.Arg) -> bool:
        if node.keyword is not None:
            self._not_reads.add(id(node.keyword))
        return True


def _is_number(value: cst.BaseExpression) -> bool:
    if isinstance(value, cst.UnaryOperation):
        value = value.expression
    return isinstance(value, (cst.Integer, cst.Float))


def _module_bindings(stmt: cst.CSTNode):
    """``(name, value or None, node)`` for each module-level binding a statement makes."""
    if isinstance(stmt, cst.SimpleStatementLine):
        for small in stmt.body:
            if isinstance(small, cst.Assign):
                for target in small.targets:
                    if isinstance(target.target, cst.Name):
                        yield target.target.value, small.value, small
            elif isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                yield small.target.value, small.value, small
            elif isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name):
                yield small.target.value, None, small
    elif isinstance(stmt, cst.For) and isinstance(stmt.target, cst.Name):
        yield stmt.target.value, None, stmt
        for inner in stmt.body.body:
            yield from _module_bindings(inner)
    elif isinstance(stmt, (cst.If, cst.While, cst.With, cst.Try)):
        for inner in getattr(stmt.body, "body", ()):
            yield from _module_bindings(inner)


def _global_assignments(stmt: cst.CSTNode):
    """``(name, node)`` for assignments to ``global`` names inside functions of ``stmt``."""
    for function in walk(stmt):
        if not isinstance(function, cst.FunctionDef):
            continue
        declared = {
            n.name.value for node in own_body(function.body) if isinstance(node, cst.Global) for n in node.names
        }
        for node in own_body(function.body):
            target = None
            if isinstance(node, cst.AssignTarget):
                target = node.target
            elif isinstance(node, cst.AugAssign):
                target = node.target
            if isinstance(target, cst.Name) and target.value in declared:
                yield target.value, node
