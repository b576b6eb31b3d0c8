"""TFM305 recursive-function (finding only).

What it does
    Reports a ``tf.function`` whose own body calls itself: ``f(...)`` in a module-level
    function ``f``, or ``self.f(...)`` in a method ``f``.

Why it matters
    Calling a ``tf.function`` from inside its own trace starts another trace of the same
    function. With a Python condition (a Python int counting down) the recursion is
    unrolled while tracing, one nested trace per level, so tracing time and graph size grow
    with the depth and each new depth retraces; with a tensor condition the recursion never
    ends at trace time and fails with ``RecursionError`` or a tracing error. Write the
    recursion as a loop (``for i in tf.range(n)`` / ``tf.while_loop``) carrying the state, or
    recurse in an undecorated Python helper that the one ``tf.function`` calls.

Before
    @tf.function
    def power(x, n):
        if n == 0:
            return tf.ones_like(x)
        return x * power(x, n - 1)

After
    @tf.function
    def power(x, n):
        result = tf.ones_like(x)
        for _ in tf.range(n):
            result *= x
        return result

Fixtures: ``fixtures/recursive-function/``.

Fix safety
    No fix: a finding only.

Declines when
    never: every self-call of a traced function is reported.
"""

from __future__ import annotations

import libcst as cst

from tfmodernize.analysis.tf_function import INTERESTS, InTFFunction
from tfmodernize.codemod import TFCodemod

MESSAGE = (
    "`{name}` is a tf.function that calls itself: each level is traced again (unrolled while "
    "tracing with a Python condition, endless with a tensor condition). Rewrite the recursion "
    "as a loop (tf.range / tf.while_loop) or recurse in an undecorated helper"
)


class RecursiveFunction(InTFFunction, TFCodemod):
    __doc__ = __doc__
    code = "TFM305"
    name = "recursive-function"
    summary = "a tf.function calling itself is traced once per recursion level"
    interests = INTERESTS

    def visit_Call(self, node: cst.Call) -> None:
        function = self.traced_function
        if function is None:
            return
        name = function.name.value
        func = node.func
        direct = isinstance(func, cst.Name) and func.value == name
        method = (
            isinstance(func, cst.Attribute)
            and func.attr.value == name
            and isinstance(func.value, cst.Name)
            and func.value.value in ("self", "cls")
        )
        if direct or method:
            self.report(node, MESSAGE.format(name=name))
