"""Secrets stay secret: no value Concord reads from its environment reaches a judge host, whatever a judge names.

A judge's key variable must match the admin's pattern and never be one Concord reads; only admins set it or move
it to another URL; judge URLs are read on save by the parser that connects, so none fails later with a 500.
"""

import re

import pytest
from django.contrib.auth.models import Permission

from annotation.accounts.models import Role
from curation.judges import keys, registry
from curation.judges.base import JudgeConfigError, PermanentJudgeError, read_secret
from curation.models import Judge
from tests.curation import prefilter_support as support
from tests.curation.test_judges_secret_leak import client_for, concord_variables
from tests.factories import CuratorFactory, UserFactory


@pytest.mark.parametrize("name", ["DJANGO_SECRET_KEY", "CONCORD_RATER_ID_SECRET", "S3_SECRET_ACCESS_KEY",
                                  "DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "AWS_SECRET_ACCESS_KEY",
                                  "PGPASSWORD", "RELEASES_S3_SECRET_ACCESS_KEY", "CONCORD_JUDGE_API_KEY_ENV_PATTERN"])
def test_a_variable_concord_reads_is_refused_as_a_judge_key_whatever_the_pattern(settings, name):
    settings.CONCORD_JUDGE_API_KEY_ENV_PATTERN = "*"
    with pytest.raises(JudgeConfigError, match=f"settings.api_key_env: {name} is a variable Concord itself reads"):
        registry.validate("openai-chat", {"base_url": "http://x/v1", "model": "m", "api_key_env": name})


def test_every_variable_concord_reads_is_in_the_deny_set():
    """The deny set is the list of what Concord reads: a new read in the code or compose file must be added."""
    read = concord_variables()
    assert {"DJANGO_SECRET_KEY", "DATABASE_URL", "CONCORD_RATER_ID_SECRET", "S3_SECRET_ACCESS_KEY"} <= read
    assert read - keys.CONCORD_VARIABLES == set()
    assert all(keys.refusal(name, "*") for name in read)


def test_a_key_variable_must_match_the_admins_pattern(settings):
    judge = {"base_url": "http://x/v1", "model": "m"}
    registry.validate("openai-chat", {**judge, "api_key_env": "CONCORD_JUDGE_KEY_OPENAI"})
    with pytest.raises(JudgeConfigError, match=r"OPENAI_API_KEY does not match CONCORD_JUDGE_KEY_\*, the pattern an "
                                               r"admin set for judge keys \(CONCORD_JUDGE_API_KEY_ENV_PATTERN\)"):
        registry.validate("openai-chat", {**judge, "api_key_env": "OPENAI_API_KEY"})
    settings.CONCORD_JUDGE_API_KEY_ENV_PATTERN = "VENDOR_*_KEY"
    registry.validate("openai-chat", {**judge, "api_key_env": "VENDOR_OPENAI_KEY"})
    with pytest.raises(JudgeConfigError, match="does not match VENDOR_"):
        registry.validate("openai-chat", {**judge, "api_key_env": "CONCORD_JUDGE_KEY_OPENAI"})
    settings.CONCORD_JUDGE_API_KEY_ENV_PATTERN = ""
    with pytest.raises(JudgeConfigError, match="no variable may hold a judge's key"):
        registry.validate("openai-chat", {**judge, "api_key_env": "VENDOR_OPENAI_KEY"})


def test_a_refused_variable_is_not_read_at_call_time(monkeypatch):
    monkeypatch.setenv("DJANGO_SECRET_KEY", "the-real-secret-key")
    with pytest.raises(PermanentJudgeError, match="DJANGO_SECRET_KEY is a variable Concord itself reads") as refused:
        read_secret("DJANGO_SECRET_KEY")
    assert "the-real-secret-key" not in str(refused.value)


