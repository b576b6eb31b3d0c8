"""TFM111 variable-scope-to-name-scope.

What it does
    Turns ``with tf.variable_scope("conv"):`` into ``with tf.name_scope("conv"):`` where the
    block makes no variable: a helper that only names its ops (``def lrelu(x): with
    tf.variable_scope("leakyReLU"): return tf.maximum(x, 0.2 * x)``), or one that applies
    weights passed in. Every call the block makes (also inside the module functions it calls,
    followed to their bodies) is a TensorFlow op that makes no variable, a Python built-in, a
    call into an imported package that makes none (NumPy, ``math``...), or a tensor's shape
    method (``x.get_shape().as_list()``).

Why it matters
    ``tf.variable_scope`` is TF1-only: one left in a helper keeps the whole file, and every
    program importing it, on ``tf.compat.v1``. Scopes around a network function's variables
    are layers-to-keras's, and those around a program's graph building session-to-function's;
    this one takes the scopes left in the helpers they call.

Before
    def conv(x, w, b):
        with tf.variable_scope("conv"):
            return tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME") + b

After
    def conv(x, w, b):
        with tf.name_scope("conv"):
            return tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME") + b

Fix safety
    A variable scope given only a name does two things: it prefixes the variables
    ``tf.get_variable`` makes under it (and shares them under ``reuse``), and it opens a name
    scope of that name for the ops (made unique, ``conv_1``, when opened again in one graph).
    Where no variable is made under it, only the second is left, which is what ``tf.name_scope``
    does in a TF2 function's graph (eagerly, op names are not kept). The numbers computed are
    the same; so are the op names a graph shows. Summary tags under the scope were read by
    summary-v2 before this runs.

Declines when
    the block calls code it cannot read (a function defined elsewhere, a method of an object
    other than a tensor's shape, a call's result), defines a function or class, or yields: the
    finding names the call. It stays silent where the block makes variables or reads the scope
    (``tf.get_variable``, layers, Keras, ``tf.Variable``, ``tf.get_variable_scope()``,
    ``tf.train``, a project module's function known to make variables, an object the module's
    top level makes): those are the scopes of other codemods. A scope given more than a name
    (``reuse``, ``default_name``, an initializer, an ``as`` target), a name that is not a
    string literal, or one spelled through ``tf.compat.v1`` (a file kept on TF1) is left as
    written.
"""

from __future__ import annotations

import builtins
from typing import Optional

import libcst as cst

from tfmodernize.codemod import Decline, TFCodemod
from tfmodernize.analysis.tf1_api import VARIABLE_SCOPES
from tfmodernize.analysis.project_facts import foreign_imports, imported_functions
from tfmodernize.analysis.variable_calls import creates_opaque_variables
from tfmodernize.syntax import calls_in
from tfmodernize.names import bound_names
from tfmodernize.syntax import source
from tfmodernize.tfsymbols import import_bindings, root_name
from tfmodernize.treewalk import compound_statements, import_statements, walk

#: TF paths whose calls make variables or read the variable scope, besides those
#: ``creates_opaque_variables`` knows: a block calling one is another codemod's.
SCOPE_READERS = ("get_variable_scope", "variable_scope", "make_template", "train.", "compat.", "nn.rnn_cell.")
#: Methods of a tensor or of its shape that make nothing.
SHAPE_METHODS = frozenset({"get_shape", "as_list", "set_shape", "num_elements", "is_fully_defined"})


class MakesVariables(Exception):
    """The block makes variables or reads the scope: not this codemod's scope."""


