"""The ``tfmodernize`` command line: parse options, run the engine, pick a sink.

Exit codes, as ruff's: 0 nothing to do; 1 a diff (``diff``), findings (``check``, ``apply``
when findings remain) or a verification difference; 2 usage errors or any input that could not
be read or parsed. Heavy modules (libcst, the engine) are imported inside the commands so that
``tfmodernize --version`` starts fast; tensorflow is never imported here.
"""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, List, Optional

import typer
from rich.console import Console
from rich.markup import escape

from tfmodernize import __version__

if TYPE_CHECKING:
    from tfmodernize.engine import Outcome
    from tfmodernize.settings import Settings

app = typer.Typer(
    name="tfmodernize",
    help="Migrate TensorFlow 1.x code to idiomatic TensorFlow 2 and fix TF2 anti-patterns.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Help texts are plain: `[tool.tfmodernize]` is a TOML table, not rich markup.
    rich_markup_mode=None,
)

EXIT_CLEAN, EXIT_REPORTED, EXIT_ERROR = 0, 1, 2

# User text (paths, messages, code) goes through these: no emoji codes (a finding at `:100:`)
# and, where printed with markup, escaped.
stdout = Console(highlight=False, soft_wrap=True, emoji=False)
stderr = Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)


class Format(str, Enum):
    text = "text"
    json = "json"
    github = "github"
    sarif = "sarif"
    rdjson = "rdjson"
    review = "review"


def _version(value: bool) -> None:
    if value:
        print(f"tfmodernize {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: bool = typer.Option(
        False, "--version", "-V", callback=_version, is_eager=True, help="Show the version and exit."
    ),
) -> None:
    """Migrate TensorFlow 1.x code to idiomatic TensorFlow 2 and fix TF2 anti-patterns."""


# -- shared options --------------------------------------------------------------------------

PathsArg = typer.Argument(..., help="Files or folders to process.", show_default=False)
SelectOpt = typer.Option(
    [], "--select", help="Only these codemods (codes, code prefixes or names; comma-separated or repeated)."
)
IgnoreOpt = typer.Option([], "--ignore", help="Skip these codemods (codes, code prefixes or names).")
ExcludeOpt = typer.Option([], "--exclude", help="Glob of paths to skip (repeatable).")
StdinFilenameOpt = typer.Option(
    None,
    "--stdin-filename",
    metavar="<path>",
    help="The name of the source read from `-` (standard input), for messages.",
)
#: The path that means standard input.
STDIN = "-"
SrcOpt = typer.Option(
    [],
    "--src",
    help="A folder the project's modules are imported from (besides each script's own), repeatable; `src` in the config.",
)
ForceExcludeOpt = typer.Option(
    False, "--force-exclude", help="Apply --exclude to files named on the command line too (for pre-commit)."
)
UnsafeOpt = typer.Option(None, "--unsafe-fixes/--no-unsafe-fixes", help="Also apply fixes marked unsafe.")
JobsOpt = typer.Option(None, "--jobs", "-j", help="Worker processes (default: all cores).")
ConfigOpt = typer.Option(None, "--config", help="pyproject.toml with a [tool.tfmodernize] table.")
NoCacheOpt = typer.Option(False, "--no-cache", help="Do not read or write the outcome cache (.tfmodernize_cache).")
StatisticsOpt = typer.Option(
    False, "--statistics", help="Also list the TF1 constructs that keep files on tf.compat.v1, by number of files."
)


def _split(values: List[str]) -> list[str]:
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def _usage_error(message: str) -> typer.Exit:
    stderr.print(f"[bold red]error:[/] {escape(message)}", highlight=False)
    return typer.Exit(EXIT_ERROR)


def _settings(
    paths, config, select, ignore, exclude, unsafe_fixes, jobs, no_cache, force_exclude=False, src=()
) -> "Settings":
    from tfmodernize.registry import RegistryError, select_codemods
    from tfmodernize.settings import SettingsError, build_settings

    try:
        settings = build_settings(
            paths,
            config=config,
            select=_split(select),
            ignore=_split(ignore),
            exclude=_split(exclude),
            force_exclude=force_exclude,
            unsafe_fixes=unsafe_fixes,
            jobs=jobs,
            cache=not no_cache,
            src=src,
        )
        select_codemods(settings.select, settings.ignore)
    except SettingsError as error:
        raise _usage_error(str(error))
    except KeyError as error:
        raise _usage_error(f"unknown codemod {error.args[0]!r} in --select/--ignore (see `tfmodernize list`)")
    except RegistryError as error:
        raise _usage_error(f"broken codemod catalogue: {error}")
    return settings


