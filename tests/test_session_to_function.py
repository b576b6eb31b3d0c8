"""TFM101 session-to-function: golden rewrites, declines with findings, no-ops, obligations.

Numeric proofs of the rewrites live in ``fixtures/session-to-function/``.
"""

from __future__ import annotations

import pytest

from tfmodernize.codemods.migrate.session_to_function.graph import GraphUnit
from tfmodernize.codemods.migrate.session_to_function.model import Kind
from tfmodernize.testing import assert_rewrites, assert_unchanged, rewrite

REWRITES = [
    pytest.param(
        """
        import numpy as np
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [None, 2])
        W = tf.Variable([[1.0], [2.0]])
        y = tf.matmul(x, W)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for batch in (np.ones((3, 2)), np.zeros((1, 2))):
                print(sess.run(y, feed_dict={x: batch}))
        """,
        """
        import numpy as np
        import tensorflow as tf

        W = tf.Variable([[1.0], [2.0]])


        @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)], autograph=False)
        def compute_y(x):
            y = tf.matmul(x, W)
            return y


        for batch in (np.ones((3, 2)), np.zeros((1, 2))):
            print(compute_y(batch).numpy())
        """,
        id="docstring-example",
    ),
    pytest.param(
        """
        import tensorflow as T

        a = T.placeholder(T.int32, shape=[])
        b = a * 2
        s = T.Session()
        r = s.run(b, {a: 4})
        s.close()
        """,
        """
        import tensorflow as T


        def compute_b(a):
            a = T.convert_to_tensor(a, T.int32)
            b = a * 2
            return b


        r = compute_b(4)
        """,
        id="other-alias-positional-feed",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32)
        y = x + 1.0
        opt = tf.train.GradientDescentOptimizer(0.5)
        v = tf.Variable(2.0)
        grads = opt.compute_gradients(v * y, [v])
        with tf.Session() as sess:
            r = sess.run({"a": [y], "b": (y, {"c": y})}, {x: 1.0})
            g = sess.run(grads, {x: 1.0})
            print(r["b"][1]["c"], g[0][0])
        """,
        """
        import tensorflow as tf


        def compute_r(x):
            x = tf.convert_to_tensor(x, tf.float32)
            y = x + 1.0
            return {"a": [y], "b": (y, {"c": y})}


        opt = tf.train.GradientDescentOptimizer(0.5)
        v = tf.Variable(2.0)


        def compute_grads(x):
            x = tf.convert_to_tensor(x, tf.float32)
            y = x + 1.0
            grads = opt.compute_gradients(v * y, [v])
            return grads


        r = tf.nest.map_structure(lambda t: t.numpy(), compute_r(1.0))
        g = tf.nest.map_structure(lambda t: t.numpy(), compute_grads(1.0))
        print(r["b"][1]["c"], g[0][0])
        """,
        id="nested-fetches-and-gradient-pairs",
    ),
    pytest.param(
        """
        import tensorflow as tf

        tf.disable_eager_execution()
        tf.reset_default_graph()
        tf.set_random_seed(0)
        c = tf.constant([1.0, 2.0])
        d = c * 3.0
        sess = tf.Session()
        values = sess.run([c, d])
        pair = sess.run((c, d))
        named = sess.run({"c": c})
        """,
        """
        import tensorflow as tf

        tf.set_random_seed(0)
        c = tf.constant([1.0, 2.0])
        d = c * 3.0
        values = [c.numpy(), d.numpy()]
        pair = (c.numpy(), d.numpy())
        named = {"c": c.numpy()}
        """,
        id="static-fetches-are-eager-values",
    ),
    pytest.param(
        """
        import tensorflow as tf

        def main():
            x = tf.placeholder(tf.float32, [None])
            total = tf.reduce_sum(x)
            with tf.Session() as sess:
                return sess.run(total, feed_dict={x: [1.0, 2.0]})
        """,
        """
        import tensorflow as tf

        def main():
            def compute_total(x):
                x = tf.convert_to_tensor(x, tf.float32)
                total = tf.reduce_sum(x)
                return total

            return compute_total([1.0, 2.0]).numpy()
        """,
        id="function-unit",
    ),
    pytest.param(
        """
        import tensorflow as tf

        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, [2])
            y = tf.placeholder(tf.float32, [2])
            # the difference
            diff = x - y
            unused = x * 100.0
            with tf.Session() as sess:
                out = sess.run(diff, feed_dict={y: [1.0, 1.0], x: [3.0, 4.0]})
        result = out * 2
        """,
        """
        import tensorflow as tf


        def compute_diff(x, y):
            x = tf.convert_to_tensor(x, tf.float32)
            y = tf.convert_to_tensor(y, tf.float32)
            # the difference
            diff = x - y
            return diff


        out = compute_diff(y=[1.0, 1.0], x=[3.0, 4.0]).numpy()
        result = out * 2
        """,
        id="graph-block-feed-order-kept-dead-code-dropped",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [None, 1])
        w = tf.Variable([[2.0]])
        y = tf.matmul(x, w)
        step = tf.assign(w, w + 1.0)
        init = tf.global_variables_initializer()
        sess = tf.Session()
        sess.run(init)
        _, out = sess.run([step, y], {x: [[1.0]]})
        sess.run(step, feed_dict={x: [[1.0]]})
        w_now = w.eval(session=sess)
        """,
        """
        import tensorflow as tf

        w = tf.Variable([[2.0]])


        def evaluate(x):
            x = tf.convert_to_tensor(x, tf.float32)
            y = tf.matmul(x, w)
            step = w.assign(w + 1.0)
            return step, y


        def compute_step():
            step = w.assign(w + 1.0)
            return step


        _, out = evaluate([[1.0]])
        compute_step()
        w_now = w.numpy()
        """,
        id="assign-returns-its-value-unused-feed-dropped",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [None, 2])
        keep = tf.placeholder_with_default(1.0, shape=[])
        h = tf.nn.relu(x) * keep
        out = tf.reduce_sum(h, axis=1)
        with tf.Session() as sess:
            a = sess.run(out, {x: [[1.0, -1.0]]})
            b = sess.run(out, {keep: 0.5, x: [[1.0, -1.0]]})
        print(a, b)
        """,
        """
        import tensorflow as tf


        def compute_out(x, keep=1.0):
            x = tf.convert_to_tensor(x, tf.float32)
            keep = tf.convert_to_tensor(keep, tf.float32)
            h = tf.nn.relu(x) * keep
            out = tf.reduce_sum(h, axis=1)
            return out


        a = compute_out([[1.0, -1.0]]).numpy()
        b = compute_out(keep=0.5, x=[[1.0, -1.0]]).numpy()
        print(a, b)
        """,
        id="placeholder-with-default",
    ),
    pytest.param(
        """
        import tensorflow as tf

        config = tf.ConfigProto(log_device_placement=True, intra_op_parallelism_threads=2)
        config.gpu_options.allow_growth = True
        c = tf.constant(1.0)
        with tf.Session(config=config) as sess:
            v = sess.run(c)
        """,
        """
        import tensorflow as tf

        tf.debugging.set_log_device_placement(True)
        tf.config.threading.set_intra_op_parallelism_threads(2)
        for gpu in tf.config.list_physical_devices("GPU"):
            tf.config.experimental.set_memory_growth(gpu, True)
        c = tf.constant(1.0)
        v = c.numpy()
        """,
        id="config-proto-to-tf-config",
    ),
    pytest.param(
        """
        import tensorflow as tf

        sess = tf.InteractiveSession()
        x = tf.placeholder(tf.float32, [3])
        y = tf.reduce_max(x)
        tf.global_variables_initializer().run()
        best = y.eval(feed_dict={x: [1.0, 5.0, 2.0]})
        """,
        """
        import tensorflow as tf


        def compute_y(x):
            x = tf.convert_to_tensor(x, tf.float32)
            y = tf.reduce_max(x)
            return y


        best = compute_y([1.0, 5.0, 2.0])
        """,
        id="interactive-session-eval",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [None])
        y = x + 1.0
        sess = tf.Session()
        total = 0.0
        for batch in ([1.0], [2.0]):
            total += sess.run(y, {x: batch})[0]
        """,
        """
        import tensorflow as tf


        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)], autograph=False)
        def compute_y(x):
            y = x + 1.0
            return y


        total = 0.0
        for batch in ([1.0], [2.0]):
            total += compute_y(batch).numpy()[0]
        """,
        id="value-context-takes-numpy",
    ),
    pytest.param(
        """
        import tensorflow as tf  # tfmodernize: ignore[TFM207]

        x = tf.placeholder(tf.float32, [None])
        mean = tf.reduce_mean(x)
        spread = tf.reduce_max(x) - tf.reduce_min(x)
        with tf.Session() as sess:
            m, s = sess.run([mean, spread], {x: [1.0, 3.0]})
            stats = sess.run([mean, spread], {x: [1.0, 3.0]})
        """,
        """
        import tensorflow as tf  # tfmodernize: ignore[TFM207]


        def evaluate(x):
            x = tf.convert_to_tensor(x, tf.float32)
            mean = tf.reduce_mean(x)
            spread = tf.reduce_max(x) - tf.reduce_min(x)
            return mean, spread


        m, s = evaluate([1.0, 3.0])
        stats = list(evaluate([1.0, 3.0]))
        """,
        id="one-function-for-unpacked-and-list-fetches-other-codes-suppression-ignored",
    ),
    pytest.param(
        """
        import tensorflow as tf


        def smoothed(values):
            level = tf.Variable(0.0)
            tracker = tf.train.ExponentialMovingAverage(0.8)
            track = tracker.apply([level])
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                seen = []
                for value in values:
                    sess.run(level.assign(value))
                    sess.run(track)
                    seen.append(sess.run(tracker.average(level)))
                return seen
        """,
        """
        import tensorflow as tf


        def smoothed(values):
            level = tf.Variable(0.0)
            tracker = tf.train.ExponentialMovingAverage(0.8)
            # Creates the averages; this first update leaves them at the variables' values.
            tracker.apply([level])

            @tf.function(autograph=False)
            def run_track():
                track = tracker.apply([level])

            seen = []
            for value in values:
                level.assign(value)
                run_track()
                seen.append(tracker.average(level).numpy())
            return seen
        """,
        # The averages are made once where TF1 built them; the function only updates them.
        id="moving-average-made-once-in-a-function",
    ),
]


