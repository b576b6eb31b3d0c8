"""What the writers of a planned class share: the names and layout it is written with
(``Writing``), and replacing nodes of the original tree by identity."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Optional, Union

import libcst as cst

from tfmodernize.codemods.migrate.model_class_to_module.plan import (
    ClassPlan,
)

Replacement = Union[cst.CSTNode, cst.RemovalSentinel, Callable[[cst.CSTNode], cst.CSTNode]]


class _Substitute(cst.CSTTransformer):
    """Replaces nodes of an original tree by identity (a node, or a function of the node as
    rebuilt with the replacements below it)."""

    def __init__(self, replacements: dict[int, Replacement], origin: Optional[dict[int, cst.CSTNode]]) -> None:
        super().__init__()
        self.replacements = replacements
        self.origin = origin

    def on_leave(self, original_node, updated_node):
        new = self.replacements.get(id(original_node))
        if new is None:
            if self.origin is not None and updated_node is not original_node:
                self.origin[id(updated_node)] = self.origin.get(id(original_node), original_node)
            return updated_node
        return new(updated_node) if callable(new) else new


def substituted(
    node: cst.CSTNode,
    replacements: dict[int, Replacement],
    origin: Optional[dict[int, cst.CSTNode]] = None,
) -> cst.CSTNode:
    """``node`` with ``replacements`` made; ``origin`` (if given) learns, of each node rebuilt
    around a replacement, the original node it stands for."""
    return node.visit(_Substitute(replacements, origin)) if replacements else node


@dataclass(frozen=True)
class Writing:
    """How one planned class is written: its plan, the TF module's name (``tf``), the line
    width, the name each graph value has in the new methods (``self.x`` -> ``x``) and the
    names ``__init__`` reads or binds."""

    plan: ClassPlan
    tf: str
    width: int
    names: Mapping[str, str]
    taken: frozenset


def after_line(
    line: cst.SimpleStatementLine,
    holder: cst.SimpleStatementLine,
    updated: cst.SimpleStatementLine,
) -> cst.FlattenSentinel:
    """``line`` then the statement ``holder`` became, ``line`` taking its leading lines."""
    first = line.with_changes(leading_lines=holder.leading_lines)
    return cst.FlattenSentinel([first, updated.with_changes(leading_lines=[])])


class PutValue(cst.CSTTransformer):
    """Puts ``value`` where the name ``__value__`` stands."""

    def __init__(self, value: cst.BaseExpression) -> None:
        super().__init__()
        self.value = value

    def leave_Name(self, original_node, updated_node):
        return self.value if original_node.value == "__value__" else updated_node


class PutNames(cst.CSTTransformer):
    """Puts each of ``values`` where its name stands."""

    def __init__(self, values: dict[str, cst.BaseExpression]) -> None:
        super().__init__()
        self.values = values

    def leave_Name(self, original_node, updated_node):
        return self.values.get(original_node.value, updated_node)
