"""tfmodernize/layout.py: statements rewritten in place keep their author's layout (``relaid``),
and wide statements are wrapped (``fitted``)."""

import textwrap

import libcst as cst
import pytest

from tfmodernize.layout import fitted, moved, relaid, style_width


def _statement(code: str) -> cst.BaseStatement:
    return cst.parse_module(textwrap.dedent(code)).body[0]


def _code(statement: cst.BaseStatement) -> str:
    return cst.Module(body=[statement]).code


def _relaid(written: str, updated: str, limit: int = 88, depth: int = 0) -> str:
    return _code(relaid(_statement(written), _statement(updated), limit, depth))


REALIGNED = [
    pytest.param(
        """\
        y = tf.log(a,
                   b)
        """,
        """\
        y = tf.math.log(a,
                   b)
        """,
        """\
        y = tf.math.log(a,
                        b)
        """,
        id="a-longer-name-moves-the-aligned-line",
    ),
    pytest.param(
        """\
        y = tf.nn.softmax_cross_entropy_with_logits_v2(labels=a,
                                                       logits=b)
        """,
        """\
        y = tf.nn.softmax_cross_entropy_with_logits(labels=a,
                                                       logits=b)
        """,
        """\
        y = tf.nn.softmax_cross_entropy_with_logits(labels=a,
                                                    logits=b)
        """,
        id="a-shorter-name-too",
    ),
    pytest.param(
        """\
        y = tf.log(tf.matmul(a, b,
                             transpose_b=True),
                   name="y")
        """,
        """\
        y = tf.math.log(tf.matmul(a, b,
                             transpose_b=True),
                   name="y")
        """,
        """\
        y = tf.math.log(tf.matmul(a, b,
                                  transpose_b=True),
                        name="y")
        """,
        id="nested-brackets-on-the-renamed-line",
    ),
    pytest.param(
        """\
        y = tf.log(a,
                   f(b,
                     c))
        """,
        """\
        y = tf.math.log(a,
                   f(b,
                     c))
        """,
        """\
        y = tf.math.log(a,
                        f(b,
                          c))
        """,
        id="a-bracket-on-a-moved-line-carries-its-own-lines",
    ),
    pytest.param(
        """\
        y = tf.log(a,  # the input
                   # scaled first
                   b)
        """,
        """\
        y = tf.math.log(a,  # the input
                   # scaled first
                   b)
        """,
        """\
        y = tf.math.log(a,  # the input
                        # scaled first
                        b)
        """,
        id="a-comment-line-inside-the-arguments",
    ),
    pytest.param(
        """\
        s = tf.reduce_sum(x, reduction_indices=[0,
                                                1])
        """,
        """\
        s = tf.reduce_sum(x, axis=[0,
                                                1])
        """,
        """\
        s = tf.reduce_sum(x, axis=[0,
                                   1])
        """,
        id="a-renamed-keyword-before-the-bracket",
    ),
    pytest.param(
        """\
        y = tf.nn.conv2d(x,
                        filter=w,
                        padding="SAME")
        """,
        """\
        y = tf.nn.conv2d(x,
                        filters=w,
                        padding="SAME")
        """,
        """\
        y = tf.nn.conv2d(x,
                         filters=w,
                         padding="SAME")
        """,
        id="a-line-a-column-off-is-aligned-and-a-renamed-keyword-starting-a-line-follows",
    ),
]

KEPT = [
    pytest.param(
        """\
        y = tf.log(
            a, b)
        """,
        """\
        y = tf.math.log(
            a, b)
        """,
        id="a-hanging-indent-stays",
    ),
    pytest.param(
        """\
        y = tf.reduce_max(p, reduction_indices=1,
                keep_dims=True)
        """,
        """\
        y = tf.reduce_max(p, axis=1,
                keepdims=True)
        """,
        id="a-line-its-author-placed-elsewhere-stays",
    ),
    pytest.param(
        """\
        y = f(tf.log(a), [1,
                          2])
        """,
        """\
        y = f(tf.log(a), [1,
                          2])
        """,
        id="nothing-moved",
    ),
    pytest.param(
        """\
        y = tf.log(a) + g(b,
                          c)
        """,
        """\
        y = tf.math.log(a) + g(
            b, c)
        """,
        id="a-line-the-rewrite-laid-out-itself",
    ),
    pytest.param(
        """\
        if tf.log(a,
                  b):
            pass
        """,
        """\
        if tf.math.log(a,
                  b):
            pass
        """,
        id="a-compound-statement-is-left-as-it-is",
    ),
]


