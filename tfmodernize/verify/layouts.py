"""TF1 variables in the layout of the Keras layers a migration made of them, for
``verify --align-variables`` (the child process hands a TF1 program's recorded initial values
to the TF2 program's variables in creation order; see ``child.Variables``)."""

from __future__ import annotations

from typing import Any

import numpy as np


def keras_layout(recorded: list[dict]) -> list[dict]:
    """TF1's RNN cells (default names) keep one kernel over ``[inputs, state]``; Keras's
    recurrent layers a kernel and a recurrent kernel, their gates in another order (see
    ``tfmodernize/codemods/migrate/layers_to_keras/rnn.py``). The recorded values go to Keras
    in its layout:
    ``basic_rnn_cell`` -> kernel, recurrent kernel, bias; ``lstm_cell`` / ``basic_lstm_cell``
    -> the same with the gates (input, cell, forget, output) reordered to (input, forget, cell,
    output), the bias marked to take Keras's own initial value on top (its forget-gate 1.0,
    which TF1 added at run time); ``gru_cell`` gates + candidate -> kernel, recurrent kernel,
    bias with the gates (reset, update) reordered to (update, reset, candidate)."""

    def base(entry: dict) -> str:
        return entry["name"].rsplit(":", 1)[0]

    def piece(entry: dict, value: Any, part: str, **extra: Any) -> dict:
        return {
            **entry,
            "name": f"{base(entry)} ({part}, Keras layout)",
            "shape": list(value.shape),
            "value": value,
            **extra,
        }

    out: list[dict] = []
    index = 0
    while index < len(recorded):
        entry, following = recorded[index], [base(e) for e in recorded[index + 1 : index + 4]]
        name = base(entry)
        scope = name.rsplit("/", 1)[0]
        cell_kind = name.rsplit("/", 2)[-2] if name.count("/") >= 1 else ""
        if (
            cell_kind in ("basic_rnn_cell", "basic_lstm_cell", "lstm_cell")
            and name.endswith("/kernel")
            and following[:1] == [f"{scope}/bias"]
        ):
            kernel, bias = entry["value"], recorded[index + 1]["value"]
            lstm = cell_kind != "basic_rnn_cell"
            units = bias.shape[0] // (4 if lstm else 1)
            inputs = kernel.shape[0] - units
            order = (
                np.r_[0:units, 2 * units : 3 * units, units : 2 * units, 3 * units : 4 * units]
                if lstm
                else np.arange(units)
            )
            out += [
                piece(entry, kernel[:inputs][:, order], "kernel"),
                piece(entry, kernel[inputs:][:, order], "recurrent kernel"),
                piece(recorded[index + 1], bias[order], "bias", add_own_initial=lstm),
            ]
            index += 2
            continue
        cell = name[: -len("/gates/kernel")]
        if (name == "gru_cell/gates/kernel" or name.endswith("/gru_cell/gates/kernel")) and following == [
            f"{cell}/gates/bias",
            f"{cell}/candidate/kernel",
            f"{cell}/candidate/bias",
        ]:
            gates, gates_bias, candidate, candidate_bias = (e["value"] for e in recorded[index : index + 4])
            units = candidate_bias.shape[0]
            inputs = candidate.shape[0] - units
            update, reset = slice(units, 2 * units), slice(0, units)
            out += [
                piece(
                    entry,
                    np.concatenate([gates[:inputs, update], gates[:inputs, reset], candidate[:inputs]], 1),
                    "kernel",
                ),
                piece(
                    entry,
                    np.concatenate([gates[inputs:, update], gates[inputs:, reset], candidate[inputs:]], 1),
                    "recurrent kernel",
                ),
                piece(
                    recorded[index + 1], np.concatenate([gates_bias[update], gates_bias[reset], candidate_bias]), "bias"
                ),
            ]
            index += 4
            continue
        out.append(entry)
        index += 1
    return out
