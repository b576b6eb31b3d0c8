"""TFM104 collections-to-tracking: golden, finding and no-op tables."""

from pathlib import Path

import pytest

from tfmodernize.registry import find_codemod
from tfmodernize.engine import run, transform_text
from tfmodernize.settings import Settings
from tfmodernize.sources import Discovered
from tfmodernize.testing import assert_rewrites, assert_unchanged

#: What makes a snippet a program: a collection read is rewritten only where the whole program
#: that can reach it is known (issue 31, item 5).
MAIN = '\n\nif __name__ == "__main__":\n    print("done")\n'

VARS = """\
import tensorflow as tf

with tf.variable_scope("gen"):
    W_g = tf.get_variable("W", [3, 1])
    b_g = tf.Variable(tf.zeros([1]), name="b")
with tf.name_scope("disc"):
    W_d = tf.Variable(tf.zeros([1, 1]), name="W")
    h = tf.get_variable("h", [1])
step = tf.Variable(0, trainable=False)
"""

REWRITES = [
    pytest.param(
        "import tensorflow as tf\ndef model():\n    return tf.get_variable('w', [1])\nw = model()\np = tf.trainable_variables()\n",
        "import tensorflow as tf\ndef model():\n    return tf.get_variable('w', [1])\nw = model()\np = [w]\n",
        id="variable-factory-function",
    ),
    pytest.param(
        "import tensorflow as tf\nweights = {'h1': tf.Variable(1.0), 'out': tf.Variable(2.0)}\nbiases = [tf.Variable(0.0)]\n"
        "p = tf.trainable_variables()\n",
        "import tensorflow as tf\nweights = {'h1': tf.Variable(1.0), 'out': tf.Variable(2.0)}\nbiases = [tf.Variable(0.0)]\n"
        "p = [weights['h1'], weights['out'], biases[0]]\n",
        id="variables-in-dict-and-list-literals",
    ),
    pytest.param(
        "import tensorflow as tf\nimport numpy as np\nW = tf.Variable(np.zeros(3))\ny = np.ones(3)\n"
        "p = tf.trainable_variables()\n",
        "import tensorflow as tf\nimport numpy as np\nW = tf.Variable(np.zeros(3))\ny = np.ones(3)\np = [W]\n",
        id="calls-into-numpy-keep-the-list-known",
    ),
    pytest.param(
        "import requests\nimport nltk\nimport tensorflow as tf\npage = requests.get(URL).text\n"
        "words = nltk.word_tokenize(page)\nW = tf.Variable(1.0)\np = tf.trainable_variables()\n",
        "import requests\nimport nltk\nimport tensorflow as tf\npage = requests.get(URL).text\n"
        "words = nltk.word_tokenize(page)\nW = tf.Variable(1.0)\np = [W]\n",
        id="calls-into-web-and-text-libraries-keep-the-list-known",
    ),
    pytest.param(VARS + "params = tf.trainable_variables()\n", VARS + "params = [W_g, b_g, W_d, h]\n", id="trainable"),
    pytest.param(VARS + "params = tf.global_variables()\n", VARS + "params = [W_g, b_g, W_d, h, step]\n", id="global"),
    pytest.param(
        VARS + "g = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope='gen')\n",
        VARS + "g = [W_g, b_g]\n",
        id="get-collection-variable-scope",
    ),
    pytest.param(
        VARS + "d = tf.trainable_variables('disc')  # name_scope: get_variable names ignore it\n",
        VARS + "d = [W_d]  # name_scope: get_variable names ignore it\n",
        id="name-scope",
    ),
    pytest.param(VARS + "v = tf.get_collection('variables', 'gen/b')\n", VARS + "v = [b_g]\n", id="string-key"),
    pytest.param(
        "import tensorflow as tf\na = tf.Variable(1.0)\nb = tf.Variable(2.0)\n"
        "first = tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, scope='Variable_1')\n",
        "import tensorflow as tf\na = tf.Variable(1.0)\nb = tf.Variable(2.0)\nfirst = [b]\n",
        id="tf1-unique-names",
    ),
    pytest.param(
        "import tensorflow as tf\nW = tf.Variable(1.0)\nbefore = tf.trainable_variables()\n"
        "c = tf.Variable(2.0)\nafter = tf.trainable_variables()\n",
        "import tensorflow as tf\nW = tf.Variable(1.0)\nbefore = [W]\nc = tf.Variable(2.0)\nafter = [W, c]\n",
        id="only-variables-created-so-far",
    ),
    pytest.param(
        "import tensorflow as tf\nW = tf.Variable(1.0)\n\n\n@tf.function\ndef step(x):\n"
        "    return tf.add_n([tf.nn.l2_loss(v) for v in tf.trainable_variables()])\n",
        "import tensorflow as tf\nW = tf.Variable(1.0)\n\n\n@tf.function\ndef step(x):\n"
        "    return tf.add_n([tf.nn.l2_loss(v) for v in [W]])\n",
        id="in-function",
    ),
    pytest.param(
        "import tensorflow as tf\nupdates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)\n"
        "regs = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)\n",
        "updates = []\nregs = []\n",
        id="empty-update-ops-and-regularization",
    ),
    pytest.param(
        "import tensorflow.compat.v1 as tf\nW = tf.Variable(1.0)\n"
        "# penalties\ntf.add_to_collection('penalties', tf.nn.l2_loss(W))\n"
        "tf.add_to_collection('penalties', W * 2)\ntotal = tf.add_n(tf.get_collection('penalties'))\n",
        "import tensorflow.compat.v1 as tf\nW = tf.Variable(1.0)\n"
        "# penalties\npenalties_collection = []\npenalties_collection.append(tf.nn.l2_loss(W))\n"
        "penalties_collection.append(W * 2)\ntotal = tf.add_n(list(penalties_collection))\n",
        id="program-collection",
    ),
    pytest.param(
        "import tensorflow as tf\nW = tf.Variable(1.0)\ndef loss(x):\n"
        "    tf.add_to_collection('terms', x * W)\n    return tf.add_n(tf.get_collection('terms'))\n",
        "import tensorflow as tf\nW = tf.Variable(1.0)\ndef loss(x):\n    terms_collection = []\n"
        "    terms_collection.append(x * W)\n    return tf.add_n(list(terms_collection))\n",
        id="program-collection-in-function",
    ),
]