class VariableScopeToNameScope(TFCodemod):
    __doc__ = __doc__
    code = "TFM111"
    name = "variable-scope-to-name-scope"
    summary = 'tf.variable_scope("name") around ops that make no variable -> tf.name_scope("name")'
    needles = ("variable_scope",)
    interests = (cst.Call,)
    detects = ("variable_scope",)
    requires_tf2 = True
    #: Before api-renames, which reads a ``variable_scope`` left in the file as TF1 code staying.
    runs_before = ("TFM109",)

    def plan(self, module: cst.Module) -> None:
        scopes = [
            node
            for node in compound_statements(module)
            if isinstance(node, cst.With) and len(node.items) == 1 and self._named_scope(node.items[0])
        ]
        if not scopes:
            return  # what is read of the whole module below is read only for a scope to judge
        self._functions = {s.name.value: s for s in module.body if isinstance(s, cst.FunctionDef)}
        self._module = module
        self._bound: Optional[set[str]] = None  # the names the module binds, read when a built-in is called
        imported = {
            local for statement in import_statements(module) for local, _ in import_bindings(statement, tf_only=False)
        }
        self._variable_free = imported - set(foreign_imports(module, self.state.project))
        #: Functions of the run's project modules known to make variables (``from nets import critic``),
        #: and objects the module's top level makes (``critic = Critic()``, a Keras layer): called,
        #: they may make their variables.
        self._making = {
            local
            for local, imported in imported_functions(module, self.state.project).items()
            if imported.facts.variables
        }
        self._making |= {
            small.targets[0].target.value
            for line in module.body
            if isinstance(line, cst.SimpleStatementLine)
            for small in line.body
            if isinstance(small, cst.Assign)
            and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)
            and isinstance(small.value, cst.Call)
        }
        for node in scopes:
            try:
                self._check(node.body, set())
            except MakesVariables:
                continue
            except Decline as decline:
                self.declined(decline, "tf.variable_scope not migrated: ")
                continue
            call = node.items[0].item
            assert isinstance(call, cst.Call)
            if self.fix(call, "the block makes no variable: only its name scope is left"):
                self.replace(call.func, self.tf_expr("name_scope"))

    def _named_scope(self, item: cst.WithItem) -> bool:
        """``tf.variable_scope("name")``: one positional string literal, no ``as`` target."""
        call = item.item
        symbol = self.tf.tf_symbol(call.func) if isinstance(call, cst.Call) else None
        if symbol is None or symbol.v1:
            return False  # spelled through ``tf.compat.v1``: a file kept on TF1, whose scopes stay TF1's
        return (
            self.tf.is_tf(call.func, *VARIABLE_SCOPES)
            and item.asname is None
            and len(call.args) == 1
            and call.args[0].keyword is None
            and not call.args[0].star
            and isinstance(call.args[0].value, cst.SimpleString)
            and isinstance(call.args[0].value.evaluated_value, str)
            and not call.args[0].value.evaluated_value.endswith("/")
        )

    def _check(self, block: cst.CSTNode, followed: set[str]) -> None:
        """Raises ``MakesVariables`` when code under ``block`` makes variables or reads the
        scope, ``Decline`` when a call cannot be read; follows this module's functions it calls."""
        for node in walk(block, code_only=True):
            if isinstance(node, (cst.FunctionDef, cst.ClassDef)) and node is not block:
                raise Decline(node, f"the block defines `{node.name.value}`, which may make variables when called")
            if isinstance(node, (cst.Yield, cst.Await)):
                raise Decline(node, "the block suspends (yield/await): the scope would be open around code elsewhere")
        unread: Optional[Decline] = None  # raised once no call makes variables
        for call in calls_in(block):
            try:
                followed_to = self._callee(call, followed)
                if followed_to is not None:
                    followed.add(followed_to.name.value)
                    self._check(followed_to.body, followed)
            except Decline as decline:
                unread = unread or decline
        if unread is not None:
            raise unread

    def _callee(self, call: cst.Call, followed: set[str]) -> Optional[cst.FunctionDef]:
        """This module's function ``call`` calls, to read next (None when the call is known to
        make nothing); raises when it makes variables or cannot be read."""
        symbol = self.tf.tf_symbol(call.func)
        if symbol is not None or self.tf.keras_path(call.func) is not None:
            if creates_opaque_variables(call, self.tf) or (
                symbol is not None and any(symbol.path == p or symbol.path.startswith(p) for p in SCOPE_READERS)
            ):
                raise MakesVariables
            return None
        func = call.func
        if source(func) in self._making:
            raise MakesVariables
        if isinstance(func, cst.Name):
            if func.value in self._functions:
                return None if func.value in followed else self._functions[func.value]
            if func.value in self._variable_free:
                return None
            if func.value in vars(builtins):
                if self._bound is None:
                    self._bound = bound_names(self._module)
                if func.value not in self._bound:
                    return None
            raise Decline(
                call, f"the block calls `{func.value}`, defined elsewhere: it may make variables under the scope"
            )
        root = root_name(func)
        if isinstance(func, cst.Attribute) and root is not None and root.value in self._variable_free:
            return None
        if isinstance(func, cst.Attribute) and func.attr.value in SHAPE_METHODS:
            return None
        raise Decline(call, f"the block calls `{source(func)}`, which may make variables under the scope")
