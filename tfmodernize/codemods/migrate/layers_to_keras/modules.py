"""Network functions of a project module, for layers-to-keras: the function becomes a Keras
layer class (``tf.keras.layers.Layer``: its layers made once in ``__init__``, applied in
``call``), and the files of the run that called it make one object per call site and call that.
A Keras layer, not a ``tf.Module``: a ``tf.Module`` does not list the variables of the Keras 3
layers it holds, so its ``trainable_variables`` would miss them.

A network function in a model module (``def RNN(x, weights, biases, num_hidden)`` in
``ops.py``) is called by the training script, with values only the script knows
(``num_hidden_units``): its layers cannot be made at the module's top level. The parameters the
layers' constructor arguments read go to ``__init__``; the others stay with ``call``; a
parameter read by both is kept on the object (``self.n_hidden``). What the split needs the
callers to do is exported (``FileState.exports``) under this codemod's code, and read back by
the callers' run from the module's summary: ``{"classes": {function: {"class", "parameters",
"init"}}}``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Mapping, Optional, Sequence

import libcst as cst

from tfmodernize.codemod import Decline
from tfmodernize.layout import fitted
from tfmodernize.names import bound_names, local_names, name_nodes, parameter_names, plain_parameters
from tfmodernize.analysis.tf_objects import TF_MODULE_MEMBERS
from tfmodernize.syntax import commas, no_space_equal, source
from tfmodernize.treewalk import walk

#: Attributes of ``tf.Module`` and Keras layers a parameter kept on the object may not take.
RESERVED = TF_MODULE_MEMBERS | frozenset(
    {
        "weights",
        "trainable_weights",
        "non_trainable_weights",
        "trainable",
        "dtype",
        "built",
        "input",
        "output",
        "losses",
        "updates",
        "call",
        "build",
        "layers",
    }
)

#: A reserved parameter kept on the object under another attribute: the name of the scope a
#: network function makes its variables under (``tf.variable_scope(name)``) -> ``self.scope_name``
#: (``tf.Module.name`` is the module's own, read-only).
RENAMED = MappingProxyType({"name": "scope_name"})

#: This codemod's code, under which the split is exported and read back (``LayersToKeras.code``).
EXPORTS = "TFM107"


@dataclass(frozen=True)
class Split:
    """A network function becoming a class: its parameters in order, those ``__init__`` takes,
    and those of them the body reads too (kept on the object)."""

    function: str
    class_name: str
    parameters: tuple[str, ...]
    init: tuple[str, ...]
    stored: tuple[str, ...]

    #: The parameter sharing the variables (``reuse``), left out of ``parameters``, and its position.
    reuse: Optional[str] = None
    reuse_position: int = 0
    #: Arguments of ``__init__`` that are dimensions of an input (``in_dim`` of ``x.get_shape()[1]``):
    #: name -> (the parameter, the axis); each caller passes the dimension of what it gives.
    derived: tuple[tuple[str, str, int], ...] = ()
    #: What the callers know of the results' shapes: (index in the returned tuple, or None for
    #: the one result; the parameter whose argument is its last dimension; the parameter whose
    #: argument's rank it has).
    widths: tuple[tuple[Optional[int], str, str], ...] = ()
    #: The results that are one of the object's variables: (index, or None; its attribute).
    variables: tuple[tuple[Optional[int], str], ...] = ()
    #: Whether TF1 made moving statistics the class does not (a batch normalisation always in
    #: training mode): a calling file must not read them.
    statistics: bool = False
    #: Whether the object makes its variables on its first call (``build``), from the dimensions
    #: of that call's input (``derived``), because a caller does not know them ahead.
    lazy: bool = False
    #: The parameters kept on the object under another attribute (``RENAMED``): (parameter, attribute).
    renamed: tuple[tuple[str, str], ...] = ()

    def attribute(self, parameter: str) -> str:
        """The attribute of the object a parameter kept on it is stored in."""
        return dict(self.renamed).get(parameter, parameter)

    def export(self) -> dict[str, Any]:
        exported = {
            "class": self.class_name,
            "parameters": list(self.parameters),
            "init": list(self.init),
            "reuse": self.reuse,
            "reuse_position": self.reuse_position,
            "derived": {name: [parameter, axis] for name, parameter, axis in self.derived},
            "widths": [list(width) for width in self.widths],
            "variables": [list(variable) for variable in self.variables],
        }
        if self.lazy:
            exported = {**exported, "derived": {}, "lazy": True}
        return {**exported, "statistics": True} if self.statistics else exported


def callers_allow_split(function: cst.FunctionDef, uses: Optional[list[dict]]) -> Optional[str]:
    """Why the function's callers in the other files of the run cannot follow a split (None:
    they can): each use must be a call by name in a program's top-level code, outside any block,
    or in a function the program calls once (``main()``), outside its loops (each becomes one
    object, made there, or before that function). ``uses`` None: no file of the run imports the module."""
    name = function.name.value
    if uses is None:
        return f"`{name}` is called nowhere in this run (no file of the run imports its module)"
    for use in uses:
        if not (use["call"] and (use["top_level"] or use.get("unit"))):
            return (
                f"`{name}` is used by {use['file']} (line {use['line']}) other than called in its top-level "
                "code, outside any block, or in a function it calls once, outside loops"
            )
        if any(keyword in ("*", "**") for keyword, _ in use.get("arguments", ())):
            return f"`{name}` is called by {use['file']} (line {use['line']}) with `*args` or `**kwargs`"
    return None


def callers_know_widths(
    function: cst.FunctionDef, uses: list[dict], derived: tuple[tuple[str, str, int], ...], networks: set[str]
) -> bool:
    """Whether each call of the other files of the run passes, for the parameters whose
    dimensions the variables are made from (``Split.derived``), a name whose dimension the
    calling file knows ahead (the project pre-pass's ``shapes``: a placeholder declared with that
    dimension written out, or a result of one of this module's ``networks``, whose class
    exports its width); when one does not (a pooling's result, a reshape's), the object makes
    its variables on its first call instead (``Split.lazy``)."""
    parameters = parameter_names(function)
    for use in uses:
        if "shapes" not in use:
            continue  # (not read: taken as known, as the calling file checks itself)
        passed: dict[str, Any] = {}
        for index, ((keyword, _), shape) in enumerate(zip(use.get("arguments", ()), use.get("shapes", ()))):
            if keyword is None and index < len(parameters):
                passed[parameters[index]] = shape
            elif keyword is not None:
                passed[keyword] = shape
        for _, parameter, axis in derived:
            shape = passed.get(parameter)
            if shape is None:
                return False
            if shape[0] == "result":
                if shape[1] not in networks:
                    return False
                continue
            dimensions = shape[1]
            at = axis + len(dimensions) if axis < 0 else axis
            if not (0 <= at < len(dimensions) and dimensions[at]):
                return False
    return True


def callers_share(function: cst.FunctionDef, uses: list[dict], reuse: str, position: int) -> Optional[str]:
    """Why the calls of the other files of the run could not follow a function sharing its
    variables through its ``reuse`` parameter (at ``position``) becoming a class (None: they
    can): each call passes ``reuse`` as ``True`` or ``False`` written out, or not at all, and in
    each file the first call does not share (it makes the object the sharing calls call)."""
    name, seen = function.name.value, set()
    for use in uses:  # in file and line order
        positional = [literal for keyword, literal in use["arguments"] if keyword is None]
        passed = next(
            (literal for keyword, literal in use["arguments"] if keyword == reuse),
            positional[position] if position < len(positional) else "False",
        )
        if passed not in ("True", "False"):
            return (
                f"`{name}` is called by {use['file']} (line {use['line']}) with `{reuse}` not True or False written out"
            )
        if passed == "True" and use["file"] not in seen:
            return (
                f"`{name}` is called by {use['file']} (line {use['line']}) sharing the variables (`{reuse}=True`) "
                "of no call before it"
            )
        seen.add(use["file"])
    return None


def split_of(
    function: cst.FunctionDef,
    constructors: list[cst.BaseExpression],
    removed: list[cst.CSTNode],
    taken: set[str],
    derived: Mapping[str, tuple[str, int]] = MappingProxyType({}),
    lazy: bool = False,
) -> Split:
    """How ``function`` splits, given its layers' constructor arguments, the lines the
    migration removes from it (an RNN's cell lines, constants read only where the layers are
    made) and the dimensions of its inputs they read (``derived``: ``__init__`` takes them,
    before the parameter they are read from; ``lazy``: ``build`` reads them from its first call's
    input instead, and ``__init__`` keeps every parameter it takes on the object); declines what
    cannot be split."""
    if not plain_parameters(function):
        raise Decline(function, f"`{function.name.value}` takes `*args`, `**kwargs` or keyword-only parameters")
    if function.decorators or any(isinstance(n, (cst.Yield, cst.Global, cst.Nonlocal)) for n in walk(function.body)):
        raise Decline(function, f"`{function.name.value}` is decorated, a generator, or rebinds globals")
    parameters = tuple(parameter_names(function))
    inside = {id(n) for expression in constructors for n in walk(expression)}
    read = {n.value for expression in constructors for n in name_nodes(expression)}
    local = local_names(function) - set(parameters) - set(derived)
    if read & local:
        raise Decline(
            function,
            f"a layer's constructor argument reads `{sorted(read & local)[0]}`, which "
            f"`{function.name.value}` computes: the layer cannot be made once, before it runs",
        )
    skipped = inside | {id(n) for line in removed for n in walk(line)}
    init = tuple(
        name
        for p in parameters
        for name in (
            *(d for d, (source_parameter, _) in derived.items() if source_parameter == p and d in read and not lazy),
            *((p,) if p in read else ()),
        )
    )
    elsewhere = {n.value for n in name_nodes(function.body) if id(n) not in skipped}
    rebound = _rebound(function) - set(derived)
    if set(init) & rebound:
        raise Decline(
            function,
            f"`{function.name.value}` binds `{sorted(set(init) & rebound)[0]}` again, "
            "a parameter its layers are made with",
        )
    stored = tuple(p for p in init if p in elsewhere or lazy)
    renamed = tuple(
        (p, RENAMED[p])
        for p in stored
        if p in RENAMED and RENAMED[p] not in set(parameters) | local_names(function) | RESERVED
    )
    clashing = sorted(set(stored) & RESERVED - {p for p, _ in renamed})
    if clashing:
        raise Decline(
            function,
            f"`{clashing[0]}`, a parameter `{function.name.value}` would keep on its object, is an "
            "attribute of Keras layers and tf.Module objects",
        )
    name = class_name(function.name.value)
    if name != function.name.value and name in taken:
        raise Decline(function, f"`{name}`, the class `{function.name.value}` would become, is a name already taken")
    return Split(
        function.name.value,
        name,
        parameters,
        init,
        stored,
        derived=tuple((d, p, axis) for d, (p, axis) in derived.items() if d in read),
        lazy=lazy,
        renamed=renamed,
    )


def _rebound(function: cst.FunctionDef) -> set[str]:
    """Names the function's body binds anywhere (``bound_names``: assignment, loop,
    comprehension and ``with`` targets), and the parameters and names of what it defines inside
    (a parameter kept on the object is read as ``self.name``, which would be wrong where the name
    means something else)."""
    found = bound_names(function.body)
    for node in walk(function.body):
        if isinstance(node, (cst.FunctionDef, cst.Lambda)):
            found |= set(parameter_names(node))
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            found.add(node.name.value)
    return found


def class_name(function: str) -> str:
    """``RNN`` stays ``RNN``; ``fc_layer`` becomes ``FcLayer``."""
    if function[:1].isupper():
        return function
    return "".join(part[:1].upper() + part[1:] for part in function.split("_") if part) or function


def instance_name(function: str) -> str:
    """The object a caller makes: ``RNN`` -> ``rnn``, ``FcLayer`` -> ``fc_layer``."""
    if function.isupper():
        return function.lower()
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", function).lower()


def stored_reads(function: cst.FunctionDef, split: Split, constructors: list[cst.BaseExpression]) -> list[cst.Name]:
    """The reads, in the body, of the parameters kept on the object (``self.n_hidden``)."""
    inside = {id(n) for expression in constructors for n in walk(expression)}
    return [n for n in name_nodes(function.body) if n.value in split.stored and id(n) not in inside]


#: The docstring of a layer class's ``build`` doing nothing (``module_class``).
BUILD_DOCSTRING = (
    '"""Nothing to build ahead: each layer makes its weights on its first call,\n'
    '        drawing them in the order TF1 did."""'
)


