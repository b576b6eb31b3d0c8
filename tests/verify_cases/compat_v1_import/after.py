import tensorflow as tf

total_value = tf.reduce_sum(tf.constant([1.0, 2.0, 3.0]) * 2.0).numpy()
steps = (1, 2, 3)
