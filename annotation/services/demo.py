"""Seeding the demo: accounts, campaigns and their pairs, all idempotent."""

from __future__ import annotations

import io
import json
import secrets
from dataclasses import dataclass
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management import call_command

from annotation.errors import ApplicationError
from annotation.models import Campaign, Role
from annotation.services.campaigns import campaign_add_members, campaign_create, user_create

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
            user = user_create(username=username, password=password, role=role)
        elif random_passwords:
            if not user.check_password(known_password):
                accounts.append(DemoAccount(username, "", user.role, created, False))
                continue
            user.set_password(password)
            user.save(update_fields=["password"])
        accounts.append(DemoAccount(username, password, user.role, created, user.check_password(password)))
    return accounts


def demo_seed(*, out_dir: Path, random_passwords: bool = False) -> tuple[list[DemoAccount], list[DemoCampaignResult]]:
    """Generate the demo files under ``out_dir``, import them, and make the annotators members of every campaign.

    Idempotent: the generator writes the same bytes each time and re-importing a file creates
    nothing, so a second run changes nothing. Precondition: migrations are applied.
    """
    from annotation.demo.build import build_demo

    campaigns, media_root = build_demo(out_dir)
    accounts = demo_accounts_ensure(random_passwords=random_passwords)
    annotators = get_user_model().objects.filter(username__in=[a.username for a in accounts if a.role == Role.ANNOTATOR])
    results = []
    for demo in campaigns:
        campaign = Campaign.objects.filter(slug=demo.slug).first()
        if campaign is None:
            campaign = campaign_create(slug=demo.slug, kind=demo.kind, preset=demo.preset, name=demo.name,
                                       instructions=demo.instructions)
        outcome = _import(demo.jsonl, slug=demo.slug, kind=demo.kind, preset=demo.preset, media_root=media_root)
        campaign_add_members(campaign=campaign, users=annotators)
        results.append(DemoCampaignResult(demo.slug, demo.kind, demo.pairs, outcome["created"]))
    return accounts, results


def _import(path: Path, *, slug: str, kind: str, preset: str, media_root: Path) -> dict:
    output = io.StringIO()
    try:
        call_command("import_pairs", str(path), "--campaign", slug, "--format", "concord", "--task", kind,
                     "--schema", preset, "--media-root", str(media_root), "--json", stdout=output, stderr=io.StringIO())
    except SystemExit as exc:  # import_pairs exits 2 when a row failed; its JSON says which
        raise ApplicationError(f"demo import of {path.name} failed (exit {exc.code}): {output.getvalue()[:2000]}",
                               code="demo_import_failed") from exc
    outcome = json.loads(output.getvalue())
    if outcome["errors"]:
        raise ApplicationError(f"demo import of {path.name} reported errors: {outcome['errors'][:5]}",
                               code="demo_import_failed")
    return outcome
