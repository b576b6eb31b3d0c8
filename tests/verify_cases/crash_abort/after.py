import os

import tensorflow as tf

w_final = tf.ones([2, 2]).numpy()
os.abort()
