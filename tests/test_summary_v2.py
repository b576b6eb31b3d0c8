"""TFM100 summary-v2: golden and no-op tables (events-file equality is in fixtures/summary-v2)."""

import pytest

from tfmodernize.testing import assert_rewrites, assert_unchanged

HEAD = "import tensorflow as tf\nx = tf.placeholder(tf.float32)\nloss = tf.reduce_sum(x)\nw = tf.Variable(1.0)\n"

REWRITES = [
    pytest.param(
        HEAD + 'tf.summary.scalar("loss", loss)\nm = tf.summary.merge_all()\n'
        "sess = tf.Session()\nwriter = tf.summary.FileWriter('logs', sess.graph)\n"
        "s = sess.run(m, {x: 1.0})\nwriter.add_summary(s, 3)\n",
        HEAD + "sess = tf.Session()\nwriter = tf.summary.create_file_writer('logs')\n"
        "s_loss = sess.run(loss, {x: 1.0})\nwith writer.as_default():\n"
        '    tf.summary.scalar("loss", s_loss, step=3)\n',
        id="single-merged-fetch",
    ),
    pytest.param(
        HEAD + 'a = tf.summary.scalar("loss", loss)\nb = tf.summary.histogram("w", w)\nm = tf.summary.merge([b])\n'
        "sess = tf.Session()\nwriter = tf.summary.FileWriter('logs', flush_secs=5)\n"
        "_, s = sess.run([loss, m], {x: 1.0})\nwriter.add_summary(s)\nwriter.flush()\n",
        HEAD + "sess = tf.Session()\nwriter = tf.summary.create_file_writer('logs', flush_millis=(5) * 1000)\n"
        "_, s_w = sess.run([loss, w], {x: 1.0})\nwith writer.as_default():\n"
        '    tf.summary.histogram("w", s_w, step=0)\nwriter.flush()\n',
        id="merge-of-a-list-no-step-flush-kept",
    ),
    pytest.param(
        HEAD + 'one = tf.summary.scalar("loss", loss)\nsess = tf.Session()\n'
        "writer = tf.summary.FileWriter('logs')\nv, s = sess.run([loss, one])\nwriter.add_summary(s, v)\n",
        HEAD + "sess = tf.Session()\nwriter = tf.summary.create_file_writer('logs')\n"
        "v, s_loss = sess.run([loss, loss])\nwith writer.as_default():\n"
        '    tf.summary.scalar("loss", s_loss, step=v)\n',
        id="one-summary-fetched-by-name",
    ),
    pytest.param(
        HEAD + 'tf.summary.scalar("loss", loss)\nmerged = tf.summary.merge_all()\n',
        HEAD,
        id="never-fetched-goes",
    ),
    pytest.param(
        HEAD + 'with tf.name_scope("train"):\n    with tf.variable_scope("inner"):\n'
        '        tf.summary.image("raw image", tf.reshape(x, [-1, 2, 2, 1]), 3)\n'
        '    tf.summary.scalar("the loss", loss * 2)\nm = tf.summary.merge_all()\nsess = tf.Session()\n'
        'writer = tf.summary.FileWriter("logs")\ns = sess.run(m, {x: 1.0})\nwriter.add_summary(s, 1)\n',
        HEAD + 'with tf.name_scope("train"):\n    with tf.variable_scope("inner"):\n'
        "        raw_image_summarized = tf.reshape(x, [-1, 2, 2, 1])\n    the_loss_summarized = loss * 2\n"
        'sess = tf.Session()\nwriter = tf.summary.create_file_writer("logs")\n'
        "s_raw_image, s_the_loss = sess.run([raw_image_summarized, the_loss_summarized], {x: 1.0})\n"
        "with writer.as_default():\n"
        '    tf.summary.image("train/inner/raw_image", s_raw_image, step=1, max_outputs=3)\n'
        '    tf.summary.scalar("train/the_loss", s_the_loss, step=1)\n',
        id="scoped-tags-and-expression-values",
    ),
    pytest.param(
        HEAD + 'with tf.name_scope("loss"):\n    tf.summary.scalar("loss", loss)\nm = tf.summary.merge_all()\n'
        'sess = tf.Session()\nwriter = tf.summary.FileWriter("logs")\ns = sess.run(m, {x: 1.0})\nwriter.add_summary(s, 1)\n',
        HEAD
        + 'with tf.name_scope("loss"):\n    pass\nsess = tf.Session()\nwriter = tf.summary.create_file_writer("logs")\n'
        's_loss = sess.run(loss, {x: 1.0})\nwith writer.as_default():\n    tf.summary.scalar("loss/loss", s_loss, step=1)\n',
        id="tag-named-as-its-scope",
    ),
    pytest.param(
        HEAD
        + 'tf.summary.histogram("x", x)\ntf.summary.scalar("loss", loss)\nm = tf.summary.merge_all()\nsess = tf.Session()\n'
        'writer = tf.summary.FileWriter("logs")\nfeed = 1.0\ns = sess.run(m, {x: feed})\nwriter.add_summary(s, 1)\n',
        HEAD + 'sess = tf.Session()\nwriter = tf.summary.create_file_writer("logs")\nfeed = 1.0\n'
        's_loss = sess.run(loss, {x: feed})\nwith writer.as_default():\n    tf.summary.histogram("x", feed, step=1)\n'
        '    tf.summary.scalar("loss", s_loss, step=1)\n',
        id="placeholder-summarized-from-the-value-fed",
    ),
    pytest.param(
        HEAD
        + 'with tf.name_scope("train"):\n    cost = tf.reduce_mean(x, name="cost")\n    tf.summary.scalar("cost", cost)\n'
        'm = tf.summary.merge_all()\nsess = tf.Session()\nwriter = tf.summary.FileWriter("logs")\n'
        "s = sess.run(m, {x: 1.0})\nwriter.add_summary(s, 1)\n",
        HEAD + 'with tf.name_scope("train"):\n    cost = tf.reduce_mean(x, name="cost")\nsess = tf.Session()\n'
        'writer = tf.summary.create_file_writer("logs")\ns_cost = sess.run(cost, {x: 1.0})\n'
        'with writer.as_default():\n    tf.summary.scalar("train/cost_1", s_cost, step=1)\n',
        id="name-an-op-of-the-scope-took-first",
    ),
    pytest.param(
        HEAD + 'def main(steps):\n    tf.summary.scalar("loss", loss)\n    m = tf.summary.merge_all()\n'
        '    sess = tf.Session()\n    writer = tf.summary.FileWriter("logs")\n    for i in range(steps):\n'
        "        s = sess.run(m, {x: 1.0})\n        writer.add_summary(s, i)\nmain(3)\n",
        HEAD + 'def main(steps):\n    sess = tf.Session()\n    writer = tf.summary.create_file_writer("logs")\n'
        "    for i in range(steps):\n        s_loss = sess.run(loss, {x: 1.0})\n        with writer.as_default():\n"
        '            tf.summary.scalar("loss", s_loss, step=i)\nmain(3)\n',
        id="a-program-written-in-main",
    ),
    pytest.param(
        HEAD
        + 'sess = tf.Session()\nwriter = tf.summary.FileWriter("logs")\nwriter.add_graph(sess.graph)\nwriter.close()\n',
        HEAD + 'sess = tf.Session()\nwriter = tf.summary.create_file_writer("logs")\nwriter.close()\n',
        id="add-graph-goes",
    ),
    pytest.param(
        HEAD + 'def stats(t):\n    with tf.name_scope("s"):\n        tf.summary.scalar("mean", tf.reduce_mean(t))\n'
        '        tf.summary.histogram("h", t)\nstats(w)\nstats(w)\nm = tf.summary.merge_all()\nsess = tf.Session()\n'
        'writer = tf.summary.FileWriter("logs")\ns = sess.run(m)\nwriter.add_summary(s, 2)\n',
        HEAD + 'def stats(t):\n    with tf.name_scope("s"):\n        mean_summarized = tf.reduce_mean(t)\n'
        "    return mean_summarized\nw_mean = stats(w)\nw_mean_2 = stats(w)\nsess = tf.Session()\n"
        'writer = tf.summary.create_file_writer("logs")\n'
        "s_w_mean, s_w, s_w_mean_2, w_value = sess.run([w_mean, w, w_mean_2, w])\nwith writer.as_default():\n"
        '    tf.summary.scalar("s/mean_1", s_w_mean, step=2)\n    tf.summary.histogram("s/h", s_w, step=2)\n'
        '    tf.summary.scalar("s_1/mean_1", s_w_mean_2, step=2)\n    tf.summary.histogram("s_1/h", w_value, step=2)\n',
        id="summary-helper-called-twice-returns-what-it-summarized",
    ),
    pytest.param(
        HEAD + 'def stats(t):\n    tf.summary.scalar("mean", tf.reduce_mean(t))\n'
        'with tf.name_scope("a"):\n    stats(w)\nwith tf.name_scope("b"):\n    stats(w)\n'
        'm = tf.summary.merge_all()\nsess = tf.Session()\nwriter = tf.summary.FileWriter("logs")\n'
        "s = sess.run(m)\nwriter.add_summary(s, 2)\n",
        HEAD + "def stats(t):\n    mean_summarized = tf.reduce_mean(t)\n"
        "    return mean_summarized\n"
        'with tf.name_scope("a"):\n    w_mean = stats(w)\n'
        'with tf.name_scope("b"):\n    b_w_mean = stats(w)\n'
        'sess = tf.Session()\nwriter = tf.summary.create_file_writer("logs")\n'
        "s_w_mean, s_b_w_mean = sess.run([w_mean, b_w_mean])\nwith writer.as_default():\n"
        '    tf.summary.scalar("a/mean_1", s_w_mean, step=2)\n'
        '    tf.summary.scalar("b/mean_1", s_b_w_mean, step=2)\n',
        id="summary-helper-called-twice-in-two-scopes-names-the-second-after-its-scope",
    ),
    pytest.param(
        HEAD
        + 'with tf.name_scope("train"):\n    pass\nwith tf.name_scope("train"):\n    tf.summary.scalar("l", loss)\n'
        'm = tf.summary.merge_all()\nsess = tf.Session()\nwriter = tf.summary.FileWriter("logs")\n'
        "s = sess.run(m, {x: 1.0})\nwriter.add_summary(s, 1)\n",
        HEAD + 'with tf.name_scope("train"):\n    pass\nwith tf.name_scope("train"):\n    pass\nsess = tf.Session()\n'
        'writer = tf.summary.create_file_writer("logs")\ns_loss = sess.run(loss, {x: 1.0})\n'
        'with writer.as_default():\n    tf.summary.scalar("train_1/l", s_loss, step=1)\n',
        id="scope-opened-again-is-made-unique",
    ),
    pytest.param(
        HEAD
        + 'with tf.name_scope("stats"):\n    tf.summary.scalar("max", tf.reduce_max(x))\nm = tf.summary.merge_all()\n'
        'sess = tf.Session()\nwriter = tf.summary.FileWriter("logs")\ns = sess.run(m, {x: 1.0})\nwriter.add_summary(s, 1)\n',
        HEAD + 'with tf.name_scope("stats"):\n    max_summarized = tf.reduce_max(x)\nsess = tf.Session()\n'
        'writer = tf.summary.create_file_writer("logs")\ns_max = sess.run(max_summarized, {x: 1.0})\n'
        'with writer.as_default():\n    tf.summary.scalar("stats/max_1", s_max, step=1)\n',
        id="name-the-op-computing-the-value-took-first",
    ),
    pytest.param(
        HEAD + 'tf.summary.scalar("l", loss)\nm = tf.summary.merge_all()\nsess = tf.Session()\n'
        'a = tf.summary.FileWriter("a")\nb = tf.summary.FileWriter("b")\ns = sess.run(m, {x: 1.0})\n'
        "a.add_summary(s, 1)\ns = sess.run(m, {x: 2.0})\nb.add_summary(s, 1)\n",
        HEAD + 'sess = tf.Session()\na = tf.summary.create_file_writer("a")\nb = tf.summary.create_file_writer("b")\n'
        's_loss = sess.run(loss, {x: 1.0})\nwith a.as_default():\n    tf.summary.scalar("l", s_loss, step=1)\n'
        'loss_value = sess.run(loss, {x: 2.0})\nwith b.as_default():\n    tf.summary.scalar("l", loss_value, step=1)\n',
        id="one-name-fetched-by-two-runs-each-written-after-its-run",
    ),
    pytest.param(
        HEAD + 'tf.summary.scalar("l", loss)\nm = tf.summary.merge_all()\nsess = tf.Session()\n'
        'writer = tf.summary.FileWriter("a")\ns, v = sess.run([m] + [loss], {x: 1.0})\nwriter.add_summary(s, 1)\n',
        HEAD + 'sess = tf.Session()\nwriter = tf.summary.create_file_writer("a")\n'
        "s_loss, v = sess.run([loss, loss], {x: 1.0})\n"
        'with writer.as_default():\n    tf.summary.scalar("l", s_loss, step=1)\n',
        id="fetches-written-as-a-sum-of-lists",
    ),
    pytest.param(
        HEAD + '# the loss, twice\ntf.summary.scalar("l", loss)\ntf.summary.histogram("h", loss)\n'
        "# every summary\nm = tf.summary.merge_all()\nsess = tf.Session()\n"
        'a = tf.summary.FileWriter("a")\nb = tf.summary.FileWriter("b")\n'
        "s = sess.run(m, {x: 1.0})\na.add_summary(s, 1)\n"
        "s = sess.run(m, {x: 2.0})\nb.add_summary(s, 1)\n",
        HEAD + 'sess = tf.Session()\na = tf.summary.create_file_writer("a")\n'
        'b = tf.summary.create_file_writer("b")\n'
        "s_loss, loss_value = sess.run([loss, loss], {x: 1.0})\nwith a.as_default():\n"
        '    # the loss, twice\n    tf.summary.scalar("l", s_loss, step=1)\n'
        '    tf.summary.histogram("h", loss_value, step=1)\n'
        "loss_value_2, loss_value_3 = sess.run([loss, loss], {x: 2.0})\nwith b.as_default():\n"
        '    tf.summary.scalar("l", loss_value_2, step=1)\n'
        '    tf.summary.histogram("h", loss_value_3, step=1)\n',
        id="names-numbered-only-once-taken-a-comment-goes-with-the-first-write",
    ),
    pytest.param(
        HEAD + 'tf.summary.scalar("loss", loss, collections=["train", "test"])\n'
        'tf.summary.histogram("w", w, collections=["train"])\ntrain_merged = tf.summary.merge_all("train")\n'
        'test_merged = tf.summary.merge_all(key="test")\nsess = tf.Session()\nwriter = tf.summary.FileWriter("logs")\n'
        "s = sess.run(train_merged, {x: 1.0})\nwriter.add_summary(s, 1)\nt = sess.run(test_merged, {x: 2.0})\n"
        "writer.add_summary(t, 1)\n",
        HEAD + 'sess = tf.Session()\nwriter = tf.summary.create_file_writer("logs")\n'
        "s_loss, s_w = sess.run([loss, w], {x: 1.0})\nwith writer.as_default():\n"
        '    tf.summary.scalar("loss", s_loss, step=1)\n    tf.summary.histogram("w", s_w, step=1)\n'
        't_loss = sess.run(loss, {x: 2.0})\nwith writer.as_default():\n    tf.summary.scalar("loss", t_loss, step=1)\n',
        id="summaries-in-named-collections-merged-by-key",
    ),
    pytest.param(
        HEAD + 'def stats(t, label="kernel"):\n    with tf.name_scope(label):\n'
        '        tf.summary.scalar("l", tf.reduce_max(t))\nwith tf.name_scope("net"):\n'
        '    stats(w)\n    stats(w, label="bias")\n    stats(w)\nm = tf.summary.merge_all()\nsess = tf.Session()\n'
        'writer = tf.summary.FileWriter("a")\ns = sess.run(m, {x: 1.0})\nwriter.add_summary(s, 2)\n',
        HEAD + 'def stats(t, label="kernel"):\n    with tf.name_scope(label):\n'
        "        l_summarized = tf.reduce_max(t)\n    return l_summarized\n"
        'with tf.name_scope("net"):\n    w_l = stats(w)\n    net_w_l = stats(w, label="bias")\n    w_l_2 = stats(w)\n'
        'sess = tf.Session()\nwriter = tf.summary.create_file_writer("a")\n'
        "s_w_l, s_net_w_l, s_w_l_2 = sess.run([w_l, net_w_l, w_l_2], {x: 1.0})\nwith writer.as_default():\n"
        '    tf.summary.scalar("net/kernel/l", s_w_l, step=2)\n    tf.summary.scalar("net/bias/l", s_net_w_l, step=2)\n'
        '    tf.summary.scalar("net/kernel_1/l", s_w_l_2, step=2)\n',
        id="summary-helper-scope-named-by-its-parameter-or-its-default",
    ),
]


