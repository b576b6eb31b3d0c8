# Flips process-wide behaviour that cannot be undone per script: eager execution in tf2 mode,
# resource variables in tf1 mode.
import tensorflow as tf

if tf.executing_eagerly():
    tf.compat.v1.disable_eager_execution()
else:
    tf.compat.v1.enable_resource_variables()
switched = True
