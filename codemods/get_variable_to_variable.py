"""TFM106 get-variable-to-variable.

What it does
    Turns ``v = tf.get_variable(name, shape, dtype, initializer=...)`` made at a program's top
    level, outside any ``variable_scope``, into ``v = tf.Variable(<initial value>, name=name)``
    when the initial value is one TF1 computed without randomness: the default initializer of
    an integer or boolean variable (zeros), ``tf.zeros_initializer()``,
    ``tf.ones_initializer()`` or ``tf.constant_initializer(c)``; or, without a shape, the tensor
    given as ``initializer=`` (``tf.constant(0.0)``), which TF1 used as the initial value as
    ``tf.Variable`` does. ``dtype`` and ``trainable`` are kept.

Why it matters
    ``tf.get_variable`` is TF1-only (its variable store lives in the graph): a program using it
    stays on ``tf.compat.v1``. Outside a variable scope it just creates one named variable.

Before
    counter = tf.get_variable("counter", shape=[], dtype=tf.int32, initializer=None)
    bias = tf.get_variable("bias", [3], initializer=tf.constant_initializer(0.1))
    scale = tf.get_variable("scale", initializer=tf.constant(2.0))

After
    counter = tf.Variable(tf.zeros([], dtype=tf.int32), name="counter")
    bias = tf.Variable(tf.fill([3], tf.constant(0.1, dtype=tf.float32)), name="bias")
    scale = tf.Variable(tf.constant(2.0), name="scale")

Fix safety
    Same name, shape, dtype, trainability and initial value: these initializers draw no random
    numbers, so the values are those TF1 computed; a tensor initial value is computed by the
    same op, in the same place of the program's random-op order.

Declines when
    the call is inside a ``variable_scope`` (sharing and reuse are the variable-scopes
    migration's), inside a function, or not ``name = tf.get_variable(...)`` on its own line; the
    initializer is random (the default for floating variables is Glorot uniform: TF2 draws other
    numbers) or not a literal call; the shape or name is not written out; it passes a
    regularizer, collections, a partitioner or another option with no ``tf.Variable``
    equivalent.
"""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from tfmodernize.codemods._tf1_api import VARIABLE_SCOPES
from tfmodernize.codemod import Decline, TFCodemod
from tfmodernize.names import own_nodes
from tfmodernize.syntax import is_none, source, statement_of
from tfmodernize.treewalk import walk

#: get_variable's parameters in order, and those that must be absent or None.
PARAMETERS = ("name", "shape", "dtype", "initializer", "regularizer", "trainable", "collections",
              "caching_device", "partitioner", "validate_shape", "use_resource", "custom_getter",
              "constraint", "synchronization", "aggregation")
NONE_ONLY = ("regularizer", "collections", "caching_device", "partitioner", "use_resource",
             "custom_getter", "constraint", "synchronization", "aggregation")
INTEGER = re.compile(r"u?int\d+|bool")


