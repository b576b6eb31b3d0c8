"""Keras-3-renames' tables: the Keras 2 spellings Keras 3 renamed, moved or rejects, and the
Keras constructors that tell what kind of object a value is."""

from __future__ import annotations

from typing import Optional

#: Layers of ``keras.layers.experimental[.preprocessing]`` that Keras 3 has in ``keras.layers``.
MOVED_LAYERS = frozenset(
    {
        "CategoryEncoding",
        "CenterCrop",
        "Discretization",
        "EinsumDense",
        "Hashing",
        "IntegerLookup",
        "Normalization",
        "RandomContrast",
        "RandomCrop",
        "RandomFlip",
        "RandomHeight",
        "RandomRotation",
        "RandomTranslation",
        "RandomWidth",
        "RandomZoom",
        "Rescaling",
        "Resizing",
        "StringLookup",
        "TextVectorization",
    }
)

#: Removed ``*_generator`` methods: new name, keywords the new method accepts (old -> new),
#: and the old method's ``verbose`` default when it differs from the new one's.
GENERATOR_METHODS = {
    "fit_generator": (
        "fit",
        {
            "generator": "x",
            "steps_per_epoch": "steps_per_epoch",
            "epochs": "epochs",
            "verbose": "verbose",
            "callbacks": "callbacks",
            "validation_data": "validation_data",
            "validation_steps": "validation_steps",
            "validation_freq": "validation_freq",
            "class_weight": "class_weight",
            "shuffle": "shuffle",
            "initial_epoch": "initial_epoch",
        },
        None,
    ),
    "evaluate_generator": (
        "evaluate",
        {
            "generator": "x",
            "steps": "steps",
            "callbacks": "callbacks",
            "verbose": "verbose",
        },
        "0",
    ),
    "predict_generator": (
        "predict",
        {
            "generator": "x",
            "steps": "steps",
            "callbacks": "callbacks",
            "verbose": "verbose",
        },
        "0",
    ),
}

#: Keras 2 positional order of ``add_weight`` and the keywords Keras 3 accepts.
LAYER_ADD_WEIGHT = ("name", "shape", "dtype", "initializer", "regularizer", "trainable", "constraint")
LAYER_KEYWORDS = frozenset({*LAYER_ADD_WEIGHT, "aggregation", "autocast"})
METRIC_ADD_WEIGHT = ("name", "shape")
METRIC_KEYWORDS = frozenset({"name", "shape", "initializer", "dtype"})

#: Keras 2 layer arguments that Keras 3 rejects, and what to do when they are not the default.
REMOVED_LAYER_ARGUMENTS = {
    "time_major": "transpose the inputs to batch-major (`tf.transpose(x, [1, 0, 2])`) and drop it",
    "dynamic": "drop it; to run the layer eagerly compile the model with `run_eagerly=True`",
    "fused": "drop it (Keras 3 has no fused kernel; moving variance statistics may differ slightly)",
    "constants": "pass the constants as extra inputs of the cell instead",
}

MODEL_CONSTRUCTORS = frozenset(
    {
        "Model",
        "Sequential",
        "models.Model",
        "models.Sequential",
        "models.load_model",
        "saving.load_model",
    }
)


def ctor_kind(path: Optional[str]) -> Optional[str]:
    """``metric`` / ``optimizer`` / ``model`` / ``layer`` for a Keras constructor path."""
    if path is None:
        return None
    leaf = path.rsplit(".", 1)[-1]
    if path in MODEL_CONSTRUCTORS:
        return "model"
    if not leaf[:1].isupper():
        return None
    if path.startswith("metrics."):
        return "metric"
    if path.startswith("optimizers.") and not path.startswith(("optimizers.schedules.", "optimizers.legacy.")):
        return "optimizer"
    if path.startswith("layers."):
        return "layer"
    return None
