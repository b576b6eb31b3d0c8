# The same function called with tensors: one trace for all values.
import tensorflow as tf


@tf.function
def square(n):
    return n * n


results = [int(square(n)) for n in tf.range(3)]
traces = square.experimental_get_tracing_count()
