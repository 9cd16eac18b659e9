"""The authentication backend: Django's ModelBackend with a cheaper read of the signed-in user."""

import functools

from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import ValidationError
from django.db import connection

from annotation.accounts.models import User
from annotation.accounts.sessions import loaded_user, user_part
from core import rows


@functools.cache
def _user_sql() -> str:
    return f"SELECT {rows.select_list([user_part()])} FROM {User._meta.db_table} signed_in WHERE signed_in.id = %s"


class UserBackend(ModelBackend):
    """Every signed-in request needs its user: the row read with the session (``annotation.accounts.sessions``), else one
    hand-written statement, whose ORM form cost ~4× more CPU to compile than to run. Log-in, permissions and the
    active check are ModelBackend's."""

    def get_user(self, user_id):
        user = loaded_user(user_id) or self._read(user_id)
        return user if user is not None and self.user_can_authenticate(user) else None

    @staticmethod
    def _read(user_id) -> User | None:
        try:
            pk = User._meta.pk.to_python(user_id)
        except ValidationError:
            return None
        with connection.cursor() as cursor:
            cursor.execute(_user_sql(), [pk])
            row = cursor.fetchone()
        return None if row is None else rows.instances(row, [user_part()])["signed_in"]
