"""TFM210 list-append-in-function.

What it does
    In the body of a ``tf.function``, rewrites a Python list that is created empty, grown
    with ``.append(value)`` in one loop and then only stacked, into a ``tf.TensorArray``:
    ``out = []`` -> ``out = tf.TensorArray(<dtype>, size=0, dynamic_size=True)``,
    ``out.append(y)`` -> ``out = out.write(out.size(), y)``, ``tf.stack(out)`` /
    ``tf.convert_to_tensor(out)`` -> ``out.stack()`` and ``tf.concat(out, 0)`` ->
    ``out.concat()`` (with ``infer_shape=False``, so pieces may differ in length),
    ``tf.add_n(out)`` -> ``tf.reduce_sum(out.stack(), axis=0)`` and a reduction of the list
    (``tf.reduce_sum(out)``, ``tf.reduce_mean(out, axis=0)``, ...) -> the same reduction of
    ``out.stack()``. The dtype is the one the appended values are built with: written out
    (``tf.cast(x, tf.float32)``, ``dtype=``) or followed from what they are made of (Python
    number literals as ``tf.constant`` makes them, ``tf.zeros``/``tf.random.normal`` float32,
    ops keeping their input's dtype, arithmetic with a tensor of known dtype, a ``tf.range``
    loop variable, a name assigned once in the loop or before it). Anything else (the list read
    another way, appended in several places or not in a loop, a dtype the code does not state,
    ``tf.stack(out, axis=1)``) is reported, not rewritten.

Why it matters
    A Python list is invisible to the graph: in a loop that AutoGraph turns into a
    ``tf.while_loop`` (``for i in tf.range(n)``, ``for x in tensor``) appending to it fails,
    and in a Python loop it is unrolled while tracing, so the graph (and the tracing time)
    grows with every iteration. A ``TensorArray`` is a graph value that the loop can carry:
    the loop may then run as one ``tf.while_loop`` and stacks to the same tensor.

Before
    @tf.function
    def cumulative(xs):
        out = []
        total = tf.constant(0.0)
        for x in xs:
            total = total + tf.cast(x, tf.float32)
            out.append(tf.cast(total, tf.float32))
        return tf.stack(out)

After
    @tf.function
    def cumulative(xs):
        out = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        total = tf.constant(0.0)
        for x in xs:
            total = total + tf.cast(x, tf.float32)
            out = out.write(out.size(), tf.cast(total, tf.float32))
        return out.stack()

Fixtures: ``fixtures/list-append-in-function/``.

Fix safety
    A ``tf.TensorArray`` written in order and stacked holds the same values the list held, and
    grows on every call instead of only while tracing.

Declines when
    the list is used other than by ``append`` in one plain ``for`` loop and one stack/concat, a nested
    function uses it, or the element dtype is not written. A function decorated
    ``@tf.function(autograph=False)`` (as TF1 graph code is migrated) is left alone: without
    AutoGraph its loops run in Python while it is traced, as TF1's did while building the graph,
    and a list grows there as it did in TF1.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Union

import libcst as cst

from tfmodernize.analysis.dtypes import DTYPE_ARGUMENT, FLOAT_MAKERS, SAME_DTYPE, number_dtype
from tfmodernize.analysis.tf_function import (
    INTERESTS,
    LooksInTFFunctions,
    is_tf_function,
    own_body,
    traced_functions,
)
from tfmodernize.codemod import Decline, TFCodemod
from tfmodernize.names import name_nodes
from tfmodernize.treewalk import contains, walk
from tfmodernize.syntax import argument, source

#: TF calls that turn the list into one tensor, and the TensorArray method doing the same.
_CONSUMERS = {"stack": "stack", "convert_to_tensor": "stack", "concat": "concat", "add_n": "add_n"}
#: Reductions that pack a list argument into one tensor (as ``tf.stack`` does) and reduce it:
#: the list argument becomes ``out.stack()``, the other arguments stay.
_REDUCTIONS = (
    "reduce_sum",
    "reduce_mean",
    "reduce_max",
    "reduce_min",
    "reduce_prod",
    "math.reduce_sum",
    "math.reduce_mean",
    "math.reduce_max",
    "math.reduce_min",
    "math.reduce_prod",
)


@dataclass
class _Plan:
    """One list to replace: where it is created, appended to and consumed."""

    creation: cst.SimpleStatementLine
    appends: list[cst.SimpleStatementLine] = field(default_factory=list)
    consumers: dict[cst.Call, str] = field(default_factory=dict)
    dtype: Optional[cst.BaseExpression] = None


class ListAppendInFunction(LooksInTFFunctions, TFCodemod):
    __doc__ = __doc__
    code = "TFM210"
    name = "list-append-in-function"
    summary = "list grown with .append in a tf.function loop and stacked -> tf.TensorArray"
    needles = ("append",)
    interests = INTERESTS

    def visit_Module(self, node: cst.Module) -> bool:
        self._traced = traced_functions(node, self.tf)
        self._rewritten: list[cst.FunctionDef] = []
        return True

    def leave_FunctionDef(self, original: cst.FunctionDef) -> None:
        if (
            original not in self._traced
            or _without_autograph(original, self.tf)
            or any(contains(original, inner) for inner in self._rewritten)
        ):
            return
        plans = []
        for index, stmt in enumerate(original.body.body):
            name = _empty_list(stmt)
            if name is None:
                continue
            try:
                plan = self._plan(original, index, name)
            except Decline as decline:
                appended = _append_statements(original, name)
                if any(_in_loop(original, s) for s in appended):
                    self.declined(
                        decline,
                        f"`{name}` is a Python list grown in a loop of a tf.function; "
                        "it was not turned into a tf.TensorArray because ",
                    )
                continue
            if self.fix(stmt, f"`{name}` is a Python list grown in a loop of a tf.function: use a tf.TensorArray"):
                plans.append((name, plan))
        if plans:
            self._rewritten.append(original)
            self._rewrite(plans)

    def _rewrite(self, plans: list[tuple[str, "_Plan"]]) -> None:
        for name, plan in plans:
            options = "size=0, dynamic_size=True"
            if "concat" in plan.consumers.values():
                options += ", infer_shape=False"
            array = cst.Call(
                self.tf_expr("TensorArray"), [cst.Arg(plan.dtype), *cst.parse_expression(f"f({options})").args]
            )
            self.replace(
                plan.creation,
                lambda updated, array=array: updated.with_changes(body=[updated.body[0].with_changes(value=array)]),
            )
            for append in plan.appends:
                value = append.body[0].value.args[0].value
                write = cst.parse_expression(f"{name}.write({name}.size(), __value__)")
                write = write.with_changes(args=[write.args[0], write.args[1].with_changes(value=value)])
                self.replace(
                    append,
                    lambda updated, write=write: updated.with_changes(
                        body=[cst.Assign([cst.AssignTarget(cst.Name(name))], write)]
                    ),
                )
            for consumer, method in plan.consumers.items():
                if method == "add_n":
                    total = cst.parse_expression(f"f({name}.stack(), axis=0)")
                    self.replace(consumer, total.with_changes(func=self.tf_expr("reduce_sum")))
                elif method == "argument":
                    self.replace(consumer.args[0].value, cst.parse_expression(f"{name}.stack()"))
                else:
                    self.replace(consumer, cst.parse_expression(f"{name}.{method}()"))

    def _plan(self, function: cst.FunctionDef, index: int, name: str) -> _Plan:
        """How the list becomes a TensorArray; raises Decline saying why it cannot."""
        creation = function.body.body[index]
        plan = _Plan(creation)
        everywhere = [n for n in name_nodes(function.body) if n.value == name]
        if len(everywhere) != len([n for n in name_nodes(function.body, nested=False) if n.value == name]):
            raise Decline(creation, "a nested function or lambda uses it")
        appended = _append_statements(function, name)
        loops = {id(_enclosing_loop(function, s)) for s in appended}
        if not appended or None in {_enclosing_loop(function, s) for s in appended}:
            raise Decline(creation, "it is not appended to only directly in a loop's body")
        if len(loops) != 1:
            raise Decline(creation, "it is appended to in more than one loop")
        loop = _enclosing_loop(function, appended[0])
        if not isinstance(loop, cst.For) or loop.orelse is not None or loop not in function.body.body:
            raise Decline(creation, "the loop appending to it is not a plain `for` statement of the function")
        if function.body.body.index(loop) < index:
            raise Decline(creation, "the loop comes before the list is created")
        plan.appends = appended
        uses = {id(n) for n in everywhere}
        uses.discard(id(creation.body[0].targets[0].target))
        for stmt in appended:
            uses.discard(id(stmt.body[0].value.func.value))
        for node in own_body(function.body):
            if isinstance(node, cst.Call) and node.args and _is_name(node.args[0].value, name):
                method = self._consumer(node)
                if method is None:
                    continue
                if any(node is inner for inner in own_body(loop)):
                    raise Decline(creation, "it is stacked inside the loop")
                plan.consumers[node] = method
                uses.discard(id(node.args[0].value))
        if uses:
            raise Decline(
                creation,
                "it is used other than by `.append` in the loop and tf.stack / tf.concat(…, 0) / "
                "tf.convert_to_tensor / tf.add_n / a tf.reduce_* of it",
            )
        if not plan.consumers:
            raise Decline(creation, "it is never stacked")
        dtypes = {self._dtype_of(s.body[0].value.args[0].value, loop, function) for s in appended}
        dtype_texts = {source(d) if d is not None else None for d in dtypes}
        if None in dtype_texts or len(dtype_texts) != 1:
            raise Decline(
                creation, "the element dtype is not stated by the appended values (e.g. `tf.cast(value, tf.float32)`)"
            )
        plan.dtype = next(iter(dtypes))
        return plan

    def _consumer(self, call: cst.Call) -> Optional[str]:
        symbol = self.tf.tf_symbol(call.func)
        if (
            symbol is not None
            and symbol.path in _REDUCTIONS
            and call.args[0].keyword in (None,)
            and not call.args[0].star
        ):
            return "argument"
        if symbol is None or symbol.path not in _CONSUMERS:
            return None
        if call.args[0].keyword is not None or call.args[0].star:
            return None
        rest = call.args[1:]
        if symbol.path == "concat":
            if len(rest) != 1 or not _is_zero(rest[0].value) or (rest[0].keyword and rest[0].keyword.value != "axis"):
                return None
        elif rest:
            return None
        return _CONSUMERS[symbol.path]

    def _dtype_of(
        self, value: cst.BaseExpression, loop: cst.For, function: cst.FunctionDef, depth: int = 0
    ) -> Optional[cst.BaseExpression]:
        """The dtype of ``value`` as the code states it (``analysis/dtypes``' tables): written out
        (``tf.cast(x, tf.float32)``, ``dtype=``), or followed from what it is made of: Python
        numbers (float32, int32, as ``tf.constant`` makes them), TF's float32 makers, ops keeping
        their operands' dtype, a ``tf.range`` loop variable, a name assigned once in the loop or
        before it."""
        if depth > 20:
            return None
        literal = number_dtype(value)
        if literal is not None:
            return self.tf_expr(literal)
        if isinstance(value, cst.Name):
            return self._name_dtype(value.value, loop, function, depth)
        if isinstance(value, (cst.Subscript, cst.UnaryOperation)):
            inner = value.value if isinstance(value, cst.Subscript) else value.expression
            return self._dtype_of(inner, loop, function, depth + 1)
        if isinstance(value, cst.BinaryOperation):
            if not isinstance(value.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.Power)):
                return None
            # Python's operators convert a number to the tensor's dtype: a tensor side decides.
            sides = [s for s in (value.left, value.right) if number_dtype(s) is None]
            found = [self._dtype_of(s, loop, function, depth + 1) for s in sides]
            texts = {source(d) for d in found if d is not None}
            if len(texts) != 1:
                return None
            dtype = next(d for d in found if d is not None)
            if isinstance(value.operator, cst.Divide) and "float" not in source(dtype):
                return None  # integer tensors divide into float64
            return dtype
        if not isinstance(value, cst.Call):
            return None
        symbol = self.tf.tf_symbol(value.func)
        if symbol is None:
            return None
        path = symbol.path
        written = argument(value, DTYPE_ARGUMENT.get(path), "dtype")
        if written is not None:
            return written
        if path in FLOAT_MAKERS:
            return self.tf_expr("float32")
        positional = [a.value for a in value.args if a.keyword is None and not a.star]
        if path in ("constant", "convert_to_tensor") and positional:
            return self._dtype_of(positional[0], loop, function, depth + 1)
        if path in SAME_DTYPE and positional:
            # In a traced function, an op converts its first operand before it reads the others'
            # dtypes: a number given first is float32 or int32, and the others must match.
            return self._dtype_of(positional[0], loop, function, depth + 1)
        return None

    def _name_dtype(
        self, name: str, loop: cst.For, function: cst.FunctionDef, depth: int
    ) -> Optional[cst.BaseExpression]:
        """The dtype of the one value ``name`` holds where the loop appends it."""
        if _is_name(loop.target, name):
            return self._range_dtype(loop.iter)
        in_loop = [
            node.value
            for node in own_body(loop.body)
            if isinstance(node, cst.Assign) and len(node.targets) == 1 and _is_name(node.targets[0].target, name)
        ]
        if in_loop:
            unique = len(in_loop) == 1 and not _binds(loop.body, name, besides=1)
            return self._dtype_of(in_loop[0], loop, function, depth + 1) if unique else None
        if _binds(loop.body, name):
            return None
        before = [
            node.value
            for node in own_body(function.body)
            if isinstance(node, cst.Assign) and len(node.targets) == 1 and _is_name(node.targets[0].target, name)
        ]
        if len(before) == 1 and not _binds(function.body, name, besides=1):
            return self._dtype_of(before[0], loop, function, depth + 1)
        return None

    def _range_dtype(self, iterable: cst.BaseExpression) -> Optional[cst.BaseExpression]:
        """int32 for ``tf.range`` of int literals (its ``dtype=`` if given)."""
        if not isinstance(iterable, cst.Call) or not self.tf.is_tf(iterable.func, "range"):
            return None
        for arg in iterable.args:
            if arg.keyword is not None and arg.keyword.value == "dtype":
                return arg.value
        return None


def _without_autograph(function: cst.FunctionDef, names) -> bool:
    """Whether ``function`` is decorated ``@tf.function(..., autograph=False)``: its loops all run
    in Python while it is traced (TF1 graph code migrated as it ran), where a list is fine."""
    return any(
        isinstance(decorator.decorator, cst.Call)
        and is_tf_function(decorator.decorator, names)
        and any(
            arg.keyword is not None
            and arg.keyword.value == "autograph"
            and isinstance(arg.value, cst.Name)
            and arg.value.value == "False"
            for arg in decorator.decorator.args
        )
        for decorator in function.decorators
    )


def _binds(block: cst.CSTNode, name: str, besides: int = 0) -> bool:
    """Whether ``block`` binds ``name`` more than ``besides`` times (assignments, loops, withs)."""
    count = 0
    for node in own_body(block):
        targets: list[cst.CSTNode] = []
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For)):
            targets = [node.target]
        elif isinstance(node, cst.AsName):
            targets = [node.name]
        count += sum(1 for t in targets for n in walk(t) if _is_name(n, name))
    return count > besides


def _is_name(node: cst.CSTNode, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def _is_zero(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Integer) and node.value == "0"


def _empty_list(stmt: cst.CSTNode) -> Optional[str]:
    """``name`` for a statement ``name = []``."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    if (
        isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
        and isinstance(small.value, cst.List)
        and not small.value.elements
    ):
        return small.targets[0].target.value
    return None


