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

import libcst as cst
from libcst.metadata import ParentNodeProvider, ScopeProvider

from tfmodernize.analysis.tf_function import LooksInTFFunctions, traced_functions
from tfmodernize.codemod import TFCodemod
from tfmodernize.codemods.tf2.tf_range_loop.loop import (
    int32_python_int,
    loop_nodes,
    number_kind,
    only_tensor_uses,
    rebound_in_loop,
)
from tfmodernize.codemods.tf2.tf_range_loop.parameters import argument_dtype, bound_parameter
from tfmodernize.codemods.tf2.tf_range_loop.plan import RangeFile
from tfmodernize.codemods.tf2.tf_range_loop.traced import (
    compiled,
    in_traced,
    range_call as loop_range,
    traced_callee,
    traced_definitions,
)
from tfmodernize.syntax import no_space_equal, source
from tfmodernize.treewalk import walk


class TFRangeLoop(LooksInTFFunctions, TFCodemod):
    __doc__ = __doc__
    code = "TFM201"
    name = "tf-range-loop"
    summary = "tf.function called with a Python range loop variable (retrace per value) -> tf.range / tensors"
    needles = ("range",)
    interests = (cst.Decorator, cst.Call)
    METADATA_DEPENDENCIES = (ScopeProvider, ParentNodeProvider)

    def visit_Module(self, node: cst.Module) -> None:
        self._file = RangeFile(
            node,
            self.tf,
            self.metadata[ScopeProvider],
            self.metadata[ParentNodeProvider],
            traced_definitions(node, self.tf),
            traced_functions(node, self.tf),
        )
        self._to_tf_range: set[cst.Call] = set()
        self._to_constant: dict[cst.Arg, str] = {}
        for loop in walk(node):
            if (
                isinstance(loop, cst.For)
                and loop_range(loop, self._file.scopes) is not None
                and not in_traced(self._file, loop)
            ):
                self._plan(loop)

    # -- planning ----------------------------------------------------------------------------

    def _plan(self, loop: cst.For) -> None:
        var = loop.target.value
        candidates: list[tuple[cst.Call, cst.Arg]] = []
        dtypes: dict[int, str] = {}
        for node in loop_nodes(loop):
            if not isinstance(node, cst.Call):
                continue
            callee = traced_callee(self._file, node)
            if callee is None:
                continue
            function, tf_function = callee
            for arg in node.args:
                if arg.star:
                    continue
                kind = number_kind(arg.value, var)
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
                if compiled(tf_function):
                    self.report(
                        arg,
                        f"`{node.func.value}` is traced again for every value of `{spelled}` (a Python int "
                        f"from the `range` loop); not fixed because it is compiled with XLA (`jit_compile`), "
                        f"which may need that argument as a compile-time constant: check, then pass "
                        f"`tf.constant({spelled})`",
                    )
                    continue
                parameter = bound_parameter(function, node, arg)
                why, dtype = (
                    ("the argument does not map to a named parameter", "int32")
                    if parameter is None
                    else argument_dtype(self._file, function, parameter)
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
        if rebound_in_loop(loop, var, self._file.scopes):
            for call, arg in candidates:
                self.report(
                    arg,
                    f"`{call.func.value}` retraces per value of `{var}`, which the loop body reassigns: pass `tf.constant(...)` of it",
                )
            return
        wrapped = {id(arg) for _, arg in candidates if isinstance(arg.value, cst.Name)}
        range_call = loop_range(loop, self._file.scopes)
        int32_only = all(dtypes[id(arg)] == "int32" for _, arg in candidates)
        if (
            int32_only
            and only_tensor_uses(self._file, loop, wrapped)
            and all(int32_python_int(a.value, self._file.scopes) for a in range_call.args)
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

    def _report_changing_number(self, loop: cst.For, call: cst.Call, arg: cst.Arg) -> None:
        """A name the loop body steps with a number literal (``lr *= 0.9``) passed to the call."""
        if not isinstance(arg.value, cst.Name):
            return
        for node in loop_nodes(loop):
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

    # -- rewriting ---------------------------------------------------------------------------

    def leave_Call(self, original: cst.Call) -> None:
        if original in self._to_tf_range:
            self.replace(original.func, self.tf_expr("range"))

    def leave_Arg(self, original: cst.Arg) -> None:
        if original in self._to_constant:
            constant = self.tf_expr("constant")
            extra = []
            if self._to_constant[original] == "int64":
                extra = [cst.Arg(self.tf_expr("int64"), keyword=cst.Name("dtype"), equal=no_space_equal())]
            self.replace(original.value, lambda value: cst.Call(constant, [cst.Arg(value), *extra]))
