import numpy as np
import tensorflow as tf

w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
w.assign_add(tf.constant([[0.5, 0.5], [0.5, 0.501]]))  # deliberate error
w_final = w.numpy()