def module_class(
    updated: cst.FunctionDef,
    split: Split,
    created: list[tuple[str, cst.BaseExpression]],
    base: cst.BaseExpression,
    method: str = "call",
    scoped: Sequence[Optional[cst.With]] = (),
    width: Optional[int] = None,
    builds_on_call: bool = False,
) -> cst.ClassDef:
    """The class replacing the (rewritten) function: ``__init__`` makes the layers or variables
    (and keeps the stored parameters), ``method`` (a Keras layer's ``call``, a ``tf.Module``'s
    ``__call__``) is the function's body. ``scoped``: for each of ``created``, the empty ``with``
    block to make it in (``with tf.name_scope(name):``, so that a variable a helper names
    without its scope gets TF1's full name), or None; consecutive ones share a block.
    ``width``: the one the lines made outside such blocks are wrapped to. ``builds_on_call``:
    a ``build`` doing nothing, so that Keras builds each layer on its first call, where TF1
    drew its initial values, rather than tracing ``call`` first to build them (a trace that
    draws the initial values once more, ahead of the real ones)."""

    def param(name: str) -> cst.Param:
        found = next((p for p in updated.params.params if p.name.value == name), cst.Param(cst.Name(name)))
        return found.with_changes(comma=cst.MaybeSentinel.DEFAULT)

    def attribute(name: str) -> cst.Attribute:
        return cst.Attribute(cst.Name("self"), cst.Name(name))

    me = cst.Param(cst.Name("self"))
    body = list(updated.body.body)
    docstring = []
    if (
        body
        and isinstance(body[0], cst.SimpleStatementLine)
        and isinstance(body[0].body[0], cst.Expr)
        and isinstance(body[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    ):
        docstring, body = [body[0]], body[1:]
    init_body: list[cst.BaseStatement] = [
        cst.SimpleStatementLine([cst.Expr(cst.parse_expression("super().__init__()"))])
    ]
    init_body += [
        cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(attribute(split.attribute(p)))], cst.Name(p))])
        for p in split.stored
    ]
    making: list[cst.BaseStatement] = []
    for index, (name, call) in enumerate(created):
        if split.lazy:  # ``build`` reads what ``__init__`` takes from the object
            call = _on_the_object(call, split)
            block = scoped[index] if index < len(scoped) else None
            if block is not None:
                block = _on_the_object(block, split)
            scoped = [*scoped[:index], block, *scoped[index + 1 :]]
        line = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(attribute(name))], call)])
        block = scoped[index] if index < len(scoped) else None
        previous = making[-1] if making else None
        if block is None:
            making.append(line if width is None else fitted(line, width, 2))
        elif (
            isinstance(previous, cst.With)
            and index
            and scoped[index - 1] is not None
            and source(scoped[index - 1].items[0]) == source(block.items[0])
        ):
            making[-1] = previous.with_changes(body=previous.body.with_changes(body=[*previous.body.body, line]))
        else:
            making.append(block.with_changes(body=cst.IndentedBlock([line])))
    first_call: list[cst.BaseStatement] = []
    if split.lazy and created:
        # Made on the first call, from its input's dimensions: no caller needs to know them.
        inputs = [p for p in split.parameters if any(p == source_parameter for _, source_parameter, _ in split.derived)]
        dimensions = [
            cst.parse_statement(f"{name} = {source_parameter}.shape[{axis}]")
            for name, source_parameter, axis in split.derived
        ]
        init_body.append(cst.parse_statement(f"self.{created[0][0]} = None"))
        lazy_build = cst.FunctionDef(
            cst.Name("build"),
            cst.Parameters(commas([me, *(param(p) for p in inputs)])),
            cst.IndentedBlock([*dimensions, *making]),
            leading_lines=[cst.EmptyLine(indent=False)],
        )
        first_call = [cst.parse_statement(f"if self.{created[0][0]} is None:\n    self.build({', '.join(inputs)})\n")]
    else:
        init_body += making
        lazy_build = None
    init = cst.FunctionDef(
        cst.Name("__init__"),
        cst.Parameters(commas([me, *(param(p) for p in split.init)])),
        cst.IndentedBlock(init_body),
        leading_lines=[cst.EmptyLine(indent=False)] if docstring else [],
    )
    calls = [p for p in split.parameters if p not in split.init]
    call = cst.FunctionDef(
        cst.Name(method),
        cst.Parameters(commas([me, *(param(p) for p in calls)])),
        cst.IndentedBlock([*first_call, *body] or [cst.SimpleStatementLine([cst.Pass()])]),
        leading_lines=[cst.EmptyLine(indent=False)],
    )
    build = lazy_build or cst.FunctionDef(
        cst.Name("build"),
        cst.Parameters(commas([me, cst.Param(cst.Name("input_shape"))])),
        cst.IndentedBlock([cst.SimpleStatementLine([cst.Expr(cst.SimpleString(BUILD_DOCSTRING))])]),
        leading_lines=[cst.EmptyLine(indent=False)],
    )
    return cst.ClassDef(
        cst.Name(split.class_name),
        cst.IndentedBlock([*docstring, init, *([build] if builds_on_call or lazy_build else []), call]),
        bases=[cst.Arg(base)],
        leading_lines=updated.leading_lines,
    )


