"""``manage.py scan_self_identification --campaign SLUG [--json]``: find responses that name their model, again."""

import json

from django.core.management.base import BaseCommand, CommandError

from annotation.cli import progress_bar
from annotation.models import Campaign
from annotation.services.pairs import pairs_self_identification_scan


class Command(BaseCommand):
    help = (
        "Scan every pair of a campaign for responses that name a model or its maker (the pair's model names and a "
        "curated list of families and makers), as imports do, and store the hits: annotators see them masked, "
        "curators find them on the pair page. For pairs imported before the scan existed or after the list changed. "
        "Running it again changes nothing more."
    )

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--json", action="store_true", dest="as_json", help="Print one JSON object on stdout.")

    def handle(self, *args, campaign, as_json: bool, **options):
        found = Campaign.objects.filter(slug=campaign).first()
        if found is None:
            raise CommandError(f"campaign {campaign!r} does not exist")
        with progress_bar(total=None, desc="pairs") as bar:
            def progress(done: int, total: int) -> None:
                bar.total = total
                bar.update(done - bar.n)

            summary = pairs_self_identification_scan(campaign=found, progress=progress)
        if as_json:
            self.stdout.write(json.dumps(summary))
            return
        self.stdout.write(f"{summary['pairs']:,} pairs scanned; {summary['flagged']:,} name a model or its maker "
                          f"({summary['changed']:,} changed).")
