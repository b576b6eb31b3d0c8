"""What Keras object an expression of a file is known to be (``metric``, ``optimizer``,
``model``, ``layer``, or ``tf_keras`` for Keras 2 kept as a package), read once per file
(``KerasObjects``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Optional

import libcst as cst

from tfmodernize.codemods.tf2.keras3_renames.tables import ctor_kind
from tfmodernize.tfsymbols import TFNames, dotted_name
from tfmodernize.treewalk import walk


@dataclass(frozen=True)
class KerasObjects:
    """The Keras classes a file defines and the names (or ``self.attr``) only ever bound to one
    kind of Keras object, by kind."""

    names: TFNames
    #: class name -> the kind of Keras object its instances are
    classes: Mapping[str, str]
    #: name or ``self.attr`` -> kind
    bindings: Mapping[str, str]

    @classmethod
    def read(cls, module: cst.Module, names: TFNames) -> KerasObjects:
        classes = _keras_classes(module, names)
        return cls(names, classes, _bindings(module, names, classes))

    def is_tf_keras(self, node: cst.CSTNode) -> bool:
        return is_tf_keras(node, self.names)

    def value_kind(self, value: cst.BaseExpression) -> Optional[str]:
        return _value_kind(value, self.names, self.classes)

    def kind(self, expr: cst.BaseExpression, current: Optional[str]) -> Optional[str]:
        """What Keras object ``expr`` is known to be, if any; ``current``: the kind of the class
        whose body holds it (``self``, ``super()``)."""
        if isinstance(expr, cst.Name) and expr.value == "self":
            return current
        if isinstance(expr, cst.Call):
            if isinstance(expr.func, cst.Name) and expr.func.value == "super" and not expr.args:
                return current
            return self.value_kind(expr)
        if isinstance(expr, cst.Attribute) and expr.attr.value == "optimizer":
            owner = self.kind(expr.value, current)
            return {"model": "optimizer", "tf_keras": "tf_keras"}.get(owner or "")
        key = dotted_name(expr)
        return self.bindings.get(key) if key is not None else None


def is_tf_keras(node: cst.CSTNode, names: TFNames) -> bool:
    """Whether ``node`` names something of ``tf_keras`` (Keras 2 kept as a package)."""
    return (names.qualify(node) or "").startswith("tf_keras")


def _keras_classes(module: cst.Module, names: TFNames) -> dict[str, str]:
    """Class name -> kind, for the classes of the file deriving from a Keras class (through
    others of the file, too)."""
    kinds: dict[str, str] = {}
    classes = [n for n in walk(module, code_only=True) if type(n) is cst.ClassDef]
    changed = True
    while changed:
        changed = False
        for cls in classes:
            if cls.name.value in kinds:
                continue
            for base in cls.bases:
                kind = None
                if isinstance(base.value, cst.Name) and base.value.value in kinds:
                    kind = kinds[base.value.value]
                elif not is_tf_keras(base.value, names):
                    kind = ctor_kind(names.keras_path(base.value))
                if kind is not None:
                    kinds[cls.name.value] = kind
                    changed = True
                    break
    return kinds


def _value_kind(
    value: cst.BaseExpression,
    names: TFNames,
    classes: Mapping[str, str],
) -> Optional[str]:
    if not isinstance(value, cst.Call):
        return None
    if isinstance(value.func, cst.Name) and value.func.value in classes:
        return classes[value.func.value]
    if is_tf_keras(value.func, names):
        return "tf_keras" if ctor_kind(names.keras_path(value.func)) else None
    return ctor_kind(names.keras_path(value.func))


def _bindings(module: cst.Module, names: TFNames, classes: Mapping[str, str]) -> dict[str, str]:
    """Name or ``self.attr`` -> kind, for names only ever bound to one kind of Keras object."""
    seen: dict[str, set[Optional[str]]] = {}
    for node in walk(module, code_only=True):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                key = dotted_name(target.target)
                if key is not None:
                    seen.setdefault(key, set()).add(_value_kind(node.value, names, classes))
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign, cst.For, cst.NamedExpr, cst.AsName)):
            target = node.name if isinstance(node, cst.AsName) else node.target
            key = dotted_name(target)
            if key is not None:
                seen.setdefault(key, set()).add(None)
        elif isinstance(node, cst.Param):
            seen.setdefault(node.name.value, set()).add(None)
    return {key: next(iter(kinds)) for key, kinds in seen.items() if len(kinds) == 1 and None not in kinds}
