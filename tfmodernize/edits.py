"""Edits a codemod plans, and the one applier that makes them (architecture.md, "Plan, then apply").

A codemod analyses the tree it receives without changing it and records *edits*, each tied to
a node of that tree: replace a node (with a node, or with a function of the node as rebuilt
with the edits below it), insert statements before or after a statement, remove a statement.
``apply`` then rebuilds only the nodes on the paths from the edited nodes to the root. LibCST
nodes are immutable, so every untouched subtree is shared between the old tree and the new one
instead of being rebuilt, as a ``CSTTransformer`` pass would rebuild every node.

Two promises make the new tree safe for the next codemod and for the reports:

- every node in it is unique (LibCST metadata is keyed by node identity): what an edit brings
  in is copied, except the subtrees it takes whole from the node it replaces, used once;
- ``origin`` maps each node the applier built to the node it stands for in the *parsed* file
  (or, for a node an edit brought in, to the one it was copied from) and ``anchor`` each node an
  edit brought in to the parsed node it replaced or was inserted beside: a position is always
  one of the file the user wrote.
"""

from __future__ import annotations

import dataclasses
from functools import lru_cache
from typing import Callable, Iterable, Optional, Sequence, Union

import libcst as cst

from tfmodernize.treewalk import children

#: What replaces a node: a node, a function of the node rebuilt with the edits below it, or (for
#: a statement or another element of a sequence) several nodes, or none.
Replacement = Union[
    cst.CSTNode,
    cst.FlattenSentinel,
    cst.RemovalSentinel,
    Callable[[cst.CSTNode], Union[cst.CSTNode, cst.FlattenSentinel, cst.RemovalSentinel]],
]


class EditError(Exception):
    """An edit that cannot be made where it was asked (several nodes where one must stand)."""


@dataclasses.dataclass
class Edits:
    """The edits one codemod planned on one tree, keyed by node identity."""

    replacements: dict[int, list[Replacement]] = dataclasses.field(default_factory=dict)
    before: dict[int, list[cst.CSTNode]] = dataclasses.field(default_factory=dict)
    after: dict[int, list[cst.CSTNode]] = dataclasses.field(default_factory=dict)
    targets: dict[int, cst.CSTNode] = dataclasses.field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.targets)

    def replace(self, node: cst.CSTNode, new: Replacement) -> None:
        """``node`` becomes ``new``; several replacements of one node apply in the order asked."""
        self.targets[id(node)] = node
        self.replacements.setdefault(id(node), []).append(new)

    def insert_before(self, statement: cst.CSTNode, statements: Iterable[cst.CSTNode]) -> None:
        self.targets[id(statement)] = statement
        self.before.setdefault(id(statement), []).extend(statements)

    def insert_after(self, statement: cst.CSTNode, statements: Iterable[cst.CSTNode]) -> None:
        self.targets[id(statement)] = statement
        self.after.setdefault(id(statement), []).extend(statements)

    def remove(self, statement: cst.CSTNode) -> None:
        self.replace(statement, cst.RemovalSentinel.REMOVE)


@lru_cache(maxsize=None)
def _node_fields(kind: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(kind))


def parents(module: cst.Module) -> dict[int, cst.CSTNode]:
    """Each code node's parent, by the child's identity (one fast walk; trivia left out)."""
    found: dict[int, cst.CSTNode] = {}
    stack: list[cst.CSTNode] = [module]
    pop, extend, update = stack.pop, stack.extend, found.update
    while stack:
        node = pop()
        below = children(node, code_only=True)
        if below:  # a leaf costs no more than the lookup of its children (most nodes are leaves)
            update(dict.fromkeys(map(id, below), node))
            extend(below)
    return found


