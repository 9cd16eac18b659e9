"""API rate limits per user and route family: a client that loops on an endpoint gets 429 rate_limited with
Retry-After, in the API's one error shape, from DRF's views and the work queue's door alike; a person, the soak's
raters and a cache that does not answer never see one."""

import base64
import importlib
import logging

import pytest
from django.core.cache import cache
from django.test import Client
from rest_framework.test import APIClient

from core.api import throttling
from core.api.throttling import parse_rate
from tests.factories import CuratorFactory, UserFactory
from tests.workqueue.assignment_helpers import AB_TIE_ANSWER, ab_tie_campaign

pytestmark = pytest.mark.django_db

# A moment 4 s into a 10 s window (and 34 s into a minute): every request of a burst falls in one window.
NOW = 1_700_000_014.0


@pytest.fixture
def frozen(monkeypatch):
    """The throttle's clock stopped at NOW; ``frozen.advance(seconds)`` moves it."""

    class Clock:
        now = NOW

        def advance(self, seconds: float) -> None:
            self.now += seconds

    clock = Clock()
    monkeypatch.setattr(throttling.time, "time", lambda: clock.now)
    cache.clear()
    yield clock
    cache.clear()


@pytest.fixture
def small_rates(settings):
    settings.CONCORD_API_RATES = {**settings.CONCORD_API_RATES, "rater-read": "5/m", "claim": "4/10s", "submit": "4/10s",
                                  "curator-read": "3/m", "leaderboard": "2/m"}
    return settings.CONCORD_API_RATES