class _OnTheObject(cst.CSTTransformer):
    def __init__(self, reads: set[int], split: Split) -> None:
        self.reads, self.split = reads, split

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        if id(original) in self.reads:
            return on_the_object(updated, self.split)
        return updated


def on_the_object(read: cst.Name, split: Split) -> cst.Attribute:
    """A read of a parameter kept on the object, as its attribute (``self.units``,
    ``self.scope_name``)."""
    return cst.Attribute(cst.Name("self"), read.with_changes(value=split.attribute(read.value)))


def _on_the_object(node: cst.CSTNode, split: Split) -> cst.CSTNode:
    """``node`` reading the parameters ``__init__`` keeps on the object (``split.init``) as
    its attributes."""
    return node.visit(_OnTheObject({id(n) for n in name_nodes(node) if n.value in split.init}, split))


# -- the callers' side -----------------------------------------------------------------------


@dataclass(frozen=True)
class ImportedSplit:
    """A project module's network function that became a class, as a file imports it."""

    #: The import alias naming it (None: a star import).
    alias: Optional[cst.ImportAlias]
    #: What the module's rewrite says of the class (``Split.export``).
    split: dict
    #: The ``from M import ...`` statement, when it is made in a module function's body (then
    #: that function).
    statement: Optional[cst.ImportFrom] = None
    holder: Optional[cst.FunctionDef] = None