def _append_statements(function: cst.FunctionDef, name: str) -> list[cst.SimpleStatementLine]:
    """Statements ``name.append(value)`` in the function's own body."""
    found = []
    for node in own_body(function.body):
        if not isinstance(node, cst.SimpleStatementLine) or len(node.body) != 1:
            continue
        expr = node.body[0]
        if (
            isinstance(expr, cst.Expr)
            and isinstance(expr.value, cst.Call)
            and isinstance(expr.value.func, cst.Attribute)
            and _is_name(expr.value.func.value, name)
            and expr.value.func.attr.value == "append"
            and len(expr.value.args) == 1
            and expr.value.args[0].keyword is None
            and not expr.value.args[0].star
        ):
            found.append(node)
    return found


def _in_loop(function: cst.FunctionDef, stmt: cst.CSTNode) -> bool:
    return any(
        isinstance(node, (cst.For, cst.While)) and any(inner is stmt for inner in own_body(node))
        for node in own_body(function.body)
    )


def _enclosing_loop(function: cst.FunctionDef, stmt: cst.CSTNode) -> Optional[Union[cst.For, cst.While]]:
    """The loop whose body directly holds ``stmt``, if any."""
    for node in own_body(function.body):
        if isinstance(node, (cst.For, cst.While)) and isinstance(node.body, cst.IndentedBlock):
            if any(child is stmt for child in node.body.body):
                return node
    return None