@pytest.mark.parametrize(("before", "after"), REWRITES)
def test_rewrites(before, after):
    result = assert_rewrites("TFM104", before + MAIN, after + MAIN)
    assert result.findings == [] and {f.code for f in result.fixes} == {"TFM104"}


#: Each rewrite above, in a module that is no program (no entry point): library code, whose
#: callers, other modules and layers made later may add to the collection before the read.
LIBRARY = "no entry point"
LIBRARY_REWRITES = [
    pytest.param(case.values[0], id=case.id) for case in REWRITES if case.id != "variable-factory-function"
]  # `w = model()`: a call of its own function


@pytest.mark.parametrize("source", LIBRARY_REWRITES)
def test_rewrites_in_library_modules_are_left(source):
    result = assert_unchanged("TFM104", source)
    assert result.findings and all(LIBRARY in f.message for f in result.findings)


READ = "import tensorflow as tf\n\n\ndef loss(x):\n    return x + tf.add_n(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES) + [x])\n"
READ_AFTER = "import tensorflow as tf\n\n\ndef loss(x):\n    return x + tf.add_n([] + [x])\n"

#: The entry points that make a file a program (compat-fallback's), each with the read of a
#: function the program runs: nothing else can fill the collection, so it is empty.
ENTRY_POINTS = [
    pytest.param('\n\nif __name__ == "__main__":\n    print(loss(1.0))\n', id="main-guard"),
    pytest.param("\n\nwith tf.Session() as sess:\n    print(sess.run(loss(1.0)))\n", id="session-at-module-level"),
    pytest.param("\n\nsess = tf.InteractiveSession()\n", id="interactive-session"),
    pytest.param("\n\ndef main(_):\n    print(loss(1.0))\n\n\ntf.app.run(main)\n", id="tf-app-run"),
    pytest.param(
        "\n\nfrom absl import app\n\n\ndef main(_):\n    print(loss(1.0))\n\n\napp.run(main)\n", id="absl-app-run"
    ),
    pytest.param("\n\ntotal = loss(1.0)\n", id="module-level-call-of-its-own-function"),
]


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_reads_in_programs_are_rewritten(entry):
    result = assert_rewrites("TFM104", READ + entry, READ_AFTER + entry)
    assert result.findings == []