@pytest.mark.parametrize("written, updated, expected", REALIGNED)
def test_continuation_lines_follow_the_bracket_they_were_aligned_to(written, updated, expected):
    assert _relaid(written, updated) == textwrap.dedent(expected)


@pytest.mark.parametrize("written, updated", KEPT)
def test_other_lines_stay_where_they_are(written, updated):
    assert _relaid(written, updated) == textwrap.dedent(updated)


WRAPPED = [
    pytest.param(
        "w = tf.Variable(tf.truncated_normal([3, 4], mean=0.5, stddev=0.1), name='hidden')\n",
        "w = tf.Variable(tf.random.truncated_normal([3, 4], mean=0.5, stddev=0.1), name='hidden')\n",
        80,
        0,
        "w = tf.Variable(\n    tf.random.truncated_normal([3, 4], mean=0.5, stddev=0.1), name='hidden'\n)\n",
        id="arguments-on-a-line-of-their-own",
    ),
    pytest.param(
        "loss = -tf.reduce_sum(t * tf.log(p + 1e-6) + (1.0 - t) * tf.log(1.0 - p + 1e-6))\n",
        "loss = -tf.reduce_sum(t * tf.math.log(p + 1e-6) + (1.0 - t) * tf.math.log(1.0 - p + 1e-6))\n",
        60,
        0,
        "loss = -tf.reduce_sum(\n    t * tf.math.log(p + 1e-6)\n    + (1.0 - t) * tf.math.log(1.0 - p + 1e-6)\n)\n",
        id="a-call-under-a-minus-its-sum-one-operand-a-line",
    ),
    pytest.param(
        "h = tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding='SAME') + b\n",
        "h = tf.compat.v2.nn.conv2d(x, filters=w, strides=[1, 1, 1, 1], padding='SAME') + b\n",
        76,
        1,
        "h = (\n    tf.compat.v2.nn.conv2d(x, filters=w, strides=[1, 1, 1, 1], padding='SAME')\n    + b\n)\n",
        id="a-sum-in-parentheses-one-operand-a-line",
    ),
    pytest.param(
        "y = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=a, logits=b), name='y')\n",
        "y = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=tf.stop_gradient(a), logits=b), name='y')\n",
        60,
        0,
        "y = tf.reduce_mean(\n    tf.nn.softmax_cross_entropy_with_logits(\n"
        "        labels=tf.stop_gradient(a), logits=b\n    ),\n    name='y',\n)\n",
        id="one-per-line-an-argument-still-too-wide-wrapped-inside",
    ),
    pytest.param(
        "y = tf.nn.conv2d(x, w, strides=[1, 1, 1, 1],\n                 padding='SAME')\n",
        "y = tf.compat.v2.nn.conv2d(x, filters=w, strides=[1, 1, 1, 1],\n                 padding='SAME')\n",
        60,
        0,
        "y = tf.compat.v2.nn.conv2d(\n    x, filters=w, strides=[1, 1, 1, 1], padding='SAME'\n)\n",
        id="its-authors-line-breaks-joined-first",
    ),
    pytest.param(
        "y = (\n    -tf.reduce_sum(a * tf.log(b) + c * tf.log(d))\n)\n",
        "y = (\n    -tf.reduce_sum(a * tf.compat.v2.math.log(b) + c * tf.compat.v2.math.log(d))\n)\n",
        70,
        0,
        "y = -tf.reduce_sum(\n    a * tf.compat.v2.math.log(b) + c * tf.compat.v2.math.log(d)\n)\n",
        id="parentheses-of-an-earlier-wrap-go-with-it",
    ),
    pytest.param(
        "w = tf.Variable(tf.truncated_normal([3]))  # a comment its author made long, and it stays so\n",
        "w = tf.Variable(tf.random.truncated_normal([3]))  # a comment its author made long, and it stays so\n",
        70,
        0,
        "w = tf.Variable(tf.random.truncated_normal([3]))  # a comment its author made long, and it stays so\n",
        id="only-a-trailing-comment-overflows-left-alone",
    ),
    pytest.param(
        "w = tf.Variable(tf.truncated_normal([3, 4], stddev=0.1))  # small\n",
        "w = tf.Variable(tf.random.truncated_normal([3, 4], stddev=0.1))  # small\n",
        56,
        0,
        "w = tf.Variable(\n    tf.random.truncated_normal([3, 4], stddev=0.1)\n)  # small\n",
        id="a-trailing-comment-follows-the-wrap",
    ),
    pytest.param(
        "y = tf.log(a,  # note\n           b)\n",
        "y = tf.math.log(a_longer_name,  # note\n           b)\n",
        20,
        0,
        "y = tf.math.log(a_longer_name,  # note\n                b)\n",
        id="a-comment-inside-keeps-the-authors-lines",
    ),
    pytest.param(
        "y = f(tf.log(a),\n      'one part '\n      'and another')\n",
        "y = f(tf.math.log(a),\n      'one part '\n      'and another')\n",
        20,
        0,
        "y = f(tf.math.log(a),\n      'one part '\n      'and another')\n",
        id="strings-side-by-side-on-two-lines-are-kept",
    ),
    pytest.param(
        "y = f(\n    tf.log(a),\n    b,\n)\n",
        "y = f(\n    tf.math.log(a_name),\n    b,\n)\n",
        30,
        0,
        "y = f(\n    tf.math.log(a_name),\n    b,\n)\n",
        id="no-op-one-item-a-line-with-a-trailing-comma-fitting-is-kept",
    ),
    pytest.param(
        "y = f(\n    tf.log(a),\n    b,\n)\n",
        "y = f(\n    tf.math.log(a_much_longer_name),\n    b,\n)\n",
        30,
        0,
        "y = f(\n    tf.math.log(\n        a_much_longer_name\n    ),\n    b,\n)\n",
        id="one-item-a-line-with-a-trailing-comma-is-kept-its-wide-item-wrapped-inside",
    ),
]


