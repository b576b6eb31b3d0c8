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

import libcst as cst

from tfmodernize.codemod import Decline, TFCodemod
from tfmodernize.codemods.migrate.queues_to_dataset.coordinator import coordination_edits
from tfmodernize.codemods.migrate.queues_to_dataset.dataset import Writing, dataset_statements
from tfmodernize.codemods.migrate.queues_to_dataset.own_queue import (
    FIFO,
    own_queue_statements,
    read_own_queue,
)
from tfmodernize.codemods.migrate.queues_to_dataset.pipeline import PRODUCERS, read_pipeline
from tfmodernize.layout import depth, fitted, style_width
from tfmodernize.syntax import source
from tfmodernize.treewalk import walk

#: Queues a program builds itself whose order its threads decide (a FIFOQueue its runners fill
#: with the same constant rows is read by ``own_queue``).
OWN_QUEUES = (
    "RandomShuffleQueue",
    "PaddingFIFOQueue",
    "PriorityQueue",
    "train.input_producer",
    "train.range_input_producer",
)


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
                pipeline = read_pipeline(module, producers[0], self.tf)
                removed = [pipeline.producer, *pipeline.removed, *pipeline.per_record]
                at = pipeline.batch_line
                writing = self._writing(module, at)
                statements = dataset_statements(module, pipeline, writing, self.tf)
                runners: set[str] = set()
            else:
                queue = read_own_queue(module, fifos[0], self.tf)
                removed, at, runners = queue.removed, queue.dequeue_line, {queue.runner}
                writing = self._writing(module, at)
                statements = own_queue_statements(module, queue, writing)
                pipeline = None
            coordination = coordination_edits(module, calls, runners, self.tf, self.state.parents(module))
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
        statements = [fitted(statement, writing.width, writing.depth, further=True) for statement in statements]
        self.replace(at, cst.FlattenSentinel(statements))
        for node, replacement in coordination:
            if replacement is None:
                self.remove(node)
            else:
                self.replace(node, replacement)

    def _writing(self, module: cst.Module, at: cst.SimpleStatementLine) -> Writing:
        """How the code replacing ``at`` is spelled (this adds the TensorFlow import the file
        lacks) and laid out."""
        return Writing(
            root=self.tf_root(),
            make_iterator=source(self.tf_expr("data.make_one_shot_iterator")),
            width=style_width(self.state.text),
            depth=depth(at, self.state.parents(module)),
        )
