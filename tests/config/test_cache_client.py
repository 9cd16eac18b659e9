"""config.cache.RedisCacheClient is pinned to Django's Redis backend: the private names it reaches into exist and
mean what they meant (docs/decisions/django-touch-points.md), and it answers as Django's own client does."""

from django.core.cache.backends import redis as django_redis

from config.cache import RedisCache, RedisCacheClient


def test_the_private_names_it_uses_are_still_djangos():
    assert callable(django_redis.RedisCacheClient._get_connection_pool)
    client = django_redis.RedisCacheClient(["redis://127.0.0.1:6379/11"])
    assert client._client.__module__.startswith("redis")  # the redis-py client class Django builds per call
    assert RedisCache("redis://127.0.0.1:6379/11", {})._class is RedisCacheClient


def test_one_client_per_pool_answers_as_djangos_client(redis_url):
    url = redis_url
    ours, djangos = RedisCacheClient([url]), django_redis.RedisCacheClient([url])
    assert ours.get_client(write=True) is ours.get_client(write=True)
    assert djangos.get_client(write=True) is not djangos.get_client(write=True)  # what it saves: one per call
    ours.set("concord:pin", {"a": 1}, 30)
    assert djangos.get("concord:pin", None) == {"a": 1} == ours.get("concord:pin", None)
    ours.delete("concord:pin")
