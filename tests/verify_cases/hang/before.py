import numpy as np
import tensorflow as tf

w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
w.assign_add(tf.ones([2, 2]) * 0.5)
w_final = w.numpy()
