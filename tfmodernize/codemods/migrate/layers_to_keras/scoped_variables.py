"""Variables a network function makes with ``tf.get_variable`` under its variable scope, for
layers-to-keras.

``w = tf.get_variable("w", [2, width], initializer=...)`` in ``def critic(x, reuse=False)``
under ``tf.variable_scope("critic")`` asked TF1's variable store for ``critic/w``: the first
call created it, the calls sharing the scope (``reuse``) got it back. In TF2 the variable is
made once, as a module-level ``tf.Variable`` (``critic_w``) holding the initial value TF1's
initializer computed (``tfmodernize.analysis.variables``), right before the top-level
statement that first called the function, where TF1 created it (before the definition of
``main`` when ``main()`` calls it); the function reads it there (``w = critic_w``). Its name is
the one TF1 gave it (``critic/w``), so checkpoints and name tests read the same.

A network function of a project module, called by the other files of the run, becomes a
``tf.Module`` class (``modules``) making the variables in ``__init__`` (``self.w``) and applied
by ``__call__``: each call site makes an object, and a call sharing the variables
(``reuse=True``) calls the object the call before it made.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import MappingProxyType
from typing import Callable, Mapping, Optional, Sequence

import libcst as cst

from tfmodernize.codemod import Decline
from tfmodernize.names import fresh_name
from tfmodernize.analysis.variables import VariableValues
from tfmodernize.analysis.variable_calls import arguments
from tfmodernize.codemods.migrate.layers_to_keras.hoisting import HoistedArguments, substituted
from tfmodernize.codemods.migrate.layers_to_keras.network import Network
from tfmodernize.names import parameter_names
from tfmodernize.syntax import argument, is_none, source, statement_of
from tfmodernize.treewalk import walk


@dataclass(frozen=True)
class ScopedVariable:
    """One ``tf.get_variable`` call of a network function (or one call of a variable helper):
    the name of the variable made for it (module-level, or the attribute of the class the
    function becomes), the code making it, the arguments that code reads (the function's
    constants read as their values), and TF1's name for it (``{name}`` where a parameter of the
    function is read), None when it is not read here."""

    call: cst.Call
    name: str
    code: str
    reads: tuple[cst.BaseExpression, ...]
    tf1: Optional[str] = None
    #: For a helper's variable, the scope it was made under (a template: ``{name}``), which
    #: the helper's name for it leaves out; empty otherwise.
    scope: str = ""


def scoped_variables(
    function: cst.FunctionDef,
    network: Network,
    calls: list[cst.Call],
    hoisting: HoistedArguments,
    values: VariableValues,
    scope_of: Callable[[cst.CSTNode], str],
    taken: set[str],
    prefix: str,
    *,
    split: bool = False,
    helpers: Mapping[str, cst.FunctionDef] = MappingProxyType({}),
) -> list[ScopedVariable]:
    """The variables made for the ``tf.get_variable`` calls of a network function (read by
    ``networks.read``), in the order TF1 created them; ``scope_of`` gives the variable scope a
    node runs in (``{name}`` for a scope named by the parameter ``name``), ``prefix`` the name
    the function's variables start with. ``split``: the function becomes a class (``modules``),
    whose ``__init__`` makes them as attributes named after the variables, reading its
    parameters. A call of one of the module's variable ``helpers`` (``W = weight_variable(name,
    [in_dim, units])``, whose ``tf.get_variable`` get-variable-to-variable migrates) is made as
    it is, its arguments read where it is made, and named after the name it is bound to."""
    outer = scope_of(network.calls_of[0]) if network.calls_of else ""
    made = []
    for call in calls:
        bound = (statement_of(call, hoisting.parents) or (None,))[0]
        if bound is None:
            raise Decline(call, "it is not `name = tf.get_variable(...)` on a line of its own")
        helper = helpers.get(call.func.value) if isinstance(call.func, cst.Name) else None
        if helper is not None:
            made.append(
                _helper_variable(
                    function, network, call, bound, helper, hoisting, outer, scope_of, taken, prefix, split=split
                )
            )
            continue
        args = arguments(call)
        name = args.get("name")
        if (
            not (isinstance(name, cst.SimpleString) and isinstance(name.evaluated_value, str))
            or "{" in name.evaluated_value
        ):
            raise Decline(call, "its name is not a string literal")
        read = [value for key, value in args.items() if key != "name"]
        replacements = hoisting.substitutions(function, network, read, call, split=split)
        args = {key: substituted(value, replacements) for key, value in args.items()}
        initializer = args.get("initializer")
        from_tensor = is_none(args.get("shape")) and values.is_tensor(initializer)
        scope = "/".join(part for part in (outer, scope_of(call)) if part)
        tf1 = f"{scope}/{name.evaluated_value}" if scope else name.evaluated_value
        written = template_expression(tf1)
        code = values.variable(call, args, from_tensor=from_tensor, name=written)
        base = (
            re.sub(r"\W+", "_", name.evaluated_value if split else f"{prefix}_{name.evaluated_value}")
            .lower()
            .strip("_")
        )
        made.append(
            ScopedVariable(
                call,
                fresh_name(base, taken),
                code,
                (
                    *(value for key, value in args.items() if key != "name"),
                    *(n for n in walk(written) if isinstance(n, cst.Name)),
                ),
                tf1,
            )
        )
    return made


def _helper_variable(
    function: cst.FunctionDef,
    network: Network,
    call: cst.Call,
    bound: str,
    helper: cst.FunctionDef,
    hoisting: HoistedArguments,
    outer: str,
    scope_of: Callable[[cst.CSTNode], str],
    taken: set[str],
    prefix: str,
    *,
    split: bool,
) -> ScopedVariable:
    """A variable helper's call in a network function, made as it is where the variable is made
    (``outer``: the scope the function's first call runs in)."""
    given = arguments(call, tuple(parameter_names(helper)), what=f"`{helper.name.value}`")
    replacements = hoisting.substitutions(function, network, list(given.values()), call, split=split)
    code = source(substituted(call, replacements))
    # TF1's name: the helper's name argument read with what this call passes it, under the scope.
    named = helper_variable_name(helper, given, parameter_names(function))
    scope = "/".join(part for part in (outer, scope_of(call)) if part)
    tf1 = None if named is None else "/".join(part for part in (scope, named) if part)
    base = re.sub(r"\W+", "_", bound if split else f"{prefix}_{bound}").lower().strip("_")
    # The scope's parameters are read where the variable is made too (``with tf.name_scope(name):``).
    scope_reads = [n for n in walk(template_expression(scope)) if isinstance(n, cst.Name)] if scope else []
    return ScopedVariable(
        call,
        fresh_name(base, taken),
        code,
        (*(substituted(value, replacements) for value in given.values()), *scope_reads),
        tf1,
        scope,
    )


def helper_variable_name(
    helper: cst.FunctionDef, given: Mapping[str, cst.BaseExpression], parameters: Sequence[str]
) -> Optional[str]:
    """The name a helper's ``tf.get_variable`` asks for when called with ``given`` (its
    arguments by parameter), as a template: literal text, and ``{p}`` for a parameter ``p`` of
    the calling function; None when it is computed otherwise."""
    body = helper.body.body
    request = body[-1].body[0].value
    name = argument(request, 0, "name")

    def template(node: Optional[cst.BaseExpression]) -> Optional[str]:
        if isinstance(node, cst.SimpleString) and isinstance(node.evaluated_value, str):
            return None if re.search(r"[{}]", node.evaluated_value) else node.evaluated_value
        if isinstance(node, cst.Name) and node.value in given:
            passed = given[node.value]
            if isinstance(passed, cst.Name) and passed.value in parameters:
                return f"{{{passed.value}}}"
            return template(passed) if isinstance(passed, cst.SimpleString) else None
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
            left, right = template(node.left), template(node.right)
            return None if left is None or right is None else left + right
        return None

    return template(name)


def template_expression(template: str) -> cst.BaseExpression:
    """The string a name template (``{name}/w``) reads: a literal, the parameter itself
    (``{name}``), or an f-string."""
    if "{" not in template:
        return cst.SimpleString(f'"{template}"')
    alone = re.fullmatch(r"\{(\w+)\}", template)
    return cst.Name(alone.group(1)) if alone else cst.parse_expression(f'f"{template}"')
