"""scripts/generate_tf_tables.py: reads the peer's tables without tensorflow, and the committed
tables are what it generates from the installed TensorFlow."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "scripts" / "generate_tf_tables.py"
DATA = REPO / "tfmodernize" / "data" / "tf_upgrade_v2.json"

needs_tensorflow = pytest.mark.skipif(
    importlib.util.find_spec("tensorflow") is None, reason="generates from an installed tensorflow"
)


@needs_tensorflow
def test_loading_the_peer_tables_does_not_import_tensorflow():
    program = (
        "import runpy, sys\n"
        f"generator = runpy.run_path({str(SCRIPT)!r})\n"
        "tables = generator['extract'](generator['load_peer_modules'](generator['find_tf_dir']()))\n"
        "assert not any(m == 'tensorflow' or m.startswith('tensorflow.') for m in sys.modules), 'imported'\n"
        "assert tables['renames']['random_normal'] == 'random.normal'\n"
        "assert tables['keyword_renames']['reduce_sum'] == {'reduction_indices': 'axis', 'keep_dims': 'keepdims'}\n"
        "assert tables['reorders']['argmax'] == {'positional': 2, 'keywords': ['name', 'dimension', 'output_type']}\n"
    )
    subprocess.run([sys.executable, "-c", program], check=True)


@needs_tensorflow
def test_committed_tables_are_regenerated_identically(tmp_path):
    out = tmp_path / "tables.json"
    subprocess.run([sys.executable, str(SCRIPT), "--output", str(out)], check=True, capture_output=True)
    assert json.loads(out.read_text()) == json.loads(DATA.read_text()), (
        "tfmodernize/data/tf_upgrade_v2.json is stale: run scripts/generate_tf_tables.py"
    )


def test_committed_tables_say_where_they_come_from():
    data = json.loads(DATA.read_text())
    assert data["license"] == "Apache-2.0"
    assert "The TensorFlow Authors" in data["attribution"]
    assert data["tensorflow_version"] == "2.21.0" and data["validated"] is True
    # Every kept target was validated; the dead ones are kept apart with their peer target.
    assert not set(data["renames"]) & set(data["dead_targets"])
    assert data["dead_targets"]["nn.rnn_cell.LSTMCell"] == "compat.v1.nn.rnn_cell.LSTMCell"
