# A tf.function called with Python ints: one trace per distinct value.
import tensorflow as tf


@tf.function
def square(n):
    return n * n


results = [int(square(n)) for n in range(3)]
traces = square.experimental_get_tracing_count()
