"""``manage.py create_campaign SLUG --task KIND``: a new campaign, as the console's "New campaign" page makes it."""

import json
from pathlib import Path

from django.core.checks import Tags
from django.core.management.base import BaseCommand

from annotation.catalogue.models import Campaign
from annotation.catalogue.services.campaigns import campaign_create
from core.cli import emit, refuse
from core.errors import ApplicationError


def read_text(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ApplicationError(f"{what} {path}: cannot be read ({exc.__class__.__name__})", code="file_unreadable") from exc


def schema_and_rule(*, schema_file: Path | None, prefilter_rule: str | None) -> tuple[dict | None, dict | None]:
    """The custom schema file and the --prefilter-rule option, parsed; an ApplicationError says what is wrong."""
    definition = rule = None
    if schema_file is not None:
        try:
            definition = json.loads(read_text(schema_file, "schema file"))
        except json.JSONDecodeError as exc:
            raise ApplicationError(f"schema file {schema_file}: not JSON ({exc})", code="invalid_schema") from exc
    if prefilter_rule:
        try:
            rule = json.loads(prefilter_rule)
        except json.JSONDecodeError as exc:
            raise ApplicationError(f"--prefilter-rule is not JSON ({exc})", code="invalid_prefilter_rule") from exc
    return definition, rule


class Command(BaseCommand):
    help = ("Create a campaign: its task kind, a rating schema preset (or a custom schema file), overlap, gold rate, "
            "lease, pre-filter and instructions. Nothing is written when any setting is refused.")
    requires_system_checks = [Tags.models]

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--task", required=True, help="Task kind, e.g. text-to-image.")
        parser.add_argument("--schema", help="Rating schema preset (default: the kind's MMRB2 preset or ab-tie); "
                                                 "one whose questions do not fit the kind is refused.")
        parser.add_argument("--schema-file", type=Path, help="A custom rating schema as JSON, instead of a preset.")
        parser.add_argument("--name", default="", help="Display name (default: from the slug).")
        parser.add_argument("--overlap", type=int, default=3, help="Ratings wanted per pair (at least 1).")
        parser.add_argument("--gold-rate", type=float, default=0.0, help="Share of gold pairs served, 0 to 1.")
        parser.add_argument("--lease-minutes", type=int, default=30, help="How long a claimed pair stays reserved.")
        parser.add_argument("--lease-max-minutes", type=int, default=None,
                            help="How long a lease may last in all from its claim, however often an active tab "
                                 "renews it (default: 4 × --lease-minutes).")
        parser.add_argument("--prefilter", action="store_true", help="New pairs wait for the judge pre-filter.")
        parser.add_argument("--prefilter-rule", help='The pre-filter rule as JSON, e.g. {"rule": "majority", "threshold": 0.9}.')
        parser.add_argument("--require-full-playback", action="store_true", dest="full_playback",
                            help="Refuse a submission until each response's (or the prompt's) audio or video was "
                                 "played to the end (98 %%, for players that stop short); audio and video kinds only.")
        parser.add_argument("--instructions", type=Path, help="A Markdown file shown to raters.")
        parser.add_argument("--status", default=Campaign.Status.ACTIVE, help="draft, active, paused or archived.")
        parser.add_argument("--json", action="store_true", dest="as_json", help="Print one JSON object on stdout.")

    def handle(self, *args, slug, task, schema, schema_file, name, overlap, gold_rate, lease_minutes, prefilter,
               prefilter_rule, instructions, status, as_json, full_playback=False, lease_max_minutes=None, **options):
        try:
            definition, rule = schema_and_rule(schema_file=schema_file, prefilter_rule=prefilter_rule)
            campaign = campaign_create(
                slug=slug, kind=task, preset=schema, schema_definition=definition, name=name, overlap=overlap,
                gold_rate=gold_rate, lease_minutes=lease_minutes, lease_max_minutes=lease_max_minutes,
                requires_prefilter=prefilter, prefilter_rule=rule,
                requires_full_playback=full_playback,
                instructions=read_text(instructions, "instructions file") if instructions else "", status=status,
            )
        except ApplicationError as exc:
            raise refuse(self, exc, as_json=as_json) from exc
        payload = campaign_summary(campaign)
        emit(self, payload, f"Created campaign {campaign.slug} ({campaign.kind}, schema {payload['schema']}, "
                            f"overlap {campaign.overlap}, {campaign.status}).", as_json=as_json)


def campaign_summary(campaign: Campaign) -> dict:
    return {
        "slug": campaign.slug, "name": campaign.name, "kind": campaign.kind, "status": campaign.status,
        "schema": f"{campaign.rating_schema.slug} v{campaign.rating_schema.version}",
        "overlap": campaign.overlap, "gold_rate": campaign.gold_rate, "lease_minutes": campaign.lease_minutes,
        "lease_max_minutes": campaign.lease_max_minutes,
        "requires_prefilter": campaign.requires_prefilter, "prefilter_rule": campaign.prefilter_rule,
        "requires_full_playback": campaign.requires_full_playback,
        "consensus_policy": campaign.consensus_policy,
    }
