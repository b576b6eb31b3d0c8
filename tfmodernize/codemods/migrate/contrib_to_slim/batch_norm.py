"""tf-slim's ``batch_norm`` written into the file that uses it, in TensorFlow's own ops.

tf-slim 1.1's ``batch_norm`` does not run on TensorFlow 2.21 as a user installs it: it loads
TF1's layer classes through ``tf_keras.legacy_tf_layers`` (tf-keras 2.16+ keeps them under
``src``), and its fused path reads ``ops.Tensor`` and ``control_flow_ops.cond``, both gone.
``HELPER`` is the same function (arguments, variables, update ops, numbers) written with
``tf.compat.v1`` ops only; contrib-to-slim writes it once after a file's imports and points the
file's references to ``batch_norm`` at it.

tf-slim computes a batch normalization one of three ways, and the helper follows each:

* through Keras's TF1 ``BatchNormalization`` layer (the default ``updates_collections``, an
  input of rank other than 2 or ``fused=False``): ``gamma`` is made before ``beta``, the
  layer adds no update op to the collection when it is not trainable, and its fused kernel
  takes ``1 - decay`` in float32;
* its own fused code (a rank-2 input, viewed as ``[N, 1, 1, C]``, or a rank-4 one with other
  ``updates_collections``, ``None`` forcing the updates): ``beta`` first, regularizers kept;
* its own moments (the rest): ``beta`` first, ``param_regularizers`` ignored.

A fused batch norm moves the moving variance towards the unbiased batch variance, the moments
towards the biased one. The arguments tf-slim has beyond these (``batch_weights``,
``renorm``...) are not reproduced: a file passing one is declined (``UNREPRODUCED``).
"""

from __future__ import annotations

from string import Template

import libcst as cst

from tfmodernize.syntax import source
from tfmodernize.tfsymbols import dotted_name
from tfmodernize.treewalk import walk

#: tf-slim's batch_norm arguments the helper does not take, with their default: a call of it
#: passing the default drops it (None: any value, one that matters only with ``renorm``); any
#: other value, or the name as a dict key, keeps the file on tf.contrib.
UNREPRODUCED = {
    "batch_weights": "None",
    "zero_debias_moving_mean": "False",
    "renorm": "False",
    "renorm_clipping": None,
    "renorm_decay": None,
    "adjustment": "None",
}

#: The helper, in four-space indentation units (continuation lines included), written for a
#: file whose ``tensorflow.compat.v1`` is ``$tf`` and whose ``tf_slim`` is ``$slim``.
HELPER = Template('''\
def $name(inputs, decay=0.999, center=True, scale=False, epsilon=0.001,
        activation_fn=None, param_initializers=None, param_regularizers=None,
        updates_collections=$tf.GraphKeys.UPDATE_OPS, is_training=True,
        reuse=None, variables_collections=None, outputs_collections=None,
        trainable=True, fused=None, data_format="NHWC", scope=None):
    """tf-slim's batch_norm, which does not run on TensorFlow 2.21 (it needs
    tf-keras's TF1 layers): the same arguments, variables, update ops and
    numbers, in TensorFlow ops. Written here by tfmodernize; move it to a
    module your files share."""
    inputs = $tf.convert_to_tensor(inputs)
    rank, nchw = inputs.shape.ndims, data_format == "NCHW"
    # As tf-slim: through its Keras layer (gamma made first) unless the
    # updates are forced or the input has rank 2; fused for rank 2 and 4 (and
    # 5 in the layer), which moves the moving variance to the unbiased one.
    default_updates = updates_collections == $tf.GraphKeys.UPDATE_OPS
    layer = default_updates and not (fused is not False and rank == 2)
    fused = fused is not False and (rank in (2, 4) or rank == 5 and layer)
    dtype = inputs.dtype.base_dtype
    if dtype in ($tf.float16, $tf.bfloat16):
        dtype = $tf.float32
    channels = inputs.shape.as_list()[1 if nchw else -1]
    with $tf.variable_scope(scope, "BatchNorm", [inputs], reuse=reuse) as sc:

        def variable(name, initializer, trainable=trainable):
            collections = variables_collections
            if isinstance(collections, dict):
                collections = collections.get(name)
            regularizer = (param_regularizers or {}).get(name)
            return $slim.model_variable(
                name, [channels], dtype,
                initializer=(param_initializers or {}).get(name, initializer),
                regularizer=regularizer if layer or fused else None,
                collections=collections, trainable=trainable)

        beta = gamma = None
        if scale and layer:
            gamma = variable("gamma", $tf.ones_initializer())
        if center:
            beta = variable("beta", $tf.zeros_initializer())
        if scale and not layer:
            gamma = variable("gamma", $tf.ones_initializer())
        sc.set_partitioner(None)
        moving_mean = variable("moving_mean", $tf.zeros_initializer(), False)
        moving_variance = variable(
            "moving_variance", $tf.ones_initializer(), False)
        training = $tf.get_static_value(is_training)  # None: known when run

        def when_training(then, otherwise):
            if training is None:
                return $tf.cond(is_training, then, otherwise)
            return then() if training else otherwise()

        if fused:
            x = inputs
            if rank == 2:
                x = $tf.reshape(
                    x, [-1, channels, 1, 1] if nchw else [-1, 1, 1, channels])
            layout = data_format
            if rank == 5:
                layout = "NCDHW" if nchw else "NDHWC"
            offset = beta if center else $tf.constant(0.0, dtype, [channels])
            factor = gamma if scale else $tf.constant(1.0, dtype, [channels])
            outputs, mean, variance = when_training(
                lambda: $tf.nn.fused_batch_norm(
                    x, factor, offset, epsilon=epsilon, data_format=layout),
                lambda: $tf.nn.fused_batch_norm(
                    x, factor, offset, moving_mean, moving_variance, epsilon,
                    layout, is_training=False))
            outputs = $tf.reshape(outputs, $tf.shape(inputs))
        else:
            axes = [0] + list(range(2, rank)) if nchw else list(range(rank - 1))
            mean, variance = $tf.nn.moments(inputs, axes)

            def normalized(*statistics):
                # (the statistics of an NCHW input broadcast along its axis 1)
                shape = [-1] + [1] * (rank - 2) if nchw else [-1]
                return $tf.nn.batch_normalization(inputs, *[
                    None if t is None else $tf.reshape(t, shape)
                    for t in (*statistics, beta, gamma)], epsilon)

            outputs = when_training(
                lambda: normalized(mean, variance),
                lambda: normalized(moving_mean, moving_variance))
        if training is None or training:
            # (tf-slim's fused layer takes 1 - decay in float32, the rest not)
            rate = 1.0 - (
                $tf.convert_to_tensor(decay) if layer and fused else decay)

            def update():
                return (
                    $tf.assign_sub(moving_mean, (moving_mean - mean) * rate),
                    $tf.assign_sub(
                        moving_variance, (moving_variance - variance) * rate))

            if updates_collections is None:

                def updated():
                    with $tf.control_dependencies(update()):
                        return $tf.identity(outputs)

                outputs = when_training(updated, lambda: outputs)
            elif trainable or not layer:  # (a frozen layer adds no update op)
                for op in when_training(
                        update, lambda: (moving_mean, moving_variance)):
                    $tf.add_to_collections(updates_collections, op)
        outputs.set_shape(inputs.shape)
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return $slim.utils.collect_named_outputs(
            outputs_collections, sc.name, outputs)


# tf-slim's arg scopes of batch_norm, set in any module, hold for this one too.
$name._key_op = $slim.arg_scope_func_key($slim.batch_norm)
$name = $slim.add_arg_scope($name)
''')


