"""The plan/apply path: edits tied to nodes, one applier, imports as edits, positions in the file as written."""

import textwrap

import libcst as cst
import pytest

from tfmodernize import imports
from tfmodernize.file_state import FileState
from tfmodernize.edits import EditError, Edits, apply
from tfmodernize.treewalk import walk

SOURCE = textwrap.dedent("""\
    import os

    def f(x):
        y = g(x)
        return y

    z = h(1)
""")


def nodes(module, kind, value=None):
    return [n for n in walk(module) if isinstance(n, kind) and (value is None or getattr(n, "value", None) == value)]


def made(module, edits):
    return apply(module, edits, {}, {})


def test_no_edits_returns_the_same_tree():
    module = cst.parse_module(SOURCE)
    assert made(module, Edits()) is module


def test_untouched_subtrees_are_shared_not_rebuilt():
    module = cst.parse_module(SOURCE)
    edits = Edits()
    edits.replace(nodes(module, cst.Name, "h")[0], cst.Name("k"))
    new = made(module, edits)
    assert new.code == SOURCE.replace("h(1)", "k(1)")
    assert new.body[0] is module.body[0] and new.body[1] is module.body[1]  # import and function kept
    assert new.body[2] is not module.body[2]  # the path to the edit is rebuilt


def test_nested_edits_compose_through_functions_of_the_rebuilt_node():
    module = cst.parse_module(SOURCE)
    call = nodes(module, cst.Call)[0]  # g(x)
    edits = Edits()
    edits.replace(nodes(module, cst.Name, "x")[1], cst.Name("x2"))  # the argument, inside the call
    edits.replace(call, lambda rebuilt: rebuilt.with_changes(func=cst.Name("g2")))
    assert "y = g2(x2)" in made(module, edits).code


def test_a_fixed_replacement_over_an_edited_subtree_is_refused():
    module = cst.parse_module(SOURCE)
    edits = Edits()
    edits.replace(nodes(module, cst.Name, "x")[1], cst.Name("x2"))
    edits.replace(nodes(module, cst.Call)[0], cst.parse_expression("q()"))
    with pytest.raises(EditError, match="undo the edits"):
        made(module, edits)


def test_insert_before_after_and_remove_statements():
    module = cst.parse_module(SOURCE)
    function = module.body[1]
    first, ret = function.body.body
    edits = Edits()
    edits.insert_before(first, [cst.parse_statement("a = 1")])
    edits.insert_after(first, [cst.parse_statement("b = 2")])
    edits.remove(module.body[2])
    assert made(module, edits).code == textwrap.dedent("""\
        import os

        def f(x):
            a = 1
            y = g(x)
            b = 2
            return y
    """)


def test_a_block_emptied_gets_pass_and_an_emptied_line_goes():
    module = cst.parse_module("if c:\n    a = 1; b = 2\nd = 3\n")
    line = module.body[0].body.body[0]
    edits = Edits()
    for small in line.body:
        edits.remove(small)
    assert made(module, edits).code == "if c:\n    pass\nd = 3\n"


def test_a_node_used_twice_by_an_edit_is_copied_so_every_node_stays_unique():
    module = cst.parse_module("v = w\n")
    value = module.body[0].body[0].value
    edits = Edits()
    edits.replace(value, lambda rebuilt: cst.Tuple([cst.Element(rebuilt), cst.Element(rebuilt)]))
    new = made(module, edits)
    assert new.code == "v = (w, w)\n"
    seen = [id(n) for n in walk(new)]
    assert len(seen) == len(set(seen))


def test_several_nodes_where_one_must_stand_is_an_error():
    module = cst.parse_module("v = w\n")
    edits = Edits()
    edits.replace(module.body[0].body[0].value, cst.FlattenSentinel([cst.Name("a"), cst.Name("b")]))
    with pytest.raises(EditError, match="holds one node"):
        made(module, edits)


def test_positions_are_those_of_the_file_as_written_after_edits():
    module = cst.parse_module(SOURCE)
    state = FileState(text=SOURCE, parsed=module)
    edits = Edits()
    edits.insert_before(module.body[1], [cst.parse_statement("import sys"), cst.parse_statement("import re")])
    new = state.apply(module, edits)
    later_call = nodes(new, cst.Call)[-1]  # h(1): line 7 as written, line 9 in the new tree
    assert new.code.splitlines()[8] == "z = h(1)"
    assert state.position(later_call)[:2] == (7, 5)
    inserted = new.body[1]
    assert state.position(inserted)[0] == 3  # brought in before `def f`: reported there


@pytest.mark.parametrize(
    ("before", "added", "after"),
    [
        ("x = 1\n", [("sys", None)], "import sys\n\nx = 1\n"),
        (
            '"""Doc."""\nimport os\nx = 1\n',
            [("absl", "flags"), ("absl", "app")],
            '"""Doc."""\nimport os\nfrom absl import app, flags\n\nx = 1\n',
        ),
        ("from absl import app\n\nx = 1\n", [("absl", "flags")], "from absl import flags, app\n\nx = 1\n"),
        ("import os\n", [("sys", None)], "import os\nimport sys\n"),
    ],
    ids=["no-imports", "after-the-leading-block", "joins-a-from-import", "at-the-end"],
)
def test_imports_are_added_as_edits(before, added, after):
    module = cst.parse_module(before)
    requests = [imports.ImportRequest(module_name, obj) for module_name, obj in added]
    assert made(module, imports.plan(module, requests, [])).code == after


@pytest.mark.parametrize(
    "source",
    [
        "import sys\n\nx = 1\n",  # already there
        "from absl import flags\nflags.x = 1\n",
    ],
    ids=["plain-import-present", "from-import-present"],
)
def test_an_import_already_present_is_not_repeated(source):
    module = cst.parse_module(source)
    requests = [imports.ImportRequest("sys"), imports.ImportRequest("absl", "flags")]
    assert imports.plan(module, requests[:1] if "sys" in source else requests[1:], []).targets == {}


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("from tensorflow import log, exp\ny = exp(1)\n", "from tensorflow import exp\ny = exp(1)\n"),
        ("from tensorflow import log\ny = tf.math.log(1)\n", "y = tf.math.log(1)\n"),
        ("from tensorflow import log\ny = log(1)\n", "from tensorflow import log\ny = log(1)\n"),
    ],
    ids=["one-alias-of-two", "attribute-named-alike-is-no-read", "still-read-stays"],
)
def test_an_import_goes_only_when_nothing_reads_it(before, after):
    module = cst.parse_module(before)
    assert made(module, imports.plan(module, [], [imports.ImportRequest("tensorflow", "log")])).code == after


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("w = make()\n", "w"),
        ("make()\n", None),
    ],
    ids=["assigned", "expression-statement"],
)
def test_statement_of_a_call_on_its_own_line(code, expected):
    from tfmodernize.syntax import statement_of
    from tfmodernize.edits import parents

    module = cst.parse_module(code)
    call = nodes(module, cst.Call)[0]
    assert statement_of(call, parents(module)) == (expected, module.body[0])


@pytest.mark.parametrize(
    "code",
    ["w = v = make()\n", "a, b = make()\n", "w = make() + 1\n", "w = make(); x = 1\n", "self.w = make()\n"],
    ids=["two-targets", "tuple-target", "part-of-an-expression", "two-statements", "attribute"],
)
def test_statement_of_a_call_not_on_its_own(code):
    from tfmodernize.syntax import statement_of
    from tfmodernize.edits import parents

    module = cst.parse_module(code)
    assert statement_of(nodes(module, cst.Call)[0], parents(module)) is None