REWRITES.append(
    pytest.param(
        """
        import tensorflow as tf

        w = tf.Variable(1.0)
        grow = tf.group(tf.assign_add(w, 1.0))
        half = w / 2.0
        with tf.Session() as sess:
            sess.run(w.initializer)
            last = sess.run([half, grow, w])[2]
            alone = sess.run((grow, half))[1:]
        """,
        """
        import tensorflow as tf

        w = tf.Variable(1.0)


        def evaluate():
            grow = tf.group(w.assign_add(1.0))
            half = w / 2.0
            return [half, w]


        def compute_half():
            grow = tf.group(w.assign_add(1.0))
            half = w / 2.0
            return half


        last = [t.numpy() for t in evaluate()][1]
        alone = (compute_half().numpy(),)
        """,
        # The op's None left out: the index renumbered, one value's slice a tuple of it.
        id="subscripts-leaving-out-a-fetched-op",
    )
)


REWRITES.append(
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [None, 2])
        spread = 2.0 * tf.random.normal([2])
        wobble = x + tf.random.normal([2])
        doubled = 2.0 * x
        with tf.Session() as sess:
            out = sess.run(doubled, {x: [[1.0, 2.0]]})
        """,
        """
        import tensorflow as tf

        spread = 2.0 * tf.random.normal([2])


        def compute_doubled(x):
            x = tf.convert_to_tensor(x, tf.float32)
            doubled = 2.0 * x
            return doubled


        out = compute_doubled([[1.0, 2.0]])
        """,
        # Drawn eagerly where built (its seed as in TF1), unless it needs a placeholder.
        id="random-ops-never-run",
    )
)


REWRITES.append(
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [None, 2])
        y = tf.placeholder(tf.float32, [None, 1])
        w = tf.Variable([[1.0], [1.0]])
        h = tf.matmul(x, w)
        pred = tf.nn.sigmoid(h)
        err = tf.reduce_mean(tf.abs(pred - y))
        sq = tf.reduce_mean(tf.square(pred - y))
        with tf.Session() as sess:
            p = sess.run(pred, {x: [[1.0, 2.0]]})
            e, s = sess.run([err, sq], {x: [[1.0, 2.0]], y: [[1.0]]})
        """,
        """
        import tensorflow as tf

        w = tf.Variable([[1.0], [1.0]])


        def build_pred(x):
            h = tf.matmul(x, w)
            pred = tf.nn.sigmoid(h)
            return pred


        def compute_pred(x):
            x = tf.convert_to_tensor(x, tf.float32)
            pred = build_pred(x)
            return pred


        def evaluate(x, y):
            x = tf.convert_to_tensor(x, tf.float32)
            y = tf.convert_to_tensor(y, tf.float32)
            pred = build_pred(x)
            err = tf.reduce_mean(tf.abs(pred - y))
            sq = tf.reduce_mean(tf.square(pred - y))
            return err, sq


        p = compute_pred([[1.0, 2.0]])
        e, s = evaluate([[1.0, 2.0]], [[1.0]])
        """,
        id="shared-sub-graph-becomes-a-helper",
    )
)


REWRITES.append(
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [2])
        pair = [x, x * 2.0]
        k = tf.constant([1.0, 2.0])
        ks = [k, k + 1.0]
        feed = {x: [1.0, 2.0]}
        with tf.Session(config=tf.ConfigProto(allow_soft_placement=True)) as sess:
            both = sess.run(pair, feed_dict=feed)
            static = sess.run(ks)
        """,
        """
        import tensorflow as tf


        def compute_pair(x):
            x = tf.convert_to_tensor(x, tf.float32)
            pair = [x, x * 2.0]
            return pair


        k = tf.constant([1.0, 2.0])
        ks = [k, k + 1.0]
        tf.config.set_soft_device_placement(True)
        both = compute_pair([1.0, 2.0])
        static = [t.numpy() for t in ks]
        """,
        id="named-feed-inline-config-list-valued-fetches",
    )
)


REWRITES.append(
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [None])
        stats = tf.nn.moments(x, [0])
        with tf.Session() as sess:
            m, v = sess.run(stats, {x: [1.0, 2.0, 4.0]})
            both = sess.run(stats, {x: [1.0, 2.0, 4.0]})
        print(m, v, both)
        """,
        """
        import tensorflow as tf


        def compute_stats(x):
            x = tf.convert_to_tensor(x, tf.float32)
            stats = tf.nn.moments(x, [0])
            return stats


        m, v = [t.numpy() for t in compute_stats([1.0, 2.0, 4.0])]
        both = [t.numpy() for t in compute_stats([1.0, 2.0, 4.0])]
        print(m, v, both)
        """,
        id="tuple-valued-op-converted-element-wise",
    )
)


REWRITES.append(
    pytest.param(
        """
        import tensorflow as tf

        c = tf.constant(2.0)
        with tf.Session() as warmup:
            pass
        sess = tf.Session()
        try:
            v = sess.run(c, feed_dict=None)
        finally:
            sess.close()
        """,
        """
        import tensorflow as tf

        c = tf.constant(2.0)
        try:
            v = c.numpy()
        finally:
            pass
        """,
        id="empty-session-block-and-close-in-finally",
    )
)


REWRITES.append(
    pytest.param(
        """
        import tensorflow as tf

        w = tf.Variable([1.0, 2.0])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for step in range(3):
                sess.run(tf.assign(w, w + step))
            doubled = sess.run(w * 2.0)
            sess.run(w)
        """,
        """
        import tensorflow as tf

        w = tf.Variable([1.0, 2.0])
        for step in range(3):
            w.assign(w + step)
        doubled = (w * 2.0).numpy()
        """,
        id="ops-built-where-the-graph-runs-run-eagerly",
    )
)


REWRITES.append(
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [None])
        total = tf.reduce_sum(x)

        if __name__ == "__main__":
            # Open a session (the comment goes with it).
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                print(sess.run(total, {x: [1.0, 2.0]}))
        """,
        """
        import tensorflow as tf


        def compute_total(x):
            x = tf.convert_to_tensor(x, tf.float32)
            total = tf.reduce_sum(x)
            return total


        if __name__ == "__main__":
            print(compute_total([1.0, 2.0]).numpy())
        """,
        id="session-block-under-main-guard",
    )
)


REWRITES.append(
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [2])
        y = x * 3.0
        sess = tf.Session()
        with sess.as_default():
            out = y.eval(feed_dict={x: [1.0, 2.0]})
        sess.close()
        """,
        """
        import tensorflow as tf


        def compute_y(x):
            x = tf.convert_to_tensor(x, tf.float32)
            y = x * 3.0
            return y


        out = compute_y([1.0, 2.0])
        """,
        id="session-as-default-block",
    )
)


