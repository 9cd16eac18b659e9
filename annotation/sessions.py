"""Sessions whose signed-in user comes in the same read: one statement per signed-in request instead of two.

Django reads a signed-in request's user in two steps: the session (from Redis with ``cached_db``, or from the
database), then the user row by the id inside it. Here the session row carries that id in a column
(``UserSession.user``), the store selects the live user row with the session (a join), and
``annotation.backends.UserBackend`` takes that row instead of reading it again. Everything else is Django's:
``django.contrib.auth.get_user`` still checks the session's password hash and the backend still refuses an
inactive user, on the row as it is now, so a password change, a deactivation or a deletion ends the session at
the next request as before; the store is Django's database store (``clearsessions`` works).

On the work queue's claim → submit loop the Redis read and the user statement were a fifth of a cycle's CPU.
"""

from __future__ import annotations

from contextvars import ContextVar

from django.contrib.auth import SESSION_KEY
from django.contrib.auth.middleware import AuthenticationMiddleware as DjangoAuthenticationMiddleware
from django.contrib.auth.middleware import get_user as django_get_user
from django.contrib.sessions.backends.db import SessionStore as DBStore
from django.db import connection
from django.utils import timezone
from django.utils.functional import SimpleLazyObject

from annotation import rows
from annotation.models import User, UserSession

USER_PART = rows.part("u", User)
_SESSION_SQL = (
    f"SELECT s.session_data, s.expire_date, {rows.select_list([USER_PART])} FROM {UserSession._meta.db_table} s "
    f"LEFT JOIN {User._meta.db_table} u ON u.id = s.user_id WHERE s.session_key = %s AND s.expire_date > %s"
)

# The session store of the request whose user is being resolved (set by AuthenticationMiddleware below).
_resolving: ContextVar = ContextVar("concord_resolving_session", default=None)


class SessionStore(DBStore):
    loaded_user: User | None = None

    @classmethod
    def get_model_class(cls):
        return UserSession

    def create_model_instance(self, data):
        session = super().create_model_instance(data)
        user_id = str(data.get(SESSION_KEY, ""))
        session.user_id = int(user_id) if user_id.isdigit() else None
        return session

    def _get_session_from_db(self):
        if self.session_key is None:
            return None
        with connection.cursor() as cursor:
            cursor.execute(_SESSION_SQL, [self.session_key, timezone.now()])
            row = cursor.fetchone()
        if row is None:
            self._session_key = None
            return None
        user_row = row[2:]
        self.loaded_user = rows.instances(user_row, [USER_PART])["u"] if user_row[0] is not None else None
        return UserSession(session_key=self.session_key, session_data=row[0], expire_date=row[1])


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


class AuthenticationMiddleware(DjangoAuthenticationMiddleware):
    """Django's, resolving ``request.user`` with the row the session store read (see the module's docstring)."""

    def process_request(self, request):
        super().process_request(request)
        request.user = SimpleLazyObject(lambda: _get_user(request))
