"""``manage.py build_pairs --campaign SLUG --strategy {all,random-k}``: pair up a prompt's responses."""

import json

from django.core.management.base import BaseCommand, CommandError

from annotation.catalogue.models import Campaign
from annotation.importers.pairs import STRATEGIES, pairs_build
from core.errors import ApplicationError


class Command(BaseCommand):
    help = (
        "Form pairs from the responses imported for each prompt of a campaign. 'all' pairs every two responses; "
        "'random-k' tops each prompt up to K pairs, with a share of same-model pairs (MMRB2 had 57%). "
        "Running it again adds nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--strategy", required=True, choices=STRATEGIES)
        parser.add_argument("--k", type=int, help="Pairs per prompt (random-k).")
        parser.add_argument("--same-model-share", type=float, help="Share of same-model pairs, 0..1 (random-k).")
        parser.add_argument("--seed", type=int, default=0, help="Seed of the random draw and of the A/B orientation.")
        parser.add_argument("--json", action="store_true", dest="as_json", help="Print one JSON object on stdout.")

    def handle(self, *args, campaign, strategy, k, same_model_share, seed, as_json: bool, **options):
        found = Campaign.objects.filter(slug=campaign).first()
        if found is None:
            raise CommandError(f"campaign {campaign!r} does not exist")
        try:
            outcome = pairs_build(campaign=found, strategy=strategy, k=k, same_model_share=same_model_share, seed=seed)
        except ApplicationError as exc:
            raise CommandError(exc.message) from exc
        summary = {"created": outcome.created, "prompts": outcome.prompts, "same_model": outcome.same_model}
        if as_json:
            self.stdout.write(json.dumps(summary))
            return
        share = f" ({100 * outcome.same_model / outcome.created:.1f}% same-model)" if outcome.created else ""
        self.stdout.write(f"{outcome.created:,} pairs created over {outcome.prompts:,} prompts{share}.")

