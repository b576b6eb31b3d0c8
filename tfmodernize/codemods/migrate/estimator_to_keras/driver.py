"""What a program does with one Estimator (``read_driver``): where it is made, with which
model_fn, params, model_dir and RunConfig, and every ``train``, ``evaluate``, ``predict`` and
``train_and_evaluate`` of it (``Site``); and the TF2 code each becomes (``setup_code``,
``site_code``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Union

import libcst as cst

from tfmodernize.analysis.tf1_api import DATASET_CHAIN
from tfmodernize.analysis.variable_calls import arguments
from tfmodernize.codemod import Decline
from tfmodernize.names import name_nodes, names_bound_here, names_read, own_nodes, parameter_names
from tfmodernize.syntax import is_none, parenthesized, source
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
#: ``tf.estimator.inputs.numpy_input_fn``, read as the dataset of the batches it made.
NUMPY_INPUT_FNS = ("estimator.inputs.numpy_input_fn", "compat.v1.estimator.inputs.numpy_input_fn")
NUMPY_INPUT_PARAMETERS = ("x", "y", "batch_size", "num_epochs", "shuffle", "queue_capacity", "num_threads")
#: Where a tf.data pipeline starts: ``tf.data.Dataset.from_tensor_slices(...)``, ``tf.data.TFRecordDataset``.
DATASET_SOURCES = "data."


@dataclass
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


@dataclass
class Driver:
    """One Estimator of a program and what the program does with it."""

    call: cst.Call
    line: cst.SimpleStatementLine
    name: str
    model_fn: cst.FunctionDef
    model_dir: Optional[cst.BaseExpression] = None
    params: Optional[cst.BaseExpression] = None
    seed: Optional[cst.BaseExpression] = None
    save_steps: Optional[cst.BaseExpression] = None
    keep: Optional[cst.BaseExpression] = None
    sites: list[Site] = field(default_factory=list)
    #: Statements that go: the RunConfig, TrainSpec and EvalSpec bound to names.
    removed: list[cst.SimpleStatementLine] = field(default_factory=list)

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
    driver = Driver(call, line, name, _model_fn(call, args.get("model_fn"), module))
    driver.model_dir = None if is_none(args.get("model_dir")) else args["model_dir"]
    driver.params = None if is_none(args.get("params")) else args["params"]
    body = scope.body if isinstance(scope, cst.Module) else scope.body.body
    statements = list(body)
    config = args.get("config")
    if config is not None and not is_none(config):
        _run_config(driver, _bound_call(config, tf, "estimator.RunConfig", statements, driver), tf)
    _read_sites(driver, scope, module, tf, statements, parents)
    return driver


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
    driver: Driver,
) -> cst.Call:
    """The ``tf.<path>(...)`` call ``node`` is, or the one its name is bound to by a line of the
    same block that nothing else reads (that line then goes)."""
    if isinstance(node, cst.Call) and tf.is_tf(node.func, path):
        return node
    if isinstance(node, cst.Name):
        lines = [s for s in statements if _binds(s, node.value)]
        if len(lines) == 1:
            value = lines[0].body[0].value
            reads = sum(1 for s in statements for n in name_nodes(s) if n.value == node.value)
            if isinstance(value, cst.Call) and tf.is_tf(value.func, path) and reads == 2:
                driver.removed.append(lines[0])
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


def _run_config(driver: Driver, config: cst.Call, tf: TFNames) -> None:
    args = arguments(config, RUN_CONFIG_PARAMETERS, what="tf.estimator.RunConfig")
    for key, value in args.items():
        if key in RUN_CONFIG_CARRIED or key in RUN_CONFIG_IGNORED or is_none(value):
            continue
        raise Decline(config, f"its RunConfig sets `{key}`, which this migration does not carry over")
    if driver.model_dir is None and not is_none(args.get("model_dir")):
        driver.model_dir = args["model_dir"]
    driver.seed = None if is_none(args.get("tf_random_seed")) else args["tf_random_seed"]
    driver.save_steps = None if is_none(args.get("save_checkpoints_steps")) else args["save_checkpoints_steps"]
    driver.keep = args.get("keep_checkpoint_max")


def _read_sites(
    driver: Driver,
    scope: Union[cst.Module, cst.FunctionDef],
    module: cst.Module,
    tf: TFNames,
    statements: list[cst.BaseStatement],
    parents: dict,
) -> None:
    name = driver.name
    inside = scope.body if isinstance(scope, cst.FunctionDef) else scope
    for node in own_nodes(inside):
        if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)) and name in _names_in(node):
            raise Decline(node, f"`{name}` (the Estimator) is read by a function defined here")
        if node is not driver.line.body[0].targets[0] and name in names_bound_here(node):
            raise Decline(node, f"`{name}` (the Estimator) is bound again")
    if isinstance(scope, cst.FunctionDef):
        for statement in module.body:
            if statement is not scope and name in _names_in(statement) and _reads_global(statement, name):
                raise Decline(statement, f"`{name}` is read outside the function making the Estimator")
    variables = {id(n) for n in name_nodes(inside, nested=False) if n.value == name}
    target = driver.line.body[0].targets[0].target
    for node in own_nodes(inside):  # in source order
        if id(node) in variables and node is not target:
            driver.sites.append(_site(driver, node, tf, statements, parents))
    if not driver.sites or driver.sites[0].kind in ("evaluate", "predict"):
        raise Decline(driver.call, "the program does not train the Estimator before anything else")


def _names_in(node: cst.CSTNode) -> set[str]:
    return names_read(node)


def _reads_global(statement: cst.BaseStatement, name: str) -> bool:
    """Whether a module-level statement may read the module's ``name`` (a function reading it
    without binding it)."""
    if isinstance(statement, cst.FunctionDef):
        return name not in parameter_names(statement)
    return True


def _site(driver: Driver, name: cst.Name, tf: TFNames, statements: list, parents: dict) -> Site:
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
                input=_input(call, args.get("input_fn"), tf, parents),
                steps=_given(args.get("steps")),
                max_steps=_given(args.get("max_steps")),
            )
        if method == "predict":
            args = arguments(call, PREDICT_PARAMETERS, what="Estimator.predict")
            _no_hooks(call, args, ("predict_keys", "hooks", "checkpoint_path"))
            single = args.get("yield_single_examples")
            if single is not None and not (isinstance(single, cst.Name) and single.value == "True"):
                raise Decline(call, "predict is given `yield_single_examples` other than True")
            dataset = _input(call, args.get("input_fn"), tf, parents, labelled=False)
            return Site("predict", None, None, call=call, input=dataset)
        args = arguments(call, EVALUATE_PARAMETERS, what="Estimator.evaluate")
        _no_hooks(call, args, ("hooks", "checkpoint_path", "name"))
        return Site(
            "evaluate",
            None,
            None,
            call=call,
            input=_input(call, args.get("input_fn"), tf, parents),
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
        train = _bound_call(args["train_spec"], tf, "estimator.TrainSpec", statements, driver)
        evaluation = _bound_call(args["eval_spec"], tf, "estimator.EvalSpec", statements, driver)
        train_args = arguments(train, TRAIN_SPEC_PARAMETERS, what="tf.estimator.TrainSpec")
        eval_args = arguments(evaluation, EVAL_SPEC_PARAMETERS, what="tf.estimator.EvalSpec")
        _no_hooks(train, train_args, ("hooks", "saving_listeners"))
        _no_hooks(evaluation, eval_args, ("hooks", "exporters", "name"))
        steps = eval_args.get("steps", cst.Integer("100"))
        return Site(
            "train_and_evaluate",
            line,
            target,
            input=_input(train, train_args.get("input_fn"), tf, parents),
            max_steps=_given(train_args.get("max_steps")),
            eval_input=_input(evaluation, eval_args.get("input_fn"), tf, parents),
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


# -- input functions ---------------------------------------------------------------------------


def _input(
    call: cst.Call,
    input_fn: Optional[cst.BaseExpression],
    tf: TFNames,
    parents: dict,
    labelled: bool = True,
) -> cst.BaseExpression:
    """The expression making the dataset ``input_fn`` returns (``input_fn()``, or the call a
    lambda makes), when it provably returns a ``tf.data`` dataset; the dataset a
    ``numpy_input_fn`` read in order (``labelled``: with labels, for train and evaluate)."""
    if input_fn is None:
        raise Decline(call, "it is given no input_fn")
    module = _module_of(call, parents)
    if isinstance(input_fn, cst.Name):
        function = _module_function(module, input_fn.value)
        if function is None or parameter_names(function):
            raise Decline(
                input_fn,
                f"its input_fn `{input_fn.value}` is not a module function without parameters "
                "(the Estimator passes params, mode or config to one that takes them)",
            )
        _returns_dataset(function, tf)
        return cst.Call(func=input_fn)
    if isinstance(input_fn, cst.Lambda) and not parameter_names(input_fn):
        body = input_fn.body
        if isinstance(body, cst.Call) and isinstance(body.func, cst.Name):
            function = _module_function(module, body.func.value)
            if function is not None:
                _returns_dataset(function, tf)
                return body
    symbol = tf.tf_symbol(input_fn.func) if isinstance(input_fn, cst.Call) else None
    if symbol is not None and symbol.path in NUMPY_INPUT_FNS:
        return _numpy_input(input_fn, tf, labelled)
    if symbol is not None and symbol.path.startswith("estimator.inputs."):
        raise Decline(
            input_fn,
            f"its input_fn is tf.{symbol.path}, whose queues this migration does not write; "
            "write it as a tf.data.Dataset (Dataset.from_tensor_slices) first",
        )
    raise Decline(input_fn, "its input_fn is not a module function returning a tf.data dataset")


def _numpy_input(call: cst.Call, tf: TFNames, labelled: bool) -> cst.BaseExpression:
    """``numpy_input_fn(x, y, batch_size, num_epochs, shuffle=False)`` -> the dataset of the same
    batches: its queue fed the rows in order, epoch after epoch, and took ``batch_size`` at a time
    (the last batch shorter) -> ``Dataset.from_tensor_slices((x, y)).repeat(num_epochs)
    .batch(batch_size)``; the features alone without ``y``."""
    args = arguments(call, NUMPY_INPUT_PARAMETERS, what="numpy_input_fn")
    shuffle = args.get("shuffle")
    if not (isinstance(shuffle, cst.Name) and shuffle.value == "False"):
        raise Decline(
            call,
            "its numpy_input_fn does not set shuffle=False: the queue's shuffled order is not a "
            "tf.data shuffle's; write the input as a tf.data.Dataset first",
        )
    threads = args.get("num_threads")
    if threads is not None and not (isinstance(threads, cst.Integer) and threads.evaluated_value == 1):
        raise Decline(call, "its numpy_input_fn feeds from more than one thread (the order is not fixed)")
    if "x" not in args:
        raise Decline(call, "its numpy_input_fn is given no x")
    has_labels = not is_none(args.get("y"))
    if labelled and not has_labels:
        raise Decline(call, "its numpy_input_fn gives no labels (y) to train or evaluate on")
    root = tf.tf2_prefix()[0]
    data = f"({source(args['x'])}, {source(args['y'])})" if has_labels else source(args["x"])
    epochs = args.get("num_epochs")
    if epochs is None or (isinstance(epochs, cst.Integer) and epochs.evaluated_value == 1):
        repeat = ""
    else:
        repeat = ".repeat()" if is_none(epochs) else f".repeat({source(epochs)})"
    batch = source(args["batch_size"]) if "batch_size" in args else "128"
    return cst.parse_expression(f"{root}.data.Dataset.from_tensor_slices({data}){repeat}.batch({batch})")


def _module_of(node: cst.CSTNode, parents: dict) -> cst.Module:
    while not isinstance(node, cst.Module):
        node = parents[id(node)]
    return node


def _module_function(module: cst.Module, name: str) -> Optional[cst.FunctionDef]:
    found = [s for s in module.body if isinstance(s, cst.FunctionDef) and s.name.value == name]
    return found[0] if len(found) == 1 and not found[0].decorators else None


def _returns_dataset(function: cst.FunctionDef, tf: TFNames) -> None:
    """Decline unless every return of ``function`` is a tf.data dataset: made by ``tf.data``
    (``Dataset.from_tensor_slices``...) and chained dataset methods, or a name the function binds
    only to such values."""
    returns = [n for n in own_nodes(function.body) if isinstance(n, cst.Return)]
    if not returns:
        raise Decline(function, f"the input_fn `{function.name.value}` returns nothing")
    for statement in returns:
        if statement.value is None or not _is_dataset(statement.value, function, tf, set()):
            raise Decline(
                statement,
                f"the input_fn `{function.name.value}` returns something not read as a tf.data dataset "
                "(features and labels tensors, an iterator's get_next())",
            )


def _is_dataset(node: cst.BaseExpression, function: cst.FunctionDef, tf: TFNames, seen: set[str]) -> bool:
    while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in DATASET_CHAIN:
        node = node.func.value
    if isinstance(node, cst.Call):
        symbol = tf.tf_symbol(node.func)
        return symbol is not None and symbol.path.startswith(DATASET_SOURCES)
    if isinstance(node, cst.Name) and node.value not in seen:
        values = []
        for child in own_nodes(function.body):
            if isinstance(child, cst.Assign) and any(
                isinstance(t.target, cst.Name) and t.target.value == node.value for t in child.targets
            ):
                values.append(child.value)
            elif node.value in names_bound_here(child) and not isinstance(child, cst.AssignTarget):
                return False
        return bool(values) and all(_is_dataset(v, function, tf, seen | {node.value}) for v in values)
    return False


# -- writing -----------------------------------------------------------------------------------


@dataclass
class Names:
    """The names the driver's code binds, fresh in the module."""

    params: str
    model: str
    optimizer: str
    global_step: str
    checkpoint: str
    manager: str
    metrics: str
    train_step: str
    eval_step: str
    train: str
    evaluate: str
    predict_step: str
    predict: str


