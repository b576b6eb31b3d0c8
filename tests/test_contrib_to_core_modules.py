"""TFM115 contrib-to-core on contrib *modules* reached through a name of the file's own (bound by
an assignment or imported in any form) and the contrib names TF 2.x has under another name:
``tf.contrib.framework.nest`` (tf.nest), ``tf.contrib.compiler.jit.experimental_jit_scope``
(tf.xla.experimental.jit_scope), contrib.tfprof's model analyzer (TF1's tf.profiler); the
look-alikes it leaves; and, with TensorFlow, that the profiler options it writes are contrib's."""

import os
import subprocess
import sys
import textwrap

import pytest

from tfmodernize.analysis.contrib import instead
from tfmodernize.codemods.migrate.contrib_to_core.tables import LOCAL_MODULES, handles
from tfmodernize.testing import assert_rewrites, assert_unchanged, rewrite

CODE = "TFM115"
TF = "import tensorflow as tf\n"


def _lines(text: str) -> str:
    return TF + textwrap.dedent(text)


REWRITES = [
    pytest.param(
        "nest = tf.contrib.framework.nest\nflat = nest.flatten(tree)\nnest.assert_same_structure(tree, flat)\n",
        "flat = tf.nest.flatten(tree)\ntf.nest.assert_same_structure(tree, flat)\n",
        id="nest-bound-to-a-name",
    ),
    pytest.param(
        "fw = tf.contrib.framework\nflat = fw.nest.flatten(tree)\n",
        "flat = tf.nest.flatten(tree)\n",
        id="framework-bound-to-a-name",
    ),
    pytest.param(
        "import tensorflow.contrib.framework as fw\nflat = fw.nest.pack_sequence_as(tree, leaves)\n",
        "flat = tf.nest.pack_sequence_as(tree, leaves)\n",
        id="framework-imported-as",
    ),
    pytest.param(
        "from tensorflow.contrib import framework\nflat = framework.nest.flatten(tree)\n",
        "flat = tf.nest.flatten(tree)\n",
        id="framework-from-contrib",
    ),
    pytest.param(
        "import tensorflow.contrib.framework.nest as nest\nflat = nest.flatten(tree)\n",
        "flat = tf.nest.flatten(tree)\n",
        id="nest-imported-as",
    ),
    pytest.param(
        "from tensorflow.contrib.framework import nest as tree_util\nout = tree_util.map_structure(f, tree)\n",
        "out = tf.nest.map_structure(f, tree)\n",
        id="nest-from-import-renamed",
    ),
    pytest.param(
        "jit_scope = tf.contrib.compiler.jit.experimental_jit_scope\nwith jit_scope():\n    y = f(x)\n",
        "jit_scope = tf.xla.experimental.jit_scope\nwith jit_scope():\n    y = f(x)\n",
        id="jit-scope-bound-to-a-name",
    ),
    pytest.param(
        "from tensorflow.contrib.compiler import jit\nwith jit.experimental_jit_scope(compile_ops=False):\n    y = f(x)\n",
        "with tf.xla.experimental.jit_scope(compile_ops=False):\n    y = f(x)\n",
        id="jit-from-contrib-compiler",
    ),
    pytest.param(
        "import tensorflow.contrib.compiler.jit as jit\nwith jit.experimental_jit_scope():\n    y = f(x)\n",
        "with tf.xla.experimental.jit_scope():\n    y = f(x)\n",
        id="jit-imported-as",
    ),
    pytest.param(
        "from tensorflow.contrib.compiler.jit import experimental_jit_scope\n"
        "with experimental_jit_scope():\n    y = f(x)\n",
        "with tf.xla.experimental.jit_scope():\n    y = f(x)\n",
        id="jit-scope-imported-by-name",
    ),
    pytest.param(
        "jit = tf.contrib.compiler.jit\nscope = jit.experimental_jit_scope\n",
        "scope = tf.xla.experimental.jit_scope\n",
        id="jit-module-bound-to-a-name",
    ),
    pytest.param(
        "from tensorflow.contrib.tfprof import model_analyzer\n"
        "stats = model_analyzer.print_model_analysis(graph, tfprof_options=model_analyzer.FLOAT_OPS_OPTIONS)\n",
        "stats = tf.profiler.profile(graph, options=tf.profiler.ProfileOptionBuilder.float_operation())\n",
        id="print-model-analysis-keywords-renamed",
    ),
    pytest.param(
        "from tensorflow.contrib.tfprof import model_analyzer as ma\n"
        "stats = ma.print_model_analysis(g, meta, log, 'op')\n",
        "stats = tf.profiler.profile(g, run_meta=meta, op_log=log, cmd='op')\n",
        id="print-model-analysis-positional",
    ),
    pytest.param(
        "options = tf.contrib.tfprof.model_analyzer.TRAINABLE_VARS_PARAMS_STAT_OPTIONS\n",
        "options = tf.profiler.ProfileOptionBuilder.trainable_variables_parameter()\n",
        id="parameter-options",
    ),
    pytest.param(
        "import tensorflow.contrib.tfprof.model_analyzer as ma\nadvice = ma.advise(g, meta)\nprofiler = ma.Profiler(g)\n",
        "advice = tf.profiler.advise(g, run_meta=meta)\nprofiler = tf.profiler.Profiler(g)\n",
        id="advise-and-profiler",
    ),
]

