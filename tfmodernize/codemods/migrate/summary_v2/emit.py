"""Summary-v2's rewrite: the writer made with ``tf.summary.create_file_writer``, the fetched values
in place of the fetched summaries, and each ``add_summary`` written as ``tf.summary`` calls
under the writer at the step: functions of the ``ProgramPlan`` read and of the ``Editor`` they
record their edits with (the codemod)."""

from __future__ import annotations

from typing import Optional, Protocol

import libcst as cst

from tfmodernize.analysis.tf1_api import SESSIONS
from tfmodernize.layout import depth, fitted
from tfmodernize.names import fresh_name
from tfmodernize.codemods.migrate.summary_v2.model import WRITER_KEYWORDS, Summary, Fetch
from tfmodernize.codemods.migrate.summary_v2.plan import ProgramPlan
from tfmodernize.codemods.migrate.summary_v2.runs import fetch_elements
from tfmodernize.codemod import Decline
from tfmodernize.syntax import ancestors, argument, no_space_equal, source
from tfmodernize.treewalk import walk
from tfmodernize.edits import Replacement


class Editor(Protocol):
    """What summary-v2's rewrite records its fixes and edits with (``TFCodemod``'s)."""

    def fix(self, node: cst.CSTNode, message: str) -> bool: ...

    def replace(self, node: cst.CSTNode, new: Replacement) -> None: ...

    def remove(self, statement: cst.CSTNode) -> None: ...

    def tf_expr(self, path: str) -> cst.BaseExpression: ...


def rewrite(
    editor: Editor, plan: ProgramPlan, summaries, merge_statements, writers, fetches, adds, fetchable, taken: set[str]
) -> None:
    fetched = {name for fetch in fetches for _, name, _ in fetch.summaries}
    written = {id(s) for name in fetched for s in fetchable[name]}
    for summary in summaries:
        if summary.direct is not None or summary.helper is not None:
            continue  # made by an object's call, which stays; by a helper's call (``helpers``)
        if id(summary) not in written and summary.name not in fetched:
            if editor.fix(
                summary.call, f"`tf.summary.{summary.kind}` no run fetches: the TF1 program wrote nothing for it"
            ):
                editor.remove(summary.statement)
        elif summary.expression is not None:
            if editor.fix(
                summary.call,
                f"`tf.summary.{summary.kind}` is written from its fetched value with tf.summary "
                f"v2: the value it summarized is `{summary.value.value}`, fetched by the run",
            ):
                bound = cst.Assign([cst.AssignTarget(summary.value)], summary.expression)
                editor.replace(summary.statement, lambda updated, bound=bound: updated.with_changes(body=[bound]))
        elif editor.fix(
            summary.call, f"`tf.summary.{summary.kind}` is written from its fetched value with tf.summary v2"
        ):
            editor.remove(summary.statement)
    for statement in merge_statements:
        editor.remove(statement)
    for statement, call in writers.values():
        make_writer(editor, call)
    values: dict[tuple[int, str], list[tuple[Summary, str]]] = {}
    for fetch in fetches:
        fetch_values(editor, plan, fetch, fetchable, taken, values)
    commented: set[int] = set()
    for statement, writer, result, step in adds.values():
        fetch = fetched_by(plan, fetches, statement, result)
        pairs = values[(id(fetch.statement), result)]
        write_summaries(editor, plan, statement, writer, pairs, step, commented)


def fetched_by(
    plan: ProgramPlan,
    fetches: list[Fetch],
    statement: cst.CSTNode,
    result: str,
) -> Fetch:
    """The run whose fetched summary ``result`` the ``add_summary`` line ``statement`` writes:
    the only one binding it, or the last one before it in a block holding it (a program
    fetching ``summary`` for training and for testing writes each after its run)."""
    binding = [f for f in fetches if any(r == result for _, _, r in f.summaries)]
    if len(binding) == 1:
        return binding[0]
    holders = {id(n) for n in ancestors(statement, plan.parents)}
    order = {id(n): i for i, n in enumerate(walk(plan.module, code_only=True))}
    before = [f for f in binding if order[id(f.statement)] < order[id(statement)]]
    last = before[-1] if before else None
    if last is None or id(plan.parents.get(id(last.statement))) not in holders:
        raise Decline(
            statement,
            f"`{result}` is fetched by several runs: which this `add_summary` writes is not read",
        )
    return last


