"""Which TensorFlow names do not exist on the installed TensorFlow (looked up in child processes).

Used by the emitted-names test and ``benchmarks/corpus_safety.py``: every TF name a codemod
writes must exist in the TensorFlow we target. Names through ``tensorflow.compat.v1`` are TF1
API kept on v1, whose Keras 2 parts (``tf.layers``) exist with tf-keras under
``TF_USE_LEGACY_KERAS=1`` (compat-fallback sets it for them); the rest is looked up on plain TF2.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Iterable

#: A name is an attribute path from ``tensorflow``, or through a module the code imports by its
#: path (``from tensorflow.core.protobuf import saved_model_pb2``): such a module is imported.
_LOOKUP = """
import importlib, json, sys
import tensorflow as tf
missing = []
for qualified in json.load(sys.stdin):
    parts = qualified.split(".")
    obj = tf
    for at, part in enumerate(parts[1:], start=2):
        try:
            obj = getattr(obj, part)
        except Exception:
            try:
                obj = importlib.import_module(".".join(parts[:at]))
            except Exception:
                missing.append(qualified)
                break
print(json.dumps(missing))
"""


def missing_tf_names(names: Iterable[str], timeout: float = 600) -> list[str]:
    """The qualified names (``tensorflow.math.log``) the installed TensorFlow lacks, sorted."""
    names = sorted(set(names))
    legacy = [n for n in names if n.startswith("tensorflow.compat.v1.")]
    plain = [n for n in names if n not in set(legacy)]
    environment = {k: v for k, v in os.environ.items() if k != "TF_USE_LEGACY_KERAS"} | {"TF_CPP_MIN_LOG_LEVEL": "3"}
    missing: list[str] = []
    for batch, extra in ((plain, {}), (legacy, {"TF_USE_LEGACY_KERAS": "1"})):
        if not batch:
            continue
        ran = subprocess.run(
            [sys.executable, "-c", _LOOKUP],
            input=json.dumps(batch),
            env=environment | extra,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if ran.returncode != 0:
            raise RuntimeError(f"looking TensorFlow names up failed:\n{ran.stderr[-2000:]}")
        missing += json.loads(ran.stdout.strip().splitlines()[-1])
    return sorted(missing)
