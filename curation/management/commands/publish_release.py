"""publish_release --campaign SLUG[,SLUG...] --name NAME --version X.Y.Z [--license ID [--force-license]] [--json]"""

import json

from django.core.management.base import BaseCommand, CommandError

from core.errors import ApplicationError
from curation.services.releases import release_publish, release_summary


class Command(BaseCommand):
    help = "Build and publish an immutable release from the kept consensus records of one or more campaigns."

    def create_parser(self, prog_name, subcommand, **kwargs):
        # --version names the release's version here, not Django's; the later definition wins.
        return super().create_parser(prog_name, subcommand, conflict_handler="resolve", **kwargs)

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True, help="Campaign slug(s), comma-separated.")
        parser.add_argument("--name", required=True)
        parser.add_argument("--version", required=True, dest="release_version", help="Semantic version X.Y.Z.")
        parser.add_argument("--license", default="", help="Licence id for the release (default: the most restrictive "
                            "of its sources' licences, or CONCORD_RELEASES_LICENSE when nothing was imported).")
        parser.add_argument("--force-license", action="store_true",
                            help="Allow a --license more permissive than a source's (you hold the rights to relicense).")
        parser.add_argument("--json", action="store_true", help="Print the result as JSON on stdout.")

    def handle(self, *args, **options):
        try:
            release = release_publish(
                name=options["name"], version=options["release_version"],
                campaign_slugs=options["campaign"].split(","), license=options["license"],
                force_license=options["force_license"],
            )
        except ApplicationError as exc:
            raise CommandError(exc.message) from exc
        result = release_summary(release)
        if options["json"]:
            self.stdout.write(json.dumps(result))
        else:
            self.stdout.write(
                f"published {release} with {result['pairs']} pairs in {result['files']} files at {result['location']}\n"
                f"manifest sha256 {result['manifest_sha256']}"
            )
            if result["left_out"]:
                reasons = ", ".join(f"{reason} {n}" for reason, n in result["left_out"].items())
                self.stdout.write(f"left out {sum(result['left_out'].values())} kept pairs whose consensus no longer "
                                  f"describes them ({reasons}); run consensus again to decide them")