def _outcomes(
    paths: List[Path], settings: "Settings", *, writing: bool = False, stdin_filename: Optional[str] = None
) -> Iterator["Outcome"]:
    """Discover and process files, yielding outcomes in order; missing inputs are errors.
    ``-`` reads one source from standard input, named ``stdin_filename``.

    ``writing`` (apply): first remove the temporary files a killed run left beside them."""
    from tfmodernize.engine import Outcome, run
    from tfmodernize.sources import Discovered, discover, remove_stale_temporaries

    files: list[Discovered] = []
    missing: list[Outcome] = []
    for path in paths:
        if str(path) == STDIN:
            files.append(Discovered(Path(stdin_filename or STDIN), data=sys.stdin.buffer.read()))
            continue
        try:
            files.extend(discover([path], settings.exclude, force_exclude=settings.force_exclude))
        except FileNotFoundError:
            missing.append(Outcome(path, error="no such file or folder"))
    if writing:
        for stale in remove_stale_temporaries(f.path for f in files if f.problem is None and f.data is None):
            stderr.print(f"removed {stale}, left by an interrupted run", markup=False)
    yield from missing
    results = run(files, settings)
    if sys.stderr.isatty() and len(files) > 20:
        from rich.progress import Progress

        with Progress(console=stderr, transient=True) as progress:
            task = progress.add_task("tfmodernize", total=len(files))
            for outcome in results:
                progress.advance(task)
                yield outcome
    else:
        yield from results


def _print_error(outcome: "Outcome") -> None:
    stderr.print(
        f"{outcome.path}:{outcome.error}" if outcome.error[:1].isdigit() else f"{outcome.path}: {outcome.error}",
        highlight=False,
        markup=False,
    )


def _print_findings(outcome: "Outcome", console: Console) -> None:
    from tfmodernize.output.formats import diagnostics, text_line

    for diagnostic in diagnostics(outcome):
        if diagnostic.kind == "finding":
            console.print(text_line(diagnostic), markup=False)


# -- commands --------------------------------------------------------------------------------


@app.command()
def diff(
    paths: List[Path] = PathsArg,
    select: List[str] = SelectOpt,
    ignore: List[str] = IgnoreOpt,
    exclude: List[str] = ExcludeOpt,
    force_exclude: bool = ForceExcludeOpt,
    src: List[Path] = SrcOpt,
    stdin_filename: Optional[str] = StdinFilenameOpt,
    unsafe_fixes: Optional[bool] = UnsafeOpt,
    jobs: Optional[int] = JobsOpt,
    config: Optional[Path] = ConfigOpt,
    no_cache: bool = NoCacheOpt,
    statistics: bool = StatisticsOpt,
) -> None:
    """Show what would change, as colored unified diffs, and a summary. Changes nothing.

    Example: tfmodernize diff examples/
    """
    from tfmodernize.output.diff import outcome_diff, print_diff
    from tfmodernize.output.summary import Summary, print_summary

    settings = _settings(paths, config, select, ignore, exclude, unsafe_fixes, jobs, no_cache, force_exclude, src)
    summary = Summary()
    for outcome in _outcomes(paths, settings, stdin_filename=stdin_filename):
        summary.add(outcome)
        if outcome.error is not None:
            _print_error(outcome)
        elif outcome.changed:
            print_diff(stdout, outcome_diff(outcome))
        _print_findings(outcome, stderr)
    print_summary(stderr, summary, changed_label="would change", statistics=statistics)
    raise typer.Exit(
        EXIT_ERROR if summary.failed else EXIT_REPORTED if summary.changed or summary.findings else EXIT_CLEAN
    )


