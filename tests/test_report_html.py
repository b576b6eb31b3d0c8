"""`tfmodernize report`: a valid, self-contained HTML page whose figures are check's."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tfmodernize.cli import app
from tfmodernize.output.html_report.model import category

ROOT = Path(__file__).resolve().parent.parent

#: A small project: a file kept on compat.v1 by a tf.contrib name (cannot run on TF 2.x), one
#: kept on compat.v1, a TF2 anti-pattern reported (TFM303) and one fixed (TFM207, its source
#: holding markup), a file without TensorFlow and one that does not parse.
TREE = {
    "pkg/contrib_prog.py": (
        "import tensorflow as tf\n\n"
        "inputs = tf.placeholder(tf.float32, [None, 4])\n"
        "hashed = tf.contrib.layers.sparse_column_with_hash_bucket('word', 10)\n"
        "with tf.Session() as session:\n"
        "    print(session.run(inputs, {inputs: [[1.0, 2.0, 3.0, 4.0]]}))\n"
    ),
    "pkg/supervised.py": (
        "import tensorflow as tf\n\n"
        "weights = tf.Variable(tf.ones([3]), name='w')\n"
        "supervisor = tf.train.Supervisor(logdir='/tmp/nowhere')\n"
        "with tf.Session() as session:\n"
        "    session.run(tf.global_variables_initializer())\n"
        "    print(session.run(weights))\n"
    ),
    "other/eager_numpy.py": (
        "import numpy as np\nimport tensorflow as tf\n\n\n"
        "@tf.function\ndef top(values):\n"
        "    doubled = values * 2.0\n"
        "    return np.argmax(doubled.numpy())\n"
    ),
    "other/eagerly.py": (
        "import tensorflow as tf\n\n"
        "banner = \"</script><script>alert('x')</script>\"\n"
        "tf.config.experimental_run_functions_eagerly(True)  # <!-- & -->\n"
    ),
    "other/plain.py": "x = 1\n",
    "other/broken.py": "import tensorflow as tf\ndef broken(:\n",
}

# The contrib-free version of pkg/contrib_prog.py, for the second run against a baseline.
CONTRIB_FREE = (
    "import tensorflow as tf\n\n"
    "inputs = tf.placeholder(tf.float32, [None, 4])\n"
    "with tf.Session() as session:\n"
    "    print(session.run(inputs, {inputs: [[1.0, 2.0, 3.0, 4.0]]}))\n"
)

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Page(HTMLParser):
    """Checks tag balance (every element closed, in order, except void ones), unique ids, and
    collects what the tests read: figures, file sections, scripts, in-page links."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.problems, self.ids, self.links = [], [], Counter(), []
        self.figures, self.files, self.scripts = {}, {}, []
        self._figure = self._script = None
        self.doctype = False

    def handle_decl(self, decl):
        self.doctype = decl.lower() == "doctype html"

    def handle_starttag(self, tag, attrs):
        names = [name for name, _ in attrs]
        if len(names) != len(set(names)):
            self.problems.append(f"duplicate attribute in <{tag}>")
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids[attrs["id"]] += 1
        if tag == "a" and (attrs.get("href") or "").startswith("#"):
            self.links.append(attrs["href"][1:])
        if tag in ("link", "img", "iframe") or (tag == "script" and "src" in attrs):
            self.problems.append(f"external resource <{tag}>")
        if "data-figure" in attrs:
            self._figure = [attrs["data-figure"], ""]
        if tag == "section" and "data-path" in attrs:
            self.files[attrs["data-path"]] = attrs
        if tag == "script":
            self._script = [attrs.get("type"), attrs.get("id"), ""]
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.problems.append(f"self-closing <{tag}/>")

    def handle_endtag(self, tag):
        if tag in VOID or not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
            return
        self.stack.pop()
        if self._figure is not None and tag in ("b", "td"):
            name, text = self._figure
            self.figures.setdefault(name, []).append(int(text))
            self._figure = None
        if tag == "script":
            self.scripts.append(tuple(self._script))
            self._script = None

    def handle_data(self, data):
        if self._figure is not None:
            self._figure[1] += data
        if self._script is not None:
            self._script[2] += data

    @property
    def data(self):
        (island,) = [text for kind, key, text in self.scripts if key == "tfmodernize-data"]
        return json.loads(island)


