"""The savers a method of a model class makes and uses with its session (``tf.train.Saver``)."""

from __future__ import annotations

import libcst as cst

from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.model_class_to_module.model import (
    ClassModel,
    self_attribute,
    tf_path,
)
from tfmodernize.codemods.migrate.model_class_to_module.sites import (
    Saver,
    holder_of,
)
from tfmodernize.names import name_nodes
from tfmodernize.syntax import argument
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import walk


def read_savers(
    model: ClassModel,
    tf: TFNames,
    method: cst.FunctionDef,
    parent_of: dict,
) -> dict[str, Saver]:
    """The savers ``method`` makes (``saver = tf.train.Saver(max_to_keep=5)``, bound once) and
    uses only to save the session's variables at a step or to restore them."""
    found: dict[str, Saver] = {}
    for statement in walk(method.body, code_only=True):
        small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) else None
        if not (
            isinstance(small, cst.Assign)
            and isinstance(small.value, cst.Call)
            and tf_path(small.value.func, tf) == "train.Saver"
        ):
            continue
        call = small.value
        target = small.targets[0].target
        if len(small.targets) != 1 or not isinstance(target, cst.Name) or len(statement.body) != 1:
            raise Decline(call, "the saver is not bound to one name on a line of its own")
        if any(a.keyword is None or a.keyword.value != "max_to_keep" for a in call.args):
            raise Decline(
                call,
                "the saver is given more than `max_to_keep` (which variables it saves, how)",
            )
        found[target.value] = Saver(statement, call, argument(call, None, "max_to_keep"))
    if not found:
        return found
    session = model.session
    for name in name_nodes(method.body):
        saver = found.get(name.value)
        if saver is None or id(name) in {id(n) for n in walk(saver.statement)}:
            continue
        member = parent_of.get(id(name))
        call = parent_of.get(id(member))
        called = isinstance(call, cst.Call) and call.func is member
        if not (isinstance(member, cst.Attribute) and called):
            raise Decline(name, f"the saver `{name.value}` is used other than to save and restore")
        given = argument(call, 0, "sess")
        if self_attribute(given) != session:
            raise Decline(
                call,
                f"the saver `{name.value}` is given something other than `self.{session}`",
            )
        keywords = {a.keyword.value for a in call.args if a.keyword is not None}
        method_name = member.attr.value
        plain = keywords <= {"global_step", "save_path"}
        if method_name == "save" and len(call.args) in (2, 3) and plain:
            if argument(call, 2, "global_step") is None:
                raise Decline(call, f"`{name.value}.save` is given no `global_step`")
            saver.saves[id(call)] = call
            saver.holders[id(call)] = holder_of(call, parent_of)
        elif method_name == "restore" and len(call.args) == 2 and keywords <= {"save_path"}:
            small = parent_of.get(id(call))
            line = parent_of.get(id(small))
            if not isinstance(small, cst.Expr) or not isinstance(line, cst.SimpleStatementLine):
                raise Decline(call, f"the value of `{name.value}.restore` (None) is used")
            saver.restores[id(call)] = call
        else:
            raise Decline(call, f"`{name.value}.{method_name}` is no save at a step or restore")
    bound = [n for n in walk(method.body, code_only=True) if isinstance(n, cst.AssignTarget)]
    for name in found:
        if sum(1 for n in bound if isinstance(n.target, cst.Name) and n.target.value == name) != 1:
            raise Decline(method, f"the saver `{name}` is bound more than once")
    return found
