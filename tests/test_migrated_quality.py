"""benchmarks/migrated_quality.py: the comments a migration kept, lost or orphaned, counted with
their words (a comment reflowed to the file's width is kept) and their statements read as one
line (a call wrapped over other lines still follows its comment)."""

import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import migrated_quality  # noqa: E402


def _counts(original: str, migrated: str) -> tuple[int, int]:
    quality = migrated_quality.measure("case", textwrap.dedent(original), textwrap.dedent(migrated))
    return quality.counts["orphaned"], quality.counts["lost"]


ORIGINAL = """
    def scale(values, factor):
        # multiply every value by the factor given, then shift the products up by one so that
        # none of them is zero when the factor is
        shifted = [v * factor + 1 for v in values]
        # Report
        print("shifted values {}".format(summary_of(shifted)))
        return shifted
"""

CASES = [
    pytest.param(
        ORIGINAL,
        (0, 0),
        id="unchanged-nothing-counted",
    ),
    pytest.param(
        """
        class Scale:
            def __call__(self, values, factor):
                # multiply every value by the factor given, then shift the products up by
                # one so that none of them is zero when the factor is
                shifted = [v * factor + 1 for v in values]
                # Report
                print(
                    "shifted values {}".format(summary_of(shifted))
                )
                return shifted
        """,
        (0, 0),
        id="reflowed-comment-kept-wrapped-call-still-follows",
    ),
    pytest.param(
        """
        def scale(values, factor):
            shifted = [v * factor + 1 for v in values]
            # Report
            print("shifted values {}".format(summary_of(shifted)))
            return shifted
        """,
        (0, 2),
        id="comment-gone-its-statement-kept-lost",
    ),
    pytest.param(
        """
        def scale(values, factor):
            # multiply every value by the factor given, then shift the products up by one so that
            # none of them is zero when the factor is
            shifted = [v * factor + 1 for v in values]
            # Report
            return shifted
        """,
        (1, 0),
        id="comment-above-another-statement-orphaned",
    ),
]


@pytest.mark.parametrize(("migrated", "expected"), CASES)
def test_comments_kept_lost_orphaned(migrated, expected):
    assert _counts(ORIGINAL, migrated) == expected


RUN_ORIGINAL = """
    with tf.Session() as sess:
        sess.run(setup)
        for step in range(40):
            if step % 10 == 0:
                # score the held-out rows and
                # record the result
                record, score = sess.run([merged, score_op], feed_dict={rows: held_out})
                log.add_summary(record, step)
"""

RUN_CASES = [
    pytest.param(
        """
        @tf.function
        def compute_score(rows, step):
            return score_of(rows)


        for step in range(40):
            if step % 10 == 0:
                # score the held-out rows and
                # record the result
                score = compute_score(held_out, step).numpy()
        """,
        (0, 0),
        id="run-made-a-call-of-the-function-written-for-it-kept",
    ),
    pytest.param(
        """
        @tf.function
        def record_scores(rows, step):
            write(score_of(rows), step)


        for step in range(40):
            if step % 10 == 0:
                # score the held-out rows and
                # record the result
                record_scores(held_out, step)
        """,
        (0, 0),
        id="run-made-a-call-binding-nothing-kept",
    ),
    pytest.param(
        """
        @tf.function
        def compute_score(rows, step):
            return score_of(rows)


        for step in range(40):
            if step % 10 == 0:
                # score the held-out rows and
                # record the result
                best = compute_score(held_out, step).numpy()
        """,
        (2, 0),
        id="call-binding-a-name-the-run-did-not-orphaned",
    ),
]


@pytest.mark.parametrize(("migrated", "expected"), RUN_CASES)
def test_comment_on_a_run_follows_the_call_replacing_it(migrated, expected):
    assert _counts(RUN_ORIGINAL, migrated) == expected


def test_comment_on_a_removed_run_above_the_next_run_is_orphaned():
    original = """
        with tf.Session() as sess:
            # set the weights up
            sess.run(setup)
            sess.run(train_op)
    """
    migrated = """
        @tf.function
        def train_step():
            step_once()


        # set the weights up
        train_step()
    """
    assert _counts(original, migrated) == (1, 0)


OBJECTS_ORIGINAL = """
    rows = load()
    # the recurrent part
    cell = make_cell(4)
    outputs, state = unroll(cell, rows)
    # read out
    scores = project(state)
    print(scores)
"""