class _Applier:
    def __init__(
        self,
        edits: Edits,
        origin: dict[cst.CSTNode, cst.CSTNode],
        anchor: dict[cst.CSTNode, cst.CSTNode],
        built: list[cst.CSTNode],
    ) -> None:
        self.edits = edits
        self.origin = origin
        self.anchor = anchor
        self.built = built
        self.on_path: set[int] = set()

    def mark(self, module: cst.Module, parent_of: dict[int, cst.CSTNode]) -> None:
        for key, node in self.edits.targets.items():
            while key not in self.on_path:
                self.on_path.add(key)
                parent = parent_of.get(key)
                if parent is None:
                    # The chain up from a node of the tree ends at its module. (A map kept up to
                    # date edit by edit, ``FileState.apply``, still holds the nodes edits took out:
                    # their chains end at an earlier tree's module.)
                    if key != id(module):
                        raise EditError(f"an edit targets a {type(node).__name__} that is not in the tree")
                    break
                key = id(parent)

    def rebuild(self, node: cst.CSTNode) -> Union[cst.CSTNode, cst.FlattenSentinel, cst.RemovalSentinel]:
        """``node`` with the edits at and below it made."""
        updated = node
        changes = {}
        for name in _node_fields(type(node)):
            value = getattr(node, name)
            if isinstance(value, cst.CSTNode):
                if id(value) in self.on_path:
                    new = self.rebuild(value)
                    changes[name] = self._single(new, value, name, node)
            elif isinstance(value, (list, tuple)) and any(
                isinstance(item, cst.CSTNode) and id(item) in self.on_path for item in value
            ):
                changes[name] = self._sequence(value)
        if changes:
            if isinstance(node, cst.IndentedBlock) and "body" in changes and not changes["body"]:
                changes["body"] = (cst.SimpleStatementLine([cst.Pass()]),)
                self.built.append(changes["body"][0])
            updated = node.with_changes(**changes)
            self.built.append(updated)
            self.origin[updated] = self.origin.get(node, node)
        result: Union[cst.CSTNode, cst.FlattenSentinel, cst.RemovalSentinel] = updated
        for replacement in self.edits.replacements.get(id(node), ()):
            if not isinstance(result, cst.CSTNode):
                break  # removed or split already: later replacements of the node have nothing to act on
            if not callable(replacement) and result is not node:
                raise EditError(
                    f"a {type(node).__name__} was replaced by a fixed node, which would undo the edits "
                    "made inside it: replace it with a function of the rebuilt node"
                )
            made = replacement(result) if callable(replacement) else replacement
            result = self._fresh(made, result, node)
        return result

    def _single(self, new, old: cst.CSTNode, name: str, parent: cst.CSTNode) -> Optional[cst.CSTNode]:
        before, after = self.edits.before.get(id(old)), self.edits.after.get(id(old))
        if isinstance(new, cst.CSTNode) and not before and not after:
            return new
        if isinstance(new, cst.RemovalSentinel) and not before and not after:
            default = next(f.default for f in dataclasses.fields(type(parent)) if f.name == name)
            if default is None or isinstance(default, cst.MaybeSentinel):
                return default
        raise EditError(f"{type(parent).__name__}.{name} holds one node; an edit made it several or none")

    def _sequence(self, items: Sequence) -> tuple:
        made: list = []
        for item in items:
            if not isinstance(item, cst.CSTNode) or id(item) not in self.on_path:
                made.append(item)
                continue
            made.extend(self._copies(self.edits.before.get(id(item), ()), item))
            new = self.rebuild(item)
            if isinstance(new, cst.FlattenSentinel):
                made.extend(new.nodes)
            elif isinstance(new, cst.CSTNode):
                if not (isinstance(new, cst.SimpleStatementLine) and not new.body):
                    made.append(new)
            made.extend(self._copies(self.edits.after.get(id(item), ()), item))
        return tuple(made)

    def _copies(self, nodes: Iterable[cst.CSTNode], near: cst.CSTNode) -> list[cst.CSTNode]:
        origin = self.origin.get(near, near)
        return [self._copy(node, origin, set(), set()) for node in nodes]

    def _fresh(self, made, rebuilt: cst.CSTNode, original: cst.CSTNode):
        """``made`` with every node it shares with the tree copied, except the subtrees it took
        whole from ``rebuilt`` (the node it replaces, with the edits below made): those were
        unique where they stood, and stay so if used once."""
        if isinstance(made, cst.RemovalSentinel):
            return made
        kept = {id(child) for child in children(rebuilt)}
        origin = self.origin.get(original, original)
        seen: set[int] = set()
        if isinstance(made, cst.FlattenSentinel):
            return cst.FlattenSentinel([self._copy(node, origin, kept, seen) for node in made.nodes])
        copy = self._copy(made, origin, kept, seen)
        return copy

    def _copy(self, node: cst.CSTNode, origin: cst.CSTNode, kept: set[int], seen: set[int]) -> cst.CSTNode:
        if id(node) in kept and id(node) not in seen:
            seen.add(id(node))
            return node
        seen.add(id(node))
        changes = {}
        for name in _node_fields(type(node)):
            value = getattr(node, name)
            if isinstance(value, cst.CSTNode):
                changes[name] = self._copy(value, origin, kept, seen)
            elif isinstance(value, (list, tuple)) and value and any(isinstance(v, cst.CSTNode) for v in value):
                changes[name] = tuple(
                    self._copy(v, origin, kept, seen) if isinstance(v, cst.CSTNode) else v for v in value
                )
        copy = node.with_changes(**changes)
        self.built.append(copy)
        self.origin[copy] = self.origin.get(node, node)
        self.anchor[copy] = self.anchor.get(node, origin)
        return copy


def apply(
    module: cst.Module,
    edits: Edits,
    origin: dict[cst.CSTNode, cst.CSTNode],
    anchor: dict[cst.CSTNode, cst.CSTNode],
    parent_of: Optional[dict[int, cst.CSTNode]] = None,
    built: Optional[list[cst.CSTNode]] = None,
) -> cst.Module:
    """``module`` with ``edits`` made; ``module`` itself when there are none.

    ``origin`` and ``anchor`` (see the module docstring) are extended with every node built
    here. ``parent_of`` is ``parents(module)`` when the caller has it already. ``built``, when
    given, receives every node built here, each after the nodes built below it: the new tree's
    nodes that are not the old tree's, with some an edit built and replaced again.
    """
    if not edits:
        return module
    applier = _Applier(edits, origin, anchor, built if built is not None else [])
    applier.mark(module, parent_of if parent_of is not None else parents(module))
    result = applier.rebuild(module)
    if not isinstance(result, cst.Module):
        raise EditError("an edit replaced the module with something else")
    return result
