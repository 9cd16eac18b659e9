"""``manage.py scan_self_identification --campaign SLUG [--json]``: find responses that name their model, again."""

from django.core.management.base import BaseCommand

from annotation.catalogue.cli import campaign_named
from annotation.importers.pairs import pairs_self_identification_scan
from core.cli import emit, progress_reporter


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
        with progress_reporter(desc="pairs") as progress:
            summary = pairs_self_identification_scan(campaign=campaign_named(campaign), progress=progress)
        emit(self, summary, f"{summary['pairs']:,} pairs scanned; {summary['flagged']:,} name a model or its maker "
                            f"({summary['changed']:,} changed).", as_json=as_json)
