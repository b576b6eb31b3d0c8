"""Migration quality on real TF1 programs: the corpus score, what was declined, and run time.

    python benchmarks/real_programs.py --corpus /tmp/corpus [--out /tmp/conv] [--ids D01,D07]

The corpus is ``../shared/corpus/`` (programs written by people outside the project, never
copied into this repository): materialize it first (its README says how), and run the score
script's ``--determinism`` pass once so that the TF1 side is cached. Then this script

1. copies the programs (and their ``.aux`` data folders) to ``--out``;
2. runs ``tfmodernize check --format json`` on the copy (the findings: what each program
   declined, grouped by reason) and ``tfmodernize apply`` on it, one program at a time as its
   own project: the program and its ``.aux`` folder, which is on the program's import path when
   the corpus runs it, given as ``--src`` (the helper modules a program imports live there);
3. runs the corpus's ``score.py`` on the result (clean / runs / numeric per program);
4. prints a per-program table, the declines grouped by reason (reason -> programs; a note on
   each reason no rewrite can lift, consequences of another decline set apart), the time of each
   migrated program against its original under TF1 (``exec_seconds`` of both runs, the median
   ratio over the programs that run on both sides; ``--timing`` times both sides again, one
   program at a time in this run, for a ratio measured under the same load), and the score line last;
5. with ``--unsafe-fixes``, migrates with the unsafe fixes too (a random op drawn by runs of
   different fetches: the same distribution, other numbers), for the score with them;
6. with ``--aligned``, compares again each program that is clean and runs but prints other
   numbers, with ``tfmodernize verify --stdout --align-variables``: a migration to Keras layers
   starts from Keras's initial values, not TF1's, so the plain comparison cannot match; aligned,
   the migrated program starts from the original's initial values (loop caps of the manifest
   applied to both, and the corpus's stubs read, as the corpus runs them).

Needs TensorFlow (the ``verify`` extra) for step 3; steps 1-2 never import it.
"""

from __future__ import annotations

import argparse
import ast
import collections
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED_CORPUS = ROOT.parent / "shared" / "corpus"
RESULTS = Path("/tmp/corpus_results")


def copy_corpus(corpus: Path, out: Path, ids: set[str]) -> list[str]:
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    copied = []
    for program in sorted(corpus.glob("*.py")):
        if ids and program.stem not in ids:
            continue
        shutil.copy2(program, out / program.name)
        aux = corpus / f"{program.stem}.aux"
        if aux.is_dir():
            shutil.copytree(aux, out / aux.name)
        copied.append(program.stem)
    return copied


