"""Contrib-to-core's rewrite of each call, a collaborator of the codemod: ``rewrite`` gives the
core code replacing a call, with ``{argument}`` where an argument's source goes, and the fix
message (a ``Rewrite``); or raises a ``Decline``. It reads what the codemod's plan of the file
knows (``ContribPlan``) and edits nothing."""

from __future__ import annotations

from collections.abc import Mapping, Set
from dataclasses import dataclass
from typing import Callable, Optional

import libcst as cst

from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.contrib_to_core import saved_model_reader
from tfmodernize.codemods.migrate.contrib_to_core.file_facts import ContribFile
from tfmodernize.codemods.migrate.contrib_to_core.tables import (
    BIPARTITE,
    IMAGE,
    INITIALIZERS,
    LOOKUP_TABLES,
    MODES,
    PROFILER_CALLS,
    READER,
    READER_MODULE,
    REGULARIZERS,
    TRUNCATION,
    boolean,
    number,
)
from tfmodernize.names import name_nodes
from tfmodernize.syntax import is_none, source, top_level_index
from tfmodernize.tfsymbols import TFNames


@dataclass(frozen=True)
class ContribPlan:
    """What the call rewrites read of the codemod's plan of one file."""

    file: ContribFile  #: what the file binds and names
    names: TFNames  #: the file's TF names (the tree the codemod plans on is ``names.module``)
    text: str  #: the file's text
    calls: Mapping[int, cst.Call]  #: id(func) -> the call of it
    applied: Set[int]  #: the calls called at once (``l2_regularizer(s)(w)``'s inner call)
    #: The code naming TensorFlow's top level for an emitted name, ``v1`` for a TF1-only name.
    root: Callable[..., str]

    def outer(self, call: cst.Call) -> Optional[cst.Call]:
        """The call of ``call``'s result, when it is called at once."""
        return self.calls.get(id(call)) if id(call) in self.applied else None


@dataclass(frozen=True)
class Rewrite:
    """A call's replacement: ``code`` (``{argument}`` for an argument's source), the fix message."""

    code: str
    message: str
    #: the comment ending its line
    why: Optional[str] = None
    #: why it is exact only if a value is what it usually is (an unsafe fix)
    unsafe: Optional[str] = None
    #: the call applying a regularizer at once, which ``code`` replaces instead (``{scale}``: the
    #: regularizer's scale, ``{weights}``: what it is applied to)
    applied: Optional[cst.Call] = None

    @property
    def fix_message(self) -> str:
        return self.message if self.unsafe is None else f"{self.message}; {self.unsafe}"


def rewrite(plan: ContribPlan, call: cst.Call, found: str, args: dict) -> Rewrite:
    """The rewrite of ``call`` of the contrib function ``found`` (its ``args`` by parameter)."""
    if found in INITIALIZERS:
        return _initializer(plan, call, found, args)
    if found in REGULARIZERS:
        return _regularizer(plan, call, found, args)
    if found == "contrib.layers.dropout":
        return _dropout(plan, call, args)
    if found == BIPARTITE:
        return _bipartite(plan, call, args)
    if found == READER:
        return _reader(plan, call, args)
    if found in LOOKUP_TABLES:
        return _lookup_table(plan, call, found, args)
    if found in PROFILER_CALLS:
        return _profiler(plan, call, found, args)
    return _accuracy(plan, call, args)


def _named_only(plan: ContribPlan, call: cst.Call, args: dict, *names: str) -> None:
    for name in names:
        if not is_none(args.get(name)) and plan.file.by_name:
            raise Decline(
                call,
                f"its `{name}` names its ops, and the file reads graph elements by name: "
                "the core ops are named otherwise",
            )


