"""Login throttling: too many failed log-ins lock a username from one address, and an address altogether.

Counts live in Django's cache (Redis in production, so every web process shares them). A failure
bumps two counters that expire a window after the first failure; a success clears the username's.
Limits are settings read at call time: CONCORD_LOGIN_FAILURES (per username and address, default 5),
CONCORD_LOGIN_FAILURES_PER_ADDRESS (any username, default 30), CONCORD_LOGIN_WINDOW_SECONDS (900).
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache


@dataclass(frozen=True)
class LoginLock:
    locked: bool
    retry_after: int = 0


def _limits() -> tuple[int, int, int]:
    return (
        getattr(settings, "CONCORD_LOGIN_FAILURES", 5),
        getattr(settings, "CONCORD_LOGIN_FAILURES_PER_ADDRESS", 30),
        getattr(settings, "CONCORD_LOGIN_WINDOW_SECONDS", 900),
    )


def _keys(username: str, address: str) -> tuple[str, str]:
    # Usernames are case-insensitive here so "Alice" and "alice" share one counter; hashed so any
    # byte a client sends is a safe cache key.
    user_key = hashlib.sha256(f"{username.strip().lower()}\0{address}".encode()).hexdigest()
    address_key = hashlib.sha256(address.encode()).hexdigest()
    return f"login-fail:u:{user_key}", f"login-fail:a:{address_key}"


def login_lock_status(*, username: str, address: str) -> LoginLock:
    """Whether log-ins for ``username`` from ``address`` are refused now, and for how many more seconds."""
    per_user, per_address, _window = _limits()
    now = time.time()
    for key, limit in zip(_keys(username, address), (per_user, per_address), strict=True):
        entry = cache.get(key)
        if entry and entry["count"] >= limit:
            return LoginLock(True, max(1, int(entry["expires"] - now)))
    return LoginLock(False)


def login_failure_record(*, username: str, address: str) -> None:
    """Count one failed log-in against the username at this address, and against the address."""
    _per_user, _per_address, window = _limits()
    now = time.time()
    for key in _keys(username, address):
        entry = cache.get(key)
        if entry is None or entry["expires"] <= now:
            entry = {"count": 0, "expires": now + window}
        entry["count"] += 1
        cache.set(key, entry, timeout=max(1, int(entry["expires"] - now)))


def login_success_record(*, username: str, address: str) -> None:
    """A correct password clears the username's failures from this address (not the address's total)."""
    cache.delete(_keys(username, address)[0])
