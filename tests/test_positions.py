"""FileState.position: a node's range in the file as written, computed one line (or one
top-level statement) at a time, equals LibCST's PositionProvider over the whole file."""

import ast
import textwrap

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from tfmodernize.codemod import FileState
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
        if node is module or node not in truth or not isinstance(node, (cst.Name, cst.Call, cst.Attribute, cst.SimpleString)):
            continue
        where = truth[node]
        expected = (where.start.line, where.start.column + 1, where.end.line, where.end.column + 1)
        assert state.position(node) == expected, cst.Module(body=[]).code_for_node(node)
        checked += 1
    assert checked > 80


HEADERS = textwrap.dedent('''\
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
    ''')


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
