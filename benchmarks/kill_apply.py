"""Kill `apply` at random moments over real files: every file must be original or fully
rewritten, no temporary file left beside a source, no worker process left behind.

    python benchmarks/kill_apply.py --git-dir DIR --commit SHA [--files 300] [--kills 20] [--out /tmp/kill]

The files are the first ``--files`` files that use TensorFlow of the TF1-era model zoo of
``../shared/corpus/throughput.md`` (fetch it with the search library's ``fetch``; they are
written under ``--out``, never into this repository). In one run:

1. the files are written to ``OUT/original``, and ``apply --unsafe-fixes --no-cache`` on a copy
   (``OUT/final``) gives what a complete run writes; its wall time bounds the kill moments;
2. ``--kills`` times: a fresh copy of the originals (``OUT/run``), ``apply`` on it on all cores,
   SIGKILL of its process (only the parent, as an OOM killer or a closed CI job would) at a
   random moment within the complete run's time (seeded, ``--seed``);
3. after each kill: files neither original nor final (half-written), ``*.tfm-tmp`` files left
   beside sources, and worker processes of the killed run still alive a second later;
4. then ``apply`` again on the same tree: it must finish, remove stale temporaries and leave
   every file final.

Targets: all zero. This is the benchmark behind the kill test of ``tests/test_engine.py``,
at the size of a real codebase.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(ROOT / "benchmarks"))
from corpus_safety import materialize  # noqa: E402

TEMPORARY = ".tfm-tmp"


def apply(tree: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "tfmodernize", "apply", "--unsafe-fixes", "--no-cache", str(tree)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
    )


def children(pid: int) -> list[tuple[int, str]]:
    """Live processes whose parent was ``pid`` (re-parented orphans included, found by their
    command line), with their state; zombies are dead and do not count."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        parent, state = fields.get("PPid", "").strip(), fields.get("State", "").strip()
        if state.startswith("Z"):
            continue
        if parent == str(pid) or (b"tfmodernize" in command and b"apply" in command and int(entry.name) != os.getpid()):
            found.append((int(entry.name), f"pid {entry.name} ppid {parent} {state}"))
    return found


def snapshot(tree: Path, files: list[Path]) -> dict[Path, bytes]:
    return {path: (tree / path).read_bytes() for path in files}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--git-dir", type=Path, required=True)
    parser.add_argument("--commit", required=True)
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("/tmp/kill"))
    args = parser.parse_args(argv)

    shutil.rmtree(args.out, ignore_errors=True)
    everything = args.out / "all"
    written = materialize(args.git_dir, args.commit, everything, 1)
    chosen = [p for p in written if b"tensorflow" in (everything / p).read_bytes()][: args.files]
    original_dir, final_dir, run_dir = args.out / "original", args.out / "final", args.out / "run"
    for path in chosen:
        for target in (original_dir, final_dir):
            (target / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(everything / path, target / path)
    shutil.rmtree(everything)

    started = time.perf_counter()
    apply(final_dir).wait()
    complete = time.perf_counter() - started
    original, final = snapshot(original_dir, chosen), snapshot(final_dir, chosen)
    changed = sum(original[p] != final[p] for p in chosen)
    print(f"{len(chosen)} files, {changed} changed by a complete run of {complete:.1f} s")

    rng = random.Random(args.seed)
    totals = {"half-written": 0, "temporaries": 0, "orphans": 0, "unfinished rerun": 0}
    print(f"{'kill':>4} {'at s':>6} {'rewritten':>9} {'half':>5} {'tmp':>4} {'orphans':>7} {'rerun ok':>8}")
    for kill in range(args.kills):
        shutil.rmtree(run_dir, ignore_errors=True)
        shutil.copytree(original_dir, run_dir)
        moment = rng.uniform(0.05, 1.0) * complete
        process = apply(run_dir)
        time.sleep(moment)
        process.send_signal(signal.SIGKILL)
        process.wait()
        time.sleep(1.0)
        left = children(process.pid)
        after = snapshot(run_dir, chosen)
        half = [p for p in chosen if after[p] not in (original[p], final[p])]
        rewritten = sum(after[p] == final[p] and final[p] != original[p] for p in chosen)
        temporaries = [p for p in run_dir.rglob(f"*{TEMPORARY}*")]
        for pid, state in left:
            print(f"     left behind: {state}")
            with_suppressed(lambda: os.kill(pid, signal.SIGKILL))
        apply(run_dir).wait()
        rerun = snapshot(run_dir, chosen)
        unfinished = [p for p in chosen if rerun[p] != final[p]] + list(run_dir.rglob(f"*{TEMPORARY}*"))
        totals["half-written"] += len(half)
        totals["temporaries"] += len(temporaries)
        totals["orphans"] += len(left)
        totals["unfinished rerun"] += len(unfinished)
        print(
            f"{kill + 1:>4} {moment:>6.1f} {rewritten:>9} {len(half):>5} {len(temporaries):>4} {len(left):>7} "
            f"{'yes' if not unfinished else len(unfinished):>8}"
        )
        for path in half[:3]:
            print(f"     half-written: {path}")
    print("totals: " + ", ".join(f"{name} {count}" for name, count in totals.items()) + "  (targets: all 0)")
    return 0 if not any(totals.values()) else 1


def with_suppressed(action) -> None:
    try:
        action()
    except OSError:
        pass


if __name__ == "__main__":
    raise SystemExit(main())