def make_writer(editor: Editor, call: cst.Call) -> None:
    """``tf.summary.FileWriter(...)`` -> ``tf.summary.create_file_writer(...)``."""
    logdir = argument(call, 0, "logdir")
    if logdir is None or any(a.keyword is not None and a.keyword.value not in WRITER_KEYWORDS for a in call.args):
        raise Decline(call, "`FileWriter` with arguments `create_file_writer` does not take")
    graph = argument(call, 1, "graph")
    note = (
        (
            " (the graph is not written: a TF2 program has no session graph; tf.summary.trace_on/trace_export "
            "around a tf.function call records one)"
        )
        if graph is not None
        else ""
    )
    if not editor.fix(call, f"tf.summary.FileWriter -> tf.summary.create_file_writer{note}"):
        raise Decline(call, "the writer is silenced")
    args = [cst.Arg(logdir)]
    for keyword in ("max_queue", "filename_suffix"):
        value = argument(call, None, keyword)
        if value is not None:
            args.append(cst.Arg(value, keyword=cst.Name(keyword)))
    flush = argument(call, None, "flush_secs")
    if flush is not None:
        args.append(cst.Arg(cst.parse_expression(f"({source(flush)}) * 1000"), keyword=cst.Name("flush_millis")))
    args = [a.with_changes(equal=no_space_equal()) if a.keyword else a for a in args]
    args = [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for a in args[:-1]] + args[-1:]
    editor.replace(call, cst.Call(editor.tf_expr("summary.create_file_writer"), args))


def fetch_values(editor: Editor, plan: ProgramPlan, fetch: Fetch, fetchable, taken: set[str], values) -> None:
    small = fetch.statement.body[0]
    single = fetch.summaries[0][0] is None
    given = fetch.call.args[0].value
    fetched = [given] if single else [e.value for e in fetch_elements(given)]
    targets = [small.targets[0].target] if single else [e.value for e in small.targets[0].target.elements]
    new_fetches: list[str] = []
    new_targets: list[str] = []
    by_index = {index: (name, result) for index, name, result in fetch.summaries}
    for index, (element, target) in enumerate(zip(fetched, targets)):
        key = None if single else index
        if key not in by_index:
            new_fetches.append(source(element))
            new_targets.append(source(target))
            continue
        name, result = by_index[key]
        written = values[(id(fetch.statement), result)] = []
        for summary in fetchable[name]:
            if summary.direct is not None:
                written.append((summary, summary.direct))
                continue
            if summary.value.value in plan.placeholders():
                # TF1 summarized the value fed to the placeholder: it is written from that value.
                written.append((summary, fed(fetch.call, summary.value.value)))
                continue
            value = summary.value.value
            name = value_name(summary, result, taken)
            written.append((summary, name))
            new_fetches.append(value)
            new_targets.append(name)
    if not new_fetches:
        raise Decline(fetch.call, "the merged summary holds no summary")
    fetch_text = new_fetches[0] if len(new_fetches) == 1 else f"[{', '.join(new_fetches)}]"
    target_text = ", ".join(new_targets)
    new_call = fetch.call.with_changes(
        args=[fetch.call.args[0].with_changes(value=cst.parse_expression(fetch_text)), *fetch.call.args[1:]]
    )
    assign = small.with_changes(targets=[cst.AssignTarget(cst.parse_expression(target_text))], value=new_call)
    editor.replace(fetch.statement, lambda updated: updated.with_changes(body=[assign]))


