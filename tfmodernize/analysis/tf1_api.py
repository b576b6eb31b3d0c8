"""Names of the TF1 API that several codemods look for, by path under ``tf.`` (one table each,
shared, so that a name added for one codemod counts for all)."""

from __future__ import annotations

from typing import NamedTuple, Optional

import libcst as cst

from tfmodernize.tfsymbols import dotted_name

PLACEHOLDERS = ("placeholder", "placeholder_with_default")
VARIABLE_MAKERS = ("Variable", "get_variable")
SESSIONS = ("Session", "InteractiveSession")
#: Sessions that also run hooks and restore checkpoints (never migrated, always TF1).
MONITORED_SESSIONS = ("train.MonitoredTrainingSession", "train.MonitoredSession")
INITIALIZERS = (
    "global_variables_initializer",
    "initialize_all_variables",
    "local_variables_initializer",
    "initialize_local_variables",
    "variables_initializer",
    "initialize_variables",
    "tables_initializer",
)
#: Calls that turn TF 2.x's v2 behaviour (eager execution) off, and those that ask for it.
V2_OFF = ("disable_v2_behavior", "disable_eager_execution")
V2_ON = ("enable_eager_execution", "enable_v2_behavior")
#: ``with`` scopes that prefix the names of the variables made inside (``variable_scope``) or of
#: the ops (``name_scope``, which also prefixes ``tf.Variable`` names).
VARIABLE_SCOPES = ("variable_scope",)
NAME_SCOPES = ("name_scope",)
#: Members that only the TF1 kind of an object has, by the kind of object (its TF type): TF 2.x
#: objects made through the plain ``tensorflow`` module lack them (``AttributeError``), while the
#: same objects made through ``tensorflow.compat.v1`` have them.
V1_ONLY_MEMBERS = {
    # ``tf.data.Dataset`` (DatasetV2 in TF 2.x): TF1's iterators and structure attributes.
    "dataset": (
        "make_one_shot_iterator",
        "make_initializable_iterator",
        "output_types",
        "output_shapes",
        "output_classes",
    ),
    # ``tf.Variable``: loading a value through a session; the value once initialised (eager
    # variables are initialised when made: NotImplementedError).
    "variable": ("load", "initialized_value"),
}
#: Dataset methods returning a dataset again (``ds.shuffle(100).batch(32)`` is a dataset).
DATASET_CHAIN = (
    "map",
    "batch",
    "padded_batch",
    "shuffle",
    "repeat",
    "prefetch",
    "filter",
    "take",
    "skip",
    "cache",
    "zip",
    "concatenate",
    "flat_map",
    "interleave",
    "apply",
    "unbatch",
    "window",
    "enumerate",
    "shard",
    "with_options",
)
#: TF 1.15's ``tf.estimator`` re-exported the session-run hooks from ``tensorflow.python.training``:
#: the very objects ``tf.train.<name>`` names, which TF 2.x keeps (under ``tf.compat.v1``) while
#: ``tf.estimator`` is gone since TensorFlow 2.16.
ESTIMATOR_HOOKS = (
    "SessionRunHook",
    "SessionRunArgs",
    "SessionRunContext",
    "SessionRunValues",
    "LoggingTensorHook",
    "StopAtStepHook",
    "CheckpointSaverHook",
    "CheckpointSaverListener",
    "StepCounterHook",
    "NanTensorHook",
    "SummarySaverHook",
    "GlobalStepWaiterHook",
    "FinalOpsHook",
    "FeedFnHook",
    "ProfilerHook",
    "NanLossDuringTrainingError",
    "SecondOrStepTimer",
)
#: Packages outside TensorFlow whose functions build TF1 graphs (variables through variable
#: scopes and collections, arg scopes): a file importing one stays on ``tf.compat.v1`` with v2
#: behaviour off. Import name -> the package to install.
TF1_PACKAGES = {"tf_slim": "tf-slim"}


