"""Finding the TF1 optimizers of a module and every statement using them (the sites), and
the uses that keep an optimizer from migrating: functions of the file's ``TFNames``."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tfmodernize.names import bound_names, names_read
from tfmodernize.syntax import calls_in, function_definitions, source
from tfmodernize.treewalk import walk
from tfmodernize.codemods.migrate.minimize_to_tape.model import METHODS, LatestBinding, Optimizer, Site, tf1_optimizer
from tfmodernize.tfsymbols import TFNames


def find_optimizers(tf: TFNames, module: cst.Module) -> list[Optimizer]:
    """The TF1 optimizers ``module`` makes, each with the statements using it (its sites)."""
    # A module-level name may be bound to a new optimizer for each model a program builds
    # (one per graph): a function's sites belong to the binding made before the function.
    bindings: dict[str, list[tuple[int, Optimizer]]] = {}
    for index, statement in enumerate(module.body):
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if (
                isinstance(small, cst.Assign)
                and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name)
            ):
                tf1_class = tf1_optimizer(tf, small.value)
                if tf1_class is not None:
                    assert isinstance(small.value, cst.Call)
                    name = small.targets[0].target.value
                    bindings.setdefault(name, []).append((index, Optimizer(tf1_class, small.value, name)))
    by_name = LatestBinding(bindings)
    inline: list[Optimizer] = []
    receivers: set[int] = set()
    for top, function in function_definitions(module):
        if not isinstance(function.body, cst.IndentedBlock):
            continue
        local: dict[str, Optimizer] = {}
        for position, line in enumerate(function.body.body):
            constructor = _local_constructor(tf, line)
            if constructor is not None:
                name, tf1_class, call = constructor
                local[name] = Optimizer(tf1_class, call, None, function=function, position=position, local_name=name)
                continue
            site = _site(tf, function, position, top, line)
            if site is None:
                continue
            if isinstance(site.receiver, cst.Name) and site.receiver.value in local:
                local[site.receiver.value].sites.append(site)
                receivers.add(id(site.receiver))
            elif isinstance(site.receiver, cst.Name) and by_name.at(site.receiver.value, top) is not None:
                by_name.at(site.receiver.value, top).sites.append(site)
                receivers.add(id(site.receiver))
            elif site.method in ("minimize", "apply_gradients") and tf1_optimizer(tf, site.receiver):
                assert isinstance(site.receiver, cst.Call)
                optimizer = Optimizer(tf1_optimizer(tf, site.receiver), site.receiver, None, [site])
                inline.append(optimizer)
        for optimizer in local.values():
            _other_local_uses(optimizer, receivers)
            inline.append(optimizer)
    _other_uses(module, by_name, receivers)
    return [*by_name.all(), *_one_per_train_op(module, inline)]


def _one_per_train_op(module: cst.Module, inline: list[Optimizer]) -> list[Optimizer]:
    """``inline`` with the copies of one train op merged into one optimizer.

    A train op that several ``sess.run`` calls fetch with different companions (its loss,
    a summary) goes into each function session-to-function makes of them: the same
    ``tf.train.X(...).minimize(...)`` statement in several module-level functions. TF1 ran
    one optimizer there (one Adam moment, one step count); its copies share one Keras
    optimizer. Only copies whose optimizer reads nothing of the function, or the same fed
    learning rate (a parameter of each), are merged: the hoisted optimizer is then the same.
    """
    merged: list[Optimizer] = []
    first: dict[str, Optimizer] = {}
    for optimizer in inline:
        key = _train_op_text(module, optimizer)
        if key is None:
            merged.append(optimizer)
        elif key in first and not _runs_in(first[key], optimizer.sites[0].function):
            first[key].sites.extend(optimizer.sites)
        else:
            first.setdefault(key, optimizer)
            merged.append(optimizer)
    return merged


def _runs_in(optimizer: Optimizer, function: cst.FunctionDef) -> bool:
    return any(site.function is function for site in optimizer.sites)


def _train_op_text(module: cst.Module, optimizer: Optimizer) -> Optional[str]:
    """The code of an inline optimizer's one statement, with the names its constructor reads
    from the function, when it can be shared with copies of it in other functions."""
    if optimizer.local_name is not None or len(optimizer.sites) != 1:
        return None
    site = optimizer.sites[0]
    if module.body[site.top] is not site.function:
        return None
    params = {param.name.value for param in site.function.params.params}
    bound = params | set().union(*(bound_names(line) for line in site.function.body.body))
    clash = names_read(optimizer.call) & bound
    if not (clash <= params and len(clash) <= 1):
        return None
    return f"{sorted(clash)} {source(site.dependencies or site.line)}"


def _local_constructor(tf: TFNames, line: cst.BaseStatement) -> Optional[tuple[str, str, cst.Call]]:
    if not (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1):
        return None
    small = line.body[0]
    if not (
        isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name)
    ):
        return None
    tf1_class = tf1_optimizer(tf, small.value)
    if tf1_class is None:
        return None
    assert isinstance(small.value, cst.Call)
    return small.targets[0].target.value, tf1_class, small.value


def _other_local_uses(optimizer: Optimizer, receivers: set[int]) -> None:
    assert optimizer.function is not None and optimizer.position is not None
    for position, line in enumerate(optimizer.function.body.body):
        if position == optimizer.position:
            continue
        for node in walk(line, code_only=True):
            if isinstance(node, cst.Name) and node.value == optimizer.local_name and id(node) not in receivers:
                optimizer.problem = (
                    node,
                    f"`{node.value}` is used here in a way minimize-to-tape does not rewrite",
                )
                return
    if not optimizer.sites:
        optimizer.problem = (
            optimizer.call,
            f"`{optimizer.local_name}` is not used by any statement minimize-to-tape rewrites",
        )


def _site(tf: TFNames, function: cst.FunctionDef, position: int, top: int, line: cst.BaseStatement) -> Optional[Site]:
    if (
        isinstance(line, cst.With)
        and len(line.items) == 1
        and isinstance(line.items[0].item, cst.Call)
        and tf.is_tf(line.items[0].item.func, "control_dependencies")
        and isinstance(line.body, cst.IndentedBlock)
        and len(line.body.body) == 1
    ):
        site = _site(tf, function, position, top, line.body.body[0])
        if site is not None and not site.keep_statement:
            site.dependencies = line
        return site
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return None
    small = line.body[0]
    inner = [
        c for c in calls_in(small) if isinstance(c.func, cst.Attribute) and c.func.attr.value == "compute_gradients"
    ]
    if len(inner) == 1 and not (isinstance(small, (cst.Assign, cst.Expr)) and small.value is inner[0]):
        call = inner[0]
        return Site(
            function, position, top, "compute_gradients", call, line, None, call.func.value, keep_statement=True
        )
    target = None
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
        target, value = small.targets[0].target.value, small.value
    elif isinstance(small, cst.Expr):
        value = small.value
    else:
        return None
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value in METHODS):
        return None
    return Site(function, position, top, value.func.attr.value, value, line, target, value.func.value)


def _other_uses(module: cst.Module, by_name: LatestBinding, receivers: set[int]) -> None:
    """An optimizer used anywhere but its constructor and recognised sites stays TF1."""
    if not by_name.all():
        return
    constructors = {id(o.call) for o in by_name.all()}
    targets = {
        id(target.target)
        for node in walk(module, code_only=True)
        if isinstance(node, cst.Assign) and id(node.value) in constructors
        for target in node.targets
    }
    for node in walk(module, code_only=True):
        if not isinstance(node, cst.Name) or id(node) in receivers or id(node) in targets:
            continue
        for optimizer in by_name.named(node.value):
            if optimizer.problem is not None:
                continue
            optimizer.problem = (
                node,
                f"`{node.value}` is used here in a way minimize-to-tape does not rewrite "
                "(only `minimize`, `compute_gradients` and `apply_gradients` statements "
                "in a function body)",
            )