def test_a_notebook_is_a_program():
    cells = "'tfmodernize: cell 1'\nimport tensorflow as tf\nW = tf.Variable(1.0)\n'tfmodernize: cell 2'\np = tf.trainable_variables()\n"
    assert_rewrites("TFM104", cells, cells.replace("tf.trainable_variables()", "[W]"))


#: Collection reads in library modules (no entry point), each shape: left as written, with a finding.
LIBRARY_READS = [
    pytest.param(
        "import tensorflow as tf\n\n\ndef regularization():\n"
        "    return tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)\n",
        "regularization losses",
        id="regularization-losses-in-a-function",
    ),
    pytest.param(
        "import tensorflow as tf\n\n\ndef regularization():\n"
        "    return tf.add_n(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES))\n",
        "model.losses",
        id="add-n-of-regularization-losses",
    ),
    pytest.param(
        "import tensorflow as tf\n\n\ndef regularization():\n    return tf.get_collection('regularization_losses')\n",
        "regularization losses",
        id="string-key",
    ),
    pytest.param(
        "import tensorflow as tf\n\n\ndef train_op(loss, opt):\n"
        "    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):\n"
        "        return opt.minimize(loss)\n",
        "update ops",
        id="update-ops-around-minimize",
    ),
    pytest.param(
        "import tensorflow as tf\nregs = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)\n",
        "regularization losses",
        id="module-level-read",
    ),
    pytest.param(
        "import tensorflow as tf\n\n\nclass Model:\n    def loss(self, x):\n"
        "        return x + tf.add_n(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES))\n",
        "regularization losses",
        id="method",
    ),
    pytest.param(
        "import tensorflow as tf\nW = tf.Variable(1.0)\n\n\ndef params():\n    return tf.trainable_variables()\n",
        "model.trainable_variables",
        id="trainable-variables-in-a-function",
    ),
    pytest.param(
        "import tensorflow as tf\n\n\ndef loss(x):\n    tf.add_to_collection('terms', x)\n"
        "    return tf.add_n(tf.get_collection('terms'))\n",
        "pass the list in explicitly",
        id="program-collection-in-a-function",
    ),
]


@pytest.mark.parametrize(("source", "fragment"), LIBRARY_READS)
def test_reads_in_library_modules_are_left(source, fragment):
    result = assert_unchanged("TFM104", source)
    assert result.findings and all(f.code == "TFM104" for f in result.findings)
    assert all(LIBRARY in f.message and fragment in f.message and "whole program" in f.message for f in result.findings)


def _use(function, line, *, call=True, file="main.py"):
    return {
        function: [
            {
                "file": file,
                "line": line,
                "call": call,
                "top_level": True,
                "attribute": False,
                "arguments": [],
                "unit": None,
            }
        ]
    }


#: A program's file (it has an entry point) that other files of the run import: what they reach
#: (the functions they use and those these call, its classes, its module-level code) is library code.
IMPORTED = 'import tensorflow as tf\n\n\n{body}\n\nif __name__ == "__main__":\n    print(loss(1.0))\n'
REGS = "tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)"
REACHED = [
    pytest.param(
        "def loss(x):\n    return x + tf.add_n({regs} + [x])\n",
        _use("loss", 8),
        "main.py calls `loss` (line 8): code there may add",
        id="function-called-by-another-file",
    ),
    pytest.param(
        "def loss(x):\n    return x + tf.add_n({regs} + [x])\n",
        _use("loss", 3, call=False),
        "main.py uses `loss` (line 3)",
        id="function-passed-by-another-file",
    ),
    pytest.param(
        "def penalties():\n    return {regs}\n\n\ndef loss(x):\n    return x + tf.add_n(penalties() + [x])\n",
        _use("loss", 8),
        "main.py calls `loss` (line 8), which reaches `penalties`",
        id="function-reached-through-another",
    ),
    pytest.param(
        "class Net:\n    def penalties(self):\n        return {regs}\n\n\ndef loss(x):\n    return x\n",
        {},
        "may use `Net`",
        id="class-of-an-imported-module",
    ),
    pytest.param(
        "def penalties():\n    return {regs}\n\n\nclass Net:\n    def loss(self):\n        return penalties()\n\n\n"
        "def loss(x):\n    return x\n",
        {},
        "may use `Net`, which reaches `penalties`",
        id="function-a-class-calls",
    ),
    pytest.param(
        "REGS = {regs}\n\n\ndef loss(x):\n    return x\n",
        {},
        "its module-level code runs then",
        id="module-level-code-of-an-imported-module",
    ),
    pytest.param(
        "def penalties():\n    return {regs}\n\n\nPENALTIES = penalties()\n\n\ndef loss(x):\n    return x\n",
        {},
        "its module-level code runs then and reaches `penalties`",
        id="function-module-level-code-calls",
    ),
]


