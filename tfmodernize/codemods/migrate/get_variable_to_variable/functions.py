"""The function a ``tf.get_variable`` call is made in, and whether that leaves it to be migrated:
a network function's variable scope (layers-to-keras's), a function the program runs once at most,
or a helper whose every call makes new variables (``return tf.get_variable(...)``, or a layer
helper's ``w = tf.get_variable(...)`` lines). Functions of the file's ``VariableFile``; they
decline (raise ``Decline``) or answer, and edit nothing."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tfmodernize.analysis.tf1_api import VARIABLE_SCOPES
from tfmodernize.analysis.variable_calls import arguments, creates_opaque_variables
from tfmodernize.analysis.variables import runs_at_most_once
from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.get_variable_to_variable.callers import network_calling, top_level_calls
from tfmodernize.codemods.migrate.get_variable_to_variable.plan import VariableFile
from tfmodernize.names import name_nodes, parameter_names
from tfmodernize.syntax import ancestors, source, statement_holding
from tfmodernize.treewalk import walk


def in_network_scope(file: VariableFile, call: cst.Call) -> bool:
    """Whether ``call`` is under a ``variable_scope`` block of the module function holding
    it (a network function's variable: layers-to-keras migrates those)."""
    parents = file.parents
    for node in ancestors(call, parents):
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            return False
        if file.scoped_helper(node) is not None:
            return False
        if isinstance(node, cst.With) and any(
            isinstance(item.item, cst.Call) and file.tf.is_tf(item.item.func, *VARIABLE_SCOPES) for item in node.items
        ):
            holder = next(
                (n for n in ancestors(node, parents) if isinstance(n, (cst.FunctionDef, cst.ClassDef, cst.Lambda))),
                None,
            )
            return isinstance(holder, cst.FunctionDef) and isinstance(parents.get(id(holder)), cst.Module)
    return False


def returned(file: VariableFile, call: cst.Call) -> bool:
    """Whether ``call`` is a line ``return tf.get_variable(...)`` of its own."""
    small = file.parents.get(id(call))
    line = file.parents.get(id(small))
    return (
        isinstance(small, cst.Return)
        and small.value is call
        and isinstance(line, cst.SimpleStatementLine)
        and len(line.body) == 1
    )


def run_once_unit(file: VariableFile, line: cst.SimpleStatementLine) -> Optional[cst.FunctionDef]:
    """The module function ``line`` (``w = tf.get_variable(...)``, or ``return`` of the call)
    is a line of its body outside any block, when the program runs that function once at
    most (``main()`` called from its ``__main__`` block: ``runs_at_most_once``, read in the
    program as written) and the file shares no variables through ``reuse``: the line then
    makes one variable of its own name in no variable scope, once, as a top-level line does."""
    block = file.parents.get(id(line))
    function = file.parents.get(id(block))
    original = file.written
    if not (isinstance(function, cst.FunctionDef) and block is function.body) or file.shares(original):
        return None  # (a scope reusing variables anywhere in the file may be open around its call)
    written = next(
        (s for s in original.body if isinstance(s, cst.FunctionDef) and s.name.value == function.name.value), None
    )
    if written is None:
        return None
    runs = runs_at_most_once(written, original, file.written_parents, file.callers, file.tf)
    return function if runs is not None else None


def variable_helper(file: VariableFile, call: cst.Call) -> tuple[cst.FunctionDef, cst.SimpleStatementLine]:
    """The module function holding ``call`` as a line of its body (``return
    tf.get_variable(...)``, or ``w = tf.get_variable(...)`` in a layer helper making its
    kernel and bias), and that line, when the function makes no variable other than by such
    lines and ``tf.Variable``, opens no variable scope, and every use of it in the run is a
    call in a program's top-level code, outside any block, or on a line of a function so
    called or run once at most (``callers.network_calling``): each call then asked for variables
    of its own names in no reusing scope, which TF1 created (a name asked for twice would have
    failed), as ``tf.Variable`` does."""
    parents, tf = file.parents, file.tf
    small = parents.get(id(call))
    line = parents.get(id(small))
    block = parents.get(id(line))
    function = parents.get(id(block))
    scope = file.scoped_helper(function)
    if scope is not None:
        function = parents.get(id(parents.get(id(scope))))
        block = function.body
    if not (
        (
            isinstance(small, cst.Return)
            and small.value is call
            or isinstance(small, cst.Assign)
            and small.value is call
            and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)
        )
        and isinstance(line, cst.SimpleStatementLine)
        and len(line.body) == 1
        and isinstance(function, cst.FunctionDef)
        and block is function.body
        and function in file.module.body
        and not function.decorators
    ):
        raise Decline(
            call,
            "it is made inside a function other than on a line of its body, `return "
            "tf.get_variable(...)` or `w = tf.get_variable(...)`, of a module function: "
            "where get_variable creates or reuses a variable each call (with the variable_scope "
            "around the call) is known for a network function's variables, which layers-to-keras "
            "(TFM107) migrates",
        )
    name = function.name.value
    lines = {id(s) for s in function.body.body}
    lines |= {id(s) for s in scope.body.body} if scope is not None else set()
    made_here = []
    for made in walk(function.body, code_only=True):
        if not (isinstance(made, cst.Call) and creates_opaque_variables(made, tf)):
            continue
        if tf.is_tf(made.func, "Variable"):
            continue
        made_here.append(made)
        if not (
            tf.is_tf(made.func, "get_variable")
            and id(statement_holding(made, parents)) in lines
            and parents.get(id(made)) is not None
            and getattr(parents.get(id(made)), "value", None) is made
        ):
            raise Decline(call, f"`{name}` creates other variables too, or some in a block of its body")
    # A layer helper (variables on other lines than one ``return``): in a file sharing none.
    layer = not returned(file, call) or len(made_here) > 1
    if layer and file.shares(file.written):
        raise Decline(
            call,
            f"`{name}` is a function of a file that shares variables through `reuse` (a scope "
            "opened with it around a call would hand back the variable made before)",
        )
    # Read in the program as written: an earlier codemod may have moved the calls.
    calls = top_level_calls(file, name, within=lambda use: network_calling(file, use), at=call)
    if not calls:
        raise Decline(
            call,
            f"`{name}` is called nowhere in this run: whether its calls share a variable is unknown; "
            "run tfmodernize on it with the files that call it",
        )
    if layer and scope is None and file.shared is None:
        # (Under its scope, each name reads the scope's parameter; in a file whose sharing is
        # all of the known shape, a name asked for again outside it failed in TF1.)
        _own_names(file, call, function, made_here)
    return function, line


def _own_names(file: VariableFile, call: cst.Call, function: cst.FunctionDef, made: list[cst.Call]) -> None:
    """Declines a function making variables on lines of its body (a layer helper) that the
    program may run more than once when a name it asks for reads none of its parameters: a
    second call asked TF1 for the same name again, which failed or, under a reusing scope,
    handed back the first variable."""
    module = file.written
    parameters = set(parameter_names(function))
    names = [arguments(c).get("name") for c in made]
    fixed = [n for n in names if n is None or not any(p.value in parameters for p in name_nodes(n))]
    written = next(
        (s for s in module.body if isinstance(s, cst.FunctionDef) and s.name.value == function.name.value), None
    )
    if fixed and (
        written is None or runs_at_most_once(written, module, file.written_parents, file.callers, file.tf) is None
    ):
        asked = f"`{source(fixed[0])}`" if fixed[0] is not None else "a name"
        raise Decline(
            call,
            f"it is made in `{function.name.value}`, which the program may run more than once (not "
            "a function the program runs once at most: called in one place, outside loops and `with` "
            f"blocks, from its top-level code or such a function), asking for {asked} each time: a "
            "second call asked TF1 for the same name again",
        )
