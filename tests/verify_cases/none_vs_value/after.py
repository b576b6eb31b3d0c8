import tensorflow as tf

x = tf.constant(3.0)
with tf.GradientTape() as tape:
    tape.watch(x)
    y = x * x
    z = y + x
grad = tape.gradient(y, x)
z_value = z.numpy()
