"""TFM100 summary-v2.

What it does
    Moves TF1 TensorBoard summaries to ``tf.summary`` v2 in a program that runs its graph in
    sessions: ``tf.summary.FileWriter(logdir, graph)`` becomes
    ``tf.summary.create_file_writer(logdir)``; the summarized tensors are fetched by the run
    that fetched the merged summary (``merge_all``, ``merge([...])`` or one summary), in its
    place, each into a name made of the run's result and the tensor's (``summary_loss`` for
    ``loss`` fetched as ``summary``; ``loss_value`` when that is taken), never of its tag; and
    ``writer.add_summary(summary, step)`` becomes ``with writer.as_default():``
    and one ``tf.summary.scalar/histogram/image/text(tag, value, step=step)`` per summary,
    under the tag TF1 wrote: the summary's name scopes (``name_scope``/``variable_scope``
    blocks named by literals) before its name, whose characters TF1 does not allow in a tag
    written as ``_`` (``"raw image"`` under ``name_scope("inputs")`` is
    ``"inputs/raw_image"``). A value written as an expression (``tf.reshape(x, [-1, 28, 28,
    1])``) is bound to a name where the summary was, and that name fetched; a placeholder's
    summary is written from the name the run feeds it (TF1 summarized the fed value). A name an
    op of the same scope took first (``name="loss"``) is written as TF1 made it unique
    (``loss_1``). ``merge_all`` also writes the summaries objects of a project module's classes
    make of their own variables when called (a network function's ``tf.summary.histogram("w",
    w)``, exported by layers-to-keras with the class): from ``<object>.<variable>``, under each
    call's scope (``gan/judge``, then ``gan/judge_1`` for the call sharing its variables).
    ``add_graph`` goes. Summaries no run ever fetches are removed: the TF1 program wrote
    nothing for them.
    The program may be written at the top level of the file or in one module function
    (``def train(): ...``): summaries, merges, writers and the runs fetching them in its own
    lines. A helper function making summaries of what it is given and returning nothing
    (``def variable_summaries(var):``), called as a statement by the program's code, makes its
    summaries once per call, under the call's scopes (``layer1/weights/summaries/mean_1``; a
    second call in one scope opens ``summaries_1``): it returns the values it summarized, each
    call binds them (``w_mean, w_max = variable_summaries(w)``; a second call summarizing ``w``
    names them after its scope too: ``bias_w_mean``) and the runs fetch those; a scope the
    helper opens by a parameter (``with tf.name_scope(label):``) is named by the literal each
    call gives it or its default (``layer/weights``, ``layer/weights_1`` the second time); a
    function nothing calls makes no summaries. A scope the top-level code opens again gets
    TF1's unique name (``train_1``), and a tag the name TF1 made unique when an op or a scope
    of the block took it first, names compared without case (``tf.reduce_mean`` makes
    ``Mean``: the summary ``"mean"`` after it is ``mean_1``). Each ``add_summary`` writes the
    values of the run before it that fetched its summary (``summary`` fetched for training and
    for testing). Summaries added to named collections (``collections=["train"]``) are merged
    by the ``merge_all`` of each (``merge_all("train")``). It runs before session-to-function,
    which then migrates the runs as usual.

Why it matters
    ``tf.summary.FileWriter``, ``merge_all`` and summary ops that return serialized protos
    are TF1-only: a program using them stays on ``tf.compat.v1``. TF2 writes summaries
    eagerly, from values, through a default writer and an explicit step.

Before
    tf.summary.scalar("loss", loss)
    merged = tf.summary.merge_all()
    writer = tf.summary.FileWriter(logdir, sess.graph)
    _, summary = sess.run([train, merged], {x: batch})
    writer.add_summary(summary, step)

After
    writer = tf.summary.create_file_writer(logdir)
    _, summary_loss = sess.run([train, loss], {x: batch})
    with writer.as_default():
        tf.summary.scalar("loss", summary_loss, step=step)

Fix safety
    Same tags, steps and scalar values in the events file: a value fetched in the same run as
    the summary was is the value TF1 summarized (an expression bound to a name there computes
    what the summary op computed, in the same run). Histograms and images are written from the
    same values in TF2's format (TensorBoard reads both). The graph TF1 wrote beside them is not
    written (a TF2 program has no session graph; ``tf.summary.trace_on``/``trace_export``
    around a ``tf.function`` call records one): the fix says so.

Declines when
    a summary is made inside a class or a nested function, or in a module function that does not
    fetch its summaries itself (a caller merging all summaries may), or both at top level and in
    a function (or in two functions); a summary helper is called elsewhere than in the program's
    code, read other than called, or summarizes a parameter given something other than a name;
    under a scope not named by a literal (a helper's parameter: not given a literal, given
    one the file writes elsewhere, or inside another scope of the helper), reentered (``reuse=``), or named by a string the file
    writes again other than as a scope the top-level code opens (TF1 may have made it unique:
    ``loss_1``); an ``add_summary`` writes a name several runs fetch, none of them before it in
    a block holding it; with a tag that is not a literal, with ``family=``, or ``collections=``
    not a literal list of literal names; a merged summary is fetched in a way that cannot be
    unpacked into names, or its result is used other than by ``add_summary``; a writer is used
    other than by ``add_summary``, ``flush`` and ``close``; a ``merge_all`` is in a file that
    imports a function or class of a project module of the run which makes summaries when called
    (TF1 merged those too) and does not export them, or an object exporting them is called
    elsewhere than in the program's code or used other than called. The program's summaries are
    then left as they are (and the program on ``tf.compat.v1``), with a finding saying which. A
    summary given a ``step`` is TF2's (a migrated program read again): left as it is, silently.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tfmodernize.codemod import Decline, TFCodemod
from tfmodernize.codemods.migrate.summary_v2 import emit, helpers, imported, runs, tags
from tfmodernize.codemods.migrate.summary_v2.model import MERGES, OTHER_SUMMARY_OPS, SUMMARY_OPS, WRITERS, Summary
from tfmodernize.codemods.migrate.summary_v2.plan import ProgramPlan, program_owners
from tfmodernize.layout import style_width
from tfmodernize.names import used_names
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import walk


class SummaryV2(TFCodemod):
    __doc__ = __doc__
    code = "TFM100"
    name = "summary-v2"
    summary = "TF1 summaries, merge_all and FileWriter -> tf.summary v2 written from the fetched values"
    needles = ("summary",)
    interests = (cst.Call,)
    detects = (*SUMMARY_OPS, *MERGES, *WRITERS)
    requires_tf2 = True

    summarizes = True

    @classmethod
    def summarize(cls, module: cst.Module, names: TFNames) -> Optional[dict]:
        """For a file importing this one: the module's functions and classes that make TF
        summaries when called (a ``merge_all`` there merges them too)."""
        making = sorted(
            statement.name.value
            for statement in module.body
            if isinstance(statement, (cst.FunctionDef, cst.ClassDef))
            and any(
                isinstance(node, cst.Call) and names.is_tf(node.func, *SUMMARY_OPS, *OTHER_SUMMARY_OPS)
                for node in walk(statement, code_only=True)
            )
        )
        return {"summarizing": making} if making else None

    def plan(self, module: cst.Module) -> None:
        """Reads the file into a ``ProgramPlan`` and the program's summaries, merges, writers,
        runs and ``add_summary`` calls with it (``tags``, ``runs``, ``imported``), then writes
        the migrated program (``emit``), recording the edits with this codemod."""
        plan = ProgramPlan(
            module=module,
            tf=self.tf,
            parents=self.state.parents(module),
            owners=program_owners(module),
            project=self.state.project,
            code=self.code,
            width=style_width(self.state.text),
        )
        try:
            self._plan(plan)
        except Decline as decline:  # the whole program's summaries stay: nothing planned is made
            raise Decline(decline.node, "summaries not migrated: " + decline.reason) from None

    def _plan(self, plan: ProgramPlan) -> None:
        module = plan.module
        taken = used_names(module)
        summaries: list[Summary] = []
        merges: dict[str, list[Summary]] = {}
        merge_statements: list[cst.SimpleStatementLine] = []
        writers: dict[str, tuple[cst.SimpleStatementLine, cst.Call]] = {}
        made_by = helpers.find(plan, taken, imported=self.state.callers is not None)
        inside = helpers.made_inside(made_by)
        opened: dict = {}
        for node in walk(module, code_only=True):
            if not isinstance(node, cst.Call) or id(node) in inside:
                continue
            if isinstance(node.func, cst.Name) and node.func.value in made_by:
                summaries += helpers.called(plan, made_by[node.func.value], node, taken, opened)
                continue
            symbol = self.tf.tf_symbol(node.func)
            if symbol is None or symbol.path not in (*SUMMARY_OPS, *MERGES, *WRITERS):
                continue
            if symbol.path in SUMMARY_OPS and helpers.written_at_a_step(plan, node):
                continue  # TF2's ``tf.summary.scalar(name, value, step=...)``: written already, not TF1's
            statement, name = tags.definition(plan, node)
            if symbol.path in SUMMARY_OPS:
                summaries.append(tags.read_summary(plan, statement, node, symbol.path.split(".")[1], name, taken))
            elif symbol.path in MERGES:
                if symbol.path == "summary.merge_all":
                    imported.no_imported_summaries(plan, node)
                merged = runs.merged(plan, node, symbol.path, summaries)
                if symbol.path == "summary.merge_all" and runs.merge_key(plan, node) == "summaries":
                    merged += imported.object_summaries(plan, node)
                merges[tags.named(node, name)] = merged
                merge_statements.append(statement)
            else:
                writers[tags.named(node, name)] = (statement, node)
        by_name = {s.name: [s] for s in summaries if s.name is not None}
        fetchable = {**by_name, **merges}
        fetches = runs.fetches(module, fetchable)
        adds = runs.adds(module, writers, fetches)
        graphs = runs.graph_writes(module, writers)
        owner = plan.program
        if owner is not None and not fetches:
            raise Decline(
                next(iter([*(x.call for x in summaries), *(w[1] for w in writers.values())]), owner.name),
                f"it is made in `{owner.name.value}`, which does not fetch its summaries itself (a caller "
                "merging all summaries may: only a program written in the function is migrated)",
            )
        for statement in [*(f.statement for f in fetches), *(a[0] for a in adds.values()), *graphs]:
            if id(statement) not in plan.owners or plan.owners[id(statement)] is not owner:
                raise Decline(
                    statement,
                    "the program's summaries are fetched or written elsewhere than where they are "
                    "made (another function, or the top-level code)",
                )
        runs.check_uses(
            plan, writers, fetches, adds, fetchable, [*merge_statements, *(x.statement for x in summaries), *graphs]
        )
        for statement in graphs:
            if self.fix(
                statement,
                "`add_graph` goes: a TF2 program has no session graph (tf.summary.trace_on/"
                "trace_export around a tf.function call records one)",
            ):
                self.remove(statement)
        emit.rewrite(self, plan, summaries, merge_statements, writers, fetches, adds, fetchable, taken)
        helpers.rewrite(self, made_by)