REWRITES.append(
    pytest.param(
        """
        import tensorflow as tf
        tf.compat.v1.disable_eager_execution()
        x = tf.compat.v1.placeholder(tf.float32, shape=[None])
        y = tf.reduce_sum(x)
        with tf.compat.v1.Session() as sess:
            r = sess.run(y, feed_dict={x: [1.0, 2.0]})
        """,
        """
        import tensorflow as tf


        def compute_y(x):
            x = tf.convert_to_tensor(x, tf.float32)
            y = tf.reduce_sum(x)
            return y


        r = compute_y([1.0, 2.0])
        """,
        id="compat-v1-spelled-out-under-tf2-import",
    )
)
REWRITES.append(
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32)
        z = tf.placeholder(tf.float32)
        y = x + 1.0
        with tf.Session() as sess:
            for v in range(2):
                feed_dict = {x: v, z: 0.0}
                out = sess.run(y, feed_dict=feed_dict)
        """,
        """
        import tensorflow as tf


        @tf.function(input_signature=[tf.TensorSpec(None, tf.float32)], autograph=False)
        def compute_y(x):
            y = x + 1.0
            return y


        for v in range(2):
            arguments = {"x": v, "z": 0.0}
            out = compute_y(x=arguments["x"])
        """,
        id="loop-feed-dict-extra-key-passes-what-is-needed",
    )
)
REWRITES.append(
    pytest.param(
        """
        import tensorflow as tf

        w = tf.Variable(3.0)
        with tf.Session() as sess:
            sess.run(w.initializer)
            out = sess.run(w.assign_add(1.0))
        """,
        """
        import tensorflow as tf

        w = tf.Variable(3.0)
        out = w.assign_add(1.0).numpy()
        """,
        id="variable-initializer-run-goes",
    )
)

REWRITES.append(
    pytest.param(
        """
        import tensorflow as tf

        layer = tf.keras.layers.Dropout(0.5)
        x = tf.placeholder(tf.float32, [None, 2])
        training = tf.placeholder(tf.bool)
        y = layer(x, training=training)
        with tf.Session() as sess:
            for batch in batches:
                out = sess.run(y, {x: batch, training: False})
        """,
        """
        import tensorflow as tf

        layer = tf.keras.layers.Dropout(0.5)


        @tf.function(autograph=False)
        def compute_y(x, training):
            y = layer(x, training=training)
            return y


        for batch in batches:
            out = compute_y(batch, False)
        """,
        id="training-switch-is-a-python-bool-no-input-signature",
    )
)

REWRITES.append(
    pytest.param(
        """
        import tensorflow as tf

        D = tf.constant([[2.0, 1.0], [1.0, 3.0]])
        sess = tf.Session()
        eigenvalues, eigenvectors = sess.run(tf.self_adjoint_eig(D))
        """,
        """
        import tensorflow as tf

        D = tf.constant([[2.0, 1.0], [1.0, 3.0]])
        eigenvalues, eigenvectors = [t.numpy() for t in tf.self_adjoint_eig(D)]
        """,
        id="fetched-op-returning-several-tensors",
    )
)

REWRITES.append(
    pytest.param(
        """
        import tensorflow as tf

        c = tf.constant([1.0, 2.0])
        doubled = c * 2.0
        with tf.Session() as sess:
            first, _ = sess.run([c, doubled])
            _, second = sess.run((tf.reduce_sum(c), doubled))
            print(first, second)
        """,
        """
        import tensorflow as tf

        c = tf.constant([1.0, 2.0])
        doubled = c * 2.0
        first, _ = c.numpy(), doubled
        _, second = tf.reduce_sum(c), doubled.numpy()
        print(first, second)
        """,
        # Nothing reads ``_``: its value is computed, as in TF1, but not converted.
        id="eager-values-unpacked-into-underscore-not-converted",
    )
)

REWRITES.extend(
    [
        pytest.param(
            """
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [None, 3])
        h = tf.nn.relu(x)
        width = h.get_shape()[1].value
        columns = x.get_shape()[1].value
        with tf.Session() as sess:
            out = sess.run(h, {x: [[1.0, -2.0, 3.0]]})
        """,
            """
        import tensorflow as tf


        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)], autograph=False)
        def compute_h(x):
            h = tf.nn.relu(x)
            return h


        width = compute_h.get_concrete_function().output_shapes[1]
        columns = tf.TensorShape([None, 3])[1]
        out = compute_h([[1.0, -2.0, 3.0]])
        """,
            id="a-static-dimension-read-as-a-tf2-int",
        ),
        pytest.param(
            """
        import tensorflow as tf

        a = tf.constant(3.0)
        b = a * 2
        with tf.Session() as sess:
            print(a, sess.run(b), sep=" | ")
            b = sess.run(b)
            print("b = %s" % b, type(a))
        """,
            """
        import tensorflow as tf

        a = tf.constant(3.0)
        b = a * 2
        print(tf.TensorSpec.from_tensor(a), b.numpy(), sep=" | ")
        b = b.numpy()
        print("b = %s" % b, type(a))
        """,
            id="a-tensor-beside-a-run-is-described-a-fetched-value-rebinding-it-is-not",
        ),
        pytest.param(
            """
        import tensorflow as tf

        x = tf.placeholder_with_default(1.0, [])
        y = x * 3.0
        print(x, type(x), str(y))
        with tf.Session() as sess:
            out = sess.run(y)
        """,
            """
        import tensorflow as tf


        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)], autograph=False)
        def compute_y(x=1.0):
            y = x * 3.0
            return y


        print(
            tf.TensorSpec([], tf.float32),
            tf.Tensor,
            str(compute_y.get_concrete_function().structured_outputs),
        )
        out = compute_y()
        """,
            id="placeholder-and-computed-tensor-as-text",
        ),
        pytest.param(
            """
        import tensorflow as tf

        x = tf.placeholder(tf.int32, [2])
        with tf.Session() as sess:
            echoed = sess.run(x, {x: [1, 2]})
            print(echoed)
        """,
            """
        import tensorflow as tf


        def compute_x(x):
            x = tf.convert_to_tensor(x, tf.int32)
            return x


        echoed = compute_x([1, 2]).numpy()
        print(echoed)
        """,
            id="fed-placeholder-fetched",
        ),
        pytest.param(
            """
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [3])
        total = 0.0
        for k in range(3):
            total = total + x[k] * k
        with tf.Session() as sess:
            print(sess.run(total, {x: [1.0, 2.0, 3.0]}))
        print(total)
        """,
            """
        import tensorflow as tf


        @tf.function(input_signature=[tf.TensorSpec([3], tf.float32)], autograph=False)
        def compute_total(x):
            total = 0.0
            for k in range(3):
                total = total + x[k] * k
            return total


        print(compute_total([1.0, 2.0, 3.0]).numpy())
        print(compute_total.get_concrete_function().structured_outputs)
        """,
            id="a-start-value-the-graph-code-rebinds-moves-into-the-function",
        ),
        pytest.param(
            """
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [2])
        w = tf.Variable(0.5)
        states = []
        h = x
        for step in range(3):
            h = tf.tanh(h * w)
            states.append(h)
        last = tf.add_n(states)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out = sess.run(last, {x: [1.0, 2.0]})
        """,
            """
        import tensorflow as tf

        w = tf.Variable(0.5)


        def compute_last(x):
            x = tf.convert_to_tensor(x, tf.float32)
            states = []
            h = x
            for step in range(3):
                h = tf.tanh(h * w)
                states.append(h)
            last = tf.add_n(states)
            return last


        out = compute_last([1.0, 2.0])
        """,
            id="a-list-filled-with-tensors-moves-into-the-function-with-what-fills-it",
        ),
        pytest.param(
            """
        import numpy as np
        import tensorflow as tf

        a = tf.constant([[2.0, 0.0], [0.0, 3.0]])
        with tf.Session() as sess:
            values, vectors = np.linalg.eig(a.eval())
            print(tf.reduce_prod(values).eval())
            print(sess.run(tf.argmax(values)))
        """,
            """
        import numpy as np
        import tensorflow as tf

        a = tf.constant([[2.0, 0.0], [0.0, 3.0]])
        values, vectors = np.linalg.eig(a.numpy())
        print(tf.reduce_prod(values).numpy())
        print(tf.argmax(values).numpy())
        """,
            id="ops-built-from-numpy-values-evaluated-where-they-are",
        ),
        pytest.param(
            """
        import tensorflow as tf

        sess = tf.InteractiveSession()
        a = tf.Variable(tf.random_normal([2], seed=1))
        a.initializer.run()
        b = tf.Variable(tf.random_uniform([2], seed=2))
        b.initializer.run()
        total = a + b
        print(total.eval())
        sess.close()
        """,
            """
        import tensorflow as tf

        a = tf.Variable(tf.random_normal([2], seed=1))
        b = tf.Variable(tf.random_uniform([2], seed=2))


        def compute_total():
            total = a + b
            return total


        print(compute_total().numpy())
        """,
            id="each-variable-initialised-once-by-its-own-initializer",
        ),
        pytest.param(
            """
        import tensorflow as tf

        w = tf.Variable(tf.random_normal([2], seed=4))
        grow = tf.assign_add(w, [1.0, 1.0])
        init = tf.global_variables_initializer()
        with tf.Session() as sess:
            sess.run(init)
            print(w.eval())
        with tf.Session() as sess:
            sess.run(init)
            print(sess.run(grow))
        """,
            """
        import tensorflow as tf

        w = tf.Variable(tf.random_normal([2], seed=4))


        def compute_grow():
            grow = w.assign_add([1.0, 1.0])
            return grow


        print(w.numpy())
        print(compute_grow().numpy())
        """,
            id="a-session-reading-initial-values-then-a-new-one-initialising-and-training",
        ),
        pytest.param(
            """
        import tensorflow as tf

        w = tf.Variable(1.0)
        bump = tf.group(tf.assign_add(w, 1.0))
        init = tf.global_variables_initializer()
        with tf.Session() as sess:
            out = sess.run(init)
            print(out)
            for i in range(2):
                ran, value = sess.run([bump, w])
                also = sess.run(bump)
            print(value)
        """,
            """
        import tensorflow as tf

        w = tf.Variable(1.0)


        @tf.function(autograph=False)
        def compute_w():
            bump = tf.group(w.assign_add(1.0))
            return w


        out = None
        print(out)
        for i in range(2):
            value = compute_w()
            compute_w()
        print(value.numpy())
        """,
            id="none-of-an-initializer-kept-none-of-an-op-bound-to-a-name-nothing-reads-dropped",
        ),
        pytest.param(
            """
        import tensorflow as tf

        w = tf.Variable([1.0, 2.0])
        total = tf.reduce_sum(w * 2.0)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            w, total = sess.run([w, total])
            print(w, total)
        """,
            """
        import tensorflow as tf

        w = tf.Variable([1.0, 2.0])


        def evaluate():
            total = tf.reduce_sum(w * 2.0)
            return w, total


        w, total = [t.numpy() for t in evaluate()]
        print(w, total)
        """,
            id="variable-rebound-to-its-value-by-the-one-run-reading-it",
        ),
        pytest.param(
            """
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [2])
        y = x * 2.0
        c = tf.constant([3.0, 4.0])

        if __name__ == "__main__":
            with tf.Session() as session:
                out = session.run(y, {x: [1.0, 2.0]})
                print(c.eval(session=tf.Session()))
        """,
            """
        import tensorflow as tf


        def compute_y(x):
            x = tf.convert_to_tensor(x, tf.float32)
            y = x * 2.0
            return y


        c = tf.constant([3.0, 4.0])

        if __name__ == "__main__":
            out = compute_y([1.0, 2.0])
            print(c.numpy())
        """,
            id="main-block-running-the-module-graph-and-a-session-opened-for-one-eval",
        ),
        pytest.param(
            """
        import tensorflow as tf

        scale = 3.0

        if __name__ == "__main__":
            x = tf.placeholder(tf.float32, [2])
            y = x * scale
            with tf.Session() as sess:
                out = sess.run(y, {x: [1.0, 2.0]})
        """,
            """
        import tensorflow as tf

        scale = 3.0

        if __name__ == "__main__":

            def compute_y(x):
                x = tf.convert_to_tensor(x, tf.float32)
                y = x * scale
                return y

            out = compute_y([1.0, 2.0])
        """,
            id="main-block-building-its-own-graph",
        ),
        pytest.param(
            """
        import tensorflow as tf


        class Scale(tf.Module):
            def __init__(self):
                super().__init__()
                self.w = tf.Variable(2.0)

            def __call__(self, inputs):
                out = inputs * self.w
                return out


        def double(inputs):
            out = inputs * 2.0
            return out


        x = tf.placeholder(tf.float32, [None])
        scale = Scale()
        out = double(scale(x))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            value = sess.run(out, feed_dict={x: [1.0, 2.0]})
        """,
            """
        import tensorflow as tf


        class Scale(tf.Module):
            def __init__(self):
                super().__init__()
                self.w = tf.Variable(2.0)

            def __call__(self, inputs):
                out = inputs * self.w
                return out


        def double(inputs):
            out = inputs * 2.0
            return out


        scale = Scale()


        def compute_out(x):
            x = tf.convert_to_tensor(x, tf.float32)
            out = double(scale(x))
            return out


        value = compute_out([1.0, 2.0])
        """,
            # Their own locals are not the graph tensor of the same name.
            id="function-and-method-locals-named-like-a-later-graph-tensor",
        ),
    ]
)

REWRITES.append(
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [None])
        total = tf.reduce_sum(x * 3.0)


        def show(values, session):
            print(session.run(total, {x: values}))


        with tf.Session() as sess:
            show([1.0, 2.0], session=sess)
            show([4.0], sess)
        """,
        """
        import tensorflow as tf


        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)], autograph=False)
        def compute_total(x):
            total = tf.reduce_sum(x * 3.0)
            return total


        def show(values):
            print(compute_total(values).numpy())


        show([1.0, 2.0])
        show([4.0])
        """,
        # The function runs the graph in the session it is handed: the session goes from its
        # parameters and from each call, by keyword or by position.
        id="module-function-handed-the-session-by-keyword-and-by-position",
    )
)

