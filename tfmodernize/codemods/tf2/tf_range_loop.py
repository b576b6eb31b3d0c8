"""TFM201 tf-range-loop.

What it does
    Finds a ``tf.function`` of the file (``@tf.function`` or ``f = tf.function(g)``) called
    inside a Python ``for i in range(...)`` loop with the loop variable (or an integer
    expression of it, ``i + 1``) as an argument, which traces a new graph for every value.

    If the loop uses ``i`` only as such arguments (or as an argument of ``tf.cast``,
    ``tf.print``, ...) and the ``range`` bounds are int literals or ``len(...)`` (so
    ``tf.range`` yields int32, not the int64 a NumPy bound would give), the loop becomes
    ``for i in tf.range(...)``. Otherwise (``i`` is also printed, indexes a list, is used after
    the loop, the bounds are other names, ...) the argument becomes ``tf.constant(i)`` at the
    call and the loop stays Python.

    Either way the function then receives an ``int32`` scalar tensor instead of a Python
    ``int``. That is the same value only where the function hands the parameter straight to a
    TF op that would have converted the Python int itself (``tf.cast``, ``tf.range``,
    ``tf.print``, ``tf.convert_to_tensor``, ``tf.identity``, ``tf.fill`` values, ``tf.gather``
    indices). Any other use is reported as a finding instead: ``x * n`` would become float32 *
    int32, an error; ``print(n)`` would run once instead of once per value; ``lst[n]``,
    ``range(n)`` and ``n + 1`` need a Python int. So is a float that changes per call
    (``i / 10``, ``lr *= 0.9``), whose tensor dtype the code cannot prove, and a function
    compiled with ``jit_compile``, where XLA may need the value as a constant. Loops inside a
    traced function are autograph's business and are left alone.

    A parameter used as a ``tf.summary`` step (``tf.summary.scalar(..., step=epoch)``,
    ``tf.summary.experimental.set_step(epoch)``) needs an int64 tensor (an int32 or float
    tensor is refused): the argument becomes ``tf.constant(epoch, dtype=tf.int64)`` at the
    call, provided the function's other uses of it (``tf.cast``, ``tf.print``, ``tf.gather``)
    take an int64 tensor as they take an int; otherwise it is reported.

Why it matters
    A Python number argument is part of a ``tf.function``'s trace key: every new value
    builds and optimises a new graph (TF warns about "excessive retracing"). A 1,000-step loop
    traces 1,000 times and runs tens of times slower than with a tensor argument, which is
    traced once ("Better performance with tf.function", "Python or Tensor args?";
    ``benchmarks/retracing.py`` measures it).

Before
    @tf.function
    def train(num_steps):
        for _ in tf.range(num_steps):
            train_one_step()

    for n in range(1, 50):
        train(n)

After
    @tf.function
    def train(num_steps):
        for _ in tf.range(num_steps):
            train_one_step()

    for n in tf.range(1, 50):
        train(n)

Fix safety
    The function receives the same numbers as tensors of the same dtype, traced once instead of once
    per value.

Declines when
    the loop variable is used other than as a tensor argument (arithmetic with floats, ``print``,
    indexing, ``range``): each such use is a finding.
"""

from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst
from libcst.metadata import ParentNodeProvider, ScopeProvider

from tfmodernize.analysis.bindings import bindings, is_builtin, references
from tfmodernize.treewalk import walk
from tfmodernize.analysis.tf_function import (
    LooksInTFFunctions,
    is_tf_function,
    own_body,
    traced_functions,
)
from tfmodernize.codemod import TFCodemod
from tfmodernize.syntax import source

#: TF functions that convert a Python int argument to the same int32 tensor that
#: ``tf.constant(i)`` / ``tf.range`` give: {path: positions (None: any) allowed}.
TENSOR_SAFE_ARGS: dict[str, Optional[tuple[int, ...]]] = {
    "cast": (0,),
    "range": None,
    "print": None,
    "convert_to_tensor": (0,),
    "identity": (0,),
    "fill": (1,),
    "gather": (1,),
}
#: Of those, the ones that take an int64 tensor as they take an int32 one.
ANY_INT_ARGS = ("cast", "print", "gather")
#: The TF paths of calls whose ``step=`` must be an int64 tensor (or a Python int).
SUMMARY_PREFIX = "summary."
#: Keywords that change how those functions convert their arguments.
CONVERSION_KEYWORDS = ("dtype", "preferred_dtype", "dtype_hint")
INT_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo)