@pytest.mark.parametrize(("before", "after"), REWRITES)
def test_rewrites(before, after):
    assert_rewrites("TFM100", before, after)


NO_OPS = [
    pytest.param(HEAD + "tf.summary.scalar(name, loss)\n", "tag is not a literal", id="computed-tag"),
    pytest.param(
        HEAD + 'with tf.name_scope(scope_name):\n    tf.summary.scalar("l", loss)\n',
        "prefix to its tag is not read",
        id="under-a-scope-not-named-by-a-literal",
    ),
    pytest.param(
        HEAD + 'def g():\n    with tf.name_scope("train"):\n        pass\nwith tf.name_scope("train"):\n'
        '    tf.summary.scalar("l", loss)\n',
        "writes again outside it (TF1 may have made the scope `train_1`)",
        id="under-a-scope-opened-again-in-a-function",
    ),
    # A helper making summaries, called where its summaries cannot be read, or given a value
    # that is not a name to write from.
    pytest.param(
        HEAD
        + 'def stats(t):\n    tf.summary.histogram("h", t)\ndef build():\n    stats(w)\nm = tf.summary.merge_all()\n',
        "made both in `build` and in the top-level code",
        id="summary-helper-called-in-another-function",
    ),
    pytest.param(
        HEAD + 'def stats(t):\n    tf.summary.histogram("h", t)\nstats(w * 2)\nm = tf.summary.merge_all()\n',
        "`stats` summarizes its parameter `t`, given `w * 2`, not a name",
        id="summary-helper-given-an-expression",
    ),
    # A helper whose scope is named by its parameter: each call must name it by a literal no
    # other op of the file takes first, and the helper opens no scope around it.
    pytest.param(
        HEAD + 'def stats(t, label):\n    with tf.name_scope(label):\n        tf.summary.histogram("h", t)\n'
        "stats(w, label_of(w))\nm = tf.summary.merge_all()\n",
        "names a scope by `label`, which this call does not give as a literal",
        id="summary-helper-scope-named-by-a-computed-argument",
    ),
    pytest.param(
        HEAD + 'def stats(t, label):\n    with tf.name_scope(label):\n        tf.summary.histogram("h", t)\n'
        'v = tf.Variable(1.0, name="kernel")\nstats(w, "kernel")\nm = tf.summary.merge_all()\n',
        "opens the scope `kernel`, a name the file writes elsewhere",
        id="summary-helper-scope-named-as-another-op",
    ),
    pytest.param(
        HEAD + 'def stats(t, label=None):\n    with tf.name_scope(label):\n        tf.summary.histogram("h", t)\n'
        "stats(w)\nm = tf.summary.merge_all()\n",
        "names a scope by `label`, which this call does not give as a literal",
        id="summary-helper-scope-named-by-a-default-not-a-string",
    ),
    pytest.param(
        HEAD + 'def stats(t, label):\n    with tf.name_scope("s"):\n        with tf.name_scope(label):\n'
        '            tf.summary.histogram("h", t)\nstats(w, "kernel")\nm = tf.summary.merge_all()\n',
        "inside another scope of the helper",
        id="summary-helper-scope-named-by-a-parameter-inside-its-own-scope",
    ),
    pytest.param(
        HEAD + 'def stats(t):\n    tf.summary.histogram("h", t)\nfunctions = [stats]\n',
        "does not fetch its summaries itself",
        id="summary-helper-read-other-than-called",
    ),
    pytest.param(
        HEAD + 'tf.summary.scalar("l", loss)\nm = tf.summary.merge_all()\nsess = tf.Session()\n'
        'writer = tf.summary.FileWriter("a")\ns = sess.run(m, {x: 1.0})\nif flag:\n    s = sess.run(m, {x: 2.0})\n'
        "writer.add_summary(s, 1)\n",
        "`s` is fetched by several runs: which this `add_summary` writes is not read",
        id="summary-fetched-by-two-runs-one-conditional",
    ),
    pytest.param(
        HEAD + 'tf.summary.scalar("loss", loss, collections=keys)\n',
        "its `collections` are not a literal list",
        id="collections-not-written-out",
    ),
    # A function making summaries that nothing calls makes none: nothing to say.
    pytest.param(HEAD + 'def stats(t):\n    tf.summary.histogram("h", t)\n', None, id="summary-helper-never-called"),
    pytest.param(
        HEAD + 'with tf.variable_scope("train", reuse=True):\n    tf.summary.scalar("l", loss)\n',
        "prefix to its tag is not read",
        id="under-a-scope-reentered",
    ),
    pytest.param(HEAD + 'tf.summary.scalar("l", loss, family="f")\n', "family", id="family"),
    pytest.param(
        HEAD + 'def f():\n    tf.summary.scalar("l", loss)\n    return loss\n',
        "does not fetch its summaries itself",
        id="in-a-function-not-fetching-them",
    ),
    pytest.param(
        HEAD + 'def f():\n    tf.summary.scalar("l", loss)\n    return loss\nm = tf.summary.merge_all()\n',
        "made both in `f` and in the top-level code",
        id="in-a-function-merged-at-top-level",
    ),
    pytest.param(
        HEAD + 'class Net:\n    def __call__(self):\n        tf.summary.scalar("l", loss)\n',
        "inside a class",
        id="in-a-method",
    ),
    pytest.param(
        HEAD + 'def main():\n    tf.summary.scalar("l", loss)\n    m = tf.summary.merge_all()\n'
        '    sess = tf.Session()\n    writer = tf.summary.FileWriter("logs")\n    return sess.run(m)\n'
        "s = main()\n",
        "a run fetching summaries",
        id="in-a-function-fetched-as-its-result",
    ),
    pytest.param(
        HEAD + 'm = tf.summary.merge_all()\nsess = tf.Session()\nw2 = tf.summary.FileWriter("l")\n'
        "s = sess.run(m)\nw2.add_summary(s, 1)\nprint(s)\n",
        "used other than by `add_summary`",
        id="fetched-summary-printed",
    ),
    pytest.param(
        HEAD + 'tf.summary.scalar("l", loss)\nm = tf.summary.merge_all()\nsess = tf.Session()\n'
        "s = sess.run([m, loss])\n",
        "unpacked",
        id="list-fetch-not-unpacked",
    ),
    pytest.param(
        HEAD + 'tf.summary.histogram("x", x)\nm = tf.summary.merge_all()\nsess = tf.Session()\n'
        'writer = tf.summary.FileWriter("l")\ns = sess.run(m, {x: 2 * base})\nwriter.add_summary(s, 1)\n',
        "the value fed to it, `2 * base`, which is not a name",
        id="placeholder-fed-an-expression",
    ),
    pytest.param(
        HEAD + 'tf.summary.histogram("x", x)\nm = tf.summary.merge_all()\nsess = tf.Session()\n'
        'writer = tf.summary.FileWriter("l")\ns = sess.run(m, feeds)\nwriter.add_summary(s, 1)\n',
        "does not feed it a name in a literal `feed_dict`",
        id="placeholder-fed-by-a-dict-built-elsewhere",
    ),
    pytest.param(
        HEAD + 'writer = tf.summary.FileWriter("l")\nwriter.reopen()\n', "used other than", id="writer-used-otherwise"
    ),
    pytest.param("import numpy as np\nsummary = np.zeros(2)\n", None, id="not-tensorflow"),
    # TF2 summaries (a migrated program run through again): written already, nothing to say.
    pytest.param(
        "import tensorflow as tf\nwriter = tf.summary.create_file_writer('l')\nwith writer.as_default():\n"
        "    tf.summary.image('x', pictures, step=3, max_outputs=2)\n    tf.summary.scalar('l', loss, step=3)\n",
        None,
        id="tf2-summaries-with-a-step",
    ),
]


