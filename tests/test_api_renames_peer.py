"""TFM109 against its peer, TensorFlow's own ``tf_upgrade_v2``, run here on the same input.

One generated line per rename key of the tables (``x_17 = tf.random_normal``); both tools
rewrite the whole snippet and, for every key whose target lies outside ``tf.compat.v1``, the
symbol they choose must be the same (the peer's ``tf.compat.v2.X`` is TF2's ``tf.X``).

Keys whose peer target does not work on TF 2.21 are not in the tables' ``renames`` at all
(``scripts/generate_tf_tables.py`` drops them: ``tf.keras.optimizers.Adam`` -> ``legacy.Adam``,
``tf.nn.rnn_cell.*``); the remaining deliberate differences are listed in ``DELIBERATE``.
"""

from __future__ import annotations

import ast
import re

import pytest

from tfmodernize.analysis.contrib import reexported_tf1_name
from tfmodernize.analysis.tables import tables
from tfmodernize.codemods.migrate.api_renames.policy import GRAPH_ONLY, OVERRIDES
from tfmodernize.testing import rewrite

#: Keys where TFM109 deliberately does not pick the peer's symbol, and why.
DELIBERATE = {
    **{
        f"image.{name}": "TF2's tf.image.resize uses half-pixel centres: other numbers, so reported instead"
        for name in ("resize_images", "resize_area", "resize_bicubic", "resize_bilinear", "resize_nearest_neighbor")
    },
    **{
        f"contrib.summary.{name}": "TF2's record_if takes the condition: only calls are rewritten, a reference is reported"
        for name in ("always_record_summaries", "never_record_summaries")
    },
    **{name: f"graph-only: {why}" for name, why in GRAPH_ONLY.items()},
}


@pytest.fixture(scope="module")
def peer():
    pytest.importorskip("pasta", reason="tf_upgrade_v2 needs pasta (installed with tensorflow)")
    pytest.importorskip("tensorflow", reason="the differential test runs tf_upgrade_v2 from an installed tensorflow")
    from tensorflow.tools.compatibility import ast_edits, tf_upgrade_v2

    def upgrade(text: str) -> str:
        upgrader = ast_edits.ASTCodeUpgrader(tf_upgrade_v2.TFAPIChangeSpec())
        _, new_text, _, _ = upgrader.update_string_pasta(text, "snippet.py")
        return new_text

    return upgrade


def _symbols(text: str) -> dict[int, str]:
    found = {}
    for line in text.splitlines():
        match = re.match(r"x_(\d+) = (\S+)$", line)
        if match:
            found[int(match.group(1))] = match.group(2)
    return found


def _normalise(symbol: str) -> str:
    return symbol.replace("tf.compat.v2.", "tf.", 1)


def test_symbol_choices_equal_the_peer(peer):
    t = tables()
    keys = sorted(k for k, v in t.renames.items() if not v.startswith("compat.v1.") and k not in DELIBERATE)
    assert len(keys) > 350
    snippet = "import tensorflow as tf\n" + "".join(f"x_{i} = tf.{key}\n" for i, key in enumerate(keys))

    ours = _symbols(rewrite("TFM109", snippet, dedent=False).code)
    theirs = _symbols(peer(snippet))

    differences = {
        keys[i]: (theirs.get(i), ours.get(i))
        for i in range(len(keys))
        # The snippet keeps TF1 names (tf.contrib...), so a target TF1 code also uses is spelled
        # tf.compat.v2.X, the peer's own spelling of it.
        if _normalise(theirs.get(i, "")) != _normalise(ours.get(i, ""))
    }
    assert differences == {}


def test_compat_v1_targets_are_left_where_the_peer_goes_to_v1(peer):
    t = tables()
    # contrib names TF 1.15 re-exported from TF's TF1 API are named as TF1 code names them.
    keys = sorted(
        k
        for k, v in t.renames.items()
        if v.startswith("compat.v1.") and k not in OVERRIDES and reexported_tf1_name(k, v) is None
    )
    snippet = "import tensorflow as tf\n" + "".join(f"x_{i} = tf.{key}\n" for i, key in enumerate(keys))

    ours = _symbols(rewrite("TFM109", snippet, dedent=False).code)
    theirs = _symbols(peer(snippet))

    assert all(theirs[i].startswith("tf.compat.v1.") for i in range(len(keys)))
    assert all(ours[i] == f"tf.{key}" for i, key in enumerate(keys))


def test_keyword_renames_equal_the_peer(peer):
    """Every keyword rename, passed as a keyword in a TF1 file: same keyword out."""
    t = tables()
    calls = [
        (function, old, new)
        for function, mapping in sorted(t.keyword_renames.items())
        if not function.startswith(("*.", "contrib."))
        and function not in DELIBERATE
        and not t.renames.get(function, "").startswith("compat.v1.")
        and function not in t.dead_targets
        for old, new in sorted(mapping.items())
    ]
    snippet = "import tensorflow as tf\np = tf.placeholder(tf.float32)\n" + "".join(
        f"x_{i} = tf.{function}(a, {old}=b)\n" for i, (function, old, _) in enumerate(calls)
    )
    # One statement a line (a rename may wrap a line wider than the file).
    ours = ast.unparse(ast.parse(rewrite("TFM109", snippet, dedent=False).code)).splitlines()
    theirs = peer(snippet).splitlines()
    for i, (function, old, new) in enumerate(calls):
        our_line = next(line for line in ours if line.startswith(f"x_{i} = "))
        their_line = next(line for line in theirs if line.startswith(f"x_{i} = "))
        assert f"{new}=b" in our_line and f"{new}=b" in their_line, (function, our_line, their_line)
