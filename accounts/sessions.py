"""Sessions whose signed-in user comes in the same read: one statement per signed-in request instead of two.

Django reads a signed-in request's user in two steps: the session (from Redis with ``cached_db``, or from the
database), then the user row by the id inside it. Here the session row carries that id in a column
(``UserSession.user``), the store selects the live user row with the session (a join), and
``accounts.backends.UserBackend`` takes that row instead of reading it again. Everything else is Django's:
``django.contrib.auth.get_user`` still checks the session's password hash and the backend still refuses an
inactive user, on the row as it is now, so a password change, a deactivation or a deletion ends the session at
the next request as before; the store is Django's database store (``clearsessions`` works).

On the work queue's claim → submit loop the Redis read and the user statement were a fifth of a cycle's CPU.

The session's data is signed (an HMAC checked on every load, in Python); a worker keeps what it has verified
(``decode``): the same text decodes to the same data, so it is checked once per worker, not once per request.

A view may also give the store a ``Companion`` before the session loads: the first read its service makes (which
may name the signed-in user as ``signed_in.id``), joined to the same statement as a ``LEFT JOIN LATERAL``. Its
columns are kept for that user only (``companion_result``) and are used only once Django has accepted the session;
a request whose session had already loaded, or that is not signed in, gets None and runs its own read.
"""

from __future__ import annotations

import functools
from contextvars import ContextVar
from dataclasses import dataclass

import orjson
from django.contrib.auth import SESSION_KEY
from django.contrib.auth.middleware import AuthenticationMiddleware as DjangoAuthenticationMiddleware
from django.contrib.auth.middleware import get_user as django_get_user
from django.contrib.sessions.backends.db import SessionStore as DBStore
from django.core.signals import setting_changed
from django.db import connection
from django.utils import timezone
from django.utils.functional import SimpleLazyObject

from accounts.models import User, UserSession
from core import rows

USER_PART = rows.part("signed_in", User)
_SESSION_FROM = (
    f"FROM {UserSession._meta.db_table} session LEFT JOIN {User._meta.db_table} signed_in ON signed_in.id = session.user_id"
)
_SESSION_WHERE = "WHERE session.session_key = %(session_key)s AND session.expire_date > %(session_now)s"
_SESSION_COLUMNS = f"session.session_data, session.expire_date, {rows.select_list([USER_PART])}"
_SESSION_SQL = f"SELECT {_SESSION_COLUMNS} {_SESSION_FROM} {_SESSION_WHERE}"
_USER_WIDTH = len(USER_PART[2])


@dataclass(frozen=True)
class Companion:
    """A read that rides on the session's statement: ``sql`` is a SELECT of one row or none with named ``params``;
    it may read the signed-in user as ``signed_in.id``."""

    sql: str
    params: dict


@functools.cache
def _with_companion(sql: str) -> str:
    return (
        f"SELECT {_SESSION_COLUMNS}, companion.* {_SESSION_FROM} LEFT JOIN LATERAL ({sql}) companion ON true "
        f"{_SESSION_WHERE}"
    )

# The session store of the request whose user is being resolved (set by AuthenticationMiddleware below).
_resolving: ContextVar = ContextVar("concord_resolving_session", default=None)

# Session data text -> its decoded data as JSON, for data whose signature has been checked (see decode).
_DECODED: dict[str, bytes] = {}
DECODED_MAX = 10_000


def _forget_decoded(setting, **kwargs):
    if setting in ("SECRET_KEY", "SECRET_KEY_FALLBACKS", "SESSION_SERIALIZER"):
        _DECODED.clear()


setting_changed.connect(_forget_decoded)


class SessionStore(DBStore):
    loaded_user: User | None = None
    # Set by a view before the session loads (see the module's docstring); the columns read come back with the user.
    companion: Companion | None = None
    _companion_row: tuple | None = None

    def companion_result(self, user) -> tuple | None:
        """The companion's columns (all None when it found no row), if they were read for ``user``: the session's
        user column is ``user`` (Django takes the user from the session's data; a test keeps the two apart)."""
        loaded = self.loaded_user
        return self._companion_row if loaded is not None and user is not None and user.pk == loaded.pk else None

    @classmethod
    def get_model_class(cls):
        return UserSession

    def decode(self, session_data):
        """Django's: the data if its signature holds, else {} (logged). Data already verified in this process
        comes back as a new copy of what was decoded, without checking the signature again."""
        verified = _DECODED.get(session_data)
        if verified is not None:
            return orjson.loads(verified)
        data = super().decode(session_data)
        if data:
            try:
                verified = orjson.dumps(data)
            except TypeError:  # what orjson does not write (an integer beyond 64 bits): decoded every time
                return data
            if len(_DECODED) >= DECODED_MAX:
                _DECODED.clear()
            _DECODED[session_data] = verified
        return data

    def create_model_instance(self, data):
        session = super().create_model_instance(data)
        user_id = str(data.get(SESSION_KEY, ""))
        session.user_id = int(user_id) if user_id.isdigit() else None
        return session

    def _get_session_from_db(self):
        if self.session_key is None:
            return None
        companion = self.companion
        params = {"session_key": self.session_key, "session_now": timezone.now()}
        with connection.cursor() as cursor:
            if companion is None:
                cursor.execute(_SESSION_SQL, params)
            else:
                cursor.execute(_with_companion(companion.sql), {**companion.params, **params})
            row = cursor.fetchone()
        if row is None:
            self._session_key = None
            return None
        user_row = row[2 : 2 + _USER_WIDTH]
        self.loaded_user = rows.instances(user_row, [USER_PART])["signed_in"] if user_row[0] is not None else None
        if companion is not None and self.loaded_user is not None:
            self._companion_row = row[2 + _USER_WIDTH :]
        return rows.loaded(UserSession, session_key=self.session_key, session_data=row[0], expire_date=row[1])


def loaded_user(user_id) -> User | None:
    """The user row read with the session of the request being authenticated, if it is ``user_id``'s."""
    user = getattr(_resolving.get(), "loaded_user", None)
    return user if user is not None and str(user.pk) == str(user_id) else None


def _get_user(request):
    # Django's lazy, cached resolution; the session is loaded inside it (first access), and the backend then
    # asks loaded_user() for the row read with it.
    token = _resolving.set(request.session)
    try:
        return django_get_user(request)
    finally:
        _resolving.reset(token)


def request_user(request):
    """``request.user`` itself (the user, or AnonymousUser), not the lazy proxy the middleware puts there: the same
    object, resolved and cached as the proxy resolves it. The work queue's views hand it to the services, which
    read the annotator's id many times, and each read through the proxy costs two more Python calls."""
    user = request.user
    return _get_user(request) if isinstance(user, SimpleLazyObject) else user


class AuthenticationMiddleware(DjangoAuthenticationMiddleware):
    """Django's, resolving ``request.user`` with the row the session store read (see the module's docstring)."""

    def process_request(self, request):
        super().process_request(request)
        request.user = SimpleLazyObject(lambda: _get_user(request))
