"""Where a name gets its value: the provenance facts the TF2 fix codemods decide safety on.

A fix is safe only when the code proves what an object is, e.g. that ``model`` is a Keras
model (then ``model.variables`` and ``model.trainable_variables`` differ only by
non-trainable state) or that ``x`` is a plain tensor (then ``tape.watch(x)`` is what the
author meant). These helpers answer such questions from LibCST's ``ScopeProvider`` and
``ParentNodeProvider`` metadata, never by running code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Optional

import libcst as cst

from tfmodernize.treewalk import visit, walk
from libcst.metadata import Assignment, BuiltinAssignment, Scope

from tfmodernize.tfsymbols import TFNames, dotted_name

Scopes = Mapping[cst.CSTNode, Optional[Scope]]
Parents = Mapping[cst.CSTNode, cst.CSTNode]

#: Keras paths (relative to the Keras package) whose call builds a model.
KERAS_MODEL_CALLS = ("Sequential", "Model", "models.Sequential", "models.Model")
#: Keras bases a class in the file may subclass to be a model or layer.
KERAS_BASES = ("Model", "Sequential", "Layer", "models.Model", "models.Sequential", "layers.Layer")
#: Capitalised ``keras.layers`` names whose call does not build a layer.
NOT_LAYERS = ("layers.Input", "layers.InputSpec")


@dataclass(frozen=True)
class Binding:
    """One place that binds a name: ``kind`` is assign, param, for, with, import, def or other.

    ``value`` is the assigned expression for a plain ``name = value`` (or ``a = b = value``).
    """

    kind: str
    node: cst.CSTNode
    value: Optional[cst.BaseExpression] = None
    statement: Optional[cst.CSTNode] = None


def _classify(assignment: Assignment, parents: Parents) -> Binding:
    node = assignment.node
    if isinstance(node, cst.Param):
        return Binding("param", node)
    if isinstance(node, (cst.Import, cst.ImportFrom)):
        return Binding("import", node)
    if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        return Binding("def", node)
    parent = parents.get(node)
    if isinstance(parent, cst.AssignTarget):
        statement = parents.get(parent)
        if isinstance(statement, cst.Assign):
            return Binding("assign", node, statement.value, statement)
    if isinstance(parent, cst.AnnAssign) and parent.value is not None:
        return Binding("assign", node, parent.value, parent)
    if isinstance(parent, cst.For) and parent.target is node:
        return Binding("for", node, statement=parent)
    if isinstance(parent, cst.AsName):
        item = parents.get(parent)
        if isinstance(item, cst.WithItem):
            return Binding("with", node, item.item, parents.get(item))
    return Binding("other", node)


def bindings(name: cst.Name, scopes: Scopes, parents: Parents) -> list[Binding]:
    """Every binding the name ``name`` (a use of it) may see; empty if none is visible.

    A builtin or a name the scope analysis cannot see counts as one ``other`` binding.
    """
    scope = scopes.get(name)
    if scope is None:
        return [Binding("other", name)]
    found = []
    for assignment in scope[name.value]:
        if not isinstance(assignment, Assignment):
            found.append(Binding("other", name))
            continue
        found.append(_classify(assignment, parents))
    return found


def is_builtin(name: cst.Name, scopes: Scopes) -> bool:
    """Whether ``name`` refers to the Python builtin of that name (not rebound in the file)."""
    scope = scopes.get(name)
    if scope is None:
        return False
    found = scope[name.value]
    return bool(found) and all(isinstance(a, BuiltinAssignment) for a in found)


def references(binding_name: cst.Name, scopes: Scopes) -> Optional[list[cst.CSTNode]]:
    """The uses that may read the value bound at ``binding_name``; None if unknown."""
    scope = scopes.get(binding_name)
    if scope is None:
        return None
    for assignment in scope.assignments[binding_name.value]:
        if isinstance(assignment, Assignment) and assignment.node is binding_name:
            return [access.node for access in assignment.references]
    return None


def attribute_bindings(module: cst.Module, dotted: str) -> list[Binding]:
    """Every ``a.b = value`` in the file whose target spells ``dotted`` (any scope)."""
    found: list[Binding] = []

    class Finder(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            for target in node.targets:
                if dotted_name(target.target) == dotted:
                    found.append(Binding("assign", target.target, node.value, node))
                elif _binds_inside(target.target, dotted):
                    found.append(Binding("other", target.target))

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            if dotted_name(node.target) == dotted:
                found.append(Binding("assign" if node.value else "other", node.target, node.value, node))

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            if dotted_name(node.target) == dotted:
                found.append(Binding("other", node.target))

        def visit_For(self, node: cst.For) -> None:
            if _binds_inside(node.target, dotted):
                found.append(Binding("for", node.target, statement=node))

        def visit_AsName(self, node: cst.AsName) -> None:
            if _binds_inside(node.name, dotted):
                found.append(Binding("other", node.name))

    visit(module, Finder())
    return found


def _binds_inside(target: cst.CSTNode, dotted: str) -> bool:
    if dotted_name(target) == dotted:
        return True
    if isinstance(target, (cst.Tuple, cst.List)):
        return any(_binds_inside(element.value, dotted) for element in target.elements)
    if isinstance(target, cst.StarredElement):
        return _binds_inside(target.value, dotted)
    return False


# -- Keras provenance ---------------------------------------------------------------------------


def keras_classes(module: cst.Module, tf: TFNames) -> set[str]:
    """Names of the classes defined in the file that subclass a Keras model/layer or tf.Module."""
    classes: dict[str, list[cst.BaseExpression]] = {}

    class Finder(cst.CSTVisitor):
        def visit_ClassDef(self, node: cst.ClassDef) -> None:
            classes[node.name.value] = [arg.value for arg in node.bases if arg.keyword is None]

    visit(module, Finder())
    found: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, bases in classes.items():
            if name in found:
                continue
            for base in bases:
                path = tf.keras_path(base)
                is_keras = path is not None and (path in KERAS_BASES or _is_layer_class(path))
                if is_keras or tf.is_tf(base, "Module") or (isinstance(base, cst.Name) and base.value in found):
                    found.add(name)
                    changed = True
                    break
    return found


def _is_layer_class(path: str) -> bool:
    last = path.rsplit(".", 1)[-1]
    return path.startswith("layers.") and path not in NOT_LAYERS and last[:1].isupper()


def builds_keras_object(value: Optional[cst.BaseExpression], tf: TFNames, classes: set[str]) -> bool:
    """Whether ``value`` is a call that builds a Keras model or layer, or a tf.Module."""
    if not isinstance(value, cst.Call):
        return False
    func = value.func
    path = tf.keras_path(func)
    if path is not None and (path in KERAS_MODEL_CALLS or _is_layer_class(path)):
        return True
    if tf.is_tf(func, "Module"):
        return True
    return isinstance(func, cst.Name) and func.value in classes and not tf.qualify(func)


def provably_keras(
    expr: cst.BaseExpression,
    module: cst.Module,
    tf: TFNames,
    scopes: Scopes,
    parents: Parents,
    classes: set[str],
) -> bool:
    """Whether every binding of ``expr`` (a name or ``a.b``) builds a Keras object."""
    if isinstance(expr, cst.Name):
        found = bindings(expr, scopes, parents)
    else:
        dotted = dotted_name(expr)
        if dotted is None:
            return False
        found = attribute_bindings(module, dotted)
    return bool(found) and all(b.kind == "assign" and builds_keras_object(b.value, tf, classes) for b in found)


def plain_classes_owning(module: cst.Module, keras: set[str], members: tuple[str, ...]) -> set[str]:
    """Names of the file's plain classes (no base, ``object``, or another such class: not Keras,
    not ``tf.Module``; ``keras`` is what ``keras_classes`` found) that define one of ``members``
    themselves, as a method or as an attribute set on ``self``."""
    found: dict[str, cst.ClassDef] = {}
    for node in walk(module, code_only=True):
        if isinstance(node, cst.ClassDef) and node.name.value not in keras:
            found[node.name.value] = node
    plain: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, cls in found.items():
            bases = [a.value for a in cls.bases]
            if (
                name not in plain
                and not cls.keywords
                and all(isinstance(b, cst.Name) and (b.value == "object" or b.value in plain) for b in bases)
            ):
                plain.add(name)
                changed = True
    return {name for name in plain if _defines_member(found[name], members)}


def _defines_member(cls: cst.ClassDef, members: tuple[str, ...]) -> bool:
    for node in walk(cls.body, code_only=True):
        if isinstance(node, cst.FunctionDef) and node.name.value in members:
            return True
        if (
            isinstance(node, cst.Attribute)
            and node.attr.value in members
            and isinstance(node.value, cst.Name)
            and node.value.value == "self"
        ):
            return True
    return False


def may_be_plain_instance(owner: cst.BaseExpression, module: cst.Module, plain: set[str], scopes, parents) -> bool:
    """Whether ``owner`` may hold an instance of one of the ``plain`` classes: one of its
    bindings makes one, or it is bound only as a parameter (the file can hand it one)."""
    if not plain:
        return False
    if isinstance(owner, cst.Name):
        found = bindings(owner, scopes, parents)
    else:
        dotted = dotted_name(owner)
        found = attribute_bindings(module, dotted) if dotted is not None else []
    makes_one = any(
        b.kind == "assign"
        and isinstance(b.value, cst.Call)
        and isinstance(b.value.func, cst.Name)
        and b.value.func.value in plain
        for b in found
    )
    return makes_one or (bool(found) and all(b.kind == "param" for b in found))
