"""Every TensorFlow name a codemod writes exists on the TensorFlow we target (2.21).

The whole catalogue runs over every fixture program (unsafe fixes on); each TF name in the
output that was not in the input (a name the codemods emitted) is looked up on the installed
TensorFlow in a child process. A rename into a name TF 2.21 lacks is a crash we wrote.
"""

from pathlib import Path

import libcst as cst
import pytest

from tfmodernize.codemod import builtin_codemods
from tfmodernize.engine import transform_text
from tfmodernize.tfsymbols import qualified_tf_names
from tfmodernize.verify.names import missing_tf_names

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def tf_names(source: str) -> set[str]:
    return qualified_tf_names(cst.parse_module(source))


def test_every_emitted_tf_name_exists_in_the_installed_tensorflow():
    pytest.importorskip("tensorflow")
    emitted = set()
    respelled = {}  # a name of the input kept on TF1 (``tensorflow.compat.v1.contrib...``) -> as written
    codemods = builtin_codemods()
    for program in sorted([*FIXTURES.glob("*/*/before.py"), *FIXTURES.glob("*/*/before/*.py")]):
        source = program.read_text()
        new, _ = transform_text(source, codemods, unsafe_fixes=True)
        written = tf_names(source)
        for name in tf_names(new) - written:
            plain = name.replace("tensorflow.compat.v1.", "tensorflow.", 1)
            if name != plain and plain in written:
                respelled[name] = plain
            else:
                emitted.add(name)
    assert len(emitted) > 50  # the fixtures exercise the rename tables
    # A file kept on TF1 spells the input's names through compat.v1: missing only when the
    # input's own spelling was (``tf.contrib``, gone from every TF 2.x: a finding says so).
    missing_as_written = set(missing_tf_names(set(respelled.values())))
    assert missing_tf_names(emitted) == []
    assert sorted(n for n in missing_tf_names(set(respelled)) if respelled[n] not in missing_as_written) == []
