"""Shared analysis of the codemods, one concept per module: ``tf1_api`` (the TF1 names several
codemods look for), ``tables`` (TensorFlow's upgrade tables), ``module_variables`` (the
variables a module's top-level code makes, in creation order), ``graph_collections`` (what
TF1's collections hold when read), ``project_facts``, ``optimizers``, ``variables`` (``tf.get_variable`` read and written as
``tf.Variable``), ``bindings``, ``tape``, ``tf_function``, ``tf_objects`` (members only TF1
objects have), ``program`` (what makes a module a program)."""