def take(dataset: cst.BaseExpression, steps: Optional[cst.BaseExpression]) -> str:
    """``dataset.take(steps)``, or the dataset when every batch is used."""
    text = source(dataset)
    return text if steps is None else f"{text}.take({source(steps)})"


def site_code(driver: Driver, site: Site, names: Names) -> str:
    """The statements a train or train_and_evaluate becomes; for an evaluate, the expression."""
    if site.kind == "evaluate":
        return f"{names.evaluate}({take(site.input, site.steps)})"
    if site.kind == "predict":
        return f"{names.predict}({source(site.input)})"
    code = _train_code(site.input, site.steps, site.max_steps, names)
    if site.kind == "train_and_evaluate":
        value = f"{names.evaluate}({take(site.eval_input, site.eval_steps)})"
        code += f"{source(site.target)} = {value}, []\n" if site.target is not None else f"{value}\n"
    return code


def _train_code(
    dataset: cst.BaseExpression,
    steps: Optional[cst.BaseExpression],
    max_steps: Optional[cst.BaseExpression],
    names: Names,
) -> str:
    if max_steps is None:
        return f"{names.train}({take(dataset, steps)})\n"
    limit = source(parenthesized(max_steps))
    return (
        f"if int({names.global_step}) < {limit}:\n"
        f"    {names.train}({source(dataset)}.take({limit} - int({names.global_step})))\n"
    )


