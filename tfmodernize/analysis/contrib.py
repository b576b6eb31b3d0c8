"""Where TF 1.15's ``tf.contrib`` names lived and live on: the modules that re-exported each
function contrib-to-core replaces (``SPELLINGS``), and the tf-slim package (``slim_name``).

``tf.contrib.slim``, and the parts of ``tf.contrib.layers``, ``tf.contrib.framework`` and
``tf.contrib.metrics`` it re-exported, are the ``tf_slim`` package (``pip install tf-slim``):
the same code, moved out of TensorFlow when contrib went. ``slim_name`` says what a contrib path
is in tf-slim, read off ``tfmodernize/data/tf_slim.json`` (written by
``scripts/generate_slim_table.py`` from an installed tf-slim: the rewrite path never imports
TensorFlow), or why it has no place there.

Paths are relative to the TF top level (``contrib.slim.conv2d``), as ``TFNames.tf_symbol``
gives them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Optional, Union

from tfmodernize.analysis.tf1_api import ESTIMATOR_HOOKS

#: Where each contrib function lived in TF 1.15, and the modules that re-exported it (slim
#: star-imported contrib.layers' initializers, regularizers and layers, contrib.framework's
#: variables and contrib.metrics): function -> (canonical path, modules).
_LAYERS = ("contrib.layers", "contrib.slim", "contrib.layers.python.layers")
_HOMES: dict[str, tuple[str, tuple[str, ...]]] = {
    **{
        name: ("contrib.layers", (*_LAYERS, "contrib.layers.python.layers.initializers", "contrib.slim.initializers"))
        for name in ("xavier_initializer", "xavier_initializer_conv2d", "variance_scaling_initializer")
    },
    **{
        name: ("contrib.layers", (*_LAYERS, "contrib.layers.python.layers.regularizers", "contrib.slim.regularizers"))
        for name in ("l1_regularizer", "l2_regularizer")
    },
    "dropout": ("contrib.layers", (*_LAYERS, "contrib.layers.python.layers.layers", "contrib.slim.layers")),
    **{
        name: (
            "contrib.framework",
            (
                "contrib.framework",
                "contrib.slim",
                "contrib.framework.python.ops",
                "contrib.framework.python.ops.variables",
            ),
        )
        for name in ("get_or_create_global_step", "get_global_step", "create_global_step")
    },
    "accuracy": (
        "contrib.metrics",
        (
            "contrib.metrics",
            "contrib.slim.metrics",
            "contrib.metrics.python.metrics",
            "contrib.metrics.python.metrics.classification",
        ),
    ),
}
#: TF 1.15's ``tf.contrib.rnn`` star-imported ``tensorflow.python.ops.rnn_cell`` and imported the
#: static RNNs from ``tensorflow.python.ops.rnn``: the very objects ``tf.nn.rnn_cell.*`` / ``tf.nn.*``.
CELLS = (
    "RNNCell",
    "BasicRNNCell",
    "BasicLSTMCell",
    "LSTMCell",
    "GRUCell",
    "MultiRNNCell",
    "DropoutWrapper",
    "ResidualWrapper",
    "DeviceWrapper",
    "LSTMStateTuple",
)
RUNS = ("static_rnn", "static_bidirectional_rnn", "static_state_saving_rnn")
for _name in (*CELLS, *RUNS):
    _HOMES[_name] = ("contrib.rnn", ("contrib.rnn",))

#: The functions of TF 1.15's ``tf.contrib.framework.nest`` (``tensorflow.python.util.nest``)
#: that ``tf.nest`` exports too: the same functions.
NEST = ("flatten", "map_structure", "pack_sequence_as", "assert_same_structure")
for _name in NEST:
    _HOMES[f"nest.{_name}"] = ("contrib.framework", ("contrib.framework",))

#: TF 1.15's ``tf.contrib.distributions`` star-imported TensorFlow's own distributions
#: (``tensorflow.python.ops.distributions.*``, after its own modules, so those won): these names,
#: which TF1's ``tf.distributions`` exports, were the very objects ``tf.distributions.*`` is.
DISTRIBUTIONS = (
    "Bernoulli",
    "Beta",
    "Categorical",
    "Dirichlet",
    "DirichletMultinomial",
    "Distribution",
    "Exponential",
    "Gamma",
    "Laplace",
    "Multinomial",
    "Normal",
    "StudentT",
    "Uniform",
    "kl_divergence",
    "RegisterKL",
    "ReparameterizationType",
    "FULLY_REPARAMETERIZED",
    "NOT_REPARAMETERIZED",
)
for _name in DISTRIBUTIONS:
    _HOMES[_name] = ("contrib.distributions", ("contrib.distributions",))

for _name in ESTIMATOR_HOOKS:
    _HOMES[_name] = ("estimator", ("estimator",))

#: Spelled path (``contrib.slim.dropout``) -> canonical path (``contrib.layers.dropout``).
SPELLINGS = {f"{module}.{name}": f"{home}.{name}" for name, (home, modules) in _HOMES.items() for module in modules}
#: The contrib modules a file may bind to a name of its own (``slim = tf.contrib.slim``).
MODULES = frozenset(module for _, modules in _HOMES.values() for module in modules)


#: The contrib modules whose names tf-slim kept, and the tf-slim module with the same names.
#: ``contrib.layers`` and ``contrib.framework`` go to the package's top level, which
#: star-imports tf-slim's layers, initializers, regularizers, arg scopes and variables.
SLIM_HOMES = {
    "contrib.slim": "tf_slim",
    "contrib.slim.nets": "tf_slim.nets",
    "contrib.slim.python.slim.nets": "tf_slim.nets",
    "contrib.slim.python.slim.learning": "tf_slim.learning",
    "contrib.slim.python.slim.data": "tf_slim.data",
    "contrib.framework": "tf_slim",
    "contrib.framework.python.ops": "tf_slim.ops",
    "contrib.framework.python.ops.arg_scope": "tf_slim.ops.arg_scope",
    "contrib.framework.python.ops.variables": "tf_slim.ops.variables",
    "contrib.layers": "tf_slim",
    # (contrib.layers' summaries module: its functions are tf-slim's top-level ones; tf-slim's
    # own ``tf_slim.summaries`` is slim's other summaries module)
    "contrib.layers.summaries": "tf_slim",
    "contrib.layers.python.layers": "tf_slim.layers",
    "contrib.layers.python.layers.layers": "tf_slim.layers.layers",
    "contrib.layers.python.layers.initializers": "tf_slim.layers.initializers",
    "contrib.layers.python.layers.regularizers": "tf_slim.layers.regularizers",
    "contrib.layers.python.layers.utils": "tf_slim.layers.utils",
    "contrib.layers.python.layers.optimizers": "tf_slim.layers.optimizers",
    "contrib.metrics": "tf_slim.metrics",
}

#: tf-slim's names bound to a ``functools.partial`` of its own function (``linear`` is
#: ``fully_connected`` with ``activation_fn=None``), as TF 1.15's contrib bound them: the generated
#: table lists functions and classes only. Where each is defined, and the modules binding it
#: (checked against the installed tf-slim by ``tests/test_contrib_to_slim.py``).
_PARTIALS = {
    "tf_slim.layers.layers": ("elu", "legacy_linear", "legacy_relu", "linear", "relu", "relu6"),
    "tf_slim.layers.summaries": ("summarize_biases", "summarize_variables", "summarize_weights"),
}
_EVERY_PARTIAL = {name: f"{home}.{name}" for home, names in _PARTIALS.items() for name in names}
#: tf-slim module -> its partials: (name -> where it is defined); the package and
#: ``tf_slim.layers`` star-import both modules.
PARTIALS = {
    "tf_slim": _EVERY_PARTIAL,
    "tf_slim.layers": _EVERY_PARTIAL,
    **{home: {name: f"{home}.{name}" for name in names} for home, names in _PARTIALS.items()},
}

#: TensorFlow's own modules that tf-slim's modules bind, under the names TF 1.15's contrib ones
#: bound them (``slim.learning.supervisor.Supervisor`` was and is TensorFlow's TF1
#: ``Supervisor``, reached through slim's learning module), which the generated table leaves out
#: (it lists tf-slim's own modules): tf-slim module -> name -> the TensorFlow module (checked
#: against the installed tf-slim by ``tests/test_contrib_to_slim.py``).
TF_MODULES = {
    "tf_slim.learning": {
        "supervisor": "tensorflow.python.training.supervisor",
        "tf_saver": "tensorflow.python.training.saver",
    },
}

#: The tf-slim modules a dotted name reaches by attributes once the module is imported
#: (``tf_slim.layers`` is not one: tf-slim star-imports its ``layers`` module over the package).
#: A name written out through another contrib module (``tf.contrib.layers.python.layers.x``) is
#: rewritten only in the imports that bind it.
ATTRIBUTE_HOMES = frozenset({"tf_slim", "tf_slim.nets", "tf_slim.learning", "tf_slim.metrics", "tf_slim.data"})

#: tf-slim functions that fail on the TensorFlow the table was made with, by where they are
#: defined, and why (checked against TensorFlow by ``tests/test_contrib_to_slim.py``). The
#: finding of a file kept on tf.contrib for one says it, and what to write instead.
DOES_NOT_RUN = {
    "tf_slim.layers.layers.batch_norm": (
        "tf-slim's batch_norm builds TF1's BatchNormalization layer through a module tf-keras "
        "2.16+ no longer provides (tf_keras.legacy_tf_layers), and its fused path reads "
        "ops.Tensor, gone in TensorFlow 2.21"
    ),
    "tf_slim.layers.optimizers.optimize_loss": (
        "tf-slim's optimize_loss reads ops.Tensor, gone in TensorFlow 2.21: build the train op "
        "with an optimizer's minimize and run again"
    ),
}
#: tf-slim's gradient helpers (``learning``'s and the same functions of ``training``) test
#: values against ``ops.Tensor`` and ``ops.IndexedSlices``, which TensorFlow 2.21's ``ops`` no
#: longer binds: they fail when called (``create_train_op`` calls them only for its
#: ``gradient_multipliers``, ``clip_gradient_norm`` and ``summarize_gradients``).
_GONE_FROM_OPS = "reads ops.Tensor and ops.IndexedSlices, gone from TensorFlow 2.21's ops module"
for _module in ("learning", "training.training"):
    DOES_NOT_RUN.update(
        {
            f"tf_slim.{_module}.multiply_gradients": f"tf-slim's multiply_gradients {_GONE_FROM_OPS}: "
            "scale the gradients by hand and run again",
            f"tf_slim.{_module}.clip_gradient_norms": f"tf-slim's clip_gradient_norms {_GONE_FROM_OPS}: "
            "clip each gradient with tf.clip_by_norm and run again",
            f"tf_slim.{_module}.add_gradients_summaries": f"tf-slim's add_gradients_summaries {_GONE_FROM_OPS}: "
            "write each gradient's summaries with tf.summary and run again",
        }
    )
#: tf-slim's metrics that branch through ``control_flow_ops.cond`` (TF 1.15's ``tf.cond``) or
#: stack through ``array_ops.stack``, which TensorFlow 2.21 no longer binds there.
_METRICS = {
    "streaming_dynamic_auc": "control_flow_ops.cond",
    "auc_with_confidence_intervals": "control_flow_ops.cond",
    "streaming_concat": "control_flow_ops.cond",
    "recall_at_precision": "array_ops.stack",
    "precision_at_recall": "array_ops.stack",
}
DOES_NOT_RUN.update(
    {
        f"tf_slim.metrics.metric_ops.{name}": f"tf-slim's {name} reads {gone}, gone from TensorFlow 2.21: "
        "compute the metric with tf.keras.metrics (or write it with tf.compat.v1 ops) and run again"
        for name, gone in _METRICS.items()
    }
)
#: tf-slim's layer utilities testing a value against ``ops.Tensor``, gone from TensorFlow 2.21.
DOES_NOT_RUN.update(
    {
        f"tf_slim.layers.utils.{name}": f"tf-slim's {name} reads ops.Tensor, gone from TensorFlow 2.21: "
        f"use {instead} and run again"
        for name, instead in (
            ("constant_value", "tf.get_static_value"),
            ("smart_cond", "tf.cond (a Python branch where tf.get_static_value knows the predicate)"),
        )
    }
)
#: tf-slim's nets that run tf-slim's own batch_norm: the arg scopes making it every layer's
#: normalizer, and the networks calling it. Called as they are, they fail too: contrib-to-slim
#: wraps each reference so they build with the batch_norm it writes in the file
#: (``contrib_to_slim.batch_norm``: ``ARG_SCOPES``, ``NETS``).
_NETS_BATCH_NORM = (
    "the net calls tf-slim's batch_norm, which does not run on TF 2.21: copy the net (or its arg "
    "scope) into the project with slim.batch_norm, which tfmodernize then writes in its file"
)
DOES_NOT_RUN.update(
    {
        f"tf_slim.nets.{name}": _NETS_BATCH_NORM
        for name in (
            "resnet_utils.resnet_arg_scope",
            "inception_v1.inception_v1_arg_scope",
            "inception_v2.inception_v2_arg_scope",
            "inception_v3.inception_v3_arg_scope",
            "resnet_v2.bottleneck",
            "resnet_v2.resnet_v2",
            "resnet_v2.resnet_v2_50",
            "resnet_v2.resnet_v2_101",
            "resnet_v2.resnet_v2_152",
            "resnet_v2.resnet_v2_200",
        )
    }
)

#: Of those, the functions contrib-to-slim writes into the file that uses them, the same
#: function in TensorFlow ops (its ``batch_norm`` and ``learning`` modules), and the name it
#: takes there.
WRITTEN_IN_THE_FILE = {
    "tf_slim.layers.layers.batch_norm": "batch_norm",
    "tf_slim.learning.multiply_gradients": "multiply_gradients",
    "tf_slim.learning.clip_gradient_norms": "clip_gradient_norms",
}

#: contrib modules TF 1.15 made of TensorFlow's own TF1 API, re-exported under contrib
#: (``tf.contrib.tpu.rewrite`` was ``tf.tpu.rewrite``): where TensorFlow's upgrade table sends
#: such a name to the same name under ``tf.compat.v1``, the two are one function, and code
#: that stays TF1 can name it so.
REEXPORTED_TF1_API = ("contrib.tpu.",)


#: The TF1 modules those were (``tpu.``): their TF1-only functions build TPU graphs (run
#: eagerly, ``tpu.rewrite`` and ``tpu.initialize_system`` fail), so however a file spells them
#: (``from tensorflow.compat.v1 import tpu`` included) they keep it on TF1 (compat-fallback).
REEXPORTED_TF1_MODULES = tuple(prefix.removeprefix("contrib.") for prefix in REEXPORTED_TF1_API)


def in_reexported_tf1_module(path: str) -> bool:
    """Whether ``tf.<path>`` is in a TF1 module TF 1.15's contrib re-exported (``tpu.rewrite``)."""
    return path.startswith(REEXPORTED_TF1_MODULES)


