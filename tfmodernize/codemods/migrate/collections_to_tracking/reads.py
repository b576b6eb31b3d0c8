"""What a read of a TF1 collection TF fills itself becomes (``collection_list``): the explicit
list of the variables created before it, ``[]`` for a collection nothing in the file can fill,
or a Decline saying why the list cannot be read off the code."""

from __future__ import annotations

import dataclasses
from typing import Optional

import libcst as cst

from tfmodernize.analysis import graph_collections, module_variables
from tfmodernize.analysis.project_facts import foreign_call, foreign_imports
from tfmodernize.analysis.variables import may_make_variables, runs_at_most_once
from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.collections_to_tracking.plan import CollectionsPlan
from tfmodernize.names import local_names, name_nodes
from tfmodernize.syntax import calls_in, source

REGULARIZER_ARGUMENTS = (
    "regularizer",
    "kernel_regularizer",
    "bias_regularizer",
    "activity_regularizer",
    "weights_regularizer",
    "biases_regularizer",
)


def collection_list(
    plan: CollectionsPlan, call: cst.Call, key: str, scope: Optional[cst.BaseExpression]
) -> cst.BaseExpression:
    """What the read ``call`` of collection ``key`` (filtered by ``scope``) becomes; raises
    Decline saying why it cannot."""
    module, tf = plan.module, plan.tf
    if key in ("update_ops", "regularization_losses"):
        imported = foreign_call(module, foreign_imports(module, plan.state.project))
        if imported is not None:
            raise Decline(call, f"the file calls {imported}, which may add to it; collect those ops explicitly")
    if key == "update_ops":
        if graph_collections.adds_update_ops(module, tf):
            raise Decline(
                call, "the file has layers that add update ops (batch normalisation); run their updates explicitly"
            )
        return cst.List([])
    if key == "regularization_losses":
        regularized = any(
            arg.keyword is not None and arg.keyword.value in REGULARIZER_ARGUMENTS for c in plan.calls for arg in c.args
        )
        if regularized or plan.added(key):
            raise Decline(call, "variables or layers in the file have regularizers; sum their losses explicitly")
        return cst.List([])
    if key == "losses":
        raise Decline(call, "`tf.losses` functions add to this collection implicitly; sum the losses explicitly")
    if key == "variables" and any(
        (s := tf.tf_symbol(c.func)) is not None
        and s.path.startswith("train.")
        and s.path.endswith("Optimizer")
        or tf.keras_path(c.func) is not None
        and tf.keras_path(c.func).startswith("optimizers.")
        for c in plan.calls
    ):
        raise Decline(call, "an optimizer's slot variables are global variables too; list the variables you mean")
    inventory = plan.inventory
    top = plan.top_level_index(call)
    assert top is not None
    owner, line = plan.owner(call)
    if isinstance(owner, cst.FunctionDef) and (
        inventory.problem_before(top) is not None or inventory.before(top, trainable_only=False) != inventory.variables
    ):
        local = function_list(plan, call, owner, line, key == "trainable_variables", scope)
        if local is not None:
            return local
    if owner is not module and inventory.before(top, trainable_only=False) != inventory.variables:
        # Run later, a function sees every variable made before the call; the read's position
        # says nothing about which those are unless they all come before the function.
        raise Decline(
            call,
            "it is read inside a function and variables are created after that function; pass the list in explicitly",
        )
    listed = module_variables.listed_variables(
        inventory, top, key == "trainable_variables", scope, eager=plan.owner(call)[0] is module
    )
    if isinstance(listed, cst.List) and not listed.elements:
        raise Decline(
            call,
            "no variable is created in this file's module-level code before it (variables made by "
            "functions, layers or imported code are not tracked); list the variables you mean",
        )
    if isinstance(listed, str):
        raise Decline(call, listed)
    return listed


