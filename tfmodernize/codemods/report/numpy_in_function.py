"""TFM303 numpy-in-function (finding only).

What it does
    Reports ``x.numpy()`` in the body of a ``tf.function``.

Why it matters
    Inside a ``tf.function`` tensors are symbolic: they have no value while the function is
    traced, so ``.numpy()`` raises ``AttributeError: 'SymbolicTensor' object has no attribute
    'numpy'`` (and code that converts to NumPy to use NumPy functions would freeze values
    into the graph if it ran). Keep the computation in TensorFlow ops (``tf.math``,
    ``tf.experimental.numpy``), show values with ``tf.print``, or return the tensor and call
    ``.numpy()`` on the result outside the function.

Before
    @tf.function
    def step(x):
        y = model(x)
        return np.argmax(y.numpy(), axis=-1)

After
    @tf.function
    def step(x):
        y = model(x)
        return tf.argmax(y, axis=-1)

Fixtures: ``fixtures/numpy-in-function/``.

Fix safety
    No fix: a finding only.

Declines when
    never: every ``.numpy()`` in a traced function is reported.
"""

from __future__ import annotations

import libcst as cst

from tfmodernize.analysis.tf_function import INTERESTS, InTFFunction
from tfmodernize.codemod import TFCodemod

MESSAGE = (
    "`.numpy()` inside a tf.function fails: tensors are symbolic while the function is traced. "
    "Use TensorFlow ops on the tensor (tf.print to show it), or return it and call `.numpy()` outside"
)


class NumpyInFunction(InTFFunction, TFCodemod):
    __doc__ = __doc__
    code = "TFM303"
    name = "numpy-in-function"
    summary = ".numpy() inside a tf.function fails on symbolic tensors"
    needles = (".numpy()",)
    interests = INTERESTS

    def visit_Call(self, node: cst.Call) -> None:
        if (
            self.traced_function is not None
            and not node.args
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "numpy"
        ):
            self.report(node, MESSAGE)
