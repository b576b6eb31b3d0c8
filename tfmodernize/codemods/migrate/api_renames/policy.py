"""Api-renames' policy: which names it renames and how, where it departs from TensorFlow's
upgrade tables (its peer, ``tf_upgrade_v2``), and which structural codemod owns a TF1 construct
the peer sends to ``tf.compat.v1``."""

from __future__ import annotations

import re
from typing import Optional


from tfmodernize.analysis.tables import tables
from tfmodernize.analysis.contrib import SLIM_HOMES, SPELLINGS as CONTRIB_SPELLINGS
from tfmodernize.codemods.migrate.contrib_to_core.tables import HANDLED, LOOKUP_TABLES


#: Which structural codemod (by name) owns the TF1 constructs whose peer target is
#: ``tf.compat.v1``: while it is in the catalogue, this codemod stays quiet about them.
OWNERS = {
    "session-to-function": (
        "Session",
        "InteractiveSession",
        "placeholder",
        "placeholder_with_default",
        "ConfigProto",
        "GPUOptions",
        "global_variables_initializer",
        "local_variables_initializer",
        "initialize_all_variables",
        "initialize_local_variables",
        "variables_initializer",
        "reset_default_graph",
        "get_default_graph",
        "tables_initializer",
        "get_default_session",
    ),
    "minimize-to-tape": ("train.Optimizer", "train.get_or_create_global_step", "train.get_global_step"),
    "collections-to-tracking": (
        "get_collection",
        "get_collection_ref",
        "add_to_collection",
        "add_to_collections",
        "trainable_variables",
        "global_variables",
        "local_variables",
        "all_variables",
        "GraphKeys",
        "model_variables",
        "moving_average_variables",
    ),
    "get-variable-to-variable": ("get_variable", "get_variable_scope", "AUTO_REUSE"),
    "variable-scope-to-name-scope": ("variable_scope",),
    "layers-to-keras": ("layers",),
    "summary-v2": ("summary",),
    "saver-to-checkpoint": ("train.Saver", "train.Checkpoint"),
    "absl-flags-logging": ("app", "flags", "logging"),
    # The contrib names with a core equivalent (``tf.contrib.layers.xavier_initializer``,
    # ``tf.contrib.rnn.LSTMCell``, in every spelling TF 1.15 had): replaced, or declined with a
    # finding saying why.
    "contrib-to-core": (*CONTRIB_SPELLINGS, *LOOKUP_TABLES, *sorted(HANDLED)),
    "contrib-to-slim": tuple(SLIM_HOMES),
}

CAST_DTYPES = {"float": "float32", "double": "float64"}
#: Renames where this codemod deliberately departs from the peer, which sends these to
#: ``tf.compat.v1``: TF2 has a name that does the same job, and keeping the v1 name would keep a
#: whole program on v1 for it. ``tf.random.set_seed`` sets the graph-level seed in graph mode, as
#: ``set_random_seed`` did, and the global seed in eager code; op seeds derive from it as in TF1.
OVERRIDES = {"set_random_seed": "random.set_seed"}
#: TF1 names that divide as Python 2 did (floor division for integers, true division for
#: floating values) and the TF2 name for each kind of operand, decided from literal operands.
DIVISIONS = {"div": {"int": "math.floordiv", "float": "math.divide"}}
NAMES_DIV = re.compile(r"\bdiv\b")
#: TF1 names whose TF2 spelling the peer gives, but whose ops only work in a graph: run eagerly,
#: a dequeue from an empty queue blocks forever instead of failing. Not renamed; reported.
GRAPH_ONLY = {
    name: "queues block forever when run eagerly (a dequeue waits for an enqueue that never comes); "
    "build the input pipeline with tf.data instead"
    for name in ("FIFOQueue", "RandomShuffleQueue", "PaddingFIFOQueue", "PriorityQueue", "QueueBase")
}
#: Peer transformers whose TF2 target needs the call rewritten as a whole (name and arguments).
CALL_REWRITES = ("cast_transformer", "add_summary_recording_cond_transformer")
#: Peer transformers whose TF2 target computes different numbers (measured: half-pixel centres).
RESIZE = (
    "image.resize_images",
    "image.resize_area",
    "image.resize_bicubic",
    "image.resize_bilinear",
    "image.resize_nearest_neighbor",
)