REWRITES.append(
    pytest.param(
        """
        import tensorflow as tf


        def build():
            x = tf.placeholder(tf.float32, [None])
            w = tf.Variable(2.0)
            total = tf.reduce_sum(x * w)


        if __name__ == "__main__":
            print("the graph is not run yet")
        """,
        """
        import tensorflow as tf


        def build():
            w = tf.Variable(2.0)

            @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)], autograph=False)
            def compute_total(x):
                total = tf.reduce_sum(x * w)
                return total


        if __name__ == "__main__":
            print("the graph is not run yet")
        """,
        # Nothing calls ``build``: what its graph ends in is a function for the program to call.
        id="graph-built-by-a-function-nothing-calls",
    )
)


@pytest.mark.parametrize(("before", "after"), REWRITES)
def test_rewrites(before: str, after: str) -> None:
    result = assert_rewrites("TFM101", before, after)
    assert result.findings == []
    assert result.fixes and all(f.code == "TFM101" for f in result.fixes)


DECLINES = [
    pytest.param(
        """
        import numpy as np
        import tensorflow as tf


        def readout(inputs):
            kernel = tf.Variable(tf.random_normal([3, 2], stddev=0.3))
            return tf.matmul(inputs, kernel)


        def build(points):
            return tf.nn.tanh(readout(points))


        def main():
            points = tf.placeholder(tf.float32, [None, 3])
            output = build(points)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                return sess.run(output, {points: np.ones((5, 3), np.float32)})
        """,
        # ``build`` makes variables through ``readout``: traced, it would make them on the
        # first call only and fail ("singleton tf.Variables").
        "variable `output` is initialised from `points`",
        id="function-making-variables-through-a-call",
    ),
    pytest.param(
        """
        import tensorflow as tf

        noise = tf.random_uniform([], -1.0, 1.0, seed=3)
        with tf.Session() as sess:
            first = sess.run(noise)
        with tf.Session() as sess:
            again = sess.run(noise)
        """,
        "random ops run in more than one session",
        id="random-state-restarts-per-session",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [2])
        y = x * 2.0
        z = y + 1.0
        with tf.Session() as sess:
            out = sess.run(z, {y: [1.0, 2.0]})
        """,
        "feeding `y`, which is not a placeholder",
        id="feed-non-placeholder",
    ),
    pytest.param(
        """
        import tensorflow as tf

        base = tf.add(1, 2)
        tripled = tf.multiply(base, 3)
        base = tf.add(5, 5)
        with tf.Session() as sess:
            out = sess.run(tripled, {base: 10})
        """,
        "`base` is fed but rebound between the graph and the run",
        id="fed-constant-rebound",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [2])
        scale = tf.constant(2.0)
        y = x * scale
        with tf.Session() as sess:
            first = sess.run(y, {x: [1.0, 2.0]})
            scale = tf.constant(5.0)
            second = sess.run(y, {x: [1.0, 2.0]})
        """,
        "`scale` is rebound after the graph used it",
        id="free-name-rebound-between-runs",
    ),
    pytest.param(
        """
        import tensorflow as tf

        graph_def = load_frozen("model.pb")
        tf.import_graph_def(graph_def, name="")
        g = tf.get_default_graph()
        x = g.get_tensor_by_name("input:0")
        y = g.get_tensor_by_name("output:0")
        with tf.Session() as sess:
            out = sess.run(y, {x: [[1.0, 2.0]]})
        """,
        "an imported graph",
        id="frozen-graph-imported",
    ),
    pytest.param(
        """
        import tensorflow as tf

        sess = tf.Session()
        g = sess.graph
        y = g.get_tensor_by_name("output:0")
        out = sess.run(y)
        """,
        "tensors looked up by name (`get_tensor_by_name`)",
        id="tensor-looked-up-by-name",
    ),
    pytest.param(
        """
        import tensorflow as tf

        with tf.Session(graph=tf.Graph()) as sess:
            tf.saved_model.loader.load(sess, ["serve"], "export")
            out = sess.run("y:0", feed_dict={"x:0": [1.0]})
        """,
        "an imported graph",
        id="saved-model-loaded-into-a-session",
    ),
    pytest.param(
        """
        import tensorflow as tf

        w = tf.Variable(10)
        first = tf.Session()
        second = tf.Session()
        first.run(w.initializer)
        second.run(w.initializer)
        a = first.run(w.assign_add(5))
        b = second.run(w.assign_sub(1))
        """,
        "variables are initialised again after ops that update them",
        id="two-sessions-each-with-its-own-variables",
    ),
    pytest.param(
        """
        import tensorflow as tf

        w = tf.Variable(tf.random_normal([2], seed=4))
        init = tf.global_variables_initializer()
        with tf.Session() as sess:
            sess.run(init)
            first = sess.run(w)
            sess.run(init)
            again = sess.run(w)
        """,
        "variables are initialised again in the same session",
        id="random-initial-values-drawn-again-by-the-same-session",
    ),
    pytest.param(
        """
        import tensorflow as tf

        w = tf.Variable(1.0)
        grow = w.assign(w * 2.0)
        results = []
        for trial in range(3):
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                results.append(sess.run(grow))
        """,
        "variables are initialised again after ops that update them",
        id="initialised-in-a-loop-of-sessions",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [2])
        y = x * 2.0
        sess = tf.Session()
        h = sess.partial_run_setup([y], [x])
        """,
        "`partial_run` cannot be migrated",
        id="partial-run",
    ),
    pytest.param(
        """
        import tensorflow as tf

        q = tf.FIFOQueue(10, tf.float32)
        x = tf.placeholder(tf.float32)
        y = x + 1.0
        sess = tf.Session()
        coord = tf.train.Coordinator()
        out = sess.run(y, {x: 1.0})
        """,
        "queues",
        id="queues",
    ),
    pytest.param(
        """
        import tensorflow as tf

        with tf.variable_scope("shared", reuse=True):
            x = tf.placeholder(tf.float32)
        y = x * 2.0
        sess = tf.Session()
        out = sess.run(y, {x: 1.0})
        """,
        "inside a larger statement or block",
        id="variable-scope-with-reuse-is-more-than-a-name",
    ),
    pytest.param(
        """
        import numpy as np
        import tensorflow as tf

        data = tf.placeholder(tf.float32, [None])
        it = tf.data.Dataset.from_tensor_slices(data).make_initializable_iterator()
        x = it.get_next()
        y = x * 2.0
        sess = tf.Session()
        sess.run(it.initializer, {data: np.ones(3)})
        out = sess.run(y)
        """,
        "an iterator over a dataset built from `data`",
        id="iterator-over-fed-dataset",
    ),
    pytest.param(
        """
        import numpy as np
        import tensorflow as tf

        it = tf.data.Dataset.from_tensor_slices(np.ones(3)).make_one_shot_iterator()
        sess = tf.Session()
        out = sess.run(it.get_next())
        """,
        "`get_next()` other than as `x, y = iterator.get_next()`",
        id="get-next-inside-a-run",
    ),
    pytest.param(
        """
        import numpy as np
        import tensorflow as tf

        it = tf.data.Dataset.from_tensor_slices(np.ones(3)).make_one_shot_iterator()
        x = it.get_next()
        scale = tf.placeholder(tf.float64)
        y = x * scale
        sess = tf.Session()
        out = sess.run(y, {scale: 2.0})
        """,
        "fed by a dataset iterator and by placeholders",
        id="iterator-and-placeholder",
    ),
    pytest.param(
        """
        import numpy as np
        import tensorflow as tf

        it = tf.data.Dataset.from_tensor_slices(np.ones(3)).make_initializable_iterator()
        x = it.get_next()
        y = x * 2.0
        sess = tf.Session()
        values = sess.run([it.initializer, y])
        """,
        "an iterator's initializer fetched together with other values",
        id="iterator-initializer-with-a-fetch",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32)
        y = x + 1.0
        saver = tf.train.Saver()
        with tf.Session() as sess:
            out = sess.run(y, {x: 1.0})
            saver.save(sess, "/tmp/model")
        """,
        "session `sess` is passed to `saver.save`: a TF1 Saver, kept until saver-to-checkpoint",
        id="session-passed-on",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32)
        x = tf.placeholder(tf.float32)
        sess = tf.Session()
        out = sess.run(x * 2.0, {x: 1.0})
        """,
        "placeholder `x` rebinds a name",
        id="placeholder-rebound",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32)
        y = x + 1.0
        print(y * 2.0)
        sess = tf.Session()
        out = sess.run(y, {x: 1.0})
        """,
        "a tensor is used outside the session",
        id="tensor-computed-where-printed",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [2, 3])
        print(tf.argmax(x, 1), tf.argmax(x, 1).shape)
        sess = tf.Session()
        out = sess.run(x, {x: [[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]]})
        """,
        "a tensor is used outside the session",
        id="op-built-where-printed-read-for-more-than-its-shape",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32)
        y = x + 1.0
        with tf.Session() as sess:
            for step in range(3):
                y = sess.run(y, {x: 1.0})
        """,
        "`y` is rebound where the graph is run",
        id="tensor-rebound-to-its-value-in-a-loop",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [None, 2])
        best, _ = tf.nn.top_k(x, k=1)
        picked = tf.cast(_, tf.float32) + best
        with tf.Session() as sess:
            for step in range(3):
                _, out = sess.run([picked, best], {x: [[1.0, 2.0]]})
        """,
        "`_` is rebound where the graph is run",
        id="name-read-by-the-graph-rebound-by-a-run-in-a-loop",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [2])
        states = []
        print(len(states))
        for step in range(2):
            states.append(x * step)
        total = tf.add_n(states)
        with tf.Session() as sess:
            out = sess.run(total, {x: [1.0, 2.0]})
        """,
        "`states` (made outside the graph code) is filled with graph tensors",
        id="list-filled-with-tensors-read-by-python-code-before",
    ),
    pytest.param(
        """
        import tensorflow as tf

        w = tf.Variable(1.0)
        bump = tf.group(tf.assign_add(w, 1.0))
        with tf.Session() as sess:
            sess.run(w.initializer)
            ran, value = sess.run([bump, w])
            print(ran)
        """,
        "the value of a fetched op (None in TF1) is used",
        id="op-value-bound-to-a-name-read-later",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [2])
        y = x * 2.0
        with tf.Session() as sess:
            print(sess.run(y, {x: [1.0, 2.0]}))
        x = tf.placeholder(tf.float32, [None])
        z = y + tf.reduce_sum(x)
        with tf.Session() as sess:
            print(sess.run(z, {x: [1.0]}))
        """,
        "placeholder `x` rebinds a name",
        id="placeholder-rebound-below-code-reading-the-graph-above",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [2])
        y = x * 2.0
        with tf.Session() as sess:
            print(sess.run(y, {x: [1.0, 2.0]}))
        x = tf.placeholder(tf.float32, [None])
        if len(x.shape) == 1:
            y = x * 3.0
        with tf.Session() as sess:
            print(sess.run(y, {x: [1.0]}))
        """,
        "placeholder `x` rebinds a name",
        id="placeholder-rebound-below-a-branch-maybe-binding-the-name",
    ),
    pytest.param(
        """
        import tensorflow as tf

        w = tf.Variable(1.0)
        x = tf.placeholder(tf.float32, [2])
        y = x * w
        with tf.Session() as sess:
            sess.run(w.initializer)
            print(sess.run(y, {x: [1.0, 2.0]}))
        x = tf.placeholder(tf.float32, [None])
        with tf.Session() as sess:
            print(sess.run(x, {x: [1.0]}))
        """,
        "placeholder `x` rebinds a name",
        id="placeholder-rebound-below-a-graph-with-variables",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [2])
        y = x * 2.0
        x = tf.placeholder(tf.float32, [None])
        with tf.Session() as sess:
            print(sess.run(y, {x: [1.0, 2.0]}))
        """,
        "placeholder `x` rebinds a name",
        id="placeholder-rebound-before-any-session",
    ),
    pytest.param(
        """
        import tensorflow as tf


        x = tf.placeholder(tf.float32, [2])
        y = x * 2.0
        with tf.Session() as sess:
            print(sess.run(y, {x: [1.0, 2.0]}))


        def twice():
            return y + y


        x = tf.placeholder(tf.float32, [None])
        z = twice() + tf.reduce_sum(x)
        with tf.Session() as sess:
            print(sess.run(z, {x: [3.0]}))
        """,
        "`twice` uses `y` from the graph",
        id="placeholder-rebound-below-a-function-reading-the-graph-above",
    ),
    pytest.param(
        """
        import tensorflow as tf

        w = tf.Variable(1.0)
        bump = tf.group(tf.assign_add(w, 1.0))
        with tf.Session() as sess:
            sess.run(w.initializer)
            print(sess.run([w, bump])[-1], sess.run([bump, w])[:1])
        """,
        "the value of a fetched op (None in TF1) is used",
        id="subscript-taking-the-op-value",
    ),
    pytest.param(
        """
        import tensorflow as tf

        w = tf.Variable(1.0)
        bump = tf.group(tf.assign_add(w, 1.0))
        with tf.Session() as sess:
            sess.run(w.initializer)
            for i in range(2):
                print(sess.run([bump, w])[i])
        """,
        "the value of a fetched op (None in TF1) is used",
        id="subscript-not-a-literal",
    ),
    pytest.param(
        """
        import tensorflow as tf

        w = tf.Variable(1.0)
        ema = tf.train.ExponentialMovingAverage(0.9)
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        sess.run(w.assign(3.0))
        # TF1 starts the average from w's initial value, an eager call would from 3.0.
        update = ema.apply([w])
        sess.run(update)
        """,
        "only for a call before the graph first runs",
        id="moving-average-made-after-a-run",
    ),
    pytest.param(
        """
        import tensorflow as tf

        w = tf.Variable(1.0)
        loss = tf.square(w - 2.0)
        ema = tf.train.ExponentialMovingAverage(0.9)
        # The average of a tensor starts from zeros: a first eager update would move it.
        update = ema.apply([loss])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(update)
        """,
        "only for a call over variables named in a list",
        id="moving-average-of-a-tensor",
    ),
    pytest.param(
        """
        import tensorflow as tf

        w = tf.Variable(1.0)
        ema = tf.train.ExponentialMovingAverage(0.9)
        for _ in range(2):
            update = ema.apply([w])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(update)
        """,
        "only for a call in a statement of its own",
        id="moving-average-made-in-a-loop",
    ),
    pytest.param(
        """
        import tensorflow as tf

        w = tf.Variable(1.0)
        ema = tf.train.ExponentialMovingAverage(0.9)
        update = ema.apply([w])
        # TF1 lists the average too: a list written for TF2 would leave it out.
        everything = tf.global_variables()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(update)
        """,
        "`tf.global_variables` lists or saves the program's variables",
        id="moving-average-with-the-variables-listed",
    ),
    pytest.param(
        """
        import tensorflow as tf

        noise = tf.random_uniform([2], seed=1)
        with tf.Session() as sess:
            first = sess.run(noise)
            again = noise.eval(session=tf.Session())
        """,
        "random ops run in more than one session",
        id="random-op-run-again-in-a-session-opened-for-one-eval",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32)
        y = x + 1.0
        with tf.Session() as sess:
            y = sess.run(y, {x: 1.0}) + tf.constant(1.0)
            out = sess.run(y)
        """,
        "`y` is rebound where the graph is run",
        id="tensor-rebound-to-a-new-tensor-where-run",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32)
        c = tf.constant(2.0)
        y = x * c
        with tf.Session() as sess:
            c = sess.run(c) * 10
            out = sess.run(y, {x: 1.0})
        """,
        "`c` is rebound after the graph used it",
        id="constant-rebound-to-its-value-before-a-function-reading-it-runs",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32)
        w = tf.Variable(1.0)
        step = tf.train.GradientDescentOptimizer(0.1).minimize(w * x)
        print(step)
        sess = tf.Session()
        sess.run(step, {x: 1.0})
        """,
        "`step` is read outside the session and is not a tensor this codemod understands",
        id="op-printed",
    ),
    pytest.param(
        """
        import tensorflow as tf

        pair = tf.unstack(tf.constant([1.0, 2.0]))
        print(pair)
        sess = tf.Session()
        out = sess.run(pair)
        """,
        "`pair` (several tensors) is printed outside the session",
        id="tensors-listed-printed",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32)
        y = x + 1.0
        tf.summary.scalar("y", y)
        merged = tf.summary.merge_all()
        sess = tf.Session()
        s, out = sess.run([merged, y], {x: 1.0})
        """,
        "fetch `merged` is an op this codemod does not understand",
        id="unknown-op-fetched",
    ),
    pytest.param(
        """
        import tensorflow as tf

        config = tf.ConfigProto(device_count={"GPU": 0})
        c = tf.constant(1.0)
        with tf.Session(config=config) as sess:
            v = sess.run(c)
        """,
        "ConfigProto option `device_count` has no tf.config equivalent",
        id="config-without-equivalent",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [None, 3])
        h = tf.layers.dense(x, 4)
        sess = tf.Session()
        out = sess.run(h, {x: [[1.0, 2.0, 3.0]]})
        """,
        "creates variables each time it runs",
        id="layers-on-placeholder",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [None, 3, 2])
        cell = tf.nn.rnn_cell.BasicLSTMCell(4)
        outputs, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
        sess = tf.Session()
        o = sess.run(outputs, {x: [[[1.0, 2.0]] * 3]})
        """,
        "`tf.nn.dynamic_rnn` creates variables each time it runs",
        id="rnn-on-placeholder",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [3])
        w = tf.Variable(x)
        sess = tf.Session()
        sess.run(w.initializer, {x: [1.0, 2.0, 3.0]})
        """,
        "variable `w` is initialised from `x`",
        id="variable-from-placeholder",
    ),
    pytest.param(
        """
        import tensorflow as tf

        w = tf.Variable(1.0)
        up = tf.assign_add(w, 1.0)
        init = tf.global_variables_initializer()
        with tf.Session() as sess:
            sess.run(init)
            sess.run(up)
        with tf.Session() as sess:
            sess.run(init)
            v = sess.run(w)
        """,
        "variables are initialised again",
        id="reinitialised-after-update",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32)
        y = x * 2.0
        sess = tf.Session()
        out = sess.run(y)
        """,
        "placeholder `x` is not fed",
        id="placeholder-not-fed",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32)
        y = x + 1.0
        w = tf.Variable(0.0)
        step = tf.group(tf.assign_add(w, 1.0))
        with tf.Session() as sess:
            r = sess.run({"a": [y, step]}, {x: 1.0})
        """,
        "an op, initializer or iterator inside a nested fetch structure",
        id="op-in-nested-fetch",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32)
        with tf.variable_scope("critic"):
            w = tf.Variable(2.0)
        with tf.variable_scope("painter"):
            v = tf.Variable(3.0)
        critic = [t for t in tf.trainable_variables() if t.name.startswith("critic")]
        y = x * w * v
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            r = sess.run(y, {x: 1.0})
        """,
        "the program reads variable names",
        id="scope-named-variables-whose-names-are-read",
    ),
    pytest.param(
        """
        import tensorflow as tf

        w = tf.Variable(1.0)
        if __name__ == "__main__":
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                twice = w * 2.0
                print(twice.eval())
        """,
        "`eval` is used outside a session call",
        id="tensor-built-and-evaluated-in-a-run-block",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32)
        y = x + 1.0
        with tf.Session() as sess:
            for v in range(2):
                feed = {x: v}
                print(feed)
                out = sess.run(y, feed_dict=feed)
        """,
        "feed dict `feed` is used other than as a feed_dict",
        id="loop-feed-dict-used-otherwise",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32)
        z = tf.placeholder(tf.float32)
        y = x + z
        with tf.Session() as sess:
            for v in range(2):
                feed = {x: v}
                out = sess.run(y, feed_dict=feed)
        """,
        "feed dict `feed` does not feed `z`, which `compute_y` needs",
        id="loop-feed-dict-missing-key",
    ),
    pytest.param(
        """
        import tensorflow as tf

        class Net:
            def __init__(self):
                self.x = tf.placeholder(tf.float32)

            def run(self):
                with tf.Session() as sess:
                    return sess.run(self.x * 2.0, {self.x: 1.0})
        """,
        "sessions in the methods of `Net`",
        id="sessions-in-methods",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32)
        y = x * 2.0
        sess = tf.Session()
        out = sess.run(y, {x: 1.0}, options=tf.RunOptions(trace_level=3))
        """,
        "`run` with options",
        id="run-options",
    ),
    pytest.param(
        """
        import tensorflow as tf

        from models import Model

        x = tf.placeholder(tf.float32)
        model = Model()
        sess = tf.Session()
        out = sess.run(model.loss, {x: 1.0})
        """,
        "fetch `model.loss` is not a tensor of this graph",
        id="fetch-of-an-attribute",
    ),
    pytest.param(
        """
        import tensorflow as tf
        from models import inference

        x = tf.placeholder(tf.float32)
        logits = inference(x)
        sess = tf.Session()
        out = sess.run(logits, {x: 1.0})
        """,
        "`inference` is defined elsewhere",
        id="unknown-function-on-a-placeholder",
    ),
    pytest.param(
        """
        import tensorflow as tf

        scale = 2.0
        x = tf.placeholder(tf.float32)
        y = x * scale
        scale += 1.0
        sess = tf.Session()
        out = sess.run(y, {x: 1.0})
        """,
        "`scale` is rebound after the graph used it",
        id="captured-python-value-rebound",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32)
        y = x * 2.0
        data = 1.0
        feed = {x: data}
        data = 2.0
        sess = tf.Session()
        out = sess.run(y, feed_dict=feed)
        """,
        "`data` in feed dict `feed` is rebound before the run",
        id="named-feed-value-rebound",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32)
        y = x * 2.0
        sess = tf.Session()

        def predict(value):
            return sess.run(y, {x: value})
        """,
        "`predict` uses `sess` from the graph",
        id="session-used-by-another-function",
    ),
    pytest.param(
        """
        import tensorflow as tf

        if True:
            x = tf.placeholder(tf.float32)
        y = x * 2.0
        sess = tf.Session()
        out = sess.run(y, {x: 1.0})
        """,
        "inside a larger statement or block",
        id="placeholder-in-a-block",
    ),
    pytest.param(
        """
        import tensorflow as tf

        products = []
        for scale in [1.0, 2.0]:
            w = tf.Variable([scale, -scale])
            products.append(w * 3.0)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out = sess.run(products)
        """,
        "`tf.Variable` made in a `for` loop: each pass makes new variables",
        id="variable-made-in-a-loop",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32)
        y = x * 2.0
        sess = tf.Session()
        t, out = sess.run([tf.no_op(), y], {x: 1.0})
        """,
        "builds new graph ops where the graph is run",
        id="graph-built-inside-run",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [3])
        y = x * 2.0
        with tf.Session() as sess:
            sess.run(tf.Print(y, [y], "y: ", summarize=2), {x: [1.0, 2.0, 3.0]})
        """,
        "log them with `tf.print(...)` after the run by hand",
        id="print-run-with-summarize",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [3])
        y = x * 2.0
        with tf.Session() as sess:
            logged = sess.run(tf.Print(y, [y]), {x: [1.0, 2.0, 3.0]})
        """,
        "logs tensors in a way `tf.print` does not repeat (its value used",
        id="print-run-for-its-value",
    ),
    pytest.param(
        """
        import tensorflow as tf


        def make_inputs():
            with tf.name_scope("inputs"):
                features = tf.placeholder(tf.float32, [None, 2])
            return features, tf.reduce_sum(features, axis=1)


        def main():
            features, total = make_inputs()
            with tf.Session() as sess:
                print(sess.run(total, {features: [[1.0, 2.0]]}))
        """,
        "feeding `features`, a placeholder `make_inputs()` makes and returns: only a placeholder made where",
        id="placeholder-made-and-returned-by-a-function",
    ),
    pytest.param(
        """
        import tensorflow as tf

        layer = tf.keras.layers.Dropout(0.5)
        x = tf.placeholder(tf.float32, [None, 2])
        training = tf.placeholder(tf.bool)
        y = layer(x, training=training)
        with tf.Session() as sess:
            out = sess.run(y, {x: data, training: mode == "train"})
        """,
        "feed it the literal True or False",
        id="training-switch-fed-a-computed-value",
    ),
    pytest.param(
        """
        import tensorflow as tf

        fine_tune = False
        x = tf.placeholder(tf.float32, [None, 2])
        W = tf.Variable(tf.ones([2, 1]), trainable=fine_tune)
        y = tf.matmul(x, W)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            print(sess.run(y, {x: [[1.0, 2.0]]}))
        """,
        # Issue 36's one policy: a non-literal ``trainable=`` is unknown, as in the training
        # inventory (it was read as trainable here before).
        "variable `W` cannot be listed: a variable whose `trainable` is not a literal",
        id="variable-trainable-not-a-literal",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [2])


        def doubled():
            return x * 2.0


        def run_twice():
            w = tf.Variable(2.0)
            y = doubled() * w
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                return sess.run(y, {x: [1.0, 2.0]})


        run_twice()
        """,
        "feeding `x`, a placeholder made at module level for a graph this function builds and runs",
        id="module-placeholder-fed-in-a-function",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [2])
        y = x * 3.0
        with tf.Session() as sess:
            graph_of_run = sess.graph
            out = sess.run(y, {x: [1.0, 2.0]})
        """,
        "`sess.graph` is read: TF2 has no session graph",
        id="session-graph-read",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [2])
        y = x * 3.0


        def report(session, fetch, feed):
            print(session.run(fetch, feed))


        with tf.Session() as sess:
            report(sess, y, {x: [1.0, 2.0]})
        """,
        "session `sess` is passed to `report`, which this codemod does not follow into",
        id="session-passed-to-a-module-function",
    ),
    pytest.param(
        """
        import tensorflow as tf

        rows = tf.placeholder(tf.float32, [None, 2])
        doubled = rows * 2.0
        rows.set_shape([3, 2])
        with tf.Session() as sess:
            out = sess.run(doubled, {rows: [[1.0, 2.0]] * 3})
        """,
        "`rows.set_shape(...)` after the graph read `rows`",
        id="placeholder-shape-set-after-an-op-read-it",
    ),
    pytest.param(
        """
        import tensorflow as tf

        rows = tf.placeholder(tf.float32, [None, 2])
        rows.set_shape([3, 5])
        with tf.Session() as sess:
            out = sess.run(rows * 2.0, {rows: [[1.0, 2.0]] * 3})
        """,
        "with a shape other than a literal refining the declared one",
        id="placeholder-shape-set-incompatible",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [None])
        total = tf.reduce_sum(x * 3.0)


        def show(sess, values):
            print(sess.run(total, {x: values}))


        hooks = [show]
        with tf.Session() as sess:
            show(sess, [1.0])
        """,
        "`show` runs the graph in the session it is given and is used other than called with a session",
        id="function-handed-the-session-also-kept-in-a-list",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [None])
        total = tf.reduce_sum(x * 3.0)


        def show(sess, values):
            print(sess.run(total, {x: values}))


        with tf.Session() as first:
            show(first, [1.0])
        with tf.Session() as second:
            show(second, [2.0])
        """,
        "`show` is given a session in a program opening several",
        id="function-handed-each-of-two-sessions",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [None])
        total = tf.reduce_sum(x * 3.0)


        def show(sess, values):
            print(sess.run(total, {x: values}))


        total = tf.reduce_max(x)
        with tf.Session() as sess:
            show(sess, [1.0])
        """,
        # Called, it runs the tensor ``total`` names then: not the one built above it.
        "`show` runs the graph in the session it is given, and `total` is bound again after it is defined",
        id="function-handed-the-session-reading-a-tensor-rebuilt-below-it",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [None])
        total = tf.reduce_sum(x * 3.0)


        def show(sess, values):
            print(sess.run(total, {x: values}), sess.graph)


        with tf.Session() as sess:
            show(sess, [1.0])
        """,
        "`show` uses `total` from the graph",
        id="function-handed-the-session-reading-its-graph",
    ),
    pytest.param(
        """
        import tensorflow as tf


        def build():
            x = tf.placeholder(tf.float32, [None])
            total = tf.reduce_sum(x * 3.0)
            tf.summary.scalar("total", total)


        if __name__ == "__main__":
            print("nothing runs the graph")
        """,
        # The summary op binds no name: no function of what the graph ends in computes it.
        "a graph never run with code none of its results reads",
        id="graph-never-run-with-a-summary",
    ),
    pytest.param(
        """
        import tensorflow as tf

        scale = 2.0
        x = tf.placeholder(tf.float32, [None])
        y = x * scale


        def show(sess):
            print(sess.run(y, {x: [1.0]}))


        scale = 5.0
        with tf.Session() as sess:
            show(sess)
        """,
        # The function handed the session runs where it is called, after ``scale`` changed: a
        # trace there would read 5.0, TF1's graph read 2.0.
        "`scale` is rebound after the graph used it",
        id="function-handed-the-session-called-after-a-name-the-graph-read-changed",
    ),
]


