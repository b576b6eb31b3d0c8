"""TF1's ``tf.name_scope(name, default_name=None, values=None)`` read as the one argument TF2's
``tf.name_scope(name)`` takes to open the same scope.

TF1 opened the scope ``default_name if name is None else name`` (``''`` included: it resets to
the top level, as TF2's ``tf.name_scope('')`` does; a name ending in ``/`` re-enters that scope
exactly, in both); ``values`` only picked the graph to build in, which TF2 code (eager, or a
``tf.function`` being traced) never needs. So the argument is:

* the name, when it is a string literal (the default never applies);
* the default, when the name is the literal ``None``;
* ``name if name is not None else default`` for a name read from a variable: ``name or
  default`` would differ when the name is ``''``;
* the name alone when there is no default (as a one-argument call, which is TF2's already).

Dropped arguments must have no effect when evaluated, and a name written twice must be a plain
(dotted) name; anything else is not proven here (``NotProven``).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tfmodernize.syntax import argument, is_none

PARAMETERS = ("name", "default_name", "values")
#: Expressions whose evaluation only reads.
_READ_ONLY = (cst.Name, cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString)


class NotProven(Exception):
    """The call's TF2 form is not proven to open the same scope: the message says why."""


def tf2_name_argument(call: cst.Call) -> Optional[cst.BaseExpression]:
    """The expression to pass TF2's ``tf.name_scope``; None when ``call`` passes its name alone
    (already TF2's call); raises ``NotProven``."""
    if any(arg.star for arg in call.args):
        raise NotProven("it is called with *args/**kwargs")
    keywords = [arg.keyword.value for arg in call.args if arg.keyword is not None]
    positional = len(call.args) - len(keywords)
    if set(keywords) - set(PARAMETERS) or positional > len(PARAMETERS):
        raise NotProven("it is passed arguments tf.name_scope never took")
    name = argument(call, 0, "name")
    default = argument(call, 1, "default_name")
    values = argument(call, 2, "values")
    if len(call.args) == 1 and name is not None:
        return None
    if values is not None and not _without_effect(values):
        raise NotProven("its values= runs code that dropping the argument would not run")
    if is_none(default):
        default = None
    elif not (_is_string(default) or _dotted(default)):
        raise NotProven("its default_name is neither a string literal nor a variable")
    if name is not None and _is_string(name):
        return name
    if is_none(name):
        if default is None:
            raise NotProven("it is passed neither a name nor a default_name")
        return default
    if not _dotted(name):
        raise NotProven("its name is an expression that cannot be written twice")
    if default is None:
        return name
    return cst.IfExp(
        test=cst.Comparison(
            left=name,
            comparisons=[cst.ComparisonTarget(operator=cst.IsNot(), comparator=cst.Name("None"))],
        ),
        body=name.deep_clone(),
        orelse=default,
    )


def _is_string(node: cst.BaseExpression) -> bool:
    return isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString))


def _dotted(node: cst.BaseExpression) -> bool:
    """``scope`` or ``self.scope``: a name whose reading has no effect and can be written twice."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name) and node.value not in ("None", "True", "False")


def _without_effect(node: cst.BaseExpression) -> bool:
    """Whether evaluating ``node`` does nothing but read: names, literals, subscripts and
    displays of them (``[x, y]``, ``inputs[0]``)."""
    if isinstance(node, _READ_ONLY):
        return True
    if isinstance(node, cst.Attribute):
        return _without_effect(node.value)
    if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
        return all(_without_effect(element.value) for element in node.elements)
    if isinstance(node, cst.Subscript):
        indices = [element.slice for element in node.slice]
        return _without_effect(node.value) and all(
            isinstance(index, cst.Index) and _without_effect(index.value) for index in indices
        )
    return False
