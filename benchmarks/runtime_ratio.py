"""Run time of migrated corpus programs against their TF1 originals, timed in one run (issue 35).

    python benchmarks/runtime_ratio.py --src /tmp/corpus --migrated /tmp/conv
        [--ids D01,D07 | --score-json score.json [--score-json rescored.json]]
        [--baseline /tmp/conv_head] [--repeats 3] [--workers 1] [--json OUT.json] [--md OUT.md]

For each program (the ``--ids`` given; else the programs of ``--score-json`` that are clean and
print the original's numbers, a later file overriding an earlier one per id; else every program
of the corpus manifest whose migrated copy is clean by the scorer's own check), this runs the
TF1 original (``run_program.py --mode v1``) and the migrated file (``--mode v2``) back to back,
exactly as the corpus's ``score.py`` runs them: its loop cap from the manifest, the same aux
files, inside ``DeterministicRandomTestTool`` with the same mode and seed, the same time limit.
The time is the harness's ``exec_seconds``: the program's own execution, interpreter start and
TensorFlow import excluded. The two sides alternate which runs first (program ``i``, repeat
``r``: the original first when ``i + r`` is even), so neither side always meets a warm or a
cold disk cache; with ``--repeats N`` each side keeps its fastest run.

``--baseline DIR`` times a second migrated tree (the same programs migrated by another version
of the tool) in the same runs: each repeat runs the three sides back to back, their order
rotating, so a change to the tool is measured against the version before it under the same
load; its median and worst ratio follow the table (and go to the json as ``baseline_summary``).

Reports, per program, the original's and the migrated program's seconds, their ratio (each
time floored at the harness's 0.01 s resolution, so a program too short to measure gives 1.0,
not a division by zero), the difference in seconds, and whether the timed runs printed the same
numbers (the scorer's comparison: a ratio of a run that went wrong means nothing). Then the
median and the worst ratio, and how many programs run slower than 2x, over the programs that
ran on both sides. Text table on stdout (markdown with ``--md``), everything with ``--json``.

This process never imports TensorFlow: each run is a child of the corpus harness. Keep
``--workers`` at 1 on a shared machine (each worker runs one pair at a time); the ratios of a
busy machine are noisier, not biased toward one side, since both sides of a pair run under the
same load.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import importlib.util
import json
import statistics
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED_CORPUS = ROOT.parent / "shared" / "corpus"
RESOLUTION = 0.01  # run_program.py rounds exec_seconds to 10 ms
SLOW = 2.0
SCORE_JSON_HELP = "score.py --json report(s): time their clean+numeric programs (a later one wins)"


@dataclass
class Timing:
    """One program's times: the fastest ``exec_seconds`` of each side over the repeats."""

    pid: str
    v1: float | None = None
    v2: float | None = None
    v1_runs: list[float] = field(default_factory=list)
    v2_runs: list[float] = field(default_factory=list)
    numeric: bool | None = None
    error: str = ""
    baseline: Timing | None = None  # the --baseline tree's times, from the same runs of v1

    @property
    def ratio(self) -> float | None:
        return ratio(self.v1, self.v2)


def ratio(v1: float | None, v2: float | None) -> float | None:
    """``v2 / v1``, each floored at the harness's resolution; None when a side did not run."""
    if v1 is None or v2 is None:
        return None
    return max(v2, RESOLUTION) / max(v1, RESOLUTION)


def original_first(index: int, repeat: int) -> bool:
    """Whether the original runs before the migrated program in this pair (they alternate)."""
    return (index + repeat) % 2 == 0


def run_order(index: int, repeat: int, baseline: bool) -> tuple[str, ...]:
    """The sides in the order they run: the pair alternates; with a baseline the three rotate."""
    if not baseline:
        return ("v1", "v2") if original_first(index, repeat) else ("v2", "v1")
    shift = (index + repeat) % 3
    sides = ("v1", "v2", "base")
    return sides[shift:] + sides[:shift]


def selected_ids(score_reports: list[dict]) -> list[str]:
    """Ids that are clean and numeric in the score reports, a later report overriding per id."""
    latest: dict[str, dict] = {}
    for report in score_reports:
        for program in report.get("programs", []):
            latest[program["id"]] = program
    kept = [pid for pid, p in latest.items() if p.get("clean") and p.get("numeric")]
    return sorted(kept, key=id_key)