def _initializer(plan: ContribPlan, call: cst.Call, found: str, args: dict) -> Rewrite:
    if plan.file.float64:
        raise Decline(
            call,
            "the file names float64: contrib computed the limit or standard deviation in another "
            "float64 order than core, which differs in the last place for some shapes; replace it "
            "by hand if your weights are float32",
        )
    if "partitioner" in plan.text:
        raise Decline(
            call,
            "the file partitions variables: core's initializer reads the whole variable's shape, contrib's the part's",
        )
    uniform = boolean(args.get("uniform"), found != "contrib.layers.variance_scaling_initializer")
    if uniform is None:
        raise Decline(call, "`uniform` is not True or False written out: the distribution is decided by it")
    dtype = args.get("dtype")
    extra = "".join(
        f", {name}={{{name}}}"
        for name in ("seed", "dtype")
        if not is_none(args.get(name)) and not (name == "dtype" and plan.names.is_tf(dtype, "float32"))
    )
    if found == "contrib.layers.variance_scaling_initializer":
        factor = args.get("factor")
        value = 2.0 if factor is None else plan.file.constant(factor)
        if value is None or value <= 0:
            raise Decline(call, "`factor` is not a positive number written out (or a module constant bound to one)")
        factor_code = "2.0" if factor is None else "{factor}"
        mode = args.get("mode")
        mode_name = "FAN_IN" if mode is None else (mode.evaluated_value if isinstance(mode, cst.SimpleString) else None)
        if mode_name not in MODES:
            raise Decline(call, "`mode` is not 'FAN_IN', 'FAN_OUT' or 'FAN_AVG' written out")
        mode_code = MODES[mode_name]
    else:
        value, factor_code, mode_code = 1.0, "1.0", "fan_avg"
    v1 = plan.root(v1=True)
    what = f"tf.{found} draws what"
    if uniform and value == 1.0 and mode_code == "fan_avg":
        return Rewrite(
            f"{v1}.glorot_uniform_initializer({extra[2:]})",
            f"{what} tf.glorot_uniform_initializer draws: uniform in ±sqrt(3 / ((fan_in + fan_out) / 2))",
        )
    if uniform:
        return Rewrite(
            f'{v1}.variance_scaling_initializer(scale={factor_code}, mode="{mode_code}", '
            f'distribution="uniform"{extra})',
            f"{what} tf.variance_scaling_initializer draws: uniform in ±sqrt(3 * factor / n)",
        )
    if factor_code == "1.0":
        scale = f"1.3 * {TRUNCATION} ** 2"
    elif isinstance(args.get("factor"), cst.UnaryOperation):
        scale = f"({factor_code}) * 1.3 * {TRUNCATION} ** 2"
    else:
        scale = f"{factor_code} * 1.3 * {TRUNCATION} ** 2"
    return Rewrite(
        f'{v1}.variance_scaling_initializer(scale={scale}, mode="{mode_code}", distribution="truncated_normal"{extra})',
        f"{what} tf.variance_scaling_initializer draws with this scale: a truncated normal of stddev "
        "sqrt(1.3 * factor / n)",
        why=f"# contrib's stddev sqrt(1.3 * factor / n) as core's sqrt(scale / n) / {TRUNCATION}",
    )


def _regularizer(plan: ContribPlan, call: cst.Call, found: str, args: dict) -> Rewrite:
    scale = args.get("scale")
    if scale is None:
        raise Decline(call, "its scale is not passed")
    value = plan.file.constant(scale)
    unsafe = None
    if value is None and plan.file.read_as_it_was(scale):
        # ``l2_regularizer(weight_decay)``: the same unless the scale is 0 when the regularizer is made.
        unsafe = (
            "exact unless the scale is 0 where the regularizer is made: contrib then made a regularizer "
            "returning None, so no loss was added to the regularization losses"
        )
        value = 1.0
    elif value is None and not isinstance(scale, (cst.Integer, cst.Float, cst.UnaryOperation, cst.SimpleString)):
        raise Decline(
            call,
            "its scale is computed, or read from a name bound more than once: contrib read it when "
            "the regularizer was made, a lambda would read it when the regularizer is applied; "
            "bind it to a name once",
        )
    if value is None or isinstance(value, (int, bool)) or value < 0:
        raise Decline(call, "its scale is not a float of 0 or more: contrib raised ValueError for it")
    _named_only(plan, call, args, "scope")
    tf = plan.root(v1=False)
    loss = REGULARIZERS[found]
    short = found.rpartition(".")[2]
    outer = plan.outer(call)
    if value == 0:
        if outer is not None:
            raise Decline(call, "a scale of 0 makes no regularizer (None): applied at once, it is None")
        return Rewrite("lambda _: None", f"tf.{found} of scale 0 makes a regularizer returning None")
    if outer is not None:
        # ``l2_regularizer(scale)(w)`` -> ``scale * tf.nn.l2_loss(w)``
        if len(outer.args) != 1 or outer.args[0].keyword is not None or outer.args[0].star:
            raise Decline(call, "the regularizer is applied to other than one tensor")
        return Rewrite(
            f"{{scale}} * {loss.format(tf=tf, w='{weights}')}",
            f"tf.{found}(scale)(w) is scale * {loss.format(tf='tf', w='w')}",
            unsafe=unsafe,
            applied=outer,
        )
    parameter = "weights"
    while parameter in {n.value for n in name_nodes(scale)}:
        parameter += "_"
    code = f"lambda {parameter}: {{scale}} * {loss.format(tf=tf, w=parameter)}"
    return Rewrite(
        code,
        f"tf.{found}(scale) is scale * {loss.format(tf='tf', w='weights')}, what contrib's {short} computed",
        unsafe=unsafe,
    )


