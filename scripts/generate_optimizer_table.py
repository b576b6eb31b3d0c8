"""Write ``tfmodernize/data/optimizers.json``: TF1 ``tf.train.*Optimizer`` -> Keras 3 optimizer.

The table is read off both libraries' constructor signatures; only the correspondences a
signature cannot say are written here by hand (parameter renames, values TF1 hard-codes
without a parameter, optimizers whose maths differ, parameters TF1 reads as float32 where
Keras computes with the Python float). The fixtures under
``fixtures/minimize-to-tape/`` train with each mapping and compare the numbers with TF1, so a
wrong entry fails a test rather than silently changing a migration.

Run with the verify extra installed:  python scripts/generate_optimizer_table.py
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import keras
import numpy as np
import tensorflow as tf

TARGET = Path(__file__).resolve().parent.parent / "tfmodernize" / "data" / "optimizers.json"

#: TF1 optimizer -> (Keras class, TF1 parameter -> Keras parameter). ``None``: no Keras
#: counterpart and no effect on the numbers of a single-threaded program.
CORRESPONDENCE = {
    "GradientDescentOptimizer": ("SGD", {"learning_rate": "learning_rate", "use_locking": None, "name": "name"}),
    "MomentumOptimizer": (
        "SGD",
        {
            "learning_rate": "learning_rate",
            "momentum": "momentum",
            "use_locking": None,
            "name": "name",
            "use_nesterov": "nesterov",
        },
    ),
    "AdamOptimizer": (
        "Adam",
        {
            "learning_rate": "learning_rate",
            "beta1": "beta_1",
            "beta2": "beta_2",
            "epsilon": "epsilon",
            "use_locking": None,
            "name": "name",
            "use_own_namescope_for_non_slot_vars": None,
        },
    ),
    "AdagradOptimizer": (
        "Adagrad",
        {
            "learning_rate": "learning_rate",
            "initial_accumulator_value": "initial_accumulator_value",
            "use_locking": None,
            "name": "name",
        },
    ),
    "RMSPropOptimizer": (
        "RMSprop",
        {
            "learning_rate": "learning_rate",
            "decay": "rho",
            "momentum": "momentum",
            "epsilon": "epsilon",
            "use_locking": None,
            "centered": "centered",
            "name": "name",
        },
    ),
    "AdadeltaOptimizer": (
        "Adadelta",
        {"learning_rate": "learning_rate", "rho": "rho", "epsilon": "epsilon", "use_locking": None, "name": "name"},
    ),
    "FtrlOptimizer": (
        "Ftrl",
        {
            "learning_rate": "learning_rate",
            "learning_rate_power": "learning_rate_power",
            "initial_accumulator_value": "initial_accumulator_value",
            "l1_regularization_strength": "l1_regularization_strength",
            "l2_regularization_strength": "l2_regularization_strength",
            "use_locking": None,
            "name": "name",
            "accum_name": None,
            "linear_name": None,
            "l2_shrinkage_regularization_strength": "l2_shrinkage_regularization_strength",
            "beta": "beta",
        },
    ),
}

#: Values TF1 uses for a Keras parameter it has no parameter for (or whose default ``None``
#: means a number), read from the TF1 kernels: Adagrad divides by sqrt(accumulator) with no
#: epsilon; FTRL's ``beta=None`` is 0.
TF1_IMPLICIT = {
    "AdagradOptimizer": {"epsilon": 0.0},
    "FtrlOptimizer": {"beta": 0.0},
}

#: Optimizers whose Keras 3 counterpart computes different numbers whatever the arguments.
DIFFERENT_MATHS = {
    "RMSPropOptimizer": (
        "TF1 RMSPropOptimizer starts its mean-square accumulator at 1.0, Keras RMSprop at 0, so the "
        "first steps are several times larger (18% off after 8 steps in our measurement) unless the "
        "accumulators are set to 1.0 after building the optimizer, which needs its variables listed "
        "at module level"
    ),
}

#: Keras slot variables TF1 starts at another value than Keras's zeros: TF1 optimizer ->
#: {Keras slot (the suffix of its variable's name): TF1's starting value}. TF1's
#: RMSPropOptimizer fills its "rms" slot with ones; Keras RMSprop starts "velocity" at zeros.
#: Both facts are checked against the libraries by ``_check_slot_starts`` when the table is
#: written; a migration sets those slots after building the optimizer.
SLOT_STARTS = {
    "RMSPropOptimizer": ("rms", {"velocity": 1.0}),
}

#: Optimizers that match TF1 only while the learning rate is constant.
DIFFERENT_WITH_SCHEDULE = {
    "MomentumOptimizer": (
        "TF1's momentum scales the whole accumulated velocity by the current learning rate while "
        "Keras SGD folds each step's learning rate into the velocity, so they part as soon as the "
        "learning rate changes (141% off two steps after a decay in our measurement)"
    ),
}

#: Keras parameters a Keras optimizer subtracts from 1 in Python floats (``1 - beta_1``, then
#: cast to float32) where TF1's kernel subtracts the float32 value (``1 - 0.9f``): the two
#: differ in the last bits (0.1f against 0.100000024f), so the table's defaults for them, and a
#: migration's literal values, are float32-rounded (``float(np.float32(0.9))``,
#: 0.8999999761581421). ``_check_float32_arguments`` proves it on both libraries when the table
#: is written: rounded, the first two steps are bit-identical; unrounded, they are not.
FLOAT32_ARGUMENTS = {
    "AdamOptimizer": ("beta_1", "beta_2"),
}

#: Optimizers that keep no state between steps (no slots; a constant learning rate).
STATELESS = {"GradientDescentOptimizer"}

#: Keras parameters with no numeric effect that must never be written out as defaults.
NOT_DEFAULTS = {"name"}

#: TF1 learning-rate decay function -> (Keras schedule, TF1 parameter -> Keras parameter).
#: ``STEP`` marks the TF1 argument that carries the step: a Keras schedule reads the
#: optimizer's own ``iterations`` instead.
STEP = "@step"
SCHEDULES = {
    "exponential_decay": (
        "ExponentialDecay",
        {
            "learning_rate": "initial_learning_rate",
            "global_step": STEP,
            "decay_steps": "decay_steps",
            "decay_rate": "decay_rate",
            "staircase": "staircase",
            "name": "name",
        },
    ),
    "inverse_time_decay": (
        "InverseTimeDecay",
        {
            "learning_rate": "initial_learning_rate",
            "global_step": STEP,
            "decay_steps": "decay_steps",
            "decay_rate": "decay_rate",
            "staircase": "staircase",
            "name": "name",
        },
    ),
    "polynomial_decay": (
        "PolynomialDecay",
        {
            "learning_rate": "initial_learning_rate",
            "global_step": STEP,
            "decay_steps": "decay_steps",
            "end_learning_rate": "end_learning_rate",
            "power": "power",
            "cycle": "cycle",
            "name": "name",
        },
    ),
    "piecewise_constant": (
        "PiecewiseConstantDecay",
        {"x": STEP, "boundaries": "boundaries", "values": "values", "name": "name"},
    ),
    "cosine_decay": (
        "CosineDecay",
        {
            "learning_rate": "initial_learning_rate",
            "global_step": STEP,
            "decay_steps": "decay_steps",
            "alpha": "alpha",
            "name": "name",
        },
    ),
}


def _defaults(function) -> tuple[list[str], dict[str, object], list[str]]:
    parameters = [
        p
        for p in inspect.signature(function).parameters.values()
        if p.name != "self" and p.kind is not inspect.Parameter.VAR_KEYWORD
    ]
    defaults = {p.name: p.default for p in parameters if p.default is not inspect.Parameter.empty}
    required = [p.name for p in parameters if p.default is inspect.Parameter.empty]
    return [p.name for p in parameters], defaults, required


def _entry(tf1_function, keras_class, renames: dict) -> dict:
    tf1_order, tf1_defaults, tf1_required = _defaults(tf1_function)
    keras_order, keras_defaults, _ = _defaults(keras_class.__init__)
    unmapped = set(tf1_order) - set(renames)
    if unmapped:
        raise SystemExit(f"{tf1_function.__name__}: parameters without a correspondence: {sorted(unmapped)}")
    for keras_param in renames.values():
        if keras_param not in (None, STEP) and keras_param not in keras_order:
            raise SystemExit(f"{keras_class.__name__} has no parameter {keras_param}")
    return {
        "positional": tf1_order,
        "arguments": {k: renames[k] for k in tf1_order},
        "required": [renames[k] for k in tf1_required],
        "write_defaults": {
            renames[k]: v
            for k, v in tf1_defaults.items()
            if renames.get(k) not in (None, STEP) and k not in NOT_DEFAULTS and v != keras_defaults.get(renames[k])
        },
    }


def _check_slot_starts(tf1_name: str, keras_name: str) -> dict[str, float]:
    """The slot starts of ``SLOT_STARTS``, after checking them on both libraries."""
    tf1_slot, starts = SLOT_STARTS[tf1_name]
    graph = tf.Graph()
    with graph.as_default():
        weight = tf.compat.v1.Variable([2.0, 3.0], use_resource=True)
        optimizer = getattr(tf.compat.v1.train, tf1_name)(0.1)
        optimizer.minimize(tf.reduce_sum(weight), var_list=[weight])
        with tf.compat.v1.Session(graph=graph) as session:
            session.run(tf.compat.v1.global_variables_initializer())
            tf1_start = session.run(optimizer.get_slot(weight, tf1_slot))
    built = getattr(keras.optimizers, keras_name)(learning_rate=0.1)
    built.build([tf.Variable([2.0, 3.0])])
    for suffix, value in starts.items():
        slots = [v for v in built.variables if v.name.endswith(f"_{suffix}")]
        if not slots or any(float(x) != 0.0 for x in slots[0].numpy()):
            raise SystemExit(f"{keras_name}: no zero-started slot named *_{suffix}")
        if any(float(x) != value for x in tf1_start):
            raise SystemExit(f"{tf1_name}: slot {tf1_slot} starts at {tf1_start}, not {value}")
    return starts


def _float32(value: float) -> float:
    return float(np.float32(value))


def _two_steps(tf1_name: str, keras_name: str, tf1_kwargs: dict, keras_kwargs: dict) -> tuple[bytes, bytes]:
    """The weights after two steps of a nonconvex loss, trained by TF1 (a graph) and by Keras."""
    start = np.array([0.7, -1.3, 2.1], np.float32)

    def loss(weight):
        return tf.reduce_sum(tf.sin(3.0 * weight) + weight * weight)

    graph = tf.Graph()
    with graph.as_default():
        weight = tf.compat.v1.Variable(start, use_resource=True)
        train = getattr(tf.compat.v1.train, tf1_name)(**tf1_kwargs).minimize(loss(weight), var_list=[weight])
        with tf.compat.v1.Session(graph=graph) as session:
            session.run(tf.compat.v1.global_variables_initializer())
            for _ in range(2):
                session.run(train)
            tf1_weight = session.run(weight)
    weight = tf.Variable(start)
    optimizer = getattr(keras.optimizers, keras_name)(**keras_kwargs)
    for _ in range(2):
        with tf.GradientTape() as tape:
            value = loss(weight)
        optimizer.apply_gradients([(tape.gradient(value, weight), weight)])
    return tf1_weight.tobytes(), weight.numpy().tobytes()


def _check_float32_arguments(tf1_name: str, keras_name: str, renames: dict, write: dict) -> list[str]:
    """The Keras parameters of ``FLOAT32_ARGUMENTS``, after checking on both libraries that
    their float32-rounded values (TF1's defaults, in ``write``) make two Keras steps
    bit-identical to TF1's, and that the decimals TF1's defaults are written as do not."""
    names = FLOAT32_ARGUMENTS[tf1_name]
    tf1_params = {keras: tf1 for tf1, keras in renames.items() if keras}
    common = {"learning_rate": 0.05, "epsilon": 1e-8}
    rounded = dict(common, **{name: write[name] for name in names})
    decimals = dict(common, **{name: float(f"{write[name]:.6g}") for name in names})
    for name in names:
        if _float32(decimals[name]) != write[name]:
            raise SystemExit(f"{tf1_name}: {name} default {write[name]} is not a float32-rounded decimal")
    tf1_kwargs = {tf1_params[k]: v for k, v in decimals.items()}
    tf1_weight, keras_weight = _two_steps(tf1_name, keras_name, tf1_kwargs, rounded)
    if tf1_weight != keras_weight:
        raise SystemExit(f"{keras_name} with float32-rounded {', '.join(names)} is not bit-identical to {tf1_name}")
    _, plain_weight = _two_steps(tf1_name, keras_name, tf1_kwargs, decimals)
    if plain_weight == tf1_weight:
        raise SystemExit(f"{keras_name} matches {tf1_name} without rounding {', '.join(names)}: drop the entry")
    return list(names)


def build() -> dict:
    schedules = {
        name: {
            "keras": keras_name,
            **_entry(getattr(tf.compat.v1.train, name), getattr(keras.optimizers.schedules, keras_name), renames),
        }
        for name, (keras_name, renames) in SCHEDULES.items()
    }
    optimizers = {}
    for tf1_name, (keras_name, renames) in CORRESPONDENCE.items():
        tf1_order, tf1_defaults, tf1_required = _defaults(getattr(tf.compat.v1.train, tf1_name).__init__)
        _, keras_defaults, _ = _defaults(getattr(keras.optimizers, keras_name).__init__)
        unmapped = set(tf1_order) - set(renames)
        if unmapped:
            raise SystemExit(f"{tf1_name}: parameters without a correspondence: {sorted(unmapped)}")
        effective = {renames[k]: v for k, v in tf1_defaults.items() if renames.get(k)}
        effective.update(TF1_IMPLICIT.get(tf1_name, {}))
        for keras_param in effective:
            if keras_param not in keras_defaults:
                raise SystemExit(f"{keras_name} has no parameter {keras_param}")
        for param in FLOAT32_ARGUMENTS.get(tf1_name, ()):
            effective[param] = _float32(effective[param])
        write = {
            param: value
            for param, value in effective.items()
            if param not in NOT_DEFAULTS and value != keras_defaults[param]
        }
        optimizers[tf1_name] = {
            "keras": keras_name,
            "positional": tf1_order,
            "arguments": {k: renames[k] for k in tf1_order},
            "required": [renames[k] for k in tf1_required],
            "write_defaults": write,
            "different_maths": DIFFERENT_MATHS.get(tf1_name),
            "slot_starts": _check_slot_starts(tf1_name, keras_name) if tf1_name in SLOT_STARTS else {},
            "different_with_schedule": DIFFERENT_WITH_SCHEDULE.get(tf1_name),
            "stateless": tf1_name in STATELESS,
            "float32_arguments": (
                _check_float32_arguments(tf1_name, keras_name, renames, write) if tf1_name in FLOAT32_ARGUMENTS else []
            ),
        }
    return {
        "generated_by": "scripts/generate_optimizer_table.py",
        "tensorflow": tf.__version__,
        "keras": keras.__version__,
        "optimizers": optimizers,
        "schedules": schedules,
    }


if __name__ == "__main__":
    TARGET.write_text(json.dumps(build(), indent=2, sort_keys=False) + "\n")
    print(f"wrote {TARGET}")