@pytest.mark.parametrize(("source", "message"), DECLINES)
def test_declines_unchanged_with_finding(source: str, message: str) -> None:
    result = assert_unchanged("TFM101", source)
    assert [f.code for f in result.findings] == ["TFM101"]
    assert message in result.findings[0].message
    assert "session program not migrated" in result.findings[0].message


NO_OPS = [
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32)
        y = x + 1.0
        """,
        id="graph-without-session",
    ),
    pytest.param(
        """
        from unittest import mock
        tf = mock.Mock()
        x = tf.placeholder("float")
        sess = tf.Session()
        out = sess.run(x, {x: 1.0})
        """,
        id="non-tf-tf",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32)
        y = x + 1.0
        sess = tf.Session()  # tfmodernize: ignore[TFM101]
        out = sess.run(y, {x: 1.0})
        """,
        id="suppressed",
    ),
    pytest.param(
        """
        import tensorflow as tf

        x = tf.placeholder(tf.float32)
        y = x + 1.0
        sess = tf.Session()
        out = sess.run(y, {x: 1.0})  # tfmodernize: ignore
        """,
        id="suppressed-at-call-site",
    ),
    pytest.param(
        """
        import tensorflow as tf


        def build():
            x = tf.placeholder(tf.float32, [None])
            total = tf.reduce_sum(x * 3.0)


        build()
        """,
        id="graph-built-by-a-function-the-script-calls-and-never-run",
    ),
    pytest.param(
        """
        import tensorflow as tf


        def build():
            x = tf.placeholder(tf.float32, [None])
            total = tf.reduce_sum(x * 3.0)
        """,
        id="graph-built-by-a-function-of-a-library-module",
    ),
    pytest.param(
        """
        import tensorflow as tf


        def build():
            x = tf.placeholder(tf.float32, [None])
            return x, tf.reduce_sum(x * 3.0)


        if __name__ == "__main__":
            print("built elsewhere")
        """,
        id="graph-returned-by-a-function-nothing-calls",
    ),
]


