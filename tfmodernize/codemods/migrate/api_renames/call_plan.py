"""What api-renames' call rewrites are handed and what they give back: ``RenamesFile``, what the
codemod read of one file (whether it is TF1 code and stays so, its operands' dtypes), and
``CallRewrite``, a call's fix message and the function rebuilding it, which the codemod applies;
and the argument-list edits the rewrites share (a keyword argument, the commas, an argument's
value as rebuilt)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Callable, Optional

import libcst as cst

from tfmodernize.analysis.dtypes import OperandKinds
from tfmodernize.tfsymbols import TFNames


@dataclass(frozen=True)
class RenamesFile:
    """What api-renames read of one file (``ApiRenames.visit_Module``), which its call rewrites
    (``calls.plan_call``) read and never change."""

    tf: TFNames  #: the file's TF names
    #: ``TFCodemod.tf_expr``: an expression naming TF2's ``tf.<path>`` (adds the import it needs)
    tf_expr: Callable[..., cst.BaseExpression]
    #: the file reads as TF1 code (``evidence.tf1_evidence``): same-name calls are TF1's
    tf1_file: bool
    #: the file was written as TF1 code (also where an earlier codemod took its TF1 names): the
    #: calls whose numbers change with the meaning are read as TF1's
    written_tf1: bool
    #: the file (or its project) stays on TF1: a TF2 name is spelled ``tf.compat.v2.X``
    stays_tf1: bool
    #: the kind of number operands hold, where the file names ``div`` or ``resize_images``
    operand_kinds: Optional[OperandKinds]
    #: each node's parent in the tree planned on, computed when first asked
    parent_of: Callable[[], Mapping[int, cst.CSTNode]]


@dataclass(frozen=True)
class CallRewrite:
    """A call's rewrite: the fix message, and ``build``, the call as rebuilt (with the edits
    below it) -> the new call."""

    message: str
    build: Callable[[cst.Call], cst.Call]
    #: a finding said with the fix: what the fixed call still leaves for the user
    left: Optional[str] = None


def keyword(name: str, value: cst.BaseExpression, like: Optional[cst.Arg] = None) -> cst.Arg:
    """``name=value``, with ``like``'s comma and trailing space when given."""
    arg = cst.Arg(
        value=value,
        keyword=cst.Name(name),
        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
    )
    if like is not None:
        arg = arg.with_changes(comma=like.comma, whitespace_after_arg=like.whitespace_after_arg)
    return arg


def arg_value(updated: cst.Call, original_arg: cst.Arg, original: cst.Call) -> cst.BaseExpression:
    """The (already transformed) value of ``original_arg`` in ``updated``."""
    return updated.args[list(original.args).index(original_arg)].value


def fix_commas(args: list[cst.Arg], before: tuple[cst.Arg, ...]) -> list[cst.Arg]:
    """Separate ``args`` with commas, keeping the call's trailing-comma style."""
    fixed = []
    for index, arg in enumerate(args):
        if index == len(args) - 1:
            arg = arg.with_changes(comma=before[-1].comma if before else cst.MaybeSentinel.DEFAULT)
        elif not isinstance(arg.comma, cst.Comma):
            arg = arg.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        fixed.append(arg)
    return fixed
