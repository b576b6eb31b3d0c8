"""TFM106 get-variable-to-variable.

What it does
    Turns ``v = tf.get_variable(name, shape, dtype, initializer=...)`` made at a program's top
    level, outside any ``variable_scope``, into ``v = tf.Variable(<initial value>, name=name)``,
    the initial value being what TF1's initializer computed: the default of an integer or
    boolean variable (zeros), ``tf.zeros_initializer()``, ``tf.ones_initializer()`` or
    ``tf.constant_initializer([c])`` (zero without ``c``); the random op a random initializer ran
    (``tf.random_normal_initializer``, ``tf.truncated_normal_initializer``,
    ``tf.random_uniform_initializer`` with their distribution arguments, and the default of a
    floating variable, Glorot uniform, as ``tf.random.uniform(shape, -limit, limit)`` with the
    limit TF1 computed from the shape's fans, or, for a shape listing named sizes
    (``[n_input, n_hidden]``), that limit written out with ``math.sqrt`` over the fans, ``math``
    imported); or, without a shape, the tensor given as
    ``initializer=`` (``tf.constant(0.0)``), which TF1 used as the initial value as
    ``tf.Variable`` does. ``dtype`` and ``trainable`` are kept. An initializer bound to a name on
    a line of its own just before (``init = tf.truncated_normal_initializer(stddev=0.1)``) moves
    into the call and its line goes. The same holds in a helper, a module function making its
    variables on lines of its body, ``return tf.get_variable(...)`` (``def weight_variable(shape):
    ...``) or ``w = tf.get_variable(...)`` (a layer helper, ``def dense(x, n_in, n_out, name):``
    making its kernel and bias, their names read off a parameter when it may run more than once,
    in a file naming no ``reuse``), when every use of it in the run (this file, and the files of
    the run that import it: ``FileState.callers``) is a call in a program's top-level code
    outside any block, or in a module function (``fc_layer``, ``build``) on a line of its body or
    of its variable or name scopes opened by name alone, the function sharing nothing and itself
    called so, or run once at most (each call of it made new variables; layers-to-keras makes
    them once per object of the class it becomes).
    A line ``v = tf.get_variable(...)`` (or ``return tf.get_variable(...)``) of the body of a
    module function the program runs once at most is migrated as a top-level line is: the
    program whose whole graph is built in ``main()`` or ``train()``, called in one place from
    its ``__main__`` block (a condition may skip it; ``tf.app.run`` calling ``main`` counts),
    or from such a function, outside loops, ``with`` blocks, comprehensions and nested
    definitions, and used nowhere else in the run.
    The calls are read in the program as written.
    In a file sharing its networks' variables in the known shape (``analysis/variable_reuse``:
    ``def encoder(x, reuse=False):`` opening with ``if reuse:
    tf.get_variable_scope().reuse_variables()``, each ``reuse=True`` call in a ``with
    tf.variable_scope(tf.get_variable_scope()):`` block after the call that made them; or ``with
    tf.variable_scope("name") as scope: a = net(x); scope.reuse_variables(); b = net(y)``), a
    layer helper those networks call is migrated too, its variable scope ``with
    tf.variable_scope(name, reuse=None):`` (the whole body, scoping by a parameter; or
    ``reuse=tf.AUTO_REUSE`` when each call passes another literal name) dedented and
    its name joined to each variable's (``name=name + "/weights"``): network-function-to-module
    then makes each network a module and calls the first call's object at the reusing calls (an
    obligation: without it, nothing here is rewritten).

Why it matters
    ``tf.get_variable`` is TF1-only (its variable store lives in the graph): a program using it
    stays on ``tf.compat.v1``. Outside a variable scope it just creates one named variable.

Before
    counter = tf.get_variable("counter", shape=[], dtype=tf.int32, initializer=None)
    bias = tf.get_variable("bias", [3], initializer=tf.constant_initializer(0.1))
    kernel = tf.get_variable("kernel", [4, 2])
    noise = tf.get_variable("noise", [3], initializer=tf.random_normal_initializer(stddev=0.1))

After
    counter = tf.Variable(tf.zeros([], dtype=tf.int32), name="counter")
    bias = tf.Variable(tf.fill([3], tf.constant(0.1, dtype=tf.float32)), name="bias")
    kernel = tf.Variable(tf.random.uniform([4, 2], -1.0, 1.0, dtype=tf.float32), name="kernel")
    noise = tf.Variable(tf.random.normal([3], stddev=0.1, dtype=tf.float32), name="noise")

Fix safety
    Same name, shape, dtype, trainability and initial value. A deterministic initializer
    computes the same values; a random one is replaced by the very op its ``__call__`` ran
    (TF1's initializers call ``random_normal``/``truncated_normal``/``random_uniform`` with
    the same arguments), created in the same place of the program's random-op order, so it
    draws the same numbers wherever TF1's did (fixtures prove it under TensorFlow's
    deterministic random tool; a swapped creation order fails them). Glorot's limit is
    computed here from the written shape, by TF1's own formula, as a Python float as TF1 did;
    over named sizes, by the same Python arithmetic where the variable is made (the fans are
    integers, so their products are exact in any order).
    A helper's calls, all in top-level code outside any scope or reached from it through
    functions called so (or run once) in scopes opened by name alone, in a file that never
    reuses variables, each asked TF1 for variables of new names (a name asked for twice there
    fails in TF1), so each made new variables, as each call of the migrated helper does. A
    function the program runs once at most, in no variable scope and in a file that never
    reuses variables, asked once for each of its
    names, which TF1 created (or, skipped, made nothing), as its ``tf.Variable`` lines do, in
    the same place of the random-op order. In a file sharing in the known shape, the calls but
    the reusing ones asked for new names (one asked for twice outside a reusing scope failed in
    TF1), and each reusing call becomes a call of the object the first call made, holding the
    very variables it looked up. The files of the run are taken as the project: a
    caller in a file outside the run is not seen.

Declines when
    the call is inside a ``variable_scope`` (sharing and reuse; under a scope of a function,
    the network function's variables are layers-to-keras's, which says why when it declines,
    and this codemod stays silent there), or not ``name = tf.get_variable(...)`` on its own line; inside a function
    other than as a helper's line or a line of a function run once at most (called
    in a loop, a ``with`` block or twice, passed as a value, or in a file naming ``reuse``),
    or in a helper that makes other variables too (or some in a block of its body), that asks
    for a name reading none of its parameters and may run more than once, or that is
    used other than called in top-level code outside any block or on a line of a function
    called so or run once (in this file or another of the run: the finding names it; a call
    in a loop, or under a scope given ``reuse``, an initializer or another option), or is called
    nowhere in the run; the name is not a string
    literal (in a helper: or its parameter, or those joined with ``+``); the shape is computed
    by a call or absent (Glorot's range also needs a list of sizes, numbers or names, with
    ``math`` free for ``import math``); the
    initializer is not a literal call of one of those above (orthogonal, variance scaling,
    Keras initializers), or is given a seed or dtype of its own, or arguments computed by
    calls other than arithmetic (TF's ``sqrt``, ``cast``..., ``math``/NumPy functions but
    ``numpy.random``, built-ins such as ``float``, and module functions whose body only binds
    names from such calls and returns: ``stddev=xavier_std(784)`` is computed where the
    variable is made, drawing nothing before it); it passes a regularizer, collections, a partitioner or another option with no
    ``tf.Variable`` equivalent.
"""

