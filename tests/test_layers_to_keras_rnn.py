"""TFM107 layers-to-keras, RNN cells: a Keras recurrent layer whose weights are drawn as TF1
drew them is given ``seed=`` in a program drawing from Python's ``random`` module (a Keras
recurrent layer made without one draws from that module; TF1's cells do not), and only there."""

import pytest

from tfmodernize.testing import rewrite

PROGRAM = """
{imports}
import tensorflow as tf

cell = tf.nn.rnn_cell.{cell}(4)
outputs, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
"""


@pytest.mark.parametrize("imports", ["import random", "from random import shuffle", "import random as rnd"])
@pytest.mark.parametrize("cell", ["LSTMCell", "BasicLSTMCell", "BasicRNNCell"])
def test_seeded_where_the_program_draws_from_python_random(imports, cell):
    code = rewrite("TFM107", PROGRAM.format(imports=imports, cell=cell)).code
    assert "seed=0" in code, code


@pytest.mark.parametrize("imports", ["", "import numpy as np", "from numpy import random", "import numpy.random"])
@pytest.mark.parametrize("cell", ["LSTMCell", "BasicRNNCell"])
def test_not_seeded_without_python_random(imports, cell):
    code = rewrite("TFM107", PROGRAM.format(imports=imports, cell=cell)).code
    assert "tf.keras.layers." in code and "seed=" not in code, code


def test_gru_not_seeded():
    """Keras's GRU starts from its own initializers, which draw from ``random`` anyway."""
    code = rewrite("TFM107", PROGRAM.format(imports="import random", cell="GRUCell")).code
    assert "tf.keras.layers.GRU" in code and "seed=" not in code, code