def value_name(summary: Summary, result: str, taken: set[str]) -> str:
    """The name a fetched value is written from: the run's result and the value's name
    (``summary_loss`` for ``loss`` fetched as ``summary``, ``summary_max`` for the
    ``max_summarized`` of an expression; ``loss_value`` when that is taken), never its tag
    (``layer/weights/summaries/mean_1``), a number only when both are taken."""
    value = summary.value.value
    if summary.expression is not None and value.endswith("_summarized"):
        value = value[: -len("_summarized")]
    for name in (f"{result}_{value}", f"{value}_value"):
        if name not in taken:
            taken.add(name)
            return name
    return fresh_name(f"{value}_value", taken)


def fed(run: cst.Call, placeholder: str) -> str:
    """The name whose value ``run`` feeds to ``placeholder`` (``feed_dict={z: noise}``)."""
    feed = argument(run, 1, "feed_dict")
    for element in feed.elements if isinstance(feed, cst.Dict) else ():
        if (
            isinstance(element, cst.DictElement)
            and isinstance(element.key, cst.Name)
            and element.key.value == placeholder
        ):
            if not isinstance(element.value, cst.Name):
                raise Decline(
                    run,
                    f"a summary of the placeholder `{placeholder}` is of the value fed to it, "
                    f"`{source(element.value)}`, which is not a name (bind it to one first)",
                )
            return element.value.value
    raise Decline(
        run,
        f"a summary of the placeholder `{placeholder}` is fetched by a run that does not feed it a "
        "name in a literal `feed_dict`",
    )


def write_summaries(
    editor: Editor,
    plan: ProgramPlan,
    statement: cst.SimpleStatementLine,
    writer: str,
    values,
    step: Optional[cst.BaseExpression],
    commented: set[int],
) -> None:
    """The ``tf.summary`` calls writing ``values`` at ``step`` under ``writer`` in place of the
    ``add_summary`` line ``statement``. A summary whose line went keeps the comments above it
    at its first write (``commented``: the summaries written with theirs, by identity). A write
    wider than the file's lines where it will stand has its arguments wrapped
    (``layout.fitted``)."""
    step_text = source(step) if step is not None else "0"
    lines = []
    for summary, value_name in values:
        if id(summary) not in commented and summary.expression is None and summary.helper is None:
            commented.add(id(summary))
            if summary.direct is None and isinstance(summary.statement, cst.SimpleStatementLine):
                above = summary.statement.leading_lines
                lines += [f"    {line.comment.value}\n" for line in above if line.comment]
        extra = f", max_outputs={source(summary.max_outputs)}" if summary.max_outputs is not None else ""
        function = source(editor.tf_expr(f"summary.{summary.kind}"))
        lines.append(f"    {function}({source(summary.literal)}, {value_name}, step={step_text}{extra})\n")
    block = cst.parse_statement(f"with {writer}.as_default():\n{''.join(lines)}")
    inside = written_depth(plan, statement) + 1
    body = [fitted(line, plan.width, inside) for line in block.body.body]
    block = block.with_changes(body=block.body.with_changes(body=body))
    editor.replace(statement, block.with_changes(leading_lines=statement.leading_lines))


def written_depth(plan: ProgramPlan, statement: cst.CSTNode) -> int:
    """How many blocks deep ``statement`` stands once the program runs on TF2: the session and
    default-graph blocks holding it (``with tf.Session() as sess:``, ``with g.as_default():``)
    are dedented by session-to-function, without which no summary is migrated."""
    blocks = 0
    for holder in ancestors(statement, plan.parents):
        if not isinstance(holder, cst.With):
            continue
        call = holder.items[0].item
        if not isinstance(call, cst.Call):
            continue
        symbol = plan.tf.tf_symbol(call.func)
        opens = symbol is not None and symbol.path in SESSIONS
        defaults = isinstance(call.func, cst.Attribute) and call.func.attr.value == "as_default"
        blocks += opens or defaults
    return depth(statement, plan.parents) - blocks