def setup_code(
    driver: Driver,
    names: Names,
    *,
    tf: str,
    model: str,
    model_args: str,
    call_args: dict[str, str],
    keras_optimizer: str,
    optimizer_args: str,
    model_dir: str,
    bind_params: Optional[str],
    metrics: list[tuple[str, str]],
    metric_inputs: bool,
    predictions_dict: bool,
    depth: int,
    width: int,
) -> str:
    """The code the Estimator's construction becomes: the model, its optimizer, the global
    step, the checkpoint in ``model_dir``, the training, evaluation and prediction steps, and
    ``train`` / ``evaluate`` / ``predict`` functions the uses call. ``call_args``: the model's
    arguments in each mode (``"train"``, ``"eval"``, ``"infer"``); ``metrics``: ``(key, Keras
    metric class)`` of the evaluation; ``predictions_dict``: whether the PREDICT branch returns
    a dict of predictions (else one tensor)."""
    keep = "5" if driver.keep is None else source(driver.keep)
    lines = []
    if driver.seed is not None:
        lines.append(f"{tf}.random.set_seed({source(driver.seed)})")
    if bind_params is not None:
        lines.append(f"{names.params} = {bind_params}")
    lines += [
        f"{names.model} = {model}({model_args})",
        f"{names.optimizer} = {tf}.keras.optimizers.{keras_optimizer}({optimizer_args})",
        f'{names.global_step} = {tf}.Variable(0, dtype={tf}.int64, trainable=False, name="global_step")',
        f"{names.checkpoint} = {tf}.train.Checkpoint("
        f"model={names.model}, optimizer={names.optimizer}, global_step={names.global_step})",
        f"{names.manager} = {tf}.train.CheckpointManager({names.checkpoint}, {model_dir}, max_to_keep={keep})",
        f"{names.checkpoint}.restore({names.manager}.latest_checkpoint)",
    ]
    if driver.evaluates:
        entries = [f'"{key}": {tf}.keras.metrics.{keras}()' for key, keras in metrics]
        entries.append(f'"loss": {tf}.keras.metrics.Mean()')
        one_line = f"{names.metrics} = {{{', '.join(entries)}}}"
        if len(one_line) + 4 * depth > width:
            one_line = f"{names.metrics} = {{\n" + "".join(f"    {entry},\n" for entry in entries) + "}"
        lines.append(one_line)
    code = "\n".join(lines) + "\n"
    code += (
        f"\n\n@{tf}.function\n"
        f"def {names.train_step}(features, labels):\n"
        f"    with {tf}.GradientTape() as tape:\n"
        f"        loss = {names.model}({call_args['train']})\n"
        f"    gradients = tape.gradient(loss, {names.model}.trainable_variables)\n"
        f"    {names.optimizer}.apply_gradients(zip(gradients, {names.model}.trainable_variables))\n"
        f"    {names.global_step}.assign_add(1)\n"
        "    return loss\n"
    )
    save = f"{names.manager}.save(checkpoint_number={names.global_step})"
    periodic = ""
    if driver.save_steps is not None:
        periodic = (
            f"        if int({names.global_step}) % {source(parenthesized(driver.save_steps))} == 0:\n"
            f"            {save}\n"
        )
    code += (
        f"\n\ndef {names.train}(dataset):\n"
        "    for features, labels in dataset:\n"
        f"        {names.train_step}(features, labels)\n"
        f"{periodic}"
        f"    {save}\n"
    )
    if driver.evaluates:
        if metric_inputs:
            updates = f"    loss, metric_inputs = {names.model}({call_args['eval']})\n"
            updates += "".join(
                f'    {names.metrics}["{key}"].update_state(*metric_inputs["{key}"])\n' for key, _ in metrics
            )
            updates += f'    {names.metrics}["loss"].update_state(loss)\n'
        else:
            updates = f'    {names.metrics}["loss"].update_state({names.model}({call_args["eval"]}))\n'
        code += (
            f"\n\n@{tf}.function\n"
            f"def {names.eval_step}(features, labels):\n"
            f"{updates}"
            f"\n\ndef {names.evaluate}(dataset):\n"
            f"    for metric in {names.metrics}.values():\n"
            "        metric.reset_state()\n"
            "    for features, labels in dataset:\n"
            f"        {names.eval_step}(features, labels)\n"
            f"    results = {{key: metric.result().numpy() for key, metric in {names.metrics}.items()}}\n"
            f'    results["global_step"] = {names.global_step}.numpy()\n'
            "    return results\n"
        )
    if driver.predicts:
        code += _predict_code(names, tf, call_args["infer"], predictions_dict)
    return code + "\n\n"


def _predict_code(names: Names, tf: str, call_args: str, predictions_dict: bool) -> str:
    """The prediction step and ``predict``: a generator of each example's predictions, numpy
    values, as ``Estimator.predict`` yielded them (a dict per example for a dict)."""
    if predictions_dict:
        yielded = (
            f"        predictions = {names.predict_step}(features)\n"
            "        arrays = {key: value.numpy() for key, value in predictions.items()}\n"
            "        for index in range(len(next(iter(arrays.values())))):\n"
            "            yield {key: array[index] for key, array in arrays.items()}\n"
        )
    else:
        yielded = f"        yield from {names.predict_step}(features).numpy()\n"
    return (
        f"\n\n@{tf}.function\n"
        f"def {names.predict_step}(features):\n"
        f"    return {names.model}({call_args})\n"
        f"\n\ndef {names.predict}(dataset):\n"
        "    for features in dataset:\n"
        "        # (features, labels): the Estimator predicted from the features\n"
        "        if isinstance(features, tuple):\n"
        "            features = features[0]\n"
        f"{yielded}"
    )
