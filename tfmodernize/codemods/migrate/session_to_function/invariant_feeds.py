"""A Python value a run in a loop feeds unchanged at every pass (a name, or a list written out
of numbers): converted to a tensor once, before the loop, instead of at every call."""

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
    list or array never rebound nor changed there, or ``{x: [10, 9, 3, 2]}``, a list of
    number literals) passes the tensor made from it once,
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
            (isinstance(value, cst.Name) or literal_sequence(value))
            and placeholder is not None
            and placeholder.default is None
            and placeholder.dtype is not None
            and not placeholder.iterator
            and not placeholder.switch
            and (not isinstance(value, cst.Name) or unchanged_in(module, plan, stmt, value.value))
        ):
            dtype = source(placeholder.dtype)
            # a literal list fed at every pass (``{x: [1, 2, 3]}``) names the tensor after its parameter
            named = value.value if isinstance(value, cst.Name) else param
            key = (stmt.index, source(value), dtype)
            if key not in plan.invariants:
                name = fresh_name(f"{named}_tensor", plan.taken)
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
                plan.fixes.append(
                    (value, f"`{source(value)}` is the same at every run: converted once, before the loop")
                )
            arg = arg.with_changes(value=cst.Name(plan.invariants[key]))
        args.append(arg)
    return call.with_changes(args=args)


def literal_sequence(value: cst.BaseExpression) -> bool:
    """Whether ``value`` is a list or tuple written out of number literals, at any depth
    (``[10, 9, 3, 2]``, ``[[1., 2.], [-3., 4.]]``): the same value at every evaluation."""
    if not isinstance(value, (cst.List, cst.Tuple)) or not value.elements:
        return False

    def number(node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
            node = node.expression
        return isinstance(node, (cst.Integer, cst.Float)) or literal_sequence(node)

    return all(isinstance(e, cst.Element) and number(e.value) for e in value.elements)


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
