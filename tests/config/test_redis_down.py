"""With Redis stopped (a private redis-server the test starts), log-ins, HTTP Basic auth and their throttle keep
working: the cache degrades to the database, and sessions live there already."""

import base64

import pytest
from django.core.cache import cache
from django.urls import reverse

from core.models import CacheEntry
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def redis_cache(settings, private_redis):
    settings.CACHES = {"default": {"BACKEND": "core.cache.RedisCache", "LOCATION": private_redis.url(),
                                   "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 2}}}
    return private_redis


def log_in(client, password, address="10.3.0.1"):
    return client.post(reverse("login"), {"username": "carol", "password": password}, REMOTE_ADDR=address)


def basic(client, password):
    token = base64.b64encode(f"carol:{password}".encode()).decode()
    return client.get(reverse("api-my-stats"), HTTP_AUTHORIZATION=f"Basic {token}", REMOTE_ADDR="10.3.0.2")


def test_the_cache_uses_redis_while_it_answers(redis_cache):
    import redis

    cache.set("probe", 1)
    assert redis.Redis.from_url(redis_cache.url()).dbsize() == 1
    assert not CacheEntry.objects.exists()


def test_a_log_in_with_redis_stopped_signs_in_and_keeps_its_session(client, redis_cache):
    UserFactory(username="carol")
    redis_cache.stop()
    answer = log_in(client, "pw")
    assert answer.status_code == 302
    assert client.get(reverse("api-my-stats")).status_code == 200


def test_failed_log_ins_with_redis_stopped_are_counted_in_the_database_and_lock_the_account(client, redis_cache,
                                                                                           settings):
    UserFactory(username="carol")
    redis_cache.stop()
    statuses = [log_in(client, "wrong").status_code for _ in range(settings.CONCORD_LOGIN_FAILURES)]
    assert statuses[0] == 200 and statuses[-1] == 429
    assert CacheEntry.objects.exists()
    assert log_in(client, "pw").status_code == 429
    assert "_auth_user_id" not in client.session


def test_http_basic_auth_with_redis_stopped_answers_and_still_refuses_a_wrong_password(client, redis_cache):
    UserFactory(username="carol")
    redis_cache.stop()
    assert basic(client, "pw").status_code == 200
    assert basic(client, "wrong").status_code == 403


def test_the_cache_returns_to_redis_once_it_is_back(redis_cache, monkeypatch):
    import redis

    from core import cache as cache_module

    monkeypatch.setattr(cache_module, "RETRY_REDIS_SECONDS", 0.0)
    redis_cache.stop()
    cache.set("during", 1)
    assert cache.get("during") == 1
    redis_cache.start()
    cache.set("after", 2)
    assert redis.Redis.from_url(redis_cache.url()).dbsize() == 1