@app.command()
def apply(
    paths: List[Path] = PathsArg,
    select: List[str] = SelectOpt,
    ignore: List[str] = IgnoreOpt,
    exclude: List[str] = ExcludeOpt,
    force_exclude: bool = ForceExcludeOpt,
    src: List[Path] = SrcOpt,
    stdin_filename: Optional[str] = StdinFilenameOpt,
    unsafe_fixes: Optional[bool] = UnsafeOpt,
    jobs: Optional[int] = JobsOpt,
    config: Optional[Path] = ConfigOpt,
    no_cache: bool = NoCacheOpt,
    statistics: bool = StatisticsOpt,
    fix_only: bool = typer.Option(
        False,
        "--fix-only",
        help="Only fix: do not list the findings nor fail because some remain (errors still exit 2).",
    ),
) -> None:
    """Rewrite files in place (atomically) and print what changed.

    Example: tfmodernize apply src/ --select TFM2
    """
    from collections import Counter

    from tfmodernize.output.summary import Summary, print_summary
    from tfmodernize.sources import SourceError, write_atomic

    settings = _settings(paths, config, select, ignore, exclude, unsafe_fixes, jobs, no_cache, force_exclude, src)
    summary = Summary()
    from_stdin = [str(p) for p in paths].count(STDIN) > 0
    for outcome in _outcomes(paths, settings, writing=True, stdin_filename=stdin_filename):
        if (
            from_stdin
            and outcome.error is None
            and outcome.old_bytes is not None
            and outcome.path == Path(stdin_filename or STDIN)
        ):
            # Read from standard input: the result goes to standard output, as formatters do.
            sys.stdout.buffer.write(outcome.new_bytes if outcome.changed else outcome.old_bytes)
            sys.stdout.flush()
            summary.add(outcome)
            _print_findings(outcome, stderr)
            continue
        if outcome.changed:
            try:
                write_atomic(outcome.path, outcome.new_bytes, outcome.old_bytes)
            except (SourceError, OSError) as error:
                outcome.error = f"not written: {error}"
        summary.add(outcome)
        if outcome.error is not None:
            _print_error(outcome)
            continue
        if outcome.changed:
            counts = Counter(f"{f.code} {f.name}" for f in outcome.fixes)
            detail = ", ".join(f"{key} x{n}" for key, n in sorted(counts.items()))
            stdout.print(f"fixed {outcome.path} ({detail})", markup=False)
        if not fix_only:
            _print_findings(outcome, stdout)
    print_summary(stderr, summary, statistics=statistics)
    if summary.failed:
        raise typer.Exit(EXIT_ERROR)
    raise typer.Exit(EXIT_REPORTED if summary.findings and not fix_only else EXIT_CLEAN)


@app.command()
def check(
    paths: List[Path] = PathsArg,
    output_format: Format = typer.Option(Format.text, "--format", help="Report format."),
    select: List[str] = SelectOpt,
    ignore: List[str] = IgnoreOpt,
    exclude: List[str] = ExcludeOpt,
    force_exclude: bool = ForceExcludeOpt,
    src: List[Path] = SrcOpt,
    stdin_filename: Optional[str] = StdinFilenameOpt,
    unsafe_fixes: Optional[bool] = UnsafeOpt,
    jobs: Optional[int] = JobsOpt,
    config: Optional[Path] = ConfigOpt,
    no_cache: bool = NoCacheOpt,
    statistics: bool = StatisticsOpt,
    exit_zero: bool = typer.Option(
        False, "--exit-zero", help="Exit 0 even when there are diagnostics (errors still exit 2)."
    ),
    output_file: Optional[Path] = typer.Option(
        None,
        "--output-file",
        "-o",
        metavar="<path>",
        help="Write the report to this file (atomically) instead of stdout.",
    ),
) -> None:
    """Report findings and the fixes that `apply` would make, as diagnostics for CI.

    Fixes are marked [*] in text output. Example: tfmodernize check src/ --format sarif -o report.sarif
    """
    from tfmodernize.output.formats import EMITTERS, diagnostics, text_line

    from tfmodernize.output.summary import Summary, print_blockers

    settings = _settings(paths, config, select, ignore, exclude, unsafe_fixes, jobs, no_cache, force_exclude, src)
    from tfmodernize.sources import write_atomic

    outcomes = []
    lines: list[str] = []
    reported = failed = fixable = 0
    summary = Summary()
    for outcome in _outcomes(paths, settings, stdin_filename=stdin_filename):
        summary.add(outcome)
        found = diagnostics(outcome)
        failed += outcome.error is not None
        fixable += len(outcome.fixes)
        reported += len(found)
        if output_format is Format.text:
            lines.extend(text_line(diagnostic) for diagnostic in found)
        else:
            outcome.old_bytes = outcome.new_bytes = None
            outcomes.append(outcome)
    report = (
        "\n".join(lines) + ("\n" if lines else "")
        if output_format is Format.text
        else EMITTERS[output_format.value](outcomes) + "\n"
    )
    if output_file is not None:
        try:
            write_atomic(output_file, report.encode("utf-8"), None)
        except OSError as error:
            raise _usage_error(f"{output_file}: cannot write the report: {error.strerror or error}")
    else:
        sys.stdout.write(report)
        sys.stdout.flush()
    if output_format is Format.text:
        stderr.print(f"{reported} diagnostic(s){'' if not fixable else f', {fixable} fixable'}.")
        if statistics:
            print_blockers(stderr, summary)
    if failed:
        raise typer.Exit(EXIT_ERROR)
    raise typer.Exit(EXIT_CLEAN if exit_zero or not reported else EXIT_REPORTED)


