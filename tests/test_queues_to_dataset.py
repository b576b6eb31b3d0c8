"""TFM114 queues-to-dataset: golden rewrites (TFM114 alone: the pipeline read through a one-shot
iterator, which session-to-function then iterates), declines with findings, no-ops."""

import textwrap

import pytest

from tfmodernize.testing import assert_rewrites, assert_unchanged, rewrite


def _code(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


REWRITES = [
    pytest.param(
        """
        import tensorflow as tf

        queue = tf.FIFOQueue(capacity=8, dtypes=[tf.float32, tf.int32], shapes=[[2], []])
        fill = queue.enqueue_many([points, labels])
        point, label = queue.dequeue()
        runner = tf.train.QueueRunner(queue, [fill] * 4)
        coord = tf.train.Coordinator()
        threads = runner.create_threads(sess, coord=coord, start=True)
        try:
            step()
        except Exception as error:
            coord.request_stop(error)
        finally:
            coord.request_stop()
            coord.join(threads)
        """,
        """
        import tensorflow as tf

        dataset = tf.data.Dataset.from_tensor_slices(
            (tf.constant(points, dtype=tf.float32), tf.constant(labels, dtype=tf.int32))
        ).repeat()
        batches = tf.data.make_one_shot_iterator(dataset)
        point, label = batches.get_next()
        try:
            step()
        except Exception as error:
            raise
        """,
        id="own-fifo-queue-of-constant-rows-and-its-threads",
    ),
    pytest.param(
        """
        import tensorflow as tf

        a, b = tf.train.slice_input_producer([xs, ys], shuffle=False)
        a_batch, b_batch = tf.train.batch([a, b], batch_size=3)
        """,
        """
        import tensorflow as tf

        dataset = (
            tf.data.Dataset.from_tensor_slices((xs, ys))
            .repeat()
            .batch(3, drop_remainder=True)
        )
        batches = tf.data.make_one_shot_iterator(dataset)
        a_batch, b_batch = batches.get_next()
        """,
        id="slices-straight-to-batch",
    ),
    pytest.param(
        """
        import tensorflow as tf

        q = tf.train.string_input_producer(["a.tfrecord"], num_epochs=1)
        reader = tf.TFRecordReader()
        _, serialized = reader.read(q)
        parsed = tf.parse_single_example(serialized, spec)
        batch = tf.train.batch([parsed["x"]], 8, allow_smaller_final_batch=True)
        """,
        """
        import tensorflow as tf


        def parse_record(serialized):
            parsed = tf.parse_single_example(serialized, spec)
            return parsed["x"]


        dataset = (
            tf.data.Dataset.from_tensor_slices(["a.tfrecord"])
            .repeat(1)
            .flat_map(tf.data.TFRecordDataset)
            .map(parse_record)
            .batch(8)
        )
        batches = tf.data.make_one_shot_iterator(dataset)
        batch = batches.get_next()
        """,
        id="tfrecords-one-file-keep-last-batch",
    ),
    pytest.param(
        """
        import tensorflow as tf

        row = tf.train.slice_input_producer([data], shuffle=False)[0]
        rows = tf.train.batch([row], 2)
        coord = tf.train.Coordinator()
        tf.train.start_queue_runners(coord=coord)
        while not coord.should_stop():
            step()
        """,
        """
        import tensorflow as tf

        dataset = (
            tf.data.Dataset.from_tensor_slices(data)
            .repeat()
            .batch(2, drop_remainder=True)
        )
        batches = tf.data.make_one_shot_iterator(dataset)
        rows = batches.get_next()
        while True:
            step()
        """,
        id="one-tensor-and-the-coordinator",
    ),
    pytest.param(
        """
        import tensorflow as tf

        first, second = tf.train.slice_input_producer(
            [first_feature_columns_of_the_set, second_feature_columns_of_the_set], shuffle=False
        )
        first_batch, second_batch = tf.train.batch([first, second], batch_size=3)
        """,
        """
        import tensorflow as tf

        dataset = (
            tf.data.Dataset.from_tensor_slices(
                (first_feature_columns_of_the_set, second_feature_columns_of_the_set)
            )
            .repeat()
            .batch(3, drop_remainder=True)
        )
        batches = tf.data.make_one_shot_iterator(dataset)
        first_batch, second_batch = batches.get_next()
        """,
        id="the-chain-s-first-line-wider-than-the-file-wrapped",
    ),
]


@pytest.mark.parametrize(("before", "after"), REWRITES)
def test_rewrites(before, after):
    assert_rewrites("TFM114", _code(before), _code(after))


def test_a_shuffled_pipeline_says_its_order_is_not_tf1s():
    result = rewrite(
        "TFM114",
        _code("""
        import tensorflow as tf

        q = tf.train.string_input_producer(["a.csv", "b.csv"])
        reader = tf.TextLineReader()
        _, line = reader.read(q)
        lines = tf.train.batch([line], 4, num_threads=4)
        """),
    )
    assert ".shuffle(dataset.cardinality())" in result.code and ".flat_map(tf.data.TextLineDataset)" in result.code
    messages = [f.message for f in result.findings]
    assert any("shuffles by default" in m for m in messages) and any("batched by 4 threads" in m for m in messages)


DECLINES = [
    pytest.param(
        """
        import tensorflow as tf

        def inputs():
            a, b = tf.train.slice_input_producer([xs, ys])
            return tf.train.batch([a, b], 3)
        """,
        "not `name = ...` on a line of its own in the program's top-level code",
        id="built-in-a-function",
    ),
    pytest.param(
        """
        import tensorflow as tf

        a, b = tf.train.slice_input_producer([xs, ys])
        a_batch, b_batch = tf.train.batch([a, b], 3)
        print(a)
        """,
        "per-record tensor `a` is used after the batch",
        id="record-used-after-the-batch",
    ),
    pytest.param(
        """
        import tensorflow as tf

        q = tf.train.string_input_producer(["a.csv"])
        reader = tf.TextLineReader()
        key, line = reader.read(q)
        lines, keys = tf.train.batch([line, key], 4)
        """,
        "the record key `key`",
        id="record-key-used",
    ),
    pytest.param(
        """
        import tensorflow as tf

        a, b = tf.train.slice_input_producer([xs, ys])
        batch = tf.train.batch({"a": a, "b": b}, 3)
        """,
        "does not take a list of tensors",
        id="batch-of-a-dict",
    ),
    pytest.param(
        """
        import tensorflow as tf

        a, b = tf.train.slice_input_producer([xs, ys])
        batch = tf.train.batch([a, b], 3, enqueue_many=True)
        """,
        "`enqueue_many`",
        id="enqueue-many",
    ),
    pytest.param(
        """
        import tensorflow as tf

        a, b = tf.train.slice_input_producer([xs, ys])
        batch = tf.train.batch([a, b], 3)
        coord = tf.train.Coordinator()
        helper(coord)
        """,
        "used other than to start, stop or join them",
        id="coordinator-passed-on",
    ),
    pytest.param(
        """
        import tensorflow as tf

        q = tf.RandomShuffleQueue(3, 1, tf.float32)
        a, b = tf.train.slice_input_producer([xs, ys])
        batch = tf.train.batch([a, b], 3)
        """,
        "builds its own queues",
        id="own-shuffling-queue",
    ),
    pytest.param(
        """
        import tensorflow as tf

        q = tf.FIFOQueue(3, tf.float32)
        a, b = tf.train.slice_input_producer([xs, ys])
        batch = tf.train.batch([a, b], 3)
        """,
        "more than one input queue",
        id="two-queues",
    ),
    pytest.param(
        """
        import tensorflow as tf

        q = tf.FIFOQueue(3, [tf.float32])
        put = q.enqueue_many([tf.ones([3])])
        x = q.dequeue()
        runner = tf.train.QueueRunner(q, [put])
        """,
        "the enqueued rows are tensors",
        id="queue-of-tensors",
    ),
    pytest.param(
        """
        import tensorflow as tf

        q = tf.FIFOQueue(3, [tf.float32])
        put = q.enqueue_many([rows])
        x = q.dequeue()
        runner = tf.train.QueueRunner(q, [put])
        size = q.size()
        """,
        "not filled by one `enqueue_many` its one QueueRunner runs",
        id="queue-used-otherwise",
    ),
]


@pytest.mark.parametrize(("source", "message"), DECLINES)
def test_declines_with_a_finding(source, message):
    result = assert_unchanged("TFM114", _code(source))
    assert [f.code for f in result.findings] == ["TFM114"]
    assert message in result.findings[0].message and result.findings[0].message.startswith("input queue not migrated")


NO_OPS = [
    pytest.param("import tensorflow as tf\nds = tf.data.Dataset.range(3).batch(2)\n", id="already-tf-data"),
    pytest.param("import tensorflow as tf\nx = tf.train.batch\n", id="name-only"),
]


@pytest.mark.parametrize("source", NO_OPS)
def test_no_ops(source):
    assert assert_unchanged("TFM114", source).findings == []
