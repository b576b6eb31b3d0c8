"""A two-layer perceptron in TensorFlow 1.x style: random initial weights, a TF1 optimizer op."""

import numpy as np
import tensorflow as tf

rng = np.random.RandomState(2)
train_x = rng.normal(size=(128, 4)).astype(np.float32)
train_y = np.sin(train_x.sum(axis=1, keepdims=True)).astype(np.float32)

x = tf.placeholder(tf.float32, [None, 4], name="x")
y = tf.placeholder(tf.float32, [None, 1], name="y")
W1 = tf.Variable(tf.random_normal([4, 16], stddev=0.5), name="W1")
b1 = tf.Variable(tf.zeros([16]), name="b1")
W2 = tf.Variable(tf.random_normal([16, 1], stddev=0.5), name="W2")
b2 = tf.Variable(tf.zeros([1]), name="b2")
hidden = tf.nn.relu(tf.matmul(x, W1) + b1)
pred = tf.matmul(hidden, W2) + b2
cost = tf.reduce_mean(tf.square(pred - y))
train_op = tf.train.MomentumOptimizer(learning_rate=0.05, momentum=0.9).minimize(cost)

losses = []
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(25):
        _, c = sess.run([train_op, cost], feed_dict={x: train_x, y: train_y})
        losses.append(c)
    test_cost = sess.run(cost, feed_dict={x: train_x[:32], y: train_y[:32]})
print("final cost", losses[-1], "held-out cost", test_cost)