def reexported_tf1_name(path: str, upgrade_target: str) -> "str | None":
    """``tpu.rewrite`` for ``contrib.tpu.rewrite`` when the upgrade table sends it to
    ``compat.v1.tpu.rewrite`` and the contrib module re-exported TF's own; else None."""
    if not path.startswith(REEXPORTED_TF1_API):
        return None
    name = path[len("contrib.") :]
    return name if upgrade_target == f"compat.v1.{name}" else None


#: What a RunConfig of contrib.learn or contrib.tpu set, in TF 2.x terms.
_RUN_CONFIG = (
    "a tf.train.CheckpointManager for the checkpoints a RunConfig set (TF 2.x has no RunConfig: "
    "tf.estimator's went with it in TF 2.16): model_dir and keep_checkpoint_max are its directory and "
    "max_to_keep, save_checkpoints_steps a manager.save() every that many steps; a tf.distribute "
    "strategy for its distribution settings"
)
_TPU_CONFIG = (
    "tf.distribute.TPUStrategy (tf.distribute.cluster_resolver.TPUClusterResolver for the TPU) with "
    "Keras or a tf.function training loop, and a tf.train.CheckpointManager for its checkpoints "
    "(TPUEstimator's RunConfig and TPUConfig have no TF 2.x counterpart)"
)

