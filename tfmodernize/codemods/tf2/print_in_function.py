"""TFM206 print-in-function.

What it does
    Rewrites a call of the builtin ``print(...)`` in the body of a ``tf.function`` (decorated,
    or wrapped as ``f = tf.function(g)``) to ``tf.print(..., output_stream=sys.stdout)``.
    ``sep=`` and ``end=`` are kept, ``file=sys.stdout`` / ``file=sys.stderr`` becomes
    ``output_stream=``, and a lone f-string is split into its text and its values
    (``print(f"loss {loss}")`` -> ``tf.print("loss ", loss, sep="", ...)``) so the values are
    printed when the function runs. Unsafe: applied only with ``--unsafe-fixes``. Nothing is
    changed in a module that calls ``tf.config.run_functions_eagerly(True)``, where ``print``
    runs on every call.

Why it matters
    Python's ``print`` runs while TensorFlow traces the function, not when the traced graph
    runs: it prints once (or once per retrace) and shows symbolic tensors such as
    ``Tensor("add:0", shape=(), dtype=float32)``, never the values. ``tf.print`` is an op
    in the graph and prints the values on every call. The fix is unsafe because it changes
    what is printed and how often; a ``print`` meant to show when tracing happens (a common
    debugging idiom) should stay, so review each occurrence. ``output_stream=sys.stdout``
    keeps the output on stdout, where ``print`` wrote (``tf.print`` defaults to stderr).
    Tracing probes are left alone: a ``print`` of literals only (``print("Tracing")``), or
    whose first string says it traces (``print("Tracing with", x)``), is how TensorFlow's
    guides show when a trace happens.
    Not rewritten, and reported instead: a ``print`` in a function compiled with XLA
    (``jit_compile=True``), where ``tf.print`` has no kernel and the call would fail;
    ``file=`` other than ``sys.stdout``/``sys.stderr``,
    ``flush=``, ``**kwargs``, f-strings with format specs or ``!r`` conversions, and
    ``%``/``.format`` strings (all evaluated at trace time).

Before
    @tf.function
    def step(x):
        y = x * 2.0
        print("y:", y)
        return y

After
    @tf.function
    def step(x):
        y = x * 2.0
        tf.print("y:", y, output_stream=sys.stdout)
        return y

Fixtures: ``fixtures/print-in-function/``.

Fix safety
    Unsafe (``--unsafe-fixes``): what is printed and how often changes, which is the point but may not
    be what a trace-time debugging print wanted.

Declines when
    the function is compiled with XLA (``jit_compile=True``), the print is formatted at trace
    time (``%``, ``.format``, f-strings with specs), writes to a
    stream ``tf.print`` cannot, or passes ``flush``/``**kwargs``.
"""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from tfmodernize.analysis.tf_function import (
    INTERESTS,
    InTFFunction,
    is_tf_function,
    split_fstring,
    string_text,
)
from tfmodernize.treewalk import walk
from tfmodernize.codemod import Decline, Safety, TFCodemod
from tfmodernize.tfsymbols import dotted_name

#: Bindings of the name ``print`` that make it something other than the builtin.
_SHADOWED = re.compile(
    r"^[ \t]*print\s*(?::[^=\n]*)?=(?!=)|\bdef\s+print\s*\(|\bimport\b[^\n]*\bas\s+print\b"
    r"|^[ \t]*from\s+(?!__future__\b)\S+\s+import\b[^\n]*\bprint\b",
    re.MULTILINE,
)

_STREAMS = ("sys.stdout", "sys.stderr")


