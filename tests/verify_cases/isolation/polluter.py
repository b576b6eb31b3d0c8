# Leaves every kind of global state behind that a later script must not see.
import numpy as np
import tensorflow as tf

tf.config.run_functions_eagerly(True)
leftover = tf.compat.v1.constant(1.0) + 1
layer = tf.keras.layers.Dense(1)
tf.keras.backend.set_floatx("float16")
if tf.executing_eagerly():  # tf-keras allows no global policy under TF1 behaviour
    tf.keras.mixed_precision.set_global_policy("mixed_float16")
np.random.seed(7)
