"""``manage.py prefilter``: run the ensemble-judge pre-filter on a campaign, in this process."""

import json

from django.core.management.base import BaseCommand, CommandError

from annotation.catalogue.models import Campaign
from core.cli import progress_bar
from core.errors import ApplicationError
from curation.services.prefilter import prefilter_job_create, prefilter_run_inline


class Command(BaseCommand):
    help = (
        "Judge every candidate pair of a campaign with every enabled judge (or --judges), forward and "
        "swapped, then drop the easy pairs and queue the rest. Stored verdicts are reused unless --force."
    )

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True, help="campaign slug")
        parser.add_argument("--judges", default="", help="comma-separated judge names (default: every enabled judge)")
        parser.add_argument(
            "--threshold", type=float, default=None,
            help="override the rule's threshold (e.g. 0.9); re-decides from stored verdicts and retries no failed call",
        )
        parser.add_argument("--force", action="store_true", help="call every judge again, replacing stored verdicts")
        parser.add_argument("--json", action="store_true", help="print the report as JSON on stdout")

    def handle(self, *args, **options):
        campaign = Campaign.objects.filter(slug=options["campaign"]).first()
        if campaign is None:
            raise CommandError(f"campaign {options['campaign']!r} does not exist")
        names = [n.strip() for n in options["judges"].split(",") if n.strip()] or None
        try:
            job = prefilter_job_create(
                campaign=campaign, judge_names=names, threshold=options["threshold"], force=options["force"]
            )
        except ApplicationError as exc:
            raise CommandError(exc.message) from exc
        bar = progress_bar(total=None, desc=f"prefilter {campaign.slug}")

        def planned(total: int, done: int) -> None:
            bar.reset(total=total)
            bar.update(done)

        with bar:
            report = prefilter_run_inline(job_id=job.pk, on_progress=bar.update, on_plan=planned)
        if report is None:
            raise CommandError(f"run {job.pk} was cancelled before it finished; resume it to complete it")
        if options["json"]:
            self.stdout.write(json.dumps(report, sort_keys=True))
            return
        self.stdout.write(
            f"run {report['job']}: {report['pairs']} pairs, {report['verdicts']} verdicts "
            f"({report['verdicts_stored']} stored by this run, {report['invalid']} invalid, {report['errors']} errors); "
            f"{report['calls_made']} requests to judges, retries included; "
            f"rule {report['rule']['rule']} at {report['rule']['threshold']:g} of {report['planned_votes']} planned votes: "
            f"dropped as easy {report['dropped_easy']}, kept {report['kept']}"
        )
        for name, figures in report["per_judge"].items():
            consistency = figures["position_consistency"]
            self.stdout.write(
                f"  {name}: {figures['calls']} calls, {figures['errors']} errors, "
                f"invalid {100 * figures['invalid_rate']:.1f}%, position consistency "
                f"{'n/a' if consistency is None else f'{100 * consistency:.1f}%'}, "
                f"p50 latency {figures['latency_ms']['p50'] or 'n/a'} ms"
            )
        for name, samples in report["error_samples"].items():
            for sample in samples:
                self.stdout.write(f"  {name} error: {sample[:200]}")
