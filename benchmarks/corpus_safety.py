"""Safety of `apply` on a large real codebase: parse failures, second-run changes, lint it
introduces, and TF names it writes that TensorFlow lacks. Targets: all zero.

    python benchmarks/corpus_safety.py --git-dir DIR --commit SHA [--out /tmp/zoo] [--every 1]

The codebase is the TF1-era model zoo of ``../shared/corpus/throughput.md`` (fetch it with the
search library's ``fetch``; its files are written under ``--out``, never into this repository).
In one run:

1. every ``.py`` file of ``SHA`` is written to ``OUT/original`` (``--every N``: every Nth path);
2. ``tfmodernize check --format json --unsafe-fixes`` says which codemods change each file;
3. ``tfmodernize apply --unsafe-fixes`` on a copy (``OUT/once``), then again on a copy of that
   (``OUT/twice``): files the second run changes are not idempotent;
4. each changed file is compiled (parse failures) and checked with pyflakes before and after:
   undefined names, redefinitions and unused imports the rewrite *introduced* (after minus
   before, by kind and name) are counted by the codemods that changed the file;
5. TF names a codemod wrote (attribute chains spelled in the output but not in the original)
   are looked up on the installed TensorFlow (``tfmodernize.verify.names``);
6. with ``--imports``, the import half: ``codebase_imports.py`` runs every file of
   ``OUT/original`` that imports TensorFlow, and the same file of ``OUT/once``, as a module on
   TF 2.21 (files that imported before and fail after: target zero). Alone, on the whole tree and
   with ``tf_upgrade_v2`` beside it, run ``codebase_imports.py --git-dir DIR --commit SHA``.

Needs pyflakes (the ``dev`` extra) and, for steps 5 and 6, TensorFlow (the ``verify`` extra).
"""

from __future__ import annotations

import argparse
import collections
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import libcst as cst

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tfmodernize.tfsymbols import tf_name_spellings  # noqa: E402

LINT = {
    "UndefinedName": "undefined name",
    "RedefinedWhileUnused": "redefinition",
    "UnusedImport": "unused import",
    "ImportShadowedByLoopVar": "redefinition",
}


def materialize(git_dir: Path, commit: str, out: Path, every: int) -> list[Path]:
    listing = subprocess.run(
        ["git", "--git-dir", str(git_dir), "ls-tree", "-r", "-z", commit], capture_output=True, check=True
    ).stdout.split(b"\0")
    entries = sorted(
        (line.split(b"\t", 1)[1].decode(errors="surrogateescape"), line.split()[2].decode())
        for line in listing
        if line.endswith(b".py") and b" blob " in line
    )
    entries = entries[::every]
    batch = subprocess.run(
        ["git", "--git-dir", str(git_dir), "cat-file", "--batch"],
        input=b"".join(f"{blob}\n".encode() for _, blob in entries),
        capture_output=True,
        check=True,
    ).stdout
    written, position = [], 0
    for path, _ in entries:
        header_end = batch.index(b"\n", position)
        size = int(batch[position:header_end].split()[2])
        data = batch[header_end + 1 : header_end + 1 + size]
        position = header_end + 1 + size + 1
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        written.append(Path(path))
    return written


def tfmodernize(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tfmodernize", *args], capture_output=True, text=True, cwd=ROOT, timeout=3600
    )


def bound_name(kind: str, name: str) -> str:
    """The name an unused import binds, so one import rewritten to another module counts once:
    ``tensorflow.contrib.slim as slim`` and ``tf_slim as slim`` both bind ``slim``."""
    if kind != LINT["UnusedImport"]:
        return name
    return name.rpartition(" as ")[2].rpartition(".")[2]


