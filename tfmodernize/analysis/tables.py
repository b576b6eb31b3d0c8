"""TensorFlow's upgrade tables (generated into ``tfmodernize/data/``), loaded on first use.

The JSON is written by ``scripts/generate_tf_tables.py`` from the ``tf_upgrade_v2`` modules of
an installed TensorFlow and validated against it; see ``tfmodernize/data/README.md``. Paths
are relative to the TF top level (``"nn.relu"``). Loading takes a few milliseconds and
happens once per process, the first time a codemod asks, never at import time.

Also here: ``v1_requirement``, the one definition of "this use still needs ``tf.compat.v1``"
that compat-v1-import (TFM112) relies on and api-renames (TFM109) keeps consistent with.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Optional

import libcst as cst

from tfmodernize.analysis.tf1_api import SHARED_INITIALIZERS
from tfmodernize.tfsymbols import TFNames

#: The table file, found through the installed ``tfmodernize`` package.
DATA = resources.files("tfmodernize").joinpath("data/tf_upgrade_v2.json")


@dataclass(frozen=True)
class Tables:
    tensorflow_version: str
    renames: dict[str, str]
    dead_targets: dict[str, str]
    keyword_renames: dict[str, dict[str, str]]
    keyword_deletions: dict[str, dict[str, dict[str, Any]]]
    reorders: dict[str, dict[str, Any]]
    transformers: dict[str, dict[str, Any]]
    messages: dict[str, dict[str, str]]
    module_messages: dict[str, dict[str, str]]
    addons: dict[str, str]
    v1_only: frozenset[str]
    #: ``tf.compat.v1`` paths that TF2 has under the same name
    v1_shared: frozenset[str] = frozenset()

    def rename_for(self, path: str) -> Optional[tuple[str, str]]:
        """``(key, target)`` for the longest renamed prefix of ``path``, as the peer matches."""
        probe = path
        while True:
            if probe in self.renames:
                return probe, self.renames[probe] + path[len(probe) :]
            if "." not in probe:
                return None
            probe = probe.rpartition(".")[0]

    def rewritten_in_tf1_code(self, path: str) -> bool:
        """Whether TF1 code naming ``tf.<path>`` gets renamed or has its arguments rewritten.

        A rename *to* such a path (``softmax_cross_entropy_with_logits_v2`` ->
        ``nn.softmax_cross_entropy_with_logits``, ``arg_max`` -> ``argmax``) lands on a name
        whose spelling alone does not say whether it is TF1's or TF2's.
        """
        return (
            self.rename_for(path) is not None
            or path in self.reorders
            or path in self.transformers
            or path in self.keyword_renames
            or path in self.keyword_deletions
        )

    def dead_for(self, path: str) -> Optional[tuple[str, str]]:
        probe = path
        while True:
            if probe in self.dead_targets:
                return probe, self.dead_targets[probe]
            if "." not in probe:
                return None
            probe = probe.rpartition(".")[0]

    def module_message(self, path: str) -> Optional[str]:
        """The peer's message for the deepest deprecated module ``path`` lives in."""
        probe = path
        while "." in probe:
            probe = probe.rpartition(".")[0]
            if probe in self.module_messages:
                return self.module_messages[probe]["message"]
        return None

    def shared_with_tf2(self, path: str) -> bool:
        """Whether ``tf.compat.v1.<path>`` and ``tf.<path>`` both exist (the same name in TF2)."""
        return path in self.v1_shared

    def tf1_only(self, path: str) -> bool:
        """Whether ``tf.<path>`` can only be TF1 code: TF2 has no such name (``tf.contrib`` included)."""
        return self.v1_only_name(path) or path.startswith("contrib.")

    def v1_only_name(self, path: str) -> bool:
        """Whether ``path`` (or a module it lives in) has no TF2 name at all."""
        probe = path
        while True:
            if probe in self.v1_only:
                return True
            if "." not in probe:
                return False
            probe = probe.rpartition(".")[0]


@lru_cache(maxsize=1)
def tables() -> Tables:
    raw = json.loads(DATA.read_text(encoding="utf-8"))
    return Tables(
        tensorflow_version=raw["tensorflow_version"],
        renames=raw["renames"],
        dead_targets=raw["dead_targets"],
        keyword_renames=raw["keyword_renames"],
        keyword_deletions=raw["keyword_deletions"],
        reorders=raw["reorders"],
        transformers=raw["transformers"],
        messages={
            path: {"level": level, "message": raw["message_texts"][index]}
            for path, (level, index) in raw["messages"].items()
        },
        module_messages=raw["module_messages"],
        addons=raw["addons"],
        v1_only=frozenset(raw["v1_only"]),
        v1_shared=frozenset(raw["v1_shared"]),
    )


