"""How fast a 1,000-file HTML report is built, and how fast it opens in headless Chromium.

    python benchmarks/report_load.py [--files 1000] [--source examples/] [--keep report.html]

Rewrites the files of ``--source`` once (default: the bundled examples; a real codebase such
as the zoo sample gives kept-on-v1 files and findings too), then repeats their outcomes under
``--files`` paths spread over nested folders, as a large codebase looks, and times
``build_report`` over them. With Chromium on PATH (Debian's ``chromium``), the page is opened
from its file:// URL: the time from navigation to the end of the load event with the page
laid out (read by a script added to a copy of the page), the median of ``--runs``. Target:
under 2 s.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from report_screenshot import chromium, chromium_command  # noqa: E402

TARGET_SECONDS = 2.0

#: Added before ``</body>`` of a copy of the page: at the load event, lay the page out and put
#: the milliseconds since navigation started in the title.
PROBE = (
    "<script>window.addEventListener('load', function () {"
    "void document.documentElement.getBoundingClientRect().height;"
    "document.title = 'tfm-loaded-ms=' + performance.now().toFixed(1); });</script>"
)


def outcomes_of(source: Path) -> list:
    from tfmodernize.engine import run
    from tfmodernize.settings import build_settings
    from tfmodernize.sources import discover

    settings = build_settings([source], cache=False)
    return list(run(discover([source], settings.exclude), settings))


def spread(outcomes: list, count: int) -> list:
    """``count`` outcomes, the given ones repeated under paths in nested folders."""
    spread = []
    for index in range(count):
        outcome = outcomes[index % len(outcomes)]
        folder = f"project/team{index % 7}/module{index % 43}"
        spread.append(replace(outcome, path=Path(folder) / f"{index}_{outcome.path.name}"))
    return spread


def load_ms(browser: str, page: Path) -> float:
    with tempfile.TemporaryDirectory() as profile:
        dom = subprocess.run(
            chromium_command(browser, profile, "--dump-dom", page.as_uri()), capture_output=True, text=True, timeout=300
        ).stdout
    found = re.search(r"<title>tfm-loaded-ms=([0-9.]+)</title>", dom)
    if found is None:
        raise SystemExit("the page's load probe did not run")
    return float(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--source", type=Path, default=ROOT / "examples")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="Also write the report here.")
    args = parser.parse_args()

    from tfmodernize.output.html_report import build_report

    outcomes = spread(outcomes_of(args.source), args.files)
    started = time.perf_counter()
    report = build_report(outcomes, paths=["project"])
    built = time.perf_counter() - started
    size = len(report.html.encode("utf-8"))
    totals = report.data["totals"]
    kinds = ", ".join(f"{n} {key}" for key, n in totals["categories"].items() if n)
    print(f"{len(outcomes)} files ({kinds}), {totals['fixes']} fixes, {totals['findings']} findings")
    print(f"built in {built:.2f} s; {size / 1e6:.1f} MB of HTML")
    if args.keep:
        args.keep.write_text(report.html, encoding="utf-8")
    browser = chromium()
    if browser is None:
        print("no chromium on PATH: load time not measured (Debian: apt-get install -y chromium)")
        return
    with tempfile.TemporaryDirectory() as work:
        page = Path(work) / "report.html"
        page.write_text(report.html.replace("</body>", PROBE + "</body>"), encoding="utf-8")
        times = [load_ms(browser, page) for _ in range(args.runs)]
    median = statistics.median(times) / 1000
    verdict = "ok" if median < TARGET_SECONDS else "SLOW"
    each = ", ".join(f"{t / 1000:.2f}" for t in times)
    print(
        f"opens in headless Chromium in {median:.2f} s (median of {args.runs}: {each}); "
        f"target < {TARGET_SECONDS:.0f} s: {verdict}"
    )


if __name__ == "__main__":
    main()
