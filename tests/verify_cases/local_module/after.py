import tensorflow as tf

from constants import SCALE

total = (tf.reduce_sum(tf.constant([1.0, 2.0, 3.0])) * SCALE).numpy()
