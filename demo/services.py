"""Seeding the demo: accounts, campaigns and their pairs, all idempotent."""

from __future__ import annotations

import io
import json
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model
from django.core.management import call_command

from annotation.accounts.models import Role
from annotation.accounts.services.accounts import user_create
from annotation.catalogue.models import Campaign
from annotation.catalogue.services.campaigns import campaign_add_members, campaign_create
from core.errors import ApplicationError

if TYPE_CHECKING:
    from collections.abc import Callable

DEMO_ACCOUNTS = (
    ("annotator1", "demo-annotator1", Role.ANNOTATOR),
    ("annotator2", "demo-annotator2", Role.ANNOTATOR),
    ("annotator3", "demo-annotator3", Role.ANNOTATOR),
    ("curator", "demo-curator", Role.CURATOR),
    ("admin", "demo-admin", Role.ADMIN),
)


@dataclass(frozen=True)
class DemoAccount:
    username: str
    password: str
    role: str
    created: bool
    password_works: bool


@dataclass(frozen=True)
class DemoCampaignResult:
    slug: str
    kind: str
    pairs: int
    created_pairs: int
    prefilter: dict | None = None


# The built-in heuristic judges (curation.judges.heuristics): cheap checks, not models, so the demo needs no GPU.
DEMO_JUDGES = (
    ("image-sanity", "curation.judges.heuristics.image_sanity"),
    ("text-sanity", "curation.judges.heuristics.text_sanity"),
)


def demo_judges_ensure() -> list[str]:
    """The demo's two heuristic judges, created when missing; an existing judge is left as a curator set it."""
    from curation.models import Judge
    from curation.services.judges import judge_create

    for name, path in DEMO_JUDGES:
        if not Judge.objects.filter(name=name).exists():
            judge_create(name=name, backend=Judge.Backend.PYTHON, settings={"callable": path, "concurrency": 4})
    return [name for name, _ in DEMO_JUDGES]


# The built-in heuristic judges abstain unless one side is plainly broken, and MMRB2's rule counts an abstention
# against agreement: with them the demo names the valid-votes rule, as a curator would for heuristics.
DEMO_PREFILTER_RULE = {"rule": "majority-of-valid", "threshold": 0.9, "min_votes": 2}


def demo_prefilter_run(*, campaign: Campaign, judges: list[str], on_progress: Callable[[int], None] | None = None) -> dict | None:
    """Run the pre-filter on the campaign's pairs still awaiting it, in this process; None when none await it."""
    from annotation.catalogue.models import Pair
    from curation.services.prefilter import prefilter_job_create, prefilter_run_inline

    if not campaign.pairs.filter(status=Pair.Status.PENDING).exists():
        return None
    job = prefilter_job_create(campaign=campaign, judge_names=judges)
    return prefilter_run_inline(job_id=job.pk, on_progress=on_progress)


def demo_accounts_ensure(*, random_passwords: bool = False) -> list[DemoAccount]:
    """The five demo accounts, created when missing; an existing account keeps its password and role.

    With ``random_passwords`` (production) no account is left with a published demo password: a new one gets a
    random password, and an existing one that still has its demo password gets a random one instead."""
    accounts = []
    for username, known_password, role in DEMO_ACCOUNTS:
        user = get_user_model().objects.filter(username=username).first()
        created = user is None
        password = secrets.token_urlsafe(18) if random_passwords else known_password
        if created:
            user = user_create(username=username, password=password, role=role, check_strength=False)
        elif random_passwords:
            if not user.check_password(known_password):
                accounts.append(DemoAccount(username, "", user.role, created, False))
                continue
            user.set_password(password)
            user.save(update_fields=["password"])
        accounts.append(DemoAccount(username, password, user.role, created, user.check_password(password)))
    return accounts


def demo_seed(*, out_dir: Path, on_progress: Callable[[int], None] | None = None,
              random_passwords: bool = False) -> tuple[list[DemoAccount], list[DemoCampaignResult]]:
    """Generate the demo files under ``out_dir``, import them, make the annotators members of every campaign, and
    run the heuristic judges' pre-filter on the campaigns that need it.

    Idempotent: the generator writes the same bytes each time and re-importing a file creates
    nothing, so a second run changes nothing. Precondition: migrations are applied.
    """
    from demo.build import build_demo

    campaigns, media_root = build_demo(out_dir)
    accounts = demo_accounts_ensure(random_passwords=random_passwords)
    annotators = get_user_model().objects.filter(username__in=[a.username for a in accounts if a.role == Role.ANNOTATOR])
    judges = demo_judges_ensure()
    results = []
    for demo in campaigns:
        campaign = Campaign.objects.filter(slug=demo.slug).first()
        if campaign is None:
            campaign = campaign_create(slug=demo.slug, kind=demo.kind, preset=demo.preset, name=demo.name,
                                       instructions=demo.instructions, requires_prefilter=demo.prefilter,
                                       prefilter_rule=DEMO_PREFILTER_RULE if demo.prefilter else None)
        outcome = _import(demo.jsonl, slug=demo.slug, kind=demo.kind, preset=demo.preset, media_root=media_root)
        campaign_add_members(campaign=campaign, users=annotators)
        report = demo_prefilter_run(campaign=campaign, judges=judges, on_progress=on_progress) if demo.prefilter else None
        results.append(DemoCampaignResult(demo.slug, demo.kind, demo.pairs, outcome["created"], report))
    return accounts, results


def _import(path: Path, *, slug: str, kind: str, preset: str, media_root: Path) -> dict:
    output = io.StringIO()
    try:
        call_command("import_pairs", str(path), "--campaign", slug, "--format", "concord", "--task", kind,
                     "--schema", preset, "--media-root", str(media_root), "--json", stdout=output, stderr=io.StringIO())
    except SystemExit as exc:  # import_pairs exits 2 (partial) or 1 (failed) unless every row is in; its JSON says which
        raise ApplicationError(f"demo import of {path.name} failed (exit {exc.code}): {output.getvalue()[:2000]}",
                               code="demo_import_failed") from exc
    outcome = json.loads(output.getvalue())
    if outcome["errors"]:
        raise ApplicationError(f"demo import of {path.name} reported errors: {outcome['errors'][:5]}",
                               code="demo_import_failed")
    return outcome
