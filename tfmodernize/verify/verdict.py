"""A before/after pair to verify, and the verdict on it.

``verify_pairs`` runs every pair's two scripts through a ``Harness`` (all scripts in one
batch, several children at once) and compares what they left behind.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional, Sequence

from tfmodernize.verify import DEFAULT_ATOL, DEFAULT_RTOL
from tfmodernize.verify.compare import NameResult, compare_values
from tfmodernize.verify.printed import compare_printed
from tfmodernize.verify.runner import Harness, RunResult, Script

EQUAL, DIFFERENT, ERROR = "equal", "different", "error"


@dataclass(frozen=True)
class Pair:
    """Two scripts that must leave equal values, and how to compare them."""

    before: Script
    after: Script
    compare: Optional[Sequence[str]] = None
    rtol: float = DEFAULT_RTOL
    atol: float = DEFAULT_ATOL
    expected_difference: Sequence[str] = ()
    reason: str = ""
    #: Compare the numbers both print to stdout, in order; the module-level names then only
    #: when ``compare`` lists some.
    stdout: bool = False
    #: Start ``after``'s trainable variables from the values ``before``'s started from
    #: (``verify --align-variables``): Keras draws other initial values than TF1.
    align_variables: bool = False


@dataclass
class Verdict:
    pair: Pair
    before: RunResult
    after: RunResult
    names: list[NameResult]

    @property
    def status(self) -> str:
        if not (self.before.ok and self.after.ok):
            return ERROR
        return EQUAL if all(result.ok for result in self.names) else DIFFERENT

    @property
    def exit_code(self) -> int:
        return {EQUAL: 0, DIFFERENT: 1, ERROR: 2}[self.status]

    def explain(self) -> str:
        """Plain text for a failing test: what failed, and the traceback tail of a crash."""
        lines = []
        for label, run in (("before", self.before), ("after", self.after)):
            if not run.ok:
                lines.append(f"{run.script.path.name} ({label}, {run.script.mode} mode) could not run:")
                lines.extend(f"    {line}" for line in run.error.splitlines())
                if run.output:
                    lines.append("  its output ended with:")
                    lines.extend(f"    {line}" for line in run.output.splitlines())
        for result in self.names:
            if not result.ok:
                lines.append(f"{result.name}: {result.status.value}: {result.detail}")
        return "\n".join(lines) if lines else "equal"


def verify_pairs(pairs: Sequence[Pair], harness: Harness) -> list[Verdict]:
    """Run all scripts of ``pairs`` in one batch, then compare each pair. A pair aligning its
    variables runs its ``after`` in a second batch, with what its ``before`` recorded."""
    scripts = []
    for pair in pairs:
        scripts.append(replace(pair.before, variables="record") if pair.align_variables else pair.before)
        scripts.append(pair.after)
    waiting = [i for i, pair in enumerate(pairs) if pair.align_variables]
    results = harness.run_all([s for i, s in enumerate(scripts) if i // 2 not in waiting or i % 2 == 0])
    firsts = iter(results)
    results = [next(firsts) if i // 2 not in waiting or i % 2 == 0 else None for i in range(len(scripts))]
    aligned = [
        replace(pairs[i].after, variables="align", initial_values=tuple(results[2 * i].variables)) for i in waiting
    ]
    for i, result in zip(waiting, harness.run_all(aligned)):
        results[2 * i + 1] = result
    verdicts = []
    for index, pair in enumerate(pairs):
        before, after = results[2 * index], results[2 * index + 1]
        names = []
        if before.ok and after.ok and pair.stdout:
            names.append(compare_printed(before.stdout, after.stdout, rtol=pair.rtol, atol=pair.atol))
        if before.ok and after.ok and (pair.compare or not pair.stdout):
            names += compare_values(
                before.values,
                after.values,
                compare=pair.compare,
                expected_difference=pair.expected_difference,
                reason=pair.reason,
                rtol=pair.rtol,
                atol=pair.atol,
                before_skipped=before.skipped,
                after_skipped=after.skipped,
            )
        verdicts.append(Verdict(pair, before, after, names))
    return verdicts
