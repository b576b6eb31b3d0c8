"""Post ``tfmodernize check --format review`` to a GitHub pull request, as the Action does.

    python -m tfmodernize.github --repo OWNER/NAME --pr N --review review.json

GitHub rejects a whole review if one comment is on a line the pull request did not change, so
the pull request's diff is read first (``GET /repos/{repo}/pulls/{n}/files``): a comment stays
a comment only if all its lines are lines of one hunk on the new side; the others are listed in
the review's summary. The request is retried on 5xx answers and network errors, and a 4xx
answer stops with GitHub's message. It needs ``GITHUB_TOKEN`` (``pull-requests: write``) and
reads ``GITHUB_API_URL`` (the Actions default) for the API's address. Only the standard
library: the Action installs nothing else.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
import urllib.error
import urllib.request
from typing import Any, Optional

HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")
RETRIES = 3


class GitHubError(Exception):
    """GitHub refused the request (4xx), or kept failing (5xx, network)."""


def commentable(patch: Optional[str]) -> list[set[int]]:
    """The new-side line numbers of each hunk of a file's patch (added and context lines)."""
    hunks: list[set[int]] = []
    line = 0
    for text in (patch or "").splitlines():
        start = HUNK.match(text)
        if start:
            hunks.append(set())
            line = int(start.group(1))
            continue
        if not hunks or text.startswith("-") or text.startswith("\\"):
            continue
        hunks[-1].add(line)
        line += 1
    return hunks


def split_review(review: dict[str, Any], files: list[dict[str, Any]]) -> dict[str, Any]:
    """``review`` with only the comments GitHub accepts on this diff; the rest in its body."""
    hunks = {f["filename"]: commentable(f.get("patch")) for f in files}
    kept, left = [], []
    for comment in review.get("comments", []):
        lines = set(range(comment.get("start_line", comment["line"]), comment["line"] + 1))
        if any(lines <= hunk for hunk in hunks.get(comment["path"], [])):
            kept.append(comment)
        else:
            first = comment["body"].splitlines()[0] if comment["body"] else ""
            left.append(f"- `{comment['path']}:{comment.get('start_line', comment['line'])}`: {first}")
    body = review.get("body", "tfmodernize review")
    if left:
        body += (
            "\n\nOn lines this pull request does not change (a review may only comment on changed "
            "lines):\n" + "\n".join(left)
        )
    return {**review, "body": body, "comments": kept}


class Client:
    """The few GitHub REST calls the review needs."""

    def __init__(self, api: str, token: str, *, pause: float = 1.0) -> None:
        self.api = api.rstrip("/")
        self.token = token
        self.pause = pause

    def request(self, method: str, path: str, body: Optional[dict] = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        for attempt in range(RETRIES):
            request = urllib.request.Request(
                f"{self.api}{path}",
                data=data,
                method=method,
                headers={
                    "Accept": "application/vnd.github+json",
                    "Authorization": f"Bearer {self.token}",
                    "X-GitHub-Api-Version": "2022-11-28",
                    "Content-Type": "application/json",
                    "User-Agent": "tfmodernize",
                },
            )
            try:
                with urllib.request.urlopen(request, timeout=30) as answer:
                    return json.loads(answer.read() or b"null")
            except urllib.error.HTTPError as error:
                if error.code < 500:
                    detail = error.read().decode(errors="replace")[:500]
                    raise GitHubError(f"{method} {path}: {error.code} {error.reason}: {detail}") from None
                why = f"{error.code} {error.reason}"
            except urllib.error.URLError as error:
                why = str(error.reason)
            if attempt + 1 < RETRIES:
                time.sleep(self.pause * 2**attempt)
        raise GitHubError(f"{method} {path}: still failing after {RETRIES} attempts ({why})")

    def changed_files(self, repo: str, number: int) -> list[dict[str, Any]]:
        files, page = [], 1
        while True:
            batch = self.request("GET", f"/repos/{repo}/pulls/{number}/files?per_page=100&page={page}")
            files.extend(batch)
            if len(batch) < 100:
                return files
            page += 1

    def post_review(self, repo: str, number: int, review: dict[str, Any]) -> Any:
        return self.request("POST", f"/repos/{repo}/pulls/{number}/reviews", review)


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", required=True, help="OWNER/NAME")
    parser.add_argument("--pr", type=int, required=True, help="pull request number")
    parser.add_argument("--review", required=True, help="the output of `tfmodernize check --format review`")
    args = parser.parse_args(argv)
    token = os.environ.get("GITHUB_TOKEN")
    if not token:
        print("tfmodernize.github: GITHUB_TOKEN is not set (give the job `pull-requests: write`)", file=sys.stderr)
        return 2
    with open(args.review, encoding="utf-8") as handle:
        review = json.load(handle)
    if not review.get("comments"):
        print("tfmodernize.github: nothing to review")
        return 0
    client = Client(os.environ.get("GITHUB_API_URL", "https://api.github.com"), token)
    try:
        split = split_review(review, client.changed_files(args.repo, args.pr))
        client.post_review(args.repo, args.pr, split)
    except GitHubError as error:
        print(f"tfmodernize.github: {error}", file=sys.stderr)
        return 1
    print(
        f"tfmodernize.github: posted {len(split['comments'])} comment(s) on #{args.pr}"
        f"{'' if len(split['comments']) == len(review['comments']) else ', the rest in the summary'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