def imported_splits(module: cst.Module, project: Mapping[str, Any]) -> dict[str, ImportedSplit]:
    """Local name -> how the file imports each function of a project module whose rewrite made
    it a class: by ``from M import f`` (or ``*``) at the top level or in the body of a module
    function (not in its blocks), or as ``M.f`` of a module imported whole (``import ops``). A
    name imported in two functions is left out: its calls cannot be told apart by name."""
    found: dict[str, ImportedSplit] = {}
    twice: set[str] = set()
    places = [(statement, None) for statement in module.body] + [
        (inner, statement)
        for statement in module.body
        if isinstance(statement, cst.FunctionDef)
        for inner in statement.body.body
    ]
    for statement, holder in places:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            named: dict[str, ImportedSplit] = {}
            if isinstance(small, cst.Import) and holder is None:
                for alias in small.names:
                    classes = ((project.get(source(alias.name)) or {}).get(EXPORTS) or {}).get("classes") or {}
                    local = source(alias.asname.name) if alias.asname else source(alias.name)
                    named.update(
                        {f"{local}.{function}": ImportedSplit(alias, split) for function, split in classes.items()}
                    )
            elif isinstance(small, cst.ImportFrom) and not small.relative and small.module is not None:
                classes = ((project.get(source(small.module)) or {}).get(EXPORTS) or {}).get("classes") or {}
                if isinstance(small.names, cst.ImportStar):
                    if holder is None:
                        named.update({function: ImportedSplit(None, split) for function, split in classes.items()})
                else:
                    named.update(
                        {
                            source(alias.asname.name) if alias.asname else source(alias.name): ImportedSplit(
                                alias, classes[source(alias.name)], small if holder else None, holder
                            )
                            for alias in small.names
                            if source(alias.name) in classes
                        }
                    )
            twice |= {name for name in named if name in found and holder is not None}
            found.update(named)
    return {name: imported for name, imported in found.items() if name not in twice}


