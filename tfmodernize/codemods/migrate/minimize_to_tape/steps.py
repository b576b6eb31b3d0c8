"""Rewriting one optimizer step: the tape, the gradient and ``apply_gradients`` lines, the
optimizer hoisted to module level, the variables it trains, its slots. Functions of the
``TapePlan`` (whose ``calls`` they fill in) and the ``Editor`` spelling TF names."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tfmodernize.analysis import graph_collections
from tfmodernize.analysis import module_variables
from tfmodernize.analysis.optimizers import KerasOptimizer, optimizer_table
from tfmodernize.names import binds, fresh_name
from tfmodernize.syntax import calls_in, split_docstring
from tfmodernize.codemods.migrate.minimize_to_tape import schedules
from tfmodernize.codemods.migrate.minimize_to_tape.model import SCHEDULING, Optimizer, Site, bound_arguments
from tfmodernize.codemods.migrate.minimize_to_tape.plan import Editor, TapePlan
from tfmodernize.codemod import Decline
from tfmodernize.syntax import is_none, source
from tfmodernize.names import bound_names, local_names, names_read, parameter_names
from tfmodernize.layout import fitted


def build(plan: TapePlan, editor: Editor, site: Site, optimizer: Optimizer) -> None:
    """Fill ``site.replacement`` (code lines); declines when the site cannot be rewritten."""
    body = list(site.function.body.body)
    local_taken = plan.globals | names_read(site.function)
    later = body[site.position + 1 :]
    is_op = site.method != "compute_gradients"
    if is_op and site.target is not None and any(site.target in names_read(s) for s in later):
        raise Decline(site.call, f"`{site.target}` (a TF1 op) is used after it")
    receiver = optimizer.name or ""
    if optimizer.name is None:
        global_step = None
        if site.method != "compute_gradients":
            global_step = (bound_arguments(site.call, ("loss", "global_step")) or {}).get("global_step")
            if site.method == "apply_gradients":
                global_step = (bound_arguments(site.call, ("grads_and_vars", "global_step")) or {}).get("global_step")
        _hoist(plan, editor, site, optimizer, global_step)
        receiver = optimizer.hoisted_name
    if site.method == "apply_gradients":
        args = bound_arguments(site.call, ("grads_and_vars", "global_step", "name"))
        if args is None or "grads_and_vars" not in args:
            raise Decline(site.call, "its arguments could not be read")
        if not _plain_step(args):
            raise Decline(
                site.call,
                "its `global_step` is not a variable created once; create it with `tf.Variable(0, trainable=False)`",
            )
        site.replacement = _assign_rate(editor, receiver, optimizer)
        site.replacement += [f"{receiver}.apply_gradients({source(args['grads_and_vars'])})"]
        site.replacement += _global_step(args)
        return None
    positions = ("loss", "var_list", "gate_gradients", "aggregation_method", "colocate_gradients_with_ops")
    if site.method == "minimize":
        positions = ("loss", "global_step", "var_list", *positions[2:], "name", "grad_loss")
    else:
        positions = (*positions, "grad_loss")
    args = bound_arguments(site.call, positions)
    if args is None or "loss" not in args:
        raise Decline(site.call, "its arguments could not be read")
    unknown = set(args) - {"loss", "var_list", "global_step", "grad_loss", *SCHEDULING}
    if unknown:
        raise Decline(site.call, f"`{sorted(unknown)[0]}` is not a TF1 argument")
    if not is_none(args.get("grad_loss")):
        raise Decline(site.call, "`grad_loss` has no tape equivalent here; pass it as `output_gradients`")
    if not _plain_step(args):
        raise Decline(
            site.call,
            "its `global_step` is not a variable created once; create it with `tf.Variable(0, trainable=False)`",
        )
    if site.dependencies is not None:
        _dependencies(plan, site)
    docstring, rest = split_docstring(body[: site.position])
    loss = args["loss"]
    if not (isinstance(loss, cst.Name) and binds(rest, loss.value)):
        raise Decline(
            site.call, "the loss is not a name computed earlier in the same function, so no tape can record it"
        )
    frozen = module_variables.frozen_value(rest, plan.module, plan.inventory, plan.tf)
    if frozen is not None:
        raise Decline(
            site.call,
            (
                f"the loss uses `{frozen}`, computed once at module level from variables: TF2 does not "
                "recompute it and the tape records no gradient through it; compute it in the function"
            ),
        )
    tape = fresh_name("tape", local_taken)
    variables, bind = _variables(plan, args.get("var_list"), site, local_taken, tape)
    site.trained = variables
    first = optimizer.sites[0]
    copy = first.function is not site.function and optimizer.name is None
    if copy and first.trained != variables:
        raise Decline(site.call, "the functions running this train op train different variables")
    site.taped = True
    site.variables = variables if bind is None else None
    lines = [] if bind is None else [bind]
    if site.method == "minimize" and optimizer.plain_rate is not None:
        gradients = fresh_name("gradients", local_taken)
        implicit = is_none(args.get("var_list")) or isinstance(args.get("var_list"), cst.Call)
        indent = len(plan.module.default_indent) * (1 + (site.function in plan.enclosing))
        if bind is None and indent + len(f"for variable, gradient in zip({variables}, {gradients}):") > plan.width:
            # A list too long to write twice: named once, as a TF2 engineer names it.
            listed = variables
            variables = fresh_name("variables", local_taken)
            lines.append(_named_list(variables, listed, plan.width - indent))
        lines += [
            f"{gradients} = {tape}.gradient({loss.value}, {variables})",
            _descent(optimizer.plain_rate, gradients, variables, local_taken, implicit),
            *_global_step(args),
        ]
    elif site.method == "minimize":
        gradients = fresh_name("gradients", local_taken)
        lines += [
            f"{gradients} = {tape}.gradient({loss.value}, {variables})",
            *_assign_rate(editor, receiver, optimizer),
            f"{receiver}.apply_gradients(zip({gradients}, {variables}))",
            *_global_step(args),
        ]
    else:
        site.call_replacement = f"list(zip({tape}.gradient({loss.value}, {variables}), {variables}))"
        if site.keep_statement:
            plan.calls[site.call] = cst.parse_expression(site.call_replacement)
        else:
            lines.append(f"{site.target} = {site.call_replacement}" if site.target else site.call_replacement)
    site.replacement = lines
    site.tape_name = tape
    return None


def _named_list(name: str, listed: str, room: int) -> str:
    """``name = listed``, a list written one element a line when wider than ``room``."""
    line = f"{name} = {listed}"
    expression = cst.parse_expression(listed)
    if len(line) <= room or not isinstance(expression, cst.List):
        return line
    bare = [element.with_changes(comma=cst.MaybeSentinel.DEFAULT) for element in expression.elements]
    elements = "".join(f"    {source(element)},\n" for element in bare)
    return f"{name} = [\n{elements}]"


def _descent(rate: str, gradients: str, variables: str, taken: set[str], implicit: bool) -> str:
    """The loop subtracting ``rate`` times its gradient from each variable: TF1's
    ``GradientDescentOptimizer`` update (``var -= lr * grad``, the learning rate read as a
    float32 tensor), without a Keras optimizer's per-step bookkeeping. With the variables
    taken implicitly (every trainable one), one the loss does not reach has no gradient and
    keeps its value, as TF1 skipped it."""
    variable = fresh_name("variable", taken)
    gradient = fresh_name("gradient", taken)
    scaled = f"{rate} * {gradient}"
    update = f"{variable}.assign_sub({scaled})"
    if implicit:
        update = f"if {gradient} is not None:\n        {update}"
    return f"for {variable}, {gradient} in zip({variables}, {gradients}):\n    {update}\n"


def _assign_rate(editor: Editor, receiver: str, optimizer: Optimizer) -> list[str]:
    """The line giving the Keras optimizer this step's fed learning rate (a scalar: a
    placeholder of unknown shape is one when fed a number), if it has one."""
    if optimizer.fed_rate is None:
        return []
    return [f"{receiver}.learning_rate.assign({source(editor.tf_expr('reshape'))}({optimizer.fed_rate}, []))"]


def _hoist(
    plan: TapePlan, editor: Editor, site: Site, optimizer: Optimizer, global_step: Optional[cst.BaseExpression]
) -> None:
    """Plan ``tf.train.X(...).minimize(...)``'s optimizer as a module-level Keras optimizer.

    Its arguments must not need the function's locals, except a learning rate computed by
    a TF1 decay function of ``global_step`` just for it, which becomes a Keras schedule.
    """
    body = list(site.function.body.body)
    params = {p.name.value for p in site.function.params.params}
    bound = params | set().union(*(bound_names(s) for s in body))
    if optimizer.local_name is not None:
        bound.discard(optimizer.local_name)
    clash = names_read(optimizer.call) & bound
    if optimizer.planned_hoist:
        if site.function is not optimizer.sites[0].function:
            _shared(plan, site, optimizer, clash)
        return None
    optimizer.planned_hoist = True
    if len(clash) == 1 and next(iter(clash)) in params:
        schedules.fed_rate(site, optimizer, clash.pop())
    elif len(clash) == 1:
        schedules.schedule(plan, editor, site, optimizer, clash.pop(), global_step, bound)
    elif clash:
        raise Decline(
            site.call, f"the optimizer's arguments use `{sorted(clash)[0]}`, which only exists inside the function"
        )
    _made_where_defined(plan, site, optimizer, bound)
    if optimizer.schedule is not None:
        schedules.reads(plan, site, optimizer)
    stateless = optimizer_table()[optimizer.tf1_class]["stateless"] and optimizer.schedule is None
    if site.function not in plan.traced and not stateless:
        raise Decline(
            site.call,
            (
                f"`{site.function.name.value}` builds a new optimizer each time it runs (once in TF1 graph "
                "code, every step when run eagerly), so its state cannot move to module level safely: "
                "create the optimizer once outside the function or decorate the function with tf.function"
            ),
        )
    # ``optimizer = tf.train.X(...).minimize(cost)`` names the train op like an
    # optimizer; only then does the name read well on the Keras optimizer.
    if optimizer.local_name is not None:
        local = optimizer.local_name
        optimizer.hoisted_name = local if not plan.taken_globally(local) else fresh_name(local, plan.taken)
        optimizer.removals.append((site.function, optimizer.position))
        return None
    reusable = site.target is not None and "opt" in site.target.lower() and plan.count(site.target) == 1
    base = _serving_name(site.function.name.value)
    optimizer.hoisted_name = site.target if reusable else fresh_name(base, plan.taken)
    return None


def _shared(plan: TapePlan, site: Site, optimizer: Optimizer, clash: set[str]) -> None:
    """Another function running the train op of the hoisted optimizer (``discovery`` merged
    the copies): it uses that optimizer, reading nothing else of the function than the same
    fed learning rate."""
    if clash != ({optimizer.fed_rate} if optimizer.fed_rate is not None else set()):
        why = "the functions running this train op give its optimizer different arguments"
        raise Decline(site.call, why)
    if clash:
        schedules.fed_rate(site, optimizer, clash.pop())
    stateless = optimizer_table()[optimizer.tf1_class]["stateless"]
    if site.function not in plan.traced and not stateless:
        why = f"`{site.function.name.value}` runs the train op of a stateful optimizer eagerly"
        why += "; decorate it with tf.function"
        raise Decline(site.call, why)
    return None


def _serving_name(function: str) -> str:
    """The name of the optimizer of the step ``function``, after what it serves:
    ``train_generator_step`` -> ``generator_optimizer``; ``optimizer`` when nothing but
    ``train``, ``step`` and numbers is left (``train_step_2``: a name cannot start with one)."""
    parts = [part for part in function.split("_") if part and part not in ("train", "step")]
    while parts and not parts[0][0].isalpha():
        parts.pop(0)
    name = "_".join([*parts, "optimizer"])
    return name if name.isidentifier() else "optimizer"


def _made_where_defined(plan: TapePlan, site: Site, optimizer: Optimizer, local: set[str]) -> None:
    """Whether the optimizer of a step defined in a function reads that function's names: it
    is then made there, before the step's definition (``Optimizer.enclosed``). Declines when
    that function binds one of them again after the definition."""
    enclosing = plan.enclosing.get(site.function)
    if enclosing is None:
        return None
    read = names_read(optimizer.call) - local
    if optimizer.schedule is not None:
        read |= names_read(optimizer.schedule[1])
    outer = list(enclosing.body.body)
    at = next(index for index, statement in enumerate(outer) if statement is site.function)
    enclosing_names = set(parameter_names(enclosing)) | local_names(enclosing)
    optimizer.enclosed = optimizer.enclosed or bool(read & enclosing_names)
    later = set().union(*(bound_names(statement) for statement in outer[at + 1 :]))
    rebound = sorted(read & later) if optimizer.enclosed else []
    if rebound:
        raise Decline(
            site.call,
            f"the optimizer's arguments use `{rebound[0]}`, which `{enclosing.name.value}` binds again after "
            f"`{site.function.name.value}` is defined",
        )
    return None


def _dependencies(plan: TapePlan, site: Site) -> None:
    """Decide what becomes of ``with tf.control_dependencies(deps):`` around the site.

    TF1 code wraps ``minimize`` in the update ops of ``tf.layers`` batch normalisation
    (``UPDATE_OPS``). With nothing in the file that adds update ops the collection is
    empty and the block goes; other dependencies are kept around the update.
    """
    assert site.dependencies is not None
    deps = site.dependencies.items[0].item.args
    if len(deps) != 1:
        raise Decline(site.call, "its `control_dependencies` arguments could not be read")
    collection = graph_collections.update_ops_collection(deps[0].value, plan.module, plan.tf)
    if collection is None:
        return None
    if graph_collections.adds_update_ops(plan.module, plan.tf):
        raise Decline(
            site.call,
            (
                "it depends on UPDATE_OPS and the file has layers that add update ops (batch "
                "normalisation): migrate them to Keras layers, which update themselves, first"
            ),
        )
    site.drop_dependencies = True
    return None


def _variables(
    plan: TapePlan, var_list: Optional[cst.BaseExpression], site: Site, taken: set[str], tape: str
) -> tuple[str, Optional[str]]:
    """(expression naming the variables, optional binding line, after the tape block ``tape``
    records the loss); declines when they cannot be named."""
    if not is_none(var_list):
        assert var_list is not None
        collection = (
            graph_collections.trainable_collection_read(var_list, plan.tf) if isinstance(var_list, cst.Call) else None
        )
        if collection is not None:
            # In a TF2 function the collection is empty: the list must be written out here.
            listed = module_variables.listed_variables(plan.inventory, site.top, True, collection[0])
            if isinstance(listed, str):
                raise Decline(site.call, f"its var_list reads the trainable-variables collection and {listed}")
            if isinstance(listed, cst.List) and not listed.elements:
                raise Decline(site.call, "its var_list is empty (TF1 raises 'No variables to optimize')")
            return source(listed), None
        if isinstance(var_list, cst.Name):
            _collection_name(plan, var_list.value, site.call)
        if isinstance(var_list, (cst.Name, cst.Attribute, cst.List, cst.Tuple)):
            return source(var_list), None
        name = fresh_name("variables", taken)
        return name, f"{name} = {source(var_list)}"
    problem = plan.inventory.problem_before(site.top)
    if problem is not None:
        return _watched(plan, site, taken, tape, problem)
    variables = plan.inventory.before(site.top, trainable_only=True)
    if not variables:
        raise Decline(site.call, "no trainable variable is created before it")
    return source(module_variables.variable_list(variables)), None


def _watched(plan: TapePlan, site: Site, taken: set[str], tape: str, problem: str) -> tuple[str, str]:
    """The variables of a ``minimize`` without ``var_list`` whose file's variables cannot be
    listed (made in functions, by imported code): the trainable variables the tape saw read.

    TF1 differentiated every variable of the trainable collection and updated those with a
    gradient; a variable the loss depends on is read while the tape records it, and the
    others get no gradient in either (Keras skips them as TF1 did). That holds only while the
    collection is every trainable variable made: code editing it declines.
    """
    if site.method != "minimize":
        # compute_gradients' pairs would lack TF1's ``(None, variable)`` entries.
        raise Decline(
            site.call,
            f"it takes every trainable variable and the file's variables cannot be listed ({problem}); pass `var_list`",
        )
    edited = _collection_edit(plan)
    if edited is not None:
        raise Decline(
            site.call,
            f"it trains the trainable-variables collection, which {edited} changes, and the file's variables "
            f"cannot be listed ({problem}); pass `var_list`",
        )
    name = fresh_name("variables", taken)
    taken.add(name)
    return name, f"{name} = {tape}.watched_variables()"


def _collection_edit(plan: TapePlan) -> Optional[str]:
    """The first call of the file that may change TF1's variable collections by hand, as text."""
    for call in calls_in(plan.module):
        if plan.tf.tf_symbol(call.func) is None:
            continue
        edits = plan.tf.is_tf(call.func, "add_to_collection", "add_to_collections", "get_collection_ref")
        if edits or any(arg.keyword is not None and arg.keyword.value == "collections" for arg in call.args):
            return f"`{source(call.func)}`"
    return None