def lint(source: str, filename: str) -> collections.Counter:
    from pyflakes import api, reporter

    class Collect(reporter.Reporter):
        def __init__(self) -> None:
            self.found = collections.Counter()

        def flake(self, message) -> None:
            kind = LINT.get(type(message).__name__)
            if kind is not None:
                self.found[(kind, bound_name(kind, str(message.message_args[0])))] += 1

        def syntaxError(self, *args) -> None:  # noqa: N802 - pyflakes' name
            self.found[("syntax error", "")] += 1

        def unexpectedError(self, *args) -> None:  # noqa: N802
            pass

    collect = Collect()
    api.check(source, filename, collect)
    return collect.found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--git-dir", type=Path, required=True)
    parser.add_argument("--commit", default="HEAD")
    parser.add_argument("--out", type=Path, default=Path("/tmp/tfm_safety"))
    parser.add_argument("--every", type=int, default=1, help="take every Nth .py file in sorted order")
    parser.add_argument("--jobs", default="2")
    parser.add_argument("--imports", action="store_true", help="also run each file before and after, as a module")
    args = parser.parse_args(argv)

    if args.out.exists():
        shutil.rmtree(args.out)
    original, once, twice = args.out / "original", args.out / "once", args.out / "twice"
    files = materialize(args.git_dir, args.commit, original, args.every)
    print(f"{len(files)} files of {args.commit[:12]}")

    started = time.perf_counter()
    report = json.loads(
        tfmodernize(
            "check", "--format", "json", "--unsafe-fixes", "--no-cache", "--jobs", args.jobs, str(original)
        ).stdout
        or '{"diagnostics": []}'
    )["diagnostics"]
    changed_by: dict[Path, set[str]] = collections.defaultdict(set)
    errors = collections.Counter()
    for item in report:
        relative = Path(item["path"]).relative_to(original)
        if item["kind"] == "fix":
            changed_by[relative].add(item["code"])
        elif item["kind"] == "error" and item["message"].startswith("internal error"):
            errors[item["message"].split(" [", 1)[0][:120]] += 1
    shutil.copytree(original, once)
    tfmodernize("apply", "--unsafe-fixes", "--no-cache", "--jobs", args.jobs, str(once))
    shutil.copytree(once, twice)
    tfmodernize("apply", "--unsafe-fixes", "--no-cache", "--jobs", args.jobs, str(twice))
    seconds = time.perf_counter() - started

    table: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    examples: dict[str, list[str]] = collections.defaultdict(list)
    emitted: dict[str, set[str]] = collections.defaultdict(set)
    changed = [f for f in files if (once / f).read_bytes() != (original / f).read_bytes()]
    for relative in changed:
        codes = ",".join(sorted(changed_by.get(relative, ()))) or "?"
        before, after = (original / relative).read_text(errors="replace"), (once / relative).read_text(errors="replace")
        try:
            compile(after, str(relative), "exec")
        except SyntaxError:
            table["parse failure"][codes] += 1
            continue
        if (twice / relative).read_bytes() != (once / relative).read_bytes():
            table["second-run change"][codes] += 1
            examples["second-run change"].append(str(relative))
        introduced = lint(after, str(relative)) - lint(before, str(relative))
        for (kind, name), count in introduced.items():
            table[f"introduced {kind}"][codes] += count
            examples[f"introduced {kind}"].append(f"{relative}: {name}")
        try:
            # Names as written: a chain the original had too (``tf.Supervisor``, now read through
            # tf.compat.v1) was not written by a codemod.
            old_spellings = tf_name_spellings(cst.parse_module(before))
            new_spellings = tf_name_spellings(cst.parse_module(after))
        except cst.ParserSyntaxError:
            continue
        for spelled, name in new_spellings.items():
            if spelled not in old_spellings:
                emitted[name].add(codes)
    if emitted:
        from tfmodernize.verify.names import missing_tf_names

        for name in missing_tf_names(emitted):
            for codes in emitted[name]:
                table["TF name missing in TF 2.21"][codes] += 1
                examples["TF name missing in TF 2.21"].append(name)

    print(f"{len(changed)} files changed; apply twice + check took {seconds:.0f} s")
    metrics = [
        "parse failure",
        "second-run change",
        "introduced undefined name",
        "introduced redefinition",
        "introduced unused import",
        "TF name missing in TF 2.21",
    ]
    print(f"\n| {'what':28} | {'count':>5} | by codemods (changing the file) |")
    print(f"|{'-' * 30}|{'-' * 7}|{'-' * 33}|")
    for metric in metrics:
        counts = table.get(metric, collections.Counter())
        by = ", ".join(f"{codes} {n}" for codes, n in counts.most_common(6)) or "-"
        print(f"| {metric:28} | {sum(counts.values()):5} | {by} |")
    for metric in metrics:
        if examples.get(metric):
            print(f"\n{metric}, first examples: " + "; ".join(examples[metric][:8]))
    for message, count in errors.most_common(10):
        print(f"internal error x{count}: {message}")
    if args.imports:
        print(flush=True)
        subprocess.run(
            [
                sys.executable,
                str(ROOT / "benchmarks" / "codebase_imports.py"),
                str(original),
                "--applied",
                str(once),
                "--jobs",
                args.jobs,
                "--json",
                str(args.out / "imports.json"),
            ]
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