@pytest.mark.parametrize(("body", "callers", "fragment"), REACHED)
def test_reads_other_files_reach_are_left(body, callers, fragment):
    source = IMPORTED.format(body=body.format(regs=REGS))
    new, state = transform_text(source, [find_codemod("TFM104")], callers=callers)
    assert new == source and state.fixes == []
    assert state.findings and fragment in state.findings[0].message and "whole program" in state.findings[0].message


#: The same file imported by another of the run, where nothing it uses reaches the read: rewritten.
NOT_REACHED = [
    pytest.param(
        "def penalties():\n    return {regs}\n\n\ndef loss(x):\n    return tf.identity(x)\n",
        _use("loss", 8),
        id="function-no-other-file-reaches",
    ),
    pytest.param("def loss(x):\n    return tf.identity(x)\n", {}, id="read-under-the-main-guard"),
]


@pytest.mark.parametrize(("body", "callers"), NOT_REACHED)
def test_reads_no_other_file_reaches_are_rewritten(body, callers):
    source = IMPORTED.format(body=body.format(regs=REGS))
    if "penalties" not in body:
        source = source.replace("    print(loss(1.0))\n", f"    print(loss(1.0), {REGS})\n")
    new, state = transform_text(source, [find_codemod("TFM104")], callers=callers)
    assert new == source.replace(REGS, "[]") and state.findings == []


def test_a_module_read_a_script_fills_is_left_in_a_run_of_both(tmp_path: Path):
    """Issue 31, item 5: the script adds regularized weights, then calls the module's function
    reading the collection; the module (no entry point) is left as written, its finding naming
    the script's call (before, the read became ``[]``: the penalty was dropped)."""
    (tmp_path / "model.py").write_text(
        "import tensorflow as tf\n\n\ndef total_loss(data_loss):\n"
        "    return data_loss + tf.add_n(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES))\n"
    )
    (tmp_path / "main.py").write_text(
        "import tensorflow as tf\nfrom model import total_loss\n\n"
        "w = tf.get_variable('w', [1], regularizer=lambda v: 0.1 * tf.reduce_sum(v))\nloss = total_loss(tf.reduce_sum(w))\n"
        "with tf.Session() as sess:\n    sess.run(tf.global_variables_initializer())\n    value = sess.run(loss)\n"
    )
    outcomes = {
        o.path.name: o
        for o in run(
            [Discovered(tmp_path / "main.py"), Discovered(tmp_path / "model.py")], Settings(select=("TFM104",), jobs=1)
        )
    }
    model = outcomes["model.py"]
    assert model.new == model.old and not model.fixes
    assert [f.code for f in model.findings] == ["TFM104"]
    assert "main.py calls `total_loss` (line 5)" in model.findings[0].message


