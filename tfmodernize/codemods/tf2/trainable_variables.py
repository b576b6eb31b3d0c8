"""TFM202 trainable-variables.

What it does
    Where a training step takes gradients with respect to ``model.variables`` (or
    ``model.weights``) and applies them with ``optimizer.apply_gradients(zip(grads,
    model.variables))``, uses ``model.trainable_variables`` in *both* places. Rewriting one
    place alone would pair gradients with the wrong variables, so when the two places cannot
    both be seen (the gradient list is used elsewhere, or the variables differ) it reports a
    finding instead.

    Fix safety: safe when the object is provably a Keras model or layer or a ``tf.Module`` (the
    file binds it only to ``keras.Sequential(...)``, ``keras.Model(...)``, a ``keras.layers``
    layer, or an instance of a class of the file deriving from one of those); otherwise the fix
    is unsafe (``--unsafe-fixes``), because another object's ``variables`` may mean something
    else. A tape that calls ``watch`` explicitly is left alone with a finding: it may watch a
    non-trainable variable on purpose. An instance of a ``tf.Module`` class of the file whose
    attributes are only trainable ``tf.Variable``s and plain values (numbers, flags, shapes)
    has no other variables, so its ``variables`` are left alone. So are the ``variables`` or
    ``weights`` of an object that may be an instance of a plain class of the file (not Keras, not
    ``tf.Module``) defining that attribute itself, and those of a function's parameter in a file
    whose models are its own ``tf.Module`` classes and that makes no non-trainable variable (no
    ``trainable=False``, no Keras model or layer, no ``tf.random.Generator``, no SavedModel
    but its own export).

Why it matters
    ``variables``/``weights`` include non-trainable state (batch-norm moving statistics, seed
    state). The tape does not watch those, so their gradients are ``None``: the optimizer warns
    about missing gradients, or refuses variables it was not built for, and code that uses the
    gradient list (clipping, logging) sees ``None`` entries.

Before
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    grads = tape.gradient(loss, model.variables)
    optimizer.apply_gradients(zip(grads, model.variables))

After
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))

Fix safety
    Safe when the object is provably a Keras model or layer; otherwise unsafe (``--unsafe-fixes``):
    another object's ``variables`` may mean something else.

Declines when
    the gradient and ``apply_gradients`` places cannot both be rewritten (the gradient list is used
    elsewhere, the variables differ), or the tape watches variables explicitly. Says nothing when
    the object's variables are provably all trainable, or its ``variables``/``weights`` may be
    a plain class's own attribute.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst
from libcst.metadata import ParentNodeProvider, ScopeProvider

from tfmodernize.analysis.bindings import (
    bindings,
    is_builtin,
    keras_classes,
    may_be_plain_instance,
    plain_classes_owning,
    provably_keras,
    references,
)
from tfmodernize.treewalk import walk
from tfmodernize.analysis.tape import GradientCall, gradient_call, gradient_calls, tape_with
from tfmodernize.codemod import TFCodemod
from tfmodernize.tfsymbols import dotted_name
from tfmodernize.syntax import source

ALL_VARIABLES = ("variables", "weights")
#: TF calls making objects with non-trainable variables (a generator's state).
STATEFUL_NON_TRAINABLE = (
    "random.Generator",
    "random.experimental.Generator",
    "random.get_global_generator",
    "random.experimental.get_global_generator",
)
#: Keras families whose objects hold no variable a model parameter could be (data, helpers,
#: initial values, the training loop's pieces): anything else Keras may hold non-trainable state.
KERAS_WITHOUT_MODEL_STATE = (
    "initializers.",
    "losses.",
    "optimizers.",
    "datasets.",
    "utils.",
    "activations.",
    "regularizers.",
    "constraints.",
    "callbacks.",
    "backend.",
    "mixed_precision.",
)


class TrainableVariables(TFCodemod):
    __doc__ = __doc__
    code = "TFM202"
    name = "trainable-variables"
    summary = "model.variables/weights in tape.gradient and apply_gradients -> model.trainable_variables"
    needles = ("gradient",)
    required_text = ("GradientTape",)
    interests = (cst.Call,)
    METADATA_DEPENDENCIES = (ScopeProvider, ParentNodeProvider)

    @classmethod
    def detect(cls, node: cst.CSTNode, names) -> bool:
        call = gradient_call(node)
        return call is not None and isinstance(call.sources, cst.Attribute) and call.sources.attr.value in ALL_VARIABLES

    def visit_Module(self, node: cst.Module) -> None:
        self._scopes = self.metadata[ScopeProvider]
        self._parents = self.metadata[ParentNodeProvider]
        self._classes = keras_classes(node, self.tf)
        self._module = node
        self._plain = plain_classes_owning(node, self._classes, ALL_VARIABLES)
        self._trainable_file: Optional[bool] = None
        self._rewrite: set[cst.Attribute] = set()
        for call in gradient_calls(node, self.tf, self._scopes, self._parents):
            self._plan(call)

    def _plan(self, call: GradientCall) -> None:
        sources = call.sources
        if not (isinstance(sources, cst.Attribute) and sources.attr.value in ALL_VARIABLES):
            return
        owner = dotted_name(sources.value)
        if owner is None:
            return
        spelled = f"{owner}.{sources.attr.value}"
        if self._only_trainable(sources.value):
            return  # its variables are its trainable variables: nothing is None
        keras = provably_keras(sources.value, self._module, self.tf, self._scopes, self._parents, self._classes)
        if not keras and may_be_plain_instance(sources.value, self._module, self._plain, self._scopes, self._parents):
            return  # a class of the file that is not Keras has its own `variables`/`weights`
        if not keras and self._parameter(sources.value) and self._makes_only_trainable():
            return  # whatever the file hands the function has only trainable variables
        if self._watches(call.tape):
            self.report(
                call.call,
                f"gradients w.r.t. `{spelled}` on a tape that calls `watch`: it may watch a "
                f"non-trainable variable on purpose; if not, use `{owner}.trainable_variables` "
                f"here and where the gradients are applied",
            )
            return
        paired, why = self._paired_variables(call)
        if paired is None:
            self.report(
                call.call,
                f"gradients w.r.t. `{spelled}` include `None` for its non-trainable variables, "
                f"but {why}: use `{owner}.trainable_variables` here and wherever the gradient "
                f"list is paired with variables",
            )
            return
        paired_owner = dotted_name(paired.value) if isinstance(paired, cst.Attribute) else None
        if paired_owner != owner or paired.attr.value not in ALL_VARIABLES:
            self.report(
                call.call,
                f"gradients w.r.t. `{spelled}` are applied to `{source(paired)}`: "
                f"the lists line up only if `{owner}` has no non-trainable variables; take and "
                f"apply gradients w.r.t. `{owner}.trainable_variables`",
            )
            return
        safe = keras
        message = (
            f"`{spelled}` includes non-trainable variables (their gradients are None): use "
            f"`{owner}.trainable_variables` in tape.gradient and apply_gradients"
        )
        if not safe:
            message += (
                f"; `{owner}` is not provably a Keras model, layer or tf.Module in this file, "
                f"so its `{sources.attr.value}` may mean something else"
            )
        if self.suppressed(paired):
            return
        if self.fix(call.call, message, safe=safe, suggestion=f"{owner}.trainable_variables"):
            self._rewrite.update((sources, paired))

    def _only_trainable(self, owner: cst.BaseExpression) -> bool:
        """Whether ``owner`` is provably an instance of a ``tf.Module`` class of the file whose
        attributes are only trainable ``tf.Variable``s and plain values: then ``variables`` is
        ``trainable_variables``."""
        if not isinstance(owner, cst.Name):
            return False
        found = bindings(owner, self._scopes, self._parents)
        classes = {c.name.value: c for c in self._module.body if isinstance(c, cst.ClassDef)}
        return bool(found) and all(
            b.kind == "assign"
            and isinstance(b.value, cst.Call)
            and isinstance(b.value.func, cst.Name)
            and b.value.func.value in classes
            and self._trainable_module(classes[b.value.func.value])
            for b in found
        )

    def _parameter(self, owner: cst.BaseExpression) -> bool:
        """Whether ``owner`` is a name bound only as a function's parameter."""
        if not isinstance(owner, cst.Name):
            return False
        found = bindings(owner, self._scopes, self._parents)
        return bool(found) and all(b.kind == "param" for b in found)

    def _makes_only_trainable(self) -> bool:
        """Whether the file builds its models as ``tf.Module`` classes of its own and nothing in
        it makes a non-trainable variable: no ``trainable=`` but ``True``, no Keras model, layer
        or subclass, no ``tf.random.Generator``, no SavedModel loaded but its own export."""
        if self._trainable_file is None:
            self._trainable_file = self._scan_trainable_file()
        return self._trainable_file

    def _scan_trainable_file(self) -> bool:
        modules, saves, loads = False, False, False
        for node in walk(self._module):
            if isinstance(node, cst.ClassDef):
                for base in node.bases:
                    if self.tf.keras_path(base.value) is not None:
                        return False
                    modules = modules or self.tf.is_tf(base.value, "Module")
            if not isinstance(node, cst.Call):
                continue
            for arg in node.args:
                if (
                    arg.keyword is not None
                    and arg.keyword.value == "trainable"
                    and not (isinstance(arg.value, cst.Name) and arg.value.value == "True")
                ):
                    return False
            path = self.tf.keras_path(node.func)
            if path is not None and not path.startswith(KERAS_WITHOUT_MODEL_STATE):
                return False
            symbol = self.tf.tf_symbol(node.func)
            if symbol is not None and symbol.path.startswith(STATEFUL_NON_TRAINABLE):
                return False
            saves = saves or self.tf.is_tf(node.func, "saved_model.save")
            loads = loads or self.tf.is_tf(node.func, "saved_model.load")
        # A SavedModel loaded from elsewhere may hold anything; the file's own export holds
        # what the file made.
        return modules and (saves or not loads)

    def _trainable_module(self, cls: cst.ClassDef) -> bool:
        bases = [arg.value for arg in cls.bases]
        if len(bases) != 1 or cls.keywords or not self.tf.is_tf(bases[0], "Module"):
            return False
        for node in walk(cls.body):
            if isinstance(node, cst.Call) and self.tf.is_tf(node.func, "Variable"):
                trainable = next((a.value for a in node.args if a.keyword and a.keyword.value == "trainable"), None)
                if trainable is not None and not (isinstance(trainable, cst.Name) and trainable.value == "True"):
                    return False
            if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
                targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
                on_self = any(isinstance(t, cst.Attribute) for t in targets) or any(
                    isinstance(n, cst.Attribute) for t in targets for n in walk(t)
                )
                if on_self and not self._plain_state(node.value):
                    return False
        return True

    def _plain_state(self, value: Optional[cst.BaseExpression]) -> bool:
        """A trainable ``tf.Variable(...)``, or a value that holds no variable: a literal, or
        arithmetic, subscripts and attributes of them and of ``.shape``."""
        if value is None:
            return True
        if isinstance(value, cst.Call):
            return self.tf.is_tf(value.func, "Variable")
        nodes = list(walk(value))
        allowed = {id(n.attr) for n in nodes if isinstance(n, cst.Attribute)}
        allowed |= {id(n.value) for n in nodes if isinstance(n, cst.Attribute) and n.attr.value == "shape"}
        for node in nodes:
            if isinstance(node, (cst.Call, cst.Lambda)):
                return False
            if isinstance(node, cst.Name) and node.value not in ("True", "False", "None") and id(node) not in allowed:
                return False
        return True

    def _watches(self, tape: cst.Name) -> bool:
        block = tape_with(tape, self._scopes, self._parents)
        if block is None:
            return False
        return any(_is_method_call(node, tape.value, "watch") for node in walk(block.body))

    def _paired_variables(self, call: GradientCall) -> tuple[Optional[cst.BaseExpression], str]:
        """The variables the gradients of ``call`` are applied to, or why they cannot be known."""
        parent = self._parents.get(call.call)
        if isinstance(parent, cst.Arg):
            return self._zip_partner(parent)
        if (
            isinstance(parent, cst.Assign)
            and len(parent.targets) == 1
            and isinstance(parent.targets[0].target, cst.Name)
        ):
            grads = parent.targets[0].target
            uses = references(grads, self._scopes)
            if not uses:
                return None, f"`{grads.value}` is never applied to variables here"
            if len(uses) > 1:
                return None, f"the gradient list `{grads.value}` is also used elsewhere"
            use_parent = self._parents.get(uses[0])
            if isinstance(use_parent, cst.Arg):
                return self._zip_partner(use_parent)
            return None, f"`{grads.value}` is not passed straight to `apply_gradients(zip(...))`"
        return None, "the gradient list is not passed straight to `apply_gradients(zip(...))`"

    def _zip_partner(self, arg: cst.Arg) -> tuple[Optional[cst.BaseExpression], str]:
        """For ``grads`` in ``opt.apply_gradients(zip(grads, vars))``, the ``vars`` expression."""
        no = (None, "the gradient list is not passed straight to `apply_gradients(zip(...))`")
        zipped = self._parents.get(arg)
        if not (
            isinstance(zipped, cst.Call)
            and isinstance(zipped.func, cst.Name)
            and zipped.func.value == "zip"
            and is_builtin(zipped.func, self._scopes)
            and len(zipped.args) == 2
            and zipped.args[0] is arg
            and all(a.keyword is None and not a.star for a in zipped.args)
        ):
            return no
        outer = self._parents.get(zipped)
        applier = self._parents.get(outer) if isinstance(outer, cst.Arg) else None
        if not (_is_method_call(applier, None, "apply_gradients") and applier.args[0] is outer):
            return no
        if outer.keyword is not None and outer.keyword.value != "grads_and_vars":
            return no
        return zipped.args[1].value, ""

    def leave_Attribute(self, original: cst.Attribute) -> None:
        if original in self._rewrite:
            self.replace(original.attr, cst.Name("trainable_variables"))


def _is_method_call(node: Optional[cst.CSTNode], receiver: Optional[str], method: str) -> bool:
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == method
        and (receiver is None or (isinstance(node.func.value, cst.Name) and node.func.value.value == receiver))
        and bool(node.args)
    )
