"""``manage.py campaign_members SLUG --add U1,U2 --remove U3``: who may rate a campaign."""

from django.core.checks import Tags
from django.core.management.base import BaseCommand

from annotation.catalogue.models import Campaign
from annotation.catalogue.services.campaigns import campaign_members_change
from core.cli import emit, refuse
from core.errors import ApplicationError


def _names(raw: str) -> list[str]:
    return [name.strip() for name in (raw or "").split(",") if name.strip()]


class Command(BaseCommand):
    help = "Add and remove members of a campaign by username; an unknown username changes nothing."
    requires_system_checks = [Tags.models]

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--add", default="", help="Comma-separated usernames to add.")
        parser.add_argument("--remove", default="", help="Comma-separated usernames to remove.")
        parser.add_argument("--json", action="store_true", dest="as_json", help="Print one JSON object on stdout.")

    def handle(self, *args, slug, add, remove, as_json, **options):
        try:
            campaign = Campaign.objects.filter(slug=slug).first()
            if campaign is None:
                raise ApplicationError(f"campaign {slug!r} does not exist", code="campaign_not_found", status_code=404)
            change = campaign_members_change(campaign=campaign, add=_names(add), remove=_names(remove))
        except ApplicationError as exc:
            raise refuse(self, exc, as_json=as_json) from exc
        text = (f"{campaign.slug}: added {', '.join(change.added) or 'nobody'}, removed {', '.join(change.removed) or 'nobody'}; "
                f"{len(change.members)} member(s).")
        emit(self, {"campaign": campaign.slug, **change.as_dict()}, text, as_json=as_json)
