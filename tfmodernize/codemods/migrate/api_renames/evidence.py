"""Api-renames' reading of a file: whether it is TF1 code (and stays so after the renames),
and what ``tf.div``'s operands are when literals say so."""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from tfmodernize.names import names_bound_here
from tfmodernize.treewalk import children, walk

from tfmodernize.analysis.tables import has_star_args, keyword_names, tables, v1_requirement
from tfmodernize.codemods.migrate.api_renames.policy import DIVISIONS, renamed_to_tf2
from tfmodernize.tfsymbols import TFNames
from tfmodernize.syntax import argument


def division_operand(call: cst.Call, constants: dict[str, str]) -> Optional[str]:
    """``int`` or ``float``: what ``tf.div``'s first operand is, when both are numeric literals
    (or lists of them) that TF1 converts to one dtype, or names only ever bound to
    ``tf.constant`` of such literals (``constants``); None when the code does not say."""
    if has_star_args(call):
        return None
    x, y = argument(call, 0, "x"), argument(call, 1, "y")

    def kind(operand: Optional[cst.BaseExpression]) -> Optional[str]:
        if isinstance(operand, cst.Name):
            return constants.get(operand.value)
        return _literal_kind(operand) if operand is not None else None

    kinds = [kind(x), kind(y)]
    if kinds[0] == "int" and kinds[1] == "int":
        return "int"
    if kinds[0] == "float" and kinds[1] is not None:
        return "float"
    return None


def constant_kinds(module: cst.Module, names: TFNames) -> dict[str, str]:
    """Names every binding of which is ``tf.constant(<int or float literal>)`` (its dtype
    unwritten, or written as an integer or floating dtype): name -> ``int`` or ``float``."""
    kinds: dict[str, set[Optional[str]]] = {}
    read: set[int] = set()
    for node in walk(module, code_only=True):
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            kinds.setdefault(node.targets[0].target.value, set()).add(_constant_kind(node.value, names))
            read.add(id(node.targets[0]))
            continue
        if id(node) in read:
            continue
        for bound in names_bound_here(node) | ({node.name.value} if isinstance(node, cst.Param) else set()):
            kinds.setdefault(bound, set()).add(None)
    return {name: found.pop() for name, found in kinds.items() if len(found) == 1 and None not in found}


def _constant_kind(value: cst.BaseExpression, names: TFNames) -> Optional[str]:
    if not (isinstance(value, cst.Call) and names.is_tf(value.func, "constant")):
        return None
    literal = _literal_kind(argument(value, 0, "value"))
    dtype = argument(value, 1, "dtype")
    if dtype is None:
        return literal
    symbol = names.tf_symbol(dtype)
    written = (
        None
        if symbol is None
        else "float"
        if re.fullmatch(r"b?float\d+", symbol.path)
        else "int"
        if re.fullmatch(r"u?int\d+", symbol.path)
        else None
    )
    return written if literal is not None else None


def _literal_kind(expr: Optional[cst.BaseExpression]) -> Optional[str]:
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
        expr = expr.expression
    if isinstance(expr, cst.Integer):
        return "int"
    if isinstance(expr, cst.Float):
        return "float"
    if isinstance(expr, (cst.List, cst.Tuple)) and expr.elements:
        kinds = {_literal_kind(e.value) if isinstance(e, cst.Element) else None for e in expr.elements}
        return kinds.pop() if len(kinds) == 1 else None
    return None


def tf1_evidence(module: cst.Module, names: TFNames, constants: dict[str, str]) -> tuple[bool, bool]:
    """Whether the file uses the TF1 API somewhere (a name TF2 lacks, a keyword TF2 renamed, or
    a ``compat.v1`` spelling), which decides what ``tf.nn.dropout(x, 0.5)``, ``tf.nn.max_pool``
    and other names whose meaning changed under the same spelling mean in this file; and
    whether evidence this codemod leaves in place remains (a TF1 name it cannot rename to a TF2
    one, a ``compat.v1`` spelling), i.e. whether the file still reads as TF1 on the next run.

    One walk over the code for both: the evidence left in place is judged on whole names
    (``tf.contrib.summary`` inside a renamed ``tf.contrib.summary.always_record_summaries`` goes
    with it), the rest on every name and call."""
    t = tables()
    shows = stays = False
    rewritten: set[int] = set()  # ``tf.div`` calls that become TF2 divisions whatever the file is
    stack: list[tuple[cst.CSTNode, bool]] = [(module, False)]  # (node, under a whole TF name)
    while stack and not (shows and stays):
        node, inside = stack.pop()
        kind = type(node)  # exact types: this runs on every node of the file
        if kind is cst.Import or kind is cst.ImportFrom:
            continue
        if kind is cst.Call:
            symbol = names.tf_symbol(node.func)
            if symbol is not None:
                if symbol.path in DIVISIONS and division_operand(node, constants) is not None:
                    rewritten.add(id(node.func))
                if not shows:
                    old = set(t.keyword_renames.get(symbol.path, ())) | set(t.keyword_deletions.get(symbol.path, ()))
                    shows = bool(keyword_names(node) & old)
        elif kind is cst.Attribute or kind is cst.Name:
            symbol = names.tf_symbol(node)
            if symbol is not None:
                tf1 = symbol.v1 or t.tf1_only(symbol.path)
                shows = shows or tf1
                if not inside and not stays and id(node) not in rewritten:
                    stays = (
                        tf1 and not renamed_to_tf2(symbol.path) and v1_requirement(symbol.path, None, names) is not None
                    )
                inside = True
            if kind is cst.Name:
                continue
        stack.extend((child, inside) for child in reversed(children(node, code_only=True)))
    return shows, shows and stays
