"""TF1 inference: score a batch with fixed weights and find each query's nearest neighbour.

A classic TF1 program: placeholders, a session, feed dicts and fetched numpy results.
`tfmodernize diff examples/tf1_inference.py` turns it into tf.function calls.
"""

import numpy as np
import tensorflow as tf

rng = np.random.RandomState(42)
database = rng.normal(size=(16, 3)).astype(np.float32)
queries = rng.normal(size=(5, 3)).astype(np.float32)
projection = rng.normal(size=(3, 2)).astype(np.float32)

points = tf.placeholder(tf.float32, [None, 3], name="points")
query = tf.placeholder(tf.float32, [3], name="query")
W = tf.Variable(projection, name="W")

scores = tf.nn.softmax(tf.matmul(points, W))
distances = tf.reduce_sum(tf.abs(points - query), axis=1)
nearest = tf.argmin(distances, 0)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    database_scores = sess.run(scores, feed_dict={points: database})
    neighbours = []
    for q in queries:
        index = sess.run(nearest, feed_dict={points: database, query: q})
        neighbours.append(int(index))

print("scores of the first point", database_scores[0])
print("nearest neighbours", neighbours)
