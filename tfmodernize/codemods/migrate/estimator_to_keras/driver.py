"""What a program does with one Estimator (``read_driver``): where it is made, with which
model_fn, params, model_dir and RunConfig, and every ``train``, ``evaluate``, ``predict`` and
``train_and_evaluate`` of it (``Site``), its input functions read by ``inputs``; ``driver_code``
writes the TF2 code each becomes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

import libcst as cst

from tfmodernize.analysis.variable_calls import arguments
from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.estimator_to_keras.inputs import input_dataset
from tfmodernize.names import name_nodes, names_bound_here, names_read, own_nodes, parameter_names
from tfmodernize.syntax import is_none
from tfmodernize.tfsymbols import TFNames

ESTIMATOR_PARAMETERS = ("model_fn", "model_dir", "config", "params", "warm_start_from")
TRAIN_PARAMETERS = ("input_fn", "hooks", "steps", "max_steps", "saving_listeners")
EVALUATE_PARAMETERS = ("input_fn", "steps", "hooks", "checkpoint_path", "name")
PREDICT_PARAMETERS = (
    "input_fn",
    "predict_keys",
    "hooks",
    "checkpoint_path",
    "yield_single_examples",
)
TRAIN_AND_EVALUATE_PARAMETERS = ("estimator", "train_spec", "eval_spec")
TRAIN_SPEC_PARAMETERS = ("input_fn", "max_steps", "hooks", "saving_listeners")
EVAL_SPEC_PARAMETERS = ("input_fn", "steps", "name", "hooks", "exporters", "start_delay_secs", "throttle_secs")
#: EvalSpec's evaluation throttling, which a single evaluation at the end has no use for.
EVAL_SPEC_TIMING = ("start_delay_secs", "throttle_secs")
RUN_CONFIG_PARAMETERS = (
    "model_dir",
    "tf_random_seed",
    "save_summary_steps",
    "save_checkpoints_steps",
    "save_checkpoints_secs",
    "session_config",
    "keep_checkpoint_max",
    "keep_checkpoint_every_n_hours",
    "log_step_count_steps",
    "train_distribute",
    "device_fn",
    "protocol",
    "eval_distribute",
    "experimental_distribute",
    "experimental_max_worker_delay_secs",
    "session_creation_timeout_secs",
)
#: RunConfig arguments carried over, and those that only set logging and summaries.
RUN_CONFIG_CARRIED = ("model_dir", "tf_random_seed", "save_checkpoints_steps", "keep_checkpoint_max")
RUN_CONFIG_IGNORED = ("save_summary_steps", "log_step_count_steps")


@dataclass(frozen=True)
class Site:
    """One statement using the Estimator."""

    kind: str  # "train", "evaluate", "predict" or "train_and_evaluate"
    #: The statement a train or train_and_evaluate becomes code for; an evaluate's or a
    #: predict's call is replaced where it is (``call``), in any expression.
    line: Optional[cst.SimpleStatementLine]
    target: Optional[cst.BaseAssignTargetExpression]
    call: Optional[cst.Call] = None
    input: Optional[cst.BaseExpression] = None  # the dataset expression (``input_fn()``)
    steps: Optional[cst.BaseExpression] = None
    max_steps: Optional[cst.BaseExpression] = None
    eval_input: Optional[cst.BaseExpression] = None
    eval_steps: Optional[cst.BaseExpression] = None


@dataclass(frozen=True)
class RunSettings:
    """What a RunConfig sets that the migration carries over."""

    model_dir: Optional[cst.BaseExpression] = None
    seed: Optional[cst.BaseExpression] = None
    save_steps: Optional[cst.BaseExpression] = None
    keep: Optional[cst.BaseExpression] = None


@dataclass(frozen=True)
class Driver:
    """One Estimator of a program and what the program does with it (``read_driver``): the
    plan the codemod and ``driver_code`` write from."""

    call: cst.Call
    line: cst.SimpleStatementLine
    name: str
    model_fn: cst.FunctionDef
    model_dir: Optional[cst.BaseExpression]
    params: Optional[cst.BaseExpression]
    seed: Optional[cst.BaseExpression]
    save_steps: Optional[cst.BaseExpression]
    keep: Optional[cst.BaseExpression]
    sites: list[Site]
    #: Statements that go: the RunConfig, TrainSpec and EvalSpec bound to names.
    removed: list[cst.SimpleStatementLine]

    @property
    def evaluates(self) -> bool:
        return any(site.kind in ("evaluate", "train_and_evaluate") for site in self.sites)

    @property
    def predicts(self) -> bool:
        return any(site.kind == "predict" for site in self.sites)


def read_driver(call: cst.Call, tf: TFNames, parents: dict, module: cst.Module) -> Driver:
    """The Estimator ``call`` makes and its uses, or a ``Decline`` saying why they cannot be read."""
    small = parents.get(id(call))
    line = parents.get(id(small))
    if not (
        isinstance(small, cst.Assign)
        and small.value is call
        and isinstance(line, cst.SimpleStatementLine)
        and len(line.body) == 1
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
    ):
        raise Decline(call, "the Estimator is not bound to a name by a statement of its own")
    name = small.targets[0].target.value
    block = parents.get(id(line))
    scope = parents.get(id(block)) if isinstance(block, cst.IndentedBlock) else block
    if not isinstance(scope, (cst.Module, cst.FunctionDef)):
        raise Decline(call, "the Estimator is made inside a loop, condition or `with` block")
    args = arguments(call, ESTIMATOR_PARAMETERS, what="tf.estimator.Estimator")
    if not is_none(args.get("warm_start_from")):
        raise Decline(call, "the Estimator warm-starts from another model (`warm_start_from`)")
    model_fn = _model_fn(call, args.get("model_fn"), module)
    model_dir = None if is_none(args.get("model_dir")) else args["model_dir"]
    params = None if is_none(args.get("params")) else args["params"]
    body = scope.body if isinstance(scope, cst.Module) else scope.body.body
    statements = list(body)
    removed: list[cst.SimpleStatementLine] = []
    config = args.get("config")
    settings = RunSettings()
    if config is not None and not is_none(config):
        settings = _run_config(_bound_call(config, tf, "estimator.RunConfig", statements, removed))
    sites = _read_sites(call, line, scope, module, tf, statements, parents, removed)
    return Driver(
        call,
        line,
        name,
        model_fn,
        model_dir=model_dir if model_dir is not None else settings.model_dir,
        params=params,
        seed=settings.seed,
        save_steps=settings.save_steps,
        keep=settings.keep,
        sites=sites,
        removed=removed,
    )


def _model_fn(call: cst.Call, node: Optional[cst.BaseExpression], module: cst.Module) -> cst.FunctionDef:
    if not isinstance(node, cst.Name):
        raise Decline(call, "its model_fn is not a function named here")
    found = [s for s in module.body if isinstance(s, cst.FunctionDef) and s.name.value == node.value]
    if len(found) != 1:
        raise Decline(call, f"its model_fn `{node.value}` is not a function defined once at the module's top level")
    uses = [n for n in name_nodes(module) if n.value == node.value]
    if len(uses) != 2:  # its definition and this argument
        raise Decline(call, f"its model_fn `{node.value}` is used elsewhere too; it becomes a class")
    return found[0]


def _bound_call(
    node: cst.BaseExpression,
    tf: TFNames,
    path: str,
    statements: list[cst.BaseStatement],
    removed: list[cst.SimpleStatementLine],
) -> cst.Call:
    """The ``tf.<path>(...)`` call ``node`` is, or the one its name is bound to by a line of the
    same block that nothing else reads (that line then goes: added to ``removed``)."""
    if isinstance(node, cst.Call) and tf.is_tf(node.func, path):
        return node
    if isinstance(node, cst.Name):
        lines = [s for s in statements if _binds(s, node.value)]
        if len(lines) == 1:
            value = lines[0].body[0].value
            reads = sum(1 for s in statements for n in name_nodes(s) if n.value == node.value)
            if isinstance(value, cst.Call) and tf.is_tf(value.func, path) and reads == 2:
                removed.append(lines[0])
                return value
    raise Decline(node, f"it is given a tf.{path} that is not made in the same block and used only there")


def _binds(statement: cst.BaseStatement, name: str) -> bool:
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
        return False
    small = statement.body[0]
    return (
        isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
        and small.targets[0].target.value == name
    )


def _run_config(config: cst.Call) -> RunSettings:
    args = arguments(config, RUN_CONFIG_PARAMETERS, what="tf.estimator.RunConfig")
    for key, value in args.items():
        if key in RUN_CONFIG_CARRIED or key in RUN_CONFIG_IGNORED or is_none(value):
            continue
        raise Decline(config, f"its RunConfig sets `{key}`, which this migration does not carry over")
    return RunSettings(
        model_dir=None if is_none(args.get("model_dir")) else args["model_dir"],
        seed=None if is_none(args.get("tf_random_seed")) else args["tf_random_seed"],
        save_steps=None if is_none(args.get("save_checkpoints_steps")) else args["save_checkpoints_steps"],
        keep=args.get("keep_checkpoint_max"),
    )


def _read_sites(
    call: cst.Call,
    line: cst.SimpleStatementLine,
    scope: Union[cst.Module, cst.FunctionDef],
    module: cst.Module,
    tf: TFNames,
    statements: list[cst.BaseStatement],
    parents: dict,
    removed: list[cst.SimpleStatementLine],
) -> list[Site]:
    """Every use of the Estimator ``line`` binds, in source order (``removed``: the specs that
    go)."""
    assigned = line.body[0].targets[0]
    name = assigned.target.value
    inside = scope.body if isinstance(scope, cst.FunctionDef) else scope
    for node in own_nodes(inside):
        if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)) and name in _names_in(node):
            raise Decline(node, f"`{name}` (the Estimator) is read by a function defined here")
        if node is not assigned and name in names_bound_here(node):
            raise Decline(node, f"`{name}` (the Estimator) is bound again")
    if isinstance(scope, cst.FunctionDef):
        for statement in module.body:
            if statement is not scope and name in _names_in(statement) and _reads_global(statement, name):
                raise Decline(statement, f"`{name}` is read outside the function making the Estimator")
    variables = {id(n) for n in name_nodes(inside, nested=False) if n.value == name}
    sites = [
        _site(node, tf, statements, parents, removed)
        for node in own_nodes(inside)  # in source order
        if id(node) in variables and node is not assigned.target
    ]
    if not sites or sites[0].kind in ("evaluate", "predict"):
        raise Decline(call, "the program does not train the Estimator before anything else")
    return sites


def _names_in(node: cst.CSTNode) -> set[str]:
    return names_read(node)


def _reads_global(statement: cst.BaseStatement, name: str) -> bool:
    """Whether a module-level statement may read the module's ``name`` (a function reading it
    without binding it)."""
    if isinstance(statement, cst.FunctionDef):
        return name not in parameter_names(statement)
    return True


def _site(name: cst.Name, tf: TFNames, statements: list, parents: dict, removed: list[cst.SimpleStatementLine]) -> Site:
    parent = parents.get(id(name))
    if isinstance(parent, cst.Attribute) and parent.value is name:
        call = parents.get(id(parent))
        method = parent.attr.value
        written = ("train", "evaluate", "predict")
        if not (isinstance(call, cst.Call) and call.func is parent and method in written):
            raise Decline(parent, f"the Estimator is used by `.{method}`, which this migration does not write")
        if method == "train":
            line, target = _statement(call, parents)
            if target is not None:
                raise Decline(call, "the value Estimator.train returns is used")
            args = arguments(call, TRAIN_PARAMETERS, what="Estimator.train")
            _no_hooks(call, args, ("hooks", "saving_listeners"))
            if not is_none(args.get("steps")) and not is_none(args.get("max_steps")):
                raise Decline(call, "train is given both steps and max_steps")
            return Site(
                "train",
                line,
                None,
                input=input_dataset(call, args.get("input_fn"), tf, parents),
                steps=_given(args.get("steps")),
                max_steps=_given(args.get("max_steps")),
            )
        if method == "predict":
            args = arguments(call, PREDICT_PARAMETERS, what="Estimator.predict")
            _no_hooks(call, args, ("predict_keys", "hooks", "checkpoint_path"))
            single = args.get("yield_single_examples")
            if single is not None and not (isinstance(single, cst.Name) and single.value == "True"):
                raise Decline(call, "predict is given `yield_single_examples` other than True")
            dataset = input_dataset(call, args.get("input_fn"), tf, parents, labelled=False)
            return Site("predict", None, None, call=call, input=dataset)
        args = arguments(call, EVALUATE_PARAMETERS, what="Estimator.evaluate")
        _no_hooks(call, args, ("hooks", "checkpoint_path", "name"))
        return Site(
            "evaluate",
            None,
            None,
            call=call,
            input=input_dataset(call, args.get("input_fn"), tf, parents),
            steps=_given(args.get("steps")),
        )
    arg = parent
    call = parents.get(id(arg))
    if isinstance(arg, cst.Arg) and isinstance(call, cst.Call) and tf.is_tf(call.func, "estimator.train_and_evaluate"):
        args = arguments(call, TRAIN_AND_EVALUATE_PARAMETERS, what="tf.estimator.train_and_evaluate")
        if args.get("estimator") is not name:
            raise Decline(call, "train_and_evaluate is not given the Estimator as its estimator")
        line, target = _statement(call, parents)
        if args.get("train_spec") is None or args.get("eval_spec") is None:
            raise Decline(call, "train_and_evaluate is not given both specs")
        train = _bound_call(args["train_spec"], tf, "estimator.TrainSpec", statements, removed)
        evaluation = _bound_call(args["eval_spec"], tf, "estimator.EvalSpec", statements, removed)
        train_args = arguments(train, TRAIN_SPEC_PARAMETERS, what="tf.estimator.TrainSpec")
        eval_args = arguments(evaluation, EVAL_SPEC_PARAMETERS, what="tf.estimator.EvalSpec")
        _no_hooks(train, train_args, ("hooks", "saving_listeners"))
        _no_hooks(evaluation, eval_args, ("hooks", "exporters", "name"))
        steps = eval_args.get("steps", cst.Integer("100"))
        return Site(
            "train_and_evaluate",
            line,
            target,
            input=input_dataset(train, train_args.get("input_fn"), tf, parents),
            max_steps=_given(train_args.get("max_steps")),
            eval_input=input_dataset(evaluation, eval_args.get("input_fn"), tf, parents),
            eval_steps=_given(steps),
        )
    raise Decline(
        name,
        f"`{name.value}` (the Estimator) is used other than by train, evaluate, predict or train_and_evaluate",
    )


def _given(node: Optional[cst.BaseExpression]) -> Optional[cst.BaseExpression]:
    return None if node is None or is_none(node) else node


def _no_hooks(call: cst.Call, args: dict, keys: tuple[str, ...]) -> None:
    for key in keys:
        if not is_none(args.get(key)):
            raise Decline(call, f"it is given `{key}`, which this migration does not carry over")


def _statement(
    call: cst.Call, parents: dict
) -> tuple[cst.SimpleStatementLine, Optional[cst.BaseAssignTargetExpression]]:
    """The line holding ``call`` alone (``call(...)`` or ``target = call(...)``) and its target."""
    small = parents.get(id(call))
    line = parents.get(id(small))
    if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1:
        if isinstance(small, cst.Expr) and small.value is call:
            return line, None
        if isinstance(small, cst.Assign) and small.value is call and len(small.targets) == 1:
            return line, small.targets[0].target
    raise Decline(call, "the Estimator's train or evaluate is not a statement of its own")