def wants_splits(project: Mapping[str, Any]) -> bool:
    """Whether a project module the file may import made classes of network functions."""
    return any(((summary or {}).get(EXPORTS) or {}).get("classes") for summary in project.values())


def without_reuse(call: cst.Call, split: dict) -> tuple[cst.Call, bool]:
    """For a call of a function that shared its variables through a ``reuse`` parameter (the
    split's ``reuse``, at ``reuse_position``): the call without that argument, and whether it
    shared (``True``; absent or ``False``: the call made new variables); declines other values."""
    reuse = split.get("reuse")
    if reuse is None:
        return call, False
    positional = [i for i, a in enumerate(call.args) if a.keyword is None and not a.star]
    index = next(
        (i for i, a in enumerate(call.args) if a.keyword is not None and a.keyword.value == reuse),
        positional[split["reuse_position"]] if split["reuse_position"] < len(positional) else None,
    )
    if index is None:
        return call, False
    value = call.args[index].value
    if not (isinstance(value, cst.Name) and value.value in ("True", "False")):
        raise Decline(call, f"it passes `{reuse}={source(value)}`, not True or False written out")
    kept = [a for i, a in enumerate(call.args) if i != index]
    return call.with_changes(
        args=commas([a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in kept])
    ), value.value == "True"