#: What replaced the contrib modules (and names) that have no exact core equivalent nor a place
#: in tf-slim: what a person migrating them uses instead, by contrib path (the longest wins).
INSTEAD = {
    "contrib.distributions": "tensorflow_probability.distributions (pip install "
    "tensorflow-probability, with tf-keras on TF 2.16+), by hand and not to the same numbers (tfp "
    "draws other samples and sums log_prob in another order; MVNDiag is MultivariateNormalDiag, "
    "bijectors are tfp.bijectors); the classes TF1's tf.distributions has (Normal, Bernoulli, "
    "kl_divergence, ...) are rewritten to it",
    "contrib.bayesflow": "tensorflow_probability (pip install tensorflow-probability)",
    "contrib.gan": "nothing that runs on TF 2.16+: tensorflow-gan 2.1.0 fails at import there (it "
    "subclasses tf.estimator.SessionRunHook); write the GAN losses and a tf.GradientTape loop, or stay "
    "on TF <= 2.15 with tensorflow-gan",
    "contrib.quantize": "quantization-aware training of the TensorFlow Model Optimization toolkit "
    "(pip install tensorflow-model-optimization: tfmot.quantization.keras)",
    "contrib.tpu": "tf.distribute.TPUStrategy with Keras or a tf.function training loop",
    "contrib.tfprof": "tf.compat.v1.profiler.profile in TF1 graph code; tf.profiler.experimental.start/stop "
    "(or TensorBoard's profiler) in TF2 code",
    "contrib.learn": "Keras (tf.keras.Model.fit); tf.contrib.learn was deprecated before TF 2.0",
    "contrib.learn.RunConfig": _RUN_CONFIG,
    "contrib.learn.python.learn.run_config": _RUN_CONFIG,
    "contrib.tpu.RunConfig": _TPU_CONFIG,
    "contrib.tpu.TPUConfig": _TPU_CONFIG,
    "contrib.tpu.python.tpu.tpu_config": _TPU_CONFIG,
    "contrib.training.HParams": "a plain dict, a dataclass or argparse.Namespace",
    "contrib.training": "a tf.function training loop (tf.data for the input pipeline)",
    "contrib.lookup": "tf.lookup (StaticHashTable with a KeyValueTensorInitializer, StaticVocabularyTable)",
    "contrib.data": "tf.data (its transformations are Dataset methods or tf.data.experimental)",
    "contrib.summary": "tf.summary (TF2 summaries: tf.summary.create_file_writer, scalar, ...)",
    "contrib.opt": "tf.keras.optimizers (and tensorflow-addons for AdamW, LazyAdam, ...)",
    "contrib.image": "tf.image (and tensorflow-addons' image ops)",
    "contrib.cudnn_rnn": "tf.keras.layers.LSTM / GRU, which use cuDNN kernels where they can",
    "contrib.legacy_seq2seq": "Keras recurrent layers (tensorflow-addons' seq2seq for attention decoders)",
    "contrib.seq2seq": "tensorflow-addons' seq2seq (tfa.seq2seq)",
    "contrib.crf": "tensorflow-addons' text.crf (tfa.text)",
    "contrib.losses": "tf.losses (tf.compat.v1.losses for the TF1 functions)",
    "contrib.keras": "tf.keras",
    "contrib.nn": "tf.nn",
    "contrib.compiler.jit": "tf.xla.experimental.jit_scope in graph code (TF 1.15's contrib "
    "re-exported that very function; eagerly it raises), or tf.function(jit_compile=True) in "
    "TF2 code",
    "contrib.compiler.xla": "tf.function(jit_compile=True) (tf.xla.experimental.compile in TF1 graph code)",
    "contrib.saved_model": "tf.saved_model (tf.saved_model.load and save; `saved_model_cli "
    "show` lists what a SavedModel holds)",
    "contrib.saved_model.python.saved_model.reader": "tf.saved_model.load for the model; for the "
    "SavedModel proto read_saved_model parsed, saved_model_pb2.SavedModel.FromString(tf.io.gfile.GFile("
    "os.path.join(export_dir, 'saved_model.pb'), 'rb').read()) (from tensorflow.core.protobuf import "
    "saved_model_pb2; a saved_model.pbtxt: google.protobuf.text_format.Parse)",
    "contrib.tensorboard.plugins.projector": "the tensorboard package's projector (from "
    "tensorboard.plugins import projector: the same ProjectorConfig and visualize_embeddings)",
    "contrib.tensorrt": "tf.experimental.tensorrt.Converter (TF-TRT on TF 2.x converts a SavedModel)",
    "contrib.eager": "TF 2.x itself: eager execution is the default",
    "contrib.estimator": "Keras; tf.estimator is gone since TensorFlow 2.16",
}


