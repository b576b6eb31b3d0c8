"""FileState.position: a node's range in the file as written, computed one line (or one
top-level statement) at a time, equals LibCST's PositionProvider over the whole file."""

import ast
import textwrap

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from tfmodernize.file_state import FileState
from tfmodernize.positions import Positions
from tfmodernize.treewalk import walk

SAMPLE = textwrap.dedent('''\
    import tensorflow as tf  # a comment
    x = 1; y = tf.log(x)


    @decorate(tf.zeros([1]))
    class Model:
        """A docstring
        over lines."""

        def build(self, a,
                  b):
            # leading comment
            total = tf.add(a,
                           tf.multiply(b, 2))
            if total:
                z = tf.sqrt(
                    total)
            elif b:
                z = """text
    at column zero""", tf.abs(b)
            else:
                z = tf.neg(a); w = tf.exp(z)
            for i in range(3): total += tf.one(i)
            try:
                q = tf.sin(a)
            except ValueError as error:
                q = tf.cos(a)
            finally:
                done = [tf.tan(v)
                    for v in (a, b)]
            return tf.reduce_sum(total)


    def tabbed(v):
    \tif v:
    \t\treturn tf.square(v)
    \treturn tf.identity(v)
    ''')


def _state(text: str) -> tuple[FileState, cst.Module]:
    module = cst.parse_module(text)
    state = FileState(text=text)
    state.parsed = module
    state.syntax = ast.parse(text)
    return state, module


def test_every_position_equals_the_whole_file_pass():
    state, module = _state(SAMPLE)
    truth = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    checked = 0
    for node in walk(module, code_only=True):
        if (
            node is module
            or node not in truth
            or not isinstance(node, (cst.Name, cst.Call, cst.Attribute, cst.SimpleString))
        ):
            continue
        where = truth[node]
        expected = (where.start.line, where.start.column + 1, where.end.line, where.end.column + 1)
        assert state.position(node) == expected, cst.Module(body=[]).code_for_node(node)
        checked += 1
    assert checked > 80


HEADERS = textwrap.dedent("""\
    import tensorflow as tf


    class Trainer(tf.Module,
                  metaclass=type):
        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def step(self, x=tf.zeros([2])):
            with tf.GradientTape() as tape, tf.name_scope(
                    "step"):
                y = tf.square(x)
            while tf.reduce_sum(y) > 1.0:
                y = y / 2.0
            else:
                pass
            for value in tf.unstack(y):
                if tf.equal(value, 0.0):
                    continue
                elif tf.greater(value, 1.0):
                    break
            try:
                return tape.gradient(y, x)
            except (ValueError, tf.errors.InvalidArgumentError) as error:
                raise RuntimeError(tf.constant(0)) from error
    """)


def test_positions_in_nested_headers_and_whole_statements_equal_the_whole_file_pass():
    # A node in the header of a compound statement nested in a function or class (decorators,
    # defaults, ``with`` items over two lines, ``while``/``for``/``if`` tests, an ``elif``,
    # ``except`` clauses) and the nested statements themselves.
    state, module = _state(HEADERS)
    truth = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    checked = 0
    for node in walk(module, code_only=True):
        if node is module or node not in truth:
            continue
        where = truth[node]
        expected = (where.start.line, where.start.column + 1, where.end.line, where.end.column + 1)
        assert state.position(node) == expected, (type(node).__name__, cst.Module(body=[]).code_for_node(node))
        checked += 1
    assert checked > 150


#: Dotted names whose positions are read off CPython's tree: the same name several times in a
#: statement, in decorators, headers and defaults, across a backslash, in parentheses, on a line
#: with other than ASCII, in an f-string (these last three are rendered instead).
DOTTED = textwrap.dedent("""\
    import tensorflow.compat.v1 as tf
    from tensorflow.python import ops
    y = tf.nn.relu(tf.nn.relu(tf.nn.relu(x)))
    @tf.function
    @tf.custom_gradient
    def f(a, b=tf.float32, c=(tf.float32)):
        with tf.name_scope("s"), tf.device(tf.test.gpu_device_name()):
            for v in tf.nn.moments(a, [0]) + tf.nn.moments(b, [0]):
                if tf.math.is_nan(v) or tf.math.is_nan(a):
                    return lambda q: tf.math.abs(q) + \\
                        tf.math.abs(a)
                elif tf.math.is_inf(v):
                    z = [tf.math.abs(w) for w in (a, b) if tf.math.is_finite(w)]
        label = "héllo"; s = tf.strings.length(label)
        message = f"{tf.version.VERSION} and {tf.version.VERSION}"
        while (n := tf.shape(a)) is not None:
            break
        return tf.shape(a), tf.shape(b)
    """)


def test_dotted_names_read_off_cpython_equal_the_whole_file_pass(monkeypatch):
    read = []
    own = Positions._attribute_range
    monkeypatch.setattr(Positions, "_attribute_range", lambda self, *a: read.append(own(self, *a)) or read[-1])
    state, module = _state(DOTTED)
    truth = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    checked = 0
    for node in walk(module, code_only=True):
        if type(node) is not cst.Attribute or node not in truth:
            continue
        where = truth[node]
        assert state.position(node) == (
            where.start.line,
            where.start.column + 1,
            where.end.line,
            where.end.column + 1,
        ), cst.Module(body=[]).code_for_node(node)
        checked += 1
    assert checked > 40
    assert sum(1 for found in read if found is not None) > 30  # most were read off CPython's tree
    assert None in read  # the parenthesized, the f-string's and the non-ASCII line's were rendered