class PrintInFunction(InTFFunction, TFCodemod):
    __doc__ = __doc__
    code = "TFM206"
    name = "print-in-function"
    summary = "print(...) inside a tf.function runs once per trace -> tf.print(...)"
    safety = Safety.UNSAFE
    needles = ("print",)
    interests = INTERESTS

    def visit_Module(self, node: cst.Module) -> bool:
        self._builtin_print = _SHADOWED.search(self.state.text) is None
        self._compiled = _xla_compiled_names(node, self.tf)
        return super().visit_Module(node)

    def leave_Call(self, original: cst.Call) -> None:
        if (
            self.traced_function is None
            or not self._builtin_print
            or not isinstance(original.func, cst.Name)
            or original.func.value != "print"
        ):
            return
        if _tracing_probe(original):
            return
        try:
            if self._xla_compiled(self.traced_function):
                raise Decline(
                    original,
                    "`tf.print` cannot run in a function compiled with XLA "
                    "(`jit_compile=True`): print the values outside it",
                )
            args = self._tf_print_args(original)
        except Decline as decline:
            self.report(original, f"`print` in a tf.function runs only while tracing; {decline.reason}")
            return
        if not self.fix(
            original,
            "`print` in a tf.function runs only while tracing and shows symbolic tensors: "
            "`tf.print` prints the values on every call",
        ):
            return
        self.add_import("sys")
        func = self.tf_expr("print")
        self.replace(original, lambda updated: updated.with_changes(func=func, args=args))

    def _tf_print_args(self, call: cst.Call) -> list[cst.Arg]:
        """The arguments for ``tf.print``; raises Decline saying why the call cannot be converted."""
        positional = [a for a in call.args if a.keyword is None]
        keywords = {a.keyword.value: a for a in call.args if a.keyword is not None}
        if any(a.star == "**" for a in positional):
            raise Decline(call, "`**kwargs` cannot be checked against `tf.print`'s arguments: convert by hand")
        if "flush" in keywords:
            raise Decline(call, "`tf.print` has no `flush=`: use `tf.print(...)` without it")
        stream = "sys.stdout"
        if "file" in keywords:
            stream = dotted_name(keywords["file"].value) or ""
            if stream not in _STREAMS:
                raise Decline(
                    call, "`tf.print` can only write to sys.stdout/sys.stderr or a logging function: convert by hand"
                )
        values: list[cst.BaseExpression] = [a.value for a in positional if not a.star]
        for arg in positional:
            problem = _trace_time_format(arg.value)
            if problem:
                raise Decline(arg, problem)
        new_args = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in positional]
        sep = keywords.get("sep")
        if len(positional) == 1 and not positional[0].star and isinstance(values[0], cst.FormattedString):
            pieces = split_fstring(values[0])
            new_args = [cst.Arg(piece) for piece in pieces]
            sep = cst.Arg(cst.SimpleString('""'), keyword=cst.Name("sep"))
        elif any(isinstance(v, cst.FormattedString) for v in values):
            raise Decline(
                call,
                "an f-string among several arguments is formatted at trace time: pass its values as separate arguments to `tf.print`",
            )
        extra = [k for k in (sep, keywords.get("end")) if k is not None]
        stream_arg = cst.Arg(cst.parse_expression(stream), keyword=cst.Name("output_stream"))
        new_args = [*new_args, *(k.with_changes(comma=cst.MaybeSentinel.DEFAULT) for k in extra), stream_arg]
        return [_with_equal(a) for a in new_args]

    def _xla_compiled(self, function: cst.FunctionDef) -> bool:
        """Whether ``function`` is traced with ``jit_compile=True``, where ``tf.print`` fails."""
        if function.name.value in self._compiled:
            return True
        return any(
            isinstance(d.decorator, cst.Call) and is_tf_function(d.decorator, self.tf) and _compiles(d.decorator)
            for d in function.decorators
        )


def _compiles(call: cst.Call) -> bool:
    """``tf.function(..., jit_compile=True)`` (or the older ``experimental_compile=True``)."""
    return any(
        a.keyword is not None
        and a.keyword.value in ("jit_compile", "experimental_compile")
        and isinstance(a.value, cst.Name)
        and a.value.value == "True"
        for a in call.args
    )


def _xla_compiled_names(module: cst.Module, tf) -> set[str]:
    """Names of functions wrapped as ``tf.function(f, jit_compile=True)`` in the module."""
    return {
        node.args[0].value.value
        for node in walk(module)
        if isinstance(node, cst.Call)
        and tf.is_tf(node.func, "function")
        and node.args
        and isinstance(node.args[0].value, cst.Name)
        and _compiles(node)
    }


def _tracing_probe(call: cst.Call) -> bool:
    """A print meant to run at trace time: only literals (``print("Tracing")``), or a first
    string that says so (``print("Tracing with", x)``), as TensorFlow's guides show."""
    values = [a.value for a in call.args if a.keyword is None]
    if any(a.star for a in call.args):
        return False
    if all(string_text(v) is not None or isinstance(v, (cst.Integer, cst.Float)) for v in values):
        return True
    first = string_text(values[0]) if values else None
    return first is not None and re.search(r"\btrac(e|ed|es|ing)\b", first, re.IGNORECASE) is not None


def _with_equal(arg: cst.Arg) -> cst.Arg:
    if arg.keyword is None:
        return arg
    return arg.with_changes(
        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
    )


def _trace_time_format(value: cst.BaseExpression) -> Optional[str]:
    """Why a ``%``/``.format`` string argument cannot become a ``tf.print`` argument."""
    if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Modulo):
        if isinstance(value.left, (cst.SimpleString, cst.ConcatenatedString)):
            return "the `%` string is formatted at trace time: pass the values as separate arguments to `tf.print`"
    if (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value == "format"
        and isinstance(value.func.value, (cst.SimpleString, cst.ConcatenatedString))
    ):
        return "the `.format` string is formatted at trace time: pass the values as separate arguments to `tf.print`"
    return None
