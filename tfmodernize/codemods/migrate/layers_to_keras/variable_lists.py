"""Variable lists picked by scope, for layers-to-keras.

A GAN trains each network on its own variables: ``d_vars = tf.get_collection(
tf.GraphKeys.TRAINABLE_VARIABLES, scope="discriminator")``, ``tf.trainable_variables("d")`` or
``[v for v in tf.trainable_variables() if v.name.startswith("d")]`` (``"d" in v.name``), passed
as an optimizer's ``var_list``. Keras layers make their variables on their first call, inside
the training step, so a list read at module level would be empty in TF2: the layers whose TF1
variables the list selected are written into the ``var_list`` argument itself
(``[*d_dense.trainable_variables, ...]``), which the step reads after its forward pass. Which
layers a scope or a name test selects is decided on the names TF1 gave their variables
(``scope/layer/kernel:0``); a test whose answer depends on what TF1 would have added to make a
layer name unique (``dense_1``) is not decided.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterator, Optional, Union

import libcst as cst

from tfmodernize.codemod import Decline
from tfmodernize.analysis import graph_collections
from tfmodernize.analysis import module_variables
from tfmodernize.syntax import calls_in, name_assignment
from tfmodernize.analysis.module_variables import ModuleVariable
from tfmodernize.analysis.tf1_api import VARIABLE_MAKERS
from tfmodernize.names import name_nodes
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import walk

if TYPE_CHECKING:
    from tfmodernize.codemods.migrate.layers_to_keras.plan import FilePlan
    from tfmodernize.codemods.migrate.layers_to_keras.rewrites import Editor

#: The trainable variables a Keras layer class makes, by their TF1 names (default: kernel, bias).
TRAINABLE_WEIGHTS = {"BatchNormalization": ("gamma", "beta")}
#: Keras layers without variables.
WEIGHTLESS = module_variables.WEIGHTLESS_LAYERS
#: How many uniquifying suffixes (``dense_1``, ...) a name test is tried against.
SUFFIXES = ("", *(f"_{n}" for n in range(1, 12)))


@dataclass(frozen=True)
class MadeLayer:
    """A Keras layer object made: the TF1 names its trainable variables had
    (``scope/dense{suffix}/kernel:0``, ``{suffix}`` where TF1 may have made the layer's name
    unique: ``dense_1``), its class, the Python name bound to it, and the module statement that
    first applied it (TF1 made its variables there)."""

    variables: tuple[str, ...]
    keras_class: str
    name: str
    built_at: int


@dataclass
class VariableList:
    """``d_vars = <a read of the trainable variables picked by scope>``: the line, the layers
    it selects, and each ``var_list=d_vars`` to write them into."""

    line: cst.SimpleStatementLine
    layers: list[MadeLayer]
    uses: list[cst.Name] = field(default_factory=list)

    def listing(self) -> cst.BaseExpression:
        return module_variables.variable_list(
            [ModuleVariable(layer.name, None, True, -1, keras=True) for layer in self.layers]
        )


def variable_lists(
    module: cst.Module, tf: TFNames, made: list[MadeLayer], parents: dict
) -> Iterator[Union[VariableList, Decline]]:
    """Each module-level variable list the program picks out of the trainable variables by
    scope or name and only passes as ``var_list``, resolved to the layers ``made``; a Decline
    for one that cannot be resolved."""
    whole = _whole_lists(module, tf)
    for index, statement in enumerate(module.body):
        if not (
            isinstance(statement, cst.SimpleStatementLine)
            and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Assign)
            and len(statement.body[0].targets) == 1
            and isinstance(statement.body[0].targets[0].target, cst.Name)
        ):
            continue
        assign = statement.body[0]
        test = _selection(assign.value, tf, whole)
        if test is None:
            continue
        name = assign.targets[0].target.value
        try:
            if any(tf.is_tf(c.func, *VARIABLE_MAKERS) for c in calls_in(module)):
                raise Decline(assign.value, "the program also makes variables other than its layers' ")
            layers = [
                layer for layer in made if layer.keras_class not in WEIGHTLESS and _selects(test, layer, assign.value)
            ]
            late = next((layer for layer in layers if layer.built_at >= index), None)
            if late is not None:
                raise Decline(assign.value, f"it is read before `{late.name}` made its variables")
            found = VariableList(statement, layers)
            for use in name_nodes(module):
                if use.value != name or use is assign.targets[0].target:
                    continue
                arg = parents.get(id(use))
                call = parents.get(id(arg))
                if not (
                    isinstance(arg, cst.Arg)
                    and arg.keyword is not None
                    and arg.keyword.value == "var_list"
                    and isinstance(call, cst.Call)
                    and isinstance(call.func, cst.Attribute)
                    and call.func.attr.value in ("minimize", "compute_gradients")
                ):
                    raise Decline(use, f"`{name}` is used other than as an optimizer's `var_list`")
                found.uses.append(use)
            if not found.layers and found.uses:
                raise Decline(assign.value, "it selects no layer's variables (TF1 raises 'No variables to optimize')")
        except Decline as decline:
            yield decline
            continue
        yield found


def write_variable_lists(editor: "Editor", plan: "FilePlan") -> None:
    """Variable lists picked by scope and passed as ``var_list`` list the layers' variables
    where they are passed (``plan.made``: the layer objects made)."""
    removed = []
    for found in variable_lists(plan.module, plan.tf, plan.made, plan.parents):
        if isinstance(found, Decline):
            editor.declined(found, "variable list not migrated: ")
            continue
        if not editor.fix(
            found.line.body[0].value,
            "a variable list picked by scope -> the Keras layers' trainable_variables, "
            "read where the optimizer uses them",
        ):
            continue
        listing = found.listing()
        for use in found.uses:
            editor.replace(use, lambda updated, listing=listing: listing)
        editor.remove(found.line)
        removed.append(found.line)
    for line in unused_whole_lists(plan.module, plan.tf, removed):
        editor.remove(line)


def unused_whole_lists(
    module: cst.Module, tf: TFNames, removed: list[cst.SimpleStatementLine]
) -> list[cst.SimpleStatementLine]:
    """``t_vars = tf.trainable_variables()`` lines whose every use is in a ``removed`` line."""
    inside = {id(n) for line in removed for n in walk(line)}
    lines = []
    for name, line in _whole_lists(module, tf).items():
        uses = [
            n for n in name_nodes(module) if n.value == name and not any(n is t.target for t in line.body[0].targets)
        ]
        if uses and all(id(n) in inside for n in uses):
            lines.append(line)
    return lines


def _whole_lists(module: cst.Module, tf: TFNames) -> dict[str, cst.SimpleStatementLine]:
    """``t_vars = tf.trainable_variables()`` (no scope) lines at module level, by name bound."""
    return {
        assigned[0]: statement
        for statement in module.body
        if (assigned := name_assignment(statement)) and _whole(assigned[1], tf)
    }


def _whole(value: cst.BaseExpression, tf: TFNames) -> bool:
    read = graph_collections.trainable_collection_read(value, tf) if isinstance(value, cst.Call) else None
    return read is not None and (read[0] is None or isinstance(read[0], cst.Name) and read[0].value == "None")


def _selection(
    value: cst.BaseExpression, tf: TFNames, whole: dict[str, cst.SimpleStatementLine]
) -> Optional[Callable[[str], bool]]:
    """The test a read applies to TF1 variable names, when ``value`` picks trainable variables
    by scope (``re.match`` of the scope, as TF1's collections) or by a test on ``v.name``."""
    read = graph_collections.trainable_collection_read(value, tf) if isinstance(value, cst.Call) else None
    if read is not None and isinstance(read[0], cst.SimpleString) and isinstance(read[0].evaluated_value, str):
        scope = read[0].evaluated_value
        return (lambda name: name.startswith(scope)) if scope.replace("_", "").replace("/", "").isalnum() else None
    if not (
        isinstance(value, cst.ListComp)
        and value.for_in.inner_for_in is None
        and len(value.for_in.ifs) == 1
        and isinstance(value.for_in.target, cst.Name)
        and isinstance(value.elt, cst.Name)
        and value.elt.value == value.for_in.target.value
    ):
        return None
    source = value.for_in.iter
    if not (_whole(source, tf) or isinstance(source, cst.Name) and source.value in whole):
        return None
    return graph_collections.name_test(value.for_in.ifs[0].test, value.for_in.target.value)


def _selects(test: Callable[[str], bool], layer: MadeLayer, node: cst.CSTNode) -> bool:
    """Whether ``test`` picks the layer's variables, tried on every name TF1 may have given
    them; declines when the answer depends on which."""
    answers = {test(name.replace("{suffix}", suffix)) for suffix in SUFFIXES for name in layer.variables}
    if len(answers) != 1:
        raise Decline(node, f"whether it selects `{layer.name}` depends on the name TF1 gave its variables")
    return answers.pop()
