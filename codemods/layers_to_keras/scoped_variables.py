"""Variables a network function makes with ``tf.get_variable`` under its variable scope, for
layers-to-keras.

``w = tf.get_variable("w", [2, width], initializer=...)`` in ``def critic(x, reuse=False)``
under ``tf.variable_scope("critic")`` asked TF1's variable store for ``critic/w``: the first
call created it, the calls sharing the scope (``reuse``) got it back. In TF2 the variable is
made once, as a module-level ``tf.Variable`` (``critic_w``) holding the initial value TF1's
initializer computed (``_variables``), right before the top-level statement that first called
the function, where TF1 created it (before the definition of ``main`` when ``main()`` calls it); the function reads it there (``w = critic_w``). Its name is
the one TF1 gave it (``critic/w``), so checkpoints and name tests read the same.

A network function of a project module, called by the other files of the run, becomes a
``tf.Module`` class (``modules``) making the variables in ``__init__`` (``self.w``) and applied
by ``__call__``: each call site makes an object, and a call sharing the variables
(``reuse=True``) calls the object the call before it made.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

import libcst as cst

from tfmodernize.codemod import Decline
from tfmodernize.codemods import _training as training
from tfmodernize.codemods._variables import VariableValues, arguments
from tfmodernize.codemods.layers_to_keras.network import Network, NetworkFunctions, substituted
from tfmodernize.syntax import is_none, statement_of


@dataclass(frozen=True)
class ScopedVariable:
    """One ``tf.get_variable`` call of a network function: the name of the variable made for
    it (module-level, or the attribute of the class the function becomes), the code making it,
    and the arguments that code reads (the function's constants read as their values)."""
    call: cst.Call
    name: str
    code: str
    reads: tuple[cst.BaseExpression, ...]


def scoped_variables(function: cst.FunctionDef, network: Network, calls: list[cst.Call], networks: NetworkFunctions,
                     values: VariableValues, scope_of: Callable[[cst.CSTNode], str], taken: set[str],
                     prefix: str, *, split: bool = False) -> list[ScopedVariable]:
    """The variables made for the ``tf.get_variable`` calls of a network function (read by
    ``networks.read``), in the order TF1 created them; ``scope_of`` gives the variable scope a
    node runs in, ``prefix`` the name the function's variables start with. ``split``: the
    function becomes a class (``modules``), whose ``__init__`` makes them as attributes named
    after the variables, reading its parameters."""
    outer = scope_of(network.calls_of[0]) if network.calls_of else ""
    made = []
    for call in calls:
        if (statement_of(call, networks.parents) or (None,))[0] is None:
            raise Decline(call, "it is not `name = tf.get_variable(...)` on a line of its own")
        args = arguments(call)
        name = args.get("name")
        if not (isinstance(name, cst.SimpleString) and isinstance(name.evaluated_value, str)):
            raise Decline(call, "its name is not a string literal")
        read = [value for key, value in args.items() if key != "name"]
        replacements = networks.substitutions(function, network, read, call, split=split)
        args = {key: substituted(value, replacements) for key, value in args.items()}
        initializer = args.get("initializer")
        from_tensor = is_none(args.get("shape")) and values.is_tensor(initializer)
        scope = "/".join(part for part in (outer, scope_of(call)) if part)
        tf1 = f"{scope}/{name.evaluated_value}" if scope else name.evaluated_value
        code = values.variable(call, args, from_tensor=from_tensor, name=cst.SimpleString(f'"{tf1}"'))
        base = re.sub(r"\W+", "_", name.evaluated_value if split else f"{prefix}_{name.evaluated_value}").lower().strip("_")
        made.append(ScopedVariable(call, training.fresh_name(base, taken), code,
                                   tuple(value for key, value in args.items() if key != "name")))
    return made
