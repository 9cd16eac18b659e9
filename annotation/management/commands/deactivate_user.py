"""``manage.py deactivate_user NAME [--reactivate]``: stop an account signing in (its sessions ended, its live leases
released at once), or let it sign in again, as a curator does on the console's People page."""

from django.contrib.auth import get_user_model
from django.core.checks import Tags
from django.core.management.base import BaseCommand

from annotation.accounts.services.accounts import user_reactivate
from annotation.workqueue.services.accounts import account_deactivate
from core.cli import emit, refuse
from core.errors import ApplicationError


class Command(BaseCommand):
    help = "Deactivate an account (no sign-in, sessions ended, leases released; its work is kept), or reactivate it."
    requires_system_checks = [Tags.models]

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--reactivate", action="store_true", help="Let the account sign in again.")
        parser.add_argument("--json", action="store_true", dest="as_json", help="Print one JSON object on stdout.")

    def handle(self, *args, username, reactivate, as_json, **options):
        try:
            user = get_user_model().objects.filter(username=username).first()
            if user is None:
                raise ApplicationError(f"unknown user {username!r}", code="unknown_user", status_code=404)
            released = 0
            if reactivate:
                user_reactivate(user=user, actor=None)
            else:
                released = account_deactivate(user=user, actor=None).leases_released
        except ApplicationError as exc:
            raise refuse(self, exc, as_json=as_json) from exc
        text = (f"{user.username} can sign in again." if reactivate else
                f"{user.username} is deactivated: signed out everywhere; {released} lease(s) released.")
        emit(self, {"username": user.username, "active": user.is_active, "leases_released": released}, text,
             as_json=as_json)