@pytest.mark.parametrize("source", NO_OPS)
def test_no_ops(source: str) -> None:
    result = assert_unchanged("TFM101", source)
    assert result.findings == []


def test_tf1_compat_import_names_tf2_through_compat_v2() -> None:
    result = rewrite(
        "TFM101",
        """
        import tensorflow.compat.v1 as tf

        x = tf.placeholder(tf.float32, [2])
        y = x * 2.0
        with tf.Session() as sess:
            for row in ([1.0, 2.0], [3.0, 4.0]):
                out = sess.run(y, {x: row})
        """,
    )
    assert (
        "@tf.compat.v2.function(\n"
        "    input_signature=[tf.compat.v2.TensorSpec([2], tf.float32)],\n"
        "    autograph=False,\n"
        ")\n"
    ) in result.code
    assert "placeholder" not in result.code and "Session" not in result.code


MINIMIZE = """
import tensorflow as tf

x = tf.placeholder(tf.float32, [None, 1])
w = tf.Variable([[0.0]])
loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 1.0))
train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
grads = tf.gradients(loss, [w])
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    _, l = sess.run([train, loss], {x: [[1.0]]})
    g = sess.run(grads, {x: [[1.0]]})
"""


def test_minimize_and_gradients_are_obligations() -> None:
    # Alone, TFM101 cannot complete this program: the engine drops it with a finding.
    result = rewrite("TFM101", MINIMIZE)
    assert result.code == MINIMIZE
    messages = [f.message for f in result.findings]
    assert any(
        "optimizer step (`minimize`, `apply_gradients`) moved into `train_step`" in m and "TFM102" in m
        for m in messages
    )
    assert any("`tf.gradients` moved into" in m and "TFM103" in m for m in messages)


