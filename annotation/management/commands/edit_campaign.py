"""``manage.py edit_campaign SLUG [--status S] [--overlap N] …``: change a campaign, as its console settings page does."""

from pathlib import Path

from django.core.checks import Tags
from django.core.management.base import BaseCommand

from annotation.catalogue.models import Campaign
from annotation.catalogue.selectors import campaign_overlap_change
from annotation.catalogue.services.campaigns import campaign_update
from annotation.management.commands.create_campaign import campaign_summary, read_text, schema_and_rule
from core.cli import emit, refuse
from core.errors import ApplicationError


class Command(BaseCommand):
    help = ("Change a campaign's settings; only the options given change. A new schema (preset or file) is a new "
            "version, refused once a pair was claimed or a rating imported. The status moves draft → active ⇄ paused "
            "→ archived.")
    requires_system_checks = [Tags.models]

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--status", help="draft, active, paused or archived.")
        parser.add_argument("--name")
        parser.add_argument("--schema", help="A rating schema preset.")
        parser.add_argument("--schema-file", type=Path, help="A custom rating schema as JSON.")
        parser.add_argument("--overlap", type=int)
        parser.add_argument("--apply-to-existing", action="store_true",
                            help="The new overlap applies to the pairs already imported too (else only to new ones).")
        parser.add_argument("--gold-rate", type=float)
        parser.add_argument("--lease-minutes", type=int)
        parser.add_argument("--lease-max-minutes", type=int,
                            help="How long a lease may last in all from its claim; 0: 4 × the lease time.")
        parser.add_argument("--prefilter", choices=("on", "off"), help="Whether new pairs wait for the pre-filter.")
        parser.add_argument("--prefilter-rule", help="The pre-filter rule as JSON.")
        parser.add_argument("--full-playback", choices=("on", "off"),
                            help="Whether a submission waits until each recording was played to the end.")
        parser.add_argument("--instructions", type=Path, help="A Markdown file shown to raters.")
        parser.add_argument("--json", action="store_true", dest="as_json", help="Print one JSON object on stdout.")

    def handle(self, *args, slug, status, name, schema, schema_file, overlap, gold_rate, lease_minutes, prefilter,
               prefilter_rule, instructions, as_json, full_playback=None, apply_to_existing=False,
               lease_max_minutes=None, **options):
        try:
            campaign = Campaign.objects.filter(slug=slug).first()
            if campaign is None:
                raise ApplicationError(f"campaign {slug!r} does not exist", code="campaign_not_found", status_code=404)
            definition, rule = schema_and_rule(schema_file=schema_file, prefilter_rule=prefilter_rule)
            changes = {key: value for key, value in (
                ("name", name), ("overlap", overlap), ("gold_rate", gold_rate), ("lease_minutes", lease_minutes),
                ("instructions", read_text(instructions, "instructions file") if instructions else None),
                ("requires_prefilter", None if prefilter is None else prefilter == "on"),
                ("requires_full_playback", None if full_playback is None else full_playback == "on"),
            ) if value is not None}
            if lease_max_minutes is not None:
                changes["lease_max_minutes"] = lease_max_minutes or None
            before, change = campaign.overlap, None
            if overlap is not None and overlap != before:
                change = campaign_overlap_change(campaign=campaign, overlap=overlap)
            campaign = campaign_update(campaign=campaign, status=status, preset=schema, schema_definition=definition,
                                       prefilter_rule=rule, apply_to_existing=apply_to_existing, **changes)
        except ApplicationError as exc:
            raise refuse(self, exc, as_json=as_json) from exc
        payload = campaign_summary(campaign)
        said = ""
        if change is not None:
            payload["overlap_change"] = {**change, "before": before, "after": campaign.overlap,
                                         "applied": apply_to_existing}
            said = (f" Applied to {change['pairs']} existing pairs." if apply_to_existing else
                    f" {change['pairs']} existing pairs keep their counts (--apply-to-existing changes them).")
        emit(self, payload, f"Saved campaign {campaign.slug} ({campaign.status}, schema {payload['schema']}, "
                            f"overlap {campaign.overlap}).{said}", as_json=as_json)
