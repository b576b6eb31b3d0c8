"""TF1 optimizers and learning-rate schedules and their Keras 3 counterparts: the table
``tfmodernize/data/optimizers.json`` (written by ``scripts/generate_optimizer_table.py``), read
once per process, and the Keras optimizer or schedule a TF1 call becomes."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Optional

import libcst as cst

from tfmodernize.syntax import no_space_equal


@lru_cache(maxsize=None)
def _tables() -> dict:
    text = resources.files("tfmodernize").joinpath("data/optimizers.json").read_text(encoding="utf-8")
    return json.loads(text)


def optimizer_table() -> dict:
    """TF1 optimizer class name -> its Keras 3 counterpart and argument mapping."""
    return _tables()["optimizers"]


def schedule_table() -> dict:
    """TF1 learning-rate decay function -> its Keras 3 schedule and argument mapping."""
    return _tables()["schedules"]


#: The table's marker for the TF1 argument that carries the step.
STEP = "@step"


def keras_schedule(call: cst.Call, tf1_function: str):
    """``(KerasOptimizer-like schedule, step expression)``, or ``(None, why not)``."""
    entry = schedule_table()[tf1_function]
    keras_args: list[cst.Arg] = []
    step = None
    for index, arg in enumerate(call.args):
        if arg.star or (arg.keyword is None and index >= len(entry["positional"])):
            return None, "its arguments could not be read"
        param = arg.keyword.value if arg.keyword is not None else entry["positional"][index]
        keras_param = entry["arguments"].get(param)
        if param not in entry["arguments"]:
            return None, f"`{param}` is not an argument of tf.train.{tf1_function}"
        if keras_param == STEP:
            step = arg.value
        elif keras_param is not None:
            keras_args.append(_keyword(keras_param, arg.value))
    for keras_param, value in entry["write_defaults"].items():
        if not any(a.keyword is not None and a.keyword.value == keras_param for a in keras_args):
            keras_args.append(_keyword(keras_param, cst.parse_expression(repr(value))))
    if step is None:
        return None, "it has no step argument"
    return KerasOptimizer(entry["keras"], tuple(keras_args), None), step


@dataclass(frozen=True)
class KerasOptimizer:
    """The Keras constructor a TF1 optimizer call becomes, or why it cannot."""

    keras: str
    args: tuple[cst.Arg, ...]
    different_maths: Optional[str]
    #: Keras slot (suffix of its variable's name) -> the value TF1 started it at
    slot_starts: dict[str, float] = field(default_factory=dict)
    #: Keras keywords of ``args`` the call did not give (TF1's defaults written out)
    defaulted: tuple[str, ...] = ()


def keras_optimizer(call: cst.Call, tf1_class: str) -> tuple[Optional[KerasOptimizer], Optional[str]]:
    """Map ``tf.train.<tf1_class>(...)`` to Keras arguments with TF1's effective defaults."""
    entry = optimizer_table()[tf1_class]
    given: dict[str, cst.BaseExpression] = {}
    for index, arg in enumerate(call.args):
        if arg.star:
            return None, "its arguments are unpacked with * or **"
        if arg.keyword is None:
            if index >= len(entry["positional"]):
                return None, "it has more positional arguments than TF1 accepts"
            given[entry["positional"][index]] = arg.value
        else:
            if arg.keyword.value not in entry["arguments"]:
                return None, f"`{arg.keyword.value}` is not an argument of {tf1_class}"
            given[arg.keyword.value] = arg.value
    keras_args: list[cst.Arg] = []
    written: set[str] = set()
    for tf1_param in entry["positional"]:
        keras_param = entry["arguments"][tf1_param]
        if tf1_param not in given or keras_param is None:
            continue
        keras_args.append(_keyword(keras_param, given[tf1_param]))
        written.add(keras_param)
    for keras_param in entry["required"]:
        if keras_param not in written:
            return None, f"it lacks the required `{keras_param}`"
    defaulted = tuple(keras_param for keras_param in entry["write_defaults"] if keras_param not in written)
    for keras_param in defaulted:
        value = entry["write_defaults"][keras_param]
        keras_args.append(_keyword(keras_param, cst.parse_expression(repr(value))))
    keras = KerasOptimizer(
        entry["keras"], tuple(keras_args), entry["different_maths"], dict(entry["slot_starts"]), defaulted
    )
    return keras, None


def _keyword(name: str, value: cst.BaseExpression) -> cst.Arg:
    return cst.Arg(
        value=value,
        keyword=cst.Name(name),
        equal=no_space_equal(),
    )