def id_key(pid: str) -> tuple[str, int]:
    """Corpus order: D2 before D10."""
    digits = "".join(ch for ch in pid if ch.isdigit())
    return (pid.rstrip("0123456789"), int(digits) if digits else -1)


def summary(timings: list[Timing]) -> dict:
    """Median and worst ratio over the programs that ran on both sides, and those over 2x."""
    measured = [t for t in timings if t.ratio is not None]
    ratios = [t.ratio for t in measured]
    worst = max(measured, key=lambda t: t.ratio, default=None)
    return {
        "programs": len(timings),
        "measured": len(measured),
        "median": round(statistics.median(ratios), 3) if ratios else None,
        "worst": round(worst.ratio, 3) if worst else None,
        "worst_id": worst.pid if worst else None,
        "slower_than_2x": sorted((t.pid for t in measured if t.ratio > SLOW), key=id_key),
        "v1_total": round(sum(t.v1 for t in measured), 2),
        "v2_total": round(sum(t.v2 for t in measured), 2),
        "not_measured": {t.pid: t.error for t in timings if t.ratio is None},
    }


def render(timings: list[Timing], totals: dict, markdown: bool = False) -> str:
    """The per-program table (slowest ratio first) and the summary lines."""
    head = ("id", "v1 s", "v2 s", "ratio", "v2-v1 s", "same numbers", "note")
    rows = []
    order = sorted(timings, key=lambda t: (t.ratio is None, -(t.ratio or 0.0), id_key(t.pid)))
    for t in order:
        rows.append(
            (
                t.pid,
                _seconds(t.v1),
                _seconds(t.v2),
                f"{t.ratio:.2f}" if t.ratio is not None else "-",
                f"{t.v2 - t.v1:+.2f}" if t.ratio is not None else "-",
                {True: "yes", False: "NO", None: "-"}[t.numeric],
                t.error,
            )
        )
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
    else:
        table = [head, *rows]
        widths = [max(len(row[i]) for row in table) for i in range(len(head))]
        lines = [_padded(row, widths) for row in table]
    lines.append("")
    lines.append(summary_line(totals))
    return "\n".join(lines) + "\n"


def summary_line(totals: dict) -> str:
    if not totals["measured"]:
        return f"run time: no program ran on both sides ({totals['programs']} selected)"
    slow = ", ".join(totals["slower_than_2x"]) or "none"
    return (
        f"run time, migrated / original (exec seconds, same run, {totals['measured']} programs): "
        f"median {totals['median']:.2f}x, worst {totals['worst']:.2f}x ({totals['worst_id']}); "
        f"slower than {SLOW:g}x: {slow}; "
        f"total {totals['v1_total']:.1f} s -> {totals['v2_total']:.1f} s"
    )


def _padded(row: tuple[str, ...], widths: list[int]) -> str:
    return "  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip()


def _seconds(value: float | None) -> str:
    return f"{value:.2f}" if value is not None else "-"


# ----------------------------------------------------------------- running (the corpus harness)


def load_scorer(harness: Path, src: Path):
    """The corpus's score.py as a module (its run(), manifest and clean check), reading ``src``."""
    spec = importlib.util.spec_from_file_location("corpus_score", harness / "score.py")
    scorer = importlib.util.module_from_spec(spec)
    sys.dont_write_bytecode = True
    spec.loader.exec_module(scorer)
    scorer.SRC = str(src)  # where run() finds an original's aux files
    return scorer


def time_program(
    scorer,
    paths: dict[str, Path],
    pid: str,
    cap,
    index: int,
    repeats: int,
    timeout: float,
):
    """Both sides (``paths``: side -> file) of one program, ``repeats`` times, alternating."""
    timing = Timing(pid)
    base = Timing(pid) if "base" in paths else None
    for repeat in range(repeats):
        results = {}
        for side in run_order(index, repeat, base is not None):
            path, mode = str(paths[side]), "v1" if side == "v1" else "v2"
            results[side] = scorer.run(path, mode, cap, pid, det=scorer.DET_MODE, timeout=timeout)
        failed = [f"{side} {r['status']}: {r.get('exc_type') or ''}" for side, r in results.items()]
        failed = [message for message, r in zip(failed, results.values()) if r["status"] != "ok"]
        if failed:
            timing.error = "; ".join(failed)
            timing.v1 = timing.v2 = None
            return timing
        for side_timing, side in ((timing, "v2"), (base, "base")):
            if side_timing is None:
                continue
            side_timing.v1_runs.append(results["v1"]["exec_seconds"])
            side_timing.v2_runs.append(results[side]["exec_seconds"])
            if side_timing.numeric is None:
                compared = scorer.compare(results["v1"]["stdout"], results[side]["stdout"])
                side_timing.numeric = compared["match"]
    for side_timing in (timing, base):
        if side_timing is not None:
            side_timing.v1, side_timing.v2 = min(side_timing.v1_runs), min(side_timing.v2_runs)
    timing.baseline = base
    return timing


