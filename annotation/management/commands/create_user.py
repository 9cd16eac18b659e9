"""``manage.py create_user NAME --role ROLE``: an account with a password from the environment, or an invitation link."""

import os

from django.conf import settings
from django.core.checks import Tags
from django.core.management.base import BaseCommand
from django.urls import reverse

from annotation.accounts.models import Role
from annotation.accounts.services.accounts import INVITATION_HOURS, user_create, user_invite
from core.cli import emit, refuse
from core.errors import ApplicationError


class Command(BaseCommand):
    help = ("Create an account. Its password comes from the environment variable named by --password-env when that "
            "variable is set; otherwise an invitation link is printed once, valid for --expires-hours, through which "
            "the person sets their own password.")
    requires_system_checks = [Tags.models]

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--role", required=True, help=f"One of {', '.join(Role.values)}.")
        parser.add_argument("--email", default="")
        parser.add_argument("--password-env", default="CONCORD_NEW_USER_PASSWORD",
                            help="Variable holding the password (default: CONCORD_NEW_USER_PASSWORD).")
        parser.add_argument("--expires-hours", type=int, default=INVITATION_HOURS, help="How long the link works.")
        parser.add_argument("--base-url", default=None, help="Where Concord is served (default: CONCORD_BASE_URL).")
        parser.add_argument("--json", action="store_true", dest="as_json", help="Print one JSON object on stdout.")

    def handle(self, *args, username, role, email, password_env, expires_hours, base_url, as_json, **options):
        password = os.environ.get(password_env) or None
        try:
            if password:
                user, issued = user_create(username=username, password=password, role=role, email=email), None
            else:
                user, issued = user_invite(username=username, role=role, email=email, hours=expires_hours)
        except ApplicationError as exc:
            raise refuse(self, exc, as_json=as_json) from exc
        payload = {"username": user.username, "role": user.role, "email": user.email, "password_set": bool(password)}
        text = f"Created {user.role} {user.username} with the password from ${password_env}."
        if issued is not None:
            root = (base_url or settings.CONCORD_BASE_URL).rstrip("/")
            link = root + reverse("invitation-accept", args=[issued.token])
            payload.update(invitation_url=link, invitation_expires_at=issued.invitation.expires_at.isoformat())
            text = (f"Created {user.role} {user.username}. Send them this link to set their password "
                    f"(single use, until {issued.invitation.expires_at:%Y-%m-%d %H:%M} UTC; it is not shown again):\n{link}")
        emit(self, payload, text, as_json=as_json)