def instead(path: str) -> Optional[str]:
    """What to use instead of ``tf.<path>``, a contrib name with no exact replacement here."""
    probe = path
    while probe:
        if probe in INSTEAD:
            return INSTEAD[probe]
        probe = probe.rpartition(".")[0]
    return None


#: The package to install for the names written here.
PACKAGE = "tf-slim"


@dataclass(frozen=True)
class SlimName:
    """A contrib path's place in tf-slim."""

    #: the tf-slim expression naming it (``tf_slim.conv2d``, ``tf_slim.nets.resnet_v1``)
    expression: str
    #: the module an ``import`` must load for ``expression`` to resolve (``tf_slim.nets``)
    module: str
    #: the real name of the module it is, when it is one (``tf_slim.layers.layers``)
    is_module: Optional[str] = None
    #: where the function or class it names is defined (``tf_slim.layers.layers.conv2d``)
    origin: Optional[str] = None
    #: whether ``expression`` resolves by attributes (its home is in ``ATTRIBUTE_HOMES``)
    by_attributes: bool = True

    def imported_as(self, local: str) -> str:
        """The import statement binding ``local`` to this module or name."""
        real = self.is_module or self.origin_module + "." + self.expression.rpartition(".")[2]
        package, _, last = real.rpartition(".")
        if not package:
            return f"import {real}" if local == real else f"import {real} as {local}"
        return f"from {package} import {last}" if local == last else f"from {package} import {last} as {local}"

    @property
    def origin_module(self) -> str:
        """The module whose attribute a name (not a module) is: its expression's owner."""
        return (
            self.module
            if self.expression.count(".") == self.module.count(".") + 1
            else (self.expression.rpartition(".")[0])
        )


