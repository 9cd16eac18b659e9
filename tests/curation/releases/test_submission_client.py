"""The address submit_predictions --remote sends a token to: a server's root over https (or http on this machine)."""

import pytest

from curation.releases.submission_client import Remote, RemoteSubmissionError


@pytest.mark.parametrize(("url", "allow_http", "problem"), [
    ("concord.example.org", False, "expected the server's address"),
    ("ftp://concord.example.org", False, "expected the server's address"),
    ("http://concord.example.org", False, "plain http would send the token in the clear"),
    ("https://concord.example.org/?next=x", False, "no query"),
    ("https://user:pw@concord.example.org", False, "credentials"),
])
def test_a_remote_address_that_would_leak_or_mislead_is_refused(url, allow_http, problem):
    with pytest.raises(RemoteSubmissionError, match=problem):
        Remote.parse(url, allow_http=allow_http)


@pytest.mark.parametrize(("url", "allow_http", "base"), [
    ("https://concord.example.org/", False, "https://concord.example.org"),
    ("https://example.org/concord/", False, "https://example.org/concord"),
    ("http://127.0.0.1:8000", False, "http://127.0.0.1:8000"),
    ("http://localhost:8000/", False, "http://localhost:8000"),
    ("http://concord.lan", True, "http://concord.lan"),
])
def test_a_remote_address_is_the_servers_root(url, allow_http, base):
    remote = Remote.parse(url, allow_http=allow_http)
    assert remote.base == base
    assert remote.submissions("fox@1.0.0") == f"{base}/api/v1/releases/fox@1.0.0/submissions/"
