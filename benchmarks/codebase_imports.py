"""Does a codebase still import after `apply`? Every file that imports TensorFlow is executed as a
module on plain TF 2.21, before and after the migration: a file that imported before and fails
after is a defect of the tool.

    python benchmarks/codebase_imports.py TREE [--sample 60 | --every 4] [--peer] [--json OUT]
    python benchmarks/codebase_imports.py --git-dir DIR --commit SHA [...]

The codebase is a folder of Python files, or a commit of a fetched repository (the TF1-era model
zoo of ``../shared/corpus/throughput.md``), read with ``git ls-tree`` / ``git cat-file``
(``corpus_safety.materialize``). Only its ``.py`` files are copied, under a temporary folder
(``--work DIR`` keeps them there), never into this repository. In one run:

1. the files that import TensorFlow are listed (``--sample N``: N of them evenly spaced,
   ``--every K``: every Kth; the whole tree is still written, so sibling imports resolve);
2. ``tfmodernize apply -j 1 --no-cache`` runs on a copy (the folder, or the chosen files when a
   subset is taken: their siblings stay original), or ``--applied DIR`` names an already
   migrated copy; with ``--peer``, ``tf_upgrade_v2 --inplace`` runs on another copy (a file it
   fails to parse, which it empties, is restored);
3. each chosen file of each tree runs as a module (its top-level code, ``__name__`` not
   ``"__main__"``: a package's module is imported by its dotted name, any other file through
   ``runpy.run_path``) in a child forked from this process, which imported TensorFlow once and
   never touched ``tf.keras`` (a migrated file may still set ``TF_USE_LEGACY_KERAS`` before its
   first use). The child has the file's folder and every folder above it up to the tree root on
   ``sys.path`` (and the tree's folders named by ``--path``, as the codebase's setup puts them
   there: the zoo's ``research/slim``), a scratch folder as working directory, stdin and output
   on ``/dev/null``, and ``--timeout`` seconds (20); ``--protobuf-python`` runs them on protobuf's pure-Python
   runtime, as a team does whose committed ``_pb2`` files predate protoc 3.19 (the zoo's do:
   protobuf 4 and later refuse to load them, a failure neither the TF1 code nor the tool causes);
4. each failure is classified from its exception: ``tf`` (a TensorFlow / Keras name missing,
   ``tf.contrib``, ``tensorflow.examples``, graph-only code under eager execution, an error
   raised inside TensorFlow that is not an I/O error), ``third-party`` (a module that is neither
   installed, nor a module of the tree, nor Python 2's), ``timeout``, ``syntax`` (Python 2 files)
   or ``other``;
5. the report: how many files import in each tree, the share of files failing for a TF reason
   that import after the migration, and the files that imported before and fail after (the
   defects), with the first line of their error.

Needs TensorFlow (the ``verify`` extra); Linux or macOS (``os.fork``).
"""

from __future__ import annotations

import argparse
import collections
import importlib
import importlib.util
import json
import os
import re
import runpy
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent

IMPORTS_TENSORFLOW = re.compile(r"^[ \t]*(?:import|from)[ \t]+tensorflow\b", re.MULTILINE)
TF_PACKAGES = {"tensorflow", "keras", "tf_keras"}
PYTHON2_MODULES = {
    "cPickle",
    "cStringIO",
    "StringIO",
    "urllib2",
    "urlparse",
    "Queue",
    "ConfigParser",
    "httplib",
    "HTMLParser",
    "__builtin__",
    "commands",
    "Tkinter",
    "cookielib",
    "SocketServer",
    "thread",
}
TF_MESSAGE = re.compile(
    r"tf\.contrib|tensorflow\.contrib|tensorflow\.examples|eager execution|eager mode|placeholder"
    r"|module '(?:tensorflow|keras|tf_keras)\b|from '(?:tensorflow|keras|tf_keras)\b|tf\.compat\.v1"
)
CATEGORIES = ("ok", "tf", "third-party", "timeout", "syntax", "other")
VARIANTS = {"original": "original", "apply": "after apply", "peer": "after tf_upgrade_v2"}