def passed(call: cst.Call, split: dict) -> dict[str, tuple[cst.BaseExpression, bool]]:
    """What a call of the function that became a class passes: parameter -> (the value,
    whether passed by name); declines ``*args`` and too many arguments."""
    parameters = split["parameters"]
    given: dict[str, tuple[cst.BaseExpression, bool]] = {}
    for position, arg in enumerate(call.args):
        if arg.star:
            raise Decline(call, "it passes `*args` or `**kwargs`")
        if arg.keyword is None:
            if position >= len(parameters):
                raise Decline(call, "it passes more arguments than the function takes")
            given[parameters[position]] = (arg.value, False)
        else:
            given[arg.keyword.value] = (arg.value, True)
    return given


def split_call(
    call: cst.Call,
    split: dict,
    maker: cst.BaseExpression,
    dimensions: Mapping[str, cst.BaseExpression] = MappingProxyType({}),
) -> tuple[cst.Call, list[cst.Arg]]:
    """For a call of the function that became a class: the object's construction (``maker``
    called with the arguments of ``__init__``, ``dimensions`` giving those that are dimensions
    of an input: ``Split.derived``) and the arguments of its call."""
    parameters, init = split["parameters"], set(split["init"])
    given = {name: (value, False) for name, value in dimensions.items()} | passed(call, split)

    def arguments(names: list[str], positional: int) -> list[cst.Arg]:
        out, keyword = [], False
        for position, name in enumerate(names):
            if name not in given:
                keyword = True  # a default in between: the ones after it go by name
                continue
            value, by_name = given[name]
            keyword = keyword or by_name or position >= positional
            out.append(cst.Arg(value, keyword=cst.Name(name), equal=no_space_equal()) if keyword else cst.Arg(value))
        return commas(out)

    construction = cst.Call(maker, arguments(list(split["init"]), len(split["init"])))
    # A Keras layer takes only its input tensor positionally: the other arguments go by name.
    return construction, arguments([p for p in parameters if p not in init], 1)