def helper_source(name: str, tf: str, slim: str, indent: str = "    ") -> str:
    """The helper's code, named ``name``, for a file indented by ``indent``."""
    lines = []
    for line in HELPER.substitute(name=name, tf=tf, slim=slim).splitlines(keepends=True):
        stripped = line.lstrip(" ")
        units = (len(line) - len(stripped)) // 4
        lines.append(indent * units + stripped if stripped.strip() else line)
    return "".join(lines)


def helper_statements(name: str, tf: str, slim: str, module: cst.Module) -> list[cst.CSTNode]:
    """The helper as top-level statements of ``module`` (its indentation, its newlines)."""
    text = helper_source(name, tf, slim, module.default_indent)
    parsed = cst.parse_module(text, config=module.config_for_parsing)
    body = list(parsed.body)
    body[0] = body[0].with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine()])
    return body


def unreproduced_arguments(
    module: cst.Module, references: set[int]
) -> tuple[list[tuple[cst.Call, set[str]]], list[tuple[cst.CSTNode, str]]]:
    """The calls of batch_norm (``references``: the ids of the expressions naming it) passing
    ``UNREPRODUCED`` arguments they can drop, and which; and the other places naming one of them
    (any call's keyword, a dict's key): (node, argument)."""
    dropped: dict[int, tuple[cst.Call, set[str]]] = {}
    kept = []
    for node in walk(module, code_only=True):
        if isinstance(node, cst.Call):
            for arg in node.args:
                if arg.keyword is None or arg.keyword.value not in UNREPRODUCED:
                    continue
                default = UNREPRODUCED[arg.keyword.value]
                if id(node.func) in references and default in (None, source(arg.value)):
                    dropped.setdefault(id(node), (node, set()))[1].add(arg.keyword.value)
                else:
                    kept.append((arg, arg.keyword.value))
        elif isinstance(node, cst.DictElement) and isinstance(node.key, cst.SimpleString):
            if node.key.evaluated_value in UNREPRODUCED:
                kept.append((node, node.key.evaluated_value))
    return list(dropped.values()), kept


def without_keywords(call: cst.Call, names: set[str]) -> cst.Call:
    """``call`` without its keyword arguments ``names``."""
    args = [arg for arg in call.args if arg.keyword is None or arg.keyword.value not in names]
    if args and call.args[-1] is not args[-1]:
        args[-1] = args[-1].with_changes(comma=call.args[-1].comma)
    return call.with_changes(args=args)


def arg_scope_keys(module: cst.Module) -> set[int]:
    """The ids of the expressions an ``arg_scope([...], ...)`` call lists: the functions whose
    arguments it sets. tf-slim's batch_norm names them well there (it is never called), and its
    arg scopes hold for every ``HELPER`` too (they share its key)."""
    keys = set()
    for node in walk(module, code_only=True):
        if isinstance(node, cst.Call) and node.args and isinstance(node.args[0].value, (cst.List, cst.Tuple)):
            if (dotted_name(node.func) or "").rpartition(".")[2] == "arg_scope":
                keys.update(id(element.value) for element in node.args[0].value.elements)
    return keys
