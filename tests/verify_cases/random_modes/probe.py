# Two random ops of the same shape: equal in "constant" mode, different in "num_random_ops".
import numpy as np
import tensorflow as tf

first = tf.random.normal([4]).numpy()
second = tf.random.normal([4]).numpy()
same = bool(np.array_equal(first, second))
