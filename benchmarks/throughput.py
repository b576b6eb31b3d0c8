"""Throughput of the rewrite path, against a bare LibCST parse + render of the same files.

    python benchmarks/throughput.py [--files 60] [--keep DIR]
    python benchmarks/throughput.py --git-dir DIR --commit SHA [--every 4]

Generates a synthetic tree shaped like a TF1-era model zoo (TF model files of a few hundred
lines with the usual import forms, plus non-TF utility files), or, with ``--git-dir``, takes
the real one of ``../shared/corpus/throughput.md`` (fetched with the search library's
``fetch``; every ``--every``-th ``.py`` file, written under a temporary folder, never into this
repository) and also times TensorFlow's own ``tf_upgrade_v2 --intree`` on the same files. It
reports in one run:

- files/s and lines/s of ``tfmodernize check`` with ``--jobs 1`` and with all cores;
- per-file cost of the whole catalogue (in process, ``--jobs 1`` path) beside a bare
  ``libcst.parse_module`` + ``module.code`` of the same files: target ratio <= 2.0;
- cost of a file rejected by the text pre-filter beside its parse: target <= 5 %;
- start-up of ``tfmodernize --version`` beside ``python -c pass``: target <= 0.3 s, and
  whether tensorflow was imported (it must not be);
- the CPU seconds of the bare parse, the catalogue, ``check --jobs 1`` and ``tf_upgrade_v2``:
  on a machine other work shares, their ratios hold where the wall-clock ones drift.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

IMPORTS = [
    "import tensorflow as tf",
    "import tensorflow.compat.v1 as tf",
    "import tensorflow as tf\nfrom tensorflow import keras",
    "import tensorflow as T\ntf = T",
]

TF_BLOCK = '''

def {name}_layer(inputs, units, scope="{name}", training=False):
    """Dense layer with batch norm, as TF1 model code wrote it."""
    with tf.variable_scope(scope):
        weights = tf.get_variable("w", [inputs.shape[-1], units], initializer=tf.glorot_uniform_initializer())
        bias = tf.get_variable("b", [units], initializer=tf.zeros_initializer())
        hidden = tf.matmul(inputs, weights) + bias
        hidden = tf.layers.batch_normalization(hidden, training=training)
        mean = tf.reduce_mean(hidden, reduction_indices=[0], keep_dims=True)
        tf.summary.histogram("{name}/activations", hidden)
        return tf.nn.relu(hidden - mean)


def {name}_loss(logits, labels, weight_decay=1e-4):
    cross_entropy = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    l2 = tf.add_n([tf.nn.l2_loss(v) for v in tf.trainable_variables()])
    total = tf.reduce_mean(cross_entropy) + weight_decay * l2
    tf.add_to_collection("losses", total)
    return total


class {cls}Model(object):
    def __init__(self, config):
        self.config = config
        self.inputs = tf.placeholder(tf.float32, [None, config.features], name="inputs")
        self.labels = tf.placeholder(tf.float32, [None, config.classes], name="labels")
        hidden = {name}_layer(self.inputs, config.hidden)
        self.logits = tf.layers.dense(hidden, config.classes)
        self.loss = {name}_loss(self.logits, self.labels)
        optimizer = tf.train.AdamOptimizer(config.learning_rate)
        self.train_op = optimizer.minimize(self.loss, global_step=tf.train.get_or_create_global_step())

    def step(self, sess, batch):
        feed = {{self.inputs: batch[0], self.labels: batch[1]}}
        _, loss = sess.run([self.train_op, self.loss], feed_dict=feed)
        return loss
'''

PLAIN_BLOCK = '''

def {name}_parse(line, sep=","):
    """Parse one CSV line into floats, skipping blanks."""
    fields = [f.strip() for f in line.split(sep)]
    return [float(f) for f in fields if f]


class {cls}Registry:
    def __init__(self):
        self.items = {{}}

    def register(self, key, value):
        if key in self.items:
            raise KeyError(key)
        self.items[key] = value
        return value

    def __len__(self):
        return len(self.items)
'''


def generate(folder: Path, files: int, seed: int = 0) -> list[Path]:
    rng = random.Random(seed)
    paths = []
    for index in range(files):
        tf_file = index % 3 != 2  # two thirds TF model files, one third utilities
        block = TF_BLOCK if tf_file else PLAIN_BLOCK
        parts = [f'"""Synthetic module {index}."""\n', rng.choice(IMPORTS) if tf_file else "import os\nimport json"]
        for part in range(rng.randint(6, 14)):
            parts.append(block.format(name=f"m{index}_{part}", cls=f"M{index}P{part}"))
        path = folder / f"pkg{index % 5}" / f"module_{index:03}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(parts))
        paths.append(path)
    return paths


def _cpu() -> float:
    """CPU seconds of this process and of the children it has waited for."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed(repeats: int, fn) -> tuple[float, float]:
    """The best wall time and the best CPU time of ``repeats`` runs of ``fn``. On a machine other
    work shares, wall times stretch with the load and ratios of them drift; CPU times much less."""
    walls, cpus = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), _cpu()
        fn()
        walls.append(time.perf_counter() - start)
        cpus.append(_cpu() - start_cpu)
    return min(walls), min(cpus)


def best_of(repeats: int, fn) -> float:
    return timed(repeats, fn)[0]


def _paused_parse(text: str) -> str:
    """A bare parse + render with the cycle collector paused, as the engine runs a file."""
    import libcst as cst

    gc.disable()
    try:
        return cst.parse_module(text).code
    finally:
        gc.enable()


