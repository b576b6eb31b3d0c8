"""Linear regression in TensorFlow 1.x style: fed inputs, a graph run step by step, an optimizer op."""

import numpy as np
import tensorflow as tf

rng = np.random.RandomState(0)
train_x = rng.uniform(-1.0, 1.0, size=(64, 3)).astype(np.float32)
train_y = (train_x @ np.array([[2.0], [-3.0], [0.5]]) + 0.25).astype(np.float32)

x = tf.placeholder(tf.float32, [None, 3], name="x")
y = tf.placeholder(tf.float32, [None, 1], name="y")
W = tf.Variable(tf.zeros([3, 1]), name="W")
b = tf.Variable(tf.zeros([1]), name="b")
pred = tf.matmul(x, W) + b
cost = tf.reduce_mean(tf.square(pred - y))
optimizer = tf.train.GradientDescentOptimizer(learning_rate=0.1).minimize(cost)

losses = []
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(20):
        _, c = sess.run([optimizer, cost], feed_dict={x: train_x, y: train_y})
        losses.append(c)
    W_final, b_final = sess.run([W, b])
print("final cost", losses[-1])
