# TF1 code written against the compat module, and a bare-name import of the top level.
import tensorflow.compat.v1 as tf
from tensorflow import constant

tf.disable_v2_behavior()

a = tf.placeholder(tf.float32, [3])
total = tf.reduce_sum(a * constant(2.0))
with tf.Session() as sess:
    total_value = sess.run(total, {a: [1.0, 2.0, 3.0]})
steps = [1, 2, 3]
