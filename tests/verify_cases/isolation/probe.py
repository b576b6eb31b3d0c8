# Records the global state a script starts from (runs in tf1 and tf2 mode).
import numpy as np
import tensorflow as tf

functions_run_eagerly = tf.config.functions_run_eagerly()
graph_ops = len(tf.compat.v1.get_default_graph().get_operations())
sees_leftover = "leftover" in globals()
first_layer_name_is_dense = tf.keras.layers.Dense(1).name == "dense"
draw = np.random.rand(3)