class GetVariableToVariable(TFCodemod):
    __doc__ = __doc__
    code = "TFM106"
    name = "get-variable-to-variable"
    summary = "tf.get_variable outside any variable_scope, with a deterministic initializer -> tf.Variable"
    needles = ("get_variable",)
    interests = (cst.Call,)
    detects = ("get_variable",)
    requires_tf2 = True

    def plan(self, module: cst.Module) -> None:
        top = {id(n) for n in own_nodes(module) if isinstance(n, cst.SimpleStatementLine)}
        parents = self.state.parents(module)
        for node in walk(module, code_only=True):
            if isinstance(node, cst.Call) and self.tf.is_tf(node.func, "get_variable"):
                try:
                    self._migrate(node, top, parents)
                except Decline as decline:
                    self.declined(decline, "tf.get_variable not migrated: ")

    def _migrate(self, call: cst.Call, top: set[int], parents: dict) -> None:
        bound, statement = statement_of(call, parents) or (None, None)
        if statement is not None and id(statement) not in top:
            raise Decline(call, "it is made inside a function, where get_variable creates or reuses a variable each "
                                "call (with the variable_scope around the call): the variable-scopes migration's")
        if bound is None:
            raise Decline(call, "it is not `name = tf.get_variable(...)` on a line of its own")
        node = parents.get(id(statement))
        while node is not None:
            if isinstance(node, cst.With) and any(isinstance(item.item, cst.Call) and self.tf.is_tf(item.item.func, *VARIABLE_SCOPES)
                                                  for item in node.items):
                raise Decline(call, "it is made inside a variable_scope (sharing and reuse): the variable-scopes migration's")
            node = parents.get(id(node))
        args = self._arguments(call)
        name, shape, initializer = args.get("name"), args.get("shape"), args.get("initializer")
        # ``initializer=<a tensor>`` and no shape: the tensor is the initial value, as in tf.Variable.
        from_tensor = is_none(shape) and self._is_tensor(initializer)
        if not isinstance(name, cst.SimpleString) or not from_tensor and not isinstance(shape, (cst.List, cst.Tuple)):
            raise Decline(call, "its name is not a literal string or its shape not a literal list")
        for option in NONE_ONLY:
            if option in args and not is_none(args[option]):
                raise Decline(call, f"it passes `{option}`, which tf.Variable has no equivalent of")
        dtype = args.get("dtype")
        dtype_path = self.tf.tf_symbol(dtype).path if dtype is not None and self.tf.tf_symbol(dtype) else None
        if dtype is not None and dtype_path is None:
            raise Decline(call, "its dtype is not a tf dtype written out")
        keywords = [("name", name)]  # the dtype is the initial value's
        if from_tensor:
            initial = source(initializer)
            if dtype is not None:
                keywords.append(("dtype", dtype))
        else:
            initial = self._initial_value(call, initializer, shape, dtype_path or "float32")
        if not self.fix(call, "tf.get_variable outside any variable scope -> tf.Variable with the same initial value"):
            return
        trainable = args.get("trainable")
        if trainable is not None and not (isinstance(trainable, cst.Name) and trainable.value == "True"):
            keywords.append(("trainable", trainable))
        text = ", ".join([initial, *(f"{key}={source(value)}" for key, value in keywords)])
        self.replace(call, cst.parse_expression(f"{source(self.tf_expr('Variable'))}({text})"))

    def _is_tensor(self, initializer: Optional[cst.BaseExpression]) -> bool:
        """A TF op call making a tensor (``tf.constant(0.0)``, ``tf.random_normal([2])``), not an
        initializer object (``tf.zeros_initializer()``, ``tf.initializers.ones()``)."""
        if not isinstance(initializer, cst.Call):
            return False
        symbol = self.tf.tf_symbol(initializer.func)
        if symbol is None:
            return False
        path = symbol.path
        return not (path.endswith("_initializer") or path.startswith(("initializers.", "keras.initializers.")))

    @staticmethod
    def _arguments(call: cst.Call) -> dict[str, cst.BaseExpression]:
        found: dict[str, cst.BaseExpression] = {}
        for position, arg in enumerate(call.args):
            if arg.star or (arg.keyword is None and position >= len(PARAMETERS)):
                raise Decline(call, "its arguments could not be read")
            key = arg.keyword.value if arg.keyword is not None else PARAMETERS[position]
            if key not in PARAMETERS:
                raise Decline(call, f"`{key}` is not a tf.get_variable argument")
            found[key] = arg.value
        return found

    def _initial_value(self, call: cst.Call, initializer: Optional[cst.BaseExpression], shape: cst.BaseExpression,
                       dtype: str) -> str:
        """The code of the initial value TF1's initializer computed, without randomness."""
        tf = source(self.tf_expr("zeros")).rsplit(".", 1)[0]
        dtype_code = f"{tf}.{dtype}"
        if is_none(initializer):
            if INTEGER.fullmatch(dtype):
                return f"{tf}.zeros({source(shape)}, dtype={dtype_code})"
            raise Decline(call, "its default initializer is Glorot uniform, random numbers TF2 draws differently")
        if not isinstance(initializer, cst.Call):
            raise Decline(call, "its initializer is not written as a call here")
        symbol = self.tf.tf_symbol(initializer.func)
        path = symbol.path if symbol is not None else ""
        if path in ("zeros_initializer", "initializers.zeros") and not initializer.args:
            return f"{tf}.zeros({source(shape)}, dtype={dtype_code})"
        if path in ("ones_initializer", "initializers.ones") and not initializer.args:
            return f"{tf}.ones({source(shape)}, dtype={dtype_code})"
        if path in ("constant_initializer", "initializers.constant") and len(initializer.args) == 1 \
                and initializer.args[0].keyword in (None,) and isinstance(initializer.args[0].value, (cst.Integer, cst.Float, cst.UnaryOperation)):
            value = source(initializer.args[0].value)
            return f"{tf}.fill({source(shape)}, {tf}.constant({value}, dtype={dtype_code}))"
        raise Decline(call, f"its initializer `{source(initializer.func)}` is random or not one this migration maps")

