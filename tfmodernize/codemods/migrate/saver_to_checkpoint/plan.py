"""What saver-to-checkpoint's parts are handed: ``SaverFile``, the file's facts, and what they
read of one Saver (``Saved``: what it saved and under which names, ``Split``: an optimizer
made inside a ``minimize`` line that must get a name)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

import libcst as cst

from tfmodernize.analysis.module_variables import ModuleVariable
from tfmodernize.tfsymbols import TFNames


@dataclass(frozen=True)
class SaverFile:
    """The tree planned on, its TF names and parent map; ``project``, the summaries of the
    project modules it imports (``FileState.project``); ``callers``, how the other files of the
    run use its functions (``FileState.callers``)."""

    module: cst.Module
    tf: TFNames
    parents: dict
    project: Mapping[str, Any]
    callers: Optional[dict]


@dataclass(frozen=True)
class Split:
    """``step = tf.train.X(...).minimize(loss)`` (``statement``), whose optimizer (``made``) the
    Checkpoint saves: written as ``name = tf.train.X(...)`` and ``step = name.minimize(loss)``."""

    statement: cst.SimpleStatementLine
    made: cst.Call
    name: str


@dataclass
class Saved:
    """What TF1's Saver saved, in creation order (``variables``); ``keys``, the names it saved
    them under when its ``var_list`` is a dict (else empty: the graph names); ``splits``, the
    ``minimize`` lines whose optimizer it saved."""

    variables: list[ModuleVariable]
    keys: list[str] = field(default_factory=list)
    splits: list[Split] = field(default_factory=list)
