"""A small TF2 training script with the mistakes tfmodernize fixes.

Run it as is on TensorFlow 2.21, then `tfmodernize diff examples/` to see the fixes.
"""

import numpy as np
import tensorflow as tf

tf.config.experimental_run_functions_eagerly(False)

rng = np.random.default_rng(0)
x_train = rng.normal(size=(64, 4)).astype("float32")
y_train = (x_train @ np.array([[1.0], [-2.0], [0.5], [3.0]], dtype="float32")).astype("float32")

model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
optimizer = tf.keras.optimizers.SGD(learning_rate=0.05)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.variables)
    optimizer.apply_gradients(zip(grads, model.variables))
    return loss


losses = []
for step in range(20):
    losses.append(float(train_step(x_train, y_train)))
print("first loss", losses[0], "last loss", losses[-1])
