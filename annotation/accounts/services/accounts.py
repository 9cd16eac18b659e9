"""Accounts and one-time invitation links that let a person set their own password."""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model, password_validation
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation.accounts.models import AccountEvent, Invitation, Role, UserSession
from annotation.accounts.selectors import account_by_any_spelling
from annotation.accounts.usernames import username_normalize
from core.errors import ApplicationError

if TYPE_CHECKING:
    from annotation.accounts.models import User

USERNAME = re.compile(r"^[\w.@+-]{1,150}$")
INVITATION_HOURS = 72
MAX_INVITATION_HOURS = 30 * 24


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _checked_password(password: str, user=None) -> str:
    try:
        password_validation.validate_password(password, user)
    except ValidationError as exc:
        raise ApplicationError(" ".join(exc.messages), code="weak_password") from exc
    return password


@transaction.atomic
def user_create(*, username: str, password: str | None = None, role: str = Role.ANNOTATOR, email: str = "",
                check_strength: bool = True) -> User:
    """A new account; without a password it cannot sign in until an invitation sets one.

    ``check_strength=False`` is for the demo's published passwords only.
    """
    if role not in Role.values:
        raise ApplicationError(f"unknown role {role!r}; choose one of {', '.join(Role.values)}", code="unknown_role")
    # Stored as the sign-in form will send it (NFKC), so the person can sign in with what was typed here.
    username = username_normalize(username) if isinstance(username, str) else username
    if not isinstance(username, str) or not USERNAME.match(username):
        raise ApplicationError(
            f"username {username!r} must be 1–150 letters, digits or @ . + - _", code="invalid_username"
        )
    if email:
        try:
            validate_email(email)
        except ValidationError as exc:
            raise ApplicationError(f"{email!r} is not an e-mail address", code="invalid_email") from exc
        email_check_unused(email=email)
    model = get_user_model()
    taken = account_by_any_spelling(username=username)
    if taken is not None:
        spelled = "" if taken.username == username else f" as {taken.username!r}"
        raise ApplicationError(f"user {username!r} already exists{spelled}", code="user_exists", status_code=409)
    user = model(username=username, email=email, role=role)
    user.is_staff = role == Role.ADMIN
    user.is_superuser = role == Role.ADMIN
    if password is None:
        user.set_unusable_password()
    else:
        user.set_password(_checked_password(password, user) if check_strength else password)
    try:
        with transaction.atomic():
            user.save()
    except IntegrityError:
        # A concurrent request took the address (the database's user_email_unique_ci) or the name since the checks.
        if email:
            email_check_unused(email=email)
        raise ApplicationError(f"user {username!r} already exists", code="user_exists", status_code=409) from None
    return user


def email_check_unused(*, email: str, exclude: User | None = None) -> None:
    """Refuse an e-mail address another account already has, under any capitalisation."""
    others = get_user_model().objects.filter(email__iexact=email)
    if exclude is not None:
        others = others.exclude(pk=exclude.pk)
    holder = others.order_by("pk").only("username", "email").first()
    if holder is not None:
        spelled = "" if holder.email == email else f" (as {holder.email})"
        raise ApplicationError(f"the e-mail address {email} is already {holder.username}'s{spelled}; each account "
                               "needs its own", code="email_taken", status_code=409)


def account_role_check(*, actor: User, role: str) -> None:
    """Curators create annotator accounts; only admins create curators and admins."""
    if role not in Role.values:
        raise ApplicationError(f"unknown role {role!r}; choose one of {', '.join(Role.values)}", code="unknown_role")
    if role != Role.ANNOTATOR and not actor.is_admin_role:
        raise ApplicationError("only admins create curator and admin accounts", code="admin_only", status_code=403)


@dataclass(frozen=True)
class IssuedInvitation:
    """An invitation and its token, which exists only here: the database keeps the token's hash."""

    invitation: Invitation
    token: str


def invitation_create(*, user: User, created_by: User | None = None, hours: int = INVITATION_HOURS) -> IssuedInvitation:
    """A new single-use link for ``user``; links issued before for the same account stop working."""
    if isinstance(hours, bool) or not isinstance(hours, int) or not 1 <= hours <= MAX_INVITATION_HOURS:
        raise ApplicationError(f"an invitation lasts 1 to {MAX_INVITATION_HOURS} hours, not {hours!r}",
                               code="invalid_invitation_hours")
    token = secrets.token_urlsafe(32)
    now = timezone.now()
    with transaction.atomic():
        Invitation.objects.filter(user=user, used_at__isnull=True, expires_at__gt=now).update(expires_at=now)
        invitation = Invitation.objects.create(
            user=user, token_sha256=_token_hash(token), created_by=created_by, expires_at=now + timedelta(hours=hours)
        )
    return IssuedInvitation(invitation=invitation, token=token)


def account_in_use(user: User) -> bool:
    """Whether the account's person has set a password or signed in: a new link for it would let its holder replace
    that password and sign in as them (their sessions end)."""
    return user.has_usable_password() or user.last_login is not None


