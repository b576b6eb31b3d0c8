"""entry_point: which modules are programs (compat-fallback switches v2 behaviour off there)."""

import textwrap

import libcst as cst
import pytest

from tfmodernize.analysis.program import entry_point
from tfmodernize.tfsymbols import TFNames

HEADER = "import tensorflow.compat.v1 as tf\n"

PROGRAMS = {
    "session_in_init_of_class_made_at_top_level": """
        class Runner:
            def __init__(self):
                self.sess = tf.Session()

        print(Runner())
    """,
    "interactive_session_in_method": """
        class Shell:
            def open(self):
                return tf.InteractiveSession()

        Shell().open()
    """,
    "session_as_context_manager_in_method": """
        class Job:
            def go(self):
                with tf.Session() as sess:
                    return sess.run(tf.constant(1.0))

        Job().go()
    """,
    "monitored_session_in_function": """
        def train():
            with tf.train.MonitoredSession() as sess:
                pass

        train()
    """,
    "session_at_top_level": """
        sess = tf.Session()
    """,
}

LIBRARIES = {
    "graph_building_functions": """
        def dense(x, units):
            w = tf.get_variable("w", [int(x.shape[-1]), units])
            return tf.matmul(x, w)
    """,
    "graph_class_never_made": """
        class Model:
            def __init__(self):
                self.x = tf.placeholder(tf.float32, [None])
                self.sess = tf.Session()
    """,
}


def _entry(source):
    module = cst.parse_module(HEADER + textwrap.dedent(source))
    return entry_point(module, TFNames.for_module(module))


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_has_an_entry_point(name):
    assert _entry(PROGRAMS[name]) is not None


@pytest.mark.parametrize("name", sorted(LIBRARIES))
def test_library_has_no_entry_point(name):
    assert _entry(LIBRARIES[name]) is None