FINDINGS = [
    pytest.param(
        "import tensorflow as tf\nW = tf.Variable(1.0)\nh = tf.layers.dense(x, 3)\np = tf.trainable_variables()\n",
        "cannot be listed",
        id="layers",
    ),
    pytest.param(
        "import tensorflow as tf\nW = tf.Variable(1.0)\nW = tf.Variable(2.0)\np = tf.trainable_variables()\n",
        "bound more than once",
        id="rebound",
    ),
    pytest.param(
        "import tensorflow as tf\nW = tf.Variable(1.0)\nopt = tf.train.AdamOptimizer()\nv = tf.global_variables()\n",
        "slot variables",
        id="global-with-optimizer",
    ),
    pytest.param(
        "import tensorflow as tf\nW = tf.Variable(1.0)\np = tf.trainable_variables(scope=prefix)\n",
        "not a string literal",
        id="scope-not-literal",
    ),
    pytest.param(
        "import tensorflow as tf\ny = tf.layers.batch_normalization(x, training=True)\n"
        "u = tf.get_collection(tf.GraphKeys.UPDATE_OPS)\n",
        "update ops",
        id="batch-norm-update-ops",
    ),
    pytest.param(
        "import tensorflow as tf\nw = tf.get_variable('w', [1], regularizer=r)\n"
        "u = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)\n",
        "regularizers",
        id="regularizer",
    ),
    pytest.param("import tensorflow as tf\nl = tf.get_collection(tf.GraphKeys.LOSSES)\n", "implicitly", id="losses"),
    pytest.param("import tensorflow as tf\nu = tf.get_collection(key)\n", "not a literal", id="key-not-literal"),
    pytest.param(
        "import tensorflow as tf\nt = tf.get_collection('terms')\ntf.add_to_collection('terms', 1.0)\n",
        "read before anything is added",
        id="collection-read-first",
    ),
    pytest.param(
        "import tensorflow as tf\nm = tf.keras.Sequential()\np = tf.trainable_variables(scope='dense')\n",
        "Keras layers make their variables on their first call",
        id="keras-scope",
    ),
    # A layer object the program calls in its functions has no variables at module level yet.
    pytest.param(
        "from tensorflow import keras\nimport tensorflow as tf\nmodel = keras.Sequential([keras.layers.Dense(1)])\n"
        "p = tf.trainable_variables()\n",
        "the list would be empty here",
        id="keras-model-not-built-yet",
    ),
    pytest.param(
        "import tensorflow as tf\nW = tf.Variable(1.0)\nbn = tf.keras.layers.BatchNormalization()\n"
        "p = tf.trainable_variables()\n",
        "the list would be empty here",
        id="keras-layer-not-built-yet",
    ),
    pytest.param(
        "import tensorflow as tf\ndef a(x):\n    tf.add_to_collection('terms', x)\n"
        "def b():\n    return tf.get_collection('terms')\n",
        "more than one function",
        id="collection-two-functions",
    ),
    # Never an empty list where the file cannot prove the collection empty (issue 17, item 1).
    pytest.param(
        "import tensorflow as tf\nx = tf.constant(1.0)\nopt_vars = tf.trainable_variables()\n",
        "no variable is created",
        id="nothing-created-is-not-empty",
    ),
    pytest.param(
        "import tensorflow as tf\ndef params():\n    return tf.trainable_variables()\n",
        "no variable is created",
        id="helper-returning-the-collection",
    ),
    pytest.param(
        "import tensorflow as tf\nW = tf.Variable(1.0)\ndef params():\n    return tf.global_variables()\n"
        "b = tf.Variable(2.0)\n",
        "created after that function",
        id="read-in-function-before-later-variables",
    ),
    pytest.param(
        "import tensorflow as tf\nfrom model import build\nW = tf.Variable(1.0)\nlogits = build(W)\n"
        "p = tf.trainable_variables()\n",
        "`build` (imported as model.build) may create variables",
        id="imported-builder",
    ),
    pytest.param(
        "import tensorflow as tf\nimport nets\nlogits = nets.resnet(x)\n"
        "u = tf.get_collection(tf.GraphKeys.UPDATE_OPS)\n",
        "`nets.resnet` (imported as nets)",
        id="imported-update-ops",
    ),
    pytest.param(
        "import tensorflow as tf\nfrom . import layers_lib as L\nh = L.dense(x)\n"
        "r = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)\n",
        "`L.dense` (imported as .layers_lib)",
        id="relative-import-regularization",
    ),
    pytest.param(
        "import tensorflow as tf\nslim = tf.contrib.slim\nh = slim.conv2d(x, 8, 3)\np = tf.trainable_variables()\n",
        "no variable is created",
        id="slim-alias",
    ),
]