def session(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_rate_is_a_count_per_period_with_an_optional_multiple():
    assert parse_rate("120/m") == (120, 60)
    assert parse_rate("100/10s") == (100, 10)
    assert parse_rate("2/hour") == (2, 3600)
    assert parse_rate("off") is None and parse_rate(None) is None
    with pytest.raises(ValueError, match="CONCORD_API_RATES: 'fast' is not a rate"):
        parse_rate("fast")


def test_the_default_rates_refuse_a_300_request_burst_and_let_a_person_and_the_soaks_raters_through():
    """The documented defaults (config/settings/base.py): a burst of 300 in one window is over the limit of each
    family the report named; a person (a claim and a submit every few seconds, the statistics every 2 s) and the
    soak's machine raters (about 5 claims and 5 submits a second each, bench/README_soak.md) are far below."""
    defaults = importlib.import_module("config.settings.base").CONCORD_API_RATES
    per_second = {family: limit / window for family, (limit, window) in
                  ((family, parse_rate(rate)) for family, rate in defaults.items())}
    for family in ("rater-read", "claim", "submit"):
        assert parse_rate(defaults[family])[0] < 300, family
    assert per_second["claim"] >= 2 * 5 and per_second["submit"] >= 2 * 5
    assert per_second["rater-read"] >= 4 * 0.5
    assert per_second["rater-write"] >= 2 / 0.7, "a draft saved 0.7 s after every change"


def _burst(send, count: int) -> list[int]:
    return [send().status_code for _ in range(count)]


@pytest.mark.parametrize("endpoint", ["me/stats", "next-preview"])
def test_a_burst_on_a_raters_read_endpoint_gets_429_with_retry_after_after_the_limit(endpoint, frozen, small_rates):
    campaign, (rater, *_), _ = ab_tie_campaign(pairs=2)
    url = "/api/v1/me/stats/" if endpoint == "me/stats" else f"/api/v1/campaigns/{campaign.slug}/next-preview/"
    client = session(rater)
    answers = [client.get(url) for _ in range(30)]
    assert [answer.status_code for answer in answers[:5]] == [200] * 5
    assert {answer.status_code for answer in answers[5:]} == {429}
    refused = answers[-1]
    assert refused["Retry-After"] == "26"  # the minute's window ends 26 s after NOW
    assert refused.json() == {
        "code": "rate_limited",
        "message": "too many requests of this kind (rater-read): at most 5 in 60 s; try again in 26 s",
        "extra": {"family": "rater-read", "limit": 5, "window_seconds": 60, "retry_after": 26},
    }
    frozen.advance(26)
    assert client.get(url).status_code == 200, "the next window starts afresh"


def test_a_burst_of_claims_is_refused_by_the_door_and_by_drf_alike(frozen, small_rates):
    """A signed-in browser's claim is answered by the work queue's door, HTTP Basic's by DRF: the same limit, the
    same 429."""
    campaign, (rater, other, _), _ = ab_tie_campaign(pairs=3)
    url = f"/api/v1/campaigns/{campaign.slug}/claim/"
    door = session(rater)
    statuses = _burst(lambda: door.post(url), 30)
    assert statuses[:4] == [200] * 4 and set(statuses[4:]) == {429}
    refused = door.post(url)
    assert refused["Retry-After"] == "6" and refused.json()["code"] == "rate_limited"
    assert refused.json()["extra"] == {"family": "claim", "limit": 4, "window_seconds": 10, "retry_after": 6}
    other.set_password("pw-of-other")
    other.save()
    token = base64.b64encode(f"{other.username}:pw-of-other".encode()).decode()
    basic = Client(HTTP_AUTHORIZATION=f"Basic {token}")
    statuses = _burst(lambda: basic.post(url), 30)
    assert statuses[:4] == [200] * 4 and set(statuses[4:]) == {429}, "each user has a count of their own"
    drf_refused = basic.post(url)
    assert drf_refused["Retry-After"] == "6"
    assert drf_refused.json() == {**refused.json()}


def test_one_familys_limit_leaves_the_others_alone(frozen, small_rates):
    campaign, (rater, *_), _ = ab_tie_campaign(pairs=2)
    client = session(rater)
    assert 429 in _burst(lambda: client.get("/api/v1/me/stats/"), 10)
    claimed = client.post(f"/api/v1/campaigns/{campaign.slug}/claim/")
    assert claimed.status_code == 200
    submitted = client.post(f"/api/v1/assignments/{claimed.json()['assignment']}/submit/", {"values": AB_TIE_ANSWER},
                            content_type="application/json", HTTP_IDEMPOTENCY_KEY="k1")
    assert submitted.status_code == 200


def test_curator_reads_and_the_leaderboard_have_their_own_limits(frozen, small_rates):
    curator = APIClient()
    curator.force_authenticate(CuratorFactory())
    assert _burst(lambda: curator.get("/api/v1/judges/"), 5) == [200, 200, 200, 429, 429]
    leaderboard = [curator.get("/api/v1/leaderboard/models/").status_code for _ in range(4)]
    assert leaderboard[2:] == [429, 429] and 429 not in leaderboard[:2]


def test_with_the_cache_unreachable_the_limits_are_off_and_the_api_answers(settings, small_rates, caplog):
    """The cache is Redis in production; when it does not answer, a request is neither refused nor a 500."""
    from tests.redis_server import free_port

    settings.CACHES = {"default": {"BACKEND": "core.cache.RedisCache", "LOCATION": f"redis://127.0.0.1:{free_port()}/0",
                                   "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1}}}
    campaign, (rater, *_), _ = ab_tie_campaign(pairs=2)
    client = session(rater)
    with caplog.at_level(logging.WARNING):
        assert _burst(lambda: client.get("/api/v1/me/stats/"), 8) == [200] * 8
        assert _burst(lambda: client.post(f"/api/v1/campaigns/{campaign.slug}/claim/"), 6) == [200] * 6
    assert "API rate limits are off while the cache's Redis does not answer" in caplog.text


def test_on_redis_the_count_is_shared_and_a_redis_that_stops_lifts_the_limit(settings, small_rates, frozen,
                                                                              private_redis, monkeypatch):
    from core import cache as cache_module

    monkeypatch.setattr(cache_module, "RETRY_REDIS_SECONDS", 0.0)
    settings.CACHES = {"default": {"BACKEND": "core.cache.RedisCache", "LOCATION": private_redis.url(),
                                   "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1}}}
    rater = UserFactory()
    statuses = _burst(lambda: session(rater).get("/api/v1/me/stats/"), 8)
    assert statuses == [200] * 5 + [429] * 3, "every client of the user, one count"
    private_redis.stop()
    assert _burst(lambda: session(rater).get("/api/v1/me/stats/"), 3) == [200] * 3


def test_a_submission_the_door_hands_to_drf_counts_once(frozen, small_rates):
    campaign, (rater, *_), _ = ab_tie_campaign(pairs=2)
    client = session(rater)
    assignment = client.post(f"/api/v1/campaigns/{campaign.slug}/claim/").json()["assignment"]
    url = f"/api/v1/assignments/{assignment}/submit/"
    malformed = {"values": AB_TIE_ANSWER, "time_on_item_ms": "soon"}
    statuses = _burst(lambda: client.post(url, malformed, content_type="application/json", HTTP_IDEMPOTENCY_KEY="k"), 5)
    assert statuses == [400, 400, 400, 400, 429]


def test_rates_come_from_the_environment_and_a_bad_one_fails_the_check():
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    script = ("import django; django.setup(); from django.conf import settings as s; r = s.CONCORD_API_RATES;"
              "print(r['claim'], r['leaderboard'], r['submit'])")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.local", "CONCORD_API_RATES": "claim=300/10s,leaderboard=off"}
    shown = subprocess.run([sys.executable, "-c", script], cwd=root, env=env, capture_output=True, text=True, timeout=60)
    assert shown.stdout.split() == ["300/10s", "off", "100/10s"], shown.stderr
    env["CONCORD_API_RATES"] = "claim=lots"
    check = subprocess.run([sys.executable, "manage.py", "check"], cwd=root, env=env, capture_output=True, text=True,
                           timeout=120)
    assert check.returncode != 0
    assert "concord.E101" in check.stderr and "'lots' is not a rate" in check.stderr
