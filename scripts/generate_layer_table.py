"""Write ``tfmodernize/data/layers.json``: TF1 ``tf.layers`` functions -> Keras 3 layers.

The table is read off both libraries' signatures (TF1's functions from tf-keras's legacy
``tf.layers``, the Keras 3 layer constructors); only what a signature cannot say is written here
by hand: which TF1 parameter is the layer's input or a call argument, which one the migration
declines, and the defaults that mean the same in both libraries although spelled differently
(TF1's ``kernel_initializer=None`` is ``get_variable``'s Glorot uniform, Keras's
``"glorot_uniform"``). Every other TF1 default that differs from the Keras default is written
out by the migration. The fixtures under ``fixtures/layers-to-keras/`` train with each mapping
and compare the numbers with TF1 (variables aligned), so a wrong entry fails a test.

Run with the verify extra installed:  python scripts/generate_layer_table.py [--output PATH]
"""

from __future__ import annotations

import argparse
import inspect
import json
from pathlib import Path

import keras
import tensorflow as tf
from tf_keras.src.legacy_tf_layers import convolutional, core, normalization, pooling

TARGET = Path(__file__).resolve().parent.parent / "tfmodernize" / "data" / "layers.json"

#: TF1 function -> (its module, the Keras 3 layer class).
LAYERS = {
    "dense": (core, "Dense"),
    "flatten": (core, "Flatten"),
    "dropout": (core, "Dropout"),
    "conv1d": (convolutional, "Conv1D"),
    "conv2d": (convolutional, "Conv2D"),
    "conv2d_transpose": (convolutional, "Conv2DTranspose"),
    "max_pooling1d": (pooling, "MaxPooling1D"),
    "max_pooling2d": (pooling, "MaxPooling2D"),
    "average_pooling1d": (pooling, "AveragePooling1D"),
    "average_pooling2d": (pooling, "AveragePooling2D"),
    "batch_normalization": (normalization, "BatchNormalization"),
}
#: The TF1 parameter holding the layer's input, and those passed when the layer is called.
INPUT = "inputs"
CALL = {"training"}
#: TF1 parameters the migration declines when passed (``reuse``: variable sharing is the
#: variable-scopes migration's).
DECLINED = {"reuse"}
#: TF1 parameters with no Keras 3 counterpart: the migration declines a value other than the
#: default, except ``fused`` (which decides how TF1 computed the moving variance: the migration
#: reads it, see layers-to-keras).
TF1_ONLY = {"fused", "virtual_batch_size", "adjustment"}
#: Parameters every Keras layer takes through ``**kwargs``.
KERAS_BASE = {"name", "trainable", "dtype"}
#: (parameter, TF1 default, Keras default) that mean the same.
SAME_DEFAULT = {
    ("kernel_initializer", "None", "'glorot_uniform'"),  # get_variable's default for floats
    ("bias_initializer", "zeros_initializer()", "'zeros'"),
    ("data_format", "'channels_last'", "None"),  # Keras: image_data_format(), channels_last
    ("beta_initializer", "zeros_initializer()", "'zeros'"),
    ("gamma_initializer", "ones_initializer()", "'ones'"),
    ("moving_mean_initializer", "zeros_initializer()", "'zeros'"),
    ("moving_variance_initializer", "ones_initializer()", "'ones'"),
}


def _spelled(value: object) -> str:
    if isinstance(value, tf.compat.v1.zeros_initializer):
        return "zeros_initializer()"
    if isinstance(value, tf.compat.v1.ones_initializer):
        return "ones_initializer()"
    return repr(value)


def _signature(function) -> list[inspect.Parameter]:
    return [
        p
        for p in inspect.signature(function).parameters.values()
        if p.name != "self" and p.kind not in (inspect.Parameter.VAR_KEYWORD, inspect.Parameter.VAR_POSITIONAL)
    ]


def _entry(name: str, module, keras_class: str) -> dict:
    tf1 = _signature(getattr(module, name))
    keras_parameters = {p.name: p for p in _signature(getattr(keras.layers, keras_class).__init__)}
    constructor, write_out, tf1_only = [], {}, {}
    for parameter in tf1:
        if parameter.name == INPUT or parameter.name in CALL or parameter.name in DECLINED:
            continue
        if parameter.name in TF1_ONLY:
            tf1_only[parameter.name] = _spelled(parameter.default)
            continue
        if parameter.name not in keras_parameters and parameter.name not in KERAS_BASE:
            raise SystemExit(f"{name}: `{parameter.name}` has no Keras {keras_class} parameter")
        constructor.append(parameter.name)
        if parameter.default is inspect.Parameter.empty:
            continue
        keras_parameter = keras_parameters.get(parameter.name)
        keras_default = (
            "None"
            if keras_parameter is None
            else ("required" if keras_parameter.default is inspect.Parameter.empty else repr(keras_parameter.default))
        )
        tf1_default = _spelled(parameter.default)
        if (
            tf1_default != keras_default
            and (parameter.name, tf1_default, keras_default) not in SAME_DEFAULT
            and parameter.name not in KERAS_BASE
        ):
            write_out[parameter.name] = tf1_default
    required = [
        p.name for p in keras_parameters.values() if p.default is inspect.Parameter.empty and p.name != "kwargs"
    ]
    return {
        "keras": keras_class,
        "parameters": [p.name for p in tf1],
        "constructor": constructor,
        # Written positionally, in this order, when passed: the Keras layer's required parameters.
        "positional": [p for p in required if p in constructor],
        "call": sorted(CALL & {p.name for p in tf1}),
        "declined": sorted(DECLINED & {p.name for p in tf1}),
        "tf1_only": tf1_only,
        "tf1_defaults_written_out": write_out,
    }