def tfmodernize(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """The CLI, run from ``cwd`` (where a program ``verify`` runs writes its relative paths)."""
    return subprocess.run(
        [sys.executable, "-m", "tfmodernize", *args], capture_output=True, text=True, cwd=cwd, timeout=1800
    )


#: Declines no rewrite can lift, and why: (words of the reason, the note the table prints).
CANNOT_MIGRATE = (
    (
        "random op is drawn by runs of different fetches",
        "TF1 draws one random op's values from one kernel whatever fetch runs it; each TF2 function "
        "owns its ops' random state, so no TF2 code draws the same numbers (--unsafe-fixes: the same "
        "distribution, other numbers)",
    ),
    (
        "is not part of any TF 2.x install",
        "the tutorials' MNIST reader is gone from TF 2.x and downloads data: the finding says how to "
        "load it with tf.keras.datasets by hand (the corpus stubs the reader, so the rest is scored)",
    ),
    (
        "random ops run in more than one session",
        "each TF1 session restarts its random ops' state; a TF2 program has one state per op",
    ),
)
#: Words of findings that only follow from another decline in the same file (the file stays a
#: TF1 graph program, or on tf.compat.v1): listed apart, as their cause is listed already. A
#: module kept on tf.compat.v1 (for the TF1 name its own finding lists) with no entry point is
#: told that its importer must switch v2 behaviour off: the program importing it in the run is
#: kept on TF1 with it and does.
FOLLOWS_FROM = (
    "migrates it first",
    "moves graph code into functions first",
    "not applied: its rewrite is TF2 code",
    "builds a TF1 graph but has no entry point",
)


def decline_table(findings: dict[str, list[dict]]) -> list[tuple[str, str, list[str], str]]:
    """The findings grouped by reason: (code, reason, programs, note), most programs first. The
    note says why the reason cannot be migrated, ``follows`` for a consequence of another decline,
    and is empty for what is still to do."""
    programs = collections.defaultdict(set)
    for pid, items in findings.items():
        for item in items:
            if item.get("kind") == "finding":
                programs[(item["code"], reason_of(item["message"]))].add(pid)
    table = []
    for (code, reason), ids in programs.items():
        note = next((why for words, why in CANNOT_MIGRATE if words in reason), "")
        if not note and any(words in reason for words in FOLLOWS_FROM):
            note = "follows"
        table.append((code, reason, sorted(ids), note))
    return sorted(table, key=lambda row: (-len(row[2]), row[0], row[1]))


def reason_of(message: str) -> str:
    """A finding's message with its specifics (names, numbers, quoted code) blanked, to group by."""
    reason = re.sub(r"`[^`]*`", "`…`", message)
    reason = re.sub(r"\b(line|lines) \d+(-\d+)?", r"\1 N", reason)
    reason = re.sub(r"'[^']*'", "'…'", reason)
    reason = re.sub(r"\([^()]*\)", "(…)", reason)  # the names a reason lists: `(compute_a, train_step)`
    return reason.split(". ")[0][:160]


def project(out: Path, pid: str) -> list[str]:
    """The paths and options that make program ``pid`` one project: its ``.aux`` folder is an
    import root (``--src``), as it is on the path when the corpus runs the program."""
    aux = out / f"{pid}.aux"
    return [str(out / f"{pid}.py"), *((str(aux), "--src", str(aux)) if aux.is_dir() else ())]


def declines(out: Path, programs: list[str], options: list[str]) -> tuple[dict[str, list[dict]], list[str]]:
    """Findings per program (from ``check --format json``), and errors reported per file."""
    findings: dict[str, list[dict]] = collections.defaultdict(list)
    errors = []
    for pid in programs:
        ran = tfmodernize("check", "--format", "json", "--no-cache", *options, *project(out, pid))
        for item in json.loads(ran.stdout or '{"diagnostics": []}')["diagnostics"]:
            if Path(item["path"]).stem == pid:
                findings[pid].append(item)
        errors += [line for line in ran.stderr.splitlines() if ": " in line and "error" in line.lower()]
    return findings, errors


def score(corpus: Path, out: Path, ids: list[str], workers: int) -> dict:
    report = out.parent / f"score_{out.name}.json"
    command = [
        sys.executable,
        str(SHARED_CORPUS / "score.py"),
        "--src",
        str(corpus),
        "--converted",
        str(out),
        "--workers",
        str(workers),
        "--json",
        str(report),
        "--md",
        str(report.with_suffix(".md")),
    ]
    if ids:
        command += ["--ids", ",".join(ids)]
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    ran = subprocess.run(command, capture_output=True, text=True, env=env, timeout=3600)
    if ran.returncode != 0 or not report.exists():
        raise SystemExit(f"score.py failed:\n{ran.stdout[-3000:]}\n{ran.stderr[-3000:]}")
    result = json.loads(report.read_text())
    result["score_line"] = ran.stdout.strip().splitlines()[-1]
    return result


def v1_times() -> dict[str, float]:
    cache = RESULTS / "v1_numbers.json"
    if not cache.exists():
        return {}
    return {key: entry.get("exec_seconds") for key, entry in json.loads(cache.read_text()).items()}


def timed_together(corpus: Path, out: Path, ids: set[str]) -> dict[str, float]:
    """Each program's migrated/original run-time ratio, both measured in this run, one program
    at a time (``run_program.py --batch``: originals under TF1, then the migrated copies under TF2)."""
    seconds: dict[str, dict[str, float]] = {}
    for mode, folder in (("v1", corpus), ("v2", out)):
        report = Path(tempfile.mkdtemp(prefix="tfm_timing_")) / f"{mode}.json"
        command = [
            sys.executable,
            str(SHARED_CORPUS / "run_program.py"),
            "--batch",
            str(folder),
            "--mode",
            mode,
            "--manifest",
            str(SHARED_CORPUS / "manifest.tsv"),
            "--out",
            str(report),
        ]
        if ids:
            command += ["--ids", ",".join(sorted(ids))]
        subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=3600)
        for entry in json.loads(report.read_text()) if report.exists() else []:
            if entry.get("status") == "ok" and entry.get("exec_seconds") is not None:
                seconds.setdefault(entry["id"], {})[mode] = entry["exec_seconds"]
    return {pid: both["v2"] / both["v1"] for pid, both in seconds.items() if both.get("v1") and "v2" in both}


