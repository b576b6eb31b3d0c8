"""TFM302 next-in-function (finding only).

What it does
    Reports ``next(it)`` in the body of a ``tf.function`` when ``it`` is a Python iterator:
    ``next(iter(<list, range, generator, ...>))``, or a name the module binds to ``iter(...)``
    of something that is not a ``tf.data`` dataset, or to a generator function's result.
    Iterators over a ``tf.data.Dataset`` are fine (their ``next`` is a graph op) and are not
    reported; nor is an iterator whose origin the codemod cannot see.

Why it matters
    Python code in a ``tf.function`` runs only while the function is traced. ``next`` on a
    Python iterator is therefore called once, and the element it returned is frozen into the
    graph as a constant: every later call processes that same first element (and the
    iterator silently advances only when the function is retraced). Fix it by calling
    ``next`` outside the function and passing the element in as an argument, or by iterating a
    ``tf.data.Dataset``, whose iterator works inside the graph.

Before
    batches = iter([x0, x1, x2])

    @tf.function
    def step():
        return model(next(batches))

After
    batches = iter([x0, x1, x2])

    @tf.function
    def step(batch):
        return model(batch)

    step(next(batches))

Fixtures: ``fixtures/next-in-function/``.

Fix safety
    No fix: a finding only.

Declines when
    never: every ``next()`` on a Python iterator in a traced function is reported.
"""

from __future__ import annotations

import re

import libcst as cst

from tfmodernize.analysis.tf_function import INTERESTS, InTFFunction
from tfmodernize.codemod import TFCodemod
from tfmodernize.treewalk import walk

_SHADOWED = re.compile(r"^[ \t]*next\s*=(?!=)|\bdef\s+next\s*\(|\bimport\b[^\n]*\bnext\b", re.MULTILINE)

MESSAGE = (
    "`next()` on a Python iterator inside a tf.function runs only while tracing: the element "
    "it returns is frozen into the graph and every call reuses it. Call `next` outside and pass "
    "the element as an argument, or iterate a tf.data.Dataset"
)


class NextInFunction(InTFFunction, TFCodemod):
    __doc__ = __doc__
    code = "TFM302"
    name = "next-in-function"
    summary = "next() on a Python iterator inside a tf.function runs once, at trace time"
    needles = ("next(",)
    interests = INTERESTS

    def visit_Module(self, node: cst.Module) -> bool:
        self._builtin = _SHADOWED.search(self.state.text) is None
        self._generators = {
            n.name.value
            for n in walk(node)
            if isinstance(n, cst.FunctionDef) and any(isinstance(m, (cst.Yield)) for m in walk(n.body))
        }
        self._bindings: dict[str, list[cst.BaseExpression]] = {}
        for n in walk(node):
            if isinstance(n, cst.Assign) and len(n.targets) == 1 and isinstance(n.targets[0].target, cst.Name):
                self._bindings.setdefault(n.targets[0].target.value, []).append(n.value)
        return super().visit_Module(node)

    def visit_Call(self, node: cst.Call) -> None:
        if (
            self.traced_function is not None
            and self._builtin
            and isinstance(node.func, cst.Name)
            and node.func.value == "next"
            and node.args
            and self._python_iterator(node.args[0].value)
        ):
            self.report(node, MESSAGE)

    def _python_iterator(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.Name):
            values = self._bindings.get(expr.value, [])
            return bool(values) and all(self._python_iterator(v) for v in values)
        if not isinstance(expr, cst.Call):
            return False
        if isinstance(expr.func, cst.Name) and expr.func.value in self._generators:
            return True
        if isinstance(expr.func, cst.Name) and expr.func.value == "iter" and expr.args:
            return not self._dataset(expr.args[0].value)
        return False

    def _dataset(self, expr: cst.BaseExpression, depth: int = 0) -> bool:
        """Whether ``expr`` may be a tf.data dataset (unknown origins count as maybe)."""
        if depth > 8:
            return True
        if isinstance(expr, (cst.List, cst.Tuple, cst.Set, cst.Dict, cst.ListComp, cst.GeneratorExp, cst.SimpleString)):
            return False
        if isinstance(expr, cst.Name):
            values = self._bindings.get(expr.value)
            return not values or any(self._dataset(v, depth + 1) for v in values)
        if isinstance(expr, cst.Call):
            func = expr.func
            if isinstance(func, cst.Name) and (
                func.value in ("range", "zip", "enumerate", "map", "filter", "reversed", "sorted", "list", "tuple")
                or func.value in self._generators
            ):
                return False
            symbol = self.tf.tf_symbol(func)
            if symbol is not None:
                return symbol.path.startswith("data.")
            if isinstance(func, cst.Attribute):
                return self._dataset(func.value, depth + 1)
        return True
