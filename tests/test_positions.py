"""Locator gives exactly LibCST's PositionProvider positions, statement by statement."""

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from tfmodernize.positions import Locator
from tfmodernize.treewalk import walk

SOURCES = [
    "#!/usr/bin/env python\n# header comment\n\nimport tensorflow as tf\nx = tf.constant(1)\n",
    "def f(a,\n      b):\n    '''doc\n    string'''\n    return (a +\n            b)\n\n\nclass C:\n    y = [1,\n         2]\n",
    "if x:\n    pass\nelif y:\n    z = {'a': 1}  # trailing\nelse:\n    w = f'{x}'\n# footer comment\n",
]


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("source", SOURCES)
def test_locator_matches_position_provider(source, newline):
    module = cst.parse_module(source.replace("\n", newline))
    reference = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    locator = Locator(module)
    for node in walk(module, code_only=True):
        if node is module:
            continue
        where = reference[node]
        assert locator.range(node) == (where.start.line, where.start.column + 1, where.end.line, where.end.column + 1)


def test_node_outside_the_module_has_no_position():
    assert Locator(cst.parse_module("x = 1\n")).range(cst.Name("x")) is None