from __future__ import annotations

from typing import Optional, Sequence

import libcst as cst

from tfmodernize.analysis.tf1_api import VARIABLE_SCOPES
from tfmodernize.analysis.variable_calls import arguments
from tfmodernize.analysis.variable_reuse import read_shared_networks
from tfmodernize.analysis.variables import VariableValues, math_importable, written_string
from tfmodernize.codemod import Decline, TFCodemod
from tfmodernize.codemods.migrate.get_variable_to_variable.functions import (
    in_network_scope,
    returned,
    run_once_unit,
    variable_helper,
)
from tfmodernize.codemods.migrate.get_variable_to_variable.plan import VariableFile
from tfmodernize.layout import depth, fitted, style_width
from tfmodernize.names import bound_names, name_nodes, names_read, own_nodes, parameter_names
from tfmodernize.syntax import is_none, statement_holding, statement_of
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import walk


class GetVariableToVariable(TFCodemod):
    __doc__ = __doc__
    code = "TFM106"
    name = "get-variable-to-variable"
    summary = "tf.get_variable outside any variable_scope (or in a helper called so) -> tf.Variable over the initial value its initializer computed"
    needles = ("get_variable",)
    interests = (cst.Call,)
    detects = ("get_variable",)
    requires_tf2 = True
    #: network-function-to-module makes a tf.Module of a helper whose variables this made
    #: ``tf.Variable`` s, and session-to-function reads them.
    runs_before = ("TFM121", "TFM101")

    def plan(self, module: cst.Module) -> None:
        original = self.state.parsed or module
        written_parents = self.state.parents(original)
        file = VariableFile(
            tf=self.tf,
            module=module,
            parents=self.state.parents(module),
            top=frozenset(id(n) for n in own_nodes(module) if isinstance(n, cst.SimpleStatementLine)),
            written=original,
            written_parents=written_parents,
            callers=self.state.callers,
            shared=read_shared_networks(original, self.tf, written_parents),
        )
        self._hoisted: set[int] = set()
        self._obliged = False
        for node in walk(module, code_only=True):
            if isinstance(node, cst.Call) and self.tf.is_tf(node.func, "get_variable"):
                if in_network_scope(file, node):
                    continue  # layers-to-keras's, which says why when it declines
                try:
                    self._migrate(file, node)
                except Decline as decline:
                    self.declined(decline, "tf.get_variable not migrated: ")

    def _migrate(self, file: VariableFile, call: cst.Call) -> None:
        module, parents, top = file.module, file.parents, file.top
        bound, statement = statement_of(call, parents) or (None, None)
        helper = None
        holder = statement_holding(call, parents)
        if statement is None and id(holder) in top:
            raise Decline(call, "it is not `name = tf.get_variable(...)` on a line of its own")
        unit = None
        if statement is None and returned(file, call):
            unit = run_once_unit(file, holder)
            statement = holder if unit is not None else None
        elif bound is not None and id(statement) not in top:
            unit = run_once_unit(file, statement)
        if unit is None and (statement is None or id(statement) not in top):
            helper, statement = variable_helper(file, call)
        elif bound is None and unit is None:
            raise Decline(call, "it is not `name = tf.get_variable(...)` on a line of its own")
        node = parents.get(id(statement))
        while node is not None:
            if (
                file.scoped_helper(node) is None
                and isinstance(node, cst.With)
                and any(
                    isinstance(item.item, cst.Call) and file.tf.is_tf(item.item.func, *VARIABLE_SCOPES)
                    for item in node.items
                )
            ):
                raise Decline(
                    call,
                    "it is made inside a variable_scope outside any network function (whether the scope "
                    "shares variables through `reuse` is not read here)",
                )
            node = parents.get(id(node))
        args = arguments(call)
        name, shape, initializer = args.get("name"), args.get("shape"), args.get("initializer")
        values = VariableValues(self.tf, self.tf_expr)
        binding = None
        if isinstance(initializer, cst.Name):
            # ``init = tf.truncated_normal_initializer(...)`` (or a tensor) on a line of its own before the call.
            block = (helper or unit).body.body if helper or unit else module.body
            binding = _binding(file.tf, call, initializer, block, statement)
        # ``initializer=<a tensor>`` and no shape: the tensor is the initial value, as in tf.Variable.
        from_tensor = is_none(shape) and values.is_tensor(binding[1] if binding else initializer)
        if binding is not None and not from_tensor:
            initializer = binding[1]  # the initializer object moves into the call, its line goes
        else:
            binding = None
        if not written_string(name, parameter_names(helper or unit) if helper or unit else ()):
            raise Decline(
                call, "its name is not a string written out (a literal, or a helper's parameter joined to one)"
            )
        scope = file.scoped_helper(parents.get(id(parents.get(id(statement)))))
        if scope is not None:
            # The variable scope's name prefixes the variable's, as TF1 named it.
            if not isinstance(name, cst.SimpleString):
                raise Decline(call, "its name under the helper's variable scope is not a string literal")
            prefix = scope.items[0].item.args[0].value
            quote = name.quote
            joined = cst.SimpleString(f"{name.prefix}{quote}/{name.raw_value}{quote}")
            name = cst.BinaryOperation(prefix.deep_clone(), cst.Add(), joined)
        text = values.variable(call, args, initializer=initializer, from_tensor=from_tensor, name=name)
        if values.uses_math and not math_importable(module):
            raise Decline(call, "its Glorot range is computed with `math`, a name the file binds to something else")
        where = (
            f"made by `{helper.name.value}`, whose every call makes a new variable"
            if helper is not None
            else f"made by `{unit.name.value}`, which the program runs once at most"
            if unit is not None
            else "outside any variable scope"
        )
        if not self.fix(call, f"tf.get_variable {where} -> tf.Variable with the same initial value"):
            return
        self.replace(call, cst.parse_expression(text))
        if scope is not None and id(scope) not in self._hoisted:
            self._hoisted.add(id(scope))
            self._unscope(scope)
        if helper is not None and file.shared is not None and not self._obliged:
            # Right only once each ``reuse=True`` call calls the object its network's first call made.
            self._obliged = True
            self.oblige("TFM121", f"`{helper.name.value}` makes new variables at each call, also reusing ones")
        if statement is not None:  # the variable written wider than the file's lines: wrapped
            deep, width = depth(statement, parents) - (scope is not None), style_width(self.state.text)
            self.replace(statement, lambda updated: fitted(updated, width, deep, further=True))
        if values.uses_math:
            self.add_import("math")
        if binding is not None:
            self.remove(binding[0])

    def _unscope(self, scope: cst.With) -> None:
        """The helper's variable scope goes: its lines become the body's (the variables named
        with its name, as TF1 prefixed them)."""

        def lines(updated: cst.With) -> cst.FlattenSentinel:
            first, *rest = updated.body.body
            leading = [*scope.leading_lines, *first.leading_lines]
            return cst.FlattenSentinel([first.with_changes(leading_lines=leading), *rest])

        self.replace(scope, lines)


def _binding(
    tf: TFNames, call: cst.Call, name: cst.Name, block: Sequence[cst.BaseStatement], statement: cst.BaseStatement
) -> Optional[tuple[cst.SimpleStatementLine, cst.Call]]:
    """``(line, value)`` for ``name = <a TF call>``, a line of ``block`` before ``statement``
    that is the only binding and, apart from ``call``, the only use of ``name`` in it."""
    lines = [s for s in block if name.value in names_read(s) or name.value in bound_names(s)]
    if len(lines) != 2 or lines[1] is not statement or not isinstance(lines[0], cst.SimpleStatementLine):
        return None
    small = lines[0].body[0] if len(lines[0].body) == 1 else None
    if not (
        isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
        and small.targets[0].target.value == name.value
        and isinstance(small.value, cst.Call)
        and tf.tf_symbol(small.value.func) is not None
        and name.value not in names_read(small.value)
    ):
        return None
    if sum(1 for n in name_nodes(statement) if n.value == name.value) != 1:
        return None
    return lines[0], small.value
