"""Python names a piece of code reads and binds: one helper for each question, for every codemod.

By syntax only (no scope analysis): a name read is a ``Name`` used as a variable, not the
attribute after a dot nor a keyword of a call; a name bound is one an assignment, augmented or
annotated assignment, ``for`` target, comprehension target, ``with ... as``/``except ... as``/
``import ... as`` name, ``:=`` target, ``global`` or ``nonlocal`` declaration binds.
"""

from __future__ import annotations

from typing import Iterator, Sequence

import libcst as cst

from tfmodernize.tfsymbols import root_name
from tfmodernize.treewalk import children, walk

_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)


def name_nodes(node: cst.CSTNode, *, nested: bool = True, imports: bool = True) -> Iterator[cst.Name]:
    """The ``Name`` nodes under ``node`` used as variables; ``nested=False`` leaves out the
    bodies of functions, lambdas and classes defined inside ``node``, ``imports=False`` the
    names in import statements."""
    stack = [node]
    while stack:
        current = stack.pop()
        kind = type(current)  # the node types asked about have no subclasses: ``is`` is exact
        if not nested and current is not node and kind in _SCOPES:
            continue
        if not imports and (kind is cst.Import or kind is cst.ImportFrom):
            continue
        if kind is cst.Name:
            yield current
        elif kind is cst.Attribute or kind is cst.Arg:
            stack.append(current.value)
        else:
            stack.extend(children(current, code_only=True))


def names_read(node: cst.CSTNode) -> set[str]:
    """The names ``node`` mentions as variables (bound ones included: ``x`` in ``x = 1``)."""
    return {name.value for name in name_nodes(node)}


def target_name_nodes(target: cst.CSTNode) -> list[cst.Name]:
    """The ``Name`` nodes an assignment target binds: ``a``, ``a, (b, *c)``; none for ``a.b`` or ``a[i]``."""
    if isinstance(target, cst.Name):
        return [target]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in target_name_nodes(element.value)]
    if isinstance(target, cst.StarredElement):
        return target_name_nodes(target.value)
    return []


def target_names(target: cst.CSTNode) -> set[str]:
    """The names an assignment target binds (``target_name_nodes``)."""
    return {name.value for name in target_name_nodes(target)}


#: The node types that bind names themselves (``names_bound_here``): one set lookup rules out
#: every other node, which is most of what the walks calling it see.
_BINDERS = frozenset(
    {
        cst.AssignTarget,
        cst.AugAssign,
        cst.AnnAssign,
        cst.For,
        cst.CompFor,
        cst.NamedExpr,
        cst.AsName,
        cst.Global,
        cst.Nonlocal,
    }
)


def names_bound_here(node: cst.CSTNode) -> set[str]:
    """The names ``node`` itself binds (an ``AssignTarget``, a ``For``, an ``AsName``, ...),
    not those of the statements inside it."""
    if type(node) not in _BINDERS:
        return set()
    if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor, cst.NamedExpr)):
        return target_names(node.target)
    if isinstance(node, cst.AsName):
        return target_names(node.name)
    if isinstance(node, (cst.Global, cst.Nonlocal)):
        return {item.name.value for item in node.names}
    return set()


def bound_names(node: cst.CSTNode) -> set[str]:
    """Every name bound anywhere inside ``node`` (see ``names_bound_here``)."""
    found: set[str] = set()
    for child in walk(node, code_only=True):
        found |= names_bound_here(child)
    return found


