"""Logistic regression in TensorFlow 1.x style on synthetic, linearly separable data."""

import numpy as np
import tensorflow as tf

rng = np.random.RandomState(1)
train_x = rng.normal(size=(100, 2)).astype(np.float32)
train_y = (train_x[:, :1] - 2.0 * train_x[:, 1:] > 0.0).astype(np.float32)

x = tf.placeholder(tf.float32, [None, 2], name="x")
y = tf.placeholder(tf.float32, [None, 1], name="y")
W = tf.Variable(tf.zeros([2, 1]), name="W")
b = tf.Variable(tf.zeros([1]), name="b")
logits = tf.matmul(x, W) + b
cost = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits))
optimizer = tf.train.AdamOptimizer(learning_rate=0.1)
train_op = optimizer.minimize(cost)
correct = tf.equal(tf.cast(logits > 0.0, tf.float32), y)
accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))

losses = []
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(30):
        _, c = sess.run([train_op, cost], feed_dict={x: train_x, y: train_y})
        losses.append(c)
    final_accuracy = sess.run(accuracy, feed_dict={x: train_x, y: train_y})
    W_final, b_final = sess.run([W, b])
print("final cost", losses[-1], "accuracy", final_accuracy)