@pytest.mark.parametrize("written, updated, limit, depth, expected", WRAPPED)
def test_a_statement_made_too_wide_is_wrapped(written, updated, limit, depth, expected):
    assert _relaid(written, updated, limit, depth) == expected


def test_fitted_without_further_wraps_as_before():
    # The other codemods' wraps: a negated call goes in parentheses, a sum is not split.
    statement = _statement("y = -tf.reduce_sum(a * tf.math.log(b) + c * tf.math.log(d))\n")
    assert _code(fitted(statement, 40, 0)) == "y = (\n    -tf.reduce_sum(a * tf.math.log(b) + c * tf.math.log(d))\n)\n"
    assert _code(fitted(statement, 40, 0, further=True)) == (
        "y = -tf.reduce_sum(\n    a * tf.math.log(b)\n    + c * tf.math.log(d)\n)\n"
    )


def test_style_width_is_the_files_longest_line_within_bounds():
    assert style_width("x = 1\n") == 88
    assert style_width("x = " + "1" * 90 + "\n") == 94
    assert style_width("x = " + "1" * 200 + "\n") == 100


@pytest.mark.parametrize(
    "line, expected",
    [
        pytest.param(
            "make(first_argument, second_argument, third=3).save(step=i)\n",
            "make(\n    first_argument,\n    second_argument,\n    third=3,\n).save(step=i)\n",
            id="the-receiver-call-wrapped-when-the-method-call-is-not-enough",
        ),
        pytest.param(
            "make(a).save(first_argument, second_argument, third=3)\n",
            "make(a).save(\n    first_argument,\n    second_argument,\n    third=3,\n)\n",
            id="the-method-call-wrapped-first",
        ),
        pytest.param("make(a).save(step=i)\n", "make(a).save(step=i)\n", id="no-op-it-fits"),
    ],
)
def test_fitted_wraps_the_call_a_method_is_called_on(line, expected):
    assert _code(fitted(_statement(line), 40, 0)) == expected