def own_nodes(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The code nodes under ``node`` that are not inside a def, lambda or class nested in it
    (those nested definitions themselves come, their insides do not)."""
    stack = list(reversed(children(node, code_only=True)))
    while stack:
        child = stack.pop()
        yield child
        if not isinstance(child, _SCOPES):
            stack.extend(reversed(children(child, code_only=True)))


def parameter_names(function: "cst.FunctionDef | cst.Lambda") -> list[str]:
    """The names of a function's parameters, in order (``*args`` and ``**kwargs`` included)."""
    params = function.params
    every = [*params.posonly_params, *params.params]
    if isinstance(params.star_arg, cst.Param):
        every.append(params.star_arg)
    every += [*params.kwonly_params, *([params.star_kwarg] if params.star_kwarg is not None else [])]
    return [param.name.value for param in every]


def plain_parameters(function: "cst.FunctionDef | cst.Lambda") -> bool:
    """Whether a function takes only plain parameters: no ``*args``, ``**kwargs``,
    keyword-only or positional-only ones."""
    params = function.params
    return not (
        params.star_arg is not cst.MaybeSentinel.DEFAULT
        or params.kwonly_params
        or params.star_kwarg
        or params.posonly_params
    )


def local_names(function: "cst.FunctionDef | cst.Lambda", *, augmented: bool = True) -> set[str]:
    """The names a function's own body binds and so makes local (its parameters not included;
    names it declares ``global`` or ``nonlocal`` are not local). ``augmented=False`` leaves out
    names only ``x += ...`` binds: to a reader of what code mutates, that updates ``x``."""
    bound: set[str] = set()
    declared: set[str] = set()
    for node in own_nodes(function.body):
        if isinstance(node, (cst.Global, cst.Nonlocal)):
            declared |= names_bound_here(node)
        elif augmented or not isinstance(node, cst.AugAssign):
            bound |= names_bound_here(node)
    return bound - declared


class WholeNames:
    """A visitor's bookkeeping of whole dotted names (a mixin for a ``visit``/``dispatch``
    visitor): the ``Name``/``Attribute`` nodes that are parts of a larger dotted name, or a
    call's keyword, are marked inner as the walk goes down, so that a ``leave_`` hook reads each
    whole name once (``tf.nn.relu``, not ``tf.nn`` and ``tf`` again): ``leave_whole_name``. The
    class sets ``self._inner = set()`` before each walk."""

    _inner: set[int]

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        self._inner.add(id(node.value))
        self._inner.add(id(node.attr))
        return True

    def visit_Arg(self, node: cst.Arg) -> bool:
        if node.keyword is not None:
            self._inner.add(id(node.keyword))
        return True

    def is_whole(self, node: cst.CSTNode) -> bool:
        """Whether ``node`` is not inside a larger dotted name nor a keyword."""
        return id(node) not in self._inner

    def leave_Attribute(self, original: cst.Attribute) -> None:
        if id(original) not in self._inner:
            self.leave_whole_name(original)

    def leave_Name(self, original: cst.Name) -> None:
        if id(original) not in self._inner:
            self.leave_whole_name(original)

    def leave_whole_name(self, node: "cst.Attribute | cst.Name") -> None:
        """Called once for each whole name, as the walk leaves it; the class's own hook."""


def used_names(module: cst.Module) -> set[str]:
    """Every identifier in the module, to pick names that clash with nothing."""
    return {node.value for node in walk(module, code_only=True) if type(node) is cst.Name}


def fresh_name(base: str, taken: set[str]) -> str:
    """``base``, or ``base_2``, ``base_3``... whichever is not taken; marks it taken."""
    name, counter = base, 1
    while name in taken:
        counter += 1
        name = f"{base}_{counter}"
    taken.add(name)
    return name


def module_bindings(module: cst.Module) -> set[str]:
    """Names bound by module-level statements (functions' insides excluded)."""
    bound: set[str] = set()
    for statement in module.body:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            bound.add(statement.name.value)
        elif isinstance(statement, (cst.Import, cst.ImportFrom)) or (
            isinstance(statement, cst.SimpleStatementLine)
            and any(isinstance(s, (cst.Import, cst.ImportFrom)) for s in statement.body)
        ):
            for small in getattr(statement, "body", []):
                names = getattr(small, "names", ())
                for alias in names if not isinstance(names, cst.ImportStar) else ():
                    if isinstance(alias, cst.ImportAlias):
                        local = alias.asname.name if alias.asname else alias.name
                        bound.add(root.value if (root := root_name(local)) else "")
        else:
            bound.update(bound_names(statement))
    return bound


def binds(statements: Sequence[cst.CSTNode], name: str) -> bool:
    """Whether any of ``statements`` binds ``name``."""
    return any(name in bound_names(statement) for statement in statements)
