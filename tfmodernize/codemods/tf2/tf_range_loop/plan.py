"""What tf-range-loop's parts are handed: ``RangeFile``, the file's facts read once (its scopes
and parents, the ``tf.function``s that retrace per Python value, every traced function)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import AbstractSet, Mapping

import libcst as cst

from tfmodernize.tfsymbols import TFNames


@dataclass(frozen=True)
class RangeFile:
    """``module`` (the tree planned on) and ``tf`` (its TF names); ``scopes`` and ``parents``,
    LibCST's scope and parent metadata of the tree; ``traced_defs``, the functions decorated
    only with a ``tf.function`` that retraces per Python value, with that decorator
    (``traced_definitions``); ``all_traced``, every function TensorFlow traces."""

    module: cst.Module
    tf: TFNames
    scopes: Mapping
    parents: Mapping
    traced_defs: Mapping[cst.FunctionDef, cst.BaseExpression]
    all_traced: AbstractSet[cst.FunctionDef]