#: The op each TF1 4-D resize ran, and its arguments in TF1's order: TF2 has the op under
#: ``tf.raw_ops``, where ``align_corners`` and ``half_pixel_centers`` are said as TF1 set them.
RAW_RESIZE = {
    "image.resize_bilinear": "ResizeBilinear",
    "image.resize_nearest_neighbor": "ResizeNearestNeighbor",
    "image.resize_bicubic": "ResizeBicubic",
    "image.resize_area": "ResizeArea",
}
RESIZE_ARGUMENTS = {
    **dict.fromkeys(
        ("image.resize_bilinear", "image.resize_nearest_neighbor", "image.resize_bicubic"),
        ("images", "size", "align_corners", "name", "half_pixel_centers"),
    ),
    "image.resize_area": ("images", "size", "align_corners", "name"),
}
RESIZE_IMAGES_ARGUMENTS = ("images", "size", "method", "align_corners", "preserve_aspect_ratio", "name")


#: TF1 modules no TF 2.x install has, that are not API (``tf.contrib`` has its own messages):
#: path prefix -> what replaces them. A file importing one cannot run on TF 2.x as written, with
#: or without compat.v1, so it is no reason to keep the file on TF1: a finding at the import.
GONE_MODULES = {
    "examples.tutorials.mnist": (
        "`tensorflow.examples.tutorials.mnist` is not part of any TF 2.x install: this import fails. Load the "
        "data with `(x_train, y_train), (x_test, y_test) = tf.keras.datasets.mnist.load_data()` and do what "
        "`read_data_sets` did: the images as float32 rows of 784 values scaled to [0, 1] "
        '(`x_train.reshape(-1, 784).astype("float32") / 255.0`), the labels one-hot where it was called with '
        "`one_hot=True` (`tf.keras.utils.to_categorical(y_train, 10)`), the first 5,000 training images as the "
        "validation set and the rest for training, and batches from "
        "`tf.data.Dataset.from_tensor_slices((x, y)).shuffle(...).batch(n)` instead of `next_batch(n)`"
    ),
    "tools.graph_transforms": (
        "`tensorflow.tools.graph_transforms` (the Graph Transform Tool, `TransformGraph`) is "
        "not part of any TF 2.x install: this import fails, and the file cannot run on TF 2.x "
        "until its transforms are done another way: for a TFLite export convert the SavedModel "
        "or concrete function with `tf.lite.TFLiteConverter` (it folds constants and strips "
        "unused nodes itself); to cut a frozen GraphDef to its outputs use "
        "`tf.compat.v1.graph_util.extract_sub_graph`"
    ),
    "examples.tutorials": (
        "`tensorflow.examples.tutorials` is not part of any TF 2.x install: this import fails; load the data with "
        "`tf.keras.datasets` (or `tensorflow_datasets`) instead"
    ),
}


def gone_module(path: str) -> Optional[str]:
    """What replaces ``tf.<path>``'s module when no TF 2.x install has it (``GONE_MODULES``), else None."""
    return next(
        (message for prefix, message in GONE_MODULES.items() if path == prefix or path.startswith(prefix + ".")), None
    )


def owner_of(path: str) -> Optional[str]:
    for owner, prefixes in OWNERS.items():
        for prefix in prefixes:
            if (
                path == prefix
                or path.startswith(prefix + ".")
                or (prefix == "train.Optimizer" and path.startswith("train.") and path.endswith("Optimizer"))
            ):
                return owner
    return None


def rename_for(path: str) -> Optional[tuple[str, str]]:
    """``(key, target)`` of the rename this codemod applies to ``tf.<path>``, if any."""
    if path in OVERRIDES:
        return path, OVERRIDES[path]
    if path in GRAPH_ONLY:
        return None
    return tables().rename_for(path)


def renamed_to_tf2(path: str) -> bool:
    """Whether this codemod turns ``tf.<path>`` into TF2 code (a rename, or a call rewrite)."""
    t = tables()
    renamed = rename_for(path)
    return (renamed is not None and not renamed[1].startswith("compat.v1.")) or (
        t.transformers.get(path, {}).get("kind") in CALL_REWRITES
    )
