"""The decline table of benchmarks/real_programs.py: reasons counted by program, with notes."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import real_programs  # noqa: E402


def finding(code, message):
    return {"kind": "finding", "code": code, "message": message}


def test_reasons_count_programs_not_findings_and_blank_what_differs():
    findings = {
        "P1": [
            finding("TFM101", "session program not migrated: `net` is defined elsewhere: called twice"),
            finding("TFM101", "session program not migrated: `head` is defined elsewhere: called twice"),
        ],
        "P2": [finding("TFM101", "session program not migrated: `body` is defined elsewhere: called twice")],
        "P3": [{"kind": "fix", "code": "TFM101", "message": "placeholder `x` -> function parameter"}],
    }
    [(code, reason, programs, note)] = real_programs.decline_table(findings)
    assert (code, programs, note) == ("TFM101", ["P1", "P2"], "")
    assert reason == "session program not migrated: `…` is defined elsewhere: called twice"


def test_reasons_that_cannot_migrate_carry_their_note_and_consequences_are_marked():
    findings = {
        "P1": [
            finding(
                "TFM101",
                "session program migrated drawing other random numbers: a random op is drawn by runs of "
                "different fetches (evaluate, train_step): TF1 drew them all from one op",
            ),
            finding(
                "TFM103",
                "`minimize` not migrated: the file is still a TF1 graph program; session-to-function migrates it first",
            ),
        ],
        "P2": [
            finding(
                "TFM101",
                "session program migrated drawing other random numbers: a random op is drawn by runs of "
                "different fetches (predict, step): TF1 drew them all from one op",
            )
        ],
    }
    table = real_programs.decline_table(findings)
    random_row, follows_row = table
    assert random_row[2] == ["P1", "P2"] and "kernel" in random_row[3]
    assert follows_row[2] == ["P1"] and follows_row[3] == "follows"


def test_a_module_kept_on_tf1_without_an_entry_point_follows_from_its_own_tf1_names():
    findings = {
        "P1": [
            finding(
                "TFM113",
                "this module builds a TF1 graph but has no entry point (no session code, "
                '`if __name__ == "__main__":` or app.run): the program that imports it must call '
                "tf.compat.v1.disable_v2_behavior() before building graphs",
            ),
            finding("TFM109", "tf.nn.dynamic_rnn has no TF2 equivalent that behaves the same"),
        ]
    }
    rows = {row[0]: row for row in real_programs.decline_table(findings)}
    assert rows["TFM113"][3] == "follows" and rows["TFM109"][3] == ""