# -- call-site helpers shared by the codemods ---------------------------------------------------


def keyword_names(call: cst.Call) -> set[str]:
    return {arg.keyword.value for arg in call.args if arg.keyword is not None}


def positional_count(call: cst.Call) -> int:
    return sum(1 for arg in call.args if arg.keyword is None and not arg.star)


def has_star_args(call: cst.Call) -> bool:
    return any(arg.star for arg in call.args)


def literal_text(node: cst.BaseExpression) -> Optional[str]:
    """``repr`` of a literal ``None``/bool/number/string expression, else None."""
    if isinstance(node, cst.Name) and node.value in ("None", "True", "False"):
        return node.value
    if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString)):
        try:
            return repr(node.evaluated_value)
        except Exception:  # noqa: BLE001 - odd literals are simply "not a known literal"
            return None
    return None


def is_stop_gradient(node: cst.BaseExpression, names: TFNames) -> bool:
    return isinstance(node, cst.Call) and names.is_tf(node.func, "stop_gradient")


def v1_requirement(path: str, call: Optional[cst.Call], names: TFNames) -> Optional[str]:
    """Why a use of ``tf.compat.v1.<path>`` (called as ``call``, if it is a call) cannot simply
    become ``tf.<path>`` of TF2; None when it can.

    "Needs v1", per the generated tables: the name has no TF2 equivalent (``v1_only``), or
    TF2's name differs or behaves differently (a ``renames`` key, a dead target), or the call
    passes a keyword TF2 renamed or dropped, or more positional arguments than TF2 keeps in
    place (``reorders``), or the peer needs a custom transformer for it that left a v1-only
    shape in the call.
    """
    t = tables()
    if call is not None and path in SHARED_INITIALIZERS and SHARED_INITIALIZERS[path].tf2 == path:
        reading = tf2_initializer(path, call, names, dtype_given=False)
        if reading.differs is not None:
            return reading.differs
        return "TF2's takes other arguments" if reading.dropped or reading.written else None
    if t.v1_only_name(path):
        return "no TF2 equivalent of this name"
    if path.startswith("contrib."):
        return "tf.contrib is gone"
    renamed = t.rename_for(path) or t.dead_for(path)
    if renamed is not None:
        return f"TF2 spells or defines it differently (tf.{renamed[1]})"
    if call is None:
        if path in t.transformers and t.transformers[path]["kind"] != "rename_if_arg_found_transformer":
            return "its TF2 version behaves differently"
        return None
    used = keyword_names(call)
    old = sorted(used & (set(t.keyword_renames.get(path, ())) | set(t.keyword_deletions.get(path, ()))))
    if old:
        return f"keyword {', '.join(old)} is not accepted by TF2"
    order = t.reorders.get(path)
    if order is not None and positional_count(call) > order["positional"]:
        return "TF2 takes its positional arguments in another order"
    transformer = t.transformers.get(path)
    if transformer is None:
        return None
    kind = transformer["kind"]
    if kind == "rename_if_arg_found_transformer":
        return f"argument {transformer['arg_name']} changed meaning" if transformer["arg_name"] in used else None
    if kind == "add_argument_transformer":
        return None if transformer["arg_name"] in used else f"TF2 requires {transformer['arg_name']}="
    if kind == "dropout_transformer":
        return None if positional_count(call) <= 1 and "keep_prob" not in used else "keep_prob became rate"
    if kind == "softmax_cross_entropy_with_logits_transformer":
        labels = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "labels"), None)
        if labels is not None and is_stop_gradient(labels, names):
            return None
        return "TF2 back-propagates into labels (wrap them in tf.stop_gradient)"
    if kind == "name_scope_transformer":
        return None if len(call.args) == 1 and not used - {"name"} else "default_name/values are gone"
    return "its TF2 version behaves differently"


@dataclass(frozen=True)
class InitializerCall:
    """What a TF1 call of an initializer TF 2.x keeps (``tf1_api.SHARED_INITIALIZERS``) needs to
    draw the same as TF2's class: the arguments dropped (TF1's parameter names: a ``dtype`` TF2
    takes where the initializer is called, ``verify_shape=False``) and the TF1 defaults written
    out, as ``(keyword, code)``; or why it cannot (``differs``)."""

    dropped: tuple[str, ...] = ()
    written: tuple[tuple[str, str], ...] = ()
    differs: Optional[str] = None


