"""tf-slim's ``batch_norm`` written into the file that uses it, in TensorFlow's own ops.

tf-slim 1.1's ``batch_norm`` does not run on TensorFlow 2.21 as a user installs it: it loads
TF1's layer classes through ``tf_keras.legacy_tf_layers`` (tf-keras 2.16+ keeps them under
``src``), and its fused path reads ``ops.Tensor`` and ``control_flow_ops.cond``, both gone.
``HELPER`` is the same function (arguments, variables, update ops, numbers) written with
``tf.compat.v1`` ops only; contrib-to-slim writes it once after a file's imports and points the
file's references to ``batch_norm`` at it, and at need the wrappers that make tf-slim's nets use
it: their arg scopes (``SCOPE_HELPER``) and the nets calling batch_norm themselves
(``NET_HELPER``).

tf-slim computes a batch normalization one of three ways, and the helper follows each:

* through Keras's TF1 ``BatchNormalization`` layer (the default ``updates_collections``, an
  input of rank other than 2 or ``fused=False``): ``gamma`` is made before ``beta``, the
  layer adds no update op to the collection when it is not trainable, and its fused kernel
  takes ``1 - decay`` in float32;
* its own fused code (a rank-2 input, viewed as ``[N, 1, 1, C]``, or a rank-4 one with other
  ``updates_collections``, ``None`` forcing the updates): ``beta`` first, regularizers kept;
* its own moments (the rest): ``beta`` first, ``param_regularizers`` ignored.

A fused batch norm moves the moving variance towards the unbiased batch variance, the moments
towards the biased one. ``zero_debias_moving_mean`` moves the moving mean as tf-slim's own code
does (never the layer): through a biased average and a step count made beside it, divided by
``1 - decay ** step``. ``batch_weights`` and ``adjustment`` are not reproduced (a file passing
one is declined, ``UNREPRODUCED``), nor batch renormalization: the helper takes ``renorm`` and
raises when it is true (TF 1.15's renorm kept ``renorm_mean_weight``/``renorm_stddev_weight``
variables, tf-keras's, which tf-slim reaches today, a ``moving_stddev``: two different
computations, neither provable against the other here).
"""

from __future__ import annotations

from string import Template

import libcst as cst

from tfmodernize.syntax import source
from tfmodernize.tfsymbols import dotted_name
from tfmodernize.treewalk import walk
from tfmodernize.written_code import template_statements

#: tf-slim's batch_norm arguments a call of it drops when it passes their default (None: any
#: value, one that matters only with ``renorm``): the helper's own default.
DROPPED = {
    "batch_weights": "None",
    "zero_debias_moving_mean": "False",
    "renorm": "False",
    "renorm_clipping": None,
    "renorm_decay": None,
    "adjustment": "None",
}
#: The arguments the helper does not take: any other value, in any call or as a dict key, keeps
#: the file on tf.contrib.
UNREPRODUCED = ("batch_weights", "adjustment")
#: The argument the helper takes but computes only at its default, ``False`` (it raises
#: otherwise): ``True`` written out keeps the file on tf.contrib, a value known only when the
#: program runs gets a finding.
RENORM = "renorm"

