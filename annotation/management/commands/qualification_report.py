"""``manage.py qualification_report --campaign SLUG [--json]``: each member's qualification, gold score and pause."""

from django.core.checks import Tags
from django.core.management.base import BaseCommand

from annotation.catalogue.models import Campaign
from annotation.workqueue.services.qualification import qualification_report
from core.cli import emit, refuse
from core.errors import ApplicationError


def _share(value) -> str:
    return "–" if value is None else f"{value:.0%}"


class Command(BaseCommand):
    help = "Per member of the campaign: qualification for its task kind, gold score since the last pause, pauses."
    requires_system_checks = [Tags.models]

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--json", action="store_true", dest="as_json", help="Print one JSON object on stdout.")

    def handle(self, *args, campaign, as_json, **options):
        try:
            found = Campaign.objects.filter(slug=campaign).first()
            if found is None:
                raise ApplicationError(f"campaign {campaign!r} does not exist", code="campaign_not_found",
                                       status_code=404)
        except ApplicationError as exc:
            raise refuse(self, exc, as_json=as_json) from exc
        report = qualification_report(campaign=found)
        lines = [f"{report['campaign']} ({report['kind']}): calibration set {report['calibration_set'] or '(none)'} "
                 f"with {report['calibration_pairs']} pair(s), pass mark {report['pass_mark']:.0%}."]
        for rater in report["raters"]:
            round_ = rater["round"]
            calibration = ("no round" if round_ is None else
                           f"round {round_['verdict']} {round_['correct']}/{round_['answered']} of {round_['of']}")
            gold = rater["gold"]
            lines.append(f"  {rater['username']}: {rater['status']}; {calibration}; gold {gold['correct']}/{gold['n']} "
                         f"({_share(gold['share'])}, interval {_share(gold['lower'])}–{_share(gold['upper'])})")
        emit(self, report, "\n".join(lines), as_json=as_json)
