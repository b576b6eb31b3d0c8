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
