"""What a program wrote to TensorBoard, as numbers the fixture harness compares.

A summary fixture calls ``logged(logdir)`` at its end and keeps the result in a module-level
name: before (TF1 ``FileWriter``, summary protos) and after (``tf.summary`` v2, tensors) must
have written the same tags at the same steps with the same values. Scalars are compared by
value; a histogram by its count, minimum and maximum (TF1 and TF2 bucket the same values
differently); an image by its size. Verification only: imports TensorFlow, which the rewrite
path never does.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


def logged(logdir: str) -> dict[str, float]:
    """``{"tag@step": value}`` (histograms: ``tag@step/count|min|max``; images:
    ``tag/image/k@step/width|height``, TF1's tags) of every events file in ``logdir``."""
    from tensorflow.core.util import event_pb2
    from tensorflow.python.lib.io import tf_record
    from tensorflow.python.framework import tensor_util

    found: dict[str, float] = {}
    for path in sorted(Path(logdir).glob("events.out.tfevents.*")):
        for record in tf_record.tf_record_iterator(str(path)):
            event = event_pb2.Event.FromString(record)
            for value in event.summary.value:
                key = f"{value.tag}@{event.step}"
                if value.HasField("simple_value"):
                    found[key] = float(value.simple_value)
                elif value.HasField("image"):  # TF1: one value per image, tagged ``<tag>/image/<k>``
                    found.update({f"{key}/width": float(value.image.width), f"{key}/height": float(value.image.height)})
                elif value.HasField("histo"):
                    found.update(
                        {f"{key}/count": value.histo.num, f"{key}/min": value.histo.min, f"{key}/max": value.histo.max}
                    )
                elif value.HasField("tensor"):
                    data = tensor_util.MakeNdarray(value.tensor)
                    plugin = value.metadata.plugin_data.plugin_name
                    if plugin == "histograms":
                        found.update(
                            {
                                f"{key}/count": float(data[:, 2].sum()) if data.size else 0.0,
                                f"{key}/min": float(data[0, 0]) if data.size else 0.0,
                                f"{key}/max": float(data[-1, 1]) if data.size else 0.0,
                            }
                        )
                    elif plugin == "images":  # TF2: [width, height, image 0, image 1, ...] under ``<tag>``
                        for index in range(len(data) - 2):
                            image = f"{value.tag}/image/{index}@{event.step}"
                            found.update({f"{image}/width": float(data[0]), f"{image}/height": float(data[1])})
                    elif data.dtype.kind in "fiu" and data.size == 1:
                        found[key] = float(np.asarray(data).reshape(()))
    return found
