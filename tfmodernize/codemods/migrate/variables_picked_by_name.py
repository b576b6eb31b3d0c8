"""TFM122 variables-picked-by-name.

What it does
    Writes out the variables a name filter picks from TF1's trainable-variable collection:
    ``[v for v in tf.trainable_variables() if "critic" in v.name]`` (or over a name bound once to
    such a read, ``params = tf.trainable_variables()``; or ``v.name.startswith("critic")``; the
    filter layers-to-keras reads for its layers, ``graph_collections.name_test``)
    becomes the list of the variables whose TF1 graph names pass the test, in creation order
    (``[critic_w, critic_b]``). The names are TF1's: the variable's own name under the variable
    and name scopes its module-level statement is made in (``critic/Variable_1:0``).

Why it matters
    A GAN or actor-critic program trains each network on the variables it picks by name. The
    names come from the scopes the variables are made in, and TF2 code has no graph scopes to
    read them from: once the scopes that only named ops go (session-to-function), the filters
    would pick nothing and train nothing, silently. An explicit list says what each optimizer
    trains, and the code no longer depends on names at all.

Before
    with tf.variable_scope("critic"):
        critic_w = tf.Variable(tf.zeros([4, 1]))
    actor_w = tf.Variable(tf.zeros([2, 4]))
    critic_vars = [v for v in tf.trainable_variables() if "critic" in v.name]

After
    with tf.variable_scope("critic"):
        critic_w = tf.Variable(tf.zeros([4, 1]))
    actor_w = tf.Variable(tf.zeros([2, 4]))
    critic_vars = [critic_w]

Fixtures: ``fixtures/variables-picked-by-name/``.

Fix safety
    The list is what the filter picked in TF1: the trainable variables made by the module's
    top-level statements before the read (``module_variables``, the reader collections-to-tracking
    uses), named as TF1 named them (scopes, uniquified ``Variable_1``), tested as the program
    tests them. It is still TF1 code after the rewrite, and TF2 code once the rest migrates.

Declines when
    (no finding: the filter is left as it is, and collections-to-tracking and session-to-function
    report what keeps the file on TF1) the filter is not a module-level ``[v for v in ... if
    test]`` whose test is ``"words" in v.name`` or ``v.name.startswith("words")``; the file is not a program (no entry point) or other files of
    the run import it; a variable's name is not a literal, Keras layers, helpers or imported code
    may make variables before the read; the list read is bound more than once, or changed in place
    (``append``, ``+=``, item assignment).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tfmodernize import treewalk
from tfmodernize.analysis import graph_collections, module_variables
from tfmodernize.analysis.program import entry_point
from tfmodernize.codemod import TFCodemod
from tfmodernize.syntax import ancestors


class VariablesPickedByName(TFCodemod):
    __doc__ = __doc__
    code = "TFM122"
    name = "variables-picked-by-name"
    summary = "[v for v in tf.trainable_variables() if 'x' in v.name] -> the explicit list"
    needles = (".name",)
    interests = (cst.Call,)
    detects = ("trainable_variables", "get_collection")
    runs_before = ("TFM101", "TFM104")

    def visit_Module(self, node: cst.Module) -> bool:
        self._module = node
        return True

    def leave_ListComp(self, original: cst.ListComp) -> None:
        picked = self._picked(original)
        if picked is not None and self.fix(original, "variables picked by name -> an explicit list"):
            self.replace(original, module_variables.variable_list(picked))

    def _picked(self, comprehension: cst.ListComp) -> Optional[list[module_variables.ModuleVariable]]:
        """The variables the filter keeps, in creation order, or None where that cannot be
        read off the code."""
        loop = comprehension.for_in
        if (
            loop.inner_for_in is not None
            or len(loop.ifs) != 1
            or not isinstance(loop.target, cst.Name)
            or not (isinstance(comprehension.elt, cst.Name) and comprehension.elt.value == loop.target.value)
        ):
            return None
        test = graph_collections.name_test(loop.ifs[0].test, loop.target.value)
        chain = [comprehension, *ancestors(comprehension, self.state.parents(self._module))]
        if test is None or chain[-1] is not self._module:
            return None
        if any(isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)) for node in chain):
            return None
        if self.state.callers is not None or entry_point(self._module, self.tf) is None:
            return None
        top = next(index for index, statement in enumerate(self._module.body) if statement is chain[-2])
        read, at = loop.iter, top
        if isinstance(read, cst.Name):
            # ``params = tf.trainable_variables()`` bound once before, and never changed in place.
            bound = module_variables.module_assignment(self._module, read.value)
            if bound is None or bound[0] >= top or changed_in_place(self._module, read.value):
                return None
            at, read = bound
        scope = graph_collections.trainable_collection_read(read, self.tf) if isinstance(read, cst.Call) else None
        if scope is None or scope[0] is not None:
            return None
        inventory = self.state.reading(self._module, module_variables.inventory)
        if inventory.problem_before(at) is not None:
            return None
        variables = inventory.before(at, trainable_only=True)
        if not variables or any(v.graph_name is None or v.keras for v in variables):
            return None
        return [v for v in variables if test(f"{v.graph_name}:0")]


def changed_in_place(module: cst.Module, name: str) -> bool:
    """Whether the list bound to ``name`` may change after it is bound: a method called on it
    (``append``, ``extend``), an item or slice assigned, or ``+=``."""
    for node in treewalk.walk(module, code_only=True):
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == name:
            return True
        target = node.target if isinstance(node, (cst.AugAssign, cst.AssignTarget)) else None
        if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name) and target.value.value == name:
            return True
        if isinstance(node, cst.AugAssign) and isinstance(target, cst.Name) and target.value == name:
            return True
    return False