@pytest.mark.parametrize(("source", "finding"), NO_OPS)
def test_declines(source, finding):
    result = assert_unchanged("TFM100", source)
    messages = [f.message for f in result.findings]
    if finding is None:
        assert messages == []
    else:
        assert any(finding in message for message in messages), messages


def test_a_summary_used_elsewhere_is_not_removed():
    source = HEAD + 'one = tf.summary.scalar("l", loss)\nkept = [one]\n'
    result = assert_unchanged("TFM100", source)
    assert any("used other than by a run or a merge" in f.message for f in result.findings)


MERGED_PROGRAM = (
    "import tensorflow as tf\nfrom nets import critic, scale\nx = tf.placeholder(tf.float32)\n"
    "loss = tf.reduce_sum(critic(x))\n"
    'tf.summary.scalar("loss", loss)\nm = tf.summary.merge_all()\n'
    "sess = tf.Session()\nwriter = tf.summary.FileWriter('logs')\n"
    "s = sess.run(m, {x: 1.0})\nwriter.add_summary(s, 3)\n"
)


@pytest.mark.parametrize(
    "project",
    [
        pytest.param({"nets": {"TFM100": {"summarizing": ["critic"]}}}, id="function"),
        pytest.param(
            {"nets": {"TFM100": {"summarizing": ["Critic"]}, "TFM107": {"classes": {"critic": {"class": "Critic"}}}}},
            id="function-that-became-a-class",
        ),
    ],
)
def test_merge_all_in_a_file_calling_a_project_function_making_summaries_is_declined(project):
    from tfmodernize.registry import find_codemod
    from tfmodernize.engine import transform_text

    new, state = transform_text(MERGED_PROGRAM, [find_codemod("TFM100")], project=project)
    assert new == MERGED_PROGRAM
    assert any(
        "`merge_all` also merges the summaries that `critic` (nets.py) makes" in f.message for f in state.findings
    ), [f.message for f in state.findings]


