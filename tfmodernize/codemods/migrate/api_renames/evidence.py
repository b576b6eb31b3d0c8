"""Api-renames' reading of a file: whether it is TF1 code (and stays so after the renames),
and what kind of number ``tf.div``'s first operand is when the code says (read by
``tfmodernize.analysis.dtypes``)."""

from __future__ import annotations

import re
from typing import Callable, Optional

import libcst as cst

from tfmodernize.analysis.dtypes import OperandKinds, literal_kind
from tfmodernize.analysis.tables import has_star_args, keyword_names, tables, v1_requirement
from tfmodernize.codemods.migrate.absl_flags_logging.tables import absl_module
from tfmodernize.codemods.migrate.api_renames.policy import DIVISIONS, renamed_to_tf2
from tfmodernize.syntax import argument
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import children


#: The calls read by their text where an earlier codemod moved them: ``tf.div``'s, resizes.
CALLS_READ = re.compile(r"\bdiv$|\bresize_images$")


def operand_kinds(
    module: cst.Module,
    names: TFNames,
    written: Optional[cst.Module],
) -> OperandKinds:
    """The kinds of number of ``module``'s expressions, ``tf.div``'s and resizes' operands read
    in ``written`` (the file as written) where an earlier codemod moved the call."""
    return OperandKinds(module, names, written, moved=CALLS_READ)


def division_operand(call: cst.Call, kinds: OperandKinds) -> Optional[str]:
    """``int`` or ``float``: the kind of ``tf.div``'s first operand, which decided TF1's floor
    or true division (TF1 converted the second operand to its dtype, and failed when it could
    not); None when the code does not say, or says the operands differ (TF1 failed there)."""
    if has_star_args(call):
        return None
    x, y = argument(call, 0, "x"), argument(call, 1, "y")
    first, second = kinds.operand(call, 0, "x"), kinds.operand(call, 1, "y")
    if first is None or second not in (first, None) and not (first == "float" and literal_kind(y) == "int"):
        return None
    if second is None and first == "int" and literal_kind(x) is not None:
        return None  # ``tf.div(7, n)``: a Python number whose tensor dtype ``n`` may have chosen
    return first


def tf1_evidence(
    module: cst.Module,
    names: TFNames,
    kinds: Optional[OperandKinds],
    absl: Callable[[], frozenset[str]] = frozenset,
) -> tuple[bool, bool]:
    """Whether the file uses the TF1 API somewhere (a name TF2 lacks, a keyword TF2 renamed, or
    a ``compat.v1`` spelling), which decides what ``tf.nn.dropout(x, 0.5)``, ``tf.nn.max_pool``
    and other names whose meaning changed under the same spelling mean in this file; and
    whether evidence this codemod leaves in place remains (a TF1 name it cannot rename to a TF2
    one, a ``compat.v1`` spelling), i.e. whether the file still reads as TF1 on the next run.

    One walk over the code for both: the evidence left in place is judged on whole names
    (``tf.contrib.summary`` inside a renamed ``tf.contrib.summary.always_record_summaries`` goes
    with it), the rest on every name and call. ``absl``: gives the names absl-flags-logging, which
    runs after this codemod, moves to absl in this file (``moves_to_absl``): they leave no TF1.
    It is asked only when nothing else settles the answer: a walk of its own over the file."""
    t = tables()
    shows = stays = False
    rewritten: set[int] = set()  # ``tf.div`` calls that become TF2 divisions whatever the file is
    # Names that stay TF1 unless absl-flags-logging moves them (only it can: ``absl_module``).
    unless_moved: set[str] = set()
    stack: list[tuple[cst.CSTNode, bool]] = [(module, False)]  # (node, under a whole TF name)
    while stack and not (shows and stays):
        node, inside = stack.pop()
        kind = type(node)  # exact types: this runs on every node of the file
        if kind is cst.Import or kind is cst.ImportFrom:
            continue
        if kind is cst.Call:
            symbol = names.tf_symbol(node.func)
            if symbol is not None:
                if symbol.path in DIVISIONS and kinds is not None and division_operand(node, kinds) is not None:
                    rewritten.add(id(node.func))
                if not shows:
                    old = set(t.keyword_renames.get(symbol.path, ())) | set(t.keyword_deletions.get(symbol.path, ()))
                    shows = bool(keyword_names(node) & old)
        elif kind is cst.Attribute or kind is cst.Name:
            symbol = names.tf_symbol(node)
            if symbol is not None:
                tf1 = symbol.v1 or t.tf1_only(symbol.path)
                shows = shows or tf1
                if (
                    not inside
                    and not stays
                    and id(node) not in rewritten
                    and tf1
                    and not renamed_to_tf2(symbol.path)
                    and v1_requirement(symbol.path, None, names) is not None
                ):
                    if absl_module(symbol.path) is None:
                        stays = True
                    else:
                        unless_moved.add(symbol.path)
                inside = True
            if kind is cst.Name:
                continue
        stack.extend((child, inside) for child in reversed(children(node, code_only=True)))
    if shows and not stays and unless_moved:
        moved = absl()
        stays = any(path not in moved for path in unless_moved)
    return shows, shows and stays