@pytest.mark.django_db
def test_a_judge_stored_with_a_refused_variable_fails_at_test_time_with_the_reason(monkeypatch):
    monkeypatch.setenv("DJANGO_SECRET_KEY", "the-real-secret-key")
    pair = support.marked_pair(support.campaign(), "p")
    Judge.objects.create(name="old", backend="openai-chat",
                         settings={"base_url": "http://127.0.0.1:9/v1", "model": "m", "api_key_env": "DJANGO_SECRET_KEY"})
    admin = client_for(UserFactory(role=Role.ADMIN))
    response = admin.post("/api/v1/judges/old/test/", {"pair": pair.pk}, format="json")
    assert response.status_code == 400
    assert response.json()["message"] == (
        "judge settings cannot work: settings.api_key_env: DJANGO_SECRET_KEY is a variable Concord itself reads; "
        "a judge's key must be in a variable of its own, named like CONCORD_JUDGE_KEY_*")
    status = admin.get("/api/v1/judges/old/").json()["secrets"]["api_key_env"]
    assert status["allowed"] is False and status["present"] is False and "Concord itself reads" in status["refused"]


@pytest.mark.django_db
def test_only_admins_set_or_change_a_key_variable_or_where_a_keyed_judge_connects():
    curator, admin = client_for(CuratorFactory()), client_for(UserFactory(role=Role.ADMIN))
    keyed = {"base_url": "http://x/v1", "model": "m", "api_key_env": "CONCORD_JUDGE_KEY_OPENAI"}
    refused = curator.post("/api/v1/judges/create/", {"name": "gpt", "backend": "openai-chat", "settings": keyed},
                           format="json")
    assert refused.status_code == 403 and refused.json()["code"] == "judge_key_admin_only"
    assert "only admins set or change api_key_env" in refused.json()["message"]
    assert admin.post("/api/v1/judges/create/", {"name": "gpt", "backend": "openai-chat", "settings": keyed},
                      format="json").status_code == 201
    for change in ({"api_key_env": "CONCORD_JUDGE_KEY_OTHER"}, {"api_key_env": None}, {"base_url": "http://y/v1"}):
        response = curator.post("/api/v1/judges/gpt/update/", {"settings": {**keyed, **change}}, format="json")
        assert response.status_code == 403 and response.json()["code"] == "judge_key_admin_only", change
    moved = curator.post("/api/v1/judges/gpt/update/", {"settings": {**keyed, "base_url": "http://y/v1"}}, format="json")
    assert "only admins change where a judge with a key connects" in moved.json()["message"]
    assert Judge.objects.get(name="gpt").settings == keyed
    kept = curator.post("/api/v1/judges/gpt/update/", {"settings": {**keyed, "model": "m2"}}, format="json")
    assert kept.status_code == 200 and Judge.objects.get(name="gpt").settings["model"] == "m2"
    assert curator.post("/api/v1/judges/gpt/update/", {"enabled": False}, format="json").status_code == 200
    plain = curator.post("/api/v1/judges/create/", {"name": "local", "backend": "openai-chat",
                                                    "settings": {"base_url": "http://x/v1", "model": "m"}}, format="json")
    assert plain.status_code == 201
    assert admin.post("/api/v1/judges/gpt/update/", {"settings": {**keyed, "base_url": "http://y/v1"}},
                      format="json").status_code == 200


@pytest.mark.django_db
def test_a_staff_curator_cannot_set_a_key_variable_in_the_admin(client):
    staff = UserFactory(username="staffer", role=Role.CURATOR, is_staff=True)
    staff.user_permissions.add(*Permission.objects.filter(codename__in=["add_judge", "view_judge"]))
    client.force_login(staff)
    response = client.post("/admin/curation/judge/add/", {
        "name": "gpt", "backend": "openai-chat", "enabled": "on",
        "settings": '{"base_url": "http://x/v1", "model": "m", "api_key_env": "CONCORD_JUDGE_KEY_OPENAI"}'})
    assert response.status_code == 200 and "only admins set or change api_key_env" in response.content.decode()
    assert not Judge.objects.exists()


