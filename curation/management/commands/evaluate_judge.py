"""evaluate_judge --release NAME@X.Y.Z --predictions FILE --format {mmrb2,omnireward} [--judge NAME] [--json]"""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.errors import ApplicationError
from curation.models import JudgeEvaluation
from curation.selectors.releases import release_get, release_parse_ref
from curation.services.releases import judge_evaluate

KEYS = ("accuracy", "evaluated", "missing", "per_task", "with_ties", "without_ties")


class Command(BaseCommand):
    help = "Score a judge's predictions against a published release as MMRB2 or Omni-Reward score them."

    def add_arguments(self, parser):
        parser.add_argument("--release", required=True, help="NAME@X.Y.Z")
        parser.add_argument("--predictions", required=True, type=Path)
        parser.add_argument("--format", required=True, choices=JudgeEvaluation.Format.values)
        parser.add_argument("--judge", default="", help="Judge name on the leaderboard (default: the file's name).")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args, **options):
        path = options["predictions"]
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        try:
            name, version = release_parse_ref(options["release"])
            evaluation = judge_evaluate(
                release=release_get(name=name, version=version, published=True),
                judge_name=options["judge"] or path.stem, predictions=path.read_bytes(), format=options["format"],
            )
        except ApplicationError as exc:
            raise CommandError(exc.message) from exc
        scores = evaluation.scores
        if options["json"]:
            extra = {k: scores[k] for k in ("ci95", "per_source", "position_consistency", "verdicts", "invalid",
                                             "missing_verdicts", "unknown_ids") if k in scores}
            self.stdout.write(json.dumps({**{k: scores[k] for k in KEYS}, **extra}))
            return
        accuracy = scores["accuracy"]
        self.stdout.write(f"{evaluation.judge_name} on {options['release']}: accuracy "
                          f"{'n/a' if accuracy is None else f'{100 * accuracy:.2f}%'} over {scores['evaluated']} pairs, "
                          f"{scores['missing']} without a verdict")
        for task, figures in scores["per_task"].items():
            value = figures["accuracy"]
            self.stdout.write(f"  {task}: {'n/a' if value is None else f'{100 * value:.2f}%'}")
