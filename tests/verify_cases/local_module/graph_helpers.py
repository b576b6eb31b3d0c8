# A TF1 helper module beside the script: its plain `import tensorflow` must be TF1 too.
import tensorflow as tf

from constants import SCALE


def scaled_sum(values):
    x = tf.placeholder(tf.float32, [None])
    total = tf.reduce_sum(x) * SCALE
    with tf.Session() as sess:
        return sess.run(total, {x: values})
