"""``manage.py seed_demo``: load the demo campaigns and print the demo accounts (run by ``make demo``)."""

import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from core.cli import progress_bar
from core.errors import ApplicationError


class Command(BaseCommand):
    help = (
        "Generate and import realistic demo campaigns of every MMRB2 kind (plus Omni text-to-audio and "
        "text-to-text), create three annotators, a curator and an admin, and print their logins; one campaign asks a "
        "rater profile and a calibration round first. Idempotent."
    )

    def add_arguments(self, parser):
        parser.add_argument("--out", type=Path, default=None,
                            help="Where the generated JSONL and media go (default: var/demo).")
        parser.add_argument("--allow-production", action="store_true",
                            help="Run under production settings anyway; the demo accounts then get random passwords, "
                                 "printed once, and none keeps its published demo password.")

    def handle(self, *args, out: Path | None, allow_production: bool, **options):
        from demo.services import demo_seed

        production = getattr(settings, "CONCORD_PRODUCTION", False)
        if production and not allow_production:
            raise CommandError(
                f"seed_demo refuses to run under production settings ({settings.SETTINGS_MODULE}): it creates demo "
                "accounts, an admin among them. Create real accounts with 'manage.py createsuperuser'; to load the "
                "demo campaigns here anyway, pass --allow-production (the demo accounts then get random passwords)."
            )
        out_dir = out or Path(settings.VAR_DIR) / "demo"
        started = time.monotonic()
        bar = progress_bar(total=None, desc="pre-filter verdicts")
        try:
            with bar:
                accounts, campaigns = demo_seed(out_dir=out_dir, on_progress=bar.update, random_passwords=production)
        except ApplicationError as exc:
            raise CommandError(exc.message) from exc
        elapsed = time.monotonic() - started
        total = sum(c.pairs for c in campaigns)
        created = sum(c.created_pairs for c in campaigns)
        self.stdout.write(f"Demo data from {out_dir}: {len(campaigns)} campaigns, {total} pairs "
                          f"({created} new) in {elapsed:.1f} s")
        for c in campaigns:
            note = ""
            if c.prefilter:
                note = (f"   pre-filter: {c.prefilter['dropped_easy']} dropped as easy, {c.prefilter['kept']} kept "
                        f"({c.prefilter['verdicts']} verdicts)")
            self.stdout.write(f"  {c.slug:<22} {c.kind:<15} {c.pairs:>3} pairs{note}")
        self.stdout.write("Judges: image-sanity and text-sanity, Concord's built-in heuristics (not models; docs/judges.md).")
        for c in campaigns:
            if c.qualification:
                q = c.qualification
                self.stdout.write(f"Qualification: {q.campaign} asks the profile {q.questionnaire!r}, then a calibration "
                                  f"round of {q.round_size} of its {q.calibration_pairs} calibration pairs (pass mark "
                                  f"{q.pass_mark:.0%}) before the real queue (docs/qualification.md).")
        self.stdout.write("")
        self.stdout.write(self.style.SUCCESS("Demo accounts (the annotators are members of every demo campaign):"))
        self.stdout.write(f"  {'role':<10} {'username':<12} password")
        for a in accounts:
            note = "" if a.password_works else "   (existing account: its password was changed, not reset)"
            self.stdout.write(f"  {a.role:<10} {a.username:<12} {a.password or '(not shown)'}{note}")
        if production:
            self.stdout.write("These random passwords are shown only now.")