def parse(html: str) -> Page:
    page = Page()
    page.feed(html)
    page.close()
    assert page.doctype
    assert page.problems == [] and page.stack == []
    assert [key for key, n in page.ids.items() if n > 1] == []
    assert set(page.links) <= set(page.ids), "in-page links to missing ids"
    return page


@pytest.fixture
def runner(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the outcome cache and relative paths start here
    return CliRunner()


def invoke(runner, *args):
    return runner.invoke(app, [str(a) for a in args])


def write_tree(root: Path, files: dict) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def check_json(runner, *paths) -> dict:
    result = invoke(runner, "check", *paths, "--format", "json")
    assert result.exit_code in (0, 1, 2), result.output
    return json.loads(result.stdout)


def report(runner, *args) -> Page:
    result = invoke(runner, "report", *args, "-o", "report.html")
    assert result.exit_code == 0, result.output
    return parse(Path("report.html").read_text(encoding="utf-8"))


def expected_from_check(document: dict) -> dict:
    """What the page must say, counted straight off check's JSON."""
    by_path, kinds, blocker_files = {}, Counter(), Counter()
    for item in document["diagnostics"]:
        kinds[item["kind"]] += 1
        entry = by_path.setdefault(
            item["path"],
            {
                "status": item["file_status"],
                "fix": 0,
                "finding": 0,
                "error": 0,
                "constructs": [k["construct"] for k in item["kept_on_v1"]],
            },
        )
        entry[item["kind"]] += 1
    for entry in by_path.values():
        blocker_files.update(entry["constructs"])
    statuses = Counter(e["status"] for e in by_path.values())
    contrib = sum(any(c.startswith("tf.contrib.") for c in e["constructs"]) for e in by_path.values())
    return {
        "files": by_path,
        "kinds": kinds,
        "blockers": blocker_files,
        "migrated": statuses["migrated"],
        "kept": statuses["kept-on-compat-v1"] - contrib,
        "cannot-run": contrib,
        "failed": statuses["failed"],
    }


def assert_matches_check(page: Page, document: dict) -> None:
    expected = expected_from_check(document)
    data = page.data
    files = {f["path"]: f for f in data["files"]}
    for path, entry in expected["files"].items():
        shown = files[path]
        assert (shown["status"], shown["fixes"], shown["findings"], shown["errors"]) == (
            entry["status"],
            entry["fix"],
            entry["finding"],
            entry["error"],
        ), path
        section = page.files[path]
        assert (int(section["data-fixes"]), int(section["data-findings"])) == (entry["fix"], entry["finding"])
    unlisted = [f for path, f in files.items() if path not in expected["files"]]
    assert all(f["fixes"] == f["findings"] == f["errors"] == 0 for f in unlisted)
    totals = data["totals"]
    assert (totals["fixes"], totals["findings"], totals["errors"]) == (
        expected["kinds"]["fix"],
        expected["kinds"]["finding"],
        expected["kinds"]["error"],
    )
    categories = totals["categories"]
    shown = [categories[key] for key in ("migrated", "kept-on-compat-v1", "cannot-run", "failed")]
    assert shown == [expected[key] for key in ("migrated", "kept", "cannot-run", "failed")]
    assert {b["construct"]: b["files"] for b in data["blockers"]} == dict(expected["blockers"])
    # What the page prints is what its JSON island says.
    assert page.figures["files"] == [totals["files"]] == [len(page.files)]
    for key, count in categories.items():
        assert page.figures[key] == [count]
    for key in ("fixes", "findings", "errors"):
        assert page.figures[key] == [totals[key]]
    assert page.figures.get("blocker-files", []) == [b["files"] for b in data["blockers"]]


def test_examples_figures_equal_check_json(runner):
    examples = ROOT / "examples"
    document = check_json(runner, examples)
    page = report(runner, examples)
    assert_matches_check(page, document)
    sources = list(examples.glob("*.py")) + list(examples.glob("*.ipynb"))
    assert page.data["totals"]["files"] == len(sources)


def test_project_figures_blockers_and_anti_patterns(runner, tmp_path):
    write_tree(tmp_path, TREE)
    document = check_json(runner, "pkg", "other")
    page = report(runner, "pkg", "other")
    assert_matches_check(page, document)
    data = page.data
    categories = {f["path"]: f["category"] for f in data["files"]}
    assert categories == {
        "pkg/contrib_prog.py": "cannot-run",
        "pkg/supervised.py": "kept-on-compat-v1",
        "other/eager_numpy.py": "unchanged",
        "other/eagerly.py": "migrated",
        "other/plain.py": "skipped",
        "other/broken.py": "failed",
    }
    # Blockers link to the files they keep on v1; the anti-patterns carry the explain text.
    html = Path("report.html").read_text(encoding="utf-8")
    assert 'data-blocker="tf.contrib.layers.sparse_column_with_hash_bucket"' in html
    assert {"rule-TFM207", "rule-TFM303"} <= set(page.ids)
    rule = html.split('id="rule-TFM303"', 1)[1].split("</section>", 1)[0]
    assert f'href="#{page.files["other/eager_numpy.py"]["id"]}"' in rule and ".numpy()" in rule
    assert "What it does" in html and "Why it matters" in html
    assert "TFM113" not in [key[5:] for key in page.ids if key.startswith("rule-")]
    assert {p["package"] for p in data["packages"]} >= {"tensorflow", "numpy"}


def test_markup_in_sources_and_paths_is_escaped(runner, tmp_path):
    write_tree(tmp_path, {**TREE, "other/<b>odd&.py": TREE["other/eagerly.py"]})
    page = report(runner, "other")
    html = Path("report.html").read_text(encoding="utf-8")
    # Only the page's own two scripts: the island and the inlined script.
    scripts = [(kind, key) for kind, key, _ in page.scripts]
    assert scripts == [("application/json", "tfmodernize-data"), (None, None)]
    assert "<script>alert" not in html and "<b>odd" not in html
    assert "&lt;/script&gt;&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in html
    assert "other/<b>odd&.py" in page.files
    assert "other/<b>odd&.py" in {f["path"] for f in page.data["files"]}


def test_baseline_says_what_moved(runner, tmp_path):
    write_tree(tmp_path, TREE)
    result = invoke(runner, "report", "pkg", "other", "-o", "before.html", "--json", "before.json")
    assert result.exit_code == 0, result.output
    check_before = check_json(runner, "pkg", "other")
    Path("check_before.json").write_text(json.dumps(check_before))
    assert json.loads(Path("before.json").read_text())["diagnostics"] == check_before["diagnostics"]
    (tmp_path / "pkg/contrib_prog.py").write_text(CONTRIB_FREE)
    (tmp_path / "other/eager_numpy.py").unlink()

    moved = report(runner, "pkg", "other", "--baseline", "before.json").data["baseline"]
    assert moved["complete"] is True
    assert {(m["path"], m["before"], m["after"]) for m in moved["moved"]} == {
        ("pkg/contrib_prog.py", "cannot-run", "migrated"),
        ("other/eager_numpy.py", "unchanged", "absent"),
    }
    cannot_run = [moved[side]["categories"]["cannot-run"] for side in ("before", "after")]
    assert cannot_run == [1, 0]
    contrib = "tf.contrib.layers.sparse_column_with_hash_bucket"
    assert {"construct": contrib, "before": 1, "after": 0} in moved["blockers"]
    # The findings of the file gone, and those on the contrib name.
    gone = [
        d
        for d in check_before["diagnostics"]
        if d["kind"] == "finding"
        and (d["path"] == "other/eager_numpy.py" or "sparse_column_with_hash_bucket" in d["message"])
    ]
    assert [d["code"] for d in gone].count("TFM303") == 1 and len(gone) >= 2
    assert (moved["findings_resolved"], moved["findings_new"]) == (len(gone), 0)

    # check's JSON as the baseline: the files with diagnostics compared, the rest unknown.
    moved = report(runner, "pkg", "other", "--baseline", "check_before.json").data["baseline"]
    assert moved["complete"] is False and moved["before"]["categories"]["unchanged"] is None
    assert {(m["path"], m["before"], m["after"]) for m in moved["moved"]} == {
        ("pkg/contrib_prog.py", "cannot-run", "migrated"),
        ("other/eager_numpy.py", "unchanged", "absent"),
    }


def test_baseline_that_is_not_a_run_is_a_usage_error(runner, tmp_path):
    write_tree(tmp_path, {"a.py": TREE["other/eagerly.py"]})
    Path("sarif.json").write_text(json.dumps({"version": "2.1.0", "runs": []}))
    result = invoke(runner, "report", "a.py", "--baseline", "sarif.json")
    assert result.exit_code == 2 and "diagnostics" in result.output
    assert not Path("tfmodernize-report.html").exists()


def test_markdown_summary_is_appended(runner, tmp_path):
    write_tree(tmp_path, TREE)
    Path("summary.md").write_text("earlier step\n")
    result = invoke(runner, "report", "pkg", "other", "--markdown", "summary.md")
    assert result.exit_code == 0, result.output
    text = Path("summary.md").read_text()
    assert text.startswith("earlier step\n") and "| cannot run on TF 2.x | 1 |" in text
    assert "`tf.contrib.layers.sparse_column_with_hash_bucket` (1)" in text


@pytest.mark.parametrize(
    "status, constructs, expected",
    [
        ("kept-on-compat-v1", ["tf.Session", "tf.contrib.slim"], "cannot-run"),
        ("kept-on-compat-v1", ["tf.Session"], "kept-on-compat-v1"),
        ("migrated", [], "migrated"),
        ("failed", [], "failed"),
    ],
)
def test_category(status, constructs, expected):
    assert category(status, constructs) == expected


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")
def test_opens_in_headless_chromium(runner, tmp_path):
    """A real browser loads the page from file:// and runs its script (a link's target opens)."""
    write_tree(tmp_path, TREE)
    page = report(runner, "pkg", "other")
    target = next(key for key, attrs in page.files.items() if attrs["data-category"] == "migrated")
    anchor = page.files[target]["id"]
    with tempfile.TemporaryDirectory() as profile:
        dom = subprocess.run(
            [
                "chromium",
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                f"--user-data-dir={profile}",
                "--dump-dom",
                (tmp_path / "report.html").as_uri() + f"#{anchor}",
            ],
            capture_output=True,
            text=True,
            timeout=120,
        ).stdout
    opened = parse(dom)  # what the browser built is balanced too
    assert f'id="{anchor}"' in dom
    assert dom.split(f'id="{anchor}"', 1)[1].split(">", 2)[1].startswith("<details open")
    assert opened.data == page.data


def test_the_action_uploads_the_report_and_links_it_from_the_summary(tmp_path):
    """The Action's own scripts, mode report, run with bash as the runner would (the upload is
    GitHub's): the page and its JSON land in the uploaded folder, the summary links them."""
    yaml = pytest.importorskip("yaml")
    steps = yaml.safe_load((ROOT / "action.yml").read_text())["runs"]["steps"]
    named = {step.get("name"): step for step in steps}
    upload = named["Upload the report"]
    assert upload["uses"].startswith("actions/upload-artifact@") and "report" in upload["if"]
    assert upload["with"]["path"] == "${{ runner.temp }}/tfmodernize-report/"
    write_tree(tmp_path / "code", TREE)
    runner_temp, summary = tmp_path / "runner", tmp_path / "summary.md"
    runner_temp.mkdir()
    env = {
        "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
        "MODE": "report",
        "SELECT": "",
        "UNSAFE": "false",
        "PATHS": "code",
        "RUNNER_TEMP": str(runner_temp),
        "GITHUB_STEP_SUMMARY": str(summary),
        "URL": "https://example.invalid/artifact/1",
        "HOME": str(tmp_path),
    }
    for name in ("Check", "Link the report from the job summary"):
        done = subprocess.run(
            ["bash", "-c", named[name]["run"]], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, done.stderr
    uploaded = runner_temp / "tfmodernize-report"
    assert sorted(p.name for p in uploaded.iterdir()) == ["report.html", "report.json"]
    page = parse((uploaded / "report.html").read_text(encoding="utf-8"))
    text = summary.read_text()
    assert f"| files | {page.data['totals']['files']} |" in text
    assert "[Download the HTML report](https://example.invalid/artifact/1)" in text
