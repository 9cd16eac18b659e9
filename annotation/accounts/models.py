"""Accounts: who signs in, with which role, their sessions, one-time invitation links, failed log-ins and the trail of
what was done to an account by someone else."""

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.contrib.sessions.base_session import AbstractBaseSession
from django.db import models
from django.db.models.functions import Lower


class Role(models.TextChoices):
    ANNOTATOR = "annotator", "Annotator"
    CURATOR = "curator", "Curator"
    ADMIN = "admin", "Admin"


# (password hash, SECRET_KEY) -> Django's session auth hash of that password under that secret (see
# User.get_session_auth_hash).
_SESSION_AUTH_HASHES: dict[tuple[str, str], str] = {}
SESSION_AUTH_HASHES_MAX = 10_000


class User(AbstractUser):
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.ANNOTATOR)

    class Meta(AbstractUser.Meta):
        constraints = [
            # One account per e-mail address under any capitalisation; accounts without one may be many.
            models.UniqueConstraint(Lower("email"), condition=~models.Q(email=""), name="user_email_unique_ci"),
        ]

    def get_session_auth_hash(self) -> str:
        """Django's, computed once per worker for each password and secret: every signed-in request checks it,
        and the same password under the same SECRET_KEY always gives the same HMAC (a new password or a new key
        is a new entry)."""
        key = (self.password, settings.SECRET_KEY)
        known = _SESSION_AUTH_HASHES.get(key)
        if known is None:
            if len(_SESSION_AUTH_HASHES) >= SESSION_AUTH_HASHES_MAX:
                _SESSION_AUTH_HASHES.clear()
            known = _SESSION_AUTH_HASHES[key] = super().get_session_auth_hash()
        return known

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
    (``annotation.accounts.sessions``). Deleting the user deletes their sessions."""

    user = models.ForeignKey(User, null=True, blank=True, on_delete=models.CASCADE, related_name="+")

    @classmethod
    def get_session_store_class(cls):
        from annotation.accounts.sessions import SessionStore

        return SessionStore


class LoginFailure(models.Model):
    """One failed log-in in one throttle scope (``annotation.accounts.services.login_throttle``): the counts live in
    the cache, these rows let them outlive it (Redis restarted empty, or back after counting in the database)."""

    scope = models.CharField(max_length=80)
    failed_at = models.DateTimeField()

    class Meta:
        indexes = [
            models.Index(fields=["scope", "failed_at"], name="loginfailure_scope_at"),
            models.Index(fields=["failed_at"], name="loginfailure_at"),
        ]

    def __str__(self):
        return f"{self.scope} at {self.failed_at:%Y-%m-%d %H:%M:%S}"


class AccountEvent(models.Model):
    """Something done to an account by someone other than its person that could hand the account to another: a
    new sign-in link for an account already in use, and the password that link then set. The names are kept as
    text too, so the trail outlives the accounts."""

    class Kind(models.TextChoices):
        LINK_FOR_ACCOUNT_IN_USE = "link_for_account_in_use", "New sign-in link for an account in use"
        PASSWORD_SET_BY_LINK = "password_set_by_link", "Password replaced through such a link"

    user = models.ForeignKey(User, null=True, blank=True, on_delete=models.SET_NULL, related_name="account_events")
    username = models.CharField(max_length=150)
    actor = models.ForeignKey(User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    actor_username = models.CharField(max_length=150, blank=True)
    kind = models.CharField(max_length=32, choices=Kind.choices)
    at = models.DateTimeField(auto_now_add=True)
    detail = models.JSONField(default=dict, blank=True)

    class Meta:
        indexes = [models.Index(fields=["user", "at"], name="accountevent_user_at")]

    def __str__(self):
        return f"{self.kind} for {self.username} by {self.actor_username or 'the command line'} at {self.at:%Y-%m-%d %H:%M}"
