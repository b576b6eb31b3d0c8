"""Rich rendering of a verdict: a table of compared names, then the reason for a failed run."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from tfmodernize.verify.compare import Status
from tfmodernize.verify.verdict import DIFFERENT, EQUAL, Verdict

_STYLES = {
    Status.EQUAL: "green",
    Status.DIFFERS_AS_EXPECTED: "green",
    Status.DIFFERENT: "bold red",
    Status.UNEXPECTEDLY_EQUAL: "bold red",
    Status.MISSING: "bold red",
    Status.NOT_COMPARED: "yellow",
}


def verdict_table(verdict: Verdict) -> Table:
    table = Table(title=Text(f"{verdict.before.script.path.name} vs {verdict.after.script.path.name}"))
    table.add_column("name", style="bold")
    table.add_column("status")
    table.add_column("detail", overflow="fold")
    for result in verdict.names:
        table.add_row(Text(result.name), Text(result.status.value, style=_STYLES[result.status]), Text(result.detail))
    return table


def print_verdict(verdict: Verdict, console: Console) -> None:
    """The table (when both scripts ran), failed runs with their traceback tail, a summary."""
    for label, run in (("old", verdict.before), ("new", verdict.after)):
        if run.ok:
            continue
        console.print(f"[bold red]{escape(str(run.script.path))} ({label}, {run.script.mode} mode) could not run:[/]")
        console.print(Text(run.error))
        if run.output:
            console.print("[dim]its output ended with:[/]")
            console.print(Text(run.output), style="dim")
    if verdict.names:
        console.print(verdict_table(verdict))
    for line in verdict.after.alignment:
        console.print(f"[dim]variables:[/] {escape(line)}")
    seconds = f"({verdict.before.seconds:.2f} s old, {verdict.after.seconds:.2f} s new)"
    if verdict.status == EQUAL:
        console.print(f"[green]equal[/]: every compared value matches {seconds}")
        if any(result.status is Status.NOT_COMPARED for result in verdict.names):
            console.print(
                "[yellow]not compared[/]: bind a concrete value (e.g. `w_value = sess.run(w)`) to check it too"
            )
    elif verdict.status == DIFFERENT:
        compared = [result for result in verdict.names if result.status is not Status.NOT_COMPARED]
        failed = sum(not result.ok for result in compared)
        console.print(f"[bold red]different[/]: {failed} of {len(compared)} compared name(s) failed {seconds}")
        for result in compared:
            if result.drift is not None and result.drift.grows and result.drift.agreeing > 0:
                console.print(
                    f"[yellow]drifting[/]: {escape(result.name)} agrees to rounding for its first "
                    f"{result.drift.agreeing} value(s), then parts by a growing difference: rounding "
                    "compounding over training steps looks like this (the two programs round some "
                    "operation differently); a wrong migration usually parts at once"
                )
    else:
        console.print("[bold red]could not run[/]: nothing was compared")
