"""``manage.py compute_agreement --campaign SLUG [--bootstrap N] [--seed S] [--json]``: agreement now, in this process."""

import json

from django.core.management.base import BaseCommand, CommandError

from annotation.catalogue.models import Campaign
from core.cli import progress_bar
from core.errors import ApplicationError
from curation.services.agreement import agreement_compute


class Command(BaseCommand):
    help = "Compute and store a campaign's agreement report (and one per slice); --json prints it on stdout."

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True, help="Campaign slug.")
        parser.add_argument("--bootstrap", type=int, default=1000, help="Bootstrap resamples for the 95%% intervals.")
        parser.add_argument("--seed", type=int, default=0, help="Seed of the bootstrap.")
        parser.add_argument("--no-slices", action="store_true", help="Only the whole campaign, no per-slice reports.")
        parser.add_argument("--json", action="store_true", dest="as_json", help="Print the report as one JSON object.")

    def handle(self, *args, campaign, bootstrap, seed, no_slices, as_json, **options):
        found = Campaign.objects.select_related("rating_schema").filter(slug=campaign).first()
        if found is None:
            raise CommandError(f"campaign {campaign!r} does not exist")
        bar = progress_bar(total=None, desc="agreement")

        def progress(done: int, total: int) -> None:
            bar.total = total
            bar.n = done
            bar.refresh()

        try:
            stored = agreement_compute(campaign=found, bootstrap=bootstrap, seed=seed, slices=not no_slices,
                                       progress=progress)
        except ApplicationError as exc:
            raise CommandError(exc.message) from exc
        finally:
            bar.close()
        report = stored.report
        if as_json:
            self.stdout.write(json.dumps({"report_id": stored.pk, **report}))
            return
        self.stdout.write(_summary(found.slug, report))


def _fmt(x, digits=4):
    return "n/a" if x is None else f"{x:.{digits}f}"


def _summary(slug: str, report: dict) -> str:
    identities = report["rater_identities"]
    lines = [f"{slug}: {report['items']:,} items, {report['annotations']:,} annotations, "
             f"{report['raters']:,} raters with a stable identity"]
    if identities["anonymous_ratings"]:
        lines.append(f"  {identities['anonymous_ratings']:,} ratings of {identities['anonymous_slots']:,} anonymous slots "
                     f"left out of per-rater figures ({identities['why']})")
    measured = report["measured"] or {}

    def on(key: str, level: str | None = None) -> str:
        label = (measured.get(key) or {}).get(level) if level else measured.get(key)
        return f" [{label}]" if label else ""

    for level, value in report["alpha"].items():
        if value is not None:
            interval = report["alpha_ci95"][level]
            ci = f" (95% CI {_fmt(interval[0])}–{_fmt(interval[1])})" if interval else ""
            lines.append(f"  alpha{on('alpha', level)}: {_fmt(value)}{ci}")
    pairwise = report["pairwise_agreement_excluding_ties"]
    lines.append(f"  pairwise agreement{on('pairwise_agreement_excluding_ties') or ' excluding ties'}: "
                 f"{_fmt(pairwise, 2)}{'%' if pairwise is not None else ''}")
    lines.append(f"  percent agreement{on('percent_agreement')}: {_fmt(report['percent_agreement'], 2)}%")
    lines.append(f"  Fleiss' kappa{on('fleiss_kappa')}: {_fmt(report['fleiss_kappa'])}")
    return "\n".join(lines)