#: The helper, in four-space indentation units (continuation lines included), written for a
#: file whose ``tensorflow.compat.v1`` is ``$tf`` and whose ``tf_slim`` is ``$slim``.
HELPER = Template('''\
def $name(
        inputs, decay=0.999, center=True, scale=False, epsilon=0.001,
        activation_fn=None, param_initializers=None, param_regularizers=None,
        updates_collections=$tf.GraphKeys.UPDATE_OPS, is_training=True,
        reuse=None, variables_collections=None, outputs_collections=None,
        trainable=True, fused=None, data_format="NHWC", scope=None,
        zero_debias_moving_mean=False, renorm=False, renorm_clipping=None,
        renorm_decay=0.99):
    """tf-slim's batch_norm, which does not run on TensorFlow 2.21 (it needs
    tf-keras's TF1 layers): the same arguments, variables, update ops and
    numbers, in TensorFlow ops (batch renormalization aside). Written here by
    tfmodernize; move it to a module your files share."""
    if renorm:
        raise ValueError(
            "batch renormalization is not written here: normalize with "
            "tf.keras.layers.BatchNormalization(renorm=True) instead")
    inputs = $tf.convert_to_tensor(inputs)
    rank, nchw = inputs.shape.ndims, data_format == "NCHW"
    # As tf-slim: through its Keras layer (gamma made first) unless the
    # updates are forced, the moving mean debiased or the input has rank 2;
    # fused for rank 2 and 4 (and 5 in the layer), which moves the moving
    # variance to the unbiased one.
    default_updates = updates_collections == $tf.GraphKeys.UPDATE_OPS
    layer = default_updates and not zero_debias_moving_mean and not (
        fused is not False and rank == 2)
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

            def debiased(average, value):
                # (the biased average and the step count, made on its first
                # update in a variable scope named after it)
                kind = average.dtype.base_dtype
                with $tf.variable_scope(average.op.name):
                    scope = $tf.get_variable_scope()
                    taken = [v.op.name for v in scope.global_variables()]

                    def unique(name, index=0):
                        new = name + ("_%d" % index if index else "")
                        if scope.reuse or scope.name + "/" + new not in taken:
                            return new
                        return unique(name, index + 1)

                    # (tf-slim's moments make every variable a model one)
                    make = $tf.get_variable if fused else $slim.model_variable
                    biased = make(
                        unique("biased"), shape=average.shape, dtype=kind,
                        initializer=$tf.zeros_initializer(), trainable=False)
                    step = make(
                        unique("local_step"), shape=[], dtype=kind,
                        initializer=$tf.zeros_initializer(), trainable=False)
                factor = $tf.cast(rate, kind)
                biased = $tf.assign_sub(biased, (biased - value) * factor)
                step = step.assign_add(1)
                return $tf.assign(
                    average, biased / (1 - $tf.pow(1.0 - factor, step)))

            def update():
                if zero_debias_moving_mean:
                    new_mean = debiased(moving_mean, mean)
                else:
                    new_mean = $tf.assign_sub(
                        moving_mean, (moving_mean - mean) * rate)
                return new_mean, $tf.assign_sub(
                    moving_variance, (moving_variance - variance) * rate)

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


#: tf-slim's nets' arg-scope functions, which make tf-slim's batch_norm the normalizer of their
#: layers (by where they are defined): a file naming one gets ``SCOPE_HELPER`` too, and names
#: it through it (``with_batch_norm(resnet_utils.resnet_arg_scope)``).
ARG_SCOPES = frozenset(
    {
        "tf_slim.nets.resnet_utils.resnet_arg_scope",
        "tf_slim.nets.inception_v1.inception_v1_arg_scope",
        "tf_slim.nets.inception_v2.inception_v2_arg_scope",
        "tf_slim.nets.inception_v3.inception_v3_arg_scope",
    }
)

#: A net's arg-scope function, its scope's normalizer the batch_norm ``$norm`` written in the
#: file where it was tf-slim's (``$slim.batch_norm``).
SCOPE_HELPER = Template('''\
def $name(scope_function):
    """tf-slim's arg-scope function ``scope_function``, normalizing with the
    batch_norm written above where it named tf-slim's, which does not run on
    TensorFlow 2.21. Written here by tfmodernize."""

    def scope(*args, **kwargs):
        return {
            key: {
                argument: $norm if value is $slim.batch_norm else value
                for argument, value in arguments.items()}
            for key, arguments in scope_function(*args, **kwargs).items()}

    return scope
''')


#: tf-slim's nets that call its batch_norm themselves, not through an arg scope (by where they
#: are defined): resnet v2's pre-activation units and its last normalization. A file naming one
#: gets ``NET_HELPER`` too, and names it through it
#: (``net_with_batch_norm(resnet_v2.resnet_v2_50)``).
NETS = frozenset(
    {
        "tf_slim.nets.resnet_v2.bottleneck",
        "tf_slim.nets.resnet_v2.resnet_v2",
        "tf_slim.nets.resnet_v2.resnet_v2_50",
        "tf_slim.nets.resnet_v2.resnet_v2_101",
        "tf_slim.nets.resnet_v2.resnet_v2_152",
        "tf_slim.nets.resnet_v2.resnet_v2_200",
    }
)

#: A net of tf-slim's calling its batch_norm (``NETS``), which calls the batch_norm ``$norm``
#: written in the file instead while it builds: tf-slim's nets read ``batch_norm`` off its layers
#: module (``$slim.layers``, the module ``tf_slim.layers.layers``) when they call it, so it is
#: put there for the call and tf-slim's put back after. The net's attributes (its arg-scope key,
#: ``default_image_size``) carry over, so ``arg_scope([...])`` lists it as before.
NET_HELPER = Template('''\
def $name(net):
    """tf-slim's net ``net``, which calls tf-slim's batch_norm itself (that
    batch_norm does not run on TensorFlow 2.21), building with the batch_norm
    written above instead. Written here by tfmodernize."""

    def build(*args, **kwargs):
        # (tf-slim's nets read batch_norm off its layers module as they build)
        slim_layers = $slim.layers
        theirs, slim_layers.batch_norm = slim_layers.batch_norm, $norm
        try:
            return net(*args, **kwargs)
        finally:
            slim_layers.batch_norm = theirs

    build.__dict__.update(net.__dict__)  # (its arg-scope key, default_image_size)
    return build
''')


def helper_statements(
    name: str,
    tf: str,
    slim: str,
    module: cst.Module,
    scope: "str | None" = None,
    net: "str | None" = None,
) -> list[cst.CSTNode]:
    """The helper as top-level statements of ``module`` (its indentation, its newlines), and the
    ``SCOPE_HELPER`` named ``scope`` and the ``NET_HELPER`` named ``net`` after it, if asked for."""
    statements = template_statements(HELPER, module, name=name, tf=tf, slim=slim)
    if scope is not None:
        statements += template_statements(SCOPE_HELPER, module, name=scope, tf=tf, slim=slim, norm=name)
    if net is not None:
        statements += template_statements(NET_HELPER, module, name=net, slim=slim, norm=name)
    return statements


def unreproduced_arguments(
    module: cst.Module, references: set[int], aliases: frozenset[str] = frozenset()
) -> tuple[list[tuple[cst.Call, set[str]]], list[tuple[cst.CSTNode, str]], list[tuple[cst.CSTNode, str]]]:
    """The calls of batch_norm (``references``: the ids of the expressions naming it, or a name
    of ``aliases``, bound to it) passing ``DROPPED`` arguments at their default, and which; the
    places passing an ``UNREPRODUCED`` argument or ``renorm=True`` (any call's keyword, a dict's
    key): (node, argument); and those passing ``renorm`` a value known only when run."""
    dropped: dict[int, tuple[cst.Call, set[str]]] = {}
    kept, unknown = [], []
    for node in walk(module, code_only=True):
        if isinstance(node, cst.Call):
            called = id(node.func) in references or (isinstance(node.func, cst.Name) and node.func.value in aliases)
            for arg in node.args:
                if arg.keyword is None:
                    continue
                name = arg.keyword.value
                if called and name in DROPPED and DROPPED[name] in (None, source(arg.value)):
                    dropped.setdefault(id(node), (node, set()))[1].add(name)
                else:
                    _passed(arg, name, arg.value, kept, unknown)
        elif isinstance(node, cst.DictElement) and isinstance(node.key, cst.SimpleString):
            _passed(node, node.key.evaluated_value, node.value, kept, unknown)
    return list(dropped.values()), kept, unknown


def _passed(node: cst.CSTNode, name: object, value: cst.BaseExpression, kept: list, unknown: list) -> None:
    """Adds ``node`` passing ``name`` ``value`` to ``kept`` (the helper does not reproduce it) or
    to ``unknown`` (``renorm`` not written out)."""
    if name in UNREPRODUCED or (name == RENORM and source(value) == "True"):
        kept.append((node, name))
    elif name == RENORM and source(value) != "False":
        unknown.append((node, name))


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