def function_list(
    plan: CollectionsPlan,
    call: cst.Call,
    function: cst.FunctionDef,
    line: Optional[cst.CSTNode],
    trainable_only: bool,
    scope: Optional[cst.BaseExpression],
) -> Optional[cst.BaseExpression]:
    """The list a collection read inside ``function`` holds when the program runs that
    function once at most, by a call in its own top-level code (``main()`` under the main
    guard: ``runs_at_most_once``), and what runs before the read is known: the variables the
    top-level code made before that statement, then those the function's lines before the
    read make (``w = tf.Variable(...)``: read as the inventory reads module lines), nothing
    else making any. None when that does not hold (the caller then declines as before);
    Decline when it holds but the list cannot be written (a name bound twice, a scope)."""
    module, tf, parents = plan.module, plan.tf, plan.parents
    if line is None or not isinstance(function.body, cst.IndentedBlock):
        return None
    index = runs_at_most_once(function, module, parents, plan.state.callers, tf)
    if index is None:
        return None
    runner = module.body[index]
    uses = [n for n in name_nodes(runner) if n.value == function.name.value]
    calls = [parents.get(id(n)) for n in uses]
    if len(uses) != 1 or not isinstance(calls[0], cst.Call) or calls[0].func is not uses[0]:
        return None  # run through another function or app.run: what runs first is not read here
    project = plan.state.project
    # What that statement calls before (or to pass the arguments of) its call of the function.
    ordered = list(calls_in(runner))
    others = ordered[: ordered.index(calls[0])] + list(calls_in(calls[0]))[1:]
    if any(may_make_variables([c], module, tf, project) is not None for c in others):
        return None
    lines = list(function.body.body)
    if may_make_variables([line], module, tf, project) is not None:
        return None
    top_level = [s for s in module.body[:index] if not isinstance(s, cst.FunctionDef)]
    made_before, own = lines_variables(plan, top_level), lines_variables(plan, lines[: lines.index(line)])
    if made_before is None or own is None:
        return None
    if scope is not None and made_before.variables and own.variables:
        return None  # each part numbers its graph names (``Variable_1``) on its own
    local = local_names(function)
    if made_before.rebound or own.rebound or any(v.binding in local for v in made_before.variables):
        raise Decline(call, "a variable's name is bound again before the read; pass the list in explicitly")
    merged = module_variables.VariableInventory(
        variables=[dataclasses.replace(v, index=0) for v in made_before.variables]
        + [dataclasses.replace(v, index=1) for v in own.variables]
    )
    listed = module_variables.listed_variables(merged, 2, trainable_only, scope, eager=True)
    if isinstance(listed, str):
        raise Decline(call, listed)
    if isinstance(listed, cst.List) and not listed.elements:
        return None
    return listed


def lines_variables(
    plan: CollectionsPlan, lines: list[cst.BaseStatement]
) -> Optional[module_variables.VariableInventory]:
    """The variables ``lines``, run in order, make, read as the inventory reads module lines,
    or None when a line may make others (a helper, a loop, imported code) or resets the graph."""
    module, tf, project = plan.module, plan.tf, plan.state.project
    made = module_variables.inventory(cst.Module(body=lines), tf, project)
    if made.problem is not None or made.resets:
        return None
    recorded = {v.index for v in made.variables}
    for position, statement in enumerate(lines):
        if position in recorded:  # ``w = tf.Variable(...)``: what its arguments call, too
            checked: list[cst.CSTNode] = [a.value for c in calls_in(statement) for a in c.args]
        else:
            checked = [statement]
        if may_make_variables(checked, module, tf, project) is not None:
            return None
    return made


def numpy_values(listed: cst.BaseExpression) -> cst.BaseExpression:
    """The numpy values of the variables of ``listed``: ``[w.numpy(), b.numpy()]``."""
    if isinstance(listed, cst.List) and all(type(e) is cst.Element for e in listed.elements):
        return listed.with_changes(
            elements=[
                e.with_changes(value=cst.Call(cst.Attribute(e.value, cst.Name("numpy")))) for e in listed.elements
            ]
        )
    return cst.parse_expression(f"[variable.numpy() for variable in {source(listed)}]")
