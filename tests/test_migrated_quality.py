"""benchmarks/migrated_quality.py: the comments a migration kept, lost or orphaned, counted with
their words (a comment reflowed to the file's width is kept) and their statements read as one
line (a call wrapped over other lines still follows its comment)."""

import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import migrated_quality  # noqa: E402


def _counts(original: str, migrated: str) -> tuple[int, int]:
    quality = migrated_quality.measure("case", textwrap.dedent(original), textwrap.dedent(migrated))
    return quality.counts["orphaned"], quality.counts["lost"]


ORIGINAL = """
    def scale(values, factor):
        # multiply every value by the factor given, then shift the products up by one so that
        # none of them is zero when the factor is
        shifted = [v * factor + 1 for v in values]
        # Report
        print("shifted values {}".format(summary_of(shifted)))
        return shifted
"""

CASES = [
    pytest.param(
        ORIGINAL,
        (0, 0),
        id="unchanged-nothing-counted",
    ),
    pytest.param(
        """
        class Scale:
            def __call__(self, values, factor):
                # multiply every value by the factor given, then shift the products up by
                # one so that none of them is zero when the factor is
                shifted = [v * factor + 1 for v in values]
                # Report
                print(
                    "shifted values {}".format(summary_of(shifted))
                )
                return shifted
        """,
        (0, 0),
        id="reflowed-comment-kept-wrapped-call-still-follows",
    ),
    pytest.param(
        """
        def scale(values, factor):
            shifted = [v * factor + 1 for v in values]
            # Report
            print("shifted values {}".format(summary_of(shifted)))
            return shifted
        """,
        (0, 2),
        id="comment-gone-its-statement-kept-lost",
    ),
    pytest.param(
        """
        def scale(values, factor):
            # multiply every value by the factor given, then shift the products up by one so that
            # none of them is zero when the factor is
            shifted = [v * factor + 1 for v in values]
            # Report
            return shifted
        """,
        (1, 0),
        id="comment-above-another-statement-orphaned",
    ),
]


@pytest.mark.parametrize(("migrated", "expected"), CASES)
def test_comments_kept_lost_orphaned(migrated, expected):
    assert _counts(ORIGINAL, migrated) == expected