OCTAL = "http://0177.0.0.1:8191/v1"


@pytest.mark.django_db
def test_a_judge_url_httpx_cannot_connect_to_is_refused_on_save_with_the_reason():
    admin = client_for(UserFactory(role=Role.ADMIN))
    response = admin.post("/api/v1/judges/create/", {"name": "octal", "backend": "openai-chat",
                                                     "settings": {"base_url": OCTAL, "model": "m"}}, format="json")
    assert response.status_code == 400
    assert response.json()["message"] == (
        "settings.base_url: the host '0177.0.0.1' is an IPv4 address written in a short, octal, hexadecimal or "
        "zero-padded form (the C library reads it as 127.0.0.1), which programs read differently; write it as four "
        "decimal numbers without leading zeros")
    assert not Judge.objects.exists()


@pytest.mark.parametrize(("url", "reason"), [
    ("http://127.1/v1", "'127.1' is an IPv4 address written in a short"),
    ("http://0x7f.0.0.1/v1", "'0x7f.0.0.1' is an IPv4 address written in a short"),
    ("http://2130706433/v1", "'2130706433' is an IPv4 address written in a short"),
    ("http://1.2.3.4.5/v1", "'1.2.3.4.5' ends in a number, so URL parsers read it as an IPv4 address"),
    ("http://ex%41mple.org/v1", "'ex%41mple.org' is not a plain host name"),
    ("http://judge:80800/v1", "the port 80800 is not from 1 to 65535"),
    ("http://user:hunter2@judge/v1", "a user name or password in the URL is a secret"),
    ("http://ｅxample.org/v1", "not a URL judges can connect to: Invalid IDNA hostname"),
])
def test_judge_urls_are_read_on_save_by_the_parser_that_connects(url, reason):
    with pytest.raises(JudgeConfigError, match=re.escape(f"settings.url: the host {reason}") if reason.startswith("'")
                       else re.escape(f"settings.url: {reason}")):
        registry.validate("reward-model", {"url": url})


@pytest.mark.django_db
def test_a_stored_url_httpx_cannot_parse_is_a_clean_400_at_test_time_never_a_500():
    pair = support.marked_pair(support.campaign(), "p")
    Judge.objects.create(name="octal", backend="openai-chat", settings={"base_url": OCTAL, "model": "m"})
    Judge.objects.create(name="octal-rm", backend="reward-model", settings={"url": OCTAL})
    admin = client_for(UserFactory(role=Role.ADMIN))
    for name, where in (("octal", "base_url"), ("octal-rm", "url")):
        response = admin.post(f"/api/v1/judges/{name}/test/", {"pair": pair.pk}, format="json")
        assert response.status_code == 400, response.content
        assert response.json()["code"] == "invalid_judge_settings"
        assert response.json()["message"].startswith(f"judge settings cannot work: settings.{where}: the host '0177.0.0.1'")


def test_a_url_httpx_refuses_at_request_time_is_a_permanent_judge_error():
    import asyncio

    import httpx

    from curation.judges.openai_chat import post_json

    class Refusing:
        async def post(self, url, *, json):
            raise httpx.InvalidURL("Invalid port: '99999999'")

    with pytest.raises(PermanentJudgeError, match="has a URL judges cannot connect to: Invalid port"):
        asyncio.run(post_json(Refusing(), httpx.URL("http://x/v1"), {}, what="the endpoint"))


def test_the_default_allow_list_is_empty_and_the_default_pattern_is_the_judge_key_family():
    from config.settings import base

    assert base.CONCORD_JUDGE_ALLOWED_HOSTS == []
    assert base.CONCORD_JUDGE_API_KEY_ENV_PATTERN == keys.DEFAULT_PATTERN == "CONCORD_JUDGE_KEY_*"
