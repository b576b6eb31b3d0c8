"""Generated programs never crash the engine (CI-sized batches, fixed seeds).

Hypothesmith writes syntactically valid Python from CPython's grammar; each program is given a
TensorFlow import and one TF1 construct, so that the codemods' detection, name resolution and
rewrites run on shapes nobody would write by hand. A program must come out as a clean outcome,
a finding or a reasoned refusal, never an internal error; what CPython accepts is never called
"not Python 3 syntax"; a rewrite parses and a second run changes nothing. Every crash found here
becomes a regression test of its own (see ``test_engine.py``).

The batch is derandomized (the same programs on every run, so CI is reproducible); set
``TFMODERNIZE_FUZZ_EXAMPLES`` to run a larger batch locally.
"""

from __future__ import annotations

import ast
import os
import sys

import pytest

hypothesis = pytest.importorskip("hypothesis")
hypothesmith = pytest.importorskip("hypothesmith")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tfmodernize.registry import builtin_codemods  # noqa: E402
from tfmodernize.engine import RECURSION_LIMIT, RewriteError, transform_text  # noqa: E402

EXAMPLES = int(os.environ.get("TFMODERNIZE_FUZZ_EXAMPLES", "150"))
sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))  # as the engine's workers do

#: One TF1 construct per program, so that codemods have something to do.
TF1 = [
    "x = tf.placeholder(tf.float32, [None, 2])\nw = tf.Variable(tf.zeros([2, 1]))\ny = tf.matmul(x, w)\n"
    "with tf.Session() as sess:\n    sess.run(tf.global_variables_initializer())\n    out = sess.run(y, {x: [[1.0, 2.0]]})\n",
    "s = tf.reduce_sum(tf.log(v), reduction_indices=1, keep_dims=True)\n",
    "opt = tf.train.AdamOptimizer(0.1)\n\n@tf.function\ndef step(a):\n    c = tf.reduce_sum(a * w)\n    opt.minimize(c)\n",
    "flags = tf.app.flags\nflags.DEFINE_integer('n', 1, 'n')\ntf.logging.info('x')\n",
    "params = tf.trainable_variables()\ng = tf.gradients(loss, params)\n",
    "for i in range(3):\n    print(tf.random_normal([2]))\n",
]


def _run(text: str) -> str | None:
    try:
        new, _ = transform_text(text, list(builtin_codemods()), path="generated.py", unsafe_fixes=True)
    except (SyntaxError, RewriteError):
        return None  # a reasoned refusal (the engine reports it with its line)
    return new


@pytest.mark.filterwarnings("ignore::SyntaxWarning")
@settings(
    max_examples=EXAMPLES, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck)
)
@given(program=hypothesmith.from_grammar(), construct=st.sampled_from(TF1), before=st.booleans())
def test_generated_programs_never_crash_the_engine(program: str, construct: str, before: bool) -> None:
    body = construct + "\n" + program if before else program + "\n" + construct
    text = "import tensorflow as tf\n" + body
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
        return  # the combination is not valid (a `from __future__` after code, say)
    new = _run(text)
    if new is None or new == text:
        return
    ast.parse(new)
    assert _run(new) in (None, new), "a second run changed the rewritten program again"