# The statements of the program moved around it: only the objects made can tell where the
# comment's statement went.
OBJECTS_CASES = [
    pytest.param(
        """
        # the recurrent part
        recurrent_kernel = Kernel()
        recurrent = Recurrent(4, kernel=recurrent_kernel)


        def build_scores(rows):
            outputs, state = recurrent(rows)
            # read out
            scores = project(state)
            return scores


        rows = load()
        print(build_scores(rows))
        """,
        (0, 0),
        id="statement-gone-objects-made-in-its-place-kept",
    ),
    pytest.param(
        """
        # the recurrent part
        recurrent = Recurrent(4)


        def build_scores(rows):
            hidden = recurrent(rows)
            # read out
            scores = project(hidden)
            return scores


        rows = load()
        print(build_scores(rows))
        """,
        (1, 0),
        id="objects-whose-call-computes-something-else-orphaned",
    ),
]


@pytest.mark.parametrize(("migrated", "expected"), OBJECTS_CASES)
def test_comment_on_a_statement_replaced_by_objects(migrated, expected):
    assert _counts(OBJECTS_ORIGINAL, migrated) == expected


def test_comment_on_a_function_kept_below_the_objects_made_is_orphaned():
    original = """
        # the network, built by one function
        def network(rows):
            hidden = dense(rows, 6)
            return dense(hidden, 1)
    """
    migrated = """
        # the network, built by one function
        first = tf.keras.layers.Dense(6)
        second = tf.keras.layers.Dense(1)


        def network(rows):
            hidden = first(rows)
            return second(hidden)
    """
    assert _counts(original, migrated) == (1, 0)


def _measured(original: str, migrated: str, column: str) -> int:
    quality = migrated_quality.measure("case", textwrap.dedent(original), textwrap.dedent(migrated))
    return quality.counts[column]


WIDE = "values = " + " + ".join(f"weight_{n} * row_{n}" for n in range(6))  # 119 characters
NARROW = "values = " + " + ".join(f"weight_{n} * row_{n}" for n in range(4))  # 81 characters


@pytest.mark.parametrize(
    ("original", "migrated", "expected"),
    [
        pytest.param(
            f"with tf.Session() as sess:\n    {WIDE}\n",
            f"{WIDE}\n",
            0,
            id="authors-wide-line-moved-out-of-a-block-not-counted",
        ),
        pytest.param(
            f"{WIDE}\n",
            f"def compute():\n    {WIDE}\n    return values\n",
            0,
            id="authors-wide-line-moved-into-a-function-not-counted",
        ),
        pytest.param(
            f"{NARROW}\n",
            f"def compute():\n    {NARROW} + bias * scale_of_the_bias_term\n    return values\n",
            1,
            id="line-made-wider-than-the-style-counted",
        ),
        pytest.param(
            f"{WIDE}\ntotal = values\n",
            f"{WIDE}\ntotal = values\nlabel = {WIDE[9:]} - one\n",
            1,
            id="new-wide-line-in-a-file-with-wide-lines-counted",
        ),
    ],
)
def test_wide_lines_are_those_the_migration_wrote(original, migrated, expected):
    assert len(WIDE) > 100 >= len(NARROW)
    assert _measured(original, migrated, "wide") == expected


@pytest.mark.parametrize(
    ("migrated", "expected"),
    [
        pytest.param("a = 1\n        \nb = 2\n", 0, id="one-blank-line-of-spaces-is-one-line"),
        pytest.param("a = 1\n    \n\n\nb = 2\n", 1, id="three-blank-lines-counted"),
    ],
)
def test_blank_runs_counted_in_lines(migrated, expected):
    assert _measured("a = 1\n\nb = 2\n", migrated, "blank") == expected


@pytest.mark.parametrize(
    ("migrated", "expected"),
    [
        pytest.param(
            """
            for step in range(50):
                value = train_step(rows).numpy()
                if step % 10 == 0:
                    print(value)
            """,
            1,
            id="read-only-under-an-if-counted",
        ),
        pytest.param(
            """
            for step in range(50):
                value = train_step(rows).numpy()
                history.append(value)
            """,
            0,
            id="read-at-every-pass-not-counted",
        ),
        pytest.param(
            """
            for step in range(50):
                value = train_step(rows)
                if step % 10 == 0:
                    print(value.numpy())
            """,
            0,
            id="converted-where-read-not-counted",
        ),
        pytest.param(
            """
            for epoch in range(5):
                for batch in batches:
                    spread, loss = [t.numpy() for t in train_step(batch)]
                    total += loss
                with writer.as_default():
                    tf.summary.scalar("spread", spread, step=epoch)
            """,
            1,
            id="read-after-the-inner-loop-counted-once",
        ),
        pytest.param(
            """
            loss = 1.0
            while loss > 0.1:
                loss = train_step(rows).numpy()
            """,
            0,
            id="read-by-the-loop-test-not-counted",
        ),
    ],
)
def test_values_converted_at_every_step_but_read_at_some(migrated, expected):
    assert _measured("train_step = None\n", migrated, "unread-step") == expected
