"""Which functions TensorFlow traces, shared by the codemods about code inside a ``tf.function``.

A function is traced when it is decorated with ``@tf.function`` / ``@tf.function(...)`` (any
alias: ``@T.function``, ``from tensorflow import function``), or when it is wrapped by name:
``f = tf.function(g)``, ``tf.function(g, jit_compile=True)``, ``self.f = tf.function(self.g)``.
The decorator is resolved by qualified name, so a non-TF ``function`` is never mistaken for it.

"Inside a tf.function" means in the traced function's own body: code in a nested ``def``,
``lambda`` or class is only traced if it is called, which the codemods cannot know, so they
leave it alone. A module that calls ``tf.config.run_functions_eagerly(True)`` runs its
``tf.function``s as plain Python, so the trace-time pitfalls do not happen there and the
``InTFFunction`` codemods see no traced function in it.
"""

from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst

from tfmodernize.codemod import Decline
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import children, visit, walk

#: Node types the shared detection traversal hands to ``mentions_tf_function``.
INTERESTS: tuple[type[cst.CSTNode], ...] = (cst.Decorator, cst.Call)


def is_tf_function(expr: cst.BaseExpression, names: TFNames) -> bool:
    """``tf.function`` itself, or a call of it used as a decorator factory."""
    if isinstance(expr, cst.Call):
        expr = expr.func
    return names.is_tf(expr, "function")


def mentions_tf_function(node: cst.CSTNode, names: TFNames) -> bool:
    """For ``detect``: a ``@tf.function`` decorator or a ``tf.function(...)`` call."""
    if isinstance(node, cst.Decorator):
        return is_tf_function(node.decorator, names)
    return isinstance(node, cst.Call) and names.is_tf(node.func, "function")


class _Collector(cst.CSTVisitor):
    def __init__(self, names: TFNames) -> None:
        self.names = names
        self.functions: dict[str, list[cst.FunctionDef]] = {}
        self.methods: dict[str, list[cst.FunctionDef]] = {}
        self.traced: list[cst.FunctionDef] = []
        self.wrapped_functions: set[str] = set()
        self.wrapped_methods: set[str] = set()
        self._in_class: list[bool] = [False]

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._in_class.append(True)

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self._in_class.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        table = self.methods if self._in_class[-1] else self.functions
        table.setdefault(node.name.value, []).append(node)
        if any(is_tf_function(d.decorator, self.names) for d in node.decorators):
            self.traced.append(node)
        self._in_class.append(False)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._in_class.pop()

    def visit_Call(self, node: cst.Call) -> None:
        if not self.names.is_tf(node.func, "function") or not node.args:
            return
        first = node.args[0]
        if first.keyword is not None and first.keyword.value != "func":
            return
        target = first.value
        if isinstance(target, cst.Name):
            self.wrapped_functions.add(target.value)
        elif isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name):
            if target.value.value in ("self", "cls"):
                self.wrapped_methods.add(target.attr.value)


def traced_functions(module: cst.Module, names: TFNames) -> set[cst.FunctionDef]:
    """Every ``def`` of ``module`` that is decorated with or wrapped by ``tf.function``."""
    collector = _Collector(names)
    visit(module, collector)
    traced = set(collector.traced)
    for name in collector.wrapped_functions:
        traced.update(collector.functions.get(name, ()))
    for name in collector.wrapped_methods:
        traced.update(collector.methods.get(name, ()))
    return traced


def own_body(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The code nodes under ``node`` that are not inside a nested def, lambda or class, in
    source order (whitespace, comments and punctuation left out: ``treewalk.walk``'s ``code_only``)."""
    stack = list(reversed(children(node, code_only=True)))
    while stack:
        child = stack.pop()
        yield child
        if isinstance(child, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            continue
        stack.extend(reversed(children(child, code_only=True)))


def runs_functions_eagerly(module: cst.Module, names: TFNames) -> bool:
    """Whether the module calls ``tf.config.run_functions_eagerly(True)`` (or its
    ``experimental_`` spelling)."""
    paths = ("config.run_functions_eagerly", "config.experimental_run_functions_eagerly")
    return any(
        type(node) is cst.Call
        and names.is_tf(node.func, *paths)
        and len(node.args) == 1
        and isinstance(node.args[0].value, cst.Name)
        and node.args[0].value.value == "True"
        for node in walk(module, code_only=True)
    )


class LooksInTFFunctions:
    """For a TFCodemod that looks only at traced code: the engine plans it on a file where a
    ``tf.function(...)`` call or a ``@tf.function`` decorator stands (``detect``), no other."""

    detects: tuple[str, ...] = ("function",)  # ``tf.function(...)`` calls; decorators are asked ``detect``

    @classmethod
    def detect(cls, node: cst.CSTNode, names: TFNames) -> bool:
        return mentions_tf_function(node, names)


class InTFFunction(LooksInTFFunctions):
    """Mixin for a TFCodemod: tracks whether the visitor is in a traced function's own body.

    ``self.traced_function`` is the (original) traced ``FunctionDef`` whose own body the
    visitor is in, else ``None``. A subclass overriding a ``visit_``/``leave_`` method below
    calls ``super()``.
    """

    tf: TFNames

    def visit_Module(self, node: cst.Module) -> Optional[bool]:
        self._traced = set() if runs_functions_eagerly(node, self.tf) else traced_functions(node, self.tf)
        self._frames: list[Optional[cst.FunctionDef]] = [None]
        return True

    @property
    def traced_function(self) -> Optional[cst.FunctionDef]:
        return self._frames[-1]

    def visit_FunctionDef(self, node: cst.FunctionDef) -> Optional[bool]:
        self._frames.append(node if node in self._traced else None)
        return True

    def leave_FunctionDef(self, original: cst.FunctionDef) -> None:
        self._frames.pop()

    def visit_Lambda(self, node: cst.Lambda) -> Optional[bool]:
        self._frames.append(None)
        return True

    def leave_Lambda(self, original: cst.Lambda) -> None:
        self._frames.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> Optional[bool]:
        self._frames.append(None)
        return True

    def leave_ClassDef(self, original: cst.ClassDef) -> None:
        self._frames.pop()


def string_text(value: cst.BaseExpression) -> Optional[str]:
    """The text of a string literal (without its quotes), or None."""
    if isinstance(value, cst.SimpleString):
        return value.raw_value
    if isinstance(value, cst.ConcatenatedString):
        left, right = string_text(value.left), string_text(value.right)
        return None if left is None or right is None else left + right
    return None


def split_fstring(fstring: cst.FormattedString) -> list[cst.BaseExpression]:
    """``f"a {x} b"`` -> ``["a ", x, " b"]`` (string literals keep the f-string's quotes)."""
    prefix = fstring.prefix.replace("f", "").replace("F", "")
    quote = fstring.start[len(fstring.prefix) :]
    pieces: list[cst.BaseExpression] = []
    for part in fstring.parts:
        if isinstance(part, cst.FormattedStringText):
            text = part.value.replace("{{", "{").replace("}}", "}")
            pieces.append(cst.SimpleString(f"{prefix}{quote}{text}{quote}"))
            continue
        if part.format_spec is not None or part.conversion is not None or part.equal is not None:
            raise Decline(
                fstring, "an f-string with a format spec, `!r`/`!s` or `=` is formatted at trace time: convert by hand"
            )
        pieces.append(part.expression)
    return pieces
