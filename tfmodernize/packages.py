"""The packages beside TensorFlow that code needs: read off a module's imports (a regular
expression, line by line: a full parse of every file would cost more than the question), with
the distribution ``pip install`` takes for each import name, and the ones a rewrite added
(``tf-slim`` for contrib-to-slim's imports, ``tf-keras`` for ``TF_USE_LEGACY_KERAS``)."""

from __future__ import annotations

import re
import sys
from typing import Optional

#: Import names whose distribution is named otherwise (``pip install`` takes the right one).
DISTRIBUTIONS = {
    "tf_keras": "tf-keras",
    "tf_slim": "tf-slim",
    "absl": "absl-py",
    "sklearn": "scikit-learn",
    "PIL": "pillow",
    "cv2": "opencv-python",
    "yaml": "PyYAML",
    "google": "protobuf",
    "tensorflow_probability": "tensorflow-probability",
    "tensorflow_hub": "tensorflow-hub",
    "tensorflow_addons": "tensorflow-addons",
    "tensorflow_datasets": "tensorflow-datasets",
    "tensorflow_text": "tensorflow-text",
    "tensorflow_io": "tensorflow-io",
}
#: ``from NAME... import`` (group 1) or ``import NAMES`` (group 2) opening a line.
_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+([A-Za-z_]\w*)[\w.]*[ \t]+import\b"
    r"|import[ \t]+([^#\n;]+))",
    re.MULTILINE,
)
#: The switch that makes TensorFlow load Keras 2 from the tf-keras package.
LEGACY_KERAS = "TF_USE_LEGACY_KERAS"
STANDARD_LIBRARY = frozenset(getattr(sys, "stdlib_module_names", ())) | {"__future__"}


def imported(text: Optional[str]) -> set[str]:
    """The top-level modules a module's text imports (absolute imports); ``tf_keras`` too when
    it sets ``TF_USE_LEGACY_KERAS``."""
    found = set()
    for match in _IMPORT.finditer(text or ""):
        if match.group(1):
            found.add(match.group(1))
            continue
        for alias in match.group(2).split(","):
            name = alias.strip().split(".")[0].split(" ")[0]
            if name.isidentifier():
                found.add(name)
    if LEGACY_KERAS in (text or ""):
        found.add("tf_keras")
    return found


def distribution(module: str) -> str:
    """The distribution providing the top-level ``module``, as ``pip install`` names it."""
    return DISTRIBUTIONS.get(module, module)


#: What installing TensorFlow already brings (a rewrite importing it adds nothing to install).
TENSORFLOW_DEPENDENCIES = frozenset({"google", "numpy", "absl"})


def added(old: Optional[str], new: Optional[str]) -> list[str]:
    """The distributions (outside the standard library and TensorFlow's own dependencies) that
    ``new`` imports and ``old`` did not."""
    new_imports = imported(new) - imported(old) - STANDARD_LIBRARY - TENSORFLOW_DEPENDENCIES
    return sorted(distribution(m) for m in new_imports)
