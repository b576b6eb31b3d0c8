"""What update a TF1 optimizer's ``minimize`` becomes, read off the call and the file: plain
descent written as the update itself (``plain_rate``), the class ``fused`` writes and its
arguments (``fused_arguments``), or a Keras optimizer whose learning rate and float32 literals
are read as TF1 read them (``variable_rate``, ``float32_literals``)."""

from __future__ import annotations

import dataclasses
import re
import struct
from typing import Optional

import libcst as cst

from tfmodernize.analysis import module_variables
from tfmodernize.analysis.optimizers import KerasOptimizer, optimizer_table
from tfmodernize.codemods.migrate.minimize_to_tape import fused
from tfmodernize.codemods.migrate.minimize_to_tape.model import Optimizer, bound_arguments
from tfmodernize.codemods.migrate.minimize_to_tape.plan import TapePlan
from tfmodernize.names import bound_names, local_names, parameter_names
from tfmodernize.syntax import calls_in, source


#: A Keras optimizer with its learning rate read as TF1 did, or None and why not.
Rated = tuple[Optional[KerasOptimizer], str]


def variable_rate(plan: TapePlan, keras: KerasOptimizer, optimizer: Optimizer) -> Rated:
    """``keras`` reading a learning rate held in a module variable (``lr = tf.Variable(0.01)``,
    changed by ``lr.assign(...)`` between steps) at each step, as TF1 read it: Keras takes no
    variable there, but a callable it calls at each update (``learning_rate=lambda: lr``)."""
    keywords = [arg for arg in keras.args if arg.keyword is not None]
    rate = next((arg for arg in keywords if arg.keyword.value == "learning_rate"), None)
    if rate is None or not isinstance(rate.value, cst.Name):
        return keras, ""
    name = rate.value.value
    if plan.inventory.variable(name) is None:
        return keras, ""
    function = optimizer.function
    if function is None and optimizer.name is None:
        function = optimizer.sites[0].function
    if function is not None and name in {*parameter_names(function), *local_names(function)}:
        return keras, ""  # the function's own name (a fed rate, a decay), not the module's variable
    differs = optimizer_table()[optimizer.tf1_class]["different_with_schedule"]
    if differs is not None:
        return None, f"its learning rate is the variable `{name}`, which may change, and {differs}"
    read = cst.Lambda(params=cst.Parameters(), body=rate.value)
    args = tuple(arg.with_changes(value=read) if arg is rate else arg for arg in keras.args)
    return dataclasses.replace(keras, args=args), ""


def plain_rate(plan: TapePlan, optimizer: Optimizer, text: str) -> Optional[str]:
    """The learning rate of a ``GradientDescentOptimizer`` whose steps can subtract it times the
    gradient from each variable themselves, as code, or None (the Keras optimizer stays).

    The rate must be a number, written in the call or in a module name bound once to one (read
    when the step is traced, as Keras read it when made); every step a ``minimize`` (a named
    optimizer used otherwise is declined by ``discovery``). The file must not look rows up (a sparse gradient: TF1 scattered it into the rows,
    where a dense one sums duplicates first) nor name a float dtype other than float32 (TF1
    read the rate as a float32 tensor cast to the variable's dtype, Python multiplies in it)."""
    if optimizer.tf1_class != "GradientDescentOptimizer" or optimizer.enclosed:
        return None
    if any(site.method != "minimize" for site in optimizer.sites) or not optimizer.sites:
        return None
    args = bound_arguments(optimizer.call, ("learning_rate", "use_locking", "name"))
    rate = (args or {}).get("learning_rate")
    if rate is None or not _constant_number(plan, rate):
        return None
    if looks_rows_up(plan.module) or re.search(r"\b(float64|double|float16|half|bfloat16)\b", text):
        return None
    return source(rate)


def _constant_number(plan: TapePlan, rate: cst.BaseExpression) -> bool:
    """Whether ``rate`` is a number literal or a name the file binds once, at module level, to
    one."""
    if isinstance(rate, (cst.Integer, cst.Float)):
        return True
    if not isinstance(rate, cst.Name):
        return False
    # Bound by one module statement, and by no function (the def statement binds its insides).
    if sum(rate.value in bound_names(statement) for statement in plan.module.body) != 1:
        return False
    bound = module_variables.module_assignment(plan.module, rate.value)
    return bound is not None and isinstance(bound[1], (cst.Integer, cst.Float))


def fused_arguments(
    plan: TapePlan, optimizer: Optimizer, keras: KerasOptimizer, given: tuple[cst.Arg, ...]
) -> Optional[tuple[cst.Arg, ...]]:
    """The arguments of the class ``fused`` writes for ``optimizer`` (the ones the TF1 call
    gave, in Keras' names; the class's defaults are TF1's), or None when the Keras optimizer
    stays: Keras keeps TF1's numbers for it, or its learning rate is a schedule, fed, or read
    from a variable (the class takes a number), or, for RMSProp, the file looks rows up
    (``tf.gather``, ``embedding_lookup``): a sparse gradient, which TF1 applied to those rows
    only."""
    if fused.fused_class(optimizer.tf1_class) is None:
        return None
    if optimizer.schedule is not None or optimizer.fed_rate is not None:
        return None
    if any(isinstance(arg.value, cst.Lambda) for arg in keras.args):
        return None
    if optimizer.tf1_class == "RMSPropOptimizer" and looks_rows_up(plan.module):
        return None
    dropped = {*keras.defaulted, "name"}
    return tuple(arg for arg in given if arg.keyword is not None and arg.keyword.value not in dropped)


def looks_rows_up(module: cst.Module) -> bool:
    """Whether the file calls something named like a row look-up (``gather``,
    ``embedding_lookup``...), whose gradient is sparse."""
    for call in calls_in(module):
        func = call.func
        name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
        if "gather" in name or "embedding_lookup" in name:
            return True
    return False


def float32_literals(keras: KerasOptimizer, tf1_class: str) -> KerasOptimizer:
    """``keras`` with the literal values of the table's ``float32_arguments`` (Adam's betas)
    rounded to float32 as TF1 read them: Keras subtracts them from 1 in Python floats, TF1 in
    float32 (``1 - 0.9f``), and only the rounded value gives TF1's ``1 - beta``."""
    rounded = set(optimizer_table()[tf1_class].get("float32_arguments", ()))
    if not rounded:
        return keras
    args = []
    for arg in keras.args:
        value = arg.value
        if arg.keyword is not None and arg.keyword.value in rounded and isinstance(value, (cst.Float, cst.Integer)):
            number = _float32(float(value.value))
            if number is not None and number != float(value.value):
                arg = arg.with_changes(value=cst.Float(repr(number)))
        args.append(arg)
    return dataclasses.replace(keras, args=tuple(args))


def _float32(value: float) -> Optional[float]:
    """``value`` rounded to the nearest float32 (``float(np.float32(value))``), or ``None`` when
    float32 cannot hold it."""
    try:
        return struct.unpack("f", struct.pack("f", value))[0]
    except (OverflowError, struct.error):
        return None