def _collection_name(plan: TapePlan, name: str, node: cst.CSTNode) -> None:
    """Declines (at ``node``) when a var_list named ``name`` may go empty in TF2.

    ``params = tf.trainable_variables()`` at module level only keeps its TF1 meaning once
    collections-to-tracking writes the list out; that needs the same facts as here.
    """
    bound = module_variables.module_assignment(plan.module, name)
    if bound is None or not isinstance(bound[1], cst.Call):
        return None
    collection = graph_collections.trainable_collection_read(bound[1], plan.tf)
    if collection is None:
        return None
    listed = module_variables.listed_variables(plan.inventory, bound[0], True, collection[0], eager=True)
    if isinstance(listed, str):
        raise Decline(
            node,
            f"its var_list `{name}` reads the trainable-variables collection, which TF2 does not keep, and {listed}",
        )
    return None


def _plain_step(args: dict[str, cst.BaseExpression]) -> bool:
    """Whether ``global_step`` is absent or a name/attribute (a variable made elsewhere).

    ``tf.train.get_or_create_global_step()`` inside a step would look the variable up in
    graph collections, which TF2 functions do not share.
    """
    step = args.get("global_step")
    return is_none(step) or isinstance(step, (cst.Name, cst.Attribute))


def _global_step(args: dict[str, cst.BaseExpression]) -> list[str]:
    step = args.get("global_step")
    return [] if is_none(step) else [f"{source(step)}.assign_add(1)"]


