"""TFM207 run-functions-eagerly.

What it does
    Renames ``tf.config.experimental_run_functions_eagerly(flag)`` to
    ``tf.config.run_functions_eagerly(flag)`` and the query
    ``tf.config.experimental_functions_run_eagerly()`` to ``tf.config.functions_run_eagerly()``,
    under whatever alias the file imported TensorFlow with.

Why it matters
    The ``experimental_`` spellings were deprecated in TF 2.3 and only log a warning before
    calling the stable function; they are gone from the API documentation and may disappear.
    The stable names behave identically.

Before
    import tensorflow as tf
    tf.config.experimental_run_functions_eagerly(True)

After
    import tensorflow as tf
    tf.config.run_functions_eagerly(True)

Fix safety
    The stable names call the same functions the deprecated ones forwarded to.

Declines when
    never: every use under a TensorFlow alias is renamed.
"""

from __future__ import annotations

import libcst as cst

from tfmodernize.codemod import TFCodemod

RENAMES = {
    "config.experimental_run_functions_eagerly": "run_functions_eagerly",
    "config.experimental_functions_run_eagerly": "functions_run_eagerly",
}


class RunFunctionsEagerly(TFCodemod):
    __doc__ = __doc__
    code = "TFM207"
    name = "run-functions-eagerly"
    summary = "tf.config.experimental_run_functions_eagerly -> tf.config.run_functions_eagerly"
    needles = ("experimental_run_functions_eagerly", "experimental_functions_run_eagerly")
    interests = (cst.Attribute, cst.Call)

    @classmethod
    def detect(cls, node: cst.CSTNode, names) -> bool:
        if isinstance(node, cst.Call):
            return isinstance(node.func, cst.Name) and names.is_tf(node.func, *RENAMES)
        return names.is_tf(node, *RENAMES)

    def leave_Attribute(self, original: cst.Attribute) -> None:
        symbol = self.tf.tf_symbol(original)
        if symbol is None or symbol.path not in RENAMES:
            return
        new_name = RENAMES[symbol.path]
        if self.fix(original, f"`{original.attr.value}` is deprecated: use `{new_name}`"):
            self.replace(original.attr, cst.Name(new_name))

    def leave_Call(self, original: cst.Call) -> None:
        # A bare name: ``from tensorflow.config import experimental_run_functions_eagerly``.
        if not isinstance(original.func, cst.Name):
            return
        symbol = self.tf.tf_symbol(original.func)
        if symbol is None or symbol.path not in RENAMES:
            return
        new_path = f"config.{RENAMES[symbol.path]}"
        if not self.fix(original, f"`{original.func.value}` is deprecated: use `tf.{new_path}`"):
            return
        qualified = self.tf.qualify(original.func)
        module, _, obj = qualified.rpartition(".")
        self.remove_import(module, obj)
        self.replace(original.func, self.tf_expr(new_path))
