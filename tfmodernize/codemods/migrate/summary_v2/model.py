"""Summary-v2's vocabulary: the TF1 names it reads, and what it reads of a program (a
summary, a run fetching summaries)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import libcst as cst


#: TF1 summary ops this migrates.
SUMMARY_OPS = ("summary.scalar", "summary.histogram", "summary.image", "summary.text")
#: Summary ops this does not migrate: made anywhere, they keep a ``merge_all`` from being read.
OTHER_SUMMARY_OPS = ("summary.audio", "summary.tensor_summary")
MERGES = ("summary.merge_all", "summary.merge")
WRITERS = ("summary.FileWriter",)
#: FileWriter keywords create_file_writer has too (flush_secs is converted).
WRITER_KEYWORDS = ("logdir", "max_queue", "filename_suffix", "flush_secs", "graph")
SUMMARY_KEY = ("summaries", "GraphKeys.SUMMARIES")


@dataclass
class Summary:
    """``[name =] tf.summary.<kind>(tag, value)`` in the program's code (its top level, or one
    module function's own lines)."""

    statement: cst.SimpleStatementLine
    call: cst.Call
    kind: str
    #: The tag TF1 wrote: its name scopes, then the name given with TF1's invalid characters
    #: replaced (``"train/raw_image"`` for ``"raw image"`` under ``name_scope("train")``).
    tag: str
    literal: cst.SimpleString
    value: cst.Name
    name: Optional[str]
    max_outputs: Optional[cst.BaseExpression] = None
    #: A value written as an expression (``tf.reshape(x, ...)``): it is bound to ``value`` where
    #: the summary was, so the run that fetched the summary fetches it.
    expression: Optional[cst.BaseExpression] = None
    #: A summary a project class's object makes of its own variable when called (its module
    #: exports it): written from ``<object>.<attribute>``, read where the merged summary is written.
    direct: Optional[str] = None
    #: A summary a helper function of the module makes when called (``variable_summaries(w)``):
    #: ``statement`` is the call's line, ``value`` the name it binds the value to (or its argument).
    helper: Optional[str] = None
    #: The collections it is added to (``collections=["train"]``): the ``merge_all`` of each
    #: merges it.
    collections: tuple[str, ...] = ("summaries",)


@dataclass
class Fetch:
    """A run that fetches summaries: ``target = <x>.run(fetches, ...)``."""

    statement: cst.SimpleStatementLine
    call: cst.Call
    #: (fetch element index or None for a single fetch, what it names, the result's name)
    summaries: list[tuple[Optional[int], str, str]] = field(default_factory=list)
