# TF1 graph: random initialisers and a random tensor, run in a session.
import numpy as np
import tensorflow as tf

x = tf.placeholder(tf.float32, [None, 3])
noise = tf.random_normal([2, 3])
w = tf.get_variable("w", [3, 2])
b = tf.Variable(tf.random_normal([2]), name="b")
hidden = tf.layers.dense(x, 4)
y = tf.matmul(x + noise, w) + b

data = np.arange(6, dtype=np.float32).reshape(2, 3)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    noise_value, y_value, hidden_value = sess.run([noise, y, hidden], {x: data})
    w_value = sess.run(w)
executing_eagerly = tf.executing_eagerly()
