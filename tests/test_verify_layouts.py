"""TF1's fused RNN cell variables handed to Keras's layout (verify --align-variables): the
kernel over [inputs, state] split in two, the gates reordered, other variables untouched."""

import numpy as np

from tfmodernize.verify.layouts import keras_layout


def _entry(name, value):
    return {"name": name, "shape": list(value.shape), "dtype": "float32", "trainable": True, "value": value}


def test_an_lstm_kernel_is_split_and_its_gates_reordered():
    inputs, units = 3, 2
    # Column block k of TF1's kernel holds gate k (input, cell, forget, output): fill it with k.
    kernel = np.repeat(np.arange(4, dtype=np.float32), units)[None, :].repeat(inputs + units, 0)
    kernel[inputs:] += 10.0  # the state's rows
    bias = np.repeat(np.arange(4, dtype=np.float32), units)
    dense = np.ones((units, 1), np.float32)
    out = keras_layout(
        [
            _entry("rnn/lstm_cell/kernel:0", kernel),
            _entry("rnn/lstm_cell/bias:0", bias),
            _entry("dense/kernel:0", dense),
        ]
    )
    assert [e["shape"] for e in out] == [[3, 8], [2, 8], [8], [2, 1]]
    # Keras: input, forget, cell, output.
    assert out[0]["value"][0].tolist() == [0, 0, 2, 2, 1, 1, 3, 3]
    assert out[1]["value"][0].tolist() == [10, 10, 12, 12, 11, 11, 13, 13]
    assert out[2]["value"].tolist() == [0, 0, 2, 2, 1, 1, 3, 3] and out[2]["add_own_initial"] is True
    assert out[3]["name"] == "dense/kernel:0" and out[3]["value"] is dense


def test_a_gru_cells_gates_and_candidate_become_one_kernel():
    gates = np.array([[1.0, 2.0], [1.0, 2.0], [5.0, 6.0]], np.float32)  # (reset, update) columns
    candidate = np.array([[3.0], [3.0], [7.0]], np.float32)
    out = keras_layout(
        [
            _entry("rnn/gru_cell/gates/kernel:0", gates),
            _entry("rnn/gru_cell/gates/bias:0", np.ones(2, np.float32)),
            _entry("rnn/gru_cell/candidate/kernel:0", candidate),
            _entry("rnn/gru_cell/candidate/bias:0", np.zeros(1, np.float32)),
        ]
    )
    assert [e["shape"] for e in out] == [[2, 3], [1, 3], [3]]
    assert out[0]["value"][0].tolist() == [2.0, 1.0, 3.0]  # update, reset, candidate
    assert out[1]["value"][0].tolist() == [6.0, 5.0, 7.0]
    assert out[2]["value"].tolist() == [1.0, 1.0, 0.0]


def test_variables_of_a_cell_with_its_own_name_are_left_as_recorded():
    kernel = np.zeros((5, 2), np.float32)
    recorded = [_entry("rnn/encoder/kernel:0", kernel), _entry("rnn/encoder/bias:0", np.zeros(2, np.float32))]
    assert keras_layout(recorded) == recorded
