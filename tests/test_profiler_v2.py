"""TFM118 profiler-v2: TF 1.14's private eager profiler -> tf.profiler.experimental; where the
directory a profile goes to cannot be read at its start, nothing changes and a finding says why."""

import pytest

from tfmodernize.testing import assert_rewrites, assert_unchanged

CODE = "TFM118"

REWRITES = [
    pytest.param(
        """\
        import tensorflow.python.eager.profiler as prof

        def run(logdir):
            prof.start()
            work()
            traced = prof.stop()
            prof.save(logdir, traced)
        """,
        """\
        import tensorflow as tf

        def run(logdir):
            tf.profiler.experimental.start(logdir)
            work()
            tf.profiler.experimental.stop()
        """,
        id="import-as-parameter-directory",
    ),
    pytest.param(
        """\
        import tensorflow.compat.v1 as tf
        from tensorflow.python.eager import context, profiler

        LOGDIR = "/tmp/profile"

        def begin():
            profiler.start()

        def end():
            result = profiler.stop()
            profiler.save(LOGDIR, result)

        def abort():
            profiler.stop()
        """,
        """\
        import tensorflow.compat.v1 as tf
        from tensorflow.python.eager import context

        LOGDIR = "/tmp/profile"

        def begin():
            tf.compat.v2.profiler.experimental.start(LOGDIR)

        def end():
            tf.compat.v2.profiler.experimental.stop()

        def abort():
            tf.compat.v2.profiler.experimental.stop(save=False)
        """,
        id="module-constant-shared-import-v1-file",
    ),
    pytest.param(
        """\
        import tensorflow as tf
        from tensorflow.python.eager import profiler

        def trace(logdir, port):
            profiler.start_profiler_server(port)
            with profiler.Profiler(logdir):
                step()
        """,
        """\
        import tensorflow as tf

        def trace(logdir, port):
            tf.profiler.experimental.server.start(port)
            with tf.profiler.experimental.Profile(logdir):
                step()
        """,
        id="server-and-context",
    ),
    pytest.param(
        """\
        import tensorflow as tf
        from tensorflow.python.eager import profiler

        def traced_run(outdir, fetches):
            profiler.start()
            with tf.Session() as session:
                values = session.run(fetches)
            trace = profiler.stop()
            profiler.save(outdir, trace)
            return values
        """,
        """\
        import tensorflow as tf

        def traced_run(outdir, fetches):
            tf.compat.v2.profiler.experimental.start(outdir)
            with tf.Session() as session:
                values = session.run(fetches)
            tf.compat.v2.profiler.experimental.stop()
            return values
        """,
        id="tf1-file-spells-v2-for-the-compat-v1-import",
    ),
]


@pytest.mark.parametrize("before, after", REWRITES)
def test_rewrites(before, after):
    assert_rewrites(CODE, before, after)


DECLINES = [
    pytest.param(
        """\
        from tensorflow.python.eager import profiler

        def discard():
            profiler.start()
            work()
            profiler.stop()
        """,
        "no `save` of it says",
        id="profile-never-saved",
    ),
    pytest.param(
        """\
        from tensorflow.python.eager import profiler

        def twice(first, second):
            profiler.start()
            result = profiler.stop()
            profiler.save(first, result)
            profiler.start()
            result = profiler.stop()
            profiler.save(second, result)
        """,
        "its saves write to 2 directories",
        id="two-directories",
    ),
    pytest.param(
        """\
        from tensorflow.python.eager import profiler

        class Window(object):
            def __init__(self, logdir):
                self.logdir = logdir

            def begin(self, logdir):
                self.logdir = logdir
                profiler.start()

            def end(self):
                result = profiler.stop()
                profiler.save(self.logdir, result)
        """,
        "may hold another value here",
        id="attribute-set-outside-init",
    ),
    pytest.param(
        """\
        from tensorflow.python.eager import profiler

        def end(logdir):
            result = profiler.stop()
            print(len(result))
            profiler.save(logdir, result)
        """,
        "is not saved by the statement right after it",
        id="result-read-before-save",
    ),
    pytest.param(
        """\
        from tensorflow.python.eager import profiler

        def tools():
            return profiler
        """,
        "uses the module other than by calling it",
        id="module-passed-around",
    ),
    pytest.param(
        """\
        from tensorflow.python.eager import profiler

        def events(logdir):
            profiler.maybe_create_event_file(logdir)
        """,
        "has no TF 2.x counterpart here",
        id="event-file",
    ),
]


@pytest.mark.parametrize("source, why", DECLINES)
def test_declines_with_a_finding(source, why):
    result = assert_unchanged(CODE, source)
    assert result.findings and all(finding.code == CODE for finding in result.findings)
    assert any(why in finding.message for finding in result.findings), [f.message for f in result.findings]


NO_OPS = [
    pytest.param("import tensorflow as tf\ntf.profiler.experimental.start('/tmp/x')\n", id="already-tf2"),
    pytest.param("from tensorflow.python.eager import context\ncontext.executing_eagerly()\n", id="other-eager-module"),
    pytest.param("import profiler\nprofiler.start()\n", id="not-tensorflow"),
]


@pytest.mark.parametrize("source", NO_OPS)
def test_no_ops(source):
    result = assert_unchanged(CODE, source)
    assert result.findings == []
