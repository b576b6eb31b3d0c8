"""A TF1 learning-rate decay of ``global_step`` -> the Keras schedule reading the optimizer's
``iterations``, where the two count the same steps; a fed learning rate assigned at each step.
Functions of the ``TapePlan`` read and the ``Editor`` spelling TF names."""

from __future__ import annotations


import libcst as cst

from tfmodernize.analysis.optimizers import keras_schedule, optimizer_table, schedule_table
from tfmodernize.treewalk import walk
from tfmodernize.codemods.migrate.minimize_to_tape.model import Optimizer, Site
from tfmodernize.codemods.migrate.minimize_to_tape.plan import Editor, TapePlan
from tfmodernize.codemod import Decline
from tfmodernize.analysis.variable_calls import MadeVariable, made_variable
from tfmodernize.names import bound_names, local_names, names_read, parameter_names
from tfmodernize.syntax import calls_in, name_assignment


def fed_rate(site: Site, optimizer: Optimizer, name: str) -> None:
    """A learning rate fed at each run (a placeholder, a parameter once session-to-function
    made the step a function): the Keras optimizer is built once and each step assigns the
    value to its ``learning_rate`` before applying the gradients, as TF1 used the fed value."""
    body = list(site.function.body.body)
    users = {site.position, optimizer.position}
    if any(name in names_read(line) for position, line in enumerate(body) if position not in users):
        raise Decline(site.call, f"the learning rate `{name}` is used for more than the optimizer")
    passed = [
        arg
        for position, arg in enumerate(optimizer.call.args)
        if (arg.keyword is None and position == 0) or (arg.keyword is not None and arg.keyword.value == "learning_rate")
    ]
    if not (len(passed) == 1 and isinstance(passed[0].value, cst.Name) and passed[0].value.value == name):
        raise Decline(site.call, f"the optimizer's arguments use `{name}` other than as its learning rate")
    differs = optimizer_table()[optimizer.tf1_class]["different_with_schedule"]
    if differs is not None:
        raise Decline(site.call, f"its learning rate `{name}` changes between steps, and {differs}")
    optimizer.fed_rate = name


def schedule(
    plan: TapePlan, editor: Editor, site: Site, optimizer: Optimizer, name: str, global_step, bound: set[str]
) -> None:
    """``lr = tf.train.exponential_decay(lr0, global_step, ...)`` -> a Keras schedule.

    A schedule reads the optimizer's ``iterations``; that equals TF1's ``global_step`` only
    when the step starts at 0 and this update is the only thing that increments it.
    """
    local = f"the optimizer's arguments use `{name}`, which only exists inside the function"
    body = list(site.function.body.body)
    definitions = [(position, line) for position, line in enumerate(body[: site.position]) if name in bound_names(line)]
    if len(definitions) != 1:
        raise Decline(site.call, local)
    position, line = definitions[0]
    small = line.body[0] if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 else None
    if not (isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.value, cst.Call)):
        raise Decline(site.call, local)
    symbol = plan.tf.tf_symbol(small.value.func)
    table = schedule_table()
    if symbol is None or not symbol.path.startswith("train.") or symbol.path[6:] not in table:
        raise Decline(site.call, local)
    users = (position, site.position, optimizer.position)
    uses = [s for i, s in enumerate(body) if i not in users and name in names_read(s)]
    if uses or not any(
        arg.value is not None and isinstance(arg.value, cst.Name) and arg.value.value == name
        for arg in optimizer.call.args
    ):
        raise Decline(site.call, f"the learning rate `{name}` is used for more than the optimizer")
    differs = optimizer_table()[optimizer.tf1_class]["different_with_schedule"]
    if differs is not None:
        raise Decline(site.call, f"its learning rate `{name}` decays, and {differs}")
    schedule, step = keras_schedule(small.value, symbol.path[6:])
    if schedule is None:
        raise Decline(site.call, f"`{name}`: {step}")
    if not (isinstance(step, cst.Name) and isinstance(global_step, cst.Name) and step.value == global_step.value):
        raise Decline(
            site.call, f"the learning rate `{name}` decays with another step than this update's `global_step`"
        )
    if names_read(small.value) & (bound - {step.value}):
        raise Decline(site.call, f"the learning rate `{name}` depends on values computed in the function")
    _counts_only_here(plan, site, step.value)
    enclosing = plan.enclosing.get(site.function)
    if enclosing is not None and step.value in _names_of(enclosing):
        # The counter is the function's: so is the optimizer whose iterations stand for it.
        optimizer.enclosed = True
    keras_path = f"keras.optimizers.schedules.{schedule.keras}"
    optimizer.schedule = (name, cst.Call(editor.tf_expr(keras_path), args=list(schedule.args)))
    optimizer.schedule_step = step.value
    optimizer.decay = small.value
    optimizer.removals.append((site.function, position))
    return None


