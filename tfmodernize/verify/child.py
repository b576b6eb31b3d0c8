"""The child process of the verification harness: imports TensorFlow once, runs many scripts.

``runner.Child`` starts ``python -m tfmodernize.verify.child MODE READ_FD WRITE_FD`` with the
environment of its mode (``runner.child_environment``). The child imports TensorFlow, sets one
intra/inter-op thread and deterministic ops, says it is ready, then answers requests (one
script to run each) on the two pipes until the parent closes them. The script's own stdout and
stderr are captured per run, so nothing a script prints can corrupt the protocol.

Every script starts from a clean slate: a fresh module namespace, Python/numpy/TF seeds reset,
``tf.config.run_functions_eagerly(False)``, Keras floatx float32, and

- ``tf1`` mode: a fresh default graph, legacy Keras (tf-keras) state cleared, v2 behaviour
  disabled, and a plain ``import tensorflow`` in the script (in functions it defines, and in
  modules beside it) resolved to ``tf.compat.v1``; ``import tensorflow.compat.v1 as tf``
  works unchanged; ``tf.contrib`` is the part of it TensorFlow moved to tf-slim (``_give_contrib``),
  ``tf.estimator`` its session-run hooks, which are ``tf.train``'s (``_give_estimator_hooks``);
  TF 1.14's private ``tensorflow.python.eager.profiler`` is TensorFlow's profiler
  (``_give_eager_profiler``);
- ``tf2`` mode: ``tf.keras.backend.clear_session()`` and the float32 dtype policy (Keras 3).

Eager execution and v2 behaviour cannot be switched back per script: a script that switched
them makes the child retire after its reply (the parent starts a new one).

Both run inside ``DeterministicRandomTestTool(mode=...)``, so TF1 graphs and TF2 eager code
draw the same random numbers when they create random ops in the same order.

The values left in module-level names are converted here (tensors and variables to numpy) and
sent back; ``compare`` judges them in the parent.
"""

from __future__ import annotations

import builtins
import contextlib
import faulthandler
import gc
import importlib.abc
import importlib.machinery
import inspect
import io
import linecache
import os
import random
import shutil
import signal
import sys
import tempfile
import time
import traceback
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Callable, Iterator

#: Seed of Python's ``random``, numpy and Keras 3 at the start of every script.
SEED = 42
#: Lines of a script's output or traceback sent back with a result.
TAIL_LINES = 25
#: Characters of a script's stdout sent back whole (its end, if it printed more).
STDOUT_LIMIT = 4_000_000


class _Both(io.TextIOBase):
    """A stdout that writes to two buffers: the combined log and stdout alone."""

    def __init__(self, *targets: io.StringIO) -> None:
        self.targets = targets

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        for target in self.targets:
            target.write(text)
        return len(text)


class NotConcrete(Exception):
    """A value that is not a number, array, tensor or variable (or a container of them)."""


