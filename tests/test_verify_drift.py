"""``verify`` on numbers that agree for a while, then part: "equal to rounding for N, then drifting".

Two float32 programs that round one operation differently (Keras Adam's ``beta ** t`` bias
correction against TF1's running product) print the same losses for hundreds of steps, then
part by a difference that compounds. The verdict says how many leading values agree, where and
by how much they stop agreeing, and whether the difference grows, for printed numbers
(``--stdout``) and for sequences of values (per-step loss lists, 1-D arrays).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from rich.console import Console

from tfmodernize.verify.command import missing_requirements, verify_command
from tfmodernize.verify.compare import Status, compare_values, difference, drift, sequence_drift
from tfmodernize.verify.printed import compare_printed
from tfmodernize.verify.report import print_verdict
from tfmodernize.verify.runner import RunResult, Script
from tfmodernize.verify.verdict import Pair, Verdict

needs_tensorflow = pytest.mark.skipif(bool(missing_requirements()), reason="needs the verify extra")


def losses(steps: int = 40) -> np.ndarray:
    """A bumpy, GAN-like loss curve."""
    t = np.arange(steps, dtype=np.float64)
    return (0.7 + 0.3 * np.sin(0.7 * t) * np.exp(-t / 60.0)).astype(np.float32)


def compounding(values: np.ndarray, start: int, first: float = 2e-5, rate: float = 1.3) -> np.ndarray:
    """``values`` with a relative error of rounding size before ``start`` and, from ``start`` on,
    one that compounds (``first * rate ** k``), as rounding differences do over training."""
    k = np.arange(len(values), dtype=np.float64)
    relative = np.where(k < start, 1e-7, first * rate ** (k - start))
    return (values.astype(np.float64) * (1.0 + relative)).astype(values.dtype)


def printed(values, label: str = "loss") -> str:
    return "".join(f"step {step} {label} {value:.7f}\n" for step, value in enumerate(values))


# -- the analysis ---------------------------------------------------------------------------------


def test_equal_sequences_have_no_drift():
    assert drift([1.0, 2.0, 3.0], [1.0, 2.0000001, 3.0]) is None


def test_drift_counts_the_agreeing_prefix_and_sees_the_difference_grow():
    before = losses()
    after = compounding(before, start=12)
    found = drift(before, after)
    assert found is not None
    assert found.agreeing == 12 and found.total == 40
    assert found.first_before == pytest.approx(float(before[12]))
    assert found.first_relative == pytest.approx(2e-5, rel=0.05)
    assert found.grows and found.largest_at > 12 and found.largest_relative > 10 * found.first_relative
    assert found.outside == 28


def test_a_constant_difference_does_not_grow():
    before = losses()
    after = before.copy()
    after[10:] *= 1.5  # a wrong migration: it parts at once, by as much as it ever will
    found = drift(before, after)
    assert found is not None and found.agreeing == 10 and not found.grows
    assert found.largest_relative == pytest.approx(0.5, rel=1e-6)


def test_one_odd_value_does_not_grow():
    before = [1.0, 2.0, 3.0, 4.0, 5.0]
    found = drift(before, [1.0, 2.0, 3.5, 4.0, 5.0])
    assert found.agreeing == 2 and found.outside == 1 and not found.grows


def test_nan_after_agreement_is_a_growing_difference():
    found = drift([1.0, 1.0, 1.0, 1.0], [1.0, 1.0001, 1.0, float("nan")])
    assert found.agreeing == 1 and found.grows and found.largest_at == 3


def test_tolerances_decide_the_prefix():
    before = losses()
    after = compounding(before, start=12)
    assert drift(before, after, rtol=1e-3).agreeing > drift(before, after, rtol=1e-5).agreeing


# -- printed numbers (verify --stdout) ------------------------------------------------------------


def test_printed_losses_that_drift_say_so_with_the_count_of_agreeing_lines():
    before = losses()
    result = compare_printed(printed(before), printed(compounding(before, start=12)))
    assert result.status is Status.DIFFERENT
    # each line prints two numbers (the step and the loss): the 13th line's loss parts first
    assert result.detail.startswith(
        "equal to rounding for 12 printed lines (25 numbers), then drifting: number 26 of 80 differs by 2."
    ), result.detail
    assert "the difference grows (to " in result.detail
    assert "before: step 12 loss" in result.detail and "after: step 12 loss" in result.detail
    assert result.drift is not None and result.drift.agreeing == 25 and result.drift.grows


def test_printed_numbers_that_jump_are_different_not_drifting():
    before = losses()
    after = before.copy()
    after[20:] *= 1.5
    result = compare_printed(printed(before), printed(after))
    assert result.detail.startswith(
        "equal to rounding for 20 printed lines (41 numbers), then different: number 42 of 80"
    )
    assert "the difference does not grow (at most 5.0e-01 relative)" in result.detail
    assert not result.drift.grows


def test_printed_numbers_different_from_the_start():
    result = compare_printed("loss 0.5\nloss 0.4\n", "loss 0.6\nloss 0.4\n")
    assert result.detail.startswith("different from the first number: number 1 of 2 differs by 2.0e-01 relative")
    assert result.drift.agreeing == 0


def test_more_numbers_printed_on_one_side_is_still_said():
    before = losses(10)
    after = compounding(before, start=5)
    result = compare_printed(printed(before), printed(after)[: -len("step 9 loss 0.0000000\n")])
    assert result.status is Status.DIFFERENT
    assert result.detail.startswith("equal to rounding for 5 printed lines")
    assert "20 numbers printed before, 18 after" in result.detail


def test_printed_numbers_within_tolerance_stay_equal():
    before = losses()
    result = compare_printed(printed(before), printed(compounding(before, start=40)))
    assert result.status is Status.EQUAL and result.drift is None


# -- sequences of values ------------------------------------------------------------------------


def test_a_per_step_loss_list_that_drifts_is_described_as_a_drift():
    before = list(losses())
    after = list(compounding(losses(), start=12))
    [row] = compare_values({"losses": before}, {"losses": after})
    assert row.status is Status.DIFFERENT
    assert row.detail.startswith("equal to rounding for 12 of 40 values, then drifting: losses[12] differs by 2."), (
        row.detail
    )
    assert row.drift is not None and row.drift.agreeing == 12 and row.drift.grows


def test_a_loss_array_that_drifts_keeps_the_element_summary():
    reason = difference("history", losses(), compounding(losses(), start=12))
    assert reason.startswith("history: equal to rounding for 12 of 40 values, then drifting: history[12]")
    assert "values differ in 28 of 40 element(s)" in reason and "first mismatch at index (12,)" in reason


def test_a_dtype_change_is_reported_before_any_drift():
    before = list(losses())
    after = [np.float64(value) for value in compounding(losses(), start=12)]
    assert sequence_drift(before, after) is None
    assert "dtypes differ" in difference("losses", before, after)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param([1.0, 2.0], [1.0, 2.5], id="too-short"),
        pytest.param([1.0, 2.0, 3.0, 4.0], [1.5, 2.0, 3.0, 4.0], id="differs-from-the-first"),
        pytest.param(np.ones((2, 3), np.float32), np.ones((2, 3), np.float32) * 2, id="not-one-dimensional"),
        pytest.param([1, 2, 3, 4], [1, 2, 3, 5], id="integers"),
    ],
)
def test_no_drift_where_the_first_mismatch_says_it_all(before, after):
    assert sequence_drift(before, after) is None
    assert "equal to rounding" not in difference("x", before, after)


# -- the report -----------------------------------------------------------------------------------


def _verdict(tmp_path: Path, names) -> Verdict:
    before, after = Script(tmp_path / "old.py", "tf1"), Script(tmp_path / "new.py", "tf2")
    return Verdict(Pair(before, after), RunResult(before), RunResult(after), names)


def _printed_report(verdict: Verdict) -> str:
    console = Console(record=True, width=200, color_system=None)
    print_verdict(verdict, console)
    return console.export_text()


def test_report_explains_a_drift(tmp_path):
    before = losses()
    row = compare_printed(printed(before), printed(compounding(before, start=12)))
    text = _printed_report(_verdict(tmp_path, [row]))
    assert "different: 1 of 1 compared name(s) failed" in text
    assert "drifting: (stdout) agrees to rounding for its first 25 value(s), then parts by a growing difference" in text


def test_report_does_not_call_a_jump_a_drift(tmp_path):
    before = losses()
    after = before.copy()
    after[20:] *= 1.5
    text = _printed_report(_verdict(tmp_path, [compare_printed(printed(before), printed(after))]))
    assert "different: 1 of 1" in text and "drifting:" not in text


# -- end to end -----------------------------------------------------------------------------------

PRINTING = """\
import numpy as np

