"""Queues-to-dataset's reading of a producer pipeline in a program's top-level code: the
producer (``tf.train.string_input_producer`` and its reader, or
``tf.train.slice_input_producer``), the per-record statements, and the batch (``Pipeline``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import libcst as cst

from tfmodernize.codemod import Decline
from tfmodernize.names import bound_names, name_nodes, names_read
from tfmodernize.syntax import argument, source
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import walk

PRODUCERS = ("train.string_input_producer", "train.slice_input_producer")
READERS = {"TextLineReader": "TextLineDataset", "TFRecordReader": "TFRecordDataset"}
BATCHERS = ("train.batch", "train.shuffle_batch")
#: Batch options that have no ``Dataset.batch`` counterpart here.
BATCH_DECLINED = ("enqueue_many", "dynamic_pad", "shapes", "shared_name")


@dataclass
class Pipeline:
    """What the reading found: the producer, its records, the lines that go, the batch."""

    producer: cst.SimpleStatementLine
    call: cst.Call
    #: the names each record binds: the line a reader read, or one name per sliced tensor
    records: list[str]
    removed: list[cst.SimpleStatementLine] = field(default_factory=list)
    reader: Optional[str] = None  # the tf.data dataset class reading each file
    skip: Optional[cst.BaseExpression] = None
    per_record: list[cst.SimpleStatementLine] = field(default_factory=list)
    #: TF1 drew a new order of the whole producer's list every epoch
    shuffled_producer: bool = False
    #: why the order is not TF1's (shuffles, several batching threads)
    notes: list[str] = field(default_factory=list)
    batch: Optional[cst.Call] = None
    batch_line: Optional[cst.SimpleStatementLine] = None


def line_of(
    module: cst.Module,
    call: cst.Call,
) -> tuple[int, cst.SimpleStatementLine, cst.BaseAssignTargetExpression]:
    """``(index, line, target)`` of ``target = call`` in the program's top-level code."""
    for index, statement in enumerate(module.body):
        assign = assignment(statement)
        if assign is not None and (assign.value is call or first_of(assign.value) is call):
            return index, statement, assign.targets[0].target
    raise Decline(call, "it is not `name = ...` on a line of its own in the program's top-level code")


def read_pipeline(module: cst.Module, producer: cst.Call, tf: TFNames) -> Pipeline:
    """The pipeline ``producer`` starts, up to its batch; declines what it does not map."""
    index, line, target = line_of(module, producer)
    body = list(module.body)
    if tf.is_tf(producer.func, "train.slice_input_producer"):
        tensors = argument(producer, 0, "tensor_list")
        if (
            isinstance(tensors, (cst.List, cst.Tuple))
            and len(tensors.elements) == 1
            and isinstance(target, cst.Name)
            and first_of(line.body[0].value) is producer
        ):
            records = [target.value]  # ``row = tf.train.slice_input_producer([rows])[0]``
        elif (
            isinstance(tensors, (cst.List, cst.Tuple))
            and isinstance(target, (cst.Tuple, cst.List))
            and line.body[0].value is producer
            and len(target.elements) == len(tensors.elements)
            and all(isinstance(e.value, cst.Name) for e in target.elements)
        ):
            records = [e.value.value for e in target.elements]
        else:
            raise Decline(producer, "it is not `a, b = tf.train.slice_input_producer([A, B])` with one name per tensor")
        pipeline = Pipeline(line, producer, records)
        start = index + 1
    else:
        if not isinstance(target, cst.Name) or line.body[0].value is not producer:
            raise Decline(producer, "its queue is not bound to one name")
        pipeline, start = _reader(body, index, line, producer, target.value, tf)
    _producer_options(pipeline, producer)
    batch_index = _batch(body, start, pipeline, tf)
    _records(body, start, batch_index, pipeline)
    return pipeline


def _reader(body, index, line, producer, queue: str, tf: TFNames) -> tuple[Pipeline, int]:
    """The reader of the file-name queue: ``reader = tf.TextLineReader(...)`` and the one
    ``key, value = reader.read(queue)``."""
    readers: dict[str, tuple[cst.SimpleStatementLine, cst.Call]] = {}
    for statement in body:
        assign = assignment(statement)
        if assign is not None and isinstance(assign.value, cst.Call):
            symbol = tf.tf_symbol(assign.value.func)
            if symbol is not None and symbol.path in READERS and isinstance(assign.targets[0].target, cst.Name):
                readers[assign.targets[0].target.value] = (statement, assign.value)
    reads = []
    for position, statement in enumerate(body):
        for node in walk(statement, code_only=True):
            if (
                isinstance(node, cst.Call)
                and isinstance(node.func, cst.Attribute)
                and isinstance(node.func.value, cst.Name)
                and node.func.value.value in readers
            ):
                reads.append((position, statement, node))
    uses_of_queue = [n for n in name_nodes(cst.Module(body=body[index + 1 :])) if n.value == queue]
    if len(reads) != 1 or reads[0][2].func.attr.value != "read" or len(uses_of_queue) != 1:
        raise Decline(producer, "its queue is not read by exactly one `key, value = reader.read(queue)`")
    position, statement, read = reads[0]
    assign = assignment(statement)
    target = assign.targets[0].target if assign is not None and assign.value is read else None
    if not (
        isinstance(target, cst.Tuple)
        and len(target.elements) == 2
        and all(isinstance(e.value, cst.Name) for e in target.elements)
    ):
        raise Decline(read, "the read is not `key, value = reader.read(queue)`")
    key, value = (e.value.value for e in target.elements)
    if key != "_" and any(n.value == key for n in name_nodes(cst.Module(body=body[position + 1 :]))):
        raise Decline(read, f"the record key `{key}` (file name and line) is used; tf.data gives records only")
    reader_line, reader_call = readers[read.func.value.value]
    options = {a.keyword.value for a in reader_call.args if a.keyword is not None}
    if reader_call.args and (
        options - {"skip_header_lines", "name"} or any(a.keyword is None for a in reader_call.args)
    ):
        raise Decline(reader_call, "the reader takes options other than `skip_header_lines`")
    kind = READERS[tf.tf_symbol(reader_call.func).path]
    pipeline = Pipeline(
        line, producer, [value], [reader_line, statement], kind, argument(reader_call, None, "skip_header_lines")
    )
    return pipeline, position + 1


