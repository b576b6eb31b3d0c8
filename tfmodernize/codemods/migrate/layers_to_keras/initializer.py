"""TF1's default kernel initializer, written into a file whose ``tf.layers`` became Keras layers.

A ``tf.layers`` (or ``tf.contrib.layers.fully_connected``) kernel not given an initializer
started from Glorot-uniform values that TF1 drew with its stateful random op
(``VarianceScaling(1.0, "fan_avg", "uniform")``: ``random_uniform(shape, -limit, limit)``,
``limit = sqrt(3 * scale)``, ``scale = 1 / max(1, (fan_in + fan_out) / 2)``, the fans of the
last two dimensions times the receptive field; contrib's ``xavier_initializer`` computes the
same limit, equal in float32). Keras 3's ``GlorotUniform`` draws the same distribution from
its own seed generator, so a migrated model would start from other weights and train to other
numbers. ``TEMPLATE`` draws with ``tf.random.uniform``, the op TF1 ran: Keras calls it when
the layer builds its kernel (on the layer's first call, in the order TF1 made the layers), so
the layers start from TF1's weights under the same seeds. Keras passes ``shape`` as a tuple
of ints and ``dtype`` as its name.
"""

from __future__ import annotations

from string import Template

#: The ``tf.layers`` functions (the last part of their name) whose kernel TF1 initialized so
#: when not given ``kernel_initializer`` (contrib's ``weights_initializer``) or given None.
GLOROT_KERNELS = frozenset({"dense", "conv1d", "conv2d", "conv2d_transpose", "fully_connected"})

#: The function, named ``$name``, for a file whose TensorFlow 2 is ``$tf``.
TEMPLATE = Template('''\
def $name(shape, dtype=$tf.float32):
    """TF1's default kernel initializer (Glorot uniform), drawn by
    tf.random.uniform as TF1 drew it, so the layers start from TF1's weights
    (Keras's GlorotUniform draws other numbers)."""
    receptive_field = math.prod(shape[:-2])
    fan_in = shape[-2] * receptive_field
    fan_out = shape[-1] * receptive_field
    scale = 1.0 / max(1.0, (fan_in + fan_out) / 2.0)
    limit = math.sqrt(3.0 * scale)
    return $tf.random.uniform(shape, -limit, limit, dtype=dtype)
''')

#: Keras's gates (columns of a recurrent kernel) in TF1's order of them, by the Keras layer an
#: RNN cell became: an LSTM's input, forget, cell, output gates were TF1's 0, 2, 1, 3 (input,
#: cell, forget, output); a simple RNN has one.
CELL_GATES = {"SimpleRNN": (0,), "LSTM": (0, 2, 1, 3)}

#: TF1's RNN cell kernel (``BasicRNNCell``, ``BasicLSTMCell``, ``LSTMCell`` given no
#: initializer): one Glorot-uniform matrix over ``[inputs, state]`` rows, drawn by the file's
#: ``$glorot`` (``TEMPLATE``) when Keras asks for the input rows, which it does first, then the
#: state rows from the same draw; the gates' columns put in Keras's order. ``$name`` is the
#: class's name; each layer gets its own object.
CELL_TEMPLATE = Template('''\
class $name:
    """TF1's RNN cell kernel: one Glorot-uniform matrix over the input and
    state rows, drawn as TF1 drew it, its gates' columns in Keras's order
    (`gates`: TF1's gate of each of Keras's). Keras asks for the input rows
    first (`inputs`), then the state rows (`state`)."""

    def __init__(self, gates=(0,)):
        self.gates = gates
        self.state_rows = None

    def inputs(self, shape, dtype=$tf.float32):
        rows, columns = shape
        units = columns // len(self.gates)
        whole = $glorot((rows + units, columns), dtype)
        blocks = $tf.split(whole, len(self.gates), axis=1)
        whole = $tf.concat([blocks[gate] for gate in self.gates], axis=1)
        self.state_rows = whole[rows:]
        return whole[:rows]

    def state(self, shape, dtype=$tf.float32):
        return self.state_rows
''')
