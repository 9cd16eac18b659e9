"""``manage.py crowd_link --campaign SLUG [--completion-url URL --quota N [--study-id ID]]``: the campaign's crowd
entry links as the study URL to paste into the platform (a new one with ``--completion-url``)."""

from django.conf import settings
from django.core.checks import Tags
from django.core.management.base import BaseCommand
from django.urls import reverse

from annotation.catalogue.models import Campaign
from annotation.workqueue.models import CrowdEntryLink
from annotation.workqueue.services.crowd import PROLIFIC_PLACEHOLDERS, QUOTA_MAX, crowd_link_create
from core.cli import emit, refuse
from core.errors import ApplicationError


class Command(BaseCommand):
    help = ("Print the campaign's open crowd entry links with Prolific's placeholders, newest first; with "
            "--completion-url and --quota, make a new one and print it.")
    requires_system_checks = [Tags.models]

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--completion-url", default=None, metavar="URL",
                            help="Make a new link: where participants go once their quota is done.")
        parser.add_argument("--quota", type=int, default=None, metavar="N",
                            help=f"With --completion-url: pairs each participant submits (1 to {QUOTA_MAX}).")
        parser.add_argument("--study-id", default="", help="With --completion-url: only this STUDY_ID may enter.")
        parser.add_argument("--base-url", default=None, help="Where Concord is served (default: CONCORD_BASE_URL).")
        parser.add_argument("--json", action="store_true", dest="as_json", help="Print one JSON object on stdout.")

    def handle(self, *args, campaign, completion_url, quota, study_id, base_url, as_json, **options):
        try:
            found = Campaign.objects.filter(slug=campaign).first()
            if found is None:
                raise ApplicationError(f"campaign {campaign!r} does not exist", code="campaign_not_found",
                                       status_code=404)
            if completion_url is None:
                if quota is not None or study_id:
                    raise ApplicationError("--quota and --study-id make a new link: give --completion-url too",
                                           code="invalid_crowd_link")
                links = list(CrowdEntryLink.objects.filter(campaign=found, is_active=True).order_by("-created_at", "-pk"))
                if not links:
                    raise ApplicationError(f"campaign {found.slug!r} has no open crowd entry link; make one with "
                                           "--completion-url URL --quota N", code="no_crowd_link", status_code=404)
            else:
                if quota is None:
                    raise ApplicationError("a new link needs --quota N: the pairs each participant submits",
                                           code="invalid_crowd_link")
                links = [crowd_link_create(campaign=found, completion_url=completion_url, quota=quota,
                                           study_id=study_id)]
        except ApplicationError as exc:
            raise refuse(self, exc, as_json=as_json) from exc
        root = (base_url or settings.CONCORD_BASE_URL).rstrip("/")
        rows = [{"url": root + reverse("crowd-entry", args=[link.token]) + PROLIFIC_PLACEHOLDERS, "quota": link.quota,
                 "completion_url": link.completion_url, "study_id": link.study_id,
                 "created_at": link.created_at.isoformat()} for link in links]
        made = completion_url is not None
        lines = [f"{'New crowd entry link' if made else 'Open crowd entry links'} into {found.slug} "
                 "(paste as the study URL; the platform fills in the ids):"]
        for row in rows:
            study = f", study {row['study_id']} only" if row["study_id"] else ""
            lines.append(f"  {row['url']}\n    quota {row['quota']}{study}, then {row['completion_url']}")
        emit(self, {"campaign": found.slug, "created": made, "links": rows}, "\n".join(lines), as_json=as_json)
