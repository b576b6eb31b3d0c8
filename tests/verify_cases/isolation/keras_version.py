# Which Keras `tf.keras` is: tf-keras's TF1 API in tf1 mode, Keras 3 in tf2 mode.
import tensorflow as tf

keras_is_tf_keras = tf.keras.__name__.startswith("tf_keras")
keras_is_keras_3 = tf.keras.__name__.startswith("keras")
executing_eagerly = tf.executing_eagerly()
