"""TFM211 logging-in-function.

What it does
    Finds logging calls of values in the body of a ``tf.function`` (decorated, or wrapped as
    ``f = tf.function(g)``): ``tf.compat.v1.logging.info(...)``, absl's ``logging.info(...)``
    and Python's ``logging.info(...)`` (also ``warning``/``error``/``debug``/``log``, and
    ``tf.get_logger().info(...)``). A call of TF's or absl's ``info``/``warning``/``warn``/
    ``error`` whose message is only strings and values (``str(loss)``, ``f"loss {loss}"``,
    ``"loss %s", loss``, ``"loss %s" % loss``, ``"loss " + str(loss)``) becomes
    ``tf.print("loss ", loss, sep="", output_stream=<the same logging function>)``, an op
    that logs the values on every call. Unsafe: applied only with ``--unsafe-fixes``. Every
    other such call is reported. A call with literal arguments only (``logging.info("tracing
    step")``) is a tracing probe and is left alone, and so is every call in a module that calls
    ``tf.config.run_functions_eagerly(True)``.

Why it matters
    A logging call is Python: in a ``tf.function`` it runs once, while TensorFlow traces the
    function, and logs symbolic tensors (``Tensor("add:0", shape=(), dtype=float32)``), never
    the values of the calls that follow. ``tf.print`` is part of the graph and accepts TF's and
    absl's ``info``/``warning``/``error`` as its ``output_stream``. The fix is unsafe because
    ``tf.print`` logs through TensorFlow's C++ logger: the line has another format, and
    ``TF_CPP_MIN_LOG_LEVEL`` rather than the Python logger's level decides whether it shows.
    Python's ``logging`` cannot be a ``tf.print`` stream, so those calls are only reported.

Before
    @tf.function
    def step(x):
        loss = tf.reduce_sum(x * x)
        logging.info("loss %s", loss)
        return loss

After
    @tf.function
    def step(x):
        loss = tf.reduce_sum(x * x)
        tf.print("loss ", loss, sep="", output_stream=logging.info)
        return loss

Fixtures: ``fixtures/logging-in-function/``.

Fix safety
    Unsafe (``--unsafe-fixes``): the values are logged on every call, as the code meant, but
    through TensorFlow's C++ logger instead of the Python logger.

Declines when
    the logger is Python's ``logging`` (or a logger object), the level is ``debug``/``fatal``/
    ``log``, or the message is formatted in a way ``tf.print`` cannot reproduce (``%d``/``%.3f``
    specs, ``.format``, keyword arguments such as ``exc_info``).
"""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from tfmodernize.analysis.tf_function import INTERESTS, InTFFunction, split_fstring, string_text
from tfmodernize.codemod import Decline, Safety, TFCodemod
from tfmodernize.syntax import source
from tfmodernize.tfsymbols import dotted_name, import_bindings, root_name

#: Logging functions ``tf.print`` accepts as its ``output_stream``.
STREAMS = ("info", "warning", "warn", "error")
#: Every logging function looked at.
LEVELS = ("debug", "info", "warning", "warn", "error", "fatal", "critical", "log", "exception")
_PLACEHOLDER = re.compile(r"%.")


class LoggingInFunction(InTFFunction, TFCodemod):
    __doc__ = __doc__
    code = "TFM211"
    name = "logging-in-function"
    summary = "logging of tensors inside a tf.function runs once, at trace time -> tf.print(..., output_stream=...)"
    safety = Safety.UNSAFE
    needles = ("logging", "get_logger")
    interests = INTERESTS

    def visit_Module(self, node: cst.Module) -> bool:
        self._imports: dict[str, str] = {}
        for statement in node.body:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    self._imports.update(import_bindings(small, tf_only=False))
        return super().visit_Module(node)

    def _logger(self, func: cst.BaseExpression) -> Optional[tuple[str, str]]:
        """``(family, level)``: family ``tf``, ``absl`` or ``python`` for a logging call."""
        if not isinstance(func, cst.Attribute) or func.attr.value not in LEVELS:
            return None
        level = func.attr.value
        owner = func.value
        if isinstance(owner, cst.Call) and self.tf.is_tf(owner.func, "get_logger"):
            return "python", level
        symbol = self.tf.tf_symbol(func)
        if symbol is not None:
            return ("tf", level) if symbol.path == f"logging.{level}" else None
        dotted, root = dotted_name(owner), root_name(func)
        if dotted is None or root is None or root.value not in self._imports:
            return None
        qualified = self._imports[root.value] + dotted[len(root.value) :]
        if qualified == "absl.logging":
            return "absl", level
        if qualified == "logging":
            return "python", level
        return None

    def leave_Call(self, original: cst.Call) -> None:
        if self.traced_function is None:
            return
        found = self._logger(original.func)
        if found is None or _literals_only(original):
            return
        family, level = found
        spelled = source(original.func)
        head = (
            f"`{spelled}` in a tf.function runs once, while tracing, and logs symbolic tensors, "
            f"not the values of each call"
        )
        try:
            if family == "python":
                raise Decline(
                    original,
                    "Python's logging cannot be a `tf.print` stream: log with "
                    "`tf.print(..., output_stream=absl.logging.info)` or return the values",
                )
            if level not in STREAMS:
                raise Decline(
                    original,
                    f"`tf.print` cannot log at `{level}`: use `tf.print(..., "
                    f"output_stream=...info)` or return the values",
                )
            pieces = _message_pieces(original)
        except Decline as decline:
            self.report(original, f"{head}; {decline.reason}")
            return
        if not self.fix(original, f"{head}: `tf.print(..., output_stream={spelled})` logs them on every call"):
            return
        equal = cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))
        args = [cst.Arg(piece) for piece in pieces]
        if any(string_text(piece) is not None for piece in pieces):
            args.append(cst.Arg(cst.SimpleString('""'), keyword=cst.Name("sep"), equal=equal))
        args.append(cst.Arg(original.func, keyword=cst.Name("output_stream"), equal=equal))
        func = self.tf_expr("print")
        self.replace(original, lambda updated: updated.with_changes(func=func, args=args))


