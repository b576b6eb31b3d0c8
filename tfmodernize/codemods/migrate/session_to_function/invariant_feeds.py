"""A Python value a run in a loop feeds unchanged at every pass: converted to a tensor once,
before the loop, instead of at every call."""

from __future__ import annotations

from typing import Callable

import libcst as cst

from tfmodernize.treewalk import contains, walk

from tfmodernize.codemods.migrate.session_to_function.model import Statement
from tfmodernize.codemods.migrate.session_to_function.plan import FunctionPlan, UnitPlan
from tfmodernize.codemods.migrate.session_to_function.reading import Site
from tfmodernize.syntax import argument, commas, function_definitions, no_space_equal, source
from tfmodernize.names import fresh_name


def converted_once(
    tf_expr: Callable[[str], cst.BaseExpression],
    module: cst.Module,
    plan: UnitPlan,
    stmt: Statement,
    site: "Site",
    function: FunctionPlan,
    call: cst.Call,
) -> cst.Call:
    """A run in a loop feeding the same Python value at every pass (``{x: x_data}``, the
    list or array never rebound nor changed there) passes the tensor made from it once,
    before the statement holding the loop (``x_data_tensor = tf.constant(x_data,
    dtype=tf.float32)``), instead of converting it again at every call."""
    if id(site.call) not in plan.repeated or any(a.star for a in call.args):
        return call
    unit = plan.unit
    args = []
    for position, arg in enumerate(call.args):
        param = arg.keyword.value if arg.keyword is not None else function.params[position]
        value = arg.value
        placeholder = unit.placeholders.get(param)
        if (
            isinstance(value, cst.Name)
            and placeholder is not None
            and placeholder.default is None
            and placeholder.dtype is not None
            and not placeholder.iterator
            and not placeholder.switch
            and unchanged_in(module, plan, stmt, value.value)
        ):
            dtype = source(placeholder.dtype)
            key = (stmt.index, value.value, dtype)
            if key not in plan.invariants:
                name = fresh_name(f"{value.value}_tensor", plan.taken)
                plan.invariants[key] = name
                made = cst.Call(
                    tf_expr("constant"),
                    commas(
                        [
                            cst.Arg(value),
                            cst.Arg(placeholder.dtype, keyword=cst.Name("dtype"), equal=no_space_equal()),
                        ]
                    ),
                )
                plan.prefix.setdefault(stmt.index, []).append(
                    cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], made)])
                )
                plan.fixes.append((value, f"`{value.value}` is the same at every run: converted once, before the loop"))
            arg = arg.with_changes(value=cst.Name(plan.invariants[key]))
        args.append(arg)
    return call.with_changes(args=args)


def unchanged_in(module: cst.Module, plan: UnitPlan, stmt: Statement, name: str) -> bool:
    """Whether the value ``name`` holds where ``stmt`` starts is what every run in it
    feeds: bound before it, read in it only as a fed value (never rebound, given to a call
    or aliased there), read by no other function of the module, and no name bound from it
    before used in ``stmt`` other than as a fed value."""
    unit = plan.unit
    if unit.reaching(name, stmt.index) is None:
        return False
    aliases = {name}
    for earlier in unit.statements[: stmt.index]:
        if name in earlier.uses:
            aliases |= set(earlier.defs)
    fed = set()
    for node in walk(stmt.node, code_only=True):
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "run"
            and isinstance(node.func.value, cst.Name)
            and node.func.value.value in unit.sessions
        ):
            feed = argument(node, 1, "feed_dict")
            if isinstance(feed, cst.Dict):
                fed |= {id(e.value) for e in feed.elements if isinstance(e, cst.DictElement)}
    for node in walk(stmt.node, code_only=True):
        if isinstance(node, cst.Name) and node.value in aliases and id(node) not in fed:
            return False
    own = stmt.origin
    for _, definition in function_definitions(module):
        if contains(definition, own):
            continue
        if any(isinstance(n, cst.Name) and n.value == name for n in walk(definition, code_only=True)):
            return False
    return True
