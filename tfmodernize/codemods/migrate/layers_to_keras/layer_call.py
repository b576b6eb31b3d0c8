"""One ``tf.layers`` call (or RNN run) read as the Keras layer replacing it (``read_layer``:
a ``LayerCall``), through ``tfmodernize/data/layers.json``; and where a layer may be applied
outside a network function (``check_naming_blocks``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Callable, Optional

import libcst as cst

from tfmodernize.treewalk import contains
from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.layers_to_keras.batch_norm import false
from tfmodernize.codemods.migrate.layers_to_keras.initializer import GLOROT_KERNELS
from tfmodernize.codemods.migrate.layers_to_keras.plan import FilePlan
from tfmodernize.codemods.migrate.layers_to_keras.rnn import (
    OBJECT_NAMES,
    RUNS,
    RecurrentSite,
    read_site,
)
from tfmodernize.codemods.migrate.session_to_function.blocks import naming_scope
from tfmodernize.syntax import (
    ancestors,
    argument,
    is_none,
    no_space_equal,
    source,
    statement_holding,
)


@lru_cache(maxsize=None)
def layer_table() -> dict[str, dict[str, Any]]:
    """``tf.layers`` function -> its Keras layer and parameter mapping (``layers.json``)."""
    text = resources.files("tfmodernize").joinpath("data/layers.json").read_text(encoding="utf-8")
    return json.loads(text)["layers"]


@dataclass(frozen=True)
class LayerCall:
    """What replaces one ``tf.layers`` call: the Keras class and constructor arguments, the
    arguments of the call, the TF1 function and the ``name=`` literal passed, if any."""

    keras_class: str
    constructor: list[cst.Arg]
    call_args: list[cst.Arg]
    function: str
    tf1_name: Optional[str]
    #: Where the input is passed (``tf.nn.dynamic_rnn(cell, inputs)``: 1).
    input_position: int = 0
    rnn: Optional[RecurrentSite] = None
    #: The names TF1 gave the layer's variables, where not Keras's (``weights``/``biases`` of
    #: ``tf.contrib.layers.fully_connected``).
    tf1_weights: Optional[tuple[str, ...]] = None
    #: Whether the kernel is given TF1's default initializer, written into the file
    #: (``initializer.py``).
    tf1_initializer: bool = False


def read_layer(
    call: cst.Call,
    plan: FilePlan,
    tf_expr: Callable[[str], cst.BaseExpression],
    reuse: Optional[str] = None,
) -> LayerCall:
    """What the Keras layer replacing ``call`` takes; the input is read off the rebuilt call
    (``input_of``). ``reuse``: the sharing network function's ``reuse`` parameter, which its
    layers may pass on. ``tf_expr`` spells a TF2 name in the file."""
    tf = plan.tf
    if tf.is_tf(call.func, *RUNS):
        block = plan.parents.get(id(statement_holding(call, plan.parents)))
        site = read_site(call, list(block.body), plan.parents, tf, tf_expr)
        position = RUNS[next(r for r in RUNS if tf.is_tf(call.func, r))]["inputs"]
        return LayerCall(
            site.keras_class,
            site.constructor,
            site.call_args,
            OBJECT_NAMES[site.keras_class],
            site.named,
            input_position=position,
            rnn=site,
        )
    path = tf.tf_symbol(call.func).path
    key = path[len("layers.") :] if path.startswith("layers.") else path  # ``contrib.layers.flatten`` whole
    entry, function = layer_table()[key], key.rsplit(".", 1)[-1]
    passed: dict[str, cst.BaseExpression] = {}
    for position, arg in enumerate(call.args):
        if arg.star:
            raise Decline(call, "it passes `*args` or `**kwargs`")
        if arg.keyword is None:
            if position >= len(entry["parameters"]):
                raise Decline(call, "it passes more positional arguments than the function takes")
            key = entry["parameters"][position]
        else:
            key = arg.keyword.value
        if key not in entry["parameters"]:
            raise Decline(call, f"`{key}` is not a parameter of tf.{path}")
        passed[key] = arg.value
    for key in entry["declined"]:
        if not is_none(passed.get(key)) and not (key == "reuse" and sharing(passed[key], reuse, plan)):
            raise Decline(
                call,
                f"it passes `{key}`"
                + (
                    " outside a network function shared through its variable scope"
                    if key == "reuse"
                    else ", which Keras layers do not take"
                ),
            )
    for key in entry.get("declined_none", ()):
        if key in passed and is_none(passed[key]):
            raise Decline(call, f"it passes `{key}=None`, which TF1 read as leaving that part out")
    # ``tf.contrib.layers`` spells some parameters otherwise (``num_outputs``: Keras's ``units``).
    passed = {entry.get("renamed", {}).get(key, key): value for key, value in passed.items()}
    # A kernel given no initializer: TF1's Glorot uniform, drawn as TF1 drew it.
    tf1_initializer = function in GLOROT_KERNELS and is_none(passed.get("kernel_initializer"))
    if tf1_initializer:
        passed["kernel_initializer"] = cst.Name(plan.initializer)
    if not false(passed.get("renorm", cst.Name("False"))):
        raise Decline(call, "batch renormalization (`renorm`) is not proven equal in Keras 3")
    for key, default in entry["tf1_only"].items():
        if key in passed and source(passed[key]) != default and not (key == "fused" and false(passed[key])):
            raise Decline(call, f"`{key}={source(passed[key])}` has no Keras counterpart")
    if function == "dropout" and not false(passed.get("training", cst.Name("False"))):
        raise Decline(
            call,
            f"`training={source(passed['training'])}`: in training mode the dropout mask would "
            "come from Keras's random generator, not TF1's",
        )
    if function == "batch_normalization":
        plan.batch_norms.check(call, passed)
    if "inputs" not in passed:
        raise Decline(call, "its input is not passed")
    constructor: list[cst.Arg] = []
    for key in entry["positional"]:
        value = (
            passed.get(key) if key in passed else written_default(entry["tf1_defaults_written_out"].get(key), tf_expr)
        )
        if value is None:
            raise Decline(call, f"`{key}` is not passed")
        constructor.append(cst.Arg(value))
    for key in entry["constructor"]:
        if key in entry["positional"]:
            continue
        value = passed.get(key)
        if value is None and key in entry["tf1_defaults_written_out"]:
            value = written_default(entry["tf1_defaults_written_out"][key], tf_expr)
        if value is not None:
            constructor.append(cst.Arg(value, keyword=cst.Name(key), equal=no_space_equal()))
    call_args = [
        cst.Arg(passed[key], keyword=cst.Name(key), equal=no_space_equal()) for key in entry["call"] if key in passed
    ]
    named = passed.get("name")
    tf1_name = named.evaluated_value if isinstance(named, cst.SimpleString) else None
    return LayerCall(
        entry["keras"],
        constructor,
        call_args,
        function,
        tf1_name,
        tf1_weights=tuple(entry["tf1_weights"]) if "tf1_weights" in entry else None,
        tf1_initializer=tf1_initializer,
    )


def written_default(text: Optional[str], tf_expr: Callable[[str], cst.BaseExpression]) -> Optional[cst.BaseExpression]:
    """A TF1 default written out: a literal, or a TF name (``tf.nn.relu``) through the file's
    alias."""
    if text is None:
        return None
    return tf_expr(text[len("tf.") :]) if text.startswith("tf.") else cst.parse_expression(text)


def sharing(value: cst.BaseExpression, reuse: Optional[str], plan: FilePlan) -> bool:
    """Whether ``reuse=value`` shares variables the way the migration keeps: the sharing
    function's own ``reuse`` parameter, or ``tf.AUTO_REUSE``."""
    return (isinstance(value, cst.Name) and value.value == reuse and reuse is not None) or (
        reuse is not None and plan.tf.is_tf(value, "AUTO_REUSE")
    )


def input_of(updated: cst.Call, position: int = 0) -> cst.BaseExpression:
    """The input argument of the rebuilt call (an inner layer call already rewritten in it)."""
    found = argument(updated, position, "inputs")
    assert found is not None
    return found


def check_naming_blocks(statement: cst.BaseStatement, calls: list[cst.Call], plan: FilePlan) -> None:
    """Declines layers applied elsewhere than on the lines of top-level ``with`` blocks that
    only name ops (``with tf.name_scope("RNN"):``, a ``variable_scope`` given only its name),
    nested or not: their layers are made before the block, and applied where they were."""
    parents = plan.parents
    for call in calls:
        line = statement_holding(call, parents)
        holders = (
            [n for n in ancestors(line, parents) if contains(statement, n) or n is statement]
            if isinstance(line, cst.SimpleStatementLine)
            else [None]
        )
        if not all(
            isinstance(n, (cst.IndentedBlock, cst.With))
            and (not isinstance(n, cst.With) or all(naming_scope(i, plan.tf) and i.asname is None for i in n.items))
            for n in holders
        ):
            raise Decline(
                call,
                "it is applied inside a class or a block (other than top-level `with` blocks that only name ops)",
            )
