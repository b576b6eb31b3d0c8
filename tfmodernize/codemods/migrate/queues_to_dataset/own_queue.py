"""A ``tf.FIFOQueue`` the program fills itself with constant rows, run by one
``tf.train.QueueRunner`` and read by ``dequeue()``: read (``OwnQueue``) and written as a
repeated ``Dataset.from_tensor_slices``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst

from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.queues_to_dataset.dataset import Writing
from tfmodernize.codemods.migrate.queues_to_dataset.pipeline import assignment, line_of
from tfmodernize.names import bound_names, fresh_name, name_nodes, names_read
from tfmodernize.syntax import argument, calls_in, source
from tfmodernize.tfsymbols import TFNames

FIFO = "FIFOQueue"


@dataclass(frozen=True)
class OwnQueue:
    """``q = tf.FIFOQueue(capacity, dtypes, shapes)``, ``enqueue = q.enqueue_many([A, B])`` of
    constant rows, ``x, y = q.dequeue()`` and ``runner = tf.train.QueueRunner(q, [enqueue] * N)``."""

    queue_line: cst.SimpleStatementLine
    enqueue_line: cst.SimpleStatementLine
    runner_line: cst.SimpleStatementLine
    dequeue_line: cst.SimpleStatementLine
    #: what ``dequeue()`` is assigned to
    dequeued: cst.BaseAssignTargetExpression
    #: the enqueued rows, one array per queue component, and the components' dtypes
    rows: tuple[cst.BaseElement, ...]
    dtypes: tuple[cst.BaseExpression, ...]
    #: the runner's name
    runner: str

    @property
    def removed(self) -> list[cst.SimpleStatementLine]:
        """The lines that go (the dequeue line is replaced)."""
        return [self.queue_line, self.enqueue_line, self.runner_line]


def read_own_queue(module: cst.Module, queue_call: cst.Call, tf: TFNames) -> OwnQueue:
    """The queue ``queue_call`` makes, filled and read as ``OwnQueue`` says; declines any other
    use. Every runner thread enqueues the same rows, and a FIFOQueue serves each enqueue_many
    whole, one after the other, so the dequeued rows are A's and B's, in order, again and
    again."""
    _, queue_line, target = line_of(module, queue_call)
    if not isinstance(target, cst.Name):
        raise Decline(queue_call, "the queue is not bound to one name")
    queue = target.value
    dtypes = argument(queue_call, 1, "dtypes")
    if argument(queue_call, 3, "names") is not None or dtypes is None:
        raise Decline(queue_call, "a queue of named components or without dtypes written out")
    dtype_list = [e.value for e in dtypes.elements] if isinstance(dtypes, (cst.List, cst.Tuple)) else [dtypes]
    uses: dict[str, list[tuple[cst.SimpleStatementLine, cst.Assign]]] = {}
    for statement in module.body:
        assign = assignment(statement)
        value = assign.value if assign is not None else None
        if (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and isinstance(value.func.value, cst.Name)
            and value.func.value.value == queue
        ):
            uses.setdefault(value.func.attr.value, []).append((statement, assign))
        elif isinstance(value, cst.Call) and tf.is_tf(value.func, "train.QueueRunner"):
            uses.setdefault("runner", []).append((statement, assign))
    if sorted(uses) != ["dequeue", "enqueue_many", "runner"] or any(len(found) != 1 for found in uses.values()):
        raise Decline(
            queue_call,
            "the queue is not filled by one `enqueue_many` its one QueueRunner runs, and read by one `dequeue()`",
        )
    ((enqueue_line, enqueue),) = uses["enqueue_many"]
    ((dequeue_line, dequeue),) = uses["dequeue"]
    ((runner_line, runner),) = uses["runner"]
    rows = argument(enqueue.value, 0, "vals")
    if not (
        isinstance(rows, (cst.List, cst.Tuple))
        and len(rows.elements) == len(dtype_list)
        and isinstance(enqueue.targets[0].target, cst.Name)
        and isinstance(runner.targets[0].target, cst.Name)
    ):
        raise Decline(enqueue.value, "the enqueued rows are not a list with one array per queue component")
    made_by_tf = {
        name
        for statement in module.body
        for name in bound_names(statement)
        if any(tf.tf_symbol(c.func) is not None for c in calls_in(statement))
    }
    if any(
        names_read(e.value) & made_by_tf or any(tf.tf_symbol(c.func) is not None for c in calls_in(e.value))
        for e in rows.elements
    ):
        raise Decline(enqueue.value, "the enqueued rows are tensors: only constant rows are read in a known order")
    enqueue_name, runner_name = enqueue.targets[0].target.value, runner.targets[0].target.value
    ops = argument(runner.value, 1, "enqueue_ops")
    if argument(runner.value, 0, "queue") is None or not _copies_of(ops, enqueue_name):
        raise Decline(runner.value, f"the runner does not run `{enqueue_name}` alone (one or more copies of it)")
    uses_of = [n.value for n in name_nodes(module)]
    in_runner = [n.value for n in name_nodes(ops)].count(enqueue_name)
    if uses_of.count(enqueue_name) != 1 + in_runner or uses_of.count(queue) != 4:
        raise Decline(queue_call, f"`{queue}` or `{enqueue_name}` is used other than to fill and read the queue")
    return OwnQueue(
        queue_line,
        enqueue_line,
        runner_line,
        dequeue_line,
        dequeue.targets[0].target,
        tuple(rows.elements),
        tuple(dtype_list),
        runner_name,
    )


def own_queue_statements(
    module: cst.Module,
    queue: OwnQueue,
    writing: Writing,
) -> list[cst.BaseStatement]:
    """What replaces the dequeue line: ``Dataset.from_tensor_slices((A, B)).repeat()`` (cast to
    the queue's dtypes), its iterator and ``x, y = iterator.get_next()``."""
    taken = {n.value for n in name_nodes(module)}
    dataset = fresh_name("dataset", taken)
    iterator = fresh_name("batches", taken)
    tf = writing.root
    columns = [f"{tf}.constant({source(e.value)}, dtype={source(d)})" for e, d in zip(queue.rows, queue.dtypes)]
    sliced = columns[0] if len(columns) == 1 else "(" + ", ".join(columns) + ")"
    statements = [
        cst.parse_statement(f"{dataset} = {tf}.data.Dataset.from_tensor_slices({sliced}).repeat()\n"),
        cst.parse_statement(f"{iterator} = {writing.make_iterator}({dataset})\n"),
        cst.parse_statement(f"{source(queue.dequeued)} = {iterator}.get_next()\n"),
    ]
    statements[0] = statements[0].with_changes(
        leading_lines=[*queue.queue_line.leading_lines, *queue.dequeue_line.leading_lines]
    )
    return statements


def _copies_of(ops: Optional[cst.BaseExpression], name: str) -> bool:
    """``[op]``, ``[op, op]`` or ``[op] * N``: the runner's threads all run ``op``."""
    if isinstance(ops, cst.BinaryOperation) and isinstance(ops.operator, cst.Multiply):
        return _copies_of(ops.left, name) and isinstance(ops.right, (cst.Integer, cst.Name))
    return (
        isinstance(ops, (cst.List, cst.Tuple))
        and bool(ops.elements)
        and all(isinstance(e.value, cst.Name) and e.value.value == name for e in ops.elements)
    )
