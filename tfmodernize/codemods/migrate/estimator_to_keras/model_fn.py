"""An Estimator's ``model_fn`` read (``read_model_fn``) and written as a ``tf.Module`` class
(``model_class``): its variables made once in ``__init__``, its computation in ``__call__``,
which returns what each mode needs (the loss to train, the loss and the metrics' inputs to
evaluate, the predictions to predict) instead of an ``EstimatorSpec``; its optimizer and
``minimize`` go to the training step the driver writes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

import libcst as cst

from tfmodernize.analysis.estimator import METRICS, mode_key, metric_parameters
from tfmodernize.analysis.optimizers import KerasOptimizer, keras_optimizer, optimizer_table
from tfmodernize.analysis.tf_objects import TF_MODULE_MEMBERS
from tfmodernize.analysis.variables import VariableValues
from tfmodernize.analysis.variable_calls import (
    VARIABLE_PARAMETERS,
    arguments,
    creates_opaque_variables,
    made_variable,
    Unknown,
)
from tfmodernize.codemod import Decline
from tfmodernize.layout import fitted
from tfmodernize.names import local_names, names_read, parameter_names
from tfmodernize.syntax import argument, is_none, source, split_docstring
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import walk

#: The parameters an Estimator passes a model_fn by name, when the model_fn declares them.
PARAMETERS = ("features", "labels", "mode", "params", "config")
#: EstimatorSpec's parameters, in order, and those this migration carries over.
SPEC_PARAMETERS = (
    "mode",
    "predictions",
    "loss",
    "train_op",
    "eval_metric_ops",
    "export_outputs",
    "training_chief_hooks",
    "training_hooks",
    "scaffold",
    "evaluation_hooks",
    "prediction_hooks",
)
SPEC_CARRIED = ("mode", "predictions", "loss", "train_op", "eval_metric_ops")
#: minimize's parameters, in order.
MINIMIZE_PARAMETERS = (
    "loss",
    "global_step",
    "var_list",
    "gate_gradients",
    "aggregation_method",
    "colocate_gradients_with_ops",
    "name",
    "grad_loss",
)
#: What the step reads the Estimator's global step with (``minimize(global_step=...)``).
GLOBAL_STEP_READERS = ("train.get_global_step", "train.get_or_create_global_step")
#: TF names a model_fn may not use: what the Estimator's graph gave it (the global step,
#: collections, summaries written by its hooks, scaffolding), what makes variables each call
#: (layers), and graph-only machinery. Paths under ``tf.``, or their prefixes.
REFUSED = {
    "layers.": "makes its variables each time it is called (make it a Keras layer first)",
    "contrib.": "is gone from TF 2.x",
    "metrics.": "is a TF1 streaming metric outside `eval_metric_ops`",
    "summary.": "writes summaries through the Estimator's summary hook",
    "train.": "reads the Estimator's training machinery (global step, hooks, schedules)",
    "estimator.": "is Estimator API",
    "feature_column.": "reads feature columns, whose layers make variables each call",
    "get_variable": "makes a variable away from the model_fn's top level",
    "Variable": "makes a variable away from the model_fn's top level",
    "variable_scope": "names variables through a variable scope",
    "get_collection": "reads graph collections",
    "add_to_collection": "writes graph collections",
    "losses.get_": "reads graph collections",
    "losses.add_loss": "writes graph collections",
    "control_dependencies": "orders graph ops by control dependencies",
    "get_default_graph": "reads the Estimator's graph",
    "global_variables": "reads graph collections",
    "trainable_variables": "reads graph collections",
    "local_variables": "reads graph collections",
    "assign": "assigns variables in the graph",
    "py_func": "runs Python in the graph",
    "Print": "prints through a graph op",
    "compat.v1.": "is TF1 API",
    "tpu.": "runs on TPUs through the Estimator",
}
#: Paths of ops that draw random numbers (their place in the random-op order matters).
RANDOM_PREFIXES = ("random.", "random_", "truncated_normal", "multinomial", "nn.dropout", "nn.experimental.stateless")


@dataclass(frozen=True)
class Metric:
    """One entry of ``eval_metric_ops``: the Keras metric and its ``update_state`` arguments."""

    key: str
    keras: str
    inputs: tuple[cst.BaseExpression, ...]


@dataclass
class Spec:
    """One ``return tf.estimator.EstimatorSpec(...)`` of the model_fn."""

    line: cst.SimpleStatementLine
    arguments: dict[str, cst.BaseExpression]
    metrics: Optional[list[Metric]] = None


@dataclass
class ModelFn:
    """What a model_fn makes and computes, read off its body."""

    function: cst.FunctionDef
    parameters: list[str]
    #: ``(attribute, tf.Variable code)`` in the order TF1 made them.
    variables: list[tuple[str, str]] = field(default_factory=list)
    init_reads_params: bool = False
    optimizer: Optional[cst.Call] = None
    optimizer_name: Optional[str] = None
    keras: Optional[KerasOptimizer] = None
    minimize: Optional[cst.Call] = None
    minimize_name: Optional[str] = None
    #: Mode string -> the spec its branch returns (``if mode == ModeKeys.EVAL: return ...``).
    branches: dict[str, Spec] = field(default_factory=dict)
    final: Optional[Spec] = None
    #: The statements that go (optimizer, minimize, metrics), by identity.
    dropped: set[int] = field(default_factory=set)
    #: Names bound to TF1 metrics or to their dict, and what they hold.
    metric_calls: dict[str, cst.Call] = field(default_factory=dict)
    metric_dicts: dict[str, cst.BaseExpression] = field(default_factory=dict)
    variable_lines: dict[int, str] = field(default_factory=dict)
    #: The local name of each variable -> the attribute of the class holding it.
    attributes: dict[str, str] = field(default_factory=dict)

    def spec_for(self, mode: str) -> Optional[Spec]:
        return self.branches.get(mode, self.final)

    @property
    def eval_metrics(self) -> list[Metric]:
        spec = self.spec_for("eval")
        return (spec.metrics or []) if spec is not None else []


def read_model_fn(function: cst.FunctionDef, tf: TFNames, values: VariableValues) -> ModelFn:
    """What ``function`` (an Estimator's model_fn) does, or a ``Decline`` saying why it cannot
    be read (``values`` writes its ``tf.get_variable`` calls as ``tf.Variable``)."""
    if function.decorators or function.asynchronous:
        raise Decline(function, "the model_fn is decorated or asynchronous")
    parameters = parameter_names(function)
    if (
        not parameters
        or parameters[0] != "features"
        or any(p not in PARAMETERS for p in parameters)
        or function.params.star_arg is not cst.MaybeSentinel.DEFAULT
        or function.params.star_kwarg is not None
        or any(p.default is not None for p in function.params.params)
    ):
        raise Decline(
            function,
            "the model_fn's parameters are not the Estimator's (features, labels, mode, params), without defaults",
        )
    if "config" in parameters and "config" in names_read(function.body):
        raise Decline(function, "the model_fn reads the Estimator's RunConfig (`config`)")
    plan = ModelFn(function, [p for p in parameters if p != "config"])
    reader = _Reader(plan, tf, values, local_names(function) | set(parameters))
    _, body = split_docstring(function.body.body)
    reader.read(body)
    reader.check()
    return plan


class _Reader:
    """One model_fn's statements read into its ``ModelFn``."""

    def __init__(self, plan: ModelFn, tf: TFNames, values: VariableValues, local: set[str]):
        self.plan, self.tf, self.values = plan, tf, values
        self.local = local  # the model_fn's parameters and locals
        self.plain: list[cst.CSTNode] = []  # statements kept as they are
        self.random_before: Optional[cst.CSTNode] = None

    # -- statements ------------------------------------------------------------------------

    def read(self, body: Sequence[cst.BaseStatement]) -> None:
        for statement in body:
            if self.plan.final is not None:
                raise Decline(statement, "the model_fn has statements after its last return")
            branch = self._branch_mode(statement)
            if branch is not None:
                self._read_branch(statement, branch)
                continue
            small = self._small(statement)
            if isinstance(small, cst.Return):
                self.plan.final = self._spec(statement, small)
                continue
            if isinstance(small, cst.Assign) and self._read_assignment(statement, small):
                continue
            self._plain(statement)

    def _read_branch(self, statement: cst.If, mode: str) -> None:
        if mode in self.plan.branches:
            raise Decline(statement, f"the model_fn returns for mode {mode!r} twice")
        *inner, last = statement.body.body
        for line in inner:
            small = self._small(line)
            if isinstance(small, cst.Assign) and self._read_metric_assignment(line, small):
                continue
            self._plain(line)
        small = self._small(last)
        if not isinstance(small, cst.Return):
            raise Decline(last, "a branch on the mode does not end by returning an EstimatorSpec")
        self.plan.branches[mode] = self._spec(last, small)

    def _branch_mode(self, statement: cst.BaseStatement) -> Optional[str]:
        """The mode of ``if mode == ModeKeys.X:`` whose block ends with a return, else None."""
        if not isinstance(statement, cst.If) or statement.orelse is not None:
            return None
        if not isinstance(statement.body, cst.IndentedBlock) or not statement.body.body:
            return None
        if not isinstance(self._small(statement.body.body[-1]), cst.Return):
            return None
        test = statement.test
        if not (
            isinstance(test, cst.Comparison)
            and len(test.comparisons) == 1
            and isinstance(test.comparisons[0].operator, cst.Equal)
        ):
            raise Decline(statement, "a branch of the model_fn that returns is not `if mode == ModeKeys.X:`")
        sides = (test.left, test.comparisons[0].comparator)
        for side, other in (sides, sides[::-1]):
            if isinstance(side, cst.Name) and side.value == "mode":
                mode = self._mode_value(other)
                if mode is not None:
                    return mode
        raise Decline(statement, "a branch of the model_fn that returns is not `if mode == ModeKeys.X:`")

    def _mode_value(self, node: cst.BaseExpression) -> Optional[str]:
        if isinstance(node, cst.SimpleString) and node.evaluated_value in ("train", "eval", "infer"):
            return node.evaluated_value
        return mode_key(node, self.tf)

    @staticmethod
    def _small(statement: cst.CSTNode) -> Optional[cst.BaseSmallStatement]:
        if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
            return statement.body[0]
        return None

    def _read_assignment(self, line: cst.SimpleStatementLine, assign: cst.Assign) -> bool:
        """A variable, the optimizer, ``minimize`` or a metric bound to one name; False for any
        other assignment (a plain statement)."""
        if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
            return False
        name = assign.targets[0].target.value
        value = assign.value
        if isinstance(value, cst.Call):
            made = made_variable(value, self.tf)
            if isinstance(made, Unknown):
                raise Decline(value, made.reason)
            if made is not None:
                self._variable(line, name, value, made.maker)
                return True
            if self._optimizer_class(value) is not None:
                self._optimizer(line, name, value)
                return True
            if self._is_minimize(value):
                self._minimize(line, name, value)
                return True
        return self._read_metric_assignment(line, assign)

    def _read_metric_assignment(self, line: cst.SimpleStatementLine, assign: cst.Assign) -> bool:
        if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
            return False
        name, value = assign.targets[0].target.value, assign.value
        if isinstance(value, cst.Call) and self._metric_path(value) is not None:
            self.plan.metric_calls[name] = value
            self.plan.dropped.add(id(line))
            return True
        if (
            isinstance(value, cst.Dict)
            and value.elements
            and all(isinstance(e, cst.DictElement) and self._metric_value(e.value) for e in value.elements)
        ):
            self.plan.metric_dicts[name] = value
            self.plan.dropped.add(id(line))
            return True
        return False

    def _metric_value(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Name):
            return node.value in self.plan.metric_calls
        return isinstance(node, cst.Call) and self._metric_path(node) is not None

    def _metric_path(self, call: cst.Call) -> Optional[str]:
        symbol = self.tf.tf_symbol(call.func)
        if symbol is None or not symbol.path.startswith("metrics."):
            return None
        if symbol.path not in METRICS:
            raise Decline(call, f"its eval metric tf.{symbol.path} has no Keras metric here")
        return symbol.path

    # -- variables, optimizer, minimize ------------------------------------------------------

    def _variable(self, line: cst.SimpleStatementLine, name: str, call: cst.Call, maker: str) -> None:
        if self.random_before is not None:
            raise Decline(
                self.random_before,
                "a random op is made before the model_fn's last variable: TF1 drew them in an order "
                "the variables made once cannot keep",
            )
        self._reads_only_params(call, "a variable's arguments")
        if maker == "Variable":
            args = arguments(call, VARIABLE_PARAMETERS, what="tf.Variable")
            extra = set(args) - {"initial_value", "trainable", "name", "dtype"}
            if extra:
                raise Decline(call, f"its tf.Variable passes `{sorted(extra)[0]}`, which this migration does not carry")
            code = f"{source(self._tf_variable())}({', '.join(self._args_text(call))})"
        else:
            code = self.values.variable(call, arguments(call))
        if name in self.plan.variable_lines.values():
            raise Decline(call, f"the model_fn binds `{name}` to two variables")
        attribute = f"{name}_variable" if name in TF_MODULE_MEMBERS else name
        self.plan.variables.append((attribute, code))
        self.plan.variable_lines[id(line)] = name
        self.plan.attributes[name] = attribute
        self.plan.init_reads_params = self.plan.init_reads_params or "params" in names_read(call)

    def _tf_variable(self) -> cst.BaseExpression:
        return self.values.tf_expr("Variable")

    @staticmethod
    def _args_text(call: cst.Call) -> list[str]:
        return [source(arg.with_changes(comma=cst.MaybeSentinel.DEFAULT)).strip() for arg in call.args]

    def _optimizer_class(self, call: cst.Call) -> Optional[str]:
        symbol = self.tf.tf_symbol(call.func)
        if symbol is None or not symbol.path.startswith("train.") or not symbol.path.endswith("Optimizer"):
            return None
        tf1_class = symbol.path[len("train.") :]
        if tf1_class not in optimizer_table():
            raise Decline(call, f"tf.train.{tf1_class} has no Keras optimizer here")
        return tf1_class

    def _optimizer(self, line: cst.SimpleStatementLine, name: Optional[str], call: cst.Call) -> None:
        if self.plan.optimizer is not None:
            raise Decline(call, "the model_fn makes two optimizers")
        tf1_class = self._optimizer_class(call)
        keras, why = keras_optimizer(call, tf1_class)
        if keras is None:
            raise Decline(call, f"its optimizer cannot be written as a Keras one: {why}")
        if keras.different_maths is not None or keras.slot_starts:
            raise Decline(call, f"Keras {keras.keras} computes other numbers: {keras.different_maths}")
        self._reads_only_params(call, "the optimizer's arguments")
        self.plan.optimizer, self.plan.optimizer_name, self.plan.keras = call, name, keras
        if line is not None:
            self.plan.dropped.add(id(line))

    def _is_minimize(self, call: cst.Call) -> bool:
        return isinstance(call.func, cst.Attribute) and call.func.attr.value == "minimize"

    def _minimize(self, line: cst.SimpleStatementLine, name: str, call: cst.Call) -> None:
        if self.plan.minimize is not None:
            raise Decline(call, "the model_fn calls minimize twice")
        receiver = call.func.value
        if isinstance(receiver, cst.Call) and self._optimizer_class(receiver) is not None:
            self._optimizer(None, None, receiver)
        elif not (isinstance(receiver, cst.Name) and receiver.value == self.plan.optimizer_name):
            raise Decline(call, "minimize is not called on the optimizer the model_fn made before it")
        args = arguments(call, MINIMIZE_PARAMETERS, what="minimize")
        if set(args) - {"loss", "global_step", "var_list"} or not is_none(args.get("var_list")):
            raise Decline(call, "minimize is given arguments other than the loss and the global step")
        step = args.get("global_step")
        if not (isinstance(step, cst.Call) and not step.args and self.tf.is_tf(step.func, *GLOBAL_STEP_READERS)):
            raise Decline(
                call,
                "minimize does not advance the Estimator's global step "
                "(`global_step=tf.train.get_global_step()`), by which the Estimator counts steps",
            )
        if not isinstance(args.get("loss"), cst.Name):
            raise Decline(call, "minimize's loss is not a name")
        self.plan.minimize, self.plan.minimize_name = call, name
        self.plan.dropped.add(id(line))

    def _reads_only_params(self, node: cst.CSTNode, what: str) -> None:
        locals_read = (names_read(node) & self.local) - {"params"}
        if locals_read:
            raise Decline(
                node,
                f"{what} read `{sorted(locals_read)[0]}`, computed in the model_fn: only `params` and "
                "module-level names can be read where the model is made",
            )

    # -- returns -----------------------------------------------------------------------------

    def _spec(self, line: cst.SimpleStatementLine, statement: cst.Return) -> Spec:
        call = statement.value
        if not (isinstance(call, cst.Call) and self.tf.is_tf(call.func, "estimator.EstimatorSpec")):
            raise Decline(line, "the model_fn returns something other than a tf.estimator.EstimatorSpec")
        args = arguments(call, SPEC_PARAMETERS, what="EstimatorSpec")
        for key, value in args.items():
            if key not in SPEC_CARRIED and not is_none(value):
                raise Decline(call, f"its EstimatorSpec passes `{key}`, which this migration does not carry")
        spec = Spec(line, args)
        metrics = args.get("eval_metric_ops")
        if metrics is not None and not is_none(metrics):
            spec.metrics = self._metrics(metrics)
        for key in ("predictions", "loss"):
            if args.get(key) is not None:
                self._no_refused(args[key], skip=())
        return spec

    def _metrics(self, node: cst.BaseExpression) -> list[Metric]:
        if isinstance(node, cst.Name) and node.value in self.plan.metric_dicts:
            node = self.plan.metric_dicts[node.value]
        if not isinstance(node, cst.Dict):
            raise Decline(node, "its eval_metric_ops is not a dict of tf.metrics written in the model_fn")
        found = []
        for element in node.elements:
            key = element.key if isinstance(element, cst.DictElement) else None
            if not (isinstance(key, cst.SimpleString) and isinstance(key.evaluated_value, str)):
                raise Decline(node, "its eval_metric_ops keys are not strings written out")
            value = element.value
            if isinstance(value, cst.Name) and value.value in self.plan.metric_calls:
                value = self.plan.metric_calls[value.value]
            if not isinstance(value, cst.Call) or self._metric_path(value) is None:
                raise Decline(element, "an eval metric is not a tf.metrics call")
            path = self._metric_path(value)
            keras, inputs = METRICS[path]
            given = arguments(value, metric_parameters(path), what=f"tf.{path}")
            if not is_none(given.get("weights")) or any(
                not is_none(given.get(p)) for p in ("metrics_collections", "updates_collections")
            ):
                raise Decline(value, f"tf.{path} is given weights or collections")
            if any(p not in given for p in inputs):
                raise Decline(value, f"tf.{path} lacks an argument")
            for given_value in given.values():
                self._no_refused(given_value, skip=())
            found.append(Metric(key.evaluated_value, keras, tuple(given[p] for p in inputs)))
        return found

    # -- plain statements --------------------------------------------------------------------

    def _plain(self, statement: cst.CSTNode) -> None:
        for node in walk(statement, code_only=True):
            if isinstance(node, cst.Return):
                raise Decline(node, "the model_fn returns from inside a block other than `if mode == ...:`")
        self._no_refused(statement, skip=())
        if self.random_before is None and self._draws_random(statement):
            self.random_before = statement
        self.plain.append(statement)

    def _no_refused(self, node: cst.CSTNode, skip: tuple) -> None:
        skipped = {id(s) for s in skip if s is not None}
        for child in walk(node, code_only=True):
            if id(child) in skipped:
                continue
            if isinstance(child, cst.Name) and child.value in self._model_names():
                raise Decline(child, f"`{child.value}` (the optimizer, its update or a metric) is read elsewhere")
            if isinstance(child, cst.Call) and creates_opaque_variables(child, self.tf):
                symbol = self.tf.tf_symbol(child.func)
                what = f"tf.{symbol.path}" if symbol is not None else source(child.func)
                raise Decline(child, f"the model_fn calls {what}, which makes variables each time it is called")
            if not isinstance(child, (cst.Attribute, cst.Name)) or mode_key(child, self.tf) is not None:
                continue
            symbol = self.tf.tf_symbol(child)
            if symbol is None:
                continue
            for prefix, why in REFUSED.items():
                if _refused(symbol.path, prefix):
                    raise Decline(child, f"the model_fn uses tf.{symbol.path}, which {why}")

    def _model_names(self) -> set[str]:
        names = set(self.plan.metric_calls) | set(self.plan.metric_dicts)
        names |= {n for n in (self.plan.optimizer_name, self.plan.minimize_name) if n is not None}
        return names

    def _draws_random(self, node: cst.CSTNode) -> bool:
        for child in walk(node, code_only=True):
            if isinstance(child, cst.Call):
                symbol = self.tf.tf_symbol(child.func)
                if symbol is not None and symbol.path.startswith(RANDOM_PREFIXES):
                    return True
        return False

    # -- the whole ---------------------------------------------------------------------------

    def check(self) -> None:
        plan = self.plan
        if not plan.variables:
            raise Decline(plan.function, "the model_fn makes no variable with tf.get_variable or tf.Variable")
        if plan.final is None:
            raise Decline(plan.function, "the model_fn does not end by returning an EstimatorSpec")
        train = plan.spec_for("train")
        if plan.minimize is None or train is None:
            raise Decline(plan.function, "the model_fn does not train with one optimizer's minimize")
        train_op = train.arguments.get("train_op")
        if not (isinstance(train_op, cst.Name) and train_op.value == plan.minimize_name):
            raise Decline(train.line, "its train_op is not the minimize the model_fn made")
        loss = train.arguments.get("loss")
        minimized = argument(plan.minimize, 0, "loss")
        if not (isinstance(loss, cst.Name) and isinstance(minimized, cst.Name) and loss.value == minimized.value):
            raise Decline(train.line, "the loss it returns is not the loss minimize was given")
        for mode, spec in [*plan.branches.items(), ("final", plan.final)]:
            if mode == "infer" and is_none(spec.arguments.get("predictions")):
                raise Decline(spec.line, "its PREDICT branch returns no predictions")
            if mode in ("train", "eval") and is_none(spec.arguments.get("loss")):
                raise Decline(spec.line, f"its {mode} branch returns no loss")
        if plan.eval_metrics and "mode" not in plan.parameters:
            raise Decline(plan.function, "the model_fn has eval metrics but no `mode` parameter")
        # A name read by the statements kept must not be one that goes.
        kept_reads: set[str] = set()
        for statement in self.plain:
            kept_reads |= names_read(statement)
        gone = (set(self.plan.metric_calls) | set(self.plan.metric_dicts)) & kept_reads
        if gone:
            raise Decline(plan.function, f"`{sorted(gone)[0]}` (a metric) is read by the model_fn's computation")


# -- writing -----------------------------------------------------------------------------------


def model_class(
    plan: ModelFn,
    class_name: str,
    tf_root: str,
    rewrite_modes: Callable[[cst.CSTNode], cst.CSTNode],
    width: int,
) -> cst.ClassDef:
    """The ``tf.Module`` class the model_fn becomes; ``rewrite_modes`` writes the mode keys of
    the statements kept as their strings, ``width`` is the file's."""
    init_params = "self, params" if plan.init_reads_params else "self"
    variables = "".join(f"        self.{name} = {code}\n" for name, code in plan.variables)
    call_params = ", ".join(["self", *plan.parameters])
    text = (
        f"class {class_name}({tf_root}.Module):\n"
        f'    """The Estimator\'s `{plan.function.name.value}`, its variables made once."""\n'
        "\n"
        f"    def __init__({init_params}):\n"
        "        super().__init__()\n"
        f"{variables}"
        "\n"
        f"    def __call__({call_params}):\n"
        "        pass\n"
    )
    definition = cst.parse_statement(text)
    assert isinstance(definition, cst.ClassDef)
    init = definition.body.body[-2]
    assert isinstance(init, cst.FunctionDef)
    init = init.with_changes(
        body=init.body.with_changes(body=[fitted(line, width, 2, further=True) for line in init.body.body])
    )
    call = definition.body.body[-1]
    assert isinstance(call, cst.FunctionDef)
    body = [rewrite_modes(statement) for statement in _call_body(plan)]
    call = call.with_changes(body=call.body.with_changes(body=body))
    return definition.with_changes(
        body=definition.body.with_changes(body=[*definition.body.body[:-2], init, call]),
        leading_lines=plan.function.leading_lines,
    )


def _call_body(plan: ModelFn) -> list[cst.BaseStatement]:
    docstring, body = split_docstring(plan.function.body.body)
    out: list[cst.BaseStatement] = list(docstring)
    for statement in body:
        out.extend(_statement(plan, statement))
    return out


def _statement(plan: ModelFn, statement: cst.BaseStatement) -> list[cst.BaseStatement]:
    if id(statement) in plan.dropped:
        return []
    if id(statement) in plan.variable_lines:
        name = plan.variable_lines[id(statement)]
        line = cst.parse_statement(f"{name} = self.{plan.attributes[name]}\n")
        return [line.with_changes(leading_lines=statement.leading_lines)]
    for mode, spec in plan.branches.items():
        if isinstance(statement, cst.If) and statement.body.body and statement.body.body[-1] is spec.line:
            inner = [s for line in statement.body.body[:-1] for s in _statement(plan, line)]
            if not inner and _same_loss(spec, plan.final) and not spec.metrics and mode == "eval":
                return []  # ``if mode == EVAL: return EstimatorSpec(mode, loss=loss)``: the loss is returned anyway
            returned = _returns(plan, spec, (mode,))
            return [statement.with_changes(body=statement.body.with_changes(body=[*inner, *returned]))]
    if plan.final is not None and statement is plan.final.line:
        modes = tuple(m for m in ("train", "eval") if m not in plan.branches)
        if not modes:
            modes = ("infer",)
        return _returns(plan, plan.final, modes)
    return [statement]


def _same_loss(spec: Spec, final: Optional[Spec]) -> bool:
    loss = spec.arguments.get("loss")
    other = final.arguments.get("loss") if final is not None else None
    return loss is not None and other is not None and source(loss) == source(other)


def _returns(plan: ModelFn, spec: Spec, modes: tuple[str, ...]) -> list[cst.BaseStatement]:
    """What a spec's return becomes for the modes it serves (``infer`` only when no other)."""
    leading = spec.line.leading_lines
    if modes == ("infer",):
        lines = [f"return {source(spec.arguments['predictions'])}\n"]
    else:
        loss = source(spec.arguments["loss"])
        lines = [f"return {loss}\n"]
        if "eval" in modes and spec.metrics:
            inputs = ", ".join(
                f'"{metric.key}": ({", ".join(source(i) for i in metric.inputs)}{"," * (len(metric.inputs) == 1)})'
                for metric in spec.metrics
            )
            metrics_return = f"return {loss}, {{{inputs}}}\n"
            if modes == ("eval",):
                lines = [metrics_return]
            else:
                branch = cst.parse_statement(f'if mode == "eval":\n    {metrics_return}')
                return [branch.with_changes(leading_lines=leading), cst.parse_statement(lines[0])]
    return [cst.parse_statement(lines[0]).with_changes(leading_lines=leading)]


def _refused(path: str, entry: str) -> bool:
    """Whether ``tf.<path>`` is the ``REFUSED`` entry: a prefix (ending in ``.`` or ``_``), or the
    name itself and its ``_``-suffixed kin (``assign`` and ``assign_add``)."""
    if entry.endswith((".", "_")):
        return path.startswith(entry)
    return path == entry or path.startswith(entry + "_")
