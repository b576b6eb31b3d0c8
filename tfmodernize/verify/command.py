"""``tfmodernize verify OLD.py NEW.py``: run both scripts on TensorFlow and compare their values.

This module runs in the CLI process and never imports TensorFlow (nor numpy before knowing
that the ``verify`` extra is installed): all TensorFlow work happens in child processes.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from rich.console import Console
from rich.markup import escape

from tfmodernize.verify import DEFAULT_ATOL, DEFAULT_RTOL

if TYPE_CHECKING:
    from tfmodernize.verify.runner import Harness

EXIT_EQUAL, EXIT_DIFFERENT, EXIT_ERROR = 0, 1, 2
INSTALL_HINT = "pip install 'tfmodernize[verify]'"
#: What the children import, by importable module name.
REQUIRED_MODULES = ("tensorflow", "tf_keras", "numpy")


def missing_requirements() -> list[str]:
    """The modules of the ``verify`` extra that are not installed (without importing them)."""
    return [name for name in REQUIRED_MODULES if importlib.util.find_spec(name) is None]


def verify_command(
    old: Path,
    new: Path,
    *,
    compare: Optional[list[str]] = None,
    rtol: float = DEFAULT_RTOL,
    atol: float = DEFAULT_ATOL,
    old_mode: str = "tf1",
    timeout: float = 120.0,
    stdout: bool = False,
    align_variables: bool = False,
    console: Console,
    harness: Optional["Harness"] = None,
) -> int:
    """Run ``old`` (TF1 semantics with ``old_mode="tf1"``) and ``new`` (plain TF2), compare the
    module-level values (with ``stdout``: the numbers they print, and the names only if
    ``compare`` lists some), print a table; exit code 0 equal, 1 different, 2 could not run.
    ``align_variables``: ``new``'s trainable variables start from ``old``'s initial values.

    ``harness`` lets a caller that verifies many pairs reuse its TensorFlow children.
    """
    problems = [f"{path}: no such file" for path in (old, new) if not Path(path).is_file()]
    if old_mode not in ("tf1", "tf2"):
        problems.append(f"--old-mode must be tf1 or tf2, not {old_mode!r}")
    if timeout <= 0 or rtol < 0 or atol < 0:
        problems.append("--timeout must be positive, --rtol and --atol not negative")
    if problems:
        for problem in problems:
            console.print(f"[bold red]error:[/] {escape(problem)}")
        return EXIT_ERROR
    missing = missing_requirements()
    if missing:
        console.print(
            f"[bold red]error:[/] verification runs TensorFlow, and {', '.join(missing)} "
            f"{'is' if len(missing) == 1 else 'are'} not installed. Install the verify extra:"
        )
        console.print(f"    {INSTALL_HINT}", markup=False)
        return EXIT_ERROR

    from tfmodernize.verify.report import print_verdict
    from tfmodernize.verify.runner import Harness, Script
    from tfmodernize.verify.verdict import Pair, verify_pairs

    pair = Pair(
        before=Script(Path(old), old_mode, timeout=timeout),
        after=Script(Path(new), "tf2", timeout=timeout),
        compare=compare or None,
        rtol=rtol,
        atol=atol,
        stdout=stdout,
        align_variables=align_variables,
    )
    with console.status("running both scripts on TensorFlow…"):
        if harness is not None:
            verdict = verify_pairs([pair], harness)[0]
        else:
            with Harness() as own:
                verdict = verify_pairs([pair], own)[0]
    print_verdict(verdict, console)
    return verdict.exit_code