FLOAT32 = ("float32", "dtypes.float32")


def tf2_initializer(
    path: str,
    call: cst.Call,
    names: TFNames,
    *,
    dtype_given: bool,
) -> InitializerCall:
    """How TF1's ``tf.<path>(...)`` becomes TF2's class of the same initializer, drawing the same
    numbers. ``dtype_given``: the initializer is passed to a TF function making a variable
    (``initializer=``, ``kernel_initializer=``), which calls it with the variable's dtype (TF1's
    makers did too: the constructor's ``dtype`` was never read there).

    The same when unseeded (TF2's seeded classes draw with stateless ops), with TF1's defaults
    written where TF2 changed them, and a ``dtype`` only where TF2's would make the same:
    float32 (TF2's default, but for ``constant_initializer``, whose TF2 class makes its value's
    dtype) or given by the maker. ``constant_initializer``'s value must be a number (TF1
    repeated a short list's last value to fill the shape; TF2 fails)."""
    shared = SHARED_INITIALIZERS[path]
    name = f"tf.{path}"
    if has_star_args(call):
        return _differs(f"{name} is called with *args/**kwargs: migrate this call by hand")
    given: dict[str, cst.BaseExpression] = {}
    for index, arg in enumerate(call.args):
        keyword = arg.keyword.value if arg.keyword is not None else None
        if keyword is None and index >= len(shared.parameters):
            return _differs(f"{name} is called with more arguments than TF1's took")
        if keyword is not None and keyword not in shared.parameters:
            return _differs(f"{name} is passed {keyword}=, which TF1's did not take")
        given[keyword or shared.parameters[index]] = arg.value
    seed = given.get("seed")
    if seed is not None and not (isinstance(seed, cst.Name) and seed.value == "None"):
        return _differs(
            f"{name}(seed=...): TF2's class draws a seeded initializer's values with a "
            "stateless op, other numbers than TF1's for the same seed; to keep TF1's, make "
            "the initial value where the variable is made with the op TF1 ran "
            "(tf.random.normal / tf.random.uniform with this seed), or accept new initial "
            "values and rename it by hand"
        )
    dropped = []
    verify = given.get("verify_shape")
    if verify is not None:
        if not (isinstance(verify, cst.Name) and verify.value == "False"):
            return _differs(
                f"{name}(verify_shape=...): TF2's class takes no verify_shape (it fails on a "
                "value that has neither the variable's shape nor its size): drop it by hand"
            )
        dropped.append("verify_shape")
    dtype = given.get("dtype")
    symbol = names.tf_symbol(dtype) if dtype is not None else None
    float32 = (symbol is not None and symbol.path in FLOAT32) or (
        isinstance(dtype, cst.SimpleString) and dtype.evaluated_value == "float32"
    )
    if shared.tf2 == "constant_initializer":
        value = given.get("value")
        if value is not None and not _number(value, (cst.Integer, cst.Float)):
            return _differs(
                f"{name} of a value that is not a number: TF2's class fails where TF1's "
                "repeated a short list's last value to fill the variable; with a value of "
                "the variable's shape, TF2's tf.constant_initializer is the same: rename it "
                "by hand"
            )
        floating = value is not None and _number(value, cst.Float)
        if not dtype_given and not (floating and (dtype is None or float32)):
            return _differs(
                f"{name} called where no dtype is given: TF2's class makes its value's dtype "
                "(int32 for an integer) where TF1's made float32 or its dtype=: pass the "
                "dtype where it is called (init(shape, dtype=tf.float32)) and drop it here"
            )
    elif dtype is not None and not float32 and not dtype_given:
        return _differs(
            f"{name}(dtype=...): TF2's class takes no dtype, and makes float32 when called "
            "without one: pass the dtype where it is called (init(shape, dtype=...)) and "
            "drop it here"
        )
    if dtype is not None:
        dropped.append("dtype")
    defaults = shared.tf1_defaults
    written = tuple((keyword, code) for keyword, code in defaults if keyword not in given)
    return InitializerCall(dropped=tuple(dropped), written=written)


def _differs(reason: str) -> InitializerCall:
    return InitializerCall(differs=reason)


def _number(node: cst.BaseExpression, kinds) -> bool:
    """Whether ``node`` is a literal of ``kinds`` (``cst.Float``), negated or not."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        node = node.expression
    return isinstance(node, kinds)
