"""The CI suggestion bot: the review holds only comments GitHub accepts, and the poster talks to
a fake GitHub on 127.0.0.1 (no network): it posts, retries 5xx, and fails clearly on 4xx."""

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest

from tfmodernize import github
from tfmodernize.cli import app

REPO = Path(__file__).resolve().parents[1]
PATCH = "@@ -1,2 +1,3 @@\n import tensorflow as tf\n-tf.foo()\n+tf.config.experimental_run_functions_eagerly(True)\n+x = 1\n"


def test_commentable_lines_are_new_side_lines_of_each_hunk():
    patch = "@@ -1,3 +1,3 @@\n a\n-b\n+c\n d\n@@ -10,1 +10,2 @@\n e\n+f\n\\ No newline at end of file\n"
    assert github.commentable(patch) == [{1, 2, 3}, {10, 11}]
    assert github.commentable(None) == []


def test_comments_outside_the_diff_move_to_the_summary():
    review = {
        "event": "COMMENT",
        "body": "tfmodernize review",
        "comments": [
            {"path": "a.py", "line": 2, "side": "RIGHT", "body": "in the hunk"},
            {"path": "a.py", "line": 3, "start_line": 2, "side": "RIGHT", "body": "spans the hunk"},
            {"path": "a.py", "line": 9, "side": "RIGHT", "body": "outside\nmore"},
            {"path": "b.py", "line": 1, "side": "RIGHT", "body": "file not in the pull request"},
        ],
    }
    split = github.split_review(review, [{"filename": "a.py", "patch": PATCH}])
    assert [c["body"] for c in split["comments"]] == ["in the hunk", "spans the hunk"]
    assert "- `a.py:9`: outside" in split["body"] and "- `b.py:1`: file not in the pull request" in split["body"]


class FakeGitHub:
    """Answers the files of pull request 7 and records the reviews posted; ``answers`` are the
    status codes the review endpoint gives, in order."""

    def __init__(self, answers):
        self.answers = list(answers)
        self.posted = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, code, payload):
                data = json.dumps(payload).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                assert self.headers["Authorization"] == "Bearer secret"
                if self.path.startswith("/repos/o/r/pulls/7/files"):
                    self._send(200, [{"filename": "src/train.py", "patch": PATCH}])
                else:
                    self._send(404, {"message": "Not Found"})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                code = fake.answers.pop(0) if fake.answers else 200
                if code == 200:
                    fake.posted.append(body)
                    self._send(200, {"id": 1})
                else:
                    self._send(code, {"message": "Unprocessable Entity" if code == 422 else "Bad Gateway"})

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()


@pytest.fixture
def review_file(tmp_path, monkeypatch):
    """``check --format review`` on a file at src/train.py, run from the repository root."""
    from typer.testing import CliRunner

    monkeypatch.chdir(tmp_path)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "train.py").write_text(
        "import tensorflow as tf\ntf.config.experimental_run_functions_eagerly(True)\n"
    )
    result = CliRunner().invoke(
        app, ["check", "src", "--format", "review", "--no-cache", "--exit-zero", "-o", "review.json"]
    )
    assert result.exit_code == 0, result.output
    return tmp_path / "review.json"


def run_poster(fake, review_file, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "secret")
    monkeypatch.setenv("GITHUB_API_URL", fake.url)
    monkeypatch.setattr(github.time, "sleep", lambda seconds: None)
    return github.main(["--repo", "o/r", "--pr", "7", "--review", str(review_file)])


def test_the_poster_retries_5xx_and_posts_the_suggestion(review_file, monkeypatch, capsys):
    fake = FakeGitHub([502, 503])
    try:
        assert run_poster(fake, review_file, monkeypatch) == 0
    finally:
        fake.close()
    [posted] = fake.posted
    [comment] = posted["comments"]
    assert comment["path"] == "src/train.py" and comment["line"] == 2 and comment["side"] == "RIGHT"
    assert comment["body"].startswith("tfmodernize: TFM207 run-functions-eagerly")
    assert "```suggestion\ntf.config.run_functions_eagerly(True)\n```" in comment["body"]
    assert "posted 1 comment(s) on #7" in capsys.readouterr().out


def test_the_poster_fails_clearly_on_4xx(review_file, monkeypatch, capsys):
    fake = FakeGitHub([422])
    try:
        assert run_poster(fake, review_file, monkeypatch) == 1
    finally:
        fake.close()
    assert fake.posted == [] and "422 Unprocessable Entity" in capsys.readouterr().err


def test_the_poster_needs_a_token(review_file, monkeypatch, capsys):
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    assert github.main(["--repo", "o/r", "--pr", "7", "--review", str(review_file)]) == 2
    assert "GITHUB_TOKEN" in capsys.readouterr().err


def test_the_action_runs_options_the_cli_has():
    yaml = pytest.importorskip("yaml")
    action = yaml.safe_load((REPO / "action.yml").read_text())
    assert set(action["inputs"]) == {"paths", "select", "unsafe-fixes", "mode", "python-version"}
    script = next(step["run"] for step in action["runs"]["steps"] if step.get("name") == "Check")
    from typer.testing import CliRunner

    help_text = CliRunner().invoke(app, ["check", "--help"]).output
    for option in ("--format", "--exit-zero", "--no-cache", "--select", "--unsafe-fixes"):
        assert option in script and option in help_text
    assert "python -m tfmodernize.github" in script
    workflow = yaml.safe_load((REPO / "docs" / "github-workflow.yml").read_text())
    assert workflow["permissions"] == {"contents": "read", "pull-requests": "write"}


def test_the_hunks_of_a_migration_say_they_go_together(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    monkeypatch.chdir(tmp_path)
    lines = ["import tensorflow as tf", "a = tf.random_normal([2])", *["x = 1"] * 8, "b = tf.log(a)"]
    (tmp_path / "m.py").write_text("\n".join(lines) + "\n")
    review = json.loads(CliRunner().invoke(app, ["check", "m.py", "--format", "review", "--no-cache"]).stdout)
    suggestions = [c for c in review["comments"] if "```suggestion" in c["body"]]
    assert len(suggestions) == 2
    assert all("take all 2 suggestions of `m.py` together" in c["body"] for c in suggestions)
    assert all(c["body"].startswith("tfmodernize: TFM109 api-renames") for c in suggestions)
