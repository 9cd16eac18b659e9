"""Django's Redis cache, serving from the database while Redis is down."""

import logging
import time

from django.core.cache.backends import redis
from django.core.cache.backends.db import DatabaseCache

logger = logging.getLogger(__name__)

FALLBACK_TABLE = "core_cacheentry"
# After Redis fails, calls go to the database for this long before Redis is tried again, so a request
# pays at most one failed connection per interval, not one per cache call.
RETRY_REDIS_SECONDS = 5.0


def _degrading(name: str):
    def call(self, *args, **kwargs):
        if self.redis_up():
            try:
                return getattr(super(RedisCache, self), name)(*args, **kwargs)
            except self._redis_errors as exc:
                self.redis_failed(exc)
        return getattr(self._fallback, name)(*args, **kwargs)

    call.__name__ = name
    return call


class RedisCache(redis.RedisCache):
    """Redis while it answers; while it does not, Django's database cache in ``core_cacheentry`` (a migration makes
    it), so log-ins, their throttling and anything else cached keep working. Counts kept during an outage stay in
    the database and are not merged back into Redis."""

    def __init__(self, server, params):
        super().__init__(server, params)
        import redis as redis_py

        self._redis_errors = (redis_py.ConnectionError, redis_py.TimeoutError)
        self._redis_down_until = 0.0
        self._fallback = DatabaseCache(FALLBACK_TABLE, {"KEY_PREFIX": self.key_prefix, "VERSION": self.version})

    def redis_up(self) -> bool:
        """False for RETRY_REDIS_SECONDS after Redis failed: callers of its client (rate limits) skip it meanwhile."""
        return time.monotonic() >= self._redis_down_until

    def redis_failed(self, exc: Exception) -> None:
        self._redis_down_until = time.monotonic() + RETRY_REDIS_SECONDS
        logger.warning("cache: Redis is unreachable (%s); using the database for %.0f s", exc, RETRY_REDIS_SECONDS)

    add = _degrading("add")
    get = _degrading("get")
    set = _degrading("set")
    touch = _degrading("touch")
    delete = _degrading("delete")
    get_many = _degrading("get_many")
    has_key = _degrading("has_key")
    incr = _degrading("incr")
    set_many = _degrading("set_many")
    delete_many = _degrading("delete_many")
    clear = _degrading("clear")
