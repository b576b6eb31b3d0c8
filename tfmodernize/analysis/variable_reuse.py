"""Network functions sharing their variables through ``reuse`` in the one shape whose sharing is
known: a function ``def encoder(x, reuse=False):`` opening with ``if reuse:
tf.get_variable_scope().reuse_variables()``, called once to make its variables and again with
``reuse=True`` to use them, each ``reuse=True`` call in a ``with
tf.variable_scope(tf.get_variable_scope()):`` block that ends the reuse.

Read by get-variable-to-variable (the helpers such a function calls make new variables at each
call but the reusing ones) and network-function-to-module (a reusing call calls the object the
first call made)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst

from tfmodernize.analysis.tf1_api import VARIABLE_SCOPES
from tfmodernize.syntax import ancestors, split_docstring
from tfmodernize.treewalk import walk

#: The names that make TF1 share variables.
SHARING = ("reuse", "reuse_variables", "AUTO_REUSE")


@dataclass(frozen=True)
class SharedNetworks:
    """The reuse of a file read: every name of ``SHARING`` in it belongs to one of these."""

    networks: frozenset[str]  # functions opening with the reuse prologue
    prologues: frozenset[int]  # ids of their ``if reuse:`` statements
    wrappers: tuple[cst.With, ...]  # ``with tf.variable_scope(tf.get_variable_scope()):`` around calls
    reusing: dict  # id of a ``reuse=True`` call -> the call that made the variables
    blocks: tuple[cst.With, ...] = ()  # ``with tf.variable_scope("name") as scope:`` reusing in its body


def reuse_parameter(function: cst.FunctionDef) -> Optional[int]:
    """The position of ``reuse=False`` among ``function``'s parameters."""
    for index, param in enumerate(function.params.params):
        if param.name.value == "reuse":
            if isinstance(param.default, cst.Name) and param.default.value == "False":
                return index
            return None
    return None


def prologue(function: cst.FunctionDef, tf) -> Optional[cst.If]:
    """``if reuse: tf.get_variable_scope().reuse_variables()``, the first statement of the body."""
    _, body = split_docstring(list(function.body.body))
    if not body or reuse_parameter(function) is None:
        return None
    return body[0] if reuse_switch(body[0], ["reuse"], tf) else None


def reuse_switch(statement: cst.BaseStatement, parameters: list[str], tf) -> bool:
    """``if <parameter>: tf.get_variable_scope().reuse_variables()``: the scope around it reuses
    its variables from then on, as ``reuse=True`` would, when the parameter is true."""
    if not (
        isinstance(statement, cst.If)
        and statement.orelse is None
        and isinstance(statement.test, cst.Name)
        and statement.test.value in parameters
        and isinstance(statement.body, cst.IndentedBlock)
        and len(statement.body.body) == 1
        and isinstance(statement.body.body[0], cst.SimpleStatementLine)
        and len(statement.body.body[0].body) == 1
        and isinstance(statement.body.body[0].body[0], cst.Expr)
    ):
        return False
    call = statement.body.body[0].body[0].value
    return (
        isinstance(call, cst.Call)
        and not call.args
        and isinstance(call.func, cst.Attribute)
        and call.func.attr.value == "reuse_variables"
        and isinstance(call.func.value, cst.Call)
        and not call.func.value.args
        and tf.is_tf(call.func.value.func, "get_variable_scope")
    )


def is_wrapper(node: cst.CSTNode, tf) -> bool:
    """``with tf.variable_scope(tf.get_variable_scope()):``: the current scope opened again."""
    return isinstance(node, cst.With) and len(node.items) == 1 and reenters_scope(node.items[0], tf)


def reenters_scope(item: cst.WithItem, tf) -> bool:
    """``tf.variable_scope(tf.get_variable_scope())`` with no ``as``."""
    scope = item.item
    return (
        item.asname is None
        and isinstance(scope, cst.Call)
        and tf.is_tf(scope.func, *VARIABLE_SCOPES)
        and len(scope.args) == 1
        and scope.args[0].keyword is None
        and isinstance(scope.args[0].value, cst.Call)
        and not scope.args[0].value.args
        and tf.is_tf(scope.args[0].value.func, "get_variable_scope")
    )


def helper_scope(node: cst.CSTNode, tf) -> bool:
    """``with tf.variable_scope(<a name>, reuse=None):`` (or ``reuse=tf.AUTO_REUSE``, or no
    ``reuse``), no ``as``."""
    if not (isinstance(node, cst.With) and len(node.items) == 1 and node.items[0].asname is None):
        return False
    scope = node.items[0].item
    if not (isinstance(scope, cst.Call) and tf.is_tf(scope.func, *VARIABLE_SCOPES) and scope.args):
        return False
    first, rest = scope.args[0], scope.args[1:]
    return (
        first.keyword is None
        and isinstance(first.value, cst.Name)
        and all(
            arg.keyword is not None
            and arg.keyword.value == "reuse"
            and (isinstance(arg.value, cst.Name) and arg.value.value == "None" or auto_reuse(arg.value, tf))
            for arg in rest
        )
    )