@app.command()
def report(
    paths: List[Path] = PathsArg,
    output: Path = typer.Option(
        Path("tfmodernize-report.html"),
        "--output",
        "-o",
        metavar="<path>",
        help="The HTML report to write (one self-contained file).",
    ),
    baseline: Optional[Path] = typer.Option(
        None,
        "--baseline",
        metavar="<json>",
        help="A previous run's JSON: `check --format json` output, or better the `--json` a "
        "previous `report` wrote (it lists every file); the report then says what moved.",
    ),
    json_output: Optional[Path] = typer.Option(
        None,
        "--json",
        metavar="<path>",
        help="Also write this run as JSON (`check --format json`'s object plus `files`, every "
        "file's status), the --baseline of the next run.",
    ),
    markdown: Optional[Path] = typer.Option(
        None,
        "--markdown",
        metavar="<path>",
        help="Append the headline figures as Markdown to this file (e.g. $GITHUB_STEP_SUMMARY).",
    ),
    title: str = typer.Option("tfmodernize migration report", "--title", help="The page's title."),
    select: List[str] = SelectOpt,
    ignore: List[str] = IgnoreOpt,
    exclude: List[str] = ExcludeOpt,
    force_exclude: bool = ForceExcludeOpt,
    src: List[Path] = SrcOpt,
    unsafe_fixes: Optional[bool] = UnsafeOpt,
    jobs: Optional[int] = JobsOpt,
    config: Optional[Path] = ConfigOpt,
    no_cache: bool = NoCacheOpt,
) -> None:
    """Write an HTML migration report: files migrated / kept on tf.compat.v1 / unchanged / failed
    per folder, what keeps files on v1, findings and diffs. Same outcomes as `check`.

    Exits 0 once written (2 on usage errors). Example: tfmodernize report src/ -o report.html
    """
    from tfmodernize.output.formats import emit_json
    from tfmodernize.output.html_report import BaselineError, build_report, markdown_summary, read_baseline, run_json
    from tfmodernize.sources import write_atomic

    settings = _settings(paths, config, select, ignore, exclude, unsafe_fixes, jobs, no_cache, force_exclude, src)
    previous = None
    if baseline is not None:
        try:
            previous = read_baseline(baseline.read_text(encoding="utf-8"))
        except (OSError, BaselineError) as error:
            reason = getattr(error, "strerror", None) or error
            raise _usage_error(f"--baseline {baseline}: {reason}")
    outcomes = list(_outcomes(paths, settings))
    built = build_report(outcomes, title=title, paths=[str(p) for p in paths], baseline=previous)
    written = [(output, built.html)]
    if json_output is not None:
        written.append((json_output, run_json(built, emit_json(outcomes)) + "\n"))
    for target, text in written:
        try:
            write_atomic(target, text.encode("utf-8"), None)
        except OSError as error:
            raise _usage_error(f"{target}: cannot write the report: {error.strerror or error}")
    if markdown is not None:
        try:
            with markdown.open("a", encoding="utf-8") as handle:
                handle.write(markdown_summary(built))
        except OSError as error:
            raise _usage_error(f"{markdown}: cannot write: {error.strerror or error}")
    counts = built.data["totals"]["categories"]
    stderr.print(f"wrote {output}: " + ", ".join(f"{n} {key}" for key, n in counts.items() if n), markup=False)