def caps() -> dict[str, int]:
    """The manifest's loop cap per program (slow programs' ``range(100000)`` made shorter)."""
    lines = (SHARED_CORPUS / "manifest.tsv").read_text().splitlines()
    header = lines[0].split("\t")
    found = {}
    for line in lines[1:]:
        row = dict(zip(header, line.split("\t")))
        if row.get("v1_cap", "").isdigit():
            found[row["id"]] = int(row["v1_cap"])
    return found


def capped(source: str, cap: int | None) -> str:
    """The program with the corpus's loop cap applied (``run_program.py``'s own transformer)."""
    if not cap:
        return source
    sys.path.insert(0, str(SHARED_CORPUS))
    try:
        from run_program import _Capper  # the corpus's own cap, so both sides run as it runs them
    finally:
        sys.path.remove(str(SHARED_CORPUS))
    import ast

    tree = _Capper(cap).visit(ast.parse(source))
    return ast.unparse(ast.fix_missing_locations(tree))


def with_stubs(source: str) -> str:
    """The program reading the corpus's stubs (MNIST as seeded arrays, a no-op matplotlib), as
    the corpus runs it: ``verify`` runs programs as they are, and no dataset can be downloaded.
    The lines go after the ``__future__`` imports, which must come first."""
    lines = source.splitlines(keepends=True)
    after = max(
        (
            node.end_lineno
            for node in ast.parse(source).body
            if isinstance(node, ast.ImportFrom) and node.module == "__future__"
        ),
        default=0,
    )
    stubs = (
        f"import sys as _corpus_sys; _corpus_sys.path.insert(0, {str(SHARED_CORPUS)!r})\n"
        "import corpus_stubs as _corpus_stubs\n"
        "_corpus_stubs.install_mnist_stub(); _corpus_stubs.install_matplotlib_stub(); "
        "_corpus_stubs.install_numpy_compat()\n"
    )
    return "".join([*lines[:after], stubs, *lines[after:]])


