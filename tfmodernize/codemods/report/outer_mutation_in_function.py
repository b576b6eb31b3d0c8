"""TFM304 outer-mutation-in-function (finding only).

What it does
    Reports, in the body of a ``tf.function``, the mutation of a Python list, dict or set
    that lives outside the function: ``outer.append(x)`` (and ``extend``, ``insert``,
    ``pop``, ``remove``, ``clear``, ``update``, ``setdefault``, ``add``, ``discard``),
    ``outer[k] = v``, ``del outer[k]`` and ``outer += [...]``, where ``outer`` is a global or
    an argument or an attribute (``self.history``), not a name the function binds itself.

Why it matters
    Python side effects in a ``tf.function`` happen while it is traced, not when the graph
    runs: the list grows once (or once per retrace) instead of once per call, and what it
    holds are symbolic tensors from the trace, which cannot be used outside it. Return the
    values from the function and collect them outside, accumulate in a ``tf.Variable`` or a
    ``tf.TensorArray``, or use Keras metrics for running statistics.

Before
    history = []

    @tf.function
    def step(x):
        loss = tf.reduce_mean(x ** 2)
        history.append(loss)
        return loss

After
    history = []

    @tf.function
    def step(x):
        return tf.reduce_mean(x ** 2)

    history.append(step(x).numpy())

Fixtures: ``fixtures/outer-mutation-in-function/``.

Fix safety
    No fix: a finding only.

Declines when
    never: every mutation of an outer Python container in a traced function is reported.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tfmodernize.analysis.tf_function import INTERESTS, InTFFunction
from tfmodernize.names import local_names
from tfmodernize.codemod import TFCodemod
from tfmodernize.tfsymbols import dotted_name, root_name

MUTATORS = {"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "add", "discard", "popitem"}

MESSAGE = (
    "`{target}` is outer Python state mutated inside a tf.function: this runs once while "
    "tracing, not on every call, and stores symbolic tensors. Return the values and collect "
    "them outside, or use a tf.Variable / tf.TensorArray"
)


class OuterMutationInFunction(InTFFunction, TFCodemod):
    __doc__ = __doc__
    code = "TFM304"
    name = "outer-mutation-in-function"
    summary = "outer Python list/dict mutated inside a tf.function changes only at trace time"
    interests = INTERESTS

    def visit_Module(self, node: cst.Module) -> bool:
        self._locals_cache: dict[cst.FunctionDef, set[str]] = {}
        return super().visit_Module(node)

    @property
    def _locals(self) -> set[str]:
        """Names bound by the traced function the visitor is in (computed once per function)."""
        function = self.traced_function
        if function not in self._locals_cache:
            self._locals_cache[function] = local_names(function, augmented=False)
        return self._locals_cache[function]

    def visit_Call(self, node: cst.Call) -> None:
        if self.traced_function is None or not isinstance(node.func, cst.Attribute):
            return
        if node.func.attr.value in MUTATORS:
            self._check(node, node.func.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        if self.traced_function is not None and isinstance(node.target, cst.Subscript):
            self._check(node, node.target.value)

    def visit_Del(self, node: cst.Del) -> None:
        if self.traced_function is not None and isinstance(node.target, cst.Subscript):
            self._check(node, node.target.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if self.traced_function is None:
            return
        target = node.target.value if isinstance(node.target, cst.Subscript) else node.target
        if isinstance(node.target, cst.Subscript) or isinstance(
            node.value, (cst.List, cst.Dict, cst.Set, cst.ListComp)
        ):
            self._check(node, target)

    def _check(self, node: cst.CSTNode, container: cst.BaseExpression) -> None:
        target = self._outer(container)
        if target is not None:
            self.report(node, MESSAGE.format(target=target))

    def _outer(self, container: cst.BaseExpression) -> Optional[str]:
        """``container`` spelled out when it is state from outside the function (a global,
        an argument, ``self.x``), not a name the function binds itself."""
        root = root_name(container)
        dotted = dotted_name(container)
        if root is None or dotted is None or self.tf.qualify(container) is not None:
            return None
        return None if root.value in self._locals else dotted