def auto_reuse(node: cst.BaseExpression, tf) -> bool:
    """``tf.AUTO_REUSE``."""
    return tf.is_tf(node, "AUTO_REUSE")


def _distinct_names(helper: cst.FunctionDef, scope: cst.With, module: cst.Module, parents: dict) -> bool:
    """Whether every call of ``helper`` (whose body is ``scope``, opened with ``AUTO_REUSE``) in
    the file's functions passes the scope's name as a string literal, each another: no two of
    them then shared variables through it."""
    parameter = scope.items[0].item.args[0].value.value
    names = [p.name.value for p in helper.params.params]
    if parameter not in names:
        return False
    position, seen = names.index(parameter), set()
    for node in walk(module, code_only=True):
        if not (isinstance(node, cst.Name) and node.value == helper.name.value) or node is helper.name:
            continue
        call = parents.get(id(node))
        if not (isinstance(call, cst.Call) and call.func is node):
            return False  # (used other than called)
        given = [
            a.value
            for i, a in enumerate(call.args)
            if (a.keyword is None and i == position) or (a.keyword is not None and a.keyword.value == parameter)
        ]
        if len(given) != 1 or not isinstance(given[0], cst.SimpleString) or given[0].evaluated_value in seen:
            return False
        seen.add(given[0].evaluated_value)
    return True


def read_shared_networks(module: cst.Module, tf, parents: dict) -> Optional[SharedNetworks]:
    """The file's sharing through ``reuse`` when all of it is of the known shape; None when the
    file names no ``reuse`` or some of it is other (a runtime flag, a scope reused by hand)."""
    accounted: set[int] = set()
    functions = {s.name.value: s for s in module.body if isinstance(s, cst.FunctionDef)}
    networks, prologues = {}, set()
    for name, function in functions.items():
        opening = prologue(function, tf)
        if opening is None:
            continue
        networks[name] = function
        prologues.add(id(opening))
        accounted.update(id(n) for n in walk(opening))
        accounted.add(id(function.params.params[reuse_parameter(function)].name))
    # ``with tf.variable_scope("f") as scope: a = net(x); scope.reuse_variables(); b = net(y)``
    blocks = [n for n in walk(module, code_only=True) if reusing_block(n, tf) is not None]
    block_calls: dict[int, cst.Call] = {}  # id of a reusing call in such a block -> the call making
    for block in blocks:
        found = _block_calls(block, reusing_block(block, tf), functions)
        if found is None:
            return None
        made_here, reused_here, line = found
        accounted.update(id(n) for n in walk(line))
        block_calls.update(reused_here)
        for call in made_here:
            networks.setdefault(call.func.value, functions[call.func.value])
    if not networks:
        return None
    for node in walk(module, code_only=True):
        if helper_scope(node, tf) and len(node.items[0].item.args) <= 2:
            if any(auto_reuse(arg.value, tf) for arg in node.items[0].item.args[1:]):
                helper = parents.get(id(parents.get(id(node))))
                if not (
                    isinstance(helper, cst.FunctionDef)
                    and helper.name.value in functions
                    and split_docstring(list(helper.body.body))[1] == [node]
                    and _distinct_names(helper, node, module, parents)
                ):
                    return None  # two calls may have shared their variables through it
            accounted.update(id(n) for arg in node.items[0].item.args[1:] for n in walk(arg))
    by_host = {}
    in_blocks = {id(n) for block in blocks for n in walk(block)}
    for node in walk(module, code_only=True):  # in source order
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in networks):
            continue
        if id(node) in in_blocks or any(node.func.value == c.func.value for c in block_calls.values()):
            if id(node) not in in_blocks:
                return None  # a network of such a block called elsewhere too
            continue
        function = networks[node.func.value]
        position = reuse_parameter(function)
        given = [
            a
            for i, a in enumerate(node.args)
            if (a.keyword is None and i == position) or (a.keyword is not None and a.keyword.value == "reuse")
        ]
        if any(a.star for a in node.args) or len(given) > 1:
            return None
        value = False
        if given:
            if not (isinstance(given[0].value, cst.Name) and given[0].value.value in ("True", "False")):
                return None  # reuse decided by a runtime value
            value = given[0].value.value == "True"
            accounted.update(id(n) for n in walk(given[0]))
        placed = _placement(node, parents, tf)
        if placed is None:
            return None
        host, wrapper = placed
        by_host.setdefault(id(host), []).append((node, wrapper, value))
    if any(
        isinstance(n, cst.Name) and n.value in SHARING and id(n) not in accounted for n in walk(module, code_only=True)
    ):
        return None
    reusing, wrappers = {}, []
    hosts_of: dict[str, int] = {}
    for host, calls in by_host.items():
        made: dict[str, cst.Call] = {}
        reused_in: set[int] = set()  # wrappers where reuse was switched on
        for call, wrapper, value in calls:
            name = call.func.value
            if hosts_of.setdefault(name, host) != host:
                return None  # called from two functions: one object cannot serve both
            if wrapper is not None and id(wrapper) in reused_in and not value:
                return None  # made under a scope already reusing: TF1 looked it up
            if value:
                if name not in made or wrapper is None or _calls_after(call, wrapper, parents, functions):
                    return None
                reusing[id(call)] = made[name]
                reused_in.add(id(wrapper))
            elif name in made:
                return None  # made twice
            else:
                made[name] = call
            if wrapper is not None and all(w is not wrapper for w in wrappers):
                wrappers.append(wrapper)
    reusing.update(block_calls)
    return SharedNetworks(
        frozenset(networks),
        frozenset(prologues),
        tuple(wrappers),
        reusing,
        tuple(blocks),
    )


