"""An Estimator's ``model_fn`` read (``read_model_fn``) into a ``ModelFn``: its variables, its
optimizer and ``minimize`` (which go to the training step the driver writes), its mode branches
and the ``EstimatorSpec`` each returns; ``model_class`` writes the ``tf.Module`` it becomes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

import libcst as cst

from tfmodernize.analysis.estimator import METRICS, mode_key, metric_parameters
from tfmodernize.analysis.optimizers import KerasOptimizer, keras_optimizer, optimizer_table
from tfmodernize.analysis.tf_objects import TF_MODULE_MEMBERS
from tfmodernize.analysis.variables import VariableValues
from tfmodernize.analysis.variable_calls import (
    VARIABLE_PARAMETERS,
    arguments,
    made_variable,
    Unknown,
)
from tfmodernize.codemod import Decline
from tfmodernize.names import local_names, names_read, parameter_names
from tfmodernize.syntax import argument, is_none, source, split_docstring
from tfmodernize.tfsymbols import TFNames
from tfmodernize.codemods.migrate.estimator_to_keras.refused import draws_random, refuse_unsupported
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


@dataclass(frozen=True)
class Metric:
    """One entry of ``eval_metric_ops``: the Keras metric and its ``update_state`` arguments."""

    key: str
    keras: str
    inputs: tuple[cst.BaseExpression, ...]


@dataclass(frozen=True)
class Spec:
    """One ``return tf.estimator.EstimatorSpec(...)`` of the model_fn."""

    line: cst.SimpleStatementLine
    arguments: dict[str, cst.BaseExpression]
    metrics: Optional[list[Metric]] = None


@dataclass(frozen=True)
class ModelFn:
    """What a model_fn makes and computes, read off its body (``read_model_fn``): the plan the
    codemod and ``model_class`` write from."""

    function: cst.FunctionDef
    parameters: list[str]
    #: ``(attribute, tf.Variable code)`` in the order TF1 made them.
    variables: list[tuple[str, str]]
    init_reads_params: bool
    optimizer: Optional[cst.Call]
    optimizer_name: Optional[str]
    keras: Optional[KerasOptimizer]
    minimize: Optional[cst.Call]
    minimize_name: Optional[str]
    #: Mode string -> the spec its branch returns (``if mode == ModeKeys.EVAL: return ...``).
    branches: dict[str, Spec]
    final: Optional[Spec]
    #: The statements that go (optimizer, minimize, metrics), by identity.
    dropped: set[int]
    #: Names bound to TF1 metrics or to their dict, and what they hold.
    metric_calls: dict[str, cst.Call]
    metric_dicts: dict[str, cst.BaseExpression]
    variable_lines: dict[int, str]
    #: The local name of each variable -> the attribute of the class holding it.
    attributes: dict[str, str]

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
    reader = _Reader(tf, values, local_names(function) | set(parameters))
    _, body = split_docstring(function.body.body)
    reader.read(body)
    plan = ModelFn(
        function,
        [p for p in parameters if p != "config"],
        variables=reader.variables,
        init_reads_params=reader.init_reads_params,
        optimizer=reader.optimizer,
        optimizer_name=reader.optimizer_name,
        keras=reader.keras,
        minimize=reader.minimize,
        minimize_name=reader.minimize_name,
        branches=reader.branches,
        final=reader.final,
        dropped=reader.dropped,
        metric_calls=reader.metric_calls,
        metric_dicts=reader.metric_dicts,
        variable_lines=reader.variable_lines,
        attributes=reader.attributes,
    )
    _check(plan, reader.plain)
    return plan


class _Reader:
    """One model_fn's statements read: what its ``ModelFn`` is made of."""

    def __init__(self, tf: TFNames, values: VariableValues, local: set[str]):
        self.tf, self.values = tf, values
        self.local = local  # the model_fn's parameters and locals
        self.plain: list[cst.CSTNode] = []  # statements kept as they are
        self.random_before: Optional[cst.CSTNode] = None
        self.variables: list[tuple[str, str]] = []
        self.init_reads_params = False
        self.optimizer: Optional[cst.Call] = None
        self.optimizer_name: Optional[str] = None
        self.keras: Optional[KerasOptimizer] = None
        self.minimize: Optional[cst.Call] = None
        self.minimize_name: Optional[str] = None
        self.branches: dict[str, Spec] = {}
        self.final: Optional[Spec] = None
        self.dropped: set[int] = set()
        self.metric_calls: dict[str, cst.Call] = {}
        self.metric_dicts: dict[str, cst.BaseExpression] = {}
        self.variable_lines: dict[int, str] = {}
        self.attributes: dict[str, str] = {}

    # -- statements ------------------------------------------------------------------------

    def read(self, body: Sequence[cst.BaseStatement]) -> None:
        for statement in body:
            if self.final is not None:
                raise Decline(statement, "the model_fn has statements after its last return")
            branch = self._branch_mode(statement)
            if branch is not None:
                self._read_branch(statement, branch)
                continue
            small = self._small(statement)
            if isinstance(small, cst.Return):
                self.final = self._spec(statement, small)
                continue
            if isinstance(small, cst.Assign) and self._read_assignment(statement, small):
                continue
            self._plain(statement)

    def _read_branch(self, statement: cst.If, mode: str) -> None:
        if mode in self.branches:
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
        self.branches[mode] = self._spec(last, small)

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
            self.metric_calls[name] = value
            self.dropped.add(id(line))
            return True
        if (
            isinstance(value, cst.Dict)
            and value.elements
            and all(isinstance(e, cst.DictElement) and self._metric_value(e.value) for e in value.elements)
        ):
            self.metric_dicts[name] = value
            self.dropped.add(id(line))
            return True
        return False

    def _metric_value(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Name):
            return node.value in self.metric_calls
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
        if name in self.variable_lines.values():
            raise Decline(call, f"the model_fn binds `{name}` to two variables")
        attribute = f"{name}_variable" if name in TF_MODULE_MEMBERS else name
        self.variables.append((attribute, code))
        self.variable_lines[id(line)] = name
        self.attributes[name] = attribute
        self.init_reads_params = self.init_reads_params or "params" in names_read(call)

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
        if self.optimizer is not None:
            raise Decline(call, "the model_fn makes two optimizers")
        tf1_class = self._optimizer_class(call)
        keras, why = keras_optimizer(call, tf1_class)
        if keras is None:
            raise Decline(call, f"its optimizer cannot be written as a Keras one: {why}")
        if keras.different_maths is not None or keras.slot_starts:
            raise Decline(call, f"Keras {keras.keras} computes other numbers: {keras.different_maths}")
        self._reads_only_params(call, "the optimizer's arguments")
        self.optimizer, self.optimizer_name, self.keras = call, name, keras
        if line is not None:
            self.dropped.add(id(line))

    def _is_minimize(self, call: cst.Call) -> bool:
        return isinstance(call.func, cst.Attribute) and call.func.attr.value == "minimize"

    def _minimize(self, line: cst.SimpleStatementLine, name: str, call: cst.Call) -> None:
        if self.minimize is not None:
            raise Decline(call, "the model_fn calls minimize twice")
        receiver = call.func.value
        if isinstance(receiver, cst.Call) and self._optimizer_class(receiver) is not None:
            self._optimizer(None, None, receiver)
        elif not (isinstance(receiver, cst.Name) and receiver.value == self.optimizer_name):
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
        self.minimize, self.minimize_name = call, name
        self.dropped.add(id(line))

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
        given = args.get("eval_metric_ops")
        metrics = self._metrics(given) if given is not None and not is_none(given) else None
        for key in ("predictions", "loss"):
            if args.get(key) is not None:
                refuse_unsupported(args[key], self.tf, self._model_names())
        return Spec(line, args, metrics)

    def _metrics(self, node: cst.BaseExpression) -> list[Metric]:
        if isinstance(node, cst.Name) and node.value in self.metric_dicts:
            node = self.metric_dicts[node.value]
        if not isinstance(node, cst.Dict):
            raise Decline(node, "its eval_metric_ops is not a dict of tf.metrics written in the model_fn")
        found = []
        for element in node.elements:
            key = element.key if isinstance(element, cst.DictElement) else None
            if not (isinstance(key, cst.SimpleString) and isinstance(key.evaluated_value, str)):
                raise Decline(node, "its eval_metric_ops keys are not strings written out")
            value = element.value
            if isinstance(value, cst.Name) and value.value in self.metric_calls:
                value = self.metric_calls[value.value]
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
                refuse_unsupported(given_value, self.tf, self._model_names())
            found.append(Metric(key.evaluated_value, keras, tuple(given[p] for p in inputs)))
        return found

    # -- plain statements --------------------------------------------------------------------

    def _plain(self, statement: cst.CSTNode) -> None:
        for node in walk(statement, code_only=True):
            if isinstance(node, cst.Return):
                raise Decline(node, "the model_fn returns from inside a block other than `if mode == ...:`")
        refuse_unsupported(statement, self.tf, self._model_names())
        if self.random_before is None and draws_random(statement, self.tf):
            self.random_before = statement
        self.plain.append(statement)

    def _model_names(self) -> set[str]:
        names = set(self.metric_calls) | set(self.metric_dicts)
        names |= {n for n in (self.optimizer_name, self.minimize_name) if n is not None}
        return names


def _check(plan: ModelFn, plain: list[cst.CSTNode]) -> None:
    """Decline unless the model_fn read trains, evaluates and predicts as the Estimator did
    (``plain``: the statements kept as they are)."""
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
    for statement in plain:
        kept_reads |= names_read(statement)
    gone = (set(plan.metric_calls) | set(plan.metric_dicts)) & kept_reads
    if gone:
        raise Decline(plan.function, f"`{sorted(gone)[0]}` (a metric) is read by the model_fn's computation")