@pytest.mark.parametrize(
    "line, depth, expected",
    [
        pytest.param(
            "scores = [score_of(row, weights) for row in rows_of_the_table]\n",
            0,
            "scores = [\n    score_of(row, weights)\n    for row in rows_of_the_table\n]\n",
            id="a-list-comprehension-one-clause-a-line",
        ),
        pytest.param(
            "kept = {n.lower() for group in groups for n in group if n}\n",
            1,
            "kept = {\n    n.lower()\n    for group in groups\n    for n in group\n    if n\n}\n",
            id="a-set-comprehension-each-for-and-if-a-line",
        ),
        pytest.param("short = [x for x in y]\n", 0, "short = [x for x in y]\n", id="no-op-it-fits"),
        pytest.param(
            "pairs = ([left_value, right_value] for left_value, right_value in pairs_of_values)\n",
            0,
            "pairs = ([left_value, right_value] for left_value, right_value in pairs_of_values)\n",
            id="no-op-a-generator-in-its-own-parentheses",
        ),
    ],
)
def test_fitted_splits_a_comprehension_as_black_does(line, depth, expected):
    assert _code(fitted(_statement(line), 40, depth)) == expected


@pytest.mark.parametrize(
    "line, expected",
    [
        pytest.param(
            "updates = [step(first_weights, 0.5), step(second_weights_of_layer, 0.5)]\n",
            "updates = [\n    step(first_weights, 0.5),\n    step(\n        second_weights_of_layer,\n        0.5,\n    ),\n]\n",
            id="one-element-a-line-a-wide-one-wrapped-inside",
        ),
        pytest.param(
            "updates = [first, second]\n",
            "updates = [first, second]\n",
            id="no-op-it-fits",
        ),
        pytest.param(
            "return [first_weights_update, second_weights_update, third]\n",
            "return (\n    [first_weights_update, second_weights_update, third]\n)\n",
            id="a-returned-list-is-parenthesized-as-before",
        ),
    ],
)
def test_fitted_further_puts_a_wide_assigned_list_one_element_a_line(line, expected):
    assert _code(fitted(_statement(line), 34, 0, further=True)) == expected


def _moved(code: str, limit: int, depth: int) -> str:
    return _code(moved(cst.parse_statement(textwrap.dedent(code)), limit, depth))


@pytest.mark.parametrize(
    "code, depth, expected",
    [
        pytest.param(
            """\
            # the weights start small so that the first steps of training stay stable
            x = f(y)
            """,
            1,
            """\
            # the weights start small so that the first steps of
            # training stay stable
            x = f(y)
            """,
            id="a-comment-made-too-wide-by-the-move-is-wrapped-at-a-word",
        ),
        pytest.param(
            """\
            # the weights start small so that the first steps of training stay
            # stable, and the bias starts at zero
            x = f(y)
            """,
            1,
            """\
            # the weights start small so that the first steps of
            # training stay stable, and the bias starts at zero
            x = f(y)
            """,
            id="the-words-pushed-off-start-the-next-line-of-the-paragraph",
        ),
        pytest.param(
            """\
            # the weights start small so that the first steps of training stay stable
            # - a list item is not joined
            x = f(y)
            """,
            1,
            """\
            # the weights start small so that the first steps of
            # training stay stable
            # - a list item is not joined
            x = f(y)
            """,
            id="a-list-item-below-keeps-its-own-line",
        ),
        pytest.param(
            """\
            # the weights start small so that the first steps
            x = f(y)
            """,
            1,
            """\
            # the weights start small so that the first steps
            x = f(y)
            """,
            id="no-op-a-comment-that-still-fits",
        ),
        pytest.param(
            """\
            #x = compute_the_weights(first_argument, second_argument)
            x = f(y)
            """,
            1,
            """\
            #x = compute_the_weights(first_argument, second_argument)
            x = f(y)
            """,
            id="no-op-code-commented-out",
        ),
        pytest.param(
            """\
            # https://example.org/a/very/long/address/that/has/no/space/in/it
            x = f(y)
            """,
            1,
            """\
            # https://example.org/a/very/long/address/that/has/no/space/in/it
            x = f(y)
            """,
            id="no-op-one-word-too-long",
        ),
        pytest.param(
            """\
            # pylint: disable=too-many-arguments,too-many-locals,invalid-name
            x = f(y)
            """,
            1,
            """\
            # pylint: disable=too-many-arguments,too-many-locals,invalid-name
            x = f(y)
            """,
            id="no-op-a-pragma",
        ),
    ],
)
def test_a_moved_comment_too_wide_is_wrapped_at_word_boundaries(code, depth, expected):
    assert _moved(code, 60, depth) == textwrap.dedent(expected)