def built(
    plan: TapePlan, editor: Editor, optimizer: Optimizer, keras: KerasOptimizer
) -> Optional[list[cst.BaseStatement]]:
    """Statements that build the Keras optimizer on the variables it trains, placed after the
    module statement holding its last step, and set the slots TF1 started elsewhere than
    Keras (RMSProp's accumulators at 1.0); None when the optimizer or the variables cannot be
    named there (then, for RMSProp, the maths differ, as the table says).

    Built there, the optimizer has its slots (Adam's moments) before the step first runs: a
    Keras optimizer otherwise makes them in its first ``apply_gradients``, inside the
    ``tf.function`` step, which is then traced twice (variables made on a first call)."""
    listed = {site.variables for site in optimizer.sites if site.method != "apply_gradients"}
    if len(listed) != 1 or None in listed or optimizer.enclosed:
        return None
    variables = listed.pop()
    top = max(site.top for site in optimizer.sites)
    if "trainable_variables" in variables and not _made_before(plan, variables, top):
        # Keras layers (and modules making variables when called) make them on their first
        # call, in the step: none yet here.
        return None
    bound = set().union(*(bound_names(statement) for statement in plan.module.body[:top]))
    if not names_read(cst.parse_expression(variables)) <= bound:
        return None
    name = optimizer.name or optimizer.hoisted_name
    slot = fresh_name("slot", plan.taken)
    lines = [f"{name}.build({variables})"]
    for suffix, value in keras.slot_starts.items():
        fill = (
            f"{source(editor.tf_expr('ones_like'))}({slot})"
            if value == 1.0
            else f"{source(editor.tf_expr('fill'))}({slot}.shape, {value!r})"
        )
        lines.append(
            f"# TF1's {optimizer.tf1_class} started these slots at {value!r}; Keras starts them at 0.\n"
            f"for {slot} in {name}.variables:\n"
            f'    if {slot}.name.endswith("_{suffix}"):\n'
            f"        {slot}.assign({fill})\n"
        )
    return [fitted(cst.parse_statement(lines[0]), plan.width, 0)] + [cst.parse_statement(line) for line in lines[1:]]


def _made_before(plan: TapePlan, variables: str, top: int) -> bool:
    """Whether each object whose ``trainable_variables`` the list ``variables`` reads is a
    ``tf.Module`` made at module level before ``module.body[top]`` that makes its variables
    when constructed (``module_variables.made_in_init``): they exist there, unlike a Keras layer's."""
    expression = cst.parse_expression(variables)
    items = [e.value for e in expression.elements] if isinstance(expression, cst.List) else [expression]
    owners = [
        item.value for item in items if isinstance(item, cst.Attribute) and item.attr.value == "trainable_variables"
    ]
    if len(owners) != sum("trainable_variables" in source(item) for item in items):
        return False
    for owner in owners:
        made = plan.inventory.variable(owner.value) if isinstance(owner, cst.Name) else None
        if made is None or not (made.keras and made.built) or made.index >= top:
            return False
    return bool(owners)