def _parses(path: Path) -> bool:
    import libcst as cst

    try:
        cst.parse_module(path.read_text(encoding="utf-8", errors="surrogateescape"))
    except Exception:  # noqa: BLE001 - any file LibCST refuses is left out of the comparison
        path.unlink()
        return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=60)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="generate the tree here and keep it")
    parser.add_argument("--git-dir", type=Path, help="a fetched snapshot of the real model zoo")
    parser.add_argument("--commit", help="its commit (with --git-dir)")
    parser.add_argument("--every", type=int, default=4, help="with --git-dir: every Nth .py file")
    args = parser.parse_args()

    import libcst as cst

    from tfmodernize.registry import builtin_codemods
    from tfmodernize.engine import PREFILTER, transform_text

    folder = args.keep or Path(tempfile.mkdtemp(prefix="tfm-bench-"))
    if args.git_dir is not None:
        sys.path.insert(0, str(ROOT / "benchmarks"))
        from corpus_safety import materialize

        paths = [folder / p for p in materialize(args.git_dir, args.commit, folder, args.every)]
        paths = [p for p in paths if _parses(p)]  # the zoo keeps some Python 2 files: both tools refuse them
    else:
        paths = generate(folder, args.files)
    texts = [p.read_text(encoding="utf-8", errors="surrogateescape") for p in paths]
    lines = sum(t.count("\n") for t in texts)
    tf_texts = [t for t in texts if PREFILTER.search(t)]
    plain_texts = [t for t in texts if not PREFILTER.search(t)]
    catalogue = builtin_codemods()
    print(f"tree: {len(paths)} files ({len(tf_texts)} TF), {lines} lines, {len(catalogue)} codemods, in {folder}")

    bare, bare_cpu = timed(args.repeats, lambda: [cst.parse_module(t).code for t in texts])
    # The engine pauses the cycle collector while it rewrites a file; the bare parse paused the
    # same way says how much of that gain a bare parse gets too.
    bare_paused = best_of(args.repeats, lambda: [_paused_parse(t) for t in texts])
    full, full_cpu = timed(args.repeats, lambda: [transform_text(t, catalogue) for t in texts])
    bare_tf = best_of(args.repeats, lambda: [cst.parse_module(t).code for t in tf_texts])
    full_tf = best_of(args.repeats, lambda: [transform_text(t, catalogue) for t in tf_texts])
    parse_plain = best_of(args.repeats, lambda: [cst.parse_module(t) for t in plain_texts])
    reject_plain = best_of(args.repeats, lambda: [transform_text(t, catalogue) for t in plain_texts])
    print(f"bare parse+render, all files:      {bare:7.3f} s")
    print(f"whole catalogue, all files:        {full:7.3f} s  ratio {full / bare:.2f}x (target <= 2.0)")
    print(f"bare, collector paused per file:   {bare_paused:7.3f} s  (catalogue / this: {full / bare_paused:.2f}x)")
    print(f"TF files only: bare {bare_tf:.3f} s, catalogue {full_tf:.3f} s, ratio {full_tf / bare_tf:.2f}x")
    print(f"pre-filter reject vs parse:        {reject_plain / parse_plain * 100:6.2f} % (target <= 5 %)")

    exe = [sys.executable, "-m", "tfmodernize"]
    check_cpu = {}
    for jobs in (1, os.cpu_count() or 1):
        elapsed, check_cpu[jobs] = timed(
            args.repeats,
            lambda: subprocess.run(
                [*exe, "check", str(folder), "--jobs", str(jobs), "--no-cache"], capture_output=True
            ),
        )
        print(
            f"check --jobs {jobs}: {elapsed:.2f} s  {len(paths) / elapsed:7.1f} files/s  {lines / elapsed:9.0f} lines/s"
        )
    peer_cpu = None

    if args.git_dir is not None:
        peer = Path(sys.executable).with_name("tf_upgrade_v2")
        if peer.exists():
            out = Path(tempfile.mkdtemp(prefix="tfm-peer-")) / "out"
            start, start_cpu = time.perf_counter(), _cpu()
            subprocess.run(
                [
                    str(peer),
                    "--intree",
                    str(folder),
                    "--outtree",
                    str(out),
                    "--reportfile",
                    str(out.parent / "report.txt"),
                ],
                capture_output=True,
            )
            elapsed, peer_cpu = time.perf_counter() - start, _cpu() - start_cpu
            print(
                f"tf_upgrade_v2 --intree (one process, its only mode): {elapsed:.2f} s  "
                f"{len(paths) / elapsed:7.1f} files/s"
            )
        else:
            print("tf_upgrade_v2 not installed beside this Python (the verify extra brings it)")

    # CPU seconds: the ratios above where nothing else runs (a check's includes its start-up).
    cpu = (
        f"CPU: bare {bare_cpu:.2f} s, catalogue {full_cpu:.2f} s ({full_cpu / bare_cpu:.2f}x), "
        f"check --jobs 1 {check_cpu[1]:.2f} s ({check_cpu[1] / bare_cpu:.2f}x bare)"
    )
    if peer_cpu is not None:
        cpu += f", tf_upgrade_v2 {peer_cpu:.2f} s ({peer_cpu / check_cpu[1]:.2f}x check --jobs 1)"
    print(cpu)

    startup = statistics.median(
        best_of(1, lambda: subprocess.run([*exe, "--version"], capture_output=True)) for _ in range(5)
    )
    python = statistics.median(
        best_of(1, lambda: subprocess.run([sys.executable, "-c", "pass"], capture_output=True)) for _ in range(5)
    )
    trace = subprocess.run([sys.executable, "-X", "importtime", *exe[1:], "--version"], capture_output=True, text=True)
    imported_tf = "tensorflow" in trace.stderr
    print(
        f"start-up: tfmodernize --version {startup:.3f} s, python -c pass {python:.3f} s "
        f"(target <= 0.3 s); imports tensorflow: {imported_tf}"
    )


if __name__ == "__main__":
    main()
