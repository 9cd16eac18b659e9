"""publish_release --campaign SLUG[,SLUG...] --name NAME --version X.Y.Z [--license ID [--force-license]]
[--media embedded|pointers] [--profile-summary]
[--private-split FRACTION [--private-seed N] [--private-rows unlabelled|omit]] [--json]

--media pointers: no media bytes in the release, only each file's source and sha256 (pointers.json) and rebuild.py,
which fills them from the user's own copy (see docs/releases.md, "Pointer releases").

publish_release --discard --name NAME --version X.Y.Z: discard a failed attempt (its stored files are deleted), so the
version can be requested again with other campaigns.
"""

import json

from django.core.management.base import BaseCommand, CommandError

from core.cli import cli_message
from core.errors import ApplicationError
from curation.releases.heldout import PRIVATE_ROWS, UNLABELLED
from curation.releases.pointers import EMBEDDED
from curation.releases.pointers import MODES as MEDIA_MODES
from curation.services.releases import release_discard, release_publish, release_split, release_summary

# What a refusal that names an input asks for, in this command's own options.
OPTION_HINTS = {"force_license": "pass --force-license only if you hold the rights to relicense",
                "private_split": "--private-seed and --private-rows go with --private-split FRACTION",
                "private_rows": "pass --private-rows unlabelled or omit", "private_seed": "pass --private-seed N"}


class Command(BaseCommand):
    help = "Build and publish an immutable release from the kept consensus records of one or more campaigns."

    def create_parser(self, prog_name, subcommand, **kwargs):
        # --version names the release's version here, not Django's; the later definition wins.
        return super().create_parser(prog_name, subcommand, conflict_handler="resolve", **kwargs)

    def add_arguments(self, parser):
        parser.add_argument("--campaign", default="", help="Campaign slug(s), comma-separated (not with --discard).")
        parser.add_argument("--name", required=True)
        parser.add_argument("--version", required=True, dest="release_version", help="Semantic version X.Y.Z.")
        parser.add_argument("--license", default="", help="Licence id for the release (default: the most restrictive "
                            "of its sources' licences, or CONCORD_RELEASES_LICENSE when nothing was imported).")
        parser.add_argument("--force-license", action="store_true",
                            help="Allow a --license more permissive than a source's (you hold the rights to relicense).")
        parser.add_argument("--media", choices=MEDIA_MODES, default=EMBEDDED,
                            help="embedded (default): the media in the release; pointers: only each file's source and "
                                 "sha256, for sources whose licence (or a curator) forbids redistributing them.")
        parser.add_argument("--profile-summary", action="store_true",
                            help="Count the raters' profile answers in the card (counts only: never a name, a free-text "
                                 "answer or a value fewer than 3 raters gave).")
        parser.add_argument("--json", action="store_true", help="Print the result as JSON on stdout.")
        parser.add_argument("--private-split", type=float, default=None, metavar="FRACTION",
                            help="Hold out this share of each task and prompt source (e.g. 0.2): its labels stay on the "
                                 "server, judges are scored on it through submissions.")
        parser.add_argument("--private-seed", type=int, default=None,
                            help="Seed of the held-out draw (default: drawn at random); recorded in the manifest.")
        parser.add_argument("--private-rows", choices=PRIVATE_ROWS, default=UNLABELLED,
                            help="unlabelled: ship the private prompts and responses under private/ without labels "
                                 "(default); omit: ship nothing of them.")
        parser.add_argument("--discard", action="store_true",
                            help="Discard the failed attempt of NAME@VERSION instead: its stored files are deleted and "
                                 "the version may then be published from other campaigns.")

    def handle(self, *args, **options):
        if options["discard"]:
            return self._discard(options)
        if not options["campaign"]:
            raise CommandError("name the campaign(s) to publish: --campaign SLUG[,SLUG...]")
        try:
            release = release_publish(
                name=options["name"], version=options["release_version"],
                campaign_slugs=options["campaign"].split(","), license=options["license"],
                force_license=options["force_license"], media=options["media"],
                profile_summary=options["profile_summary"], **self._split(options),
            )
        except ApplicationError as exc:
            raise CommandError(cli_message(exc, OPTION_HINTS)) from exc
        result = release_summary(release)
        if options["json"]:
            self.stdout.write(json.dumps(result))
        else:
            self.stdout.write(
                f"published {release} with {result['pairs']} pairs in {result['files']} files at {result['location']}\n"
                f"manifest sha256 {result['manifest_sha256']}"
            )
            media = (release.summary or {}).get("media") or {}
            if media.get("mode") == "pointers":
                self.stdout.write(f"media not included: {media['not_included']['files']} files named in "
                                  f"{media['pointers']}; {media['rebuild']} fills them from the user's copy")
            held = (release.summary or {}).get("heldout")
            if held:
                self.stdout.write(f"held out {held['items']} items ({held['fraction']} of each task and source, seed "
                                  f"{held['seed']}; private rows {held['private_rows']}): their labels stay on this "
                                  "server; issue team tokens with manage.py submission_token")
            if result["left_out"]:
                reasons = ", ".join(f"{reason} {n}" for reason, n in result["left_out"].items())
                self.stdout.write(f"left out {sum(result['left_out'].values())} kept pairs whose consensus no longer "
                                  f"describes them ({reasons}); run consensus again to decide them")

    @staticmethod
    def _split(options) -> dict:
        try:
            return release_split(private_split=options["private_split"], private_seed=options["private_seed"],
                                 private_rows=options["private_rows"])
        except ApplicationError as exc:
            raise CommandError(cli_message(exc, OPTION_HINTS)) from exc

    def _discard(self, options) -> None:
        if options["campaign"]:
            raise CommandError("--discard takes --name and --version only")
        try:
            release = release_discard(name=options["name"], version=options["release_version"])
        except ApplicationError as exc:
            raise CommandError(exc.message) from exc
        discarded = release.params["discarded"][-1]
        if options["json"]:
            self.stdout.write(json.dumps({"release": str(release), "status": release.status, **discarded}))
        else:
            self.stdout.write(f"discarded {release}: {discarded['files_deleted']} stored files deleted; publish it "
                              "again with any campaigns")