def tf1_package(statement: cst.CSTNode) -> Optional[str]:
    """The package (``tf-slim``) whose TF1 graph code an import statement brings in, if any."""
    if isinstance(statement, cst.Import):
        modules = [dotted_name(alias.name) or "" for alias in statement.names]
    elif isinstance(statement, cst.ImportFrom) and statement.module is not None and not statement.relative:
        modules = [dotted_name(statement.module) or ""]
    else:
        return None
    return next((TF1_PACKAGES[m.split(".")[0]] for m in modules if m.split(".")[0] in TF1_PACKAGES), None)


#: TF ops drawing random values when they run (TF1 drew them once per run, from one op).
RANDOM_OPS = (
    "random_normal",
    "random_uniform",
    "truncated_normal",
    "random_shuffle",
    "random_crop",
    "random_gamma",
    "random_poisson",
    "multinomial",
    "nn.dropout",
    "layers.dropout",
)
#: API families whose calls run in Python on the host and build no op: the tutorials' dataset
#: readers, file and logging helpers. A module function calling only these builds no tensor.
HOST_PREFIXES = ("examples.", "gfile.", "io.gfile.", "logging.")


class SharedInitializer(NamedTuple):
    """A TF1 initializer TF 2.x has a class for (``init_ops_v2``): its TF2 name, TF1's
    constructor parameters in order, and the TF1 defaults TF2 changed, as code."""

    tf2: str
    parameters: tuple[str, ...]
    tf1_defaults: tuple[tuple[str, str], ...] = ()


ZEROS = SharedInitializer("zeros_initializer", ("dtype",))
ONES = SharedInitializer("ones_initializer", ("dtype",))
CONSTANT = SharedInitializer("constant_initializer", ("value", "dtype", "verify_shape"))
RANDOM_NORMAL = SharedInitializer(
    "random_normal_initializer",
    ("mean", "stddev", "seed", "dtype"),
    (("stddev", "1.0"),),
)
RANDOM_UNIFORM = SharedInitializer(
    "random_uniform_initializer",
    ("minval", "maxval", "seed", "dtype"),
    (("minval", "0.0"), ("maxval", "1.0")),
)
#: TF1 initializers whose TF2 class draws the same numbers with the same arguments, when unseeded
#: (TF2's seeded ones draw with stateless ops), by TF1 path. TF2's take no ``dtype`` (it is
#: given where they are called; ``constant_initializer``'s second parameter became
#: ``support_partition``), nor ``verify_shape``; ``random_normal_initializer``'s ``stddev`` and
#: ``random_uniform_initializer``'s range default to other values.
SHARED_INITIALIZERS = {
    "zeros_initializer": ZEROS,
    "initializers.zeros": ZEROS,
    "ones_initializer": ONES,
    "initializers.ones": ONES,
    "constant_initializer": CONSTANT,
    "initializers.constant": CONSTANT,
    "random_normal_initializer": RANDOM_NORMAL,
    "initializers.random_normal": RANDOM_NORMAL,
    "random_uniform_initializer": RANDOM_UNIFORM,
    "initializers.random_uniform": RANDOM_UNIFORM,
}
TRUNCATED_NORMAL = "tf.random.truncated_normal(shape, mean, stddev)"
GLOROT_UNIFORM = "tf.random.uniform(shape, -limit, limit), limit = sqrt(6 / (fan_in + fan_out))"
GLOROT_NORMAL = "tf.random.truncated_normal(shape, 0, sqrt(2 / (fan_in + fan_out)) / 0.8796)"
VARIANCE_SCALING = "tf.random.truncated_normal or tf.random.uniform of the scale it computes"
#: TF1 initializers no TF 2.x class draws the same numbers for (Keras's draw with their own
#: seed generator), by TF1 path: the TF2 op drawing what TF1's ``__call__`` drew, where the
#: variable is made.
TF1_ONLY_INITIALIZERS = {
    "truncated_normal_initializer": TRUNCATED_NORMAL,
    "initializers.truncated_normal": TRUNCATED_NORMAL,
    "glorot_uniform_initializer": GLOROT_UNIFORM,
    "initializers.glorot_uniform": GLOROT_UNIFORM,
    "glorot_normal_initializer": GLOROT_NORMAL,
    "initializers.glorot_normal": GLOROT_NORMAL,
    "variance_scaling_initializer": VARIANCE_SCALING,
    "initializers.variance_scaling": VARIANCE_SCALING,
}