NO_OPS = [
    pytest.param("def f(nest):\n    return nest.flatten(x)\n", id="a-parameter-named-nest"),
    pytest.param(
        "import mylib\nnest = mylib.contrib.framework.nest\nflat = nest.flatten(x)\n",
        id="a-non-tf-module-attribute",
    ),
    pytest.param(
        "nest = tf.contrib.framework.nest\ndef f():\n    nest = make()\n    return nest\nflat = nest.flatten(x)\n",
        id="the-name-bound-again-in-a-function",
    ),
    pytest.param(
        "from tools import model_analyzer\nstats = model_analyzer.print_model_analysis(g)\n",
        id="a-model-analyzer-of-another-package",
    ),
    pytest.param(
        "import mylib\njit_scope = mylib.compiler.jit.experimental_jit_scope\nwith jit_scope():\n    y = f(x)\n",
        id="a-jit-scope-of-another-package",
    ),
    pytest.param(
        "options = tf.contrib.tfprof.model_analyzer.PRINT_ALL_TIMING_MEMORY\n",
        id="timing-options-no-builder-returns",
    ),
]

DECLINES = [
    pytest.param(
        "from tensorflow.contrib.tfprof import model_analyzer\nstats = model_analyzer.print_model_analysis(tfprof_cmd='op')\n",
        "its graph is not passed",
        id="profile-without-its-graph",
    ),
    pytest.param(
        "analyze = tf.contrib.tfprof.model_analyzer.print_model_analysis\n",
        "used as a value",
        id="profile-as-a-value",
    ),
]


@pytest.mark.parametrize(("before", "after"), REWRITES)
def test_rewrites(before, after):
    result = assert_rewrites(CODE, TF + before, TF + after)
    assert result.fixes and all(fix.code == CODE for fix in result.fixes)
    assert result.findings == []


@pytest.mark.parametrize("source", NO_OPS)
def test_leaves_alone(source):
    assert assert_unchanged(CODE, TF + source).findings == []


@pytest.mark.parametrize(("source", "words"), DECLINES)
def test_declines_with_a_finding(source, words):
    result = assert_unchanged(CODE, TF + source)
    assert any(words in f.message for f in result.findings), [f.message for f in result.findings]


def test_a_read_through_the_name_it_cannot_replace_keeps_the_binding():
    source = _lines("""\
        nest = tf.contrib.framework.nest
        flat = nest.flatten(tree)
        deep = nest.flatten_up_to(shallow, tree)
    """)
    assert rewrite(CODE, source).code == _lines("""\
        nest = tf.contrib.framework.nest
        flat = tf.nest.flatten(tree)
        deep = nest.flatten_up_to(shallow, tree)
    """)


def test_the_names_it_reaches_through_modules():
    assert handles("contrib.framework.nest.flatten") and handles("contrib.compiler.jit.experimental_jit_scope")
    assert handles("contrib.tfprof.model_analyzer.FLOAT_OPS_OPTIONS")
    assert not handles("contrib.tfprof.model_analyzer.PRINT_ALL_TIMING_MEMORY")
    assert not handles("contrib.framework.nest.flatten_up_to")
    assert {"contrib.framework.nest", "contrib.compiler.jit", "contrib.tfprof.model_analyzer"} <= LOCAL_MODULES
    assert "contrib.gan" not in LOCAL_MODULES and "contrib.quantize" not in LOCAL_MODULES
    assert "contrib.distributions" in LOCAL_MODULES


#: TF 1.15's contrib.tfprof option dicts, as its model_analyzer module defined them, built into
#: the profiler's options proto by TF 2.x's own builder of them, against the builder's dicts.
_SAME_OPTIONS = r"""
import tensorflow.compat.v1 as tf
from tensorflow.python.profiler import model_analyzer, tfprof_logger

def contrib(select, order_by, accounted, least_float_ops=0):
    return {
        "max_depth": 10000, "min_bytes": 0, "min_micros": 0, "min_params": 0,
        "min_float_ops": least_float_ops, "order_by": order_by, "account_type_regexes": [accounted],
        "start_name_regexes": [".*"], "trim_name_regexes": [], "show_name_regexes": [".*"],
        "hide_name_regexes": [], "account_displayed_op_only": True, "select": select,
        "output": "stdout", "dump_to_file": "",
    }

builder = tf.profiler.ProfileOptionBuilder
pairs = {
    "params": (contrib(["params"], "name", tfprof_logger.TRAINABLE_VARIABLES),
               builder.trainable_variables_parameter()),
    "flops": (contrib(["float_ops"], "float_ops", ".*", least_float_ops=1), builder.float_operation()),
}
for name, (old, new) in pairs.items():
    built_old, built_new = model_analyzer._build_options(old), model_analyzer._build_options(new)
    assert built_old == built_new, (name, built_old, built_new)
    assert set(new) - set(old) and old != new  # different dicts, the same options
print("same", len(pairs))
"""


