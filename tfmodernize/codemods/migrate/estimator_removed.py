"""TFM119 estimator-removed.

What it does
    Writes ``tf.estimator.ModeKeys.TRAIN`` / ``EVAL`` / ``PREDICT`` as the strings they are,
    ``"train"``, ``"eval"`` and ``"infer"`` (module constants, default arguments, comparisons in
    a model_fn), under whatever alias or import reached them; and reports every other
    ``tf.estimator`` (or ``tf.compat.v1.estimator``) name left once estimator-to-keras (TFM117)
    has migrated what it can: the file cannot run on TensorFlow 2.16+ until that name is
    replaced, said once per name at its first use with what replaces it (a Keras model and
    ``Model.fit``, a custom training loop, ``tf.saved_model.save`` for serving exports,
    ``tf.data`` for ``numpy_input_fn``, Keras callbacks for hooks). In a file compat-fallback
    keeps on ``tf.compat.v1`` (which runs before: the Estimator's model_fn and the rest are TF1
    code, which TF 2.15 and earlier ran there), the name is recorded as keeping it there too,
    so the run counts the file as one that cannot run on TF 2.16+. Session-run hooks reached
    through ``tf.estimator`` are contrib-to-core's (TFM115): they are ``tf.train``'s.

Why it matters
    ``tf.estimator`` is gone since TensorFlow 2.16 and ``tensorflow-estimator`` 2.15, its last
    release, does not import on later TensorFlow: a module naming it at import time (a mode
    key in a constant or a default argument) fails to import, and every module importing it
    fails with it, although the mode keys are only strings. A name that is more than a string
    needs a person: the run's summary must not say such a file runs.

Before
    import tensorflow as tf

    _TRAIN, _EVAL = tf.estimator.ModeKeys.TRAIN, tf.estimator.ModeKeys.EVAL

    def batch_size(mode=tf.estimator.ModeKeys.TRAIN):
        return 64 if mode == tf.estimator.ModeKeys.TRAIN else 8

After
    import tensorflow as tf

    _TRAIN, _EVAL = "train", "eval"

    def batch_size(mode="train"):
        return 64 if mode == "train" else 8

Fix safety
    TF 1.15's ``ModeKeys`` is a class of plain string constants (``TRAIN = 'train'``,
    ``EVAL = 'eval'``, ``PREDICT = 'infer'``): every use reads the same string, and an
    Estimator of TF 2.15 or earlier compares its mode with the same strings.

Declines when
    never for a mode key; every other ``tf.estimator`` name is reported (``ModeKeys`` itself,
    read as a class, included), not rewritten.
"""

from __future__ import annotations

import libcst as cst

from tfmodernize.analysis.estimator import estimator_path, mode_key
from tfmodernize.codemod import TFCodemod
from tfmodernize.names import WholeNames
from tfmodernize.tfsymbols import TFNames

GONE = "is gone since TensorFlow 2.16 (tensorflow-estimator 2.15 does not import on later TensorFlow)"
TRAINING = (
    "write the model as a Keras model trained with Model.fit, or a custom training loop "
    "(a tf.function step with GradientTape, tf.train.CheckpointManager), as TensorFlow's guide "
    '"Migrate from Estimator to Keras APIs" shows'
)
#: What replaces each part of ``tf.estimator``, by its first name under it.
INSTEAD = {
    "Estimator": TRAINING,
    "EstimatorSpec": TRAINING,
    "RunConfig": TRAINING,
    "TrainSpec": TRAINING,
    "EvalSpec": TRAINING,
    "train_and_evaluate": TRAINING,
    "WarmStartSettings": "restore the warm-start variables with tf.train.Checkpoint",
    "ModeKeys": 'use the strings it holds: "train", "eval", "infer"',
    "export": "export a tf.function with a tf.TensorSpec signature through tf.saved_model.save",
    "Exporter": "export a tf.function with a tf.TensorSpec signature through tf.saved_model.save",
    "FinalExporter": "export a tf.function with a tf.TensorSpec signature through tf.saved_model.save",
    "LatestExporter": "export a tf.function with a tf.TensorSpec signature through tf.saved_model.save",
    "BestExporter": "export a tf.function with a tf.TensorSpec signature through tf.saved_model.save",
    "inputs": "make the input a tf.data.Dataset (Dataset.from_tensor_slices)",
    "BoostedTreesClassifier": "use TensorFlow Decision Forests (pip install tensorflow-decision-forests)",
    "BoostedTreesRegressor": "use TensorFlow Decision Forests (pip install tensorflow-decision-forests)",
}
#: The canned estimators, whose Keras counterparts the finding names.
CANNED = (
    "DNNClassifier",
    "DNNRegressor",
    "LinearClassifier",
    "LinearRegressor",
    "DNNLinearCombinedClassifier",
    "DNNLinearCombinedRegressor",
    "BaselineClassifier",
    "BaselineRegressor",
)
CANNED_INSTEAD = (
    "build the same network as a Keras model (Dense layers; tf.keras.layers.Normalization and "
    "the preprocessing layers for feature columns) trained with Model.fit"
)
#: Hook-like names the Estimator API had beside tf.train's session-run hooks.
HOOK_INSTEAD = "use a tf.keras.callbacks.Callback (or the custom training loop's own code)"


class EstimatorRemoved(WholeNames, TFCodemod):
    __doc__ = __doc__
    code = "TFM119"
    name = "estimator-removed"
    summary = 'tf.estimator.ModeKeys.TRAIN -> "train"; every other tf.estimator name reported: gone since TF 2.16'
    needles = ("estimator",)
    interests = (cst.Attribute, cst.Name)
    detects_tf_names_only = True

    @classmethod
    def detect(cls, node: cst.CSTNode, names: TFNames) -> bool:
        return estimator_path(node, names) is not None

    def plan(self, module: cst.Module) -> None:
        self._inner = set()
        self._reported: set[str] = set()
        super().plan(module)

    def leave_whole_name(self, node: "cst.Attribute | cst.Name") -> None:
        path = estimator_path(node, self.tf)
        if path is None:
            return
        value = mode_key(node, self.tf)
        if value is not None:
            if self.fix(node, f'tf.estimator.ModeKeys.{path.split(".")[-1]} is the string "{value}"'):
                self.replace(node, cst.SimpleString(f'"{value}"'))
            return
        if path in self._reported or self.suppressed(node):
            return
        self._reported.add(path)
        first = path.split(".")[0]
        if first in CANNED:
            instead = CANNED_INSTEAD
        elif path.endswith("Hook") or first in ("SecondOrStepTimer",):
            instead = HOOK_INSTEAD
        else:
            instead = INSTEAD.get(first, TRAINING)
        if self.state.kept_on_v1:
            # Kept on compat.v1 (compat-fallback, which ran before): it cannot run on TF 2.16+ either.
            self.state.keep_on_v1(f"tf.estimator.{path}", self.state.position(node)[0])
        self.report(
            node, f"tf.estimator.{path} {GONE}: this file cannot run on TF 2.16+ until it is replaced; {instead}"
        )
