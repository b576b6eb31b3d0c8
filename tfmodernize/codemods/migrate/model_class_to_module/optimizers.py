"""The optimizer a TF1 optimizer call of a migrated class (or of the code making its objects)
becomes: for TF1's ``AdamOptimizer``, the class minimize-to-tape writes (``FusedAdam``: TF1's
fused kernel and float32 running products, bit-identical to TF1), written once into the file
ahead of its first use; for the others, the Keras optimizer with TF1's hyper-parameters."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tfmodernize.analysis.optimizers import keras_optimizer, optimizer_table
from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.minimize_to_tape import fused
from tfmodernize.codemods.migrate.model_class_to_module.model import OptimizerUse
from tfmodernize.names import fresh_name, used_names
from tfmodernize.syntax import commas
from tfmodernize.written_code import after_imports, two_blank_lines

#: The TF1 optimizers made as the class ``fused`` writes: its arguments are plain numbers taken
#: in Keras' names (RMSProp's class also needs the file's sparse look-ups read: not here yet).
FUSED = ("AdamOptimizer",)


class Optimizers:
    """The optimizers of one file: ``call`` says what each TF1 call becomes, ``definitions``
    the classes to write into the file for the calls whose rewrite was made."""

    def __init__(self, codemod, module: cst.Module) -> None:
        self.codemod = codemod
        self.module = module
        self._taken: Optional[set[str]] = None
        #: TF1 optimizer class -> the name of the class written for it in this file.
        self.names: dict[str, str] = {}

    def call(self, use: OptimizerUse) -> tuple[cst.Call, Optional[str], Optional[str]]:
        """(what TF1's ``use.call`` becomes, why its maths differ or None, the TF1 class whose
        written class it makes or None); declines an optimizer Keras cannot start as TF1 did."""
        keras, why = keras_optimizer(use.call, use.tf1_class)
        if keras is None:
            raise Decline(use.call, f"its {use.tf1_class} is not migrated: {why}")
        if use.tf1_class in FUSED and fused.fused_class(use.tf1_class) is not None:
            dropped = {*keras.defaulted, "name"}
            args = [arg for arg in keras.args if arg.keyword is not None and arg.keyword.value not in dropped]
            if not any(isinstance(arg.value, cst.Lambda) for arg in args):
                name = self._name(use.tf1_class)
                return cst.Call(cst.Name(name), args=commas(args)), None, use.tf1_class
        entry = optimizer_table()[use.tf1_class]
        if keras.slot_starts:
            raise Decline(use.call, f"its {use.tf1_class} starts its slots elsewhere than Keras does")
        rounded = set(entry.get("float32_arguments", ()))
        for position, arg in enumerate(use.call.args):
            parameter = arg.keyword.value if arg.keyword is not None else entry["positional"][position]
            if entry["arguments"].get(parameter) in rounded:
                raise Decline(use.call, f"its {use.tf1_class} is given `{parameter}`, which TF1 read as float32")
        call = cst.Call(self.codemod.tf_expr(f"keras.optimizers.{keras.keras}"), args=commas(list(keras.args)))
        return call, keras.different_maths, None

    def _name(self, tf1_class: str) -> str:
        if tf1_class not in self.names:
            if self._taken is None:
                self._taken = used_names(self.module)
            base = fused.fused_class(tf1_class)
            assert base is not None
            self.names[tf1_class] = fresh_name(base, self._taken)
            self._taken.add(self.names[tf1_class])
        return self.names[tf1_class]

    def write(self, wanted: set[str], first_use: cst.CSTNode) -> None:
        """Write the classes of the TF1 optimizers ``wanted`` into the file, after its imports
        (before ``first_use``, the top-level statement of the first rewrite using one)."""
        if not wanted:
            return
        body = list(self.module.body)
        used_at = next(index for index, statement in enumerate(body) if statement is first_use)
        root = self.codemod.tf_root().partition(".")[0]
        position = min(after_imports(self.module, {root}), used_at)
        definitions = []
        for tf1_class in sorted(wanted):
            definition = fused.class_definition(
                self.codemod, tf1_class, self.names[tf1_class], self.module.default_indent
            )
            definitions.append(definition.with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine()]))
        self.codemod.insert_before(body[position], definitions)
        if not isinstance(body[position], (cst.ClassDef, cst.FunctionDef)):
            # A definition keeps its blank lines (one rewritten here is replaced whole).
            self.codemod.replace(body[position], two_blank_lines)