def _number_kind(expr: cst.BaseExpression, loop_var: str) -> Optional[str]:
    """``"int"`` for an integer expression of ``loop_var`` (``i``, ``i * 2 + 1``), ``"float"`` for
    a float expression of it (``i / 10``, ``0.1 * i``), else None."""
    kinds: set[str] = set()
    uses_var = False
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name) and node.value == loop_var:
            uses_var = True
        elif isinstance(node, cst.Integer):
            pass
        elif isinstance(node, cst.Float):
            kinds.add("float")
        elif isinstance(node, cst.BinaryOperation):
            if isinstance(node.operator, cst.Divide):
                kinds.add("float")
            elif not isinstance(node.operator, INT_OPERATORS):
                return None
            stack.extend((node.left, node.right))
        elif isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
            stack.append(node.expression)
        else:
            return None
    if not uses_var:
        return None
    return "float" if kinds else "int"


class TFRangeLoop(LooksInTFFunctions, TFCodemod):
    __doc__ = __doc__
    code = "TFM201"
    name = "tf-range-loop"
    summary = "tf.function called with a Python range loop variable (retrace per value) -> tf.range / tensors"
    needles = ("range",)
    interests = (cst.Decorator, cst.Call)
    METADATA_DEPENDENCIES = (ScopeProvider, ParentNodeProvider)

    def visit_Module(self, node: cst.Module) -> None:
        self._scopes = self.metadata[ScopeProvider]
        self._parents = self.metadata[ParentNodeProvider]
        self._traced_defs = self._traced_definitions(node)
        self._all_traced = traced_functions(node, self.tf)
        self._to_tf_range: set[cst.Call] = set()
        self._to_constant: dict[cst.Arg, str] = {}
        for loop in walk(node):
            if isinstance(loop, cst.For) and self._range_call(loop) is not None and not self._in_traced(loop):
                self._plan(loop)

    # -- what is traced ----------------------------------------------------------------------

    def _traced_definitions(self, module: cst.Module) -> dict[cst.FunctionDef, cst.BaseExpression]:
        """Functions decorated only with a ``tf.function`` that retraces per Python value."""
        found = {}
        for node in walk(module):
            if isinstance(node, cst.FunctionDef) and len(node.decorators) == 1:
                decorator = node.decorators[0].decorator
                if is_tf_function(decorator, self.tf) and self._retraces(decorator):
                    found[node] = decorator
        return found

    @staticmethod
    def _retraces(tf_function: cst.BaseExpression) -> bool:
        if not isinstance(tf_function, cst.Call):
            return True
        return not any(
            a.star or (a.keyword is not None and a.keyword.value == "input_signature") for a in tf_function.args
        )

    @staticmethod
    def _compiled(tf_function: cst.BaseExpression) -> bool:
        """``jit_compile=...`` other than False: XLA may need the argument as a constant."""
        return isinstance(tf_function, cst.Call) and any(
            a.keyword is not None
            and a.keyword.value in ("jit_compile", "experimental_compile")
            and not (isinstance(a.value, cst.Name) and a.value.value in ("False", "None"))
            for a in tf_function.args
        )

    def _traced_callee(self, call: cst.Call) -> Optional[tuple[cst.FunctionDef, cst.BaseExpression]]:
        """The traced function that ``call`` calls (and its ``tf.function`` expression), when
        its name provably means it."""
        if not isinstance(call.func, cst.Name):
            return None
        found = bindings(call.func, self._scopes, self._parents)
        if len(found) != 1:
            return None
        binding = found[0]
        if binding.kind == "def" and binding.node in self._traced_defs:
            return binding.node, self._traced_defs[binding.node]
        wrapped = binding.value
        if (
            binding.kind == "assign"
            and isinstance(wrapped, cst.Call)
            and self.tf.is_tf(wrapped.func, "function")
            and wrapped.args
            and wrapped.args[0].keyword is None
            and isinstance(wrapped.args[0].value, cst.Name)
            and self._retraces(wrapped)
        ):
            inner = bindings(wrapped.args[0].value, self._scopes, self._parents)
            if len(inner) == 1 and inner[0].kind == "def" and isinstance(inner[0].node, cst.FunctionDef):
                function = inner[0].node
                if not function.decorators and not isinstance(
                    self._parents.get(self._parents.get(function)), cst.ClassDef
                ):
                    return function, wrapped
        return None

    def _in_traced(self, node: cst.CSTNode) -> bool:
        """Inside a traced function, where autograph would turn a ``tf.range`` loop into a
        graph loop: not this codemod's business."""
        current = self._parents.get(node)
        while current is not None:
            if current in self._all_traced:
                return True
            current = self._parents.get(current)
        return False

    def _range_call(self, loop: cst.For) -> Optional[cst.Call]:
        it = loop.iter
        if (
            loop.asynchronous is None
            and isinstance(loop.target, cst.Name)
            and isinstance(it, cst.Call)
            and isinstance(it.func, cst.Name)
            and it.func.value == "range"
            and is_builtin(it.func, self._scopes)
            and 1 <= len(it.args) <= 3
            and all(a.keyword is None and not a.star for a in it.args)
        ):
            return it
        return None

    # -- the function side -------------------------------------------------------------------

    def _parameter(self, function: cst.FunctionDef, call: cst.Call, arg: cst.Arg) -> Optional[str]:
        params = [*function.params.posonly_params, *function.params.params]
        if arg.keyword is not None:
            names = [p.name.value for p in [*function.params.params, *function.params.kwonly_params]]
            return arg.keyword.value if arg.keyword.value in names else None
        position = [a for a in call.args if a.keyword is None].index(arg)
        if any(a.star for a in call.args[: call.args.index(arg) + 1]) or position >= len(params):
            return None
        return params[position].name.value

    def _argument_dtype(self, function: cst.FunctionDef, parameter: str) -> tuple[Optional[str], str]:
        """``(why, dtype)``: the code of the first use of ``parameter`` that needs a Python
        number (else None), and the dtype of the tensor its uses take: ``int64`` when it is a
        ``tf.summary`` step (which takes int64 only), else ``int32``."""
        steps = [
            node
            for node in own_body(function.body)
            if isinstance(node, cst.Name) and node.value == parameter and self._summary_step(node)
        ]
        if not steps:
            return self._python_number_use(function, parameter), "int32"
        for node in own_body(function.body):
            if isinstance(node, cst.Name) and node.value == parameter and node not in steps:
                if not self._tensor_safe_use(node, ANY_INT_ARGS):
                    user = self._parents.get(node)
                    if isinstance(user, cst.Attribute) and user.attr is node:
                        continue
                    if isinstance(user, cst.Arg) and user.keyword is node:
                        continue
                    return source(self._context_of(node)), "int64"
        return None, "int64"

    def _summary_step(self, name: cst.Name) -> bool:
        """``tf.summary.scalar(..., step=name)`` and the like, or
        ``tf.summary.experimental.set_step(name)``: TF converts the step to int64."""
        arg = self._parents.get(name)
        if not isinstance(arg, cst.Arg) or arg.star or arg.value is not name:
            return False
        call = self._parents.get(arg)
        symbol = self.tf.tf_symbol(call.func) if isinstance(call, cst.Call) else None
        if symbol is None or not symbol.path.startswith(SUMMARY_PREFIX):
            return False
        if symbol.path == "summary.experimental.set_step":
            return call.args.index(arg) == 0 and arg.keyword is None
        return arg.keyword is not None and arg.keyword.value == "step"

    def _python_number_use(self, function: cst.FunctionDef, parameter: str) -> Optional[str]:
        """Code of the first use of ``parameter`` that needs a Python number, else None."""
        body = function.body
        for node in own_body(body):
            if isinstance(node, cst.Name) and node.value == parameter:
                if self._tensor_safe_use(node):
                    continue
                user = self._parents.get(node)
                if isinstance(user, cst.Attribute) and user.attr is node:
                    continue
                if isinstance(user, cst.Arg) and user.keyword is node:
                    continue
                return source(self._context_of(node))
            if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)) and parameter in {
                n.value for n in walk(node) if isinstance(n, cst.Name)
            }:
                return source(node).splitlines()[0]
        return None

    def _context_of(self, name: cst.Name) -> cst.CSTNode:
        """The smallest enclosing expression worth quoting in a message."""
        node: cst.CSTNode = name
        parent = self._parents.get(node)
        while isinstance(
            parent, (cst.Arg, cst.BaseExpression, cst.Element, cst.SubscriptElement, cst.Index)
        ) and not isinstance(parent, cst.Lambda):
            node = parent
            if isinstance(node, (cst.Call, cst.BinaryOperation, cst.Subscript, cst.Comparison)):
                break
            parent = self._parents.get(node)
        return node

    def _tensor_safe_use(self, name: cst.Name, only: Optional[tuple[str, ...]] = None) -> bool:
        """``name`` is handed straight to a TF op that converts a Python int to int32 itself
        (of the paths ``only``, if given)."""
        arg = self._parents.get(name)
        if not isinstance(arg, cst.Arg) or arg.keyword is not None or arg.star:
            return False
        call = self._parents.get(arg)
        if not isinstance(call, cst.Call):
            return False
        symbol = self.tf.tf_symbol(call.func)
        if symbol is None or symbol.path not in TENSOR_SAFE_ARGS or (only is not None and symbol.path not in only):
            return False
        if any(a.keyword is not None and a.keyword.value in CONVERSION_KEYWORDS for a in call.args):
            return False
        positions = TENSOR_SAFE_ARGS[symbol.path]
        return positions is None or call.args.index(arg) in positions

    # -- the loop side -----------------------------------------------------------------------

    def _loop_nodes(self, loop: cst.For) -> Iterator[cst.CSTNode]:
        yield from walk(loop.body)
        if loop.orelse is not None:
            yield from walk(loop.orelse)

    def _plan(self, loop: cst.For) -> None:
        var = loop.target.value
        candidates: list[tuple[cst.Call, cst.Arg]] = []
        dtypes: dict[int, str] = {}
        for node in self._loop_nodes(loop):
            if not isinstance(node, cst.Call):
                continue
            callee = self._traced_callee(node)
            if callee is None:
                continue
            function, tf_function = callee
            for arg in node.args:
                if arg.star:
                    continue
                kind = _number_kind(arg.value, var)
                if kind is None:
                    self._report_changing_number(loop, node, arg)
                    continue
                spelled = source(arg.value)
                if kind == "float":
                    self.report(
                        arg,
                        f"`{node.func.value}` is traced again for every value of `{spelled}` (a Python "
                        f"float that changes per call): pass a tensor of the dtype the function computes in, "
                        f"e.g. `tf.constant({spelled}, tf.float32)`",
                    )
                    continue
                if self._compiled(tf_function):
                    self.report(
                        arg,
                        f"`{node.func.value}` is traced again for every value of `{spelled}` (a Python int "
                        f"from the `range` loop); not fixed because it is compiled with XLA (`jit_compile`), "
                        f"which may need that argument as a compile-time constant: check, then pass "
                        f"`tf.constant({spelled})`",
                    )
                    continue
                parameter = self._parameter(function, node, arg)
                why, dtype = (
                    ("the argument does not map to a named parameter", "int32")
                    if parameter is None
                    else self._argument_dtype(function, parameter)
                )
                if why is not None and dtype == "int64":
                    self.report(
                        arg,
                        f"`{node.func.value}` is traced again for every value of `{spelled}` (a Python int "
                        f"from the `range` loop); not fixed because the function uses `{parameter}` both as "
                        f"a `tf.summary` step (an int64 tensor) and in `{why}`: make that use take an int64 "
                        f"tensor, then pass `tf.constant({spelled}, dtype=tf.int64)`",
                    )
                    continue
                if why is not None:
                    self.report(
                        arg,
                        f"`{node.func.value}` is traced again for every value of `{spelled}` (a Python int "
                        f"from the `range` loop); not fixed because the function uses `{parameter}` as a "
                        f"Python number in `{why}`, where an int32 tensor would behave differently: make it "
                        f"tensor-friendly (e.g. `tf.cast({parameter}, tf.float32)`) or give `tf.function` an "
                        f"input_signature, then pass `tf.constant({spelled})`",
                    )
                    continue
                candidates.append((node, arg))
                dtypes[id(arg)] = dtype
        if not candidates:
            return
        if self._rebound_in_loop(loop, var):
            for call, arg in candidates:
                self.report(
                    arg,
                    f"`{call.func.value}` retraces per value of `{var}`, which the loop body reassigns: pass `tf.constant(...)` of it",
                )
            return
        wrapped = {id(arg) for _, arg in candidates if isinstance(arg.value, cst.Name)}
        range_call = self._range_call(loop)
        int32_only = all(dtypes[id(arg)] == "int32" for _, arg in candidates)
        if (
            int32_only
            and self._only_tensor_uses(loop, wrapped)
            and all(self._int32_python_int(a.value) for a in range_call.args)
        ):
            if self.fix(
                range_call,
                f"`{var}` is only passed to tf.function(s) as a tensor: loop over `tf.range` so they trace once",
            ):
                self._to_tf_range.add(range_call)
            return
        for call, arg in candidates:
            spelled = source(arg.value)
            if dtypes[id(arg)] == "int64":
                message = (
                    f"`{call.func.value}` retraces for every value of `{spelled}`, a `tf.summary` step "
                    f"there: pass `tf.constant({spelled}, dtype=tf.int64)`"
                )
            else:
                message = f"`{call.func.value}` retraces for every value of `{spelled}`: pass `tf.constant({spelled})`"
            if self.fix(arg, message):
                self._to_constant[arg] = dtypes[id(arg)]

    def _int32_python_int(self, expr: cst.BaseExpression) -> bool:
        """Whether ``expr`` is provably a Python int in int32 range: int literals, ``len(...)``
        and their sums, differences and products. ``tf.range`` then yields int32 like
        ``tf.constant(i)``; a NumPy int64 bound would make it yield int64."""
        if isinstance(expr, cst.Integer):
            return expr.evaluated_value < 2**31
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
            return self._int32_python_int(expr.expression)
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "len":
            return is_builtin(expr.func, self._scopes)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add, cst.Subtract, cst.Multiply)):
            return self._int32_python_int(expr.left) and self._int32_python_int(expr.right)
        return False

    def _report_changing_number(self, loop: cst.For, call: cst.Call, arg: cst.Arg) -> None:
        """A name the loop body steps with a number literal (``lr *= 0.9``) passed to the call."""
        if not isinstance(arg.value, cst.Name):
            return
        for node in self._loop_nodes(loop):
            if (
                isinstance(node, cst.AugAssign)
                and isinstance(node.target, cst.Name)
                and node.target.value == arg.value.value
                and isinstance(node.value, (cst.Integer, cst.Float))
            ):
                self.report(
                    arg,
                    f"`{call.func.value}` is traced again on every call: `{arg.value.value}` is a Python number "
                    f"that the loop changes; pass it as a tensor of the dtype the function computes in "
                    f"(e.g. `tf.constant({arg.value.value}, tf.float32)`)",
                )
                return

    def _rebound_in_loop(self, loop: cst.For, var: str) -> bool:
        scope = self._scopes.get(loop.target)
        if scope is None:
            return True
        inside = {id(n) for n in self._loop_nodes(loop)}
        return any(id(a.node) in inside for a in scope.assignments[var])

    def _only_tensor_uses(self, loop: cst.For, wrapped: set[int]) -> bool:
        """Every read of the loop variable is a candidate argument or a tensor-safe TF argument."""
        uses = references(loop.target, self._scopes)
        if uses is None:
            return False
        inside = {id(n) for n in self._loop_nodes(loop)}
        for use in uses:
            if id(use) not in inside:
                return False  # read after the loop, where it would now be a tensor
            parent = self._parents.get(use)
            if id(parent) in wrapped or self._tensor_safe_use(use):
                continue
            return False
        return True

    # -- rewriting ---------------------------------------------------------------------------

    def leave_Call(self, original: cst.Call) -> None:
        if original in self._to_tf_range:
            self.replace(original.func, self.tf_expr("range"))

    def leave_Arg(self, original: cst.Arg) -> None:
        if original in self._to_constant:
            constant = self.tf_expr("constant")
            extra = []
            if self._to_constant[original] == "int64":
                equal = cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))
                extra = [cst.Arg(self.tf_expr("int64"), keyword=cst.Name("dtype"), equal=equal)]
            self.replace(original.value, lambda value: cst.Call(constant, [cst.Arg(value), *extra]))
