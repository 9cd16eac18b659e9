"""Sessions whose signed-in user comes in the same read: one statement per signed-in request instead of two.

Django reads a signed-in request's user in two steps: the session (from Redis with ``cached_db``, or from the
database), then the user row by the id inside it. Here the session row carries that id in a column
(``UserSession.user``), the store selects the live user row with the session (a join), and
``annotation.accounts.backends.UserBackend`` takes that row instead of reading it again. Everything else is Django's:
``django.contrib.auth.get_user`` still checks the session's password hash and the backend still refuses an
inactive user, on the row as it is now, so a password change, a deactivation or a deletion ends the session at
the next request as before; the store is Django's database store (``clearsessions`` works).

On the work queue's claim → submit loop the Redis read and the user statement were a fifth of a cycle's CPU.

The session's data is signed (an HMAC checked on every load, in Python); a worker keeps what it has verified
(``decode``): the same text decodes to the same data, so it is checked once per worker, not once per request.
"""

from __future__ import annotations

import functools
from contextvars import ContextVar

import orjson
from django.contrib.auth import SESSION_KEY
from django.contrib.auth.middleware import AuthenticationMiddleware as DjangoAuthenticationMiddleware
from django.contrib.auth.middleware import get_user as django_get_user
from django.contrib.sessions.backends.db import SessionStore as DBStore
from django.core.signals import setting_changed
from django.db import connection
from django.utils import timezone
from django.utils.functional import SimpleLazyObject

from annotation.accounts.models import User, UserSession
from core import rows


@functools.cache
def user_part() -> rows.Part:
    """The signed-in user's columns, as the session statement and the backend read them."""
    return rows.part("signed_in", User)


@functools.cache
def _session_sql() -> str:
    """The session's row and its signed-in user's, joined; built on first use from the models' _meta."""
    return (
        f"SELECT session.session_data, {rows.select_list([user_part()])} "
        f"FROM {UserSession._meta.db_table} session "
        f"LEFT JOIN {User._meta.db_table} signed_in ON signed_in.id = session.user_id "
        "WHERE session.session_key = %(session_key)s AND session.expire_date > %(session_now)s"
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

    def load(self):
        """Django's: the session's data, or {} (and no key, as Django's stores leave it) when the session is missing
        or expired. The signed-in user's row comes in the same statement and waits in ``loaded_user``."""
        self.loaded_user = None
        if self.session_key is None:
            return {}
        with connection.cursor() as cursor:
            cursor.execute(_session_sql(), {"session_key": self.session_key, "session_now": timezone.now()})
            row = cursor.fetchone()
        if row is None:
            self._session_key = None
            return {}
        session_data, *user_row = row
        if user_row[0] is not None:
            self.loaded_user = rows.instances(user_row, [user_part()])["signed_in"]
        return self.decode(session_data)


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
