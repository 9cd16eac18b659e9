"""``manage.py prepare_renditions --campaign SLUG [--json]``: make the renditions annotators will ask for, now."""

from django.core.management.base import BaseCommand

from annotation.catalogue.cli import campaign_named
from annotation.catalogue.services.renditions import media_renditions_prepare
from core.cli import emit, progress_reporter


class Command(BaseCommand):
    help = (
        "Make every rendition the annotators of a campaign will be served (images re-encoded without metadata, in "
        "the sizes the page asks for; video, audio and 3D files with their metadata neutralised), so the first rater "
        "does not wait for them, and flag files that cannot be rendered. Uploads through /imports/ do this on their "
        "own; run it after `import_pairs`. Running it again makes nothing twice. Exit status 2 when a file cannot "
        "be rendered."
    )

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--json", action="store_true", dest="as_json", help="Print one JSON object on stdout.")

    def handle(self, *args, campaign, as_json: bool, **options):
        with progress_reporter(desc="renditions") as progress:
            summary = media_renditions_prepare(campaign=campaign_named(campaign), progress=progress)
        lines = [f"{summary['media']:,} media ready for annotators; {len(summary['unrenderable']):,} cannot be rendered."]
        lines += [f"  cannot be rendered (flagged on its pairs): {digest}" for digest in summary["unrenderable"]]
        emit(self, summary, "\n".join(lines), as_json=as_json)
        if summary["unrenderable"]:
            raise SystemExit(2)
