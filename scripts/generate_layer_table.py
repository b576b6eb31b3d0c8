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
    return [p for p in inspect.signature(function).parameters.values()
            if p.name != "self" and p.kind not in (inspect.Parameter.VAR_KEYWORD, inspect.Parameter.VAR_POSITIONAL)]


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
        keras_default = "None" if keras_parameter is None else (
            "required" if keras_parameter.default is inspect.Parameter.empty else repr(keras_parameter.default))
        tf1_default = _spelled(parameter.default)
        if tf1_default != keras_default and (parameter.name, tf1_default, keras_default) not in SAME_DEFAULT \
                and parameter.name not in KERAS_BASE:
            write_out[parameter.name] = tf1_default
    required = [p.name for p in keras_parameters.values() if p.default is inspect.Parameter.empty and p.name != "kwargs"]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=TARGET)
    output = parser.parse_args().output
    table = {
        "generated_by": "scripts/generate_layer_table.py",
        "tensorflow": tf.__version__,
        "keras": keras.__version__,
        "layers": {name: _entry(name, module, keras_class) for name, (module, keras_class) in LAYERS.items()},
    }
    output.write_text(json.dumps(table, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
