"""Python names a piece of code reads and binds: one helper for each question, for every codemod.

By syntax only (no scope analysis): a name read is a ``Name`` used as a variable, not the
attribute after a dot nor a keyword of a call; a name bound is one an assignment, augmented or
annotated assignment, ``for`` target, comprehension target, ``with ... as``/``except ... as``/
``import ... as`` name, ``:=`` target, ``global`` or ``nonlocal`` declaration binds.
"""

from __future__ import annotations

import keyword
import re
from typing import Iterator, Optional, Sequence

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


#: Words a function's name may start with before what it makes (``add_layer``).
VERBS = frozenset("add build make create get define compute construct new".split())
#: The parameters naming the scope a call makes its variables under (``name="hidden"``).
SCOPE_PARAMETERS = frozenset({"name", "scope", "scope_name", "layer_name"})


def object_names(
    name: str,
    lines: list[cst.SimpleStatementLine],
    taken: set[str],
    labels: Optional[list[Optional[str]]] = None,
) -> list[str]:
    """The object each call of the function ``name`` makes: the function's name for one call;
    for several, the name the call gives its scope (``labels``, ``scope_string``: ``"hidden"`` ->
    ``hidden_layer``), else the name its line binds first (``object_name``), or numbered
    (``add_layer_1``) when a call has neither or the names clash. ``lines``: the statement of
    each call. The names returned are marked taken."""
    if len(lines) == 1:
        return [name]
    labels = labels or [None] * len(lines)
    by_label = [object_name(name, line, label) or "" for line, label in zip(lines, labels)]
    by_target = [object_name(name, line) or "" for line in lines]
    # The scope's name where every call gives one and none is taken (``name="layer1"`` beside
    # ``layer1 = ...`` is), else the names the calls bind.
    for wanted in (by_label, by_target):
        if all(wanted) and len(set(wanted)) == len(wanted) and not set(wanted) & taken:
            taken.update(wanted)
            return wanted
    return [fresh_name(f"{name}_{n}", taken) for n in range(1, len(lines) + 1)]


def object_name(name: str, line: cst.BaseStatement, label: Optional[str] = None) -> Optional[str]:
    """The name of the object one of several calls of the function (or layer) ``name`` makes,
    ``line`` holding the call, taken or not: after the scope string it passes (``label``:
    ``"hidden"`` -> ``hidden_layer``, ``"output_layer"`` stays), else after the first name the
    line binds and what the function makes (``h = add_layer(...)`` -> ``h_layer``,
    ``logits = tf.layers.dense(...)`` -> ``logits_dense``; ``layer1_module`` when the name says
    it already: ``layer1 = new_conv_layer(...)``); None when the call has neither."""
    parts = name.split("_")
    while len(parts) > 1 and parts[0].lower() in VERBS:
        parts = parts[1:]
    made = parts[-1].lower().removesuffix("s")
    if label is not None:
        return label if made in _words(label) else f"{label}_{made}"
    bound = first_target(line)
    if bound is None:
        return None
    if made in _words(bound):
        return f"{bound}_module"  # not ``layer1_conv_layer``
    return f"{bound}_{'_'.join(parts)}"


def _words(name: str) -> set[str]:
    """The words of a snake_case name, without their numbers or plural ``s`` (``layer1_out`` ->
    layer, out; ``scores`` -> score)."""
    return {word.rstrip("0123456789").lower().removesuffix("s") for word in name.split("_")}


def scope_label(call: cst.Call, function: cst.FunctionDef) -> Optional[str]:
    """The name a call of ``function`` gives its variables' scope, as a Python name: a string
    literal passed as a parameter named ``name`` or ``scope`` (``scope_string``)."""
    parameters = [p.name.value for p in function.params.params]
    for position, arg in enumerate(call.args):
        if arg.star:
            return None
        parameter = (
            arg.keyword.value
            if arg.keyword is not None
            else (parameters[position] if position < len(parameters) else None)
        )
        if parameter in SCOPE_PARAMETERS and isinstance(arg.value, cst.SimpleString):
            return scope_string(arg.value)
    return None


def scope_string(value: cst.BaseExpression) -> Optional[str]:
    """A scope's name passed as a string literal, as a Python name (``"Hidden layer"`` ->
    ``hidden_layer``); None for any other expression or a string making no name."""
    text = value.evaluated_value if isinstance(value, cst.SimpleString) else None
    label = re.sub(r"[^0-9a-zA-Z]+", "_", text if isinstance(text, str) else "").strip("_").lower()
    if label and label.isidentifier() and not keyword.iskeyword(label):
        return label
    return None


def first_target(line: cst.BaseStatement) -> Optional[str]:
    """The first name ``line`` binds: ``hidden`` of ``hidden = ...`` or ``hidden, state = ...``."""
    assign = line.body[0] if isinstance(line, cst.SimpleStatementLine) else None
    if not isinstance(assign, cst.Assign):
        return None
    target = assign.targets[0].target
    if isinstance(target, (cst.Tuple, cst.List)) and target.elements:
        target = target.elements[0].value
    return target.value if isinstance(target, cst.Name) else None


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
