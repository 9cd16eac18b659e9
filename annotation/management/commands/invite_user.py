"""``manage.py invite_user NAME``: a new one-time link for an existing account (the earlier ones stop working)."""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.checks import Tags
from django.core.management.base import BaseCommand
from django.urls import reverse

from annotation.accounts.services.accounts import INVITATION_HOURS, invitation_reissue
from core.cli import emit, refuse
from core.errors import ApplicationError


class Command(BaseCommand):
    help = "Print, once, a new single-use link through which the account's person sets their password."
    requires_system_checks = [Tags.models]

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--expires-hours", type=int, default=INVITATION_HOURS, help="How long the link works.")
        parser.add_argument("--base-url", default=None, help="Where Concord is served (default: CONCORD_BASE_URL).")
        parser.add_argument("--json", action="store_true", dest="as_json", help="Print one JSON object on stdout.")

    def handle(self, *args, username, expires_hours, base_url, as_json, **options):
        try:
            user = get_user_model().objects.filter(username=username).first()
            if user is None:
                raise ApplicationError(f"unknown user {username!r}", code="unknown_user", status_code=404)
            issued = invitation_reissue(user=user, actor=None, hours=expires_hours)
        except ApplicationError as exc:
            raise refuse(self, exc, as_json=as_json) from exc
        link = (base_url or settings.CONCORD_BASE_URL).rstrip("/") + reverse("invitation-accept", args=[issued.token])
        expires = issued.invitation.expires_at
        emit(self, {"username": user.username, "invitation_url": link, "invitation_expires_at": expires.isoformat()},
             f"New link for {user.username} (single use, until {expires:%Y-%m-%d %H:%M} UTC; not shown again):\n{link}",
             as_json=as_json)
