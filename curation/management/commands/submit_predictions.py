"""submit_predictions --release NAME@X.Y.Z --predictions FILE --format {mmrb2,omnireward} [--token TOKEN]
[--predictions-no-tie FILE] [--judge NAME] [--publish] [--remote URL [--allow-http] [--timeout S]] [--json]

Scores predictions on the release's private split as the team the token belongs to (``--token`` or
``CONCORD_SUBMISSION_TOKEN``), within its daily limit; prints aggregate figures only. With ``--remote URL`` the
predictions are sent to that Concord server's held-out API over HTTP(S) instead (no database or shell on the server
needed: ``curation.releases.submission_client``).
"""

import json
import os
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from core.errors import ApplicationError
from curation.api.heldout import SubmissionOutputSerializer
from curation.management.commands.evaluate_judge import interval, percent
from curation.models import JudgeEvaluation
from curation.releases.submission_client import Remote, RemoteSubmissionError, submit_remote
from curation.selectors.releases import release_get, release_parse_ref
from curation.services.heldout import submission_create, submission_publish, submission_team_authenticate

TOKEN_VARIABLE = "CONCORD_SUBMISSION_TOKEN"


class Command(BaseCommand):
    help = "Score a judge's predictions on a release's private split as a team (token), within its daily limit."

    def add_arguments(self, parser):
        parser.add_argument("--release", required=True, help="NAME@X.Y.Z")
        parser.add_argument("--predictions", required=True, type=Path)
        parser.add_argument("--format", required=True, choices=JudgeEvaluation.Format.values)
        parser.add_argument("--predictions-no-tie", type=Path, default=None,
                            help="omnireward only: Omni-RewardBench's no-tie run on the non-tie pairs.")
        parser.add_argument("--token", default="", help=f"The team's token (default: ${TOKEN_VARIABLE}).")
        parser.add_argument("--judge", default="", help="Judge name (default: the team's name).")
        parser.add_argument("--publish", action="store_true", help="Put the result on the release's leaderboard.")
        parser.add_argument("--remote", default="", metavar="URL",
                            help="Submit to the Concord server at URL (e.g. https://concord.example.org) over its API "
                                 "instead of scoring here.")
        parser.add_argument("--allow-http", action="store_true",
                            help="With --remote: allow plain http to another machine (the token is sent in the clear).")
        parser.add_argument("--timeout", type=float, default=300.0, help="With --remote: seconds to wait for each answer.")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args, **options):
        path, no_tie = options["predictions"], options["predictions_no_tie"]
        for file in (path, no_tie):
            if file is not None and not file.is_file():
                raise CommandError(f"{file}: no such file")
        token = options["token"] or os.environ.get(TOKEN_VARIABLE, "")
        try:
            name, version = release_parse_ref(options["release"])
            if options["remote"]:
                submission = self._remote(options, release=f"{name}@{version}", token=token)
            else:
                submission = self._here(options, name=name, version=version, token=token)
        except ApplicationError as exc:
            raise CommandError(f"{exc.message} (--token or ${TOKEN_VARIABLE})"
                               if exc.code == "submission_token_missing" else exc.message) from exc
        if options["json"]:
            self.stdout.write(json.dumps(submission))
            return
        scores = submission["scores"]
        self.stdout.write(f"submission {submission['id']} of team {submission['team']!r} ({submission['judge']}) on "
                          f"the private split of {options['release']}: accuracy {percent(scores.get('accuracy'))}"
                          f"{interval(scores.get('ci95'))}; {scores.get('evaluated')} of {scores.get('pairs')} pairs "
                          f"evaluated{'; published' if submission['published'] else ''}")
        for task, figures in scores.get("per_task", {}).items():
            self.stdout.write(f"  {task}: {percent(figures.get('accuracy'))}{interval(figures.get('ci95'))}")

    @staticmethod
    def _here(options, *, name: str, version: str, token: str) -> dict:
        path, no_tie = options["predictions"], options["predictions_no_tie"]
        release = release_get(name=name, version=version, published=True)
        team = submission_team_authenticate(release=release, token=token)
        submission = submission_create(
            release=release, team=team, predictions=path.read_bytes(), format=options["format"],
            judge_name=options["judge"], file_name=path.name,
            predictions_no_tie=None if no_tie is None else no_tie.read_bytes(),
            no_tie_file_name="" if no_tie is None else no_tie.name)
        if options["publish"]:
            submission = submission_publish(team=team, submission_id=submission.pk)
        return SubmissionOutputSerializer(submission).data

    @staticmethod
    def _remote(options, *, release: str, token: str) -> dict:
        if not token:
            raise CommandError(f"send your team's submission token: --token or ${TOKEN_VARIABLE}")
        try:
            remote = Remote.parse(options["remote"], allow_http=options["allow_http"])
            return submit_remote(remote=remote, release=release, token=token, predictions=options["predictions"],
                                 format=options["format"], predictions_no_tie=options["predictions_no_tie"],
                                 judge=options["judge"], publish=options["publish"], timeout=options["timeout"])
        except RemoteSubmissionError as exc:
            raise CommandError(str(exc)) from exc