#: ``tf.contrib.layers`` functions: gone from every TensorFlow the registry serves, so their TF
#: 1.15 signatures are written here (``tensorflow/contrib/layers/python/layers/layers.py``):
#: (parameter, its default spelled, None when required) in order; the TF1 names Keras spells
#: otherwise; the names of the variables TF1 made; and parameters declined when passed as
#: None although their default is not (``biases_initializer=None``: no bias).
CONTRIB = {
    "contrib.layers.fully_connected": {
        "keras": "Dense",
        "signature": [
            ("inputs", None),
            ("num_outputs", None),
            ("activation_fn", "tf.nn.relu"),
            ("normalizer_fn", "None"),
            ("normalizer_params", "None"),
            ("weights_initializer", "xavier_initializer()"),
            ("weights_regularizer", "None"),
            ("biases_initializer", "zeros_initializer()"),
            ("biases_regularizer", "None"),
            ("reuse", "None"),
            ("variables_collections", "None"),
            ("outputs_collections", "None"),
            ("trainable", "True"),
            ("scope", "None"),
        ],
        "renamed": {
            "num_outputs": "units",
            "activation_fn": "activation",
            "weights_initializer": "kernel_initializer",
            "weights_regularizer": "kernel_regularizer",
            "biases_initializer": "bias_initializer",
            "biases_regularizer": "bias_regularizer",
            "scope": "name",
        },
        "declined": ["normalizer_fn", "normalizer_params", "reuse", "variables_collections", "outputs_collections"],
        "declined_none": ["biases_initializer"],
        "tf1_weights": ["weights", "biases"],
    },
    "contrib.layers.flatten": {
        "keras": "Flatten",
        "signature": [("inputs", None), ("outputs_collections", "None"), ("scope", "None")],
        "renamed": {"scope": "name"},
        "declined": ["outputs_collections"],
        "declined_none": [],
        "tf1_weights": [],
    },
}
#: (parameter, TF1 default, Keras default) of the contrib functions that mean the same.
CONTRIB_SAME_DEFAULT = {
    ("kernel_initializer", "xavier_initializer()", "'glorot_uniform'"),  # Glorot uniform both
    ("bias_initializer", "zeros_initializer()", "'zeros'"),
}


def _contrib_entry(name: str, spec: dict) -> dict:
    """A contrib function's entry: its written signature checked against the Keras layer's."""
    keras_parameters = {p.name: p for p in _signature(getattr(keras.layers, spec["keras"]).__init__)}
    constructor, write_out = [], {}
    for parameter, default in spec["signature"]:
        if parameter == INPUT or parameter in spec["declined"]:
            continue
        keras_name = spec["renamed"].get(parameter, parameter)
        if keras_name not in keras_parameters and keras_name not in KERAS_BASE:
            raise SystemExit(f"{name}: `{parameter}` has no Keras {spec['keras']} parameter")
        constructor.append(keras_name)
        keras_parameter = keras_parameters.get(keras_name)
        keras_default = (
            "None"
            if keras_parameter is None
            else ("required" if keras_parameter.default is inspect.Parameter.empty else repr(keras_parameter.default))
        )
        if (
            default is not None
            and default != keras_default
            and keras_name not in KERAS_BASE
            and (keras_name, default, keras_default) not in CONTRIB_SAME_DEFAULT
        ):
            write_out[keras_name] = default
    required = [
        p.name for p in keras_parameters.values() if p.default is inspect.Parameter.empty and p.name != "kwargs"
    ]
    return {
        "keras": spec["keras"],
        "parameters": [parameter for parameter, _ in spec["signature"]],
        "constructor": constructor,
        "positional": [p for p in required if p in constructor],
        "call": [],
        "declined": spec["declined"],
        "tf1_only": {},
        "tf1_defaults_written_out": write_out,
        "renamed": spec["renamed"],
        "declined_none": spec["declined_none"],
        "tf1_weights": spec["tf1_weights"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=TARGET)
    output = parser.parse_args().output
    table = {
        "generated_by": "scripts/generate_layer_table.py",
        "tensorflow": tf.__version__,
        "keras": keras.__version__,
        "layers": {
            **{name: _entry(name, module, keras_class) for name, (module, keras_class) in LAYERS.items()},
            **{name: _contrib_entry(name, spec) for name, spec in CONTRIB.items()},
        },
    }
    output.write_text(json.dumps(table, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
