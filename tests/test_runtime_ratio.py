"""The pure parts of benchmarks/runtime_ratio.py: ratio, run order, id selection, summary, table."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import runtime_ratio  # noqa: E402

Timing = runtime_ratio.Timing


def test_ratio_is_migrated_over_original():
    assert runtime_ratio.ratio(2.0, 3.0) == 1.5
    assert runtime_ratio.ratio(4.0, 1.0) == 0.25


def test_ratio_floors_times_below_the_harness_resolution():
    assert runtime_ratio.ratio(0.0, 0.0) == 1.0
    assert runtime_ratio.ratio(0.0, 0.05) == 5.0


def test_ratio_is_none_when_a_side_did_not_run():
    assert runtime_ratio.ratio(None, 1.0) is None
    assert runtime_ratio.ratio(1.0, None) is None


def test_sides_alternate_between_programs_and_between_repeats():
    assert runtime_ratio.original_first(0, 0)
    assert not runtime_ratio.original_first(1, 0)
    assert not runtime_ratio.original_first(0, 1)
    assert runtime_ratio.original_first(1, 1)


def test_selected_ids_keep_clean_numeric_programs_and_a_later_report_wins():
    first = {
        "programs": [
            {"id": "D10", "clean": True, "numeric": True},
            {"id": "D2", "clean": True, "numeric": True},
            {"id": "D3", "clean": True, "numeric": False},
            {"id": "D4", "clean": False, "numeric": True},
            {"id": "D5", "clean": True, "numeric": None},
        ]
    }
    later = {
        "programs": [
            {"id": "D2", "clean": True, "numeric": False},
            {"id": "D3", "clean": True, "numeric": True},
        ]
    }
    assert runtime_ratio.selected_ids([first]) == ["D2", "D10"]
    assert runtime_ratio.selected_ids([first, later]) == ["D3", "D10"]


def test_summary_takes_median_and_worst_over_measured_programs():
    timings = [
        Timing("D1", v1=1.0, v2=1.0),
        Timing("D2", v1=1.0, v2=3.0),
        Timing("D3", v1=2.0, v2=1.0),
        Timing("D4", error="v2 error: NameError"),
    ]
    totals = runtime_ratio.summary(timings)
    assert totals["measured"] == 3
    assert totals["median"] == 1.0
    assert (totals["worst"], totals["worst_id"]) == (3.0, "D2")
    assert totals["slower_than_2x"] == ["D2"]
    assert totals["not_measured"] == {"D4": "v2 error: NameError"}
    assert (totals["v1_total"], totals["v2_total"]) == (4.0, 5.0)


def test_summary_of_nothing_measured_has_no_median():
    totals = runtime_ratio.summary([Timing("D1", error="v1 timeout: Timeout")])
    assert totals["median"] is None and totals["worst"] is None
    assert "no program ran on both sides" in runtime_ratio.summary_line(totals)


def test_render_lists_the_slowest_first_and_ends_with_the_summary():
    timings = [
        Timing("D1", v1=1.0, v2=1.0, numeric=True),
        Timing("D2", v1=1.0, v2=4.0, numeric=False),
    ]
    text = runtime_ratio.render(timings, runtime_ratio.summary(timings))
    rows = [line.split() for line in text.splitlines()[1:3]]
    assert [row[0] for row in rows] == ["D2", "D1"]
    assert rows[0][:6] == ["D2", "1.00", "4.00", "4.00", "+3.00", "NO"]
    assert text.rstrip().splitlines()[-1].startswith("run time, migrated / original")
    assert "median 2.50x, worst 4.00x (D2)" in text


def test_render_markdown_is_a_table():
    timings = [Timing("D1", v1=0.5, v2=0.25, numeric=True)]
    text = runtime_ratio.render(timings, runtime_ratio.summary(timings), markdown=True)
    lines = text.splitlines()
    assert lines[0].startswith("| id | v1 s | v2 s | ratio |")
    assert lines[2] == "| D1 | 0.50 | 0.25 | 0.50 | -0.25 | yes |  |"


def test_the_benchmark_never_imports_tensorflow():
    source = (ROOT / "benchmarks" / "runtime_ratio.py").read_text()
    assert "import tensorflow" not in source
