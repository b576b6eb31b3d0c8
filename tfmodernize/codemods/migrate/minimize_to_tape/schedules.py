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
from tfmodernize.names import bound_names, names_read


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
    _counts_only_here(plan, step.value, site.call)
    keras_path = f"keras.optimizers.schedules.{schedule.keras}"
    optimizer.schedule = (name, cst.Call(editor.tf_expr(keras_path), args=list(schedule.args)))
    optimizer.removals.append((site.function, position))
    return None


def _counts_only_here(plan: TapePlan, step: str, node: cst.CSTNode) -> None:
    """Declines (at ``node``) when ``step`` may differ from the optimizer's iteration count."""
    variable = plan.inventory.variable(step)
    if variable is None or variable.trainable or not variable.zero_start:
        raise Decline(node, f"`{step}` is not a step counter created at 0, so a Keras schedule would read other steps")
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
