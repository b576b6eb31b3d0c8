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
    codemods = builtin_codemods()
    for program in sorted([*FIXTURES.glob("*/*/before.py"), *FIXTURES.glob("*/*/before/*.py")]):
        source = program.read_text()
        new, _ = transform_text(source, codemods, unsafe_fixes=True)
        emitted |= tf_names(new) - tf_names(source)
    assert len(emitted) > 50  # the fixtures exercise the rename tables
    assert missing_tf_names(emitted) == []
