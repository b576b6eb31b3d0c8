"""Where a Saver is made and how it is used: the function holding it (``saver_function``) and
its ``save`` and ``restore`` calls (``saver_uses``); a Decline for any use this migration does
not map."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tfmodernize.analysis.variables import may_make_variables, runs_at_most_once
from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.saver_to_checkpoint.plan import SaverFile
from tfmodernize.names import name_nodes
from tfmodernize.syntax import ancestors, argument, source
from tfmodernize.treewalk import contains, walk


def saver_function(file: SaverFile, line: cst.SimpleStatementLine) -> Optional[tuple[cst.FunctionDef, int]]:
    """``(function, index)`` when ``line`` (``saver = tf.train.Saver()``) is a line of the body
    of a module function, outside any block, that the program's top-level statement
    ``module.body[index]`` calls itself, once at most (``train()`` in its ``__main__``
    block: ``runs_at_most_once``), and the lines of that function before it make no
    variable: the Saver then saves what the top-level code made before that statement.
    None otherwise."""
    module, parents = file.module, file.parents
    block = parents.get(id(line))
    function = parents.get(id(block))
    if not (isinstance(function, cst.FunctionDef) and block is function.body):
        return None
    index = runs_at_most_once(function, module, parents, file.callers, file.tf)
    if index is None:
        return None
    # Its name (or, for ``tf.app.run()`` running ``main``, that call) in that statement itself.
    where = [n for n in name_nodes(module) if n.value == function.name.value and n is not function.name] or [
        c for c in walk(module.body[index], code_only=True) if isinstance(c, cst.Call) and "app.run" in source(c.func)
    ]
    if (
        not where
        or not contains(module.body[index], where[0])
        or any(isinstance(n, cst.FunctionDef) for n in ancestors(where[0], parents))
    ):
        return None  # run by another function: what that one makes first is not read here
    before = function.body.body[: function.body.body.index(line)]
    made = may_make_variables(before, module, file.tf, file.project)
    if made is not None:
        raise Decline(
            line,
            f"`{function.name.value}` may make variables ({made}) before its Saver: "
            "the variables it saves are read off the program's top-level code only",
        )
    return function, index


def saver_uses(
    scope: cst.CSTNode, name: str, statement: cst.CSTNode, parents: dict
) -> tuple[list[cst.Call], list[cst.Call]]:
    """The ``name.save(sess, path)`` and ``name.restore(sess, path)`` calls in ``scope`` (the
    module, or the function holding the Saver made by ``statement``); Decline for any other use."""
    saves, restores = [], []
    inside = {id(n) for n in walk(statement, code_only=True)}
    for node in name_nodes(scope):
        if node.value != name or id(node) in inside:
            continue
        attribute = parents.get(id(node))
        call = parents.get(id(attribute))
        if not (
            isinstance(attribute, cst.Attribute)
            and attribute.value is node
            and isinstance(call, cst.Call)
            and call.func is attribute
            and attribute.attr.value in ("save", "restore")
        ):
            raise Decline(
                node, f"`{name}` is used other than by `{name}.save(sess, path)` and `{name}.restore(sess, path)`"
            )
        allowed = ("sess", "save_path", "global_step") if attribute.attr.value == "save" else ("sess", "save_path")
        if any(a.star or a.keyword is not None and a.keyword.value not in allowed for a in call.args) or len(
            call.args
        ) > len(allowed):
            raise Decline(
                call,
                f"`{name}.{attribute.attr.value}` passes options other than "
                f"{' and '.join(allowed[1:])}, which this migration does not map",
            )
        if argument(call, 0, "sess") is None or argument(call, 1, "save_path") is None:
            raise Decline(call, f"`{name}.{attribute.attr.value}` is not called with a session and a path")
        if argument(call, 2, "global_step") is not None and not pure_path(argument(call, 1, "save_path")):
            raise Decline(
                call,
                "a numbered save's path is not a name, a string or os.path.join of those: it is "
                "split into the folder and the name of the checkpoint manager",
            )
        (saves if attribute.attr.value == "save" else restores).append(call)
    return saves, restores


def pure_path(path: Optional[cst.BaseExpression]) -> bool:
    """A path expression that may be evaluated twice: names, strings, ``os.path.join`` of them."""
    if isinstance(path, (cst.Name, cst.SimpleString, cst.Attribute)):
        return True
    return (
        isinstance(path, cst.Call)
        and source(path.func) == "os.path.join"
        and all(not a.star and a.keyword is None and pure_path(a.value) for a in path.args)
    )
