"""What TF object a name of a module holds, when its binding says: a dataset, a variable.

A TF1 name (``tf.Session``) is seen by its path; a TF1 *member* (``dataset.output_types``,
``dataset.make_one_shot_iterator()``) is not: it is an attribute of an object, and only the
object's TF type says whether TF 2.x has it. This reads the types the code shows: a name bound
(everywhere in the module, flow-insensitively, by plain ``name = value`` statements) to a dataset
made by ``tf.data`` (``Dataset.from_tensor_slices``, ``TFRecordDataset``, ...) or chained from one
(``ds.shuffle(100).batch(32)``), or to a ``tf.Variable``. A name bound to anything else anywhere
(a parameter, a loop target, two kinds of value) has no known type. An object made through
``tensorflow.compat.v1`` is TF1's and has every TF1 member: it has no kind here.
"""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from tfmodernize.analysis.tf1_api import DATASET_CHAIN, V1_ONLY_MEMBERS
from tfmodernize.names import names_bound_here
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import walk

#: What ``tf.Module`` defines itself (its public members and the private names its methods
#: read): an attribute of that name set on a module object hides or breaks it.
TF_MODULE_MEMBERS = frozenset(
    {
        "name",
        "name_scope",
        "variables",
        "trainable_variables",
        "non_trainable_variables",
        "submodules",
        "with_name_scope",
        "_name",
        "_name_scope",
        "_scope_name",
        "_flatten",
    }
)

#: Every member name of ``V1_ONLY_MEMBERS``: a cheap first test on an attribute.
MEMBER_NAMES = frozenset(member for members in V1_ONLY_MEMBERS.values() for member in members)
#: The same, looked for in a file's text before it is parsed.
MEMBER_TEXT = re.compile(r"\.(?:" + "|".join(sorted(MEMBER_NAMES)) + r")\b")


def kind_of(expr: cst.BaseExpression, names: TFNames, known: dict[str, Optional[str]]) -> Optional[str]:
    """``dataset`` or ``variable`` when ``expr`` makes (or names, through ``known``) one, else None."""
    if isinstance(expr, cst.Name):
        return known.get(expr.value)
    if not isinstance(expr, cst.Call):
        return None
    symbol = names.tf_symbol(expr.func)
    if symbol is not None and symbol.v1:
        return None  # made through ``tensorflow.compat.v1``: the TF1 object, which has its members
    if symbol is not None:
        if symbol.path == "Variable":
            return "variable"
        if symbol.path.startswith("data.") and "Dataset" in symbol.path and symbol.path.rsplit(".", 1)[-1] != "options":
            return "dataset"
        return None
    if isinstance(expr.func, cst.Attribute) and expr.func.attr.value in DATASET_CHAIN:
        return "dataset" if kind_of(expr.func.value, names, known) == "dataset" else None
    return None


def object_kinds(module: cst.Module, names: TFNames) -> dict[str, str]:
    """Name -> ``dataset`` / ``variable`` for the names every binding of which makes one."""
    bindings: dict[str, list[Optional[cst.BaseExpression]]] = {}
    read: set[int] = set()  # the targets of ``name = value`` statements, recorded with their value
    for node in walk(module, code_only=True):
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            bindings.setdefault(node.targets[0].target.value, []).append(node.value)
            read.add(id(node.targets[0]))
        elif isinstance(node, cst.Param):
            bindings.setdefault(node.name.value, []).append(None)
        elif id(node) not in read:
            for name in names_bound_here(node):
                bindings.setdefault(name, []).append(None)
    # Optimistic first (a name takes the kind one of its values makes by itself), then every name
    # whose values do not all make that kind loses it, until nothing changes: chains through
    # names (``ds = ds.batch(2)``) keep their kind, anything else bound to the name loses it.
    known: dict[str, Optional[str]] = {}
    for name, values in bindings.items():
        known[name] = next(
            (kind for v in values if v is not None and (kind := kind_of(v, names, {})) is not None), None
        )
    changed = True
    while changed:
        changed = False
        for name, values in bindings.items():
            if known[name] is not None and any(v is None or kind_of(v, names, known) != known[name] for v in values):
                known[name], changed = None, True
    return {name: kind for name, kind in known.items() if kind is not None}


def v1_only_members(module: cst.Module, names: TFNames) -> list[tuple[cst.Attribute, str]]:
    """Each use of a member only the TF1 kind of its object has (``V1_ONLY_MEMBERS``), in source
    order: ``(node, "dataset.make_one_shot_iterator")``."""
    kinds = object_kinds(module, names)
    found = []
    for node in walk(module, code_only=True):
        if isinstance(node, cst.Attribute):
            kind = kind_of(node.value, names, kinds)
            if kind is not None and node.attr.value in V1_ONLY_MEMBERS[kind]:
                found.append((node, f"{kind}.{node.attr.value}"))
    return found