def aligned(corpus: Path, out: Path, pid: str, cap: int | None) -> str:
    """``tfmodernize verify --stdout --align-variables`` of one program against its migration,
    each beside its own helper modules: "equal", or verify's verdict line."""
    work = Path(tempfile.mkdtemp(prefix=f"tfm_aligned_{pid}_"))
    for side, folder in (("before", corpus), ("after", out)):
        (work / side).mkdir()
        aux = folder / f"{pid}.aux"
        if aux.is_dir():
            for helper in aux.iterdir():
                if helper.is_file():
                    shutil.copy2(helper, work / side / helper.name)
        (work / side / f"{pid}.py").write_text(with_stubs(capped((folder / f"{pid}.py").read_text(), cap)))
    verdict = ""
    for rtol in ("1e-05", "1e-04", "1e-03"):  # verify's default first; then how far apart they are
        # From the work folder: what the programs write (``tmp/``, checkpoints) stays there.
        ran = tfmodernize(
            "verify",
            str(work / "before" / f"{pid}.py"),
            str(work / "after" / f"{pid}.py"),
            "--old-mode",
            "tf1",
            "--stdout",
            "--align-variables",
            "--timeout",
            "900",
            "--rtol",
            rtol,
            cwd=work,
        )
        if ran.returncode == 0:
            return "equal" if not verdict else f"{verdict}; equal within rtol {rtol}"
        if ran.returncode != 1:
            lines = [line for line in ran.stdout.splitlines() if line.startswith("could not")]
            return lines[-1] if lines else f"verify exited {ran.returncode}"
        if not verdict:
            # The table's detail column, joined: "number 12 of 30 differs: 10.2422 before, 10.242 after; ..."
            cells = [row.split("│")[3].strip() for row in ran.stdout.splitlines() if row.count("│") >= 4]
            verdict = " ".join(cell for cell in cells if cell).split("; before:")[0] or "different"
    return verdict


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=Path("/tmp/corpus"), help="materialized corpus folder")
    parser.add_argument("--out", type=Path, default=None, help="where the migrated copy goes (default: a temp dir)")
    parser.add_argument("--ids", default="", help="comma-separated program ids (default: all)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--timing",
        action="store_true",
        help="time originals and migrated programs again, one at a time in this run, for the ratio",
    )
    parser.add_argument(
        "--aligned",
        action="store_true",
        help="compare the clean, running programs whose numbers differ again with aligned initial variables",
    )
    parser.add_argument(
        "--unsafe-fixes",
        action="store_true",
        help="migrate with unsafe fixes too (rewrites computing the same distribution, not the same numbers)",
    )
    args = parser.parse_args(argv)
    if not args.corpus.is_dir() or not any(args.corpus.glob("*.py")):
        raise SystemExit(f"{args.corpus}: no materialized corpus (see {SHARED_CORPUS / 'README.md'})")
    ids = {i for i in args.ids.split(",") if i}
    out = args.out or Path(tempfile.mkdtemp(prefix="tfm_real_")) / "conv"
    programs = copy_corpus(args.corpus, out, ids)

    options = ["--unsafe-fixes"] if args.unsafe_fixes else []
    findings, errors = declines(out, programs, options)
    migrated = sum(tfmodernize("apply", "--no-cache", *options, *project(out, pid)).returncode != 2 for pid in programs)
    result = score(args.corpus, out, sorted(ids), args.workers)
    by_id = {p["id"]: p for p in result["programs"]}
    v1 = v1_times()

    print(f"{'id':4} {'clean':5} {'runs':4} {'numeric':7} {'v2/v1 time':>10}  findings  first left / error")
    ratios = []
    for pid in programs:
        p = by_id.get(pid, {})
        v2_time = (p.get("v2") or {}).get("exec_seconds")
        ratio = ""
        if p.get("runs") and v2_time is not None and v1.get(pid):
            ratios.append(v2_time / v1[pid])
            ratio = f"{v2_time / v1[pid]:.2f}"
        left = ", ".join(f"{k} x{v}" for k, v in (p.get("left") or {}).items())
        error = (p.get("v2") or {}).get("exc_type") or ""
        print(
            f"{pid:4} {str(p.get('clean', '-')):5} {str(p.get('runs', '-')):4} {str(p.get('numeric', '-')):7} "
            f"{ratio:>10}  {len(findings.get(pid, [])):8}  {left or error}"
        )

    table = decline_table(findings)
    print("\nWhat was declined (reason -> programs, most programs first; `follows`: a consequence of another")
    print("decline of the file; TO DO: more than 3 programs and no note on why it cannot be migrated):")
    for code, reason, ids, note in table[:40]:
        if note == "follows":
            continue
        flag = "TO DO" if len(ids) > 3 and not note else ""
        print(f"  {len(ids):4}  {code}  {reason}  [{', '.join(ids)}] {flag}")
        if note:
            print(f"        why: {note}")
    follows = [row for row in table if row[3] == "follows"]
    print(f"  and {len(follows)} reasons that follow from another decline of their file")
    for line in errors:
        print(f"  error: {line}")
    print(f"\napply: {migrated} of {len(programs)} programs processed without an input error")
    if ratios:
        print(
            f"\nrun time, migrated vs original under TF1 (exec seconds, {len(ratios)} programs running on both): "
            f"median ratio {statistics.median(ratios):.2f}, worst {max(ratios):.2f}"
        )
    if args.timing:
        together = timed_together(args.corpus, out, ids)
        if together:
            slow = sorted(together.items(), key=lambda item: -item[1])[:3]
            print(
                f"run time measured together, one program at a time ({len(together)} programs): median ratio "
                f"{statistics.median(together.values()):.2f}; slowest {', '.join(f'{k} {v:.2f}' for k, v in slow)}"
            )
    if args.aligned:
        limits = caps()
        redo = [
            pid
            for pid in programs
            if by_id.get(pid, {}).get("clean")
            and by_id.get(pid, {}).get("runs")
            and by_id.get(pid, {}).get("numeric") is False
        ]
        verdicts = {pid: aligned(args.corpus, out, pid, limits.get(pid)) for pid in redo}
        print(
            f"\nnumeric with aligned initial variables (tfmodernize verify --stdout --align-variables), "
            f"{len(redo)} program(s) whose plain numbers differ:"
        )
        for pid, verdict in verdicts.items():
            print(f"  {pid}  {verdict}")
        print(f"aligned numeric: {sum(v == 'equal' for v in verdicts.values())}/{len(redo)} equal")
    print(result["score_line"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