@dataclass(frozen=True)
class NotInSlim:
    """Why a contrib path of a tf-slim module has no place in tf-slim."""

    reason: str


@lru_cache(maxsize=1)
def _table() -> dict:
    text = resources.files("tfmodernize").joinpath("data/tf_slim.json").read_text(encoding="utf-8")
    return json.loads(text)


def slim_home(path: str) -> Optional[str]:
    """The contrib module of ``path`` that tf-slim took over (``contrib.slim`` for
    ``contrib.slim.conv2d``), the longest one; None when ``path`` is not in one."""
    probe = path
    while probe:
        if probe in SLIM_HOMES:
            return probe
        probe = probe.rpartition(".")[0]
    return None


def slim_name(path: str) -> Union[SlimName, NotInSlim, None]:
    """What ``tf.<path>`` is in tf-slim: a ``SlimName``, a ``NotInSlim`` when its contrib module
    went to tf-slim but this name did not, or None when its module did not go to tf-slim."""
    home = slim_home(path)
    if home is None:
        return None
    table = _table()
    modules = table["modules"]
    module = SLIM_HOMES[home]
    imported = module
    parts = path[len(home) + 1 :].split(".") if path != home else []
    origin = None
    for index, part in enumerate(parts):
        info = modules.get(module, {})
        if part in info.get("modules", {}):
            module = info["modules"][part]
        elif part in info.get("submodules", ()):
            module = imported = f"{module}.{part}"
        elif part in (members := {**info.get("members", {}), **PARTIALS.get(module, {})}):
            origin = members[part]
            break
        elif part in TF_MODULES.get(module, {}):  # (what TensorFlow's module holds, as it is)
            origin = ".".join([TF_MODULES[module][part], *parts[index + 1 :]])
            break
        else:
            return NotInSlim(
                f"tf-slim {table['tf_slim_version']} has no `{part}` in {module} "
                f"(tf.{'.'.join([home, *parts[: index + 1]])} did not move there)"
            )
    else:
        return SlimName(
            ".".join([SLIM_HOMES[home], *parts]),
            imported,
            is_module=module,
            by_attributes=SLIM_HOMES[home] in ATTRIBUTE_HOMES,
        )
    return SlimName(
        ".".join([SLIM_HOMES[home], *parts]), imported, origin=origin, by_attributes=SLIM_HOMES[home] in ATTRIBUTE_HOMES
    )


def does_not_run(name: SlimName) -> Optional[str]:
    """Why the tf-slim function ``name`` names fails on today's TensorFlow, if it does."""
    return DOES_NOT_RUN.get(name.origin) if name.origin is not None else None


def written_in_the_file(name: "SlimName | NotInSlim | None") -> Optional[str]:
    """The name of the function contrib-to-slim writes into the file in place of the tf-slim
    function ``name`` names (one that fails on today's TensorFlow), if it writes one."""
    if not isinstance(name, SlimName) or name.origin is None:
        return None
    return WRITTEN_IN_THE_FILE.get(name.origin)