def test_minimize_statement_moved_verbatim_into_the_function() -> None:
    from tfmodernize.file_state import FileState
    from tfmodernize.registry import find_codemod
    from tfmodernize.engine import _transform_once

    codemod = find_codemod("TFM101")
    text, state = _transform_once(
        MINIMIZE.replace("    g = sess.run(grads, {x: [[1.0]]})\n", ""), [codemod], path="<test>", unsafe_fixes=False
    )
    assert [o.needs for o in state.obligations] == ["TFM102"]
    assert isinstance(state, FileState)


def test_graph_unit_variables_made_by_module_functions_and_random_initial_values() -> None:
    import libcst as cst

    from tfmodernize.tfsymbols import TFNames

    module = cst.parse_module(
        "import tensorflow as tf\n"
        "W = weight_variable([3, 2])\n"
        "initial = tf.random_uniform([2])\n"
        "b = tf.Variable(initial)\n"
        "noise = tf.random_normal([2])\n"
    )
    unit = GraphUnit(module.body, TFNames.for_module(module), variable_functions={"weight_variable"})
    assert [v.name for v in unit.variables] == ["W", "b"]
    assert unit.kind("initial") == "static"  # drawn once, to initialise b
    assert unit.kind("noise") == "dynamic"  # drawn anew at every run


def test_variables_created_after_migration_and_unreadable_programs() -> None:
    import libcst as cst

    from tfmodernize.codemods.migrate.session_to_function.graph import variables_created
    from tfmodernize.tfsymbols import TFNames

    migrated = cst.parse_module(
        "import tensorflow as tf\n"
        "W = tf.Variable(tf.zeros([2, 1]))\n"
        "steps = tf.Variable(0, trainable=False)\n"
        "@tf.function\n"
        "def step(x):\n"
        "    return tf.matmul(x, W)\n"
    )
    found = variables_created(migrated.body, TFNames.for_module(migrated))
    assert [(v.name, v.trainable) for v in found] == [("W", True), ("steps", False)]
    unreadable = cst.parse_module(
        "import tensorflow as tf\nx = tf.placeholder(tf.float32)\nx = tf.placeholder(tf.float32)\n"
    )
    assert variables_created(unreadable.body, TFNames.for_module(unreadable)) is None


def test_graph_unit_reports_variables_in_creation_order() -> None:
    import libcst as cst

    from tfmodernize.tfsymbols import TFNames

    module = cst.parse_module(
        "import tensorflow as tf\n"
        "b = tf.Variable(tf.zeros([2]))\n"
        "steps = tf.Variable(0, trainable=False)\n"
        "w = tf.get_variable('w', [2, 2])\n"
        "layers = {'h': tf.Variable(tf.ones([2])), 'out': tf.Variable(1.0, trainable=False)}\n"
        "x = tf.placeholder(tf.float32, [None, 2])\n"
        "y = tf.matmul(x, w) + b\n"
        "z = y * 2.0\n"
        "k = tf.constant(3.0)\n"
    )
    unit = GraphUnit(module.body, TFNames.for_module(module))
    assert [v.name for v in unit.variables] == ["b", "steps", "w", "layers['h']", "layers['out']"]
    assert [v.name for v in unit.trainable_variables()] == ["b", "w", "layers['h']"]
    assert list(unit.placeholders) == ["x"]
    assert unit.kind("k") == "static" and unit.kind("z") == "dynamic" and unit.kind("layers") == "variable"
    assert [s.index for s in unit.backward_slice({"z"}, len(unit.statements))] == [6, 7]
    assert unit.statements[5].kind is Kind.PLACEHOLDER


SHARED_RANDOM_OP = """
import tensorflow as tf

x = tf.placeholder(tf.float32, [4])
drop = tf.nn.dropout(x, 0.5)
total = tf.reduce_sum(drop)
with tf.Session() as sess:
    first = sess.run(total, {x: data})
    mask = sess.run(drop, {x: data})
"""


def test_a_random_op_drawn_by_runs_of_different_fetches_is_an_unsafe_fix():
    # Each TF2 function draws from its own op: the same distribution, other numbers. Left as it
    # is, with the reason, unless unsafe fixes are asked for.
    result = assert_unchanged("TFM101", SHARED_RANDOM_OP)
    assert [f.unsafe_fix for f in result.findings] == [True]
    assert (
        "a random op is drawn by runs of different fetches (compute_drop, compute_total)" in result.findings[0].message
    )
    assert result.findings[0].message.endswith("(unsafe fix: use --unsafe-fixes)")
    applied = rewrite("TFM101", SHARED_RANDOM_OP, unsafe_fixes=True)
    assert "def compute_drop(x):" in applied.code and "def compute_total(x):" in applied.code
    assert any("session program migrated drawing other random numbers" in f.message for f in applied.fixes)


MODULE_PLACEHOLDER = """
import tensorflow as tf

x = tf.placeholder(tf.float32, [2])
{reader}

def run():
    w = tf.Variable(2.0)
    y = x * w
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(y, {{x: [1.0, 2.0]}})


value = run()
"""


@pytest.mark.parametrize(
    ("reader", "taken_in"),
    [("", True), ("shown = print(x.dtype)", False), ("x = tf.identity(x)", False)],
)
def test_a_module_placeholder_one_function_reads_is_taken_into_its_unit(reader, taken_in):
    # Read by the module too, or bound again, it stays where it is and the function declines.
    result = rewrite("TFM101", MODULE_PLACEHOLDER.format(reader=reader))
    assert ("x = tf.placeholder" not in result.code) is taken_in
    assert ("def compute_y(x):" in result.code) is taken_in


def test_a_tensor_named_like_its_function_is_shared_by_no_helper():
    # Two functions need ``spread`` past the statements they share: a helper would return it
    # under the module function's name; each function computes it under its local instead.
    before = """
import tensorflow as tf


def spread(values):
    return tf.reduce_max(values) - tf.reduce_min(values)


x = tf.placeholder(tf.float32, [None])
spread = spread(x)
halved = spread / 2.0
up = halved + spread
down = halved - spread
with tf.Session() as sess:
    a = sess.run(up, {x: [1.0, 3.0]})
    b = sess.run(down, {x: [1.0, 3.0]})
"""
    result = rewrite("TFM101", before)
    assert "def build_" not in result.code
    assert "up = halved + spread_result" in result.code
    assert "down = halved - spread_result" in result.code


DROPOUT_FED = """
import numpy as np
import tensorflow as tf

x = tf.placeholder(tf.float32, [None, 3])
keep = tf.placeholder(tf.float32)
w = tf.Variable(tf.ones([3, 1]))
h = tf.nn.dropout(x, keep)
out = tf.reduce_sum(tf.matmul(h, w))
peak = tf.reduce_max(h)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    total = sess.run(out, {{x: np.ones((2, 3)), keep: {first}}})
    largest = sess.run(peak, {{x: np.ones((2, 3)), keep: {second}}})
"""


@pytest.mark.parametrize(("first", "second", "unsafe"), [("1.0", "1", False), ("0.5", "1.0", True)])
def test_a_dropout_every_run_keeps_whole_is_not_an_unsafe_fix(first, second, unsafe):
    # Fed 1.0 by every run, the dropout keeps every element whatever it draws: the two
    # functions compute TF1's values. A run really dropping makes the draws count again.
    result = rewrite("TFM101", DROPOUT_FED.format(first=first, second=second))
    unsafe_findings = [f for f in result.findings if f.unsafe_fix]
    assert bool(unsafe_findings) is unsafe
    assert ("def compute_out(x, keep):" in result.code) is not unsafe


DROPOUT_BETWEEN_LAYERS = """
import numpy as np
import tensorflow as tf

x = tf.placeholder(tf.float32, [None, 3])
w1 = tf.Variable(tf.random_normal([3, 4]))
{first}
w2 = tf.Variable(tf.random_normal([4, 1]))
{second}
out = tf.reduce_sum(tf.matmul(h, w2))
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    value = sess.run(out, feed_dict={{x: np.ones((2, 3))}})
"""


def test_a_random_op_built_before_a_random_initial_value_is_an_unsafe_fix():
    # TF1 seeded the dropout before w2's initial value; TF2 draws w2's eagerly, the dropout's
    # op when the function is traced: their seeds swap. Unless unsafe fixes are asked for, left
    # as it is with the reason.
    dropout = "h = tf.nn.dropout(tf.matmul(x, w1), 0.5)"
    before = DROPOUT_BETWEEN_LAYERS.format(first=dropout, second="")
    result = assert_unchanged("TFM101", before)
    assert [f.unsafe_fix for f in result.findings] == [True]
    message = result.findings[0].message
    assert "a random op drawn by compute_out is built before `w2`, drawn eagerly" in message
    applied = rewrite("TFM101", before, unsafe_fixes=True)
    assert "def compute_out(x):" in applied.code
    # Built after every variable, it is seeded after them in both: a safe fix.
    after_variables = DROPOUT_BETWEEN_LAYERS.format(first="", second=dropout)
    migrated = rewrite("TFM101", after_variables)
    assert "def compute_out(x):" in migrated.code and migrated.findings == []