@app.command(name="list")
def list_codemods() -> None:
    """List the codemod catalogue in the order it runs."""
    from rich.table import Table

    from tfmodernize.registry import builtin_codemods

    table = Table(title="tfmodernize codemods")
    for column in ("code", "name", "safety", "summary"):
        table.add_column(column)
    for codemod in builtin_codemods():
        table.add_row(codemod.code, codemod.name, codemod.safety.value, codemod.summary)
    stdout.print(table)


@app.command()
def explain(key: str = typer.Argument(..., help="A codemod code (TFM207) or name (run-functions-eagerly).")) -> None:
    """Show a codemod's documentation: what it does, why, before and after."""
    from rich.markdown import Markdown
    from rich.syntax import Syntax

    from tfmodernize.registry import doc_sections, find_codemod

    codemod = find_codemod(key)
    if codemod is None:
        raise _usage_error(f"no codemod {key!r} (see `tfmodernize list`)")
    stdout.print(f"[bold]{codemod.code} {codemod.name}[/] ({codemod.safety.value})")
    stdout.print(codemod.summary, markup=False)
    fixtures = Path(__file__).resolve().parent.parent / "fixtures" / codemod.name
    if fixtures.is_dir():
        cases = sorted(
            p.name for p in fixtures.iterdir() if (p / "before.py").is_file() or (p / "before" / "main.py").is_file()
        )
        stdout.print(f"Verified fixtures: {fixtures} ({', '.join(cases)})", markup=False)
    for heading, body in doc_sections(codemod).items():
        stdout.print(f"\n[bold underline]{heading}[/]")
        text = _dedent(body)
        if heading in ("Before", "After"):
            stdout.print(Syntax(text, "python", theme="ansi_dark", background_color="default"))
        else:
            stdout.print(Markdown(text))


@app.command()
def verify(
    old: Path = typer.Argument(..., help="The program before the rewrite."),
    new: Path = typer.Argument(..., help="The program after the rewrite."),
    compare: List[str] = typer.Option(
        [], "--compare", help="Compare exactly these module-level names (comma-separated or repeated)."
    ),
    rtol: float = typer.Option(1e-5, "--rtol", help="Relative tolerance."),
    atol: float = typer.Option(1e-6, "--atol", help="Absolute tolerance."),
    old_mode: str = typer.Option("tf1", "--old-mode", help="Run OLD with TF1 semantics (tf1) or plain TF2 (tf2)."),
    timeout: float = typer.Option(120.0, "--timeout", help="Seconds each program may run."),
    printed: bool = typer.Option(
        False,
        "--stdout",
        help="Compare the numbers both programs print to stdout, in order (module-level names only those given with --compare).",
    ),
    align_variables: bool = typer.Option(
        False,
        "--align-variables",
        help="Start NEW's trainable variables from the initial values OLD's had (matched by creation order, shape and dtype): Keras draws other initial values than TF1.",
    ),
) -> None:
    """Run OLD and NEW on TensorFlow and compare their module-level values or, with --stdout, what they print (0 equal, 1 different, 2 could not run)."""
    from tfmodernize.verify.command import verify_command

    raise typer.Exit(
        verify_command(
            old,
            new,
            compare=_split(compare) or None,
            rtol=rtol,
            atol=atol,
            old_mode=old_mode,
            timeout=timeout,
            stdout=printed,
            align_variables=align_variables,
            console=stdout,
        )
    )


@app.command()
def lsp() -> None:
    """Run the language server on standard input/output, for editors (needs the `lsp` extra).

    Diagnostics, fixes as code actions and `explain` on hover; see the README's "Editor
    integration (LSP)". Install with: pip install 'tfmodernize[lsp]'
    """
    try:
        from tfmodernize.lsp import serve
    except ModuleNotFoundError as error:
        if (error.name or "").split(".")[0] not in ("pygls", "lsprotocol"):
            raise
        raise _usage_error("`tfmodernize lsp` needs pygls, the `lsp` extra: pip install 'tfmodernize[lsp]'")
    serve()


def _dedent(text: str) -> str:
    import textwrap

    return textwrap.dedent(text).strip("\n")


def main() -> None:
    app()
