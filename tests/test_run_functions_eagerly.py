"""TFM207 run-functions-eagerly: golden and no-op tables."""

import pytest

from tfmodernize.testing import assert_rewrites, assert_unchanged

REWRITES = [
    pytest.param(
        "import tensorflow as tf\ntf.config.experimental_run_functions_eagerly(True)\n",
        "import tensorflow as tf\ntf.config.run_functions_eagerly(True)\n",
        id="plain",
    ),
    pytest.param(
        "import tensorflow as T\nT.config.experimental_run_functions_eagerly(False)  # debug off\n",
        "import tensorflow as T\nT.config.run_functions_eagerly(False)  # debug off\n",
        id="alias-and-comment-kept",
    ),
    pytest.param(
        "import tensorflow.compat.v1 as tf\ntf.config.experimental_run_functions_eagerly(True)\n",
        "import tensorflow.compat.v1 as tf\ntf.config.run_functions_eagerly(True)\n",
        id="compat-v1",
    ),
    pytest.param(
        "import tensorflow as tf\nif tf.config.experimental_functions_run_eagerly():\n    pass\n",
        "import tensorflow as tf\nif tf.config.functions_run_eagerly():\n    pass\n",
        id="query",
    ),
    pytest.param(
        "import tensorflow as tf\nswitch = tf.config.experimental_run_functions_eagerly\nswitch(True)\n",
        "import tensorflow as tf\nswitch = tf.config.run_functions_eagerly\nswitch(True)\n",
        id="reference-not-call",
    ),
    pytest.param(
        "from tensorflow.config import experimental_run_functions_eagerly\nexperimental_run_functions_eagerly(True)\n",
        "import tensorflow as tf\n\ntf.config.run_functions_eagerly(True)\n",
        id="bare-name-import",
    ),
    pytest.param(
        "import tensorflow as tf\ndef run(flag):\n    tf.config.experimental_run_functions_eagerly(\n        flag,  # from the CLI\n    )\n",
        "import tensorflow as tf\ndef run(flag):\n    tf.config.run_functions_eagerly(\n        flag,  # from the CLI\n    )\n",
        id="multiline-comment-kept",
    ),
]

NO_OPS = [
    pytest.param("tf = object()\ntf.config.experimental_run_functions_eagerly(True)\n", id="non-tf-object"),
    pytest.param("import mylib as tf\ntf.config.experimental_run_functions_eagerly(True)\n", id="other-module-as-tf"),
    pytest.param(
        "import tensorflow as tf\ndef f(tf):\n    tf.config.experimental_run_functions_eagerly(True)\n",
        id="shadowed-parameter",
    ),
    pytest.param("import tensorflow as tf\ntf.config.run_functions_eagerly(True)\n", id="already-migrated"),
    pytest.param("import tensorflow as tf\nconfig.experimental_run_functions_eagerly(True)\n", id="unqualified"),
    pytest.param("import tensorflow as tf\n# tf.config.experimental_run_functions_eagerly(True)\n", id="in-a-comment"),
    pytest.param(
        "import tensorflow as tf\ntf.config.experimental_run_functions_eagerly(True)  # tfmodernize: ignore\n",
        id="suppressed",
    ),
    pytest.param(
        "import tensorflow as tf\ntf.config.experimental_run_functions_eagerly(True)  # tfmodernize: ignore[TFM207]\n",
        id="suppressed-by-code",
    ),
    pytest.param(
        "import tensorflow as tf\ntf.config.experimental_run_functions_eagerly(True)  # tfmodernize: ignore[run-functions-eagerly]\n",
        id="suppressed-by-name",
    ),
]


@pytest.mark.parametrize(("before", "after"), REWRITES)
def test_rewrites(before, after):
    result = assert_rewrites("TFM207", before, after)
    assert [fix.code for fix in result.fixes] == ["TFM207"]


@pytest.mark.parametrize("source", NO_OPS)
def test_leaves_alone(source):
    assert_unchanged("TFM207", source)


def test_suppression_for_another_code_does_not_silence():
    assert_rewrites(
        "TFM207",
        "import tensorflow as tf\ntf.config.experimental_run_functions_eagerly(True)  # tfmodernize: ignore[TFM201]\n",
        "import tensorflow as tf\ntf.config.run_functions_eagerly(True)  # tfmodernize: ignore[TFM201]\n",
    )
