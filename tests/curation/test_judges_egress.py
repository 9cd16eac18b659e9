"""Judges reach only what an admin allows: inside addresses are refused unless listed, after DNS, and no redirect."""

import ipaddress

import pytest
from rest_framework.test import APIClient

from curation.judges import openai_chat, registry
from curation.judges.base import JudgeConfigError, MediaStore
from curation.judges.egress import refusal
from curation.judges.runner import JudgeRunner, WorkItem
from curation.models import Judge
from tests.curation.judge_server import JudgeServer, Reply, json_verdict
from tests.curation.test_judges_http import FORWARD
from tests.factories import CuratorFactory


def judge_call(base_url: str):
    backend = registry.build(name="j1", backend="openai-chat", media=MediaStore(),
                             settings={"base_url": base_url, "model": "m", "max_retries": 0, "timeout_s": 2})
    results = []
    JudgeRunner({"j1": backend}).run([WorkItem("j1", ("k",), FORWARD)], deliver=results.extend)
    return results[0][1]


@pytest.mark.django_db
def test_a_judge_url_on_127_0_0_1_without_an_allow_list_entry_is_refused_when_saved(settings):
    settings.CONCORD_JUDGE_ALLOWED_HOSTS = ["*"]
    client = APIClient()
    client.force_authenticate(CuratorFactory())
    response = client.post("/api/v1/judges/create/", {"name": "inside", "backend": "openai-chat", "settings": {
        "base_url": "http://127.0.0.1:6379/v1", "model": "m"}}, format="json")
    assert response.status_code == 400
    assert response.json()["message"] == (
        "settings.base_url: the judge host 127.0.0.1 is a private, loopback or link-local address; "
        "an admin must list it in CONCORD_JUDGE_ALLOWED_HOSTS to allow it")
    assert not Judge.objects.filter(name="inside").exists()
    for url in ("http://169.254.169.254/latest/meta-data", "http://[::1]:8000/v1", "http://10.0.0.8/v1",
                "http://[::ffff:127.0.0.1]/v1", "http://0.0.0.0:8000/v1"):
        with pytest.raises(JudgeConfigError, match="private, loopback or link-local"):
            registry.validate("reward-model", {"url": url})


def test_a_judge_host_whose_name_resolves_to_loopback_is_refused_before_any_byte_is_sent(settings):
    """``localhost`` passes the check on save (it is a name); the connection checks what it resolves to."""
    settings.CONCORD_JUDGE_ALLOWED_HOSTS = ["*"]
    with JudgeServer(lambda seen: Reply(content=json_verdict("A"))) as server:
        call = judge_call(f"http://localhost:{server.port}/v1")
        assert server.count() == 0
    assert call.label == "invalid" and call.attempts == 1
    assert call.error in {f"the judge host 'localhost' ({loopback}) is a private, loopback or link-local address; "
                          "an admin must list it in CONCORD_JUDGE_ALLOWED_HOSTS to allow it" for loopback in ("127.0.0.1", "::1")}


def test_a_listed_inside_host_is_reached(settings):
    settings.CONCORD_JUDGE_ALLOWED_HOSTS = ["*", "127.0.0.0/8"]
    with JudgeServer(lambda seen: Reply(content=json_verdict("A"))) as server:
        call = judge_call(f"http://localhost:{server.port}/v1")
        assert server.count() == 1
    assert (call.label, call.error) == ("A", "")


def test_a_redirect_is_not_followed(settings):
    """A public-looking judge that redirects inside gets nothing from there: the redirect itself is the error."""
    with JudgeServer(lambda seen: Reply(content=json_verdict("A"))) as inside:
        target = f"{inside.url}/v1/chat/completions"
        with JudgeServer(lambda seen: Reply(status=307, headers={"location": target}, body=b"{}")) as redirector:
            call = judge_call(f"{redirector.url}/v1")
        assert inside.count() == 0
    assert call.error == (f"the endpoint answered HTTP 307 (a redirect to {target!r}); judges follow no redirects: "
                          "set the final URL")


def test_without_a_star_only_listed_hosts_are_reachable(settings):
    settings.CONCORD_JUDGE_ALLOWED_HOSTS = ["*.example.org", "api.openai.com"]
    registry.validate("reward-model", {"url": "https://rm.example.org/score"})
    registry.validate("reward-model", {"url": "https://api.openai.com/v1"})
    with pytest.raises(JudgeConfigError, match="'evil.example.com' is not in CONCORD_JUDGE_ALLOWED_HOSTS"):
        registry.validate("reward-model", {"url": "https://evil.example.com/v1"})
    settings.CONCORD_JUDGE_ALLOWED_HOSTS = []
    with pytest.raises(JudgeConfigError, match="is not in CONCORD_JUDGE_ALLOWED_HOSTS"):
        registry.validate("reward-model", {"url": "https://api.openai.com/v1"})


def test_the_rule_over_resolved_addresses():
    def address(text):
        return ipaddress.ip_address(text)

    assert refusal("api.openai.com", address("104.18.7.192"), ["*"]) is None
    assert "private" in refusal("api.openai.com", address("192.168.1.4"), ["*"])
    assert "private" in refusal("cgnat", address("100.64.0.9"), ["*"])
    assert refusal("vllm", address("172.18.0.4"), ["*", "vllm"]) is None
    assert refusal("vllm", address("172.18.0.4"), ["172.16.0.0/12"]) is None
    assert refusal("api.openai.com", address("104.18.7.192"), ["vllm"]) is not None


def test_a_reply_larger_than_the_limit_is_not_read_to_the_end(monkeypatch):
    monkeypatch.setattr(openai_chat, "MAX_REPLY_BYTES", 1_000)
    with JudgeServer(lambda seen: Reply(body=b"[" + b"0," * 50_000 + b"0]")) as server:
        call = judge_call(f"{server.url}/v1")
    assert call.error == "the judge answered more than 1,000 bytes" and call.raw_output == ""
