"""Every TensorFlow name a codemod writes exists on the TensorFlow we target (2.21).

The whole catalogue runs over every fixture program (unsafe fixes on); each TF name in the
output that was not in the input (a name the codemods emitted) is looked up on the installed
TensorFlow in a child process. A rename into a name TF 2.21 lacks is a crash we wrote.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import libcst as cst
import pytest

from tfmodernize.codemod import builtin_codemods
from tfmodernize.engine import transform_text
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import walk

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

RESOLVE = """
import json, sys
import tensorflow as tf
missing = []
for qualified in json.load(sys.stdin):
    obj = tf
    for part in qualified.split(".")[1:]:
        try:
            obj = getattr(obj, part)
        except AttributeError:
            missing.append(qualified)
            break
print(json.dumps(missing))
"""


def tf_names(source: str) -> set[str]:
    """Qualified TF names (``tensorflow.math.log``) that whole attribute chains in ``source`` name."""
    module = cst.parse_module(source)
    names = TFNames.for_module(module)
    inner = set()
    found = set()
    for node in walk(module, code_only=True):
        if isinstance(node, (cst.Import, cst.ImportFrom)):
            inner.update(id(n) for n in walk(node, code_only=True))
        if isinstance(node, cst.Attribute):
            inner.add(id(node.value))
        if isinstance(node, (cst.Attribute, cst.Name)) and id(node) not in inner:
            qualified = names.qualify(node)
            if qualified is not None and qualified.startswith("tensorflow"):
                found.add(qualified)
    return found


def test_every_emitted_tf_name_exists_in_the_installed_tensorflow():
    pytest.importorskip("tensorflow")
    emitted = set()
    codemods = builtin_codemods()
    for program in sorted(FIXTURES.glob("*/*/before.py")):
        source = program.read_text()
        new, _ = transform_text(source, codemods, unsafe_fixes=True)
        emitted |= tf_names(new) - tf_names(source)
    assert len(emitted) > 50  # the fixtures exercise the rename tables
    # Names through tf.compat.v1 are TF1 API kept on v1, whose Keras 2 parts (tf.layers) exist
    # with tf-keras (compat-fallback sets TF_USE_LEGACY_KERAS for them); the rest is plain TF2.
    legacy = sorted(n for n in emitted if n.startswith("tensorflow.compat.v1."))
    plain = sorted(set(emitted) - set(legacy))
    environment = {k: v for k, v in os.environ.items() if k != "TF_USE_LEGACY_KERAS"}
    for names, extra in ((plain, {}), (legacy, {"TF_USE_LEGACY_KERAS": "1"})):
        ran = subprocess.run([sys.executable, "-c", RESOLVE], input=json.dumps(names), env=environment | extra,
                             capture_output=True, text=True, timeout=600)
        assert ran.returncode == 0, ran.stderr[-2000:]
        assert json.loads(ran.stdout.strip().splitlines()[-1]) == []
