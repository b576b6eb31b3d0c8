"""What TFM201 tf-range-loop buys: wall time of a training loop before and after the fix.

    python benchmarks/retracing.py [--steps 1000]

The "before" program is the anti-pattern of the tf.function guide: a ``@tf.function`` training
step called from ``for step in range(N)`` with the Python loop variable, so every step traces
a new graph. The "after" program is what TFM201 makes of it (the benchmark runs the codemod,
so it measures the real rewrite). Each runs in its own Python process; only the loop is
timed, in wall and CPU time (CPU time is the steadier figure on a shared machine). Reports
both times, their ratios, the trace counts, and checks that both runs reach the
same final loss and weights. (The guide quotes 12.0 s before and 0.4 s after for its loop.)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BEFORE = """\
import json
import time

import tensorflow as tf

w = tf.Variable(tf.ones([8, 1]))
x = tf.reshape(tf.range(64, dtype=tf.float32), [8, 8]) / 64.0
y = tf.ones([8, 1])


@tf.function
def train_step(step):
    learning_rate = 0.1 / (1.0 + tf.cast(step, tf.float32) / 100.0)
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((tf.matmul(x, w) - y) ** 2)
    w.assign_sub(learning_rate * tape.gradient(loss, w))
    return loss


start, cpu_start = time.perf_counter(), time.process_time()
for step in range(STEPS):
    loss = train_step(step)
elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
print(json.dumps({
    "seconds": elapsed,
    "cpu_seconds": cpu,
    "traces": train_step.experimental_get_tracing_count(),
    "loss": float(loss),
    "w": w.numpy().ravel().tolist(),
}))
"""


def after_source(before: str) -> str:
    from tfmodernize.engine import transform_text
    from tfmodernize.testing import resolve

    after, state = transform_text(before, [resolve("TFM201")])
    if after == before or state.findings:
        raise SystemExit(f"TFM201 did not rewrite the benchmark loop: {state.findings}")
    return after


def run(source: str) -> dict:
    completed = subprocess.run(
        [sys.executable, "-c", source],
        capture_output=True,
        text=True,
        check=True,
        env={"TF_CPP_MIN_LOG_LEVEL": "3", "PATH": "/usr/bin:/bin"},
    )
    return json.loads(completed.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1000, help="loop length (default 1000)")
    options = parser.parse_args()
    before = BEFORE.replace("STEPS", str(options.steps))
    after = after_source(before)
    changed = [line.strip() for line in after.splitlines() if line not in before.splitlines()]
    print(f"TFM201 rewrote: {'; '.join(changed)}")
    results = {"before": run(before), "after": run(after)}
    for label, result in results.items():
        print(
            f"{label:>6}: {result['seconds']:8.2f} s wall, {result['cpu_seconds']:8.2f} s CPU "
            f"for {options.steps} steps, {result['traces']} trace(s)"
        )
    ratio = results["before"]["seconds"] / results["after"]["seconds"]
    cpu_ratio = results["before"]["cpu_seconds"] / results["after"]["cpu_seconds"]
    print(f" ratio: {ratio:.1f}x less wall time after the fix ({cpu_ratio:.1f}x less CPU time)")
    same_loss = abs(results["before"]["loss"] - results["after"]["loss"]) <= 1e-6 + 1e-5 * abs(
        results["before"]["loss"]
    )
    same_w = all(abs(a - b) <= 1e-6 + 1e-5 * abs(a) for a, b in zip(results["before"]["w"], results["after"]["w"]))
    print(f"  same final loss and weights: {same_loss and same_w}")


if __name__ == "__main__":
    main()