def reads(plan: TapePlan, site: Site, optimizer: Optimizer) -> None:
    """The other calls of the optimizer's TF1 decay (``Optimizer.schedule_reads``): those in the
    functions of the scope the schedule is made in (the module, or the function defining the
    step), each function called only once that scope has made the schedule."""
    assert optimizer.decay is not None
    enclosing = plan.enclosing.get(site.function) if optimizer.enclosed else None
    scope = list(enclosing.body.body if enclosing is not None else plan.module.body)
    made = next(index for index, statement in enumerate(scope) if any(n is site.function for n in walk(statement)))
    found = []
    for index, statement in enumerate(scope):
        if not isinstance(statement, cst.FunctionDef) or statement is site.function:
            continue
        calls = [call for call in calls_in(statement) if call.deep_equals(optimizer.decay)]
        # Called before the schedule is made, the function would not find it.
        early = any(statement.name.value in names_read(line) for line in scope[:made] if line is not statement)
        if calls and not early:
            found += calls
    optimizer.schedule_reads = found


def _counts_only_here(plan: TapePlan, site: Site, step: str) -> None:
    """Declines (at the site) when ``step`` may differ from the optimizer's iteration count."""
    node = site.call
    enclosing = plan.enclosing.get(site.function)
    if enclosing is not None and step in _names_of(enclosing):
        if not _zero_counter(plan, enclosing, step):
            raise Decline(
                node, f"`{step}` is not a step counter created at 0, so a Keras schedule would read other steps"
            )
    else:
        variable = plan.inventory.variable(step)
        if variable is None or variable.trainable or not variable.zero_start:
            raise Decline(
                node, f"`{step}` is not a step counter created at 0, so a Keras schedule would read other steps"
            )
    increments = 0
    for node in walk(plan.module, code_only=True):
        if isinstance(node, cst.Arg) and node.keyword is not None and node.keyword.value == "global_step":
            increments += isinstance(node.value, cst.Name) and node.value.value == step
        elif (
            isinstance(node, cst.Attribute)
            and isinstance(node.value, cst.Name)
            and node.value.value == step
            and node.attr.value.startswith(("assign", "scatter"))
        ):
            increments += 2
        elif (
            isinstance(node, cst.Call)
            and plan.tf.tf_symbol(node.func) is not None
            and plan.tf.tf_symbol(node.func).path.startswith("assign")
            and node.args
            and isinstance(node.args[0].value, cst.Name)
            and node.args[0].value.value == step
        ):
            increments += 2
    if increments != 1:
        raise Decline(node, f"`{step}` is also changed elsewhere, so a Keras schedule would read other steps")
    return None


def _names_of(function: cst.FunctionDef) -> set[str]:
    """The names ``function`` binds: its parameters and its locals."""
    return set(parameter_names(function)) | local_names(function)


def _zero_counter(plan: TapePlan, function: cst.FunctionDef, step: str) -> bool:
    """Whether ``function`` binds ``step`` once, to an integer ``tf.Variable`` starting at 0
    (trainable or not: an integer variable never gets a gradient, in TF1 as with a tape)."""
    if step in parameter_names(function):
        return False
    bindings = [statement for statement in function.body.body if step in bound_names(statement)]
    if len(bindings) != 1:
        return False
    assigned = name_assignment(bindings[0])
    if assigned is None or assigned[0] != step or not isinstance(assigned[1], cst.Call):
        return False
    made = made_variable(assigned[1], plan.tf)
    if not isinstance(made, MadeVariable) or made.maker != "Variable" or made.collections is not None:
        return False
    initial = made.initial_value
    dtype = made.dtype
    return (
        isinstance(initial, cst.Integer)
        and initial.evaluated_value == 0
        and (dtype is None or plan.tf.is_tf(dtype, "int32", "int64"))
    )
