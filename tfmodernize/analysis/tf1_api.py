"""Names of the TF1 API that several codemods look for, by path under ``tf.`` (one table each,
shared, so that a name added for one codemod counts for all)."""

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
    "dataset": ("make_one_shot_iterator", "make_initializable_iterator", "output_types", "output_shapes",
                "output_classes"),
    # ``tf.Variable``: loading a value through a session; the value once initialised (eager
    # variables are initialised when made: NotImplementedError).
    "variable": ("load", "initialized_value"),
}
#: Dataset methods returning a dataset again (``ds.shuffle(100).batch(32)`` is a dataset).
DATASET_CHAIN = (
    "map", "batch", "padded_batch", "shuffle", "repeat", "prefetch", "filter", "take", "skip", "cache", "zip",
    "concatenate", "flat_map", "interleave", "apply", "unbatch", "window", "enumerate", "shard", "with_options",
)