@pytest.mark.parametrize(
    "line, expected",
    [
        pytest.param(
            "optimizer.build([first_weights, second_weights, first_bias])\n",
            "optimizer.build(\n    [\n        first_weights,\n        second_weights,\n        first_bias,\n    ]\n)\n",
            id="a-sole-list-argument-one-element-a-line",
        ),
        pytest.param(
            "grads = tape.gradient(loss_value, [first_weights, second_weights])\n",
            "grads = tape.gradient(\n    loss_value,\n    [\n        first_weights,\n        second_weights,\n"
            "    ],\n)\n",
            id="a-list-argument-still-too-wide-on-its-line",
        ),
        pytest.param(
            "return first_mean, first_spread, second_mean, second_spread\n",
            "return (\n    first_mean,\n    first_spread,\n    second_mean,\n    second_spread,\n)\n",
            id="a-returned-tuple-too-wide-in-parentheses",
        ),
        pytest.param(
            "return first_mean, first_spread\n",
            "return first_mean, first_spread\n",
            id="no-op-a-tuple-that-fits",
        ),
        pytest.param(
            "grads = grad_of(loss, [w, bias])\n",
            "grads = grad_of(loss, [w, bias])\n",
            id="no-op-a-list-that-fits",
        ),
    ],
)
def test_fitted_puts_a_wide_list_or_tuple_one_element_a_line(line, expected):
    assert _code(fitted(_statement(line), 34, 0)) == expected


def test_a_statement_wrapped_for_a_shallower_depth_is_wrapped_again():
    once = fitted(_statement("optimizer = make(learning_rate=rate, beta=0.9, epsilon=1e-08)\n"), 48, 0)
    assert _code(once) == "optimizer = make(\n    learning_rate=rate, beta=0.9, epsilon=1e-08\n)\n"
    assert _code(fitted(once, 48, 1)) == (
        "optimizer = make(\n    learning_rate=rate,\n    beta=0.9,\n    epsilon=1e-08,\n)\n"
    )


@pytest.mark.parametrize(
    "code, expected",
    [
        pytest.param(
            "with scope_of(with_norm(base_arg_scope)(weight_decay=0.5)) as scope:\n    x = 1\n",
            "with scope_of(\n    with_norm(base_arg_scope)(weight_decay=0.5)\n) as scope:\n    x = 1\n",
            id="the-call-of-a-wide-with-item-wrapped",
        ),
        pytest.param(
            "with scope_of(norm) as scope:\n    x = some_function_with_a_long_name(argument)\n",
            "with scope_of(norm) as scope:\n    x = some_function_with_a_long_name(argument)\n",
            id="no-op-its-first-line-fits",
        ),
        pytest.param(
            "with open_one(first_path) as a, open_two(second_path_of_it) as b:\n    x = 1\n",
            "with open_one(first_path) as a, open_two(second_path_of_it) as b:\n    x = 1\n",
            id="no-op-several-items",
        ),
    ],
)
def test_the_first_line_of_a_with_statement_is_wrapped(code, expected):
    statement = _statement(code)
    assert _code(fitted(statement, 60, 0)) == expected
    assert _code(relaid(statement, statement, 60, 0)) == expected
