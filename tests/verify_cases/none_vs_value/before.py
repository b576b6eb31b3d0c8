# The gradient of a value computed outside the tape is None.
import tensorflow as tf

x = tf.constant(3.0)
y = x * x
with tf.GradientTape() as tape:
    tape.watch(x)
    z = y + x
grad = tape.gradient(y, x)
z_value = z.numpy()