def _dropout(plan: ContribPlan, call: cst.Call, args: dict) -> Rewrite:
    if plan.file.dropout_values:
        raise Decline(
            call,
            "the file names contrib's dropout other than to call it (an arg_scope list?): an "
            "arg_scope listing it gives it the arguments (`keep_prob`, `is_training`) of the scopes "
            "it runs in",
        )
    if "inputs" not in args:
        raise Decline(call, "its input is not passed")
    training = boolean(args.get("is_training"), True)
    if training is None:
        raise Decline(
            call,
            "`is_training` is not True or False written out: contrib chose between dropout and "
            "the identity when the graph was built (a tf.cond for a tensor)",
        )
    for name in ("noise_shape", "outputs_collections"):
        if not is_none(args.get(name)):
            raise Decline(call, f"its `{name}` is not None")
    _named_only(plan, call, args, "scope")
    tf = plan.root(v1=False)
    if not training:
        return Rewrite(
            f"{tf}.identity({{inputs}})", "tf.contrib.layers.dropout(x, is_training=False) is tf.identity(x)"
        )
    keep = args.get("keep_prob")
    if keep is None:
        rate = "0.5"
    else:
        rate = (
            "1 - {keep_prob}"
            if not isinstance(
                keep, (cst.BinaryOperation, cst.BooleanOperation, cst.IfExp, cst.Lambda, cst.UnaryOperation)
            )
            or keep.lpar
            else "1 - ({keep_prob})"
        )
    seed = "" if is_none(args.get("seed")) else ", seed={seed}"
    return Rewrite(
        f"{tf}.nn.dropout({{inputs}}, rate={rate}{seed})",
        "tf.contrib.layers.dropout(x, keep_prob) is tf.nn.dropout(x, rate=1 - keep_prob), the op its layer ran",
    )


def _accuracy(plan: ContribPlan, call: cst.Call, args: dict) -> Rewrite:
    if not is_none(args.get("weights")):
        raise Decline(
            call,
            "it is given `weights`: contrib's weighted accuracy reads them twice; write "
            "tf.reduce_sum(correct * weights) / tf.reduce_sum(weights * tf.ones_like(correct))",
        )
    if "predictions" not in args or "labels" not in args:
        raise Decline(call, "its predictions or labels are not passed")
    _named_only(plan, call, args, "name")
    tf = plan.root(v1=False)
    return Rewrite(
        f"{tf}.reduce_mean({tf}.cast({tf}.equal({{predictions}}, {{labels}}), {tf}.float32))",
        "tf.contrib.metrics.accuracy is the mean of the float32 cast of equal(predictions, labels)",
    )


def _lookup_table(plan: ContribPlan, call: cst.Call, found: str, args: dict) -> Rewrite:
    """contrib's ``index_table_from_tensor(mapping)`` / ``index_to_string_table_from_tensor``
    -> the ``StaticHashTable`` of a ``KeyValueTensorInitializer`` TF1's ``lookup_ops`` made:
    the vocabulary and its int64 positions (``tf.range`` of its size), either way round."""
    mapping = args.get("mapping")
    if mapping is None:
        raise Decline(call, "its mapping is not passed")
    if not _readable_twice(mapping):
        raise Decline(
            call,
            "its mapping is computed in the call, and the table reads it twice (its keys and "
            "their number): bind it to a name first",
        )
    _named_only(plan, call, args, "name")
    tf = plan.root(v1=False)
    positions = f"{tf}.range({tf}.size({{mapping}}, out_type={tf}.int64))"
    default = args.get("default_value")
    if found.endswith("index_to_string_table_from_tensor"):
        value = '"UNK"' if default is None else "{default_value}"
        return Rewrite(
            f"{tf}.lookup.StaticHashTable({tf}.lookup.KeyValueTensorInitializer({positions}, "
            f"{{mapping}}, value_dtype={tf}.string), {value})",
            "tf.contrib.lookup.index_to_string_table_from_tensor is the StaticHashTable of "
            "positions -> strings it made",
        )
    buckets = args.get("num_oov_buckets")
    if buckets is not None and number(buckets) != 0:
        raise Decline(
            call,
            "its num_oov_buckets is not 0: out-of-vocabulary keys are hashed to extra ids; "
            "write tf.lookup.StaticVocabularyTable by hand",
        )
    if args.get("hasher_spec") is not None:
        raise Decline(call, "its hasher_spec is passed")
    dtype = args.get("dtype")
    if dtype is not None and not plan.names.is_tf(dtype, "string"):
        raise Decline(
            call,
            "its dtype is not tf.string: contrib cast integer vocabularies to int64",
        )
    value = "-1" if default is None else "{default_value}"
    return Rewrite(
        f"{tf}.lookup.StaticHashTable({tf}.lookup.KeyValueTensorInitializer({{mapping}}, "
        f"{positions}, key_dtype={tf}.string), {value})",
        "tf.contrib.lookup.index_table_from_tensor is the StaticHashTable of its positions",
    )


