"""tf-slim's gradient helpers of ``learning`` written into the file that uses them, in TensorFlow's
own ops.

tf-slim 1.1's ``learning.multiply_gradients`` and ``learning.clip_gradient_norms`` fail on
TensorFlow 2.21 the moment they are called: they test a value against ``ops.Tensor`` and
``ops.IndexedSlices``, names ``tensorflow.python.framework.ops`` no longer binds (TF 2.21 keeps
the classes in ``tensor`` and ``indexed_slices`` only). The rest of each is TF1 graph code that
still runs. Each template here is the same function (arguments, errors, ops, numbers) written
with names TensorFlow exports under both ``tensorflow`` and ``tensorflow.compat.v1``
(``Tensor``, ``IndexedSlices``, ``constant``, ``clip_by_norm``); contrib-to-slim writes the ones
a file uses after its imports, as it writes ``batch_norm``, and points the file's references at
them.
"""

from __future__ import annotations

from string import Template

#: ``tf_slim.learning.multiply_gradients``, for a file whose TensorFlow is ``$tf``.
MULTIPLY_GRADIENTS = Template('''\
def $name(grads_and_vars, gradient_multipliers):
    """tf-slim's learning.multiply_gradients, which does not run on TensorFlow
    2.21 (it reads ops.Tensor and ops.IndexedSlices, gone): the pairs, each
    gradient of a variable keyed in `gradient_multipliers` (by the variable or
    its op's name) times its multiplier. Written here by tfmodernize; move it
    to a module your files share."""
    if not isinstance(grads_and_vars, list):
        raise ValueError("`grads_and_vars` must be a list.")
    if not gradient_multipliers:
        raise ValueError("`gradient_multipliers` is empty.")
    if not isinstance(gradient_multipliers, dict):
        raise ValueError("`gradient_multipliers` must be a dict.")
    scaled = []
    for grad, var in grads_and_vars:
        key = var if var in gradient_multipliers else var.op.name
        if key in gradient_multipliers:
            if grad is None:
                raise ValueError("Requested multiple of `None` gradient.")
            factor = gradient_multipliers[key]
            if not isinstance(factor, $tf.Tensor):
                factor = $tf.constant(factor, dtype=grad.dtype)
            if isinstance(grad, $tf.IndexedSlices):
                grad = $tf.IndexedSlices(
                    grad.values * factor, grad.indices, grad.dense_shape)
            else:
                grad = grad * factor
        scaled.append((grad, var))
    return scaled
''')

#: ``tf_slim.learning.clip_gradient_norms``, for a file whose TensorFlow is ``$tf``.
CLIP_GRADIENT_NORMS = Template('''\
def $name(gradients_to_variables, max_norm):
    """tf-slim's learning.clip_gradient_norms, which does not run on
    TensorFlow 2.21 (it reads ops.IndexedSlices, gone): the pairs, each
    gradient clipped to the norm `max_norm` (a sparse one's values). Written
    here by tfmodernize; move it to a module your files share."""
    clipped = []
    for grad, var in gradients_to_variables:
        if isinstance(grad, $tf.IndexedSlices):
            grad = $tf.IndexedSlices(
                $tf.clip_by_norm(grad.values, max_norm), grad.indices,
                grad.dense_shape)
        elif grad is not None:
            grad = $tf.clip_by_norm(grad, max_norm)
        clipped.append((grad, var))
    return clipped
''')

#: Where each function is defined in tf-slim -> its template, in the order a file gets them.
TEMPLATES = {
    "tf_slim.learning.multiply_gradients": MULTIPLY_GRADIENTS,
    "tf_slim.learning.clip_gradient_norms": CLIP_GRADIENT_NORMS,
}
