"""End to end: the bundled TF1 training examples migrate with the whole catalogue, no manual
edit, to code free of TF1 training idioms that reproduces the TF1 numbers (issue 7)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tfmodernize.registry import select_codemods
from tfmodernize.engine import transform_text
from tfmodernize.verify.command import missing_requirements

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
TRAINING_EXAMPLES = {
    "linear_regression_tf1.py": ["losses", "W_final", "b_final"],
    "logistic_regression_tf1.py": ["losses", "final_accuracy", "W_final", "b_final"],
    "mlp_tf1.py": ["losses", "test_cost"],
}
TF1_IDIOMS = re.compile(r"compat\.v1|Session|placeholder|\.minimize\(|get_collection|trainable_variables\(\)")


def migrate(name: str) -> str:
    source = (EXAMPLES / name).read_text(encoding="utf-8")
    new, state = transform_text(source, select_codemods())
    assert not [f for f in state.findings if f.code.startswith("TFM10")], state.findings
    return new


@pytest.mark.parametrize("name", sorted(TRAINING_EXAMPLES))
def test_example_migrates_without_tf1_idioms(name: str) -> None:
    migrated = migrate(name)
    assert not TF1_IDIOMS.search(migrated), migrated
    assert "keras.optimizers.legacy" not in migrated, migrated
    assert "GradientTape" in migrated and ("apply_gradients" in migrated or "assign_sub" in migrated)


@pytest.mark.parametrize("name", sorted(TRAINING_EXAMPLES))
def test_example_reproduces_tf1_training(name: str, tmp_path: Path) -> None:
    """The whole catalogue's output reproduces the TF1 run's numbers."""
    missing = missing_requirements()
    if missing:
        pytest.skip(f"needs the verify extra ({', '.join(missing)} missing)")
    from tfmodernize.verify.runner import Harness, Script
    from tfmodernize.verify.verdict import Pair, verify_pairs

    migrated = migrate(name)
    after = tmp_path / name.replace("_tf1", "_tf2")
    after.write_text(migrated, encoding="utf-8")
    pair = Pair(Script(EXAMPLES / name, mode="tf1"), Script(after, mode="tf2"), compare=TRAINING_EXAMPLES[name])
    with Harness() as harness:
        (verdict,) = verify_pairs([pair], harness)
    assert verdict.status == "equal", verdict.explain()