class Sandbox:
    """Runs one script at a time in a fresh namespace under the semantics of ``mode``."""

    def __init__(self, mode: str) -> None:
        import numpy as np
        import tensorflow as tf
        from tf_keras.src.legacy_tf_layers.migration_utils import DeterministicRandomTestTool

        self.mode = mode
        self.np = np
        self.tf = tf
        self.tool_class = DeterministicRandomTestTool
        tf.config.threading.set_intra_op_parallelism_threads(1)
        tf.config.threading.set_inter_op_parallelism_threads(1)
        tf.config.experimental.enable_op_determinism()
        if mode == "tf1":
            tf.compat.v1.disable_v2_behavior()
            _give_contrib(tf.compat.v1)
            _give_estimator_hooks(tf.compat.v1)
            _give_eager_profiler()
            self.builtins = _builtins_importing_tensorflow_as(tf.compat.v1)
        else:
            self.builtins = dict(vars(builtins))
        self.keras = tf.keras  # tf-keras in tf1 mode (TF_USE_LEGACY_KERAS=1), Keras 3 in tf2
        self.behaviour = self.global_behaviour()

    def global_behaviour(self) -> tuple[bool, ...]:
        """Process-wide switches a script can flip but not be cleanly undone per script."""
        from tensorflow.python import tf2  # no public query of "v2 behaviour" exists

        tf = self.tf
        return (tf.executing_eagerly(), tf.compat.v1.resource_variables_enabled(), tf2.enabled())

    @contextlib.contextmanager
    def fresh_state(self, random_mode: str) -> Iterator[None]:
        tf = self.tf
        random.seed(SEED)
        self.np.random.seed(SEED)
        tf.config.run_functions_eagerly(False)
        self.keras.backend.clear_session()
        self.keras.backend.set_floatx("float32")
        tool = self.tool_class(seed=SEED, mode=random_mode)
        if self.mode == "tf1":
            # A fresh default graph, not a nested one: TF1 scripts may call reset_default_graph(),
            # which refuses to run inside a `with Graph().as_default():` block.
            tf.compat.v1.reset_default_graph()
            with tool.scope():
                yield
        else:
            # (tf-keras refuses a global dtype policy under TF1 behaviour: tf2 mode only.)
            self.keras.mixed_precision.set_global_policy("float32")
            self.keras.utils.set_random_seed(SEED)
            with tool.scope():
                yield

    def run(self, request: dict[str, Any]) -> dict[str, Any]:
        path = Path(request["script"])  # a .py file, or a notebook run as its code cells in order
        output = io.StringIO()
        printed = io.StringIO()  # stdout alone, for ``verify --stdout``
        namespace: dict[str, Any] = {
            "__name__": "__main__",
            "__file__": str(path),
            "__builtins__": self.builtins,
        }
        saved_path, saved_argv, saved_modules = list(sys.path), list(sys.argv), set(sys.modules)
        sys.path.insert(0, str(path.parent))
        sys.argv = [str(path)]
        local_modules = LocalModules(path.parent, self.builtins if self.mode == "tf1" else None)
        sys.meta_path.insert(0, local_modules)
        started = time.perf_counter()
        reply: dict[str, Any] = {"values": {}, "skipped": {}, "error": None}
        # What the script makes with ``tempfile`` (checkpoints, logs) goes when it ends.
        scratch, saved_tempdir = tempfile.mkdtemp(prefix="tfmodernize_verify_"), tempfile.tempdir
        tempfile.tempdir = scratch
        try:
            code = compile(*_program(path), "exec")
            variables = Variables(self.tf, request.get("variables", "own"), request.get("initial_values") or [])
            with contextlib.redirect_stdout(_Both(output, printed)), contextlib.redirect_stderr(output):
                with self.fresh_state(request["random"]), variables.hooked():
                    _execute(code, namespace)
            reply["variables"], reply["alignment"] = variables.recorded(), variables.report()
            reply["values"], reply["skipped"] = self.capture(namespace)
        except BaseException as error:  # the script's failure is the result, not ours
            reply["error"] = _traceback_tail(error, str(path))
        finally:
            sys.meta_path.remove(local_modules)
            local_modules.forget(set(sys.modules) - saved_modules)
            sys.path[:], sys.argv[:] = saved_path, saved_argv
            tempfile.tempdir = saved_tempdir
            shutil.rmtree(scratch, ignore_errors=True)
            namespace.clear()
            gc.collect()
        reply["seconds"] = time.perf_counter() - started
        reply["pid"] = os.getpid()
        # A script that switched eager execution or v2 behaviour leaves a process no later
        # script may run in: this child retires after replying.
        reply["retire"] = self.global_behaviour() != self.behaviour
        reply["output"] = "\n".join(output.getvalue().splitlines()[-TAIL_LINES:])
        reply["stdout"] = printed.getvalue()[-STDOUT_LIMIT:]
        return reply

    # -- capturing module-level values --------------------------------------------------------

    def capture(self, namespace: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
        """Concrete values by name, and the type of every other public module-level name."""
        values, skipped = {}, {}
        for name, value in namespace.items():
            if name.startswith("_") or inspect.ismodule(value) or callable(value):
                continue
            try:
                values[name] = self.concrete(value)
            except NotConcrete as why:
                skipped[name] = str(why)
        return values, skipped

    def concrete(self, value: Any) -> Any:
        """``value`` with tensors/variables as numpy arrays; raises NotConcrete otherwise."""
        np = self.np
        if value is None or type(value) in (bool, int, float, complex):
            return value
        if isinstance(value, np.generic):
            return self._numeric(np.asarray(value), value)[()]
        if isinstance(value, np.ndarray):
            return self._numeric(value, value).copy()
        if isinstance(value, list):
            return [self.concrete(item) for item in value]
        if isinstance(value, tuple):  # named tuples too: their class lives only in this child
            return tuple(self.concrete(item) for item in value)
        if isinstance(value, dict):
            # Keys travel back to the parent as they are: only plain ones can (a TF1 feed dict
            # keyed by placeholders is not a value to compare).
            for key in value:
                if not isinstance(key, (str, int, float, bool, type(None))):
                    raise NotConcrete(f"dict keyed by {type(key).__qualname__}")
            return {key: self.concrete(item) for key, item in value.items()}
        if self._array_like(value):
            try:
                array = np.asarray(value.numpy())
            except Exception:
                raise NotConcrete(f"graph {type(value).__name__} without a concrete value") from None
            return self._numeric(array, value)
        raise NotConcrete(type(value).__qualname__)

    def _array_like(self, value: Any) -> bool:
        tf = self.tf
        if isinstance(value, (tf.Tensor, tf.Variable)):
            return True
        # Keras 3 variables are not tf.Variable subclasses.
        return all(hasattr(value, attr) for attr in ("numpy", "dtype", "shape", "assign"))

    def _numeric(self, array: Any, original: Any) -> Any:
        if array.dtype.kind not in "biufc":
            raise NotConcrete(f"{type(original).__qualname__} of dtype {array.dtype}")
        return array


class LocalModules(importlib.abc.MetaPathFinder):
    """The script's own modules (files beside it): run in tf1 mode too, and forgotten after.

    In tf1 mode a helper module's ``import tensorflow as tf`` must behave as the script's
    does, so modules found in the script's folder execute with the same builtins. Whatever
    the mode, a module imported from that folder is removed from ``sys.modules`` after the
    script, so the next script (maybe from another folder with its own ``helpers.py``) gets
    its own. Installed packages are never touched, even inside that folder (a project venv).
    """

    def __init__(self, folder: Path, tf1_builtins: dict[str, Any] | None) -> None:
        self.folder = folder.resolve()
        self.tf1_builtins = tf1_builtins

    def local(self, filename: str | None) -> bool:
        if not filename:
            return False
        where = Path(filename).resolve()
        installed = {"site-packages", "dist-packages"} & set(where.parts)
        return where.is_relative_to(self.folder) and not installed

    def find_spec(self, name, path, target=None):
        if self.tf1_builtins is None:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or not isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            return None
        if not self.local(spec.origin):
            return None
        spec.loader = _TF1SourceLoader(spec.loader.name, spec.loader.path, self.tf1_builtins)
        return spec

    def forget(self, names: set[str]) -> None:
        for name in names:
            module = sys.modules.get(name)
            if module is not None and self.local(getattr(module, "__file__", None)):
                del sys.modules[name]


class _TF1SourceLoader(importlib.machinery.SourceFileLoader):
    def __init__(self, fullname: str, path: str, tf1_builtins: dict[str, Any]) -> None:
        super().__init__(fullname, path)
        self.tf1_builtins = tf1_builtins

    def exec_module(self, module: Any) -> None:
        module.__dict__["__builtins__"] = self.tf1_builtins
        super().exec_module(module)


def _give_estimator_hooks(v1_module: Any) -> None:
    """``tf.estimator``'s session-run hooks for TF1 scripts: TF 1.15's ``tf.estimator`` re-exported
    them from ``tf.train`` (the same objects), and TensorFlow 2.16+ has no ``tf.estimator``. The
    rest of the Estimator API is not given: a script using it fails as it would."""
    import types

    from tfmodernize.analysis.tf1_api import ESTIMATOR_HOOKS

    if hasattr(v1_module, "estimator"):
        return
    real = _real_estimator()
    if real is not None:
        setattr(v1_module, "estimator", real)
        return
    estimator = types.ModuleType("tensorflow.estimator")
    vars(estimator).update({name: getattr(v1_module.train, name) for name in ESTIMATOR_HOOKS})
    setattr(v1_module, "estimator", estimator)


def _real_estimator() -> Any:
    """TF 2.15's ``tensorflow-estimator`` (its v1 API, TF 1.15's ``tf.estimator``) on the TensorFlow
    of this process, when installed: it imports once four private modules it only reads for
    distribution and TPUs exist, and ``tf_export`` knows the ``estimator`` API name again (both
    gone since TF 2.16). None when the package is not installed."""
    import importlib.util
    import types

    if importlib.util.find_spec("tensorflow_estimator") is None:
        return None
    from tensorflow.python.util import tf_export

    if not hasattr(tf_export, "ESTIMATOR_API_NAME"):
        tf_export.ESTIMATOR_API_NAME = "estimator"
        tf_export.API_ATTRS["estimator"] = tf_export._Attributes("_estimator_api_names", "_estimator_api_constants")
        tf_export.API_ATTRS_V1["estimator"] = tf_export._Attributes(
            "_estimator_api_names_v1", "_estimator_api_constants_v1"
        )
    embedding = ("Adagrad", "Adam", "Ftrl", "Momentum", "ProximalAdagrad", "RMSProp", "StochasticGradientDescent")
    stubs = {
        # Read only with a distribution strategy in the RunConfig: never, without one.
        "tensorflow.python.distribute.estimator_training": {"should_run_distribute_coordinator": lambda config: False},
        "tensorflow.python.tpu.tpu_embedding": {
            f"{name}Parameters": type(f"{name}Parameters", (), {}) for name in embedding
        },
        "tensorflow.python.tpu.session_support": {},
        "tensorflow.python.tpu.tpu_embedding_gradient": {},
    }
    for name, members in stubs.items():
        parent, _, leaf = name.rpartition(".")
        if hasattr(importlib.import_module(parent), leaf):
            continue
        stub = types.ModuleType(name)
        vars(stub).update(members)
        sys.modules[name] = stub
        setattr(importlib.import_module(parent), leaf, stub)
    from tensorflow_estimator._api.v1 import estimator

    return estimator


def _give_eager_profiler() -> None:
    """TF 1.14's private ``tensorflow.python.eager.profiler`` for TF1 scripts, on TensorFlow's
    own profiler: ``start()``, ``stop()`` returning the profile, ``save(logdir, profile)``
    writing it under ``logdir/plugins/profile`` as TF 1.14 did, the ``Profiler(logdir)`` context
    and ``start_profiler_server``. TensorFlow 2.x has no such module."""
    import types

    from tensorflow.python.profiler import profiler_v2

    if "tensorflow.python.eager.profiler" in sys.modules:
        return

    def start() -> None:
        traced = tempfile.mkdtemp()
        profiler.tracing = traced
        profiler_v2.start(traced)

    def stop() -> str:
        profiler_v2.stop()
        return profiler.tracing

    def save(logdir: str, result: str) -> None:
        shutil.copytree(result, logdir, dirs_exist_ok=True)

    class Profiler:
        def __init__(self, logdir: str) -> None:
            self.logdir = logdir

        def __enter__(self) -> None:
            start()

        def __exit__(self, *exc: Any) -> None:
            save(self.logdir, stop())

    profiler = types.ModuleType("tensorflow.python.eager.profiler")
    vars(profiler).update(
        start=start, stop=stop, save=save, Profiler=Profiler, start_profiler_server=profiler_v2.start_server
    )
    sys.modules[profiler.__name__] = profiler
    setattr(importlib.import_module("tensorflow.python.eager"), "profiler", profiler)


def _give_contrib(v1_module: Any) -> None:
    """``tf.contrib`` for TF1 scripts, the parts of it TensorFlow moved to tf-slim, when tf-slim
    is installed: no TensorFlow 2 has ``tf.contrib``, so a TF1 script using it could not run
    otherwise. ``layers`` (``fully_connected``, ``dropout``, the initializers and regularizers...)
    and ``slim`` are tf-slim's (``slim.nets`` its nets); ``framework`` its variables and ``arg_scope`` (the global-step
    functions call TensorFlow's own, as TF 1.15's did); ``metrics`` its metrics (``accuracy``
    included); ``rnn`` TensorFlow's own cells (TF 1.15's ``tf.contrib.rnn`` re-exported
    ``tf.nn.rnn_cell``) and static RNNs; ``lookup`` its vocabulary tables, TF1's own ``lookup_ops``
    functions (``index_table_from_tensor``...). Each is also a module of that name
    (``tensorflow.contrib.slim``, ``tensorflow.contrib.layers.python.layers``...), so
    ``from tensorflow.contrib import slim`` imports it."""
    try:
        import tf_slim
    except ImportError:  # the verify extra installs it; without it such a script fails as before
        return
    import importlib
    import types

    # tf-slim reads ``ops.Tensor`` and ``ops.IndexedSlices``, which TensorFlow 2.21 keeps as
    # ``tensor.Tensor`` and ``indexed_slices.IndexedSlices`` only.
    from tensorflow.python.framework import indexed_slices, ops, tensor

    if not hasattr(ops, "Tensor"):
        ops.Tensor = tensor.Tensor
    if not hasattr(ops, "IndexedSlices"):
        ops.IndexedSlices = indexed_slices.IndexedSlices
    # tf-slim's batch_norm and conv layers load TF1's layer classes through TensorFlow's lazy
    # alias ``tf_keras.legacy_tf_layers.<module>``, which tf-keras 2.x keeps under ``src``.
    try:
        importlib.import_module("tf_keras.legacy_tf_layers")
    except ImportError:
        for name in ("", ".base", ".core", ".convolutional", ".normalization", ".pooling"):
            try:
                sys.modules[f"tf_keras.legacy_tf_layers{name}"] = importlib.import_module(
                    f"tf_keras.src.legacy_tf_layers{name}"
                )
            except ImportError:
                continue
    # tf-slim branches on a tensor through ``control_flow_ops.cond``, TF 1.15's ``tf.cond``.
    from tensorflow.python.ops import control_flow_ops

    if not hasattr(control_flow_ops, "cond"):
        control_flow_ops.cond = v1_module.cond
    from tf_slim.layers import initializers, layers, regularizers
    from tf_slim.ops import arg_scope, variables

    # The package, not ``tf_slim.layers``: tf-slim's ``from tf_slim.layers import *`` rebinds that
    # attribute to the ``layers`` module inside it (which has no initializers nor regularizers).
    layers_package = importlib.import_module("tf_slim.layers")

    def module(name: str, *sources: Any, **members: Any) -> types.ModuleType:
        made = types.ModuleType(f"tensorflow.contrib.{name}" if name else "tensorflow.contrib")
        for source in sources:
            vars(made).update({k: v for k, v in vars(source).items() if not k.startswith("_")})
        vars(made).update(members)
        sys.modules[made.__name__] = made
        return made

    nn = v1_module.nn
    cells = {name: getattr(nn.rnn_cell, name) for name in dir(nn.rnn_cell) if not name.startswith("_")}
    runs = {name: getattr(nn, name) for name in ("static_rnn", "static_bidirectional_rnn", "static_state_saving_rnn")}
    framework_ops = module("framework.python.ops", variables, arg_scope)
    module("framework.python.ops.variables", variables)
    framework = module(
        "framework", variables, arg_scope, nest=v1_module.nest, python=module("framework.python", ops=framework_ops)
    )
    python_layers = module(
        "layers.python.layers", layers_package, layers=layers, initializers=initializers, regularizers=regularizers
    )
    for name, source in (("layers", layers), ("initializers", initializers), ("regularizers", regularizers)):
        sys.modules[f"tensorflow.contrib.layers.python.layers.{name}"] = source
    contrib_layers = module("layers", layers, layers_package, python=module("layers.python", layers=python_layers))
    metrics = module("metrics", tf_slim.metrics)
    # ``tf.contrib.slim.nets`` is tf-slim's nets package: the package and its modules by name.
    nets = importlib.import_module("tf_slim.nets")
    sys.modules["tensorflow.contrib.slim.nets"] = nets
    for name, value in vars(nets).items():
        if isinstance(value, types.ModuleType) and value.__name__.startswith("tf_slim.nets."):
            sys.modules[f"tensorflow.contrib.slim.nets.{name}"] = value
    slim = module(
        "slim", tf_slim, layers=layers, initializers=initializers, regularizers=regularizers, metrics=metrics, nets=nets
    )
    rnn = module("rnn", **cells, **runs)
    # TF 1.15's ``tf.contrib.lookup`` vocabulary tables: TF1's own ``lookup_ops`` functions, whose
    # vocabulary parameter contrib named ``mapping``.
    from tensorflow.python.ops import lookup_ops

    def index_table_from_tensor(mapping, *args: Any, **kwargs: Any) -> Any:
        return lookup_ops.index_table_from_tensor(mapping, *args, **kwargs)

    def index_to_string_table_from_tensor(mapping, *args: Any, **kwargs: Any) -> Any:
        return lookup_ops.index_to_string_table_from_tensor(mapping, *args, **kwargs)

    lookup = module(
        "lookup",
        index_table_from_tensor=index_table_from_tensor,
        index_to_string_table_from_tensor=index_to_string_table_from_tensor,
    )
    # TF 1.15's ``tf.contrib.tpu`` re-exported TensorFlow's own TF1 ``tpu`` module.
    sys.modules["tensorflow.contrib.tpu"] = v1_module.tpu
    # ``tf.contrib.framework.nest`` was TensorFlow's own nest module, importable by its path too.
    sys.modules["tensorflow.contrib.framework.nest"] = v1_module.nest
    # TF 1.15's ``tf.contrib.compiler.jit`` re-exported TensorFlow's own ``experimental_jit_scope``.
    jit = module("compiler.jit", experimental_jit_scope=v1_module.xla.experimental.jit_scope)
    compiler = module("compiler", jit=jit)
    # TF 1.15's ``tf.contrib.tfprof.model_analyzer``: option dicts, and deprecated wrappers passing
    # their arguments on to TensorFlow's own profiler functions.
    from tensorflow.python.profiler import tfprof_logger

    def options(select: list, order_by: str, accounted: str, least_float_ops: int = 0, least: int = 0) -> dict:
        return {
            "max_depth": 10000,
            "min_bytes": least,
            "min_micros": least,
            "min_params": 0,
            "min_float_ops": least_float_ops,
            "order_by": order_by,
            "account_type_regexes": [accounted],
            "start_name_regexes": [".*"],
            "trim_name_regexes": [],
            "show_name_regexes": [".*"],
            "hide_name_regexes": [],
            "account_displayed_op_only": True,
            "select": select,
            "output": "stdout",
            "dump_to_file": "",
        }

    def print_model_analysis(graph, run_meta=None, op_log=None, tfprof_cmd="scope", tfprof_options=0):
        return v1_module.profiler.profile(graph, run_meta, op_log, tfprof_cmd, tfprof_options)

    def advise(graph, run_meta=None, tfprof_options=0):
        return v1_module.profiler.advise(graph, run_meta, tfprof_options)

    model_analyzer = module(
        "tfprof.model_analyzer",
        TRAINABLE_VARS_PARAMS_STAT_OPTIONS=options(["params"], "name", tfprof_logger.TRAINABLE_VARIABLES),
        FLOAT_OPS_OPTIONS=options(["float_ops"], "float_ops", ".*", least_float_ops=1),
        PRINT_ALL_TIMING_MEMORY=options(["micros", "bytes"], "name", ".*", least=1),
        print_model_analysis=print_model_analysis,
        advise=advise,
        Profiler=v1_module.profiler.Profiler,
    )
    tfprof = module("tfprof", model_analyzer=model_analyzer)
    # TF 1.15's ``tf.contrib.distributions`` star-imported TensorFlow's own distributions (its own
    # classes, ``MVNDiag``, ``bijectors``..., are in no TensorFlow 2: a script using them fails).
    distributions = module("distributions", v1_module.distributions)
    # TF 1.15's ``tf.contrib.saved_model`` reader: TensorFlow's own parsing of a SavedModel's
    # proto (saved_model.pb, else saved_model.pbtxt), which TF 2.x keeps in ``loader_impl``.
    from tensorflow.python.saved_model import loader_impl

    reader = module("saved_model.python.saved_model.reader", read_saved_model=loader_impl.parse_saved_model)
    saved_model_python = module(
        "saved_model.python", saved_model=module("saved_model.python.saved_model", reader=reader)
    )
    saved_model = module("saved_model", python=saved_model_python)
    contrib = module(
        "",
        layers=contrib_layers,
        slim=slim,
        framework=framework,
        metrics=metrics,
        rnn=rnn,
        lookup=lookup,
        tpu=v1_module.tpu,
        compiler=compiler,
        tfprof=tfprof,
        distributions=distributions,
        saved_model=saved_model,
    )
    contrib.image = importlib.import_module("tfmodernize.verify.contrib_image").image_module(v1_module)
    setattr(v1_module, "contrib", contrib)


def _builtins_importing_tensorflow_as(v1_module: Any) -> dict[str, Any]:
    """Builtins whose ``__import__`` gives ``tf.compat.v1`` for a plain ``import tensorflow``.

    Only the name ``tensorflow`` itself is redirected: ``import tensorflow.compat.v1 as tf``
    imports the top-level package and then reads ``.compat.v1`` from it, so it must get the
    real package; ``from tensorflow.keras import layers`` is left alone as well.
    """
    real_import: Callable[..., Any] = builtins.__import__

    def tf1_import(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and name == "tensorflow":
            return v1_module
        return real_import(name, globals, locals, fromlist, level)

    replaced = dict(vars(builtins))
    replaced["__import__"] = tf1_import
    return replaced


def _execute(code: Any, namespace: dict[str, Any]) -> None:
    try:
        exec(code, namespace)
    except SystemExit as stop:
        if stop.code not in (None, 0):
            raise


def _traceback_tail(error: BaseException, script: str) -> str:
    """The traceback from the script's first frame on (harness frames dropped), shortened."""
    tb = error.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != script:
        tb = tb.tb_next
    lines = traceback.format_exception(type(error), error, tb if tb is not None else error.__traceback__)
    text = "".join(lines).rstrip()
    return "\n".join(text.splitlines()[-TAIL_LINES:])


class Variables:
    """``verify --align-variables``: what a TF1 run's variables start from, handed to the TF2 run.

    ``record`` (the old program): every variable created (``variable_creator_scope``), in
    creation order; their values are read in the session right after the run that initialised
    them (a ``Session.run`` hook: reading a variable adds no op, so the program's graph and its
    random-op order are untouched), else at the end of the script.

    ``align`` (the new program): each trainable variable created takes the next recorded
    trainable one's value when shape and dtype match. The new program's own initial value is
    still computed (an initializer draws its random numbers as before, so later random ops
    draw what they would), then replaced. Variables that could not be matched are reported.
    """

    def __init__(self, tf: Any, mode: str, initial_values: list[dict]) -> None:
        self.tf = tf
        self.mode = mode
        self.created: list[Any] = []
        self.values: dict[int, Any] = {}
        self.pending = [v for v in initial_values if v["trainable"]]
        self.aligned = 0
        self.problems: list[str] = []

    @contextlib.contextmanager
    def hooked(self) -> Iterator[None]:
        if self.mode == "own":
            yield
            return
        tf = self.tf
        if self.mode == "record":
            session_class = tf.compat.v1.Session
            original_run = session_class.run
            variables = self

            def run(session, *args, **kwargs):
                result = original_run(session, *args, **kwargs)
                variables._read(session, original_run)
                return result

            session_class.run = run
            self.last_session = None
            try:
                with tf.compat.v1.variable_creator_scope(self._record):
                    yield
            finally:
                session_class.run = original_run
            if self.last_session is not None:
                self._read(self.last_session, original_run)
        else:
            with tf.variable_creator_scope(self._align):
                yield

    def _record(self, next_creator: Callable, **kwargs: Any) -> Any:
        variable = next_creator(**kwargs)
        self.created.append(variable)
        return variable

    def _read(self, session: Any, run: Callable) -> None:
        self.last_session = session
        waiting = [v for v in self.created if id(v) not in self.values and getattr(v, "graph", None) is session.graph]
        if not waiting:
            return
        try:
            values = run(session, waiting)
        except self.tf.errors.FailedPreconditionError:
            return  # not initialised yet
        for variable, value in zip(waiting, values):
            self.values[id(variable)] = value

    def recorded(self) -> list[dict]:
        out = []
        for variable in self.created:
            if id(variable) in self.values:
                value = self.values[id(variable)]
                out.append(
                    {
                        "name": variable.name,
                        "shape": list(value.shape),
                        "dtype": str(value.dtype),
                        "trainable": bool(getattr(variable, "trainable", True)),
                        "value": value,
                    }
                )
        from tfmodernize.verify.layouts import keras_layout

        return keras_layout(out)

    def _align(self, next_creator: Callable, **kwargs: Any) -> Any:
        import numpy as np

        tf = self.tf
        trainable = kwargs.get("trainable")
        if trainable is False or not self.pending:
            return next_creator(**kwargs)
        initial = kwargs.get("initial_value")
        if callable(initial):
            initial = initial()
        initial = tf.convert_to_tensor(initial, dtype_hint=kwargs.get("dtype"))
        wanted = self.pending[0]
        dtype = tf.as_dtype(kwargs.get("dtype") or initial.dtype).base_dtype
        name = kwargs.get("name") or "Variable"
        if list(initial.shape) != wanted["shape"] or dtype.name != wanted["dtype"]:
            self.problems.append(
                f"{name} {list(initial.shape)} {dtype.name}: not matched with the next recorded "
                f"variable {wanted['name']} {wanted['shape']} {wanted['dtype']}; its own value kept"
            )
            kwargs["initial_value"] = initial
            return next_creator(**kwargs)
        self.pending.pop(0)
        self.aligned += 1
        value = np.asarray(wanted["value"])
        if wanted.get("add_own_initial"):
            # An LSTM's bias: TF1 added the forget bias at run time, Keras starts with it (its own
            # constant initial value, also when the layer is built inside a tf.function).
            own = tf.get_static_value(initial)
            if own is None:
                self.problems.append(f"{name}: its own initial value is not a constant; TF1's taken as it is")
            else:
                value = value + own
        kwargs["initial_value"] = value
        return next_creator(**kwargs)

    def report(self) -> list[str]:
        if self.mode != "align":
            return []
        left = [
            f"{v['name']} {v['shape']} {v['dtype']}: no variable of the new program took its value"
            for v in self.pending
        ]
        return [
            f"aligned {self.aligned} trainable variable(s) with the old program's initial values",
            *self.problems,
            *left,
        ]


def _program(path: Path) -> tuple[str, str]:
    """(the Python a verified program runs, the file name its tracebacks show): the file, or a
    notebook's code cells in order with their IPython lines (magics, ``!`` shell escapes) left
    out, under ``nb.ipynb (code cells)``, whose lines a traceback reads from the cells (each
    starts with its ``'tfmodernize: cell N'`` marker), not from the notebook's JSON."""
    if path.suffix == ".ipynb":
        from tfmodernize.notebooks import script

        text, name = script(path.read_bytes()), f"{path} (code cells)"
        linecache.cache[name] = (len(text), None, text.splitlines(keepends=True), name)
        return text, name
    return path.read_text(encoding="utf-8"), str(path)


def main(argv: list[str]) -> int:
    mode, read_fd, write_fd = argv[0], int(argv[1]), int(argv[2])
    faulthandler.enable()
    sys.dont_write_bytecode = True  # scripts and their helpers may live in read-only folders
    # The parent sends SIGUSR1 before killing a script that hangs: the dump says where.
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    requests = Connection(read_fd, writable=False)
    replies = Connection(write_fd, readable=False)
    sandbox = Sandbox(mode)
    replies.send({"ready": True, "tensorflow": sandbox.tf.__version__, "pid": os.getpid()})
    while True:
        try:
            request = requests.recv()
        except EOFError:
            return 0
        reply = sandbox.run(request)
        replies.send(reply)
        if reply["retire"]:
            return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