@pytest.mark.parametrize(("source", "fragment"), FINDINGS)
def test_findings(source, fragment):
    result = assert_unchanged("TFM104", source)
    assert result.findings and all(f.code == "TFM104" for f in result.findings)
    assert fragment in result.findings[0].message


NO_OPS = [
    pytest.param("import numpy as tf\nW = tf.Variable(1.0)\np = tf.trainable_variables()\n", id="non-tf-alias"),
    pytest.param(
        "import tensorflow as tf\nm = tf.keras.Sequential()\np = m.trainable_variables\n", id="keras-attribute"
    ),
    pytest.param(
        "import tensorflow as tf\nW = tf.Variable(1.0)\np = tf.trainable_variables()  # tfmodernize: ignore[TFM104]\n"
        + MAIN,
        id="suppressed",
    ),
    # Not a collection read this codemod rewrites (api-renames reports it): no fix, no finding.
    pytest.param(
        "import tensorflow as tf\n\n\ndef regularization():\n    return tf.losses.get_regularization_losses()\n",
        id="losses-get-regularization-losses",
    ),
]


@pytest.mark.parametrize("source", NO_OPS)
def test_no_ops(source):
    assert assert_unchanged("TFM104", source).findings == []


#: A read inside the function the program's main block runs once: the variables that function
#: made before it (after those of the top-level code), even where other functions of the file,
#: never run before it, make variables too.
RUN_ONCE = """\
import tensorflow as tf
W = tf.Variable(1.0)
def spare():
    return [tf.Variable(2.0), tf.Variable(3.0)]
def fit():
    a = tf.Variable(4.0)
    n = tf.Variable(0, trainable=False)
    b = tf.Variable(5.0)
    return {read}
if __name__ == "__main__":
    {main}
"""

FUNCTION_READS = [
    pytest.param("tf.trainable_variables()", "fit()", "[W, a, b]", id="trainable"),
    pytest.param("tf.global_variables()", "fit()", "[W, a, n, b]", id="global"),
    pytest.param("tf.trainable_variables().numpy()", "fit()", "[W.numpy(), a.numpy(), b.numpy()]", id="numpy"),
    pytest.param("tf.global_variables()", "print(1)\n    fit()\n    spare()", "[W, a, n, b]", id="spare-after"),
]


@pytest.mark.parametrize(("read", "main", "listed"), FUNCTION_READS)
def test_reads_in_the_function_run_once_list_its_variables(read, main, listed):
    before = RUN_ONCE.format(read=read, main=main)
    result = assert_rewrites("TFM104", before, before.replace(f"return {read}", f"return {listed}"))
    assert result.findings == []


FUNCTION_READS_LEFT = [
    pytest.param("fit()\n    fit()", id="run-twice"),
    pytest.param("for _ in range(2):\n        fit()", id="run-in-a-loop"),
    pytest.param("spare()\n    fit()", id="another-function-makes-variables-first"),
    pytest.param("fit(spare())", id="its-argument-makes-variables"),
]


@pytest.mark.parametrize("main", FUNCTION_READS_LEFT)
def test_reads_in_a_function_whose_variables_are_not_known_are_left(main):
    result = assert_unchanged("TFM104", RUN_ONCE.format(read="tf.trainable_variables()", main=main))
    assert [f.code for f in result.findings] == ["TFM104"]


@pytest.mark.parametrize(
    "body",
    [
        pytest.param("    a = spare()[0]\n", id="helper-made"),
        pytest.param("    for _ in range(2):\n        a = tf.Variable(4.0)\n", id="made-in-a-loop"),
        pytest.param("    a = tf.Variable(4.0)\n    a = tf.Variable(6.0)\n", id="bound-twice"),
    ],
)
def test_reads_after_variables_the_inventory_cannot_read_are_left(body):
    source = RUN_ONCE.format(read="tf.trainable_variables()", main="fit()").replace("    a = tf.Variable(4.0)\n", body)
    result = assert_unchanged("TFM104", source)
    assert [f.code for f in result.findings] == ["TFM104"]
