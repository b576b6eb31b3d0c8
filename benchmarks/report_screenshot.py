"""A PNG of an HTML report, rendered by headless Chromium (Debian's ``chromium`` package).

    python benchmarks/report_screenshot.py [PATH ...] [-o docs/report.png] [--size 1280,1600]
    python benchmarks/report_screenshot.py --html report.html -o shot.png

Builds ``tfmodernize report`` over PATHs (default: the bundled ``examples/``) in a temporary
folder, or takes an existing page (``--html``), opens it from its file:// URL in headless
Chromium and writes the screenshot: how the README's ``docs/report.png`` is made, and a check
that the page renders in a real browser with no server and no network. Chromium is run with
no sandbox, no GPU and no background networking (install: ``apt-get install -y chromium``).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def chromium() -> str | None:
    """The Chromium executable, or None."""
    return next(
        (found for name in ("chromium", "chromium-browser", "google-chrome") if (found := shutil.which(name))), None
    )


def chromium_command(browser: str, profile: str, *extra: str) -> list[str]:
    """Headless Chromium with nothing running besides the page (``profile``: an empty folder)."""
    return [
        browser,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        f"--user-data-dir={profile}",
        *extra,
    ]


def screenshot(browser: str, page: Path, png: Path, size: str = "1280,1600") -> None:
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            chromium_command(
                browser, profile, f"--screenshot={png.resolve()}", f"--window-size={size}", page.resolve().as_uri()
            ),
            check=True,
            capture_output=True,
            timeout=300,
        )
    if not png.is_file():
        raise SystemExit(f"chromium wrote no {png}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", type=Path, default=[ROOT / "examples"])
    parser.add_argument("--html", type=Path, help="An existing report to render instead.")
    parser.add_argument("-o", "--output", type=Path, default=ROOT / "docs" / "report.png")
    parser.add_argument("--size", default="1280,1600", help="Window width,height in pixels.")
    args = parser.parse_args()
    browser = chromium()
    if browser is None:
        raise SystemExit("no chromium on PATH (Debian: apt-get install -y chromium)")
    with tempfile.TemporaryDirectory() as work:
        page = args.html
        if page is None:
            page = Path(work) / "report.html"
            # Paths relative to the repository, as a reader runs it from there.
            shown = [
                str(p.resolve().relative_to(ROOT)) if p.resolve().is_relative_to(ROOT) else str(p) for p in args.paths
            ]
            subprocess.run(
                [sys.executable, "-m", "tfmodernize", "report", *shown, "--no-cache", "-o", str(page)],
                cwd=ROOT,
                check=True,
            )
        screenshot(browser, page, args.output, args.size)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