def test_the_option_dicts_build_contribs_profiler_options():
    pytest.importorskip("tensorflow")
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": "-1"}
    done = subprocess.run([sys.executable, "-c", _SAME_OPTIONS], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "same 2" in done.stdout


def test_what_to_use_instead_of_the_runconfigs_and_the_saved_model_reader():
    # The longest contrib path with an entry wins over its module's.
    assert "CheckpointManager" in instead("contrib.learn.RunConfig")
    assert "CheckpointManager" in instead("contrib.learn.python.learn.run_config._DEFAULT_UID_WHITE_LIST")
    assert instead("contrib.learn.Experiment") == instead("contrib.learn")
    assert "TPUStrategy" in instead("contrib.tpu.python.tpu.tpu_config.RunConfig")
    assert "saved_model_pb2.SavedModel.FromString" in instead(
        "contrib.saved_model.python.saved_model.reader.read_saved_model"
    )
    assert "tensorflow-probability" in instead("contrib.distributions.MVNDiag")


#: The written read_saved_model against TensorFlow's own parser of a SavedModel's proto (what
#: contrib's reader was): a binary proto, a text one only, a corrupt one and none.
_SAME_SAVED_MODEL = r"""
import os, tempfile
import tensorflow as tf
from google.protobuf import message, text_format
from tensorflow.core.protobuf import saved_model_pb2
from tensorflow.python.saved_model import loader_impl

exec(WRITTEN)

class Doubler(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def double(self, x):
        return x * 2.0

binary = tempfile.mkdtemp()
tf.saved_model.save(Doubler(), binary)
assert read_saved_model(binary) == loader_impl.parse_saved_model(binary)
text = tempfile.mkdtemp()
with open(os.path.join(text, "saved_model.pbtxt"), "w") as f:
    f.write(text_format.MessageToString(read_saved_model(binary)))
assert read_saved_model(text) == loader_impl.parse_saved_model(text) == read_saved_model(binary)
corrupt = tempfile.mkdtemp()
with open(os.path.join(corrupt, "saved_model.pb"), "wb") as f:
    f.write(b"not a proto")
for folder in (corrupt, tempfile.mkdtemp()):
    for read in (read_saved_model, loader_impl.parse_saved_model):
        try:
            read(folder)
        except IOError:
            continue
        raise AssertionError(f"{read.__name__} read {folder}")
print("same 4")
"""


def test_the_written_saved_model_reader_reads_what_tensorflows_parser_reads():
    pytest.importorskip("tensorflow")
    from tfmodernize.codemods.migrate.contrib_to_core.saved_model_reader import TEMPLATE

    written = TEMPLATE.substitute(name="read_saved_model", tf="tf")
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": "-1"}
    program = f"WRITTEN = {written!r}\n{_SAME_SAVED_MODEL}"
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "same 4" in done.stdout


def test_read_saved_model_is_written_once_with_its_imports():
    source = (
        "import tensorflow as tf\n"
        "from tensorflow.contrib.saved_model.python.saved_model import reader\n"
        "\n"
        "a = reader.read_saved_model('m')\n"
        "b = reader.read_saved_model('n')\n"
    )
    code = rewrite("TFM115", source).code
    assert code.count("def read_saved_model(saved_model_dir):") == 1
    assert "from tensorflow.core.protobuf import saved_model_pb2\n" in code and "import os\n" in code
    assert "a = read_saved_model('m')\nb = read_saved_model('n')\n" in code
    assert "tensorflow.contrib" not in code and "reader." not in code


def test_read_saved_model_declines_beside_another_reader_function_or_a_name_it_imports():
    head = "import tensorflow as tf\nfrom tensorflow.contrib.saved_model.python.saved_model import reader\n"
    other = assert_unchanged(
        "TFM115", head + "a = reader.read_saved_model('m')\nt = reader.get_saved_model_tag_sets('m')\n"
    )
    assert any("get_saved_model_tag_sets" in f.message for f in other.findings)
    clash = assert_unchanged("TFM115", head + "message = 'hi'\na = reader.read_saved_model('m')\n")
    assert any("names `message` itself" in f.message for f in clash.findings)
