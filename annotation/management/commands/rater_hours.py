"""``manage.py rater_hours --campaign SLUG [--idle-minutes N] [--csv | --json]``: each rater's active time, output
and gold score, for paying them (the figures of ``GET /api/v1/campaigns/SLUG/hours/`` and the console's CSV)."""

from django.core.checks import Tags
from django.core.management.base import BaseCommand

from annotation.catalogue.models import Campaign
from annotation.workqueue.api.profile import idle_minutes_from
from annotation.workqueue.hours import IDLE_MINUTES_DEFAULT, IDLE_MINUTES_MAX, hours_csv
from annotation.workqueue.selectors import campaign_hours
from core.cli import emit, refuse
from core.errors import ApplicationError


def _duration(seconds: int) -> str:
    hours, rest = divmod(seconds, 3600)
    return f"{hours}h{rest // 60:02d}m"


class Command(BaseCommand):
    help = ("Per rater of the campaign: active time from their events (a gap over --idle-minutes is idle), pairs "
            "submitted and skipped, gold answers; crowd raters with their platform id.")
    requires_system_checks = [Tags.models]

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--idle-minutes", default=None, metavar="N",
                            help=f"A gap longer than N minutes is idle: 0.5 to {IDLE_MINUTES_MAX} "
                                 f"(default {IDLE_MINUTES_DEFAULT}).")
        formats = parser.add_mutually_exclusive_group()
        formats.add_argument("--csv", action="store_true", dest="as_csv", help="Print the CSV the console downloads.")
        formats.add_argument("--json", action="store_true", dest="as_json", help="Print one JSON object on stdout.")

    def handle(self, *args, campaign, idle_minutes, as_csv, as_json, **options):
        try:
            found = Campaign.objects.filter(slug=campaign).first()
            if found is None:
                raise ApplicationError(f"campaign {campaign!r} does not exist", code="campaign_not_found",
                                       status_code=404)
            minutes = idle_minutes_from(idle_minutes)
        except ApplicationError as exc:
            raise refuse(self, exc, as_json=as_json) from exc
        raters = campaign_hours(campaign=found, idle_minutes=minutes)
        if as_csv:
            self.stdout.write(hours_csv(raters), ending="")
            return
        lines = [f"{found.slug}: {len(raters)} rater(s), gaps over {minutes:g} min idle."]
        for row in raters:
            gold = ("no gold" if row["gold_score"] is None
                    else f"gold {row['gold_correct']}/{row['gold_answered']} ({row['gold_score']:.0%})")
            crowd = f" [crowd {row['crowd_id']}]" if row["crowd_id"] else ""
            lines.append(f"  {row['username']}{crowd}: {_duration(row['active_seconds'])} active, "
                         f"{row['pairs_submitted']} submitted, {row['pairs_skipped']} skipped, {gold}")
        rows = [{**row, "first_activity": row["first_activity"] and row["first_activity"].isoformat(),
                 "last_activity": row["last_activity"] and row["last_activity"].isoformat()} for row in raters]
        emit(self, {"campaign": found.slug, "idle_minutes": minutes, "raters": rows}, "\n".join(lines),
             as_json=as_json)
