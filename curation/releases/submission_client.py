"""A team's submission to another Concord server's held-out API, over HTTP: what ``submit_predictions --remote``
sends, so a judge's author needs a token and the server's address, not a shell on it.

``POST {server}/api/v1/releases/NAME@X.Y.Z/submissions/`` (multipart: ``format``, ``judge``, ``predictions`` and
``predictions_no_tie`` files) with ``Authorization: Bearer cst_…``, then, when asked,
``POST …/submissions/<id>/publish/``. The server's refusal (its ``message``, and ``Retry-After`` past the daily
limit) is raised as it stands. No Django import: it runs wherever httpx does.
"""

from __future__ import annotations

import ipaddress
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlsplit

import httpx

LOOPBACK = ("localhost",)


class RemoteSubmissionError(Exception):
    """The server refused the submission or could not be reached; the message says which and why."""


@dataclass(frozen=True)
class Remote:
    """A Concord server's address, checked: http(s), a host, no query; plain http only to this machine unless
    allowed (the token would cross the network in the clear)."""

    base: str

    @classmethod
    def parse(cls, url: str, *, allow_http: bool = False) -> Remote:
        parts = urlsplit((url or "").strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise RemoteSubmissionError(f"--remote {url!r}: expected the server's address, e.g. https://concord.example.org")
        if parts.query or parts.fragment or parts.username or parts.password:
            raise RemoteSubmissionError(f"--remote {url!r}: give the server's address only (no query, fragment or "
                                        "credentials; the token goes in --token)")
        if parts.scheme == "http" and not allow_http and not _loopback(parts.hostname):
            raise RemoteSubmissionError(f"--remote {url!r}: plain http would send the token in the clear; use https "
                                        "(or --allow-http on a network you trust)")
        return cls(f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}")

    def submissions(self, release: str) -> str:
        return f"{self.base}/api/v1/releases/{quote(release, safe='@')}/submissions/"


def _loopback(host: str) -> bool:
    if host.lower() in LOOPBACK:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _refusal(response: httpx.Response) -> RemoteSubmissionError:
    try:
        body = response.json()
    except ValueError:
        body = {}
    message = body.get("message") if isinstance(body, dict) else None
    text = message or response.text.strip()[:300] or response.reason_phrase
    retry = response.headers.get("Retry-After")
    return RemoteSubmissionError(f"{response.request.url} answered {response.status_code}: {text}"
                                 + (f" (retry after {retry} s)" if retry and response.status_code == 429 else ""))


def submit_remote(*, remote: Remote, release: str, token: str, predictions: Path, format: str,
                  predictions_no_tie: Path | None = None, judge: str = "", publish: bool = False,
                  timeout: float = 300.0) -> dict:
    """The server's answer for the scored submission (its aggregate scores; ``published`` when asked and done)."""
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
    url = remote.submissions(release)
    try:
        with httpx.Client(timeout=timeout, follow_redirects=False) as client:
            with ExitStack() as opened:
                files = {field: (path.name, opened.enter_context(open(path, "rb")), "application/json")
                         for field, path in (("predictions", predictions), ("predictions_no_tie", predictions_no_tie))
                         if path is not None}
                response = client.post(url, headers=headers, data={"format": format, "judge": judge}, files=files)
            if response.status_code != 201:
                raise _refusal(response)
            submission = response.json()
            if publish:
                response = client.post(f"{url}{int(submission['id'])}/publish/", headers=headers, json={})
                if response.status_code != 200:
                    raise _refusal(response)
                submission = response.json()
    except httpx.HTTPError as exc:
        raise RemoteSubmissionError(f"cannot reach {url}: {exc}") from exc
    return submission
