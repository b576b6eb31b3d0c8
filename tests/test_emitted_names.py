"""Every TensorFlow name a codemod writes exists on the TensorFlow we target (2.21).

The whole catalogue runs over every fixture program (unsafe fixes on); each TF name in the
output that was not in the input (a name the codemods emitted) is looked up on the installed
TensorFlow in a child process. A rename into a name TF 2.21 lacks is a crash we wrote.
"""

from pathlib import Path

import libcst as cst
import pytest

from tfmodernize.registry import builtin_codemods
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


def test_no_member_only_tf1_objects_have_is_left_on_an_object_made_through_plain_tensorflow():
    """The methods and attributes a TF1 object had and its TF 2.x kind lacks
    (``dataset.make_one_shot_iterator()``, ``dataset.output_types``, ``variable.load``): after
    the catalogue, none is used on an object made through ``import tensorflow`` (a file that
    needs them is kept on compat.v1, whose objects have them)."""
    from tfmodernize.analysis.tf_objects import v1_only_members
    from tfmodernize.tfsymbols import TFNames

    codemods = builtin_codemods()
    checked = 0
    for program in sorted([*FIXTURES.glob("*/*/before.py"), *FIXTURES.glob("*/*/before/*.py")]):
        new, _ = transform_text(program.read_text(), codemods, unsafe_fixes=True)
        module = cst.parse_module(new)
        left = [what for _, what in v1_only_members(module, TFNames.for_module(module))]
        assert left == [], f"{program}: {left}"
        checked += 1
    assert checked > 100


def test_members_only_tf1_objects_have_are_found_by_the_object_kind():
    from tfmodernize.analysis.tf_objects import v1_only_members
    from tfmodernize.tfsymbols import TFNames

    source = (
        "import tensorflow as tf\n"
        "import tensorflow.compat.v1 as v1\n"
        "rows = tf.data.Dataset.from_tensor_slices([1.0, 2.0])\n"
        "rows = rows.shuffle(2).batch(1)\n"
        "kinds = rows.output_types\n"
        "first = tf.data.TFRecordDataset(['f']).make_one_shot_iterator()\n"
        "old = v1.data.Dataset.range(3).make_one_shot_iterator()\n"  # a TF1 dataset: it has the member
        "w = tf.Variable(1.0)\n"
        "w.load(2.0)\n"
        "fn = concrete.output_shapes\n"  # a concrete function's, not a dataset's
        "def reads(rows):\n"
        "    return rows.output_shapes\n"
    )
    module = cst.parse_module(source)
    found = [what for _, what in v1_only_members(module, TFNames.for_module(module))]
    # ``rows`` is also a parameter somewhere: its kind is not known, so only the chained call counts.
    assert found == ["dataset.make_one_shot_iterator", "variable.load"]


def _defined(source: str) -> set[str]:
    module = cst.parse_module(source)
    names = set()
    for node in module.body:
        body = node.body.body if isinstance(node, cst.FunctionDef) else [node]
        for stmt in body:
            if isinstance(stmt, cst.FunctionDef):
                names.add(stmt.name.value)
            elif isinstance(stmt, cst.SimpleStatementLine):
                names |= {
                    t.target.value
                    for small in stmt.body
                    if isinstance(small, cst.Assign)
                    for t in small.targets
                    if isinstance(t.target, cst.Name)
                }
    return names


@pytest.mark.parametrize("codemod", ["session-to-function", "minimize-to-tape"])
def test_the_functions_and_names_a_migration_writes_say_what_they_do(codemod):
    """Issue 35: no ``compute_cost_and_accuracy``, no ``train_step_2``: a name the migration
    writes (a function, an optimizer, an input spec) has no ``_and_`` and no number at the end."""
    codemods = builtin_codemods()
    written = {}
    for program in sorted(FIXTURES.glob(f"{codemod}/*/before.py")):
        source = program.read_text()
        new, _ = transform_text(source, codemods, unsafe_fixes=True)
        for name in _defined(new) - _defined(source):
            written[name] = program.parent.name
    assert len(written) >= 10  # the fixtures name functions, optimizers, specs
    odd = {name: case for name, case in written.items() if "_and_" in name or name.rstrip("0123456789") != name}
    assert odd == {}