def reusing_block(node: cst.CSTNode, tf) -> Optional[cst.SimpleStatementLine]:
    """The line ``scope.reuse_variables()`` of ``with tf.variable_scope("name") as scope:`` (a
    block at the top of a module or of a module function's body), the scope's only use; None
    for any other node."""
    if not (
        isinstance(node, cst.With)
        and len(node.items) == 1
        and isinstance(node.items[0].asname, cst.AsName)
        and isinstance(node.items[0].asname.name, cst.Name)
        and isinstance(node.body, cst.IndentedBlock)
    ):
        return None
    scope = node.items[0].item
    if not (
        isinstance(scope, cst.Call)
        and tf.is_tf(scope.func, *VARIABLE_SCOPES)
        and len(scope.args) == 1
        and scope.args[0].keyword is None
        and isinstance(scope.args[0].value, cst.SimpleString)
    ):
        return None
    name = node.items[0].asname.name.value
    lines = [
        s
        for s in node.body.body
        if isinstance(s, cst.SimpleStatementLine)
        and len(s.body) == 1
        and isinstance(s.body[0], cst.Expr)
        and isinstance(s.body[0].value, cst.Call)
        and not s.body[0].value.args
        and isinstance(s.body[0].value.func, cst.Attribute)
        and isinstance(s.body[0].value.func.value, cst.Name)
        and s.body[0].value.func.value.value == name
        and s.body[0].value.func.attr.value == "reuse_variables"
    ]
    uses = [n for n in walk(node.body) if isinstance(n, cst.Name) and n.value == name]
    return lines[0] if len(lines) == 1 and len(uses) == 1 else None


def _block_calls(block: cst.With, line: cst.SimpleStatementLine, functions: dict):
    """The calls of module functions on the lines of a reusing block: those before its
    ``reuse_variables()`` line, making (each function once), and those after it, each a function
    called before (-> that call); None when a call is elsewhere or of a function not called before."""
    body = list(block.body.body)
    at = body.index(line)
    made, reused = {}, {}
    for index, statement in enumerate(body):
        if index == at:
            continue
        if not isinstance(statement, cst.SimpleStatementLine):
            return None
        for call in (n for n in walk(statement) if isinstance(n, cst.Call)):
            if not (isinstance(call.func, cst.Name) and call.func.value in functions):
                continue
            name = call.func.value
            if index < at:
                if name in made:
                    return None
                made[name] = call
            elif name not in made:
                return None
            else:
                reused[id(call)] = made[name]
    if not reused:
        return None
    return list(made.values()), reused, line


def _calls_after(call: cst.Call, wrapper: cst.With, parents: dict, functions: dict) -> bool:
    """Whether a line after ``call``'s in ``wrapper`` calls a module function or TensorFlow's
    variable makers: under the scope now reusing, those would be looked up, not made."""
    lines = list(wrapper.body.body)
    line = next(a for a in ancestors(call, parents) if isinstance(a, cst.BaseStatement))
    later = lines[lines.index(line) + 1 :]
    return any(
        isinstance(n, cst.Call)
        and isinstance(n.func, (cst.Name, cst.Attribute))
        and (not isinstance(n.func, cst.Name) or n.func.value in functions)
        for statement in later
        for n in walk(statement)
    )


def _placement(call: cst.Call, parents: dict, tf) -> Optional[tuple[cst.CSTNode, Optional[cst.With]]]:
    """Where a network's call is: (the function holding it, or the module; the wrapper around it
    or None), when it is on a line of that body, or of a wrapper's body in that body."""
    line = None
    for node in ancestors(call, parents):
        if isinstance(node, cst.BaseStatement):
            line = node
            break
    if not isinstance(line, cst.SimpleStatementLine):
        return None
    block = parents.get(id(line))
    holder = parents.get(id(block)) if isinstance(block, cst.IndentedBlock) else block
    wrapper = None
    if is_wrapper(holder, tf):
        wrapper = holder
        block = parents.get(id(holder))
        holder = parents.get(id(block)) if isinstance(block, cst.IndentedBlock) else block
    if isinstance(holder, cst.Module) or (
        isinstance(holder, cst.FunctionDef) and isinstance(parents.get(id(holder)), cst.Module)
    ):
        return holder, wrapper
    return None