@transaction.atomic
def invitation_reissue(*, user: User, actor: User | None, hours: int = INVITATION_HOURS) -> IssuedInvitation:
    """A new link for an existing account, issued by ``actor`` (None: the command line, which has the server's rights).

    Curators renew the links of annotators who never set a password; a link for an account in use is for admins
    only, and it is recorded (``AccountEvent``) with who issued it."""
    in_use = account_in_use(user)
    if actor is not None:
        account_role_check(actor=actor, role=user.role)
        if in_use and not actor.is_admin_role:
            raise ApplicationError(
                f"{user.username} already uses this account (a password is set"
                f"{'' if user.last_login is None else f', last sign-in {user.last_login:%Y-%m-%d %H:%M} UTC'}): a new "
                "link would let whoever holds it replace that password and sign in as them, so only an admin can "
                "issue one; ask an admin, or ask them to change their password themselves",
                code="account_in_use", status_code=403,
            )
    issued = invitation_create(user=user, created_by=actor, hours=hours)
    if in_use:
        AccountEvent.objects.create(
            user=user, username=user.username, actor=actor, actor_username=actor.username if actor else "",
            kind=AccountEvent.Kind.LINK_FOR_ACCOUNT_IN_USE,
            detail={"invitation": issued.invitation.pk, "expires_at": issued.invitation.expires_at.isoformat(),
                    "last_login": user.last_login.isoformat() if user.last_login else None},
        )
    return issued


def invitation_get(*, token: str) -> Invitation:
    """The invitation for ``token`` if it can still be used; else an error saying why not."""
    invitation = (
        Invitation.objects.select_related("user").filter(token_sha256=_token_hash(token or "")).first()
    )
    if invitation is None:
        raise ApplicationError("this invitation link is not valid", code="invitation_unknown", status_code=404)
    if invitation.used_at is not None:
        raise ApplicationError("this invitation link has already been used; ask for a new one",
                               code="invitation_used", status_code=410)
    if invitation.expires_at <= timezone.now():
        raise ApplicationError(
            f"this invitation link expired at {invitation.expires_at:%Y-%m-%d %H:%M} UTC; ask for a new one",
            code="invitation_expired", status_code=410,
        )
    return invitation


@transaction.atomic
def invitation_accept(*, token: str, password: str, password_again: str) -> User:
    """Set the invited account's password and spend the link; returns the user."""
    invitation = invitation_get(token=token)
    invitation = Invitation.objects.select_for_update().select_related("user").get(pk=invitation.pk)
    if invitation.used_at is not None:
        raise ApplicationError("this invitation link has already been used; ask for a new one",
                               code="invitation_used", status_code=410)
    if password != password_again:
        raise ApplicationError("the two passwords differ", code="password_mismatch")
    user = invitation.user
    replaced = account_in_use(user)
    user.set_password(_checked_password(password, user))
    user.save(update_fields=["password"])
    invitation.used_at = timezone.now()
    invitation.save(update_fields=["used_at"])
    if replaced:
        creator = invitation.created_by
        AccountEvent.objects.create(
            user=user, username=user.username, actor=creator, actor_username=creator.username if creator else "",
            kind=AccountEvent.Kind.PASSWORD_SET_BY_LINK, detail={"invitation": invitation.pk},
        )
    return user


@transaction.atomic
def user_invite(*, username: str, role: str = Role.ANNOTATOR, email: str = "", created_by: User | None = None,
                hours: int = INVITATION_HOURS) -> tuple:
    """A new account without a password and its invitation link: both, or neither when either is refused."""
    user = user_create(username=username, password=None, role=role, email=email)
    return user, invitation_create(user=user, created_by=created_by, hours=hours)


@transaction.atomic
def user_set_role(*, user: User, role: str) -> User:
    """Change an account's role; admins are staff and superusers, the others neither."""
    if role not in Role.values:
        raise ApplicationError(f"unknown role {role!r}; choose one of {', '.join(Role.values)}", code="unknown_role")
    user.role = role
    user.is_staff = user.is_superuser = role == Role.ADMIN
    user.save(update_fields=["role", "is_staff", "is_superuser"])
    return user


def _account_change_check(*, user: User, actor: User | None, verb: str) -> None:
    if actor is None:
        return
    if actor.pk == user.pk:
        raise ApplicationError(f"you cannot {verb} your own account", code="own_account", status_code=403)
    if user.role != Role.ANNOTATOR and not actor.is_admin_role:
        raise ApplicationError(f"only admins {verb} curator and admin accounts", code="admin_only", status_code=403)


@transaction.atomic
def user_deactivate(*, user: User, actor: User | None) -> User:
    """Stop ``user`` signing in and end their sessions now, keeping everything they did; ``actor`` None is the
    command line. Curators deactivate annotators, admins anyone, nobody themselves. The work queue's
    ``account_deactivate`` also gives back their leases: call that one."""
    _account_change_check(user=user, actor=actor, verb="deactivate")
    user.is_active = False
    user.save(update_fields=["is_active"])
    UserSession.objects.filter(user=user).delete()
    return user


@transaction.atomic
def user_reactivate(*, user: User, actor: User | None) -> User:
    """Let a deactivated ``user`` sign in again with the password they had."""
    _account_change_check(user=user, actor=actor, verb="reactivate")
    user.is_active = True
    user.save(update_fields=["is_active"])
    return user
