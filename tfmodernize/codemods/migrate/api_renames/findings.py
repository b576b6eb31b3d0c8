"""What api-renames says of a TF1 name it does not rename: one whose peer target is only in
``tf.compat.v1``, and a ``tf.contrib`` name. Functions of the name, returning the finding's
message, or None where another codemod of the catalogue owns the name (and says what it does)."""

from __future__ import annotations

from typing import Optional

from tfmodernize.analysis.contrib import instead as contrib_instead
from tfmodernize.analysis.tables import tables
from tfmodernize.analysis.tf1_api import TF1_ONLY_INITIALIZERS
from tfmodernize.codemods.migrate.api_renames.policy import owner_of
from tfmodernize.registry import find_codemod
from tfmodernize.tfsymbols import TFSymbol


def v1_target_finding(symbol: TFSymbol, key: str, target: str) -> Optional[str]:
    """The finding for ``tf.<key>``, whose peer target ``tf.<target>`` is only in ``tf.compat.v1``."""
    if symbol.v1:
        return None  # already spelled through compat.v1: compat-v1-import lists it
    owner = owner_of(symbol.path)
    if owner is not None and find_codemod(owner) is not None:
        return None
    if key in TF1_ONLY_INITIALIZERS:
        return (
            f"tf.{key} has no TF2 class drawing the same numbers (Keras's initializers "
            "draw with their own seeds): make the initial value where the variable is made, "
            f"with {TF1_ONLY_INITIALIZERS[key]} (what get-variable-to-variable writes for a "
            "tf.get_variable it migrates), or accept new initial values from "
            "tf.keras.initializers"
        )
    # The peer's note, without its account of its own compat.v1 rewrite.
    message = tables().messages.get(key, {}).get("message", "").split("\n")[0]
    message = message.replace("<function name>", f"tf.{key}")
    return (
        f"tf.{key} has no TF2 equivalent that behaves the same; tf_upgrade_v2 would use tf.{target}. {message}".strip()
    )


def contrib_finding(path: str) -> Optional[str]:
    """The finding for ``tf.<path>``, a ``tf.contrib`` name: where it lives on, if anywhere."""
    owner = owner_of(path)
    if owner is not None and find_codemod(owner) is not None:
        return None  # contrib-to-core replaces it with core code, or says why not
    t = tables()
    addon = t.addons.get(path)
    if addon is not None:
        return f"tf.{path} is gone from TF2; TensorFlow Addons has {addon} (the API may differ)"
    replacement = contrib_instead(path)
    if replacement is not None:
        return f"tf.{path} is gone from TF 2.x (no tf.contrib): use {replacement} instead"
    message = t.messages.get(path, {}).get("message") or t.module_message(path) or "tf.contrib is gone from TF2"
    return message.replace("<function name>", f"tf.{path}")
