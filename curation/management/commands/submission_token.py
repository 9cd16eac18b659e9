"""submission_token --release NAME@X.Y.Z --team NAME [--daily-limit N] [--rotate] [--json]

Issues a team's token for scoring predictions on the release's private split; the token is printed once. For a team
that has one, ``--daily-limit`` alone changes its limit and ``--rotate`` issues a new token.
"""

import json

from django.core.management.base import BaseCommand, CommandError

from core.errors import ApplicationError
from curation.selectors.releases import release_get, release_parse_ref
from curation.services.heldout import submission_team_issue


class Command(BaseCommand):
    help = "Issue (or rotate) a team's submission token for a release's private split; the token is printed once."

    def add_arguments(self, parser):
        parser.add_argument("--release", required=True, help="NAME@X.Y.Z")
        parser.add_argument("--team", required=True)
        parser.add_argument("--daily-limit", type=int, default=None,
                            help="Scored submissions in any 24 hours (default 5; kept when rotating without it).")
        parser.add_argument("--rotate", action="store_true",
                            help="Issue a new token for an existing team; its old token stops working.")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args, **options):
        try:
            name, version = release_parse_ref(options["release"])
            team, token = submission_team_issue(release=release_get(name=name, version=version),
                                                name=options["team"], daily_limit=options["daily_limit"],
                                                rotate=options["rotate"])
        except ApplicationError as exc:
            raise CommandError(exc.message + (" (pass --rotate)" if exc.code == "team_exists" else "")) from exc
        if options["json"]:
            self.stdout.write(json.dumps({"release": options["release"], "team": team.name, "token": token,
                                          "daily_limit": team.daily_limit}))
            return
        if token is None:
            self.stdout.write(f"team {team.name!r} on {options['release']}: {team.daily_limit} scored submissions a day "
                              "(its token is unchanged)")
            return
        self.stdout.write(f"{token}\n")
        self.stderr.write(f"token of team {team.name!r} on {options['release']} ({team.daily_limit} scored submissions "
                          "a day); it is shown once, Concord keeps only its sha256")
