"""Where the run calls a helper making variables, read in the program as written
(``VariableFile.written``): in a program's top-level code outside any block, or on a line of a
module function (``fc_layer``, ``build``) itself called so or run once at most, in scopes opened
by name alone. Each such call asked TF1 for variables of new names, which TF1 created, as each
call of the migrated helper does. Functions of the file's ``VariableFile``; they edit nothing."""

from __future__ import annotations

from typing import Callable

import libcst as cst

from tfmodernize.analysis.tf1_api import NAME_SCOPES, VARIABLE_SCOPES
from tfmodernize.analysis.variable_reuse import is_wrapper, reenters_scope
from tfmodernize.analysis.variables import runs_at_most_once
from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.get_variable_to_variable.plan import VariableFile
from tfmodernize.names import name_nodes
from tfmodernize.syntax import statement_holding


def top_level_calls(file: VariableFile, name: str, *, within: Callable[[cst.Name], bool], at: cst.Call) -> int:
    """How many calls of the module function ``name`` the run makes, declining when one is
    other than a call in a program's top-level code, outside any block (a call under a
    variable scope or in a function may reuse the variable), unless ``within`` allows it."""
    module, parents = file.written, file.written_parents
    body = {id(statement) for statement in module.body}
    calls = 0
    for use in name_nodes(module):
        if use.value != name or isinstance(parents.get(id(use)), cst.FunctionDef):
            continue
        caller = parents.get(id(use))
        holder = statement_holding(use, parents)
        if not (isinstance(caller, cst.Call) and caller.func is use and (id(holder) in body or within(use))):
            raise Decline(
                at,
                f"`{name}` is used in this file other than called in its top-level code, outside "
                "any block, or on a line of a function called so or run once at most, outside loops "
                "and scopes opened with options (a call under a variable scope or in a function may "
                "reuse the variable)",
            )
        calls += 1
    for use in (file.callers or {}).get(name, ()):
        if not (use["call"] and use["top_level"]):
            raise Decline(
                at,
                f"`{name}` is used by {use['file']} (line {use['line']}) other than called in its "
                "top-level code, outside any block (a call under a variable scope or in a function "
                "may reuse the variable)",
            )
        calls += 1
    return calls


def network_calling(file: VariableFile, use: cst.Name, seen: frozenset[str] = frozenset()) -> bool:
    """Whether a helper's call ``use`` is a line of a module function (``fc_layer``,
    ``build``) in its body or its variable or name scopes opened by name alone (no
    ``reuse``, initializer or other option), the function sharing no variables (no
    ``reuse``, ``AUTO_REUSE`` or ``reuse_variables``) and called by the run only so: in
    programs' top-level code, outside any block, or on such a line of a function itself
    called so (``seen``: the functions followed), or run once at most
    (``runs_at_most_once``) in a file sharing no variables: each of its calls asked for
    variables of new names, which TF1 created (a name asked for twice would have failed)."""
    module, parents = file.written, file.written_parents
    line = statement_holding(use, parents)
    if not isinstance(line, cst.SimpleStatementLine):
        return False
    node = parents.get(id(line))
    wrapped = False  # (in the known shape's blocks ending a reuse)
    while isinstance(node, (cst.IndentedBlock, cst.With)):
        if isinstance(node, cst.With) and not all(_plain_scope(file, item) for item in node.items):
            return False
        wrapped |= (
            file.shared is not None
            and isinstance(node, cst.With)
            and (is_wrapper(node, file.tf) or any(node is block for block in file.shared.blocks))
        )
        node = parents.get(id(node))
    if wrapped and node is module:
        return True
    if not (isinstance(node, cst.FunctionDef) and any(node is s for s in module.body) and not node.decorators):
        return False
    name = node.name.value
    if file.shares(node) or name in seen or (seen and file.shares(module)):
        return False
    if not file.shares(module) and runs_at_most_once(node, module, parents, file.callers, file.tf) is not None:
        return True
    try:
        return (
            top_level_calls(
                file,
                name,
                within=lambda inner: network_calling(file, inner, seen | {name}),
                at=cst.Call(cst.Name(name)),
            )
            > 0
        )
    except Decline:
        return False


def _plain_scope(file: VariableFile, item: cst.WithItem) -> bool:
    """Whether ``item`` opens a variable or name scope by name alone: a string or a name,
    no ``as``, and for a variable scope no ``reuse``, initializer or other option that
    changes what ``tf.get_variable`` makes under it."""
    scope = item.item
    if file.shared is not None and (
        reenters_scope(item, file.tf) or any(item is block.items[0] for block in file.shared.blocks)
    ):
        return True  # (the known shape's blocks around a network's calls)
    if not (
        isinstance(scope, cst.Call)
        and item.asname is None
        and file.tf.is_tf(scope.func, *VARIABLE_SCOPES, *NAME_SCOPES)
        and scope.args
        and scope.args[0].keyword is None
        and isinstance(scope.args[0].value, (cst.SimpleString, cst.Name, cst.BinaryOperation))
        and all(n.value != "reuse" for arg in scope.args for n in name_nodes(arg.value))
    ):
        return False
    if not file.tf.is_tf(scope.func, *VARIABLE_SCOPES):
        return True
    return all(arg.keyword is not None and arg.keyword.value in ("default_name", "values") for arg in scope.args[1:])
