"""API rate limits per user and route family, through DRF's throttle hook.

A view names its family in ``throttle_scope`` (DRF's convention); one that names none is ``curator-read`` for
GET, HEAD and OPTIONS and ``curator-write`` otherwise. A family's rate is ``settings.CONCORD_API_RATES[family]``,
read on every request: ``N/period``, the period ``s``, ``m``, ``h`` or ``d`` with an optional count
(``100/10s``); ``off`` (or None) lifts it. Each signed-in user has their own count per family, a signed-out
client one per address.

The count is a fixed window: one counter per (family, user, window), incremented by each request (one Lua call
on Redis; ``add`` then ``incr`` on any other cache). Over the limit the request is refused with 429
``rate_limited`` in the API's one error shape and ``Retry-After`` (the seconds until the window ends).

The counters live in the configured cache (Redis in production). While it does not answer the limits are off,
with a warning in the log: a rate limit must never turn a working API into 500s, and the database fallback of
``core.cache`` is for log-ins, not for a write on every API request.
"""

from __future__ import annotations

import functools
import logging
import math
import re
import time

from django.conf import settings
from django.core import checks
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from rest_framework.throttling import BaseThrottle

from core.errors import ApplicationError
from core.web.proxies import client_address

logger = logging.getLogger(__name__)

READ_METHODS = ("GET", "HEAD", "OPTIONS")
RATE = re.compile(r"^\s*(\d+)\s*/\s*(\d*)\s*([smhd])[a-z]*\s*$")
SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}

_INCR = """
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return n
"""


@functools.lru_cache(maxsize=64)
def parse_rate(rate: str | None) -> tuple[int, int] | None:
    """(requests, window seconds) of a rate such as ``120/m`` or ``100/10s``; None for ``off``."""
    if rate is None or str(rate).strip().lower() in ("", "off", "none"):
        return None
    match = RATE.match(str(rate))
    if match is None or int(match.group(1)) < 1:
        raise ValueError(f"CONCORD_API_RATES: {rate!r} is not a rate such as '120/m', '100/10s' or 'off'")
    count, multiple, unit = match.groups()
    return int(count), int(multiple or 1) * SECONDS[unit]


@checks.register(checks.Tags.security)
def rates_check(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """A rate that does not parse is reported by ``manage.py check`` (and at start-up), not on a request."""
    errors: list[checks.CheckMessage] = []
    for family, rate in getattr(settings, "CONCORD_API_RATES", {}).items():
        try:
            parse_rate(rate)
        except ValueError as exc:
            errors.append(checks.Error(f"{exc} (family {family!r})", id="concord.E101"))
    return errors


def family_of(request, view) -> str:
    return getattr(view, "throttle_scope", None) or ("curator-read" if request.method in READ_METHODS else "curator-write")


@functools.cache
def _incr_script():
    """_INCR sent by its SHA (EVALSHA; loaded into a server the first time it answers NOSCRIPT): about half the time
    of sending the script with every request."""
    from redis.commands.core import Script

    return Script(None, _INCR.encode())


def _hit(key: str, window: int) -> int | None:
    """The counter ``key`` after this request, or None when the cache cannot count (the limit is then off)."""
    backend = caches["default"]
    if isinstance(backend, DjangoRedisCache):
        redis_up = getattr(backend, "redis_up", None)
        if redis_up is not None and not redis_up():
            return None
        try:
            client = backend._cache.get_client(key, write=True)
            return int(_incr_script()(keys=[key], args=[window], client=client))
        except Exception as exc:  # any failure of the cache lifts the limit, never the request
            failed = getattr(backend, "redis_failed", None)
            if failed is not None:
                failed(exc)
            logger.warning("API rate limits are off while the cache's Redis does not answer (%s)", exc)
            return None
    try:
        if backend.add(key, 1, timeout=window):
            return 1
        return backend.incr(key)
    except ValueError:  # the counter expired between add and incr: this request opens the next window
        backend.add(key, 1, timeout=window)
        return 1
    except Exception as exc:
        logger.warning("API rate limits are off while the cache does not answer (%s)", exc)
        return None


class RouteFamilyThrottle(BaseThrottle):
    """DRF's throttle hook, answered by ``CONCORD_API_RATES``. A refusal raises the ApplicationError (429) itself, so
    that it carries the family, the limit and Retry-After, in the same shape from DRF's views and the work queue's
    door (``annotation.workqueue.hotpath``)."""

    def allow_request(self, request, view) -> bool:
        http_request = getattr(request, "_request", request)
        # The door counted this request already and then handed it to DRF's dispatch (a body it does not take).
        if getattr(http_request, "concord_rate_counted", False):
            return True
        http_request.concord_rate_counted = True
        family = family_of(request, view)
        rate = parse_rate(getattr(settings, "CONCORD_API_RATES", {}).get(family))
        if rate is None:
            return True
        limit, window = rate
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            ident = f"u{user.pk}"
        else:
            ident = "a" + client_address(http_request)
        now = time.time()
        count = _hit(f"rate:{family}:{ident}:{int(now // window)}", window + 1)
        if count is None or count <= limit:
            return True
        retry_after = max(1, math.ceil(window - now % window))
        raise ApplicationError(
            f"too many requests of this kind ({family}): at most {limit} in {window} s; try again in {retry_after} s",
            code="rate_limited", status_code=429, headers={"Retry-After": str(retry_after)},
            extra={"family": family, "limit": limit, "window_seconds": window, "retry_after": retry_after},
        )
