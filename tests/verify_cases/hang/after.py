import time

import tensorflow as tf

w_final = tf.ones([2, 2]).numpy()
while True:
    time.sleep(0.05)
