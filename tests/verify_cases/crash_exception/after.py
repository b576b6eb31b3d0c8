import numpy as np
import tensorflow as tf

w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
print("about to fail")
w.assign_add(tf.ones([3, 3]))
w_final = w.numpy()
