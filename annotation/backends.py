"""The authentication backend: Django's ModelBackend with a cheaper read of the signed-in user."""

from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import ValidationError
from django.db import connection

from annotation import rows
from annotation.models import User

_USER_PART = rows.part("u", User)
_USER_SQL = f"SELECT {rows.select_list([_USER_PART])} FROM {User._meta.db_table} u WHERE u.id = %s"


class UserBackend(ModelBackend):
    """Every signed-in request reads its user: here one hand-written statement, whose ORM form cost ~4× more CPU
    to compile than to run. Log-in, permissions and the active check are ModelBackend's."""

    def get_user(self, user_id):
        try:
            pk = User._meta.pk.to_python(user_id)
        except ValidationError:
            return None
        with connection.cursor() as cursor:
            cursor.execute(_USER_SQL, [pk])
            row = cursor.fetchone()
        if row is None:
            return None
        user = rows.instances(row, [_USER_PART])["u"]
        return user if self.user_can_authenticate(user) else None
