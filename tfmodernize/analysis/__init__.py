"""Shared analysis of the codemods, one concept per module: ``tf1_api`` (the TF1 names several
codemods look for), ``tables`` (TensorFlow's upgrade tables), ``training`` (variable inventory,
project facts, optimizer table), ``variables`` (``tf.get_variable`` read and written as
``tf.Variable``), ``bindings``, ``tape``, ``tf_function``, ``tf_objects`` (members only TF1
objects have), ``program`` (what makes a module a program)."""