def tf_files(root: Path) -> list[str]:
    """The ``.py`` files under ``root`` that import TensorFlow, relative, in sorted order."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if IMPORTS_TENSORFLOW.search(path.read_text(encoding="utf-8", errors="replace")):
            found.append(path.relative_to(root).as_posix())
    return found


def tree_modules(root: Path) -> set[str]:
    """Every folder and module name of the tree: a missing one is a path problem, not a package."""
    names = set()
    for path in root.rglob("*.py"):
        names.update(path.relative_to(root).with_suffix("").parts)
    return names


def subset(files: list[str], sample: int | None, every: int | None) -> list[str]:
    if sample:
        return files[:: max(1, len(files) // sample)][:sample]
    return files[:: every or 1]


def search_path(root: Path, relative: str) -> tuple[list[str], str | None]:
    """The import path of a file and, for a module of a package, its dotted name from the package's
    root. The path is the file's folder and every folder above it up to the tree root: a model zoo
    is run with some of them on PYTHONPATH (``research/`` and ``research/slim/`` for this one)."""
    folder = (root / relative).parent
    paths = [str(folder), *(str(p) for p in folder.parents if p == root or root in p.parents)]
    top = folder
    while top != root and (top / "__init__.py").exists():
        top = top.parent
    parts = (root / relative).relative_to(top).with_suffix("").parts
    dotted = ".".join(parts) if len(parts) > 1 and all(p.isidentifier() for p in parts) else None
    return paths, dotted


def classify(record: dict, modules: set[str]) -> str:
    """The category of one run (``CATEGORIES``) from what its child reported."""
    if record["status"] in ("ok", "timeout"):
        return record["status"]
    if record["status"] != "error":
        return "other"  # the child died without a report
    kind, name = record["type"], record.get("name") or ""
    top = name.split(".")[0]
    if kind in ("SyntaxError", "IndentationError", "TabError"):
        return "syntax"
    if kind == "ModuleNotFoundError" and top:
        if top in TF_PACKAGES:
            return "tf"
        if top in modules or top in PYTHON2_MODULES or not record.get("package_missing"):
            return "other"  # a module of the tree not on the path, Python 2's, or a submodule a package lacks
        return "third-party"
    if TF_MESSAGE.search(record["message"]) or (kind == "ImportError" and top in TF_PACKAGES):
        return "tf"
    if record.get("in_tf") and not record.get("io"):
        return "tf"
    return "other"


def error_line(record: dict) -> str:
    if record["status"] == "ok":
        return ""
    if record["status"] == "error":
        return f"{record['type']}: {record['message']}".rstrip(": ")
    return record.get("message", record["status"])


class Runner:
    """Runs files as modules in children forked from this process, ``jobs`` at a time."""

    def __init__(self, scratch: Path, jobs: int, timeout: float, extra_paths: tuple[str, ...] = ()) -> None:
        self.scratch, self.jobs, self.timeout = scratch, jobs, timeout
        self.extra_paths = extra_paths
        os.environ.pop("TF_USE_LEGACY_KERAS", None)  # plain TF2: no switch unless a file sets it
        os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
        for name in ("numpy", "tensorflow"):  # imported once, here, for every child
            importlib.import_module(name)

        self.tf_dirs = tuple(
            location + os.sep
            for name in sorted(TF_PACKAGES)
            if (spec := importlib.util.find_spec(name)) is not None
            for location in spec.submodule_search_locations or ()
        )
        here = {str(HERE), str(ROOT), ""}
        self.base_path = [p for p in sys.path if p not in here]

    def run(self, root: Path, files: list[str]) -> dict[str, dict]:
        records: dict[str, dict] = {}
        pending = list(reversed(files))
        running: dict[int, tuple[str, float, int, Path]] = {}
        while pending or running:
            while pending and len(running) < self.jobs:
                relative = pending.pop()
                scratch = Path(tempfile.mkdtemp(dir=self.scratch))
                read, write = os.pipe()
                sys.stdout.flush()
                sys.stderr.flush()
                pid = os.fork()
                if pid == 0:
                    os.close(read)
                    self._child(root, relative, scratch, write)
                os.close(write)
                try:
                    os.setpgid(pid, pid)
                except OSError:
                    pass  # the child already did, or already exited
                running[pid] = (relative, time.perf_counter(), read, scratch)
            time.sleep(0.005)
            for pid, (relative, started, read, scratch) in list(running.items()):
                done, status = os.waitpid(pid, os.WNOHANG)
                elapsed = time.perf_counter() - started
                if not done and elapsed < self.timeout:
                    continue
                if not done:
                    os.killpg(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    record = {"status": "timeout", "message": f"timeout after {self.timeout:.0f} s"}
                else:
                    record = self._read(read, status)
                try:
                    os.killpg(pid, signal.SIGKILL)  # what the module left running
                except (ProcessLookupError, PermissionError):
                    pass
                os.close(read)
                shutil.rmtree(scratch, ignore_errors=True)
                record["seconds"] = round(elapsed, 2)
                records[relative] = record
                del running[pid]
        return records

    @staticmethod
    def _read(read: int, status: int) -> dict:
        os.set_blocking(read, False)
        chunks = []
        while True:
            try:
                chunk = os.read(read, 1 << 16)
            except BlockingIOError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        try:
            return json.loads(b"".join(chunks))
        except ValueError:
            return {"status": "crashed", "message": f"child ended with status {os.waitstatus_to_exitcode(status)}"}

    def _child(self, root: Path, relative: str, scratch: Path, write: int) -> None:
        code = 0
        try:
            os.setpgid(0, 0)
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            os.chdir(scratch)
            paths, dotted = search_path(root, relative)
            sys.path[:] = paths + [str(root / extra) for extra in self.extra_paths] + self.base_path
            sys.argv = [str(root / relative)]
            sys.dont_write_bytecode = True
            record = {"status": "ok"}
            try:
                if dotted and dotted.split(".")[0] not in sys.modules:
                    importlib.import_module(dotted)
                else:
                    runpy.run_path(str(root / relative), run_name="not_main")
            except BaseException as error:  # noqa: BLE001 - SystemExit and KeyboardInterrupt are outcomes too
                record = self._describe(error, root)
            os.write(write, json.dumps(record).encode())
        except BaseException:  # noqa: BLE001 - never return into the parent's loop
            code = 1
        finally:
            os._exit(code)

    def _describe(self, error: BaseException, root: Path) -> dict:
        frames = traceback.extract_tb(error.__traceback__)
        located = [(f.filename, f.lineno) for f in frames]
        if isinstance(error, SyntaxError) and error.filename:
            located.append((error.filename, error.lineno))
        prefix = str(root) + os.sep
        inside = [f"{name[len(prefix) :]}:{line}" for name, line in located if name.startswith(prefix)]
        where = inside[-1] if inside else ""
        name = error.name if isinstance(error, ImportError) else None
        package_missing = None
        if isinstance(error, ModuleNotFoundError) and name:
            # Not installed: the top-level package is absent, or the module belongs in a namespace
            # package (``google.cloud``) that other distributions fill.
            parent = sys.modules.get(name.rpartition(".")[0])
            try:
                package_missing = importlib.util.find_spec(name.split(".")[0]) is None or (
                    parent is not None and getattr(parent, "__file__", None) is None
                )
            except (ImportError, ValueError):
                package_missing = True
        lines = str(error).strip().splitlines()
        return {
            "status": "error",
            "type": type(error).__name__,
            "message": lines[0][:300] if lines else "",
            "name": name,
            "package_missing": package_missing,
            "where": where,
            "in_tf": bool(frames) and frames[-1].filename.startswith(self.tf_dirs),
            "io": isinstance(error, (OSError, EOFError)) or type(error).__module__.endswith("errors_impl"),
        }


def copy_tree(source: Path, target: Path) -> None:
    shutil.copytree(
        source,
        target,
        ignore=lambda folder, names: [
            n
            for n in names
            if n in {".git", "__pycache__"} or (not n.endswith(".py") and not (Path(folder) / n).is_dir())
        ],
    )


def apply_copy(tool: list[str], tree: Path, files: list[str] | None, unsafe: bool, work: Path) -> str:
    targets = [str(tree / f) for f in files] if files is not None else [str(tree)]
    command = [*tool, "apply", *targets, "-j", "1", "--no-cache", *(["--unsafe-fixes"] if unsafe else [])]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=work)
    note = f"`tfmodernize apply` exit {done.returncode} in {time.perf_counter() - started:.0f} s"
    if done.returncode not in (0, 1, 2):
        note += ": " + done.stderr.strip()[-300:]
    return note


def peer_copy(tool: Path, tree: Path, files: list[str], work: Path) -> str:
    """``tf_upgrade_v2 --inplace`` on a staging tree of ``files``, copied back into ``tree``."""
    stage = work / "peer_stage"
    for relative in files:
        (stage / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(tree / relative, stage / relative)
    started = time.perf_counter()
    command = [str(tool), "--intree", str(stage), "--inplace", "--reportfile", str(work / "peer_report.txt")]
    done = subprocess.run(command, capture_output=True, text=True, cwd=work, env={**os.environ, "PYTHONUTF8": "1"})
    refused = 0
    for relative in files:
        written = (stage / relative).read_bytes()
        if written.strip() or not (tree / relative).read_bytes().strip():
            (tree / relative).write_bytes(written)
        else:
            refused += 1  # it could not parse the file and wrote nothing: the file stays as it was
    note = f"`tf_upgrade_v2` exit {done.returncode} in {time.perf_counter() - started:.0f} s, refused {refused} files"
    if done.returncode != 0:
        note += ": " + done.stderr.strip()[-300:]
    return note


def summarize(records: dict[str, dict[str, dict]], modules: set[str]) -> dict:
    """Counts per tree and category, the TF-failure import rate and the regressions."""
    variants = [v for v in VARIANTS if any(v in r for r in records.values())]
    for by_variant in records.values():
        for record in by_variant.values():
            record["category"] = classify(record, modules)
            record["error"] = error_line(record)
    counts = {v: collections.Counter(r[v]["category"] for r in records.values()) for v in variants}
    tf_failing = [f for f, r in records.items() if r["original"]["category"] == "tf"]
    summary = {
        "files": len(records),
        "counts": {v: {c: counts[v][c] for c in CATEGORIES} for v in variants},
        "tf_failing": len(tf_failing),
        "tf_failing_import": {v: sum(records[f][v]["category"] == "ok" for f in tf_failing) for v in variants[1:]},
        "regressions": {},
        "remaining_tf": {},
    }
    for variant in variants[1:]:
        summary["regressions"][variant] = [
            {"file": f, **{key: r[variant].get(key, "") for key in ("category", "error", "where")}}
            for f, r in sorted(records.items())
            if r["original"]["category"] == "ok" and r[variant]["category"] != "ok"
        ]
        remaining = collections.Counter(r[variant]["error"] for r in records.values() if r[variant]["category"] == "tf")
        summary["remaining_tf"][variant] = remaining.most_common(12)
    return summary


def markdown(summary: dict, notes: list[str]) -> str:
    variants = list(summary["counts"])
    lines = [f"{summary['files']} files import TensorFlow; " + "; ".join(notes), ""]
    lines.append("| tree | files | import | " + " | ".join(c for c in CATEGORIES[1:]) + " |")
    lines.append("|---|---:|---:|" + "---:|" * (len(CATEGORIES) - 1))
    for variant in variants:
        row = summary["counts"][variant]
        cells = [VARIANTS[variant], str(summary["files"]), *(str(row[c]) for c in CATEGORIES)]
        lines.append("| " + " | ".join(cells) + " |")
    failing = summary["tf_failing"]
    if failing:
        imported = summary["tf_failing_import"].items()
        rates = ", ".join(f"{n} {VARIANTS[v]} ({100 * n / failing:.1f} %)" for v, n in imported)
        lines += ["", f"Of the {failing} files whose original fails for a TF reason, import: {rates}."]
    for variant, regressions in summary["regressions"].items():
        lines += ["", f"### Imported before, fail {VARIANTS[variant]}: {len(regressions)}"]
        if regressions:
            lines += ["", "| file | category | error | where |", "|---|---|---|---|"]
            for r in regressions:
                lines.append(f"| {r['file']} | {r['category']} | {r['error'].replace('|', '/')} | {r['where']} |")
    for variant, remaining in summary["remaining_tf"].items():
        if remaining:
            lines += ["", f"### Still failing for a TF reason {VARIANTS[variant]}, most common errors", ""]
            lines += [f"- {n} x `{error}`" for error, n in remaining]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", nargs="?", type=Path, help="a folder of Python files")
    parser.add_argument("--git-dir", type=Path, help="a fetched repository, instead of a folder")
    parser.add_argument("--commit", default="HEAD")
    choose = parser.add_mutually_exclusive_group()
    choose.add_argument("--sample", type=int, help="N files that import TensorFlow, evenly spaced")
    choose.add_argument("--every", type=int, help="every Kth file that imports TensorFlow")
    parser.add_argument("--jobs", type=int, default=2, help="children running at once")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds per file")
    parser.add_argument("--tfmodernize", type=Path, default=Path(sys.executable).with_name("tfmodernize"))
    parser.add_argument("--unsafe-fixes", action="store_true", help="apply with --unsafe-fixes")
    parser.add_argument("--applied", type=Path, help="an already migrated copy of the tree: no apply run")
    parser.add_argument("--peer", action="store_true", help="also tf_upgrade_v2 --inplace on a copy")
    parser.add_argument("--tf-upgrade", type=Path, default=Path(sys.executable).with_name("tf_upgrade_v2"))
    parser.add_argument("--work", type=Path, help="write the trees here and keep them")
    parser.add_argument("--json", type=Path, help="write every file's outcome and the summary here")
    parser.add_argument(
        "--path",
        action="append",
        default=[],
        help="a folder of the tree (relative to its root) put on every child's sys.path, as the codebase's "
        "setup asks (the zoo's research/slim); repeatable",
    )
    parser.add_argument(
        "--protobuf-python",
        action="store_true",
        help="run with protobuf's pure-Python runtime, which still loads _pb2 files generated by protoc < 3.19",
    )
    args = parser.parse_args(argv)
    if (args.tree is None) == (args.git_dir is None):
        parser.error("give a folder or --git-dir")

    work = args.work or Path(tempfile.mkdtemp(prefix="tfm-imports-"))
    for previous in ("original", "apply", "peer", "peer_stage", "scratch"):
        shutil.rmtree(work / previous, ignore_errors=True)  # only what an earlier run wrote there
    (work / "scratch").mkdir(parents=True)
    trees = {"original": work / "original"}
    try:
        if args.git_dir is not None:
            sys.path.insert(0, str(HERE))
            from corpus_safety import materialize

            materialize(args.git_dir, args.commit, trees["original"], 1)
            source = f"{args.git_dir} {args.commit[:12]}"
        else:
            copy_tree(args.tree.resolve(), trees["original"])
            source = str(args.tree)
        every_tf = tf_files(trees["original"])
        files = subset(every_tf, args.sample, args.every)
        whole = len(files) == len(every_tf)
        notes = [f"{source}, {len(files)} of {len(every_tf)} chosen"]

        trees["apply"] = work / "apply"
        if args.applied is not None:
            copy_tree(args.applied.resolve(), trees["apply"])
            notes.append(f"migrated tree {args.applied}")
        else:
            copy_tree(trees["original"], trees["apply"])
            tool = [str(args.tfmodernize)] if args.tfmodernize.exists() else [sys.executable, "-m", "tfmodernize"]
            notes.append(apply_copy(tool, trees["apply"], None if whole else files, args.unsafe_fixes, work))
        if args.peer:
            trees["peer"] = work / "peer"
            copy_tree(trees["original"], trees["peer"])
            notes.append(peer_copy(args.tf_upgrade, trees["peer"], files, work))

        if args.protobuf_python:
            # Before TensorFlow (and so protobuf) is imported: the runtime is chosen at its import.
            os.environ["PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION"] = "python"
            notes.append("protobuf's pure-Python runtime (stale generated _pb2 files load)")
        if args.path:
            notes.append(f"on sys.path too: {', '.join(args.path)}")
        runner = Runner(work / "scratch", args.jobs, args.timeout, tuple(args.path))
        records: dict[str, dict[str, dict]] = {f: {} for f in files}
        for variant, tree in trees.items():
            started = time.perf_counter()
            for relative, record in runner.run(tree, files).items():
                records[relative][variant] = record
            seconds = time.perf_counter() - started
            notes.append(f"{VARIANTS[variant]} ran in {seconds:.0f} s ({len(files) / seconds:.1f} files/s)")

        summary = summarize(records, tree_modules(trees["original"]))
        print(markdown(summary, notes))
        if args.json is not None:
            report = {"source": source, "notes": notes, **summary, "records": records}
            args.json.write_text(json.dumps(report, indent=1))
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
