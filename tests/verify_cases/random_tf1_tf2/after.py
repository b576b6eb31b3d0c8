# The same computation in TF2, random ops created in the TF1 graph's order.
import numpy as np
import tensorflow as tf

noise = tf.random.normal([2, 3])
w = tf.Variable(tf.compat.v1.glorot_uniform_initializer()([3, 2]))
b = tf.Variable(tf.random.normal([2]))
kernel = tf.Variable(tf.compat.v1.glorot_uniform_initializer()([3, 4]))

data = np.arange(6, dtype=np.float32).reshape(2, 3)
noise_value = noise.numpy()
y_value = (tf.matmul(data + noise, w) + b).numpy()
hidden_value = tf.matmul(data, kernel).numpy()
w_value = w.numpy()
executing_eagerly = False
