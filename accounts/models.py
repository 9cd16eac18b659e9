"""Accounts: who signs in, with which role, their sessions and one-time invitation links."""

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.contrib.sessions.base_session import AbstractBaseSession
from django.db import models


class Role(models.TextChoices):
    ANNOTATOR = "annotator", "Annotator"
    CURATOR = "curator", "Curator"
    ADMIN = "admin", "Admin"


class User(AbstractUser):
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.ANNOTATOR)

    @property
    def is_curator(self) -> bool:
        return self.role in (Role.CURATOR, Role.ADMIN) or self.is_superuser

    @property
    def is_admin_role(self) -> bool:
        return self.role == Role.ADMIN or self.is_superuser


class Invitation(models.Model):
    """A one-time link that lets a new account's person set their own password; only its token's hash is kept."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="invitations")
    token_sha256 = models.CharField(max_length=64, unique=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"invitation for {self.user_id} (until {self.expires_at:%Y-%m-%d %H:%M})"


class UserSession(AbstractBaseSession):
    """A session with its signed-in user's id in a column, so a request reads the two in one statement
    (``accounts.sessions``). Deleting the user deletes their sessions."""

    user = models.ForeignKey(User, null=True, blank=True, on_delete=models.CASCADE, related_name="+")

    @classmethod
    def get_session_store_class(cls):
        from accounts.sessions import SessionStore

        return SessionStore