# -- values converted where the program reads them (issue 35) ------------------------------

STEP_IN_A_LOOP = """
import numpy as np
import tensorflow as tf

x = tf.placeholder(tf.float32, [None, 1])
w = tf.Variable([[1.0]])
loss = tf.reduce_sum(tf.matmul(x, w))
grow = tf.assign_add(w, [[0.5]])
"""

STEP_FUNCTION = """
import numpy as np
import tensorflow as tf

w = tf.Variable([[1.0]])


@tf.function(input_signature=[tf.TensorSpec([None, 1], tf.float32)], autograph=False)
def evaluate(x):
    loss = tf.reduce_sum(tf.matmul(x, w))
    grow = w.assign_add([[0.5]])
    return grow, loss


"""

RUN = "_, value = sess.run([grow, loss], {x: np.ones((2, 1))})"
SESSION = "with tf.Session() as sess:\n    sess.run(tf.global_variables_initializer())\n"


def test_a_value_read_every_other_step_is_converted_where_it_is_read():
    assert_rewrites(
        "TFM101",
        STEP_IN_A_LOOP
        + "total = 0.0\n"
        + SESSION
        + "    for step in range(4):\n        "
        + RUN
        + "\n        if step % 2 == 0:\n            total += value\n",
        STEP_FUNCTION + "total = 0.0\nfor step in range(4):\n"
        "    _, value = evaluate(np.ones((2, 1)))\n"
        "    if step % 2 == 0:\n        total += value.numpy()\n",
    )


def test_values_never_read_are_not_converted():
    assert_rewrites(
        "TFM101",
        STEP_IN_A_LOOP + SESSION + "    for step in range(4):\n        " + RUN + "\n",
        STEP_FUNCTION + "for step in range(4):\n    _, value = evaluate(np.ones((2, 1)))\n",
    )


def test_a_value_read_twice_every_step_is_converted_once_at_the_call():
    assert_rewrites(
        "TFM101",
        STEP_IN_A_LOOP
        + "seen = []\n"
        + SESSION
        + "    for step in range(4):\n        "
        + RUN
        + "\n        seen.append(value)\n        print(value)\n",
        STEP_FUNCTION + "seen = []\nfor step in range(4):\n"
        "    _, value = [t.numpy() for t in evaluate(np.ones((2, 1)))]\n"
        "    seen.append(value)\n    print(value)\n",
    )


def test_summaries_of_a_value_the_loop_also_reads_stay_in_the_loop():
    writes = '    with writer.as_default():\n        tf.summary.scalar("loss", value, step=step)\n    print(value)\n'
    assert_rewrites(
        "TFM101",
        STEP_IN_A_LOOP
        + 'writer = tf.summary.create_file_writer("logs")\n'
        + SESSION
        + "    for step in range(4):\n        "
        + RUN
        + "\n"
        + "".join("    " + line + "\n" for line in writes.splitlines()),
        # the summary takes the tensor as it is; only the printed read converts it
        STEP_FUNCTION + 'writer = tf.summary.create_file_writer("logs")\nfor step in range(4):\n'
        "    _, value = evaluate(np.ones((2, 1)))\n" + writes.replace("print(value)", "print(value.numpy())"),
    )


def test_the_step_of_summaries_moved_in_is_passed_by_keyword_after_a_fed_dict():
    # ``evaluate(**fed, step)`` is not Python: the step follows the fed values by name.
    assert_rewrites(
        "TFM101",
        STEP_IN_A_LOOP
        + 'writer = tf.summary.create_file_writer("logs")\n'
        + SESSION
        + """\
    for step in range(4):
        fed = {x: np.ones((2, 1))}
        _, value = sess.run([grow, loss], feed_dict=fed)
        with writer.as_default():
            tf.summary.scalar("loss", value, step=step)
""",
        """
import numpy as np
import tensorflow as tf

w = tf.Variable([[1.0]])


@tf.function(
    input_signature=[tf.TensorSpec([None, 1], tf.float32), tf.TensorSpec([], tf.int64)],
    autograph=False,
)
def evaluate(x, step):
    loss = tf.reduce_sum(tf.matmul(x, w))
    grow = w.assign_add([[0.5]])
    with writer.as_default(step=step):
        tf.summary.scalar("loss", loss)
    return grow


writer = tf.summary.create_file_writer("logs")
for step in range(4):
    fed = {"x": np.ones((2, 1))}
    _ = evaluate(**fed, step=step)
""",
    )


def test_a_long_unpacking_of_converted_values_wraps_its_targets():
    before = """
    import numpy as np
    import tensorflow as tf

    x = tf.placeholder(tf.float32, [None, 1])
    w = tf.Variable([[2.0]])
    first_scaled_value = tf.reduce_sum(x * w)
    second_scaled_value = tf.reduce_mean(x * w)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(3):
            first_value_of_the_step, second_value_of_the_step = sess.run([first_scaled_value, second_scaled_value], {x: np.ones((2, 1))})
            print(first_value_of_the_step, second_value_of_the_step)
    """  # noqa: E501
    assert rewrite("TFM101", before).code.endswith(
        "for step in range(3):\n"
        "    (\n"
        "        first_value_of_the_step,\n"
        "        second_value_of_the_step,\n"
        "    ) = [t.numpy() for t in evaluate(np.ones((2, 1)))]\n"
        "    print(first_value_of_the_step, second_value_of_the_step)\n"
    )


def test_a_line_reading_static_shapes_pushed_past_the_width_is_wrapped():
    before = """
    import numpy as np
    import tensorflow as tf

    x = tf.placeholder(tf.float32, [None, 3])
    w = tf.Variable(tf.ones([3, 4]))
    hidden = tf.matmul(x, w)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        print(sess.run(hidden, {x: np.ones((2, 3))}))
        print("the hidden layer is", hidden.shape[1], "wide, for", x.shape[1], "inputs")
    """
    assert rewrite("TFM101", before).code.endswith(
        "print(\n"
        '    "the hidden layer is",\n'
        "    compute_hidden.get_concrete_function().output_shapes[1],\n"
        '    "wide, for",\n'
        "    tf.TensorShape([None, 3])[1],\n"
        '    "inputs",\n'
        ")\n"
    )


WIDE_READ = """
import tensorflow as tf

x = tf.placeholder(tf.float32, [None, 3])
hidden_activations = tf.matmul(x, tf.ones([3, 4]))
{own}print("the hidden layer of the network is "
      "{{}} wide".format(hidden_activations.shape.as_list()[1]))
with tf.Session() as sess:
    print(sess.run(hidden_activations, {{x: [[1.0, 2.0, 3.0]]}}))
"""


def test_a_traced_shape_widening_a_line_is_read_into_a_local_first():
    code = rewrite("TFM101", WIDE_READ.format(own="")).code
    assert code.endswith(
        "hidden_activations_shape = (\n"
        "    compute_hidden_activations.get_concrete_function().output_shapes\n"
        ")\n"
        'print("the hidden layer of the network is "\n'
        '      "{} wide".format(hidden_activations_shape.as_list()[1]))\n'
        "print(compute_hidden_activations([[1.0, 2.0, 3.0]]).numpy())\n"
    )


def test_a_traced_shape_stays_in_its_line_when_the_program_has_the_local_name():
    own = "hidden_activations_shape = None\n"
    code = rewrite("TFM101", WIDE_READ.format(own=own)).code
    assert "hidden_activations_shape = compute" not in code
    assert '"{} wide".format(compute_hidden_activations.get_concrete_function().output_shapes' in code


def test_the_comment_of_a_scope_stays_while_statements_of_it_stay():
    assert_rewrites(
        "TFM101",
        """
        import numpy as np
        import tensorflow as tf

        # inputs and weights
        with tf.name_scope("layer"):
            x = tf.placeholder(tf.float32, [None, 2])
            w = tf.Variable([[1.0], [2.0]])
        # the output
        y = tf.matmul(x, w)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            print(sess.run(y, feed_dict={x: np.ones((3, 2))}))
        """,
        """
        import numpy as np
        import tensorflow as tf

        # inputs and weights
        w = tf.Variable([[1.0], [2.0]])


        def compute_y(x):
            x = tf.convert_to_tensor(x, tf.float32)
            # the output
            y = tf.matmul(x, w)
            return y


        print(compute_y(np.ones((3, 2))).numpy())
        """,
    )


def test_a_line_of_spaces_closing_a_block_counts_as_a_blank_line_before_a_function():
    before = (
        "import tensorflow as tf\n\nx = tf.placeholder(tf.float32, [2])\n"
        "if True:\n    a = 1\n    \n"
        "y = x * 2.0\nwith tf.Session() as sess:\n    for i in range(2):\n"
        "        print(sess.run(y, {x: [i, 2.0]}))\n"
    )
    result = rewrite("TFM101", before, dedent=False)
    assert result.code == (
        "import tensorflow as tf\n\nif True:\n    a = 1\n    \n\n"
        "@tf.function(input_signature=[tf.TensorSpec([2], tf.float32)], autograph=False)\n"
        "def compute_y(x):\n    y = x * 2.0\n    return y\n\n\n"
        "for i in range(2):\n    print(compute_y([i, 2.0]).numpy())\n"
    )


def test_a_module_function_making_variables_through_another_is_summarized_as_making_them():
    """``conv_layer`` calling ``weight_variable``: an importer calling it on a placeholder
    value must not move it into a tf.function (it would make its variables at every trace)."""
    import libcst as cst

    from tfmodernize.codemods.migrate.session_to_function import SessionToFunction
    from tfmodernize.tfsymbols import TFNames

    module = cst.parse_module(
        "import tensorflow as tf\n\n\n"
        "def weight_variable(shape):\n"
        "    return tf.Variable(tf.random.truncated_normal(shape, stddev=0.1))\n\n\n"
        "def conv_layer(inputs, shape):\n"
        "    return tf.nn.relu(tf.nn.conv2d(inputs, weight_variable(shape), 1, 'SAME'))\n\n\n"
        "def block(inputs):\n"
        "    return conv_layer(conv_layer(inputs, [3, 3, 1, 4]), [3, 3, 4, 4])\n"
    )
    functions = SessionToFunction.summarize(module, TFNames.for_module(module))["functions"]
    assert functions["conv_layer"] == {"graph": True, "variables": True, "draws": True, "factory": False}
    assert functions["block"]["variables"] and functions["block"]["draws"]
    assert functions["weight_variable"]["factory"]