def _bipartite(plan: ContribPlan, call: cst.Call, args: dict) -> Rewrite:
    """``bipartite_match(d, n, top_k)`` -> the same call of the function written into the
    file (``bipartite_match.py``; the codemod writes it once a call is replaced)."""
    other = plan.file.other_name(IMAGE, BIPARTITE)
    if other is not None:
        raise Decline(
            call,
            f"the file also uses `{source(other)}` of tf.contrib.image, which tfmodernize "
            "does not rewrite, so its contrib import stays and the file still fails on TF 2.x: "
            "replace that (tf.image, tf.raw_ops.ImageProjectiveTransformV3, "
            "tensorflow-addons' image ops) and run again",
        )
    if "distance_mat" not in args or "num_valid_rows" not in args:
        raise Decline(call, "its distance matrix or number of valid rows is not passed")
    index = top_level_index(plan.names.module, call)
    if index is not None and index < plan.file.written_place:
        raise Decline(
            call,
            "it is called before the file's imports end, where the function written in its "
            "place would go: move the call below them and run again",
        )
    _named_only(plan, call, args, "name")
    top_k = "" if args.get("top_k") is None else ", top_k={top_k}"
    name = plan.file.written_name("bipartite_match")
    return Rewrite(
        f"{name}({{distance_mat}}, {{num_valid_rows}}{top_k})",
        f"tf.{BIPARTITE}, a C++ kernel no TF 2.x has, is the file's own `{name}` now: the "
        "same greedy matching in TensorFlow ops (equal distances taken in row-major order)",
    )


def _reader(plan: ContribPlan, call: cst.Call, args: dict) -> Rewrite:
    """``reader.read_saved_model(dir)`` -> the same call of the function written into the file
    (``saved_model_reader.py``; the codemod writes it once a call is replaced)."""
    other = plan.file.other_name(READER_MODULE, READER)
    if other is not None:
        raise Decline(
            call,
            f"the file also uses `{source(other)}` of tf.contrib.saved_model, which tfmodernize "
            "does not rewrite, so its contrib import stays and the file still fails on TF 2.x: "
            "replace that (tf.saved_model) and run again",
        )
    clash = plan.file.clashes(saved_model_reader.IMPORTS)
    if clash:
        raise Decline(
            call,
            f"the file names `{clash[0]}` itself, which the function written in its place "
            "imports: rename it and run again",
        )
    if "saved_model_dir" not in args:
        raise Decline(call, "its SavedModel folder is not passed")
    index = top_level_index(plan.names.module, call)
    if index is not None and index < plan.file.written_place:
        raise Decline(
            call,
            "it is called before the file's imports end, where the function written in its "
            "place would go: move the call below them and run again",
        )
    name = plan.file.written_name("read_saved_model")
    return Rewrite(
        f"{name}({{saved_model_dir}})",
        f"tf.contrib.saved_model's read_saved_model, which no TF 2.x exports, is the file's own "
        f"`{name}` now: the same parsing of saved_model.pb (else saved_model.pbtxt) into the "
        "SavedModel proto",
    )


def _profiler(plan: ContribPlan, call: cst.Call, found: str, args: dict) -> Rewrite:
    """contrib.tfprof's ``print_model_analysis`` / ``advise``: deprecated wrappers passing their
    arguments on to ``tf.profiler.profile`` / ``advise`` -> those, the arguments renamed."""
    if "graph" not in args:
        raise Decline(call, "its graph is not passed")
    target, parameters = PROFILER_CALLS[found]
    passed = []
    for name, core in parameters.items():
        if name in args:
            passed.append(f"{{{name}}}" if core is None else f"{core}={{{name}}}")
    short = found.rpartition(".")[2]
    return Rewrite(
        f"{plan.root(v1=True)}.{target}({', '.join(passed)})",
        f"tf.{found} passed its arguments on to tf.{target}, which TF 2.x keeps "
        f"(tf.compat.v1.{target}): called with them (contrib's `{short}` was a deprecated wrapper)",
    )


def _string(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.SimpleString)


def _readable_twice(node: cst.BaseExpression) -> bool:
    """A (dotted) name, or a list or tuple of string literals: read twice, the same value."""
    if isinstance(node, (cst.List, cst.Tuple)):
        return all(isinstance(e, cst.Element) and _string(e.value) for e in node.elements)
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name)
