"""The train ops of a model class's ``__init__`` (``optimizer.minimize(cost)``) and their
optimizers."""

from __future__ import annotations

import libcst as cst

from tfmodernize.analysis.optimizers import optimizer_table
from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.model_class_to_module.model import (
    ClassModel,
    Kind,
    OptimizerUse,
    attribute_reads,
    graph_reads,
    has_tf,
    key_of,
    rebound_names,
    tf_path,
)
from tfmodernize.codemods.migrate.model_class_to_module.variable_helpers import (
    check_plain_arguments,
)
from tfmodernize.names import name_nodes, names_read
from tfmodernize.tfsymbols import TFNames


def read_train(model: ClassModel, tf: TFNames, parameters: set[str], call: cst.Call) -> dict:
    """What ``<optimizer>.minimize(loss, global_step, var_list)`` is made of (``Node``'s fields)."""
    receiver = call.func.value
    args = {}
    for position, arg in enumerate(call.args):
        if arg.star:
            raise Decline(call, "the arguments of `minimize` could not be read")
        key = arg.keyword.value if arg.keyword is not None else ("loss", "global_step", "var_list")[position]
        if key not in ("loss", "global_step", "var_list"):
            raise Decline(call, f"`minimize` is given `{key}`, which this migration does not carry over")
        args[key] = arg.value
    loss = args.get("loss")
    loss_key = key_of(loss) if loss is not None else None
    if loss_key is None or loss_key not in model.nodes or model.nodes[loss_key].kind is not Kind.TENSOR:
        raise Decline(call, "`minimize` is not given a tensor `__init__` computed by name")
    for key in ("global_step", "var_list"):
        if key in args and (graph_reads(model.nodes, args[key]) or has_tf(args[key], tf)):
            raise Decline(call, f"the `{key}` of `minimize` is not made of the model's variables")
        for read in attribute_reads(args.get(key)):
            held = model.nodes.get(f"self.{read}")
            if held is None or held.kind is not Kind.VARIABLE:
                raise Decline(call, f"the `{key}` of `minimize` reads `self.{read}`, which is no variable")
        if key in args and names_read(args[key]) - {"self"}:
            raise Decline(call, f"the `{key}` of `minimize` reads a local of `__init__`")
    return {
        "reads": (loss_key,),
        "optimizer": optimizer_use(model, tf, parameters, receiver),
        "global_step": args.get("global_step"),
        "var_list": args.get("var_list"),
    }


def optimizer_use(
    model: ClassModel,
    tf: TFNames,
    parameters: set[str],
    receiver: cst.BaseExpression,
) -> OptimizerUse:
    """What ``minimize`` is called on: a TF1 optimizer made inline, bound in ``__init__``, or
    passed in as a parameter (with a TF1 optimizer or nothing as its default)."""
    if isinstance(receiver, cst.Call):
        path = tf_path(receiver.func, tf) or ""
        tf1_class = path[len("train.") :]
        if not (path.startswith("train.") and tf1_class in optimizer_table()):
            raise Decline(receiver, "`minimize` is called on something other than a TF1 optimizer")
        check_plain_arguments(model, receiver)
        return OptimizerUse(tf1_class, receiver)
    key = key_of(receiver)
    if key is not None and key in model.nodes:
        bound = model.nodes[key]
        if bound.kind is not Kind.OPTIMIZER or bound.optimizer is None:
            raise Decline(receiver, f"`minimize` is called on `{key}`, which is no TF1 optimizer")
        if any(n.kind is Kind.TRAIN and n.optimizer.binding is bound for n in model.nodes.values()):
            raise Decline(receiver, f"the optimizer `{key}` minimizes two losses")
        return OptimizerUse(bound.optimizer.tf1_class, bound.optimizer.call, binding=bound)
    if isinstance(receiver, cst.Name) and receiver.value in parameters:
        return parameter_optimizer(model, tf, receiver)
    raise Decline(receiver, "`minimize` is called on an optimizer this migration cannot follow")


def parameter_optimizer(model: ClassModel, tf: TFNames, receiver: cst.Name) -> OptimizerUse:
    name = receiver.value
    params = model.init.params
    param = next(p for p in [*params.posonly_params, *params.params, *params.kwonly_params] if p.name.value == name)
    uses = [n for n in name_nodes(model.init.body) if n.value == name]
    if uses != [receiver] or any(isinstance(n, cst.Name) and n.value == name for n in rebound_names(model.init)):
        raise Decline(receiver, f"the parameter `{name}` is read other than by its `minimize`")
    default = param.default
    if default is None or (isinstance(default, cst.Name) and default.value == "None"):
        return OptimizerUse("", None, parameter=name)
    path = tf_path(default.func, tf) if isinstance(default, cst.Call) else None
    tf1_class = (path or "")[len("train.") :]
    if not (path or "").startswith("train.") or tf1_class not in optimizer_table():
        raise Decline(default, f"the default of `{name}` is not a TF1 optimizer made there")
    check_plain_arguments(model, default)
    return OptimizerUse(tf1_class, default, parameter=name)
