"""evaluate_judge --release NAME@X.Y.Z --predictions FILE --format {mmrb2,omnireward,scores} [--predictions-no-tie FILE]
[--judge NAME] [--json]"""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from core.errors import ApplicationError
from curation.models import JudgeEvaluation
from curation.selectors.releases import release_get, release_parse_ref
from curation.services.releases import judge_evaluate


def percent(value) -> str:
    return "n/a" if value is None else f"{100 * value:.2f}%"


def interval(ci) -> str:
    return "" if not ci else f" [95% CI {percent(ci[0])}–{percent(ci[1])}]"


class Command(BaseCommand):
    help = "Score a judge's predictions against a published release as MMRB2 or Omni-RewardBench score them."

    def add_arguments(self, parser):
        parser.add_argument("--release", required=True, help="NAME@X.Y.Z")
        parser.add_argument("--predictions", required=True, type=Path)
        parser.add_argument("--format", required=True, choices=JudgeEvaluation.Format.values)
        parser.add_argument("--predictions-no-tie", type=Path, default=None,
                            help="omnireward only: Omni-RewardBench's second run (the no-tie prompt on the non-tie "
                                 "pairs); the figure without ties is read from it.")
        parser.add_argument("--judge", default="", help="Judge name on the leaderboard (default: the file's name).")
        parser.add_argument("--json", action="store_true", help="Print every figure as one JSON object.")

    def handle(self, *args, **options):
        path, no_tie = options["predictions"], options["predictions_no_tie"]
        for file in (path, no_tie):
            if file is not None and not file.is_file():
                raise CommandError(f"{file}: no such file")
        try:
            name, version = release_parse_ref(options["release"])
            evaluation = judge_evaluate(
                release=release_get(name=name, version=version, published=True),
                judge_name=options["judge"] or path.stem, predictions=path.read_bytes(), format=options["format"],
                file_name=path.name, predictions_no_tie=None if no_tie is None else no_tie.read_bytes(),
                no_tie_file_name="" if no_tie is None else no_tie.name,
            )
        except ApplicationError as exc:
            raise CommandError(exc.message) from exc
        scores = evaluation.scores
        if options["json"]:
            self.stdout.write(json.dumps(scores))
            return
        write = self.stdout.write
        where = f"{evaluation.judge_name} on {options['release']}"
        if scores["format"] == JudgeEvaluation.Format.MMRB2:
            write(f"{where}, MMRB2 rules (compute_accuracy.py): accuracy {percent(scores['accuracy'])} "
                  f"({scores['correct']}/{scores['verdicts']} judgements){interval(scores['ci95'])}; "
                  f"{scores['evaluated']} pairs evaluated, {scores['missing']} missing")
            for task, figures in scores["per_task"].items():
                write(f"  {task}: {percent(figures['accuracy'])} ({figures['correct']}/{figures['verdicts']}), "
                      f"{figures['missing']} missing")
            write(f"Concord's additions: position consistency {percent(scores['position_consistency'])} over "
                  f"{scores['position_consistency_pairs']} pairs; {scores['missing_verdicts']} empty or absent "
                  f"judgements skipped; {scores['ignored_entries']} entries after the first ignored; "
                  f"{scores['tie_pairs_left_out']} tie pairs left out")
        elif scores["format"] == JudgeEvaluation.Format.SCORES:
            epsilon = scores["tie_epsilon"]
            write(f"{where}, reward-model scores: accuracy {percent(scores['accuracy'])} "
                  f"({scores['correct']}/{scores['verdicts']} pairs humans did not call a tie; equal or missing scores "
                  f"count wrong){interval(scores['ci95'])}; tie-calibrated accuracy "
                  f"{percent(scores['tie_calibrated_accuracy'])} over all {scores['pairs'] + scores['tie_pairs']} "
                  f"pairs{interval(scores['tie_calibrated_ci95'])}, a tie when |score A - score B| <= "
                  f"{'n/a' if epsilon is None else f'{epsilon:.6g}'} (fitted to this release); "
                  f"{scores['missing_verdicts']} pairs without scores")
            for task, figures in scores["per_task"].items():
                write(f"  {task}: {percent(figures['accuracy'])}, tie-calibrated "
                      f"{percent(figures['tie_calibrated_accuracy'])}")
        else:
            files = scores["files"]
            no_tie_file = files.get("predictions_no_tie", files["predictions"])["name"]
            write(f"{where}, Omni-RewardBench rules: with ties {percent(scores['with_ties'])} over {scores['pairs']} "
                  f"pairs{interval(scores['ci95'])} (from {files['predictions']['name']}, {scores['with_ties_from']}); "
                  f"without ties {percent(scores['without_ties'])} over {scores['pairs'] - scores['tie_pairs']} pairs"
                  f"{interval(scores['without_ties_ci95'])} (from {no_tie_file}, {scores['without_ties_from']}); "
                  f"{scores['missing']} without a label (counted wrong)")
            for task, figures in scores["per_task"].items():
                write(f"  {task}: with ties {percent(figures['with_ties'])}, without ties "
                      f"{percent(figures['without_ties'])}")
        for source, figures in scores["per_source"].items():
            write(f"  source {source}: {percent(figures['accuracy'])}{interval(figures['ci95'])}")
        macro = scores["macro_by_source"]
        write(f"  mean over the {macro['groups']} sources (each counts once): {percent(macro['accuracy'])}"
              f"{interval(macro['ci95'])}")
        if scores["unknown_ids"]:
            write(f"{scores['unknown_ids']} prediction ids are not in the release (ignored), e.g. "
                  f"{', '.join(scores['unknown_examples'])}")