def test_merge_all_beside_project_functions_making_no_summaries_is_migrated():
    from tfmodernize.registry import find_codemod
    from tfmodernize.engine import transform_text

    new, _ = transform_text(
        MERGED_PROGRAM, [find_codemod("TFM100")], project={"nets": {"TFM100": {"summarizing": ["other"]}}}
    )
    assert "create_file_writer" in new and "merge_all" not in new


def test_a_module_says_which_of_its_functions_and_classes_make_summaries():
    import libcst as cst

    from tfmodernize.registry import find_codemod
    from tfmodernize.tfsymbols import TFNames

    module = cst.parse_module(
        "import tensorflow as tf\ndef quiet(x):\n    return x\n"
        "def loud(x):\n    tf.summary.histogram('x', x)\n    return x\n"
        "class Net:\n    def __call__(self, x):\n        tf.summary.scalar('m', tf.reduce_mean(x))\n"
    )
    summary = find_codemod("TFM100").summarize(module, TFNames.for_module(module))
    assert summary == {"summarizing": ["Net", "loud"]}


def test_a_program_declined_after_some_summaries_were_planned_reports_no_fix():
    # The writer's `filename_suffix` is mapped, `session` is not: declined after the summaries were read.
    source = HEAD + (
        'tf.summary.scalar("loss", loss)\nm = tf.summary.merge_all()\nsess = tf.Session()\n'
        "writer = tf.summary.FileWriter('logs', session=sess)\ns = sess.run(m, {x: 1.0})\nwriter.add_summary(s, 3)\n"
    )
    result = assert_unchanged("TFM100", source)
    assert result.fixes == []
    assert any("summaries not migrated: `FileWriter` with arguments" in f.message for f in result.findings)
