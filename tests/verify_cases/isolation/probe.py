# Records the global state a script starts from (runs in tf1 and tf2 mode).
import numpy as np
import tensorflow as tf

functions_run_eagerly = tf.config.functions_run_eagerly()
graph_ops = len(tf.compat.v1.get_default_graph().get_operations())
sees_leftover = "leftover" in globals()
first_layer_name_is_dense = tf.keras.layers.Dense(1).name == "dense"
floatx_is_float32 = tf.keras.backend.floatx() == "float32"
global_policy = getattr(tf.keras.mixed_precision, "global_policy", None)  # not in tf-keras's TF1 API
policy_is_float32 = global_policy is None or global_policy().name == "float32"
executing_eagerly = tf.executing_eagerly()
draw = np.random.rand(3)