def _literals_only(call: cst.Call) -> bool:
    return all(
        not a.star and (string_text(a.value) is not None or isinstance(a.value, (cst.Integer, cst.Float)))
        for a in call.args
    )


def _message_pieces(call: cst.Call) -> list[cst.BaseExpression]:
    """The strings and values the logged message is made of, in order; raises Decline when
    the message is formatted in a way ``tf.print`` cannot reproduce."""
    if any(a.keyword is not None or a.star for a in call.args):
        raise Decline(call, "keyword or starred arguments cannot go to `tf.print`: convert by hand")
    message, *values = [a.value for a in call.args]
    if isinstance(message, cst.BinaryOperation) and isinstance(message.operator, cst.Modulo) and not values:
        right = message.right
        values = [e.value for e in right.elements] if isinstance(right, cst.Tuple) else [right]
        message = message.left
    if values:
        return _formatted(message, values)
    return _concatenated(message)


def _formatted(message: cst.BaseExpression, values: list[cst.BaseExpression]) -> list[cst.BaseExpression]:
    """``"a %s b %s", x, y`` -> ``["a ", x, " b ", y]`` (only ``%s`` placeholders)."""
    text = string_text(message)
    if text is None or not isinstance(message, cst.SimpleString):
        raise Decline(message, "the format is not a string literal: convert by hand")
    placeholders = _PLACEHOLDER.findall(text)
    if any(p not in ("%s", "%%") for p in placeholders) or placeholders.count("%s") != len(values):
        raise Decline(message, "only `%s` placeholders, one per value, can be split into `tf.print` arguments")
    quote = message.quote
    prefix = message.prefix
    pieces: list[cst.BaseExpression] = []
    parts = text.split("%s")
    for index, part in enumerate(parts):
        if part:
            pieces.append(cst.SimpleString(f"{prefix}{quote}{part.replace('%%', '%')}{quote}"))
        if index < len(values):
            pieces.append(_unwrapped(values[index]))
    return pieces


def _concatenated(message: cst.BaseExpression) -> list[cst.BaseExpression]:
    """``"a " + str(x)``, ``f"a {x}"``, ``str(x)``, ``x`` -> the pieces."""
    if isinstance(message, cst.FormattedString):
        return [_unwrapped(p) for p in split_fstring(message)]
    if isinstance(message, cst.BinaryOperation) and isinstance(message.operator, cst.Add):
        return [*_concatenated(message.left), *_concatenated(message.right)]
    if isinstance(message, cst.Call) and not _is_str(message):
        raise Decline(message, "the message is computed at trace time by a call: pass its values to `tf.print`")
    if isinstance(
        message, (cst.Call, cst.Name, cst.Attribute, cst.Subscript, cst.SimpleString, cst.ConcatenatedString)
    ):
        return [_unwrapped(message)]
    raise Decline(message, "the message is computed at trace time: pass its values to `tf.print`")


def _is_str(call: cst.Call) -> bool:
    return (
        isinstance(call.func, cst.Name)
        and call.func.value == "str"
        and len(call.args) == 1
        and call.args[0].keyword is None
        and not call.args[0].star
    )


def _unwrapped(value: cst.BaseExpression) -> cst.BaseExpression:
    """``str(x)`` -> ``x``: ``tf.print`` formats values itself."""
    if isinstance(value, cst.Call) and _is_str(value):
        return value.args[0].value
    return value