def _producer_options(pipeline: Pipeline, producer: cst.Call) -> None:
    shuffle = argument(producer, 2, "shuffle")
    known = {"string_tensor", "tensor_list", "num_epochs", "shuffle", "seed", "capacity", "name", "shared_name"}
    if any(a.star or a.keyword is not None and a.keyword.value not in known for a in producer.args):
        raise Decline(producer, "it takes options this migration does not map")
    files = argument(producer, 0, "string_tensor")
    single_file = pipeline.reader is not None and isinstance(files, (cst.List, cst.Tuple)) and len(files.elements) == 1
    if not (isinstance(shuffle, cst.Name) and shuffle.value == "False") and not single_file:
        pipeline.shuffled_producer = True
        pipeline.notes.append(
            f"`{source(producer.func)}` shuffles by default"
            if shuffle is None
            else f"`{source(producer.func)}(shuffle={source(shuffle)})`"
        )


def _batch(body, start: int, pipeline: Pipeline, tf: TFNames) -> int:
    for position in range(start, len(body)):
        assign = assignment(body[position])
        if assign is not None and isinstance(assign.value, cst.Call) and tf.is_tf(assign.value.func, *BATCHERS):
            call = assign.value
            for option in BATCH_DECLINED:
                passed = argument(call, None, option)
                if passed is not None and not (isinstance(passed, cst.Name) and passed.value in ("False", "None")):
                    raise Decline(call, f"the batch passes `{option}`, which this migration does not map")
            tensors = argument(call, 0, "tensors")
            if not isinstance(tensors, (cst.List, cst.Tuple)) or not tensors.elements:
                raise Decline(call, "the batch does not take a list of tensors")
            threads = argument(call, 2 if tf.is_tf(call.func, "train.batch") else 4, "num_threads")
            if tf.is_tf(call.func, "train.shuffle_batch"):
                pipeline.notes.append("`tf.train.shuffle_batch`")
            if threads is not None and not (isinstance(threads, cst.Integer) and threads.value == "1"):
                pipeline.notes.append(f"batched by {source(threads)} threads")
            pipeline.batch, pipeline.batch_line = call, body[position]
            return position
    raise Decline(pipeline.call, "no `tf.train.batch` / `shuffle_batch` of its records in the top-level code")


def _records(body, start: int, batch_index: int, pipeline: Pipeline) -> None:
    """The statements computing from the records up to the batch (they become the map
    function); nothing else may read a per-record tensor."""
    tainted = set(pipeline.records)
    for statement in body[start:batch_index]:
        if names_read(statement) & tainted:
            if assignment(statement) is None:
                raise Decline(statement, "a per-record tensor is used other than to compute the batch")
            pipeline.per_record.append(statement)
            tainted |= bound_names(statement)
    after = cst.Module(body=body[batch_index + 1 :])
    used_later = {n.value for n in name_nodes(after)} & tainted
    if used_later:
        raise Decline(pipeline.batch, f"per-record tensor `{sorted(used_later)[0]}` is used after the batch")
    others = [
        s
        for s in body[:batch_index]
        if s not in pipeline.per_record and s is not pipeline.producer and s not in pipeline.removed
    ]
    for statement in others:
        if names_read(statement) & (tainted - set(pipeline.records)):
            raise Decline(statement, "a per-record tensor is used other than to compute the batch")


def assignment(statement: cst.CSTNode) -> Optional[cst.Assign]:
    """The ``target = value`` a line holds alone (one target), else None."""
    if (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Assign)
        and len(statement.body[0].targets) == 1
    ):
        return statement.body[0]
    return None


def first_of(value: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """``call`` of ``call(...)[0]``, else None."""
    if (
        isinstance(value, cst.Subscript)
        and len(value.slice) == 1
        and isinstance(value.slice[0].slice, cst.Index)
        and isinstance(value.slice[0].slice.value, cst.Integer)
        and value.slice[0].slice.value.value == "0"
    ):
        return value.value
    return None