values = np.float32(0.7) + np.float32(0.3) * np.sin(np.arange(40) * 0.7).astype(np.float32)
growth = np.where(np.arange(40) < {start}, 0.0, {first} * 1.3 ** (np.arange(40) - {start}))
for step, value in enumerate(values * (1.0 + growth)):
    print("step", step, "loss", f"{{value:.7f}}")
"""


@pytest.fixture(scope="module")
def harness():
    from tfmodernize.verify.runner import Harness

    with Harness() as shared:
        yield shared


@needs_tensorflow
def test_verify_stdout_reports_the_drift(harness, tmp_path):
    old, new = tmp_path / "old.py", tmp_path / "new.py"
    old.write_text(PRINTING.format(start=40, first=0.0))
    new.write_text(PRINTING.format(start=12, first=2e-5))
    console = Console(record=True, width=400, color_system=None)
    code = verify_command(old, new, stdout=True, old_mode="tf1", timeout=120, console=console, harness=harness)
    text = console.export_text()
    assert code == 1, text
    assert "equal to rounding for 12 printed lines (25 numbers), then drifting: number 26 of 80" in text
    assert "drifting: (stdout) agrees to rounding for its first 25 value(s)" in text


ADAM_CASE = Path(__file__).resolve().parent.parent / "fixtures" / "minimize-to-tape" / "adam_betas_as_tf1_read_them"
#: The same GAN migrated to Keras's Adam with TF1's betas (the fixture now writes TF1's fused
#: Adam kernel, which matches bit for bit): Keras rounds otherwise, yet agrees for 120 steps.
KERAS_ADAM_AFTER = Path(__file__).resolve().parent / "verify_cases" / "keras_adam_gan" / "after.py"
TF1_BETAS = "beta_1=0.8999999761581421, beta_2=0.9990000128746033, "


@needs_tensorflow
def test_keras_adam_with_unrounded_betas_drifts_from_tf1(harness, tmp_path):
    """The fixture's migration matches TF1's GAN losses for its 120 steps; the same program with
    Keras's own betas (0.9, 0.999) agrees for a few dozen steps, then drifts, and says so."""
    after = KERAS_ADAM_AFTER.read_text()
    assert after.count(TF1_BETAS) == 2
    unrounded = tmp_path / "after.py"
    unrounded.write_text(after.replace(TF1_BETAS, ""))
    console = Console(record=True, width=2000, color_system=None)
    code = verify_command(
        ADAM_CASE / "before.py",
        unrounded,
        compare=["d_losses", "g_losses"],
        old_mode="tf1",
        timeout=120,
        console=console,
        harness=harness,
    )
    text = console.export_text()
    assert code == 1, text
    rows = [line for line in text.splitlines() if "g_losses" in line and "equal to rounding for" in line]
    assert rows and "of 120 values, then drifting: g_losses[" in rows[0], text
    agreeing = int(rows[0].split("equal to rounding for ")[1].split(" of ")[0])
    assert 5 <= agreeing < 120
