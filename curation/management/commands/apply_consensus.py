"""``manage.py apply_consensus --campaign SLUG [--policy NAME] [--json]``: decide every fully rated pair now."""

import json

from django.core.management.base import BaseCommand, CommandError

from annotation.catalogue.models import Campaign
from core.cli import progress_bar
from core.errors import ApplicationError
from curation.consensus import policy_names
from curation.services.consensus import ON_DISPUTE, consensus_apply


class Command(BaseCommand):
    help = "Apply a consensus policy to a campaign and write one consensus record per decided pair."

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True, help="Campaign slug.")
        parser.add_argument("--policy", choices=policy_names(), help="Policy name; the campaign's own by default.")
        parser.add_argument("--params", help="Policy parameters as a JSON object, e.g. '{\"k\": 3}'.")
        parser.add_argument("--on-dispute", choices=ON_DISPUTE, help="Drop disputes, escalate them or adjudicate them.")
        parser.add_argument("--json", action="store_true", dest="as_json", help="Print the outcome as one JSON object.")

    def handle(self, *args, campaign, policy, params, on_dispute, as_json, **options):
        found = Campaign.objects.select_related("rating_schema").filter(slug=campaign).first()
        if found is None:
            raise CommandError(f"campaign {campaign!r} does not exist")
        parsed = None
        if params is not None:
            try:
                parsed = json.loads(params)
            except json.JSONDecodeError as exc:
                raise CommandError(f"--params is not valid JSON: {exc}") from exc
            if not isinstance(parsed, dict):
                raise CommandError("--params must be a JSON object")
        bar = progress_bar(total=None, desc="consensus")

        def progress(done: int, total: int) -> None:
            bar.total = total or None
            bar.n = done
            bar.refresh()

        try:
            summary = consensus_apply(campaign=found, policy=policy, params=parsed, on_dispute=on_dispute,
                                      progress=progress)
        except ApplicationError as exc:
            raise CommandError(exc.message) from exc
        finally:
            bar.close()
        if as_json:
            self.stdout.write(json.dumps(summary))
            return
        reasons = ", ".join(f"{reason} {n:,}" for reason, n in summary["dropped_by_reason"].items()) or "none"
        sides = ", ".join(f"{side} {n:,}" for side, n in summary["chosen"].items())
        self.stdout.write(
            f"{found.slug} ({summary['policy']}): kept {summary['kept']:,} ({sides}), "
            f"dropped {summary['dropped']:,} ({reasons}), disputed {summary['disputed']:,}, "
            f"waiting for ratings {summary['pending']:,}"
        )
        if summary["left_out"]:
            why = ", ".join(f"{reason} {n:,}" for reason, n in summary["left_out"].items())
            self.stdout.write(f"  {sum(summary['left_out'].values()):,} undecided pairs not waiting for ratings ({why})")
        left_out = summary.get("ratings_left_out", {})
        if left_out.get("anonymous_slots"):
            self.stdout.write(f"  {left_out['anonymous_slots']:,} ratings of anonymous slots left out ({left_out['why']})")
