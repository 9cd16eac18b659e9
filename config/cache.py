"""Django's Redis cache, keeping one client per connection pool."""

from django.core.cache.backends import redis


class RedisCacheClient(redis.RedisCacheClient):
    """Django's client builds a new ``redis.Redis`` for every cache call (its constructor was a third of a
    session read's CPU); one per pool serves them all, as redis-py clients are thread-safe."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class RedisCache(redis.RedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = RedisCacheClient