def main(argv: list[str] | None = None) -> int:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    add = parser.add_argument
    add("--src", type=Path, default=Path("/tmp/corpus"), help="the TF1 originals <id>.py")
    add("--migrated", type=Path, required=True, help="the migrated copies <id>.py")
    add("--baseline", type=Path, default=None, help="another migrated tree, timed in the same runs")
    add("--ids", default="", help="comma list of ids (default: see --score-json)")
    add(
        "--score-json",
        type=Path,
        action="append",
        default=[],
        help=SCORE_JSON_HELP,
    )
    add("--repeats", type=int, default=1, help="pairs per program; each side keeps its fastest")
    add("--workers", type=int, default=1)
    add("--timeout", type=float, default=None, help="seconds per run (default: the scorer's)")
    add("--harness", type=Path, default=SHARED_CORPUS, help="folder of score.py, run_program.py")
    add("--json", type=Path, default=None)
    add("--md", type=Path, default=None)
    args = parser.parse_args(argv)

    src, migrated = args.src.resolve(), args.migrated.resolve()
    scorer = load_scorer(args.harness, src)
    caps = {row["id"]: scorer.cap_of(row) for row in scorer.read_manifest()}
    if args.ids:
        ids = [pid for pid in args.ids.split(",") if pid]
    elif args.score_json:
        ids = selected_ids([json.loads(path.read_text()) for path in args.score_json])
    else:
        present = [pid for pid in caps if (migrated / f"{pid}.py").exists()]
        ids = [pid for pid in present if scorer.clean_check(str(migrated / f"{pid}.py"))["clean"]]
    timeout = args.timeout or scorer.TIMEOUT
    baseline = args.baseline.resolve() if args.baseline else None

    def paths_of(pid: str) -> dict[str, Path]:
        paths = {"v1": src / f"{pid}.py", "v2": migrated / f"{pid}.py"}
        return paths if baseline is None else dict(paths, base=baseline / f"{pid}.py")

    timings: dict[str, Timing] = {}
    with concurrent.futures.ThreadPoolExecutor(max(1, args.workers)) as pool:
        futures = {
            pool.submit(
                time_program,
                scorer,
                paths_of(pid),
                pid,
                caps.get(pid),
                index,
                args.repeats,
                timeout,
            ): pid
            for index, pid in enumerate(ids)
        }
        for future in concurrent.futures.as_completed(futures):
            t = future.result()
            timings[t.pid] = t
            shown = f"{t.ratio:.2f}x" if t.ratio is not None else t.error
            line = f"  {t.pid}: v1 {_seconds(t.v1)} s, v2 {_seconds(t.v2)} s, {shown}"
            if t.baseline is not None and t.baseline.ratio is not None:
                line += f" (baseline {_seconds(t.baseline.v2)} s, {t.baseline.ratio:.2f}x)"
            print(line, file=sys.stderr, flush=True)
    ordered = [timings[pid] for pid in ids]
    totals = summary(ordered)
    print(render(ordered, totals), end="")
    base_totals = None
    if baseline is not None:
        base_totals = summary([t.baseline for t in ordered if t.baseline is not None])
        print(f"baseline {baseline}: {summary_line(base_totals)}")
    if args.md:
        args.md.write_text(render(ordered, totals, markdown=True))
    if args.json:
        payload = {
            "src": str(src),
            "migrated": str(migrated),
            "repeats": args.repeats,
            "det_random": f"{scorer.DET_MODE}(seed={scorer.DET_SEED})",
            "summary": totals,
            "baseline": str(baseline) if baseline else None,
            "baseline_summary": base_totals,
            "programs": [dict(asdict(t), ratio=t.ratio) for t in ordered],
        }
        args.json.write_text(json.dumps(payload, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
