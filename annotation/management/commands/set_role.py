"""``manage.py set_role NAME --role ROLE``: change an account's role, as an admin does on the console's People page."""

from django.contrib.auth import get_user_model
from django.core.checks import Tags
from django.core.management.base import BaseCommand

from annotation.accounts.models import Role
from annotation.accounts.services.accounts import user_set_role
from core.cli import emit, refuse
from core.errors import ApplicationError


class Command(BaseCommand):
    help = "Change an account's role (admins are staff and superusers; the other roles are neither)."
    requires_system_checks = [Tags.models]

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--role", required=True, help=f"One of {', '.join(Role.values)}.")
        parser.add_argument("--json", action="store_true", dest="as_json", help="Print one JSON object on stdout.")

    def handle(self, *args, username, role, as_json, **options):
        try:
            user = get_user_model().objects.filter(username=username).first()
            if user is None:
                raise ApplicationError(f"unknown user {username!r}", code="unknown_user", status_code=404)
            user = user_set_role(user=user, role=role)
        except ApplicationError as exc:
            raise refuse(self, exc, as_json=as_json) from exc
        emit(self, {"username": user.username, "role": user.role}, f"{user.username} is now {user.role}.", as_json=as_json)
