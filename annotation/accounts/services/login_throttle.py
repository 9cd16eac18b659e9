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
the only code that touches the cache.

An account is named by ``username_key`` (``annotation.accounts.usernames``): Django's normalisation (NFKC, as the
sign-in form applies it), then case folding, so ``victim1``, ``VICTIM1``, ``victim１`` and ``𝐯𝐢𝐜𝐭𝐢𝐦𝟏`` share one
count. Every failure is also written to the database (``LoginFailure``), and a count missing from the cache is
read from there (the failures of the last window): a Redis restarted empty, or one back after an outage during
which the failures were counted in the database cache, forgets nothing.
"""

from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Literal

from django.conf import settings
from django.core.cache import cache
from django.db.models import Count, Min
from django.utils import timezone
from redis.exceptions import RedisError

from annotation.accounts.models import LoginFailure
from annotation.accounts.usernames import username_key

# A try in flight that never finished (its process died) stops counting after this long.
_IN_FLIGHT_SECONDS = 60

Outcome = Literal["success", "failure", "abandoned"]


@dataclass(frozen=True)
class LoginLock:
    locked: bool
    retry_after: int = 0


@dataclass(frozen=True)
class _Scope:
    name: str
    failures_key: str
    in_flight_key: str
    limit: int


def _scopes(username: str, address: str) -> list[_Scope]:
    """The (account, address), account and address scopes; a success clears the first two."""
    # Every spelling of one account shares its counters; hashed so any byte a client sends is a safe key.
    account = username_key(username)
    named = (
        ("ua", f"{account}\0{address}", getattr(settings, "CONCORD_LOGIN_FAILURES", 5)),
        ("u", account, getattr(settings, "CONCORD_LOGIN_FAILURES_PER_ACCOUNT", 5)),
        ("a", address, getattr(settings, "CONCORD_LOGIN_FAILURES_PER_ADDRESS", 300)),
    )
    scopes = []
    for kind, value, limit in named:
        digest = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()
        scopes.append(_Scope(f"{kind}:{digest}", f"login:{kind}:fail:{digest}", f"login:{kind}:busy:{digest}", int(limit)))
    return scopes


# The ops that read the failure counts; each first makes sure the cache holds them (``_stored_failures``).
_READS_FAILURES = ("status", "reserve", "failure")


def _stored_failures(scopes: list[_Scope], window: int) -> list[tuple[int, int]]:
    """Each scope's (failures in the last window, seconds until the oldest of them leaves it) from the database."""
    now = timezone.now()
    rows = (
        LoginFailure.objects.filter(scope__in=[scope.name for scope in scopes], failed_at__gt=now - timedelta(seconds=window))
        .values("scope")
        .annotate(failures=Count("id"), oldest=Min("failed_at"))
    )
    found = {row["scope"]: row for row in rows}
    counts = []
    for scope in scopes:
        row = found.get(scope.name)
        if row is None:
            counts.append((0, window))
        else:
            left = row["oldest"] + timedelta(seconds=window) - now
            counts.append((row["failures"], max(1, int(left.total_seconds()))))
    return counts


def _failure_store(scopes: list[_Scope], window: int) -> None:
    """Write one failure in every scope to the database, and drop the failures older than the window."""
    now = timezone.now()
    LoginFailure.objects.bulk_create([LoginFailure(scope=scope.name, failed_at=now) for scope in scopes])
    LoginFailure.objects.filter(failed_at__lte=now - timedelta(seconds=window)).delete()


def _failures_forget(scopes: list[_Scope]) -> None:
    LoginFailure.objects.filter(scope__in=[scope.name for scope in scopes]).delete()


# ARGV: op, window, seconds a try stays in flight, whether a missing failure count answers -1 (read it from the
# database, then ``seed`` it), each scope's limit, and for ``seed`` each scope's count and its seconds to live.
_LUA = """
local op, window, flight, check = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local n = #KEYS / 2
local function count(key) return tonumber(redis.call('GET', key) or '0') end
local function wait(key) return math.max(1, redis.call('TTL', key)) end
if op == 'seed' then
  for i = 1, n do
    redis.call('SET', KEYS[2 * i - 1], ARGV[4 + n + i], 'EX', ARGV[4 + 2 * n + i], 'NX')
  end
  return 0
end
if check == '1' then
  for i = 1, n do
    if redis.call('EXISTS', KEYS[2 * i - 1]) == 0 then return -1 end
  end
end
if op == 'status' or op == 'reserve' then
  for i = 1, n do
    local limit, fails = tonumber(ARGV[4 + i]), count(KEYS[2 * i - 1])
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
    if count(KEYS[2 * i - 1]) >= tonumber(ARGV[4 + i]) then return wait(KEYS[2 * i - 1]) end
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
        limits = [scope.limit for scope in scopes]
        try:
            wait = int(client.eval(_LUA, len(keys), *keys, op, window, _IN_FLIGHT_SECONDS, int(op in _READS_FAILURES), *limits))
            if wait == -1:
                stored = _stored_failures(scopes, window)
                seed = [*(count for count, _ in stored), *(ttl for _, ttl in stored)]
                client.eval(_LUA, len(keys), *keys, "seed", window, _IN_FLIGHT_SECONDS, 0, *limits, *seed)
                wait = int(client.eval(_LUA, len(keys), *keys, op, window, _IN_FLIGHT_SECONDS, 0, *limits))
            return wait
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

    if op in _READS_FAILURES:
        known = cache.get_many([scope.failures_key for scope in scopes])
        missing = [scope for scope in scopes if scope.failures_key not in known or known[scope.failures_key][1] <= now]
        if missing:
            for scope, (count, ttl) in zip(missing, _stored_failures(missing, window), strict=True):
                write(scope.failures_key, count, now + ttl)
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
    scopes = _scopes(username, address)
    wait = _counters(outcome, scopes)
    if outcome == "failure":
        _failure_store(scopes, int(getattr(settings, "CONCORD_LOGIN_WINDOW_SECONDS", 900)))
    elif outcome == "success":
        _failures_forget(scopes[:2])
    return LoginLock(bool(wait), wait)
