"""TFM114 queues-to-dataset.

What it does
    Turns a TF1 queue-based input pipeline built in a program's top-level code into a
    ``tf.data`` pipeline read through an iterator: ``tf.train.string_input_producer`` with a
    ``tf.TextLineReader`` (``skip_header_lines`` kept) or ``tf.TFRecordReader``, or
    ``tf.train.slice_input_producer`` over in-memory arrays; the per-record statements between
    the reader and the batch (``tf.decode_csv``, reshapes, casts) become the function given to
    ``Dataset.map``; ``tf.train.batch`` / ``tf.train.shuffle_batch`` become ``.batch`` (and
    ``.shuffle``); ``num_epochs`` becomes ``.repeat``. The batch tensors are bound by
    ``iterator.get_next()``, which session-to-function then turns into ``iter(dataset)`` and
    one element per run. A ``tf.FIFOQueue`` the program fills itself with ``enqueue_many`` of
    constant rows, run by a ``tf.train.QueueRunner`` (any number of threads running that one
    op) and read by ``dequeue()``, becomes ``Dataset.from_tensor_slices(rows).repeat()``.
    ``tf.train.Coordinator``, ``start_queue_runners``, ``create_threads``, ``request_stop``
    and ``join`` go (there are no queue-runner threads); ``coord.should_stop()`` is ``False``
    and ``coord.request_stop(error)`` in an ``except`` re-raises, as ``join`` did.

Why it matters
    Queues and queue runners are TF1-only: in TF2 a dequeue run eagerly waits forever for an
    enqueue no thread will make, and ``tf.train.string_input_producer`` does not exist. A
    training script reading its data through queues stays on ``tf.compat.v1`` until the
    pipeline is ``tf.data``.

Before
    files = tf.train.string_input_producer(["train.csv"], num_epochs=2, shuffle=False)
    reader = tf.TextLineReader(skip_header_lines=1)
    _, line = reader.read(files)
    x, y = tf.decode_csv(line, record_defaults=[[0.0], [0.0]])
    x_batch, y_batch = tf.train.batch([x, y], batch_size=8)
    ...
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)

After
    def parse_record(line):
        x, y = tf.decode_csv(line, record_defaults=[[0.0], [0.0]])
        return x, y


    dataset = (tf.data.Dataset.from_tensor_slices(["train.csv"]).repeat(2)
               .flat_map(lambda filename: tf.data.TextLineDataset(filename).skip(1))
               .map(parse_record).batch(8, drop_remainder=True))
    batches = tf.data.make_one_shot_iterator(dataset)
    x_batch, y_batch = batches.get_next()

Fix safety
    With ``shuffle=False`` producers and ``tf.train.batch`` on one thread (TF1's defaults for
    ``num_threads``), TF1 read the records in file order and batched them in that order: the
    dataset yields the same batches in the same order, and the same static batch size (the last,
    smaller batch is dropped as TF1 dropped it, unless ``allow_smaller_final_batch``). A
    shuffled pipeline (``shuffle=True``, TF1's default for producers, ``shuffle_batch``, or
    several batching threads) gets the same element shapes and a finding: TF1 drew its order
    from a random stream TF2 does not reproduce. A FIFOQueue serves each ``enqueue_many``
    whole and in turn, so runner threads that all enqueue the same constant rows fill it with
    those rows in order, repeated, whichever thread runs first.

Declines when
    the pipeline is built inside a function or a block, or is not ``name = call(...)`` lines;
    a reader reads a queue other than one producer, or reads more than once (``read_up_to``);
    a per-record tensor is used other than to build the batch; the batch takes a dict,
    ``enqueue_many``, ``dynamic_pad`` or ``shapes``; the program builds a shuffling, padding or
    priority queue, or a FIFOQueue filled with tensors (their order is the threads') or used other
    than by one ``enqueue_many``, one ``dequeue`` and one runner; the coordinator is used other
    than to start, stop and join the queue runners.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import libcst as cst

from tfmodernize.syntax import calls_in
from tfmodernize.names import fresh_name, used_names
from tfmodernize.codemod import Decline, TFCodemod
from tfmodernize.edits import Replacement
from tfmodernize.layout import depth, fitted, style_width
from tfmodernize.names import bound_names, name_nodes, names_read
from tfmodernize.syntax import argument, is_none, source
from tfmodernize.treewalk import walk

PRODUCERS = ("train.string_input_producer", "train.slice_input_producer")
READERS = {"TextLineReader": "TextLineDataset", "TFRecordReader": "TFRecordDataset"}
BATCHERS = ("train.batch", "train.shuffle_batch")
COORDINATION = ("train.Coordinator", "train.start_queue_runners", "train.add_queue_runner")
#: Queues a program builds itself whose order its threads decide (a FIFOQueue its runners fill
#: with the same constant rows is read by ``_own_queue``).
OWN_QUEUES = (
    "RandomShuffleQueue",
    "PaddingFIFOQueue",
    "PriorityQueue",
    "train.input_producer",
    "train.range_input_producer",
)
FIFO = "FIFOQueue"
#: Batch options that have no ``Dataset.batch`` counterpart here.
BATCH_DECLINED = ("enqueue_many", "dynamic_pad", "shapes", "shared_name")


@dataclass
class _Pipeline:
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


class QueuesToDataset(TFCodemod):
    __doc__ = __doc__
    code = "TFM114"
    name = "queues-to-dataset"
    summary = "input queues (string/slice_input_producer, readers, tf.train.batch) and queue runners -> tf.data"
    needles = ("input_producer", FIFO)
    interests = (cst.Call,)
    detects = (*PRODUCERS, FIFO)
    requires_tf2 = True
    #: The queue runners and coordinator must be gone before session-to-function reads the session.
    runs_before = ("TFM101",)

    def plan(self, module: cst.Module) -> None:
        calls = [n for n in walk(module, code_only=True) if isinstance(n, cst.Call)]
        producers = [c for c in calls if self.tf.is_tf(c.func, *PRODUCERS)]
        fifos = [c for c in calls if self.tf.is_tf(c.func, FIFO)]
        start = (producers or fifos)[0]
        try:
            own = next((c for c in calls if self.tf.is_tf(c.func, *OWN_QUEUES)), None)
            if own is not None:
                raise Decline(
                    own,
                    f"the program builds its own queues (`{source(own.func)}`), whose threads decide "
                    "the order: write its tf.data pipeline by hand",
                )
            if len(producers) + len(fifos) > 1:
                raise Decline((producers + fifos)[1], "more than one input queue: migrate them one at a time by hand")
            if producers:
                pipeline = self._read(module, producers[0])
                removed = [pipeline.producer, *pipeline.removed, *pipeline.per_record]
                at, statements = pipeline.batch_line, self._dataset(module, pipeline)
                runners: set[str] = set()
            else:
                removed, at, statements, runners = self._own_queue(module, fifos[0])
                pipeline = None
            coordination = self._coordination(module, calls, runners)
        except Decline as decline:
            self.declined(decline, "input queue not migrated: ")
            return
        if not self.fix(start, "input queues -> a tf.data pipeline read through an iterator"):
            return
        for note in pipeline.notes if pipeline is not None else ():
            self.report(
                start,
                f"the pipeline is shuffled ({note}): the dataset gives batches of the same "
                "shapes, but not TF1's order (its random stream is not TF2's)",
            )
        for statement in removed:
            self.remove(statement)
        # The lines written keep to the file's width where they stand (``layout.fitted``).
        limit, deep = style_width(self.state.text), depth(at, self.state.parents(module))
        statements = [fitted(statement, limit, deep, further=True) for statement in statements]
        self.replace(at, cst.FlattenSentinel(statements))
        for node, replacement in coordination:
            if replacement is None:
                self.remove(node)
            else:
                self.replace(node, replacement)

    # -- a FIFOQueue the program fills itself ------------------------------------------------------

    def _own_queue(self, module: cst.Module, queue_call: cst.Call):
        """``q = tf.FIFOQueue(capacity, dtypes, shapes)``, ``enqueue = q.enqueue_many([A, B])``
        of constant rows, ``x, y = q.dequeue()`` and ``tf.train.QueueRunner(q, [enqueue] * N)``:
        every runner thread enqueues the same rows, and a FIFOQueue serves each enqueue_many
        whole, one after the other, so the dequeued rows are A's and B's, in order, again and
        again: ``Dataset.from_tensor_slices((A, B)).repeat()`` (cast to the queue's dtypes).
        Returns (lines removed, the dequeue line, what replaces it, the runners' names)."""
        _, queue_line, target = self._line(module, queue_call)
        if not isinstance(target, cst.Name):
            raise Decline(queue_call, "the queue is not bound to one name")
        queue = target.value
        dtypes = argument(queue_call, 1, "dtypes")
        if argument(queue_call, 3, "names") is not None or dtypes is None:
            raise Decline(queue_call, "a queue of named components or without dtypes written out")
        dtype_list = [e.value for e in dtypes.elements] if isinstance(dtypes, (cst.List, cst.Tuple)) else [dtypes]
        uses: dict[str, list[tuple[cst.SimpleStatementLine, cst.Assign]]] = {}
        for statement in module.body:
            assign = _assignment(statement)
            value = assign.value if assign is not None else None
            if (
                isinstance(value, cst.Call)
                and isinstance(value.func, cst.Attribute)
                and isinstance(value.func.value, cst.Name)
                and value.func.value.value == queue
            ):
                uses.setdefault(value.func.attr.value, []).append((statement, assign))
            elif isinstance(value, cst.Call) and self.tf.is_tf(value.func, "train.QueueRunner"):
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
            if any(self.tf.tf_symbol(c.func) is not None for c in calls_in(statement))
        }
        if any(
            names_read(e.value) & made_by_tf or any(self.tf.tf_symbol(c.func) is not None for c in calls_in(e.value))
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
        taken = {n.value for n in name_nodes(module)}
        dataset = fresh_name("dataset", taken)
        iterator = fresh_name("batches", taken)
        tf = self.tf_root()
        columns = [f"{tf}.constant({source(e.value)}, dtype={source(d)})" for e, d in zip(rows.elements, dtype_list)]
        sliced = columns[0] if len(columns) == 1 else "(" + ", ".join(columns) + ")"
        statements = [
            cst.parse_statement(f"{dataset} = {tf}.data.Dataset.from_tensor_slices({sliced}).repeat()\n"),
            cst.parse_statement(f"{iterator} = {source(self.tf_expr('data.make_one_shot_iterator'))}({dataset})\n"),
            cst.parse_statement(f"{source(dequeue.targets[0].target)} = {iterator}.get_next()\n"),
        ]
        statements[0] = statements[0].with_changes(
            leading_lines=[*queue_line.leading_lines, *dequeue_line.leading_lines]
        )
        return [queue_line, enqueue_line, runner_line], dequeue_line, statements, {runner_name}

    # -- reading the pipeline ---------------------------------------------------------------

    def _line(
        self, module: cst.Module, call: cst.Call
    ) -> tuple[int, cst.SimpleStatementLine, cst.BaseAssignTargetExpression]:
        """``(index, line, target)`` of ``target = call`` in the program's top-level code."""
        for index, statement in enumerate(module.body):
            assign = _assignment(statement)
            if assign is not None and (assign.value is call or _first_of(assign.value) is call):
                return index, statement, assign.targets[0].target
        raise Decline(call, "it is not `name = ...` on a line of its own in the program's top-level code")

    def _read(self, module: cst.Module, producer: cst.Call) -> _Pipeline:
        index, line, target = self._line(module, producer)
        body = list(module.body)
        if self.tf.is_tf(producer.func, "train.slice_input_producer"):
            tensors = argument(producer, 0, "tensor_list")
            if (
                isinstance(tensors, (cst.List, cst.Tuple))
                and len(tensors.elements) == 1
                and isinstance(target, cst.Name)
                and _first_of(line.body[0].value) is producer
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
                raise Decline(
                    producer, "it is not `a, b = tf.train.slice_input_producer([A, B])` with one name per tensor"
                )
            pipeline = _Pipeline(line, producer, records)
            start = index + 1
        else:
            if not isinstance(target, cst.Name) or line.body[0].value is not producer:
                raise Decline(producer, "its queue is not bound to one name")
            pipeline, start = self._reader(body, index, line, producer, target.value)
        self._producer_options(pipeline, producer)
        batch_index = self._batch(body, start, pipeline)
        self._records(body, start, batch_index, pipeline)
        return pipeline

    def _reader(self, body, index, line, producer, queue: str) -> tuple[_Pipeline, int]:
        """The reader of the file-name queue: ``reader = tf.TextLineReader(...)`` and the one
        ``key, value = reader.read(queue)``."""
        readers: dict[str, tuple[cst.SimpleStatementLine, cst.Call]] = {}
        for statement in body:
            assign = _assignment(statement)
            if assign is not None and isinstance(assign.value, cst.Call):
                symbol = self.tf.tf_symbol(assign.value.func)
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
        assign = _assignment(statement)
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
        kind = READERS[self.tf.tf_symbol(reader_call.func).path]
        pipeline = _Pipeline(
            line, producer, [value], [reader_line, statement], kind, argument(reader_call, None, "skip_header_lines")
        )
        return pipeline, position + 1

    def _producer_options(self, pipeline: _Pipeline, producer: cst.Call) -> None:
        shuffle = argument(producer, 2, "shuffle")
        known = {"string_tensor", "tensor_list", "num_epochs", "shuffle", "seed", "capacity", "name", "shared_name"}
        if any(a.star or a.keyword is not None and a.keyword.value not in known for a in producer.args):
            raise Decline(producer, "it takes options this migration does not map")
        files = argument(producer, 0, "string_tensor")
        single_file = (
            pipeline.reader is not None and isinstance(files, (cst.List, cst.Tuple)) and len(files.elements) == 1
        )
        if not (isinstance(shuffle, cst.Name) and shuffle.value == "False") and not single_file:
            pipeline.shuffled_producer = True
            pipeline.notes.append(
                f"`{source(producer.func)}` shuffles by default"
                if shuffle is None
                else f"`{source(producer.func)}(shuffle={source(shuffle)})`"
            )

    def _batch(self, body, start: int, pipeline: _Pipeline) -> int:
        for position in range(start, len(body)):
            assign = _assignment(body[position])
            if (
                assign is not None
                and isinstance(assign.value, cst.Call)
                and self.tf.is_tf(assign.value.func, *BATCHERS)
            ):
                call = assign.value
                for option in BATCH_DECLINED:
                    passed = argument(call, None, option)
                    if passed is not None and not (isinstance(passed, cst.Name) and passed.value in ("False", "None")):
                        raise Decline(call, f"the batch passes `{option}`, which this migration does not map")
                tensors = argument(call, 0, "tensors")
                if not isinstance(tensors, (cst.List, cst.Tuple)) or not tensors.elements:
                    raise Decline(call, "the batch does not take a list of tensors")
                threads = argument(call, 2 if self.tf.is_tf(call.func, "train.batch") else 4, "num_threads")
                if self.tf.is_tf(call.func, "train.shuffle_batch"):
                    pipeline.notes.append("`tf.train.shuffle_batch`")
                if threads is not None and not (isinstance(threads, cst.Integer) and threads.value == "1"):
                    pipeline.notes.append(f"batched by {source(threads)} threads")
                pipeline.batch, pipeline.batch_line = call, body[position]
                return position
        raise Decline(pipeline.call, "no `tf.train.batch` / `shuffle_batch` of its records in the top-level code")

    def _records(self, body, start: int, batch_index: int, pipeline: _Pipeline) -> None:
        """The statements computing from the records up to the batch (they become the map
        function); nothing else may read a per-record tensor."""
        tainted = set(pipeline.records)
        for statement in body[start:batch_index]:
            if names_read(statement) & tainted:
                if _assignment(statement) is None:
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

    # -- writing the dataset ------------------------------------------------------------------

    def _dataset(self, module: cst.Module, pipeline: _Pipeline) -> list[cst.BaseStatement]:
        """What replaces the batch line: the map function (when the records are computed on),
        the dataset, its iterator and ``<batch names> = iterator.get_next()``."""
        taken = used_names(module)
        tf = self.tf_root()
        producer, batch = pipeline.call, pipeline.batch
        epochs = argument(producer, 1, "num_epochs")
        seed = argument(producer, 3, "seed")
        seeded = f", seed={source(seed)}" if seed is not None else ""
        dataset = fresh_name("dataset", taken)
        taken.add(dataset)
        if pipeline.reader is not None:
            start = f"{tf}.data.Dataset.from_tensor_slices({source(argument(producer, 0, 'string_tensor'))})"
        else:
            sliced = [source(e.value) for e in argument(producer, 0, "tensor_list").elements]
            # One tensor sliced gives tensors (TF1 returned a list of one), several give tuples.
            start = f"{tf}.data.Dataset.from_tensor_slices({sliced[0] if len(sliced) == 1 else '(' + ', '.join(sliced) + ')'})"
        statements: list[cst.BaseStatement] = []
        steps = []
        if pipeline.shuffled_producer:
            # TF1 drew a new order of the whole list every epoch: a buffer as large as the list.
            statements.append(cst.parse_statement(f"{dataset} = {start}\n"))
            start = dataset
            steps.append(f".shuffle({dataset}.cardinality(){seeded})")
        steps.append(".repeat()" if is_none(epochs) else f".repeat({source(epochs)})")
        if pipeline.reader is not None:
            if pipeline.skip is not None:
                steps.append(
                    f".flat_map(lambda filename: {tf}.data.{pipeline.reader}(filename).skip({source(pipeline.skip)}))"
                )
            else:
                steps.append(f".flat_map({tf}.data.{pipeline.reader})")
        outputs = [e.value for e in argument(batch, 0, "tensors").elements]
        definition = None
        if pipeline.per_record or [source(o) for o in outputs] != pipeline.records:
            parse = fresh_name("parse_record", taken)
            taken.add(parse)
            returned = (
                outputs[0] if len(outputs) == 1 else cst.Tuple([cst.Element(o) for o in outputs], lpar=[], rpar=[])
            )
            definition = cst.FunctionDef(
                cst.Name(parse),
                cst.Parameters([cst.Param(cst.Name(r)) for r in pipeline.records]),
                cst.IndentedBlock([*pipeline.per_record, cst.SimpleStatementLine([cst.Return(returned)])]),
            )
            steps.append(f".map({parse})")
        size = source(argument(batch, 1, "batch_size"))
        if self.tf.is_tf(batch.func, "train.shuffle_batch"):
            buffer = argument(batch, 3, "min_after_dequeue")
            batch_seed = argument(batch, 5, "seed")
            steps.append(
                f".shuffle({source(buffer) if buffer is not None else size}"
                f"{f', seed={source(batch_seed)}' if batch_seed is not None else ''})"
            )
        smaller = argument(batch, None, "allow_smaller_final_batch")
        keep_last = isinstance(smaller, cst.Name) and smaller.value == "True"
        steps.append(f".batch({size}{'' if keep_last else ', drop_remainder=True'})")
        iterator = fresh_name("batches", taken)
        targets = source(_assignment(pipeline.batch_line).targets[0].target)
        chain = "".join(f"\n    {step}" for step in steps)
        # The chain's first line, one step in, wrapped (its own lines one step in too) when it
        # is wider than the file's width there.
        deep = depth(pipeline.batch_line, self.state.parents(module)) + 1
        head = fitted(cst.parse_statement(f"{start}\n"), style_width(self.state.text), deep, further=True)
        start = source(head).rstrip("\n").replace("\n", "\n    ")
        statements += [
            cst.parse_statement(f"{dataset} = (\n    {start}{chain}\n)\n"),
            cst.parse_statement(f"{iterator} = {source(self.tf_expr('data.make_one_shot_iterator'))}({dataset})\n"),
            cst.parse_statement(f"{targets} = {iterator}.get_next()\n"),
        ]
        # The comments above the producer and the batch describe the pipeline: they stay above it.
        kept = [*pipeline.producer.leading_lines, *pipeline.batch_line.leading_lines]
        if definition is not None:
            blank = cst.EmptyLine(indent=False)
            statements[0] = statements[0].with_changes(leading_lines=[blank, blank])
            comments = [line for line in kept if line.comment is not None]
            statements.insert(0, definition.with_changes(leading_lines=[blank, blank, *comments]))
        else:
            statements[0] = statements[0].with_changes(leading_lines=kept)
        return statements

    # -- the coordinator ------------------------------------------------------------------------

    def _coordination(
        self, module: cst.Module, calls: list[cst.Call], runners: set[str]
    ) -> list[tuple[cst.CSTNode, Optional[Replacement]]]:
        """What becomes of the queue-runner plumbing: its lines removed (the coordinator, starting
        the runners or ``runner.create_threads``, ``request_stop``, ``join``),
        ``coord.should_stop()`` -> ``False``, ``coord.request_stop(error)`` in an ``except``
        -> ``raise`` (``join`` re-raised it). Declines when the coordinator or the threads are
        used any other way."""
        parents = self.state.parents(module)
        lines: list[cst.SimpleStatementLine] = []
        names: set[str] = set()
        raised: list[cst.SimpleStatementLine] = []
        for call in calls:
            starts = (
                isinstance(call.func, cst.Attribute)
                and isinstance(call.func.value, cst.Name)
                and call.func.value.value in runners
                and call.func.attr.value == "create_threads"
            )
            if self.tf.is_tf(call.func, *COORDINATION) or starts:
                small, line = parents.get(id(call)), parents.get(id(parents.get(id(call))))
                if not (
                    _own_line(small, line, call)
                    and (isinstance(small, cst.Expr) or isinstance(small.targets[0].target, cst.Name))
                ):
                    raise Decline(call, f"`{source(call.func)}` is not on a line of its own")
                if isinstance(small, cst.Assign):
                    names.add(small.targets[0].target.value)
                lines.append(line)
        stops: list[cst.Call] = []
        for call in calls:
            func = call.func
            if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in names:
                small, line = parents.get(id(call)), parents.get(id(parents.get(id(call))))
                handler = parents.get(id(parents.get(id(line))))
                if (
                    func.attr.value == "request_stop"
                    and len(call.args) == 1
                    and isinstance(handler, cst.ExceptHandler)
                    and handler.name is not None
                    and source(call.args[0].value) == source(handler.name.name)
                    and _own_line(small, line, call)
                ):
                    raised.append(line)  # ``join`` would have re-raised the error it was given
                elif (
                    func.attr.value in ("request_stop", "join")
                    and not (func.attr.value == "request_stop" and call.args)
                    and isinstance(small, cst.Expr)
                    and _own_line(small, line, call)
                ):
                    lines.append(line)
                elif func.attr.value == "should_stop" and not call.args:
                    stops.append(call)
                else:
                    raise Decline(call, f"`{source(func)}` has no counterpart without queue runners")
        covered = {id(n) for line in [*lines, *raised] for n in name_nodes(line)} | {id(c.func.value) for c in stops}
        for node in name_nodes(module):
            if node.value in names | runners and id(node) not in covered:
                if node.value in runners and self._runner_definition(node, parents):
                    continue
                raise Decline(
                    node,
                    f"`{node.value}` (the queue runners' coordinator or threads) is used other than "
                    "to start, stop or join them",
                )
        edits = self._without_lines(lines, parents)
        edits += [(line, cst.SimpleStatementLine([cst.Raise()], leading_lines=line.leading_lines)) for line in raised]
        return edits + [self._without_stop(call, parents) for call in stops]

    @staticmethod
    def _runner_definition(node: cst.Name, parents: dict) -> bool:
        """``runner = tf.train.QueueRunner(...)``: the runner's own binding (removed with it)."""
        target = parents.get(id(node))
        return isinstance(target, cst.AssignTarget)

    @staticmethod
    def _without_lines(
        lines: list[cst.SimpleStatementLine], parents: dict
    ) -> list[tuple[cst.CSTNode, Optional[Replacement]]]:
        """Remove ``lines``; a ``finally:`` left empty goes with them (``try: ... finally:
        coord.request_stop()`` keeps its body, and its handlers if it has any)."""
        gone = {id(line) for line in lines}
        edits: list[tuple[cst.CSTNode, Optional[Replacement]]] = []
        dropped: set[int] = set()
        for line in lines:
            block = parents.get(id(line))
            final = parents.get(id(block))
            statement = parents.get(id(final))
            if (
                isinstance(final, cst.Finally)
                and isinstance(statement, cst.Try)
                and all(id(s) in gone for s in block.body)
            ):
                if id(statement) not in dropped:
                    dropped.add(id(statement))
                    edits.append(
                        (
                            statement,
                            (lambda updated: updated.with_changes(finalbody=None))
                            if statement.handlers
                            else (lambda updated: cst.FlattenSentinel(updated.body.body)),
                        )
                    )
                continue
            edits.append((line, None))
        return edits

    @staticmethod
    def _without_stop(call: cst.Call, parents: dict) -> tuple[cst.CSTNode, Optional[Replacement]]:
        """``coord.should_stop()`` is always False now: ``if coord.should_stop(): break`` goes,
        ``while not coord.should_stop():`` is ``while True:``, anything else reads ``False``."""
        parent = parents.get(id(call))
        if isinstance(parent, cst.If) and parent.test is call and parent.orelse is None:
            return parent, None
        if isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not):
            return parent, cst.Name("True")
        return call, cst.Name("False")


def _assignment(statement: cst.CSTNode) -> Optional[cst.Assign]:
    if (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Assign)
        and len(statement.body[0].targets) == 1
    ):
        return statement.body[0]
    return None


def _first_of(value: cst.BaseExpression) -> Optional[cst.BaseExpression]:
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


def _own_line(small: Optional[cst.CSTNode], line: Optional[cst.CSTNode], call: cst.Call) -> bool:
    """``call(...)`` or ``name = call(...)`` alone on its line."""
    return (
        isinstance(line, cst.SimpleStatementLine)
        and len(line.body) == 1
        and (isinstance(small, cst.Expr) or isinstance(small, cst.Assign) and len(small.targets) == 1)
        and small.value is call
    )


def _copies_of(ops: Optional[cst.BaseExpression], name: str) -> bool:
    """``[op]``, ``[op, op]`` or ``[op] * N``: the runner's threads all run ``op``."""
    if isinstance(ops, cst.BinaryOperation) and isinstance(ops.operator, cst.Multiply):
        return _copies_of(ops.left, name) and isinstance(ops.right, (cst.Integer, cst.Name))
    return (
        isinstance(ops, (cst.List, cst.Tuple))
        and bool(ops.elements)
        and all(isinstance(e.value, cst.Name) and e.value.value == name for e in ops.elements)
    )
