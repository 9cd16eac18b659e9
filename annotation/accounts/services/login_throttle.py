"""Login throttling: failed log-ins lock an account at one address, an account everywhere, and an address.

Three scopes, each with its own limit per window (settings read at call time):
CONCORD_LOGIN_FAILURES (an account from one address, default 5), CONCORD_LOGIN_FAILURES_PER_ACCOUNT (an
account from any address, default 5: it counts that account's failures only, so it never blocks another
account) and CONCORD_LOGIN_FAILURES_PER_ADDRESS (any account from one address, default 300: a reverse proxy
or an office NAT puts many people behind one address, so failures on other accounts must not block a correct
password there). CONCORD_LOGIN_WINDOW_SECONDS (900) is the window. A success clears the account's failures
(from this address and from anywhere), never the address's.

A try is reserved before the password is checked: each scope counts its failures and its tries in flight,
and a try starts only while failures + tries in flight stay under the limit, so parallel attempts never
check more passwords than the limit allows. The counts change atomically (one Lua script on Redis, so every
web process shares them; one lock around the process's own cache in the embedded default). ``_counters`` is
the only code that touches the storage.
"""

from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import dataclass
from typing import Literal

from django.conf import settings
from django.core.cache import cache
from redis.exceptions import RedisError

# A try in flight that never finished (its process died) stops counting after this long.
_IN_FLIGHT_SECONDS = 60

Outcome = Literal["success", "failure", "abandoned"]


@dataclass(frozen=True)
class LoginLock:
    locked: bool
    retry_after: int = 0


@dataclass(frozen=True)
class _Scope:
    failures_key: str
    in_flight_key: str
    limit: int


def _scopes(username: str, address: str) -> list[_Scope]:
    """The (account, address), account and address scopes; a success clears the first two."""
    # Usernames are case-insensitive here so "Alice" and "alice" share one counter; hashed so any
    # byte a client sends is a safe key.
    account = username.strip().lower()
    named = (
        ("ua", f"{account}\0{address}", getattr(settings, "CONCORD_LOGIN_FAILURES", 5)),
        ("u", account, getattr(settings, "CONCORD_LOGIN_FAILURES_PER_ACCOUNT", 5)),
        ("a", address, getattr(settings, "CONCORD_LOGIN_FAILURES_PER_ADDRESS", 300)),
    )
    scopes = []
    for kind, value, limit in named:
        digest = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()
        scopes.append(_Scope(f"login:{kind}:fail:{digest}", f"login:{kind}:busy:{digest}", int(limit)))
    return scopes


_LUA = """
local op, window, flight = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local n = #KEYS / 2
local function count(key) return tonumber(redis.call('GET', key) or '0') end
local function wait(key) return math.max(1, redis.call('TTL', key)) end
if op == 'status' or op == 'reserve' then
  for i = 1, n do
    local limit, fails = tonumber(ARGV[3 + i]), count(KEYS[2 * i - 1])
    if fails >= limit then return wait(KEYS[2 * i - 1]) end
    if op == 'reserve' and fails + count(KEYS[2 * i]) >= limit then return 1 end
  end
  if op == 'reserve' then
    for i = 1, n do
      redis.call('INCR', KEYS[2 * i])
      redis.call('EXPIRE', KEYS[2 * i], flight)
    end
  end
  return 0
end
for i = 1, n do
  if count(KEYS[2 * i]) > 0 then redis.call('DECR', KEYS[2 * i]) end
  if op == 'failure' and redis.call('INCR', KEYS[2 * i - 1]) == 1 then
    redis.call('EXPIRE', KEYS[2 * i - 1], window)
  end
end
if op == 'success' then redis.call('DEL', KEYS[1], KEYS[3]) end
if op == 'failure' then
  for i = 1, n do
    if count(KEYS[2 * i - 1]) >= tonumber(ARGV[3 + i]) then return wait(KEYS[2 * i - 1]) end
  end
end
return 0
"""

_local_lock = threading.Lock()


def _counters(op: str, scopes: list[_Scope]) -> int:
    """Apply ``op`` to the scopes' counters atomically; the seconds until a refusal ends, or 0 when allowed.

    ``status`` reads; ``reserve`` starts a try unless a scope is full; ``success``, ``failure`` and
    ``abandoned`` end a try (a failure counts, a success clears the account's failures) and
    report whether the scopes are locked now."""
    window = int(getattr(settings, "CONCORD_LOGIN_WINDOW_SECONDS", 900))
    client = _redis_client()
    if client is not None:
        keys = [key for scope in scopes for key in (scope.failures_key, scope.in_flight_key)]
        args = [op, window, _IN_FLIGHT_SECONDS, *(scope.limit for scope in scopes)]
        try:
            return int(client.eval(_LUA, len(keys), *keys, *args))
        except RedisError:
            # Redis is down: count through the cache, which falls back to the database (core.cache), under this
            # process's lock. Log-ins keep working; the counts are atomic per process until Redis is back.
            pass
    with _local_lock:
        return _counters_local(op, scopes, window)


def _redis_client():
    """The cache's Redis client when the cache is Redis, else None."""
    backend = getattr(cache, "_cache", None)
    get_client = getattr(backend, "get_client", None)
    return get_client(write=True) if get_client is not None else None


def _counters_local(op: str, scopes: list[_Scope], window: int) -> int:
    """``_counters`` over the process's own cache (the embedded default); the caller holds ``_local_lock``."""
    now = time.time()

    def read(key: str) -> tuple[int, float]:
        entry = cache.get(key)
        return (entry[0], entry[1]) if entry and entry[1] > now else (0, now)

    def write(key: str, count: int, expires: float) -> None:
        cache.set(key, (count, expires), timeout=max(1, int(expires - now) + 1))

    def locked() -> int:
        for scope in scopes:
            fails, expires = read(scope.failures_key)
            if fails >= scope.limit:
                return max(1, int(expires - now))
        return 0

    if op in ("status", "reserve"):
        if wait := locked():
            return wait
        if op == "status":
            return 0
        if any(read(s.failures_key)[0] + read(s.in_flight_key)[0] >= s.limit for s in scopes):
            return 1
        for scope in scopes:
            write(scope.in_flight_key, read(scope.in_flight_key)[0] + 1, now + _IN_FLIGHT_SECONDS)
        return 0
    for scope in scopes:
        busy, expires = read(scope.in_flight_key)
        if busy > 0:
            write(scope.in_flight_key, busy - 1, expires)
        if op == "failure":
            fails, expires = read(scope.failures_key)
            write(scope.failures_key, fails + 1, expires if fails else now + window)
    if op == "success":
        cache.delete_many([scopes[0].failures_key, scopes[1].failures_key])
    return locked() if op == "failure" else 0


def login_lock_status(*, username: str, address: str) -> LoginLock:
    """Whether log-ins for ``username`` from ``address`` are refused now by failures, and for how long."""
    wait = _counters("status", _scopes(username, address))
    return LoginLock(bool(wait), wait)


def login_attempt_start(*, username: str, address: str) -> LoginLock:
    """Reserve one password check for ``username`` from ``address``; locked when a scope has no try left.

    Every start that is not locked must be followed by ``login_attempt_finish``."""
    wait = _counters("reserve", _scopes(username, address))
    return LoginLock(bool(wait), wait)


def login_attempt_finish(*, username: str, address: str, outcome: Outcome) -> LoginLock:
    """End a reserved try: a failure counts in every scope, a success clears the account's failures (from this
    address and in total, not the address's); the lock this leaves."""
    wait = _counters(outcome, _scopes(username, address))
    return LoginLock(bool(wait), wait)
